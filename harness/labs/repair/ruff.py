"""Fixes taken from ruff's NumPy rules (NPY001, NPY201) instead of rewriting them here.

ruff runs as a subprocess (the binary the ``ruff`` package locates) and reports its
diagnostics with their fixes as JSON; only the fixes for the symbols a codemod owns are
applied, so each codemod stays one API change even though ruff's rule covers many. A
snippet that uses ``np`` without importing it (its context does) gets a temporary
``import numpy as np`` line so that ruff can resolve it; the line is removed again.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from typing import Any

_TIMEOUT = 60  # seconds; ruff takes milliseconds on a snippet
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class RuffFix:
    """ruff's fixes of ``rule`` for the NumPy names in ``symbols`` (``NaN``, ``product``...)."""

    rule: str
    symbols: frozenset[str]

    def mentioned(self, source: str) -> bool:
        """Whether ``source`` may use one of the symbols: as an attribute, or imported."""
        names = "|".join(map(re.escape, sorted(self.symbols)))
        if re.search(rf"\.(?:{names})\b", source):
            return True
        return "numpy" in source and bool(re.search(rf"\b(?:{names})\b", source))


class RuffError(Exception):
    """ruff could not be run; the message says why."""


def ruff_binary() -> str:
    try:
        from ruff.__main__ import find_ruff_bin  # noqa: PLC0415 (optional at run time)
    except ImportError as exc:
        raise RuffError(f"ruff is not installed ({exc})") from None
    try:
        return str(find_ruff_bin())
    except FileNotFoundError as exc:
        raise RuffError(f"the ruff binary was not found ({exc})") from None


def apply_fix(source: str, fix: RuffFix) -> str:
    """``source`` with ruff's fixes for ``fix.symbols`` applied; raises RuffError."""
    preamble = _preamble(source)
    text = preamble + source
    for _ in range(5):  # fixes that overlapped another one are applied on the next round
        edits = _edits(text, fix)
        if not edits:
            break
        text = _apply_edits(text, edits)
    if not text.startswith(preamble):
        raise RuffError("ruff's fix touched the import added for it")
    return text[len(preamble) :]


def _preamble(source: str) -> str:
    """The imports ruff needs to see ``np.`` / ``numpy.`` as NumPy in a snippet that uses
    them unimported (its context imports them)."""
    lines = ""
    if re.search(r"(?<![\w.])np\.", source) and not re.search(r"\bas\s+np\b", source):
        lines += "import numpy as np\n"
    if re.search(r"(?<![\w.])numpy\.", source) and not re.search(
        r"^\s*import\s+(?:[\w.]+\s*,\s*)*numpy\b", source, re.MULTILINE
    ):
        lines += "import numpy\n"
    return lines


def _run(text: str, rule: str) -> list[dict[str, Any]]:
    command = [
        ruff_binary(),
        "check",
        "--isolated",  # none of the project's configuration, nor its exclusions
        "--select",
        rule,
        "--unsafe-fixes",
        "--exit-zero",
        "--output-format",
        "json",
        "--stdin-filename",
        "snippet.py",
        "-",
    ]
    try:
        done = subprocess.run(
            command, input=text, capture_output=True, text=True, timeout=_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RuffError(f"ruff did not run: {exc}") from None
    if done.returncode != 0:
        raise RuffError(f"ruff failed: {done.stderr.strip()[:200]}")
    try:
        found = json.loads(done.stdout)
    except ValueError:
        raise RuffError("ruff's output is not JSON") from None
    return found if isinstance(found, list) else []


def _edits(text: str, fix: RuffFix) -> list[tuple[int, int, str]]:
    """Edits (start, end, new text) of the fixes for ``fix.symbols``, without overlaps.

    A diagnostic's edits (the replacement and, say, an import) are taken all or none.
    """
    starts = _line_starts(text)
    chosen: set[tuple[int, int, str]] = set()
    for diagnostic in _run(text, fix.rule):
        if not diagnostic.get("fix"):
            continue
        start = _offset(starts, diagnostic["location"])
        flagged = text[start : _offset(starts, diagnostic["end_location"])]
        if flagged.rsplit(".", 1)[-1] not in fix.symbols:
            continue
        edits = set()
        for edit in diagnostic["fix"]["edits"]:
            span = (_offset(starts, edit["location"]), _offset(starts, edit["end_location"]))
            if text[span[0] : span[1]] != edit["content"]:
                edits.add((*span, edit["content"]))
        if not any(_overlap(e, c) for e in edits - chosen for c in chosen):
            chosen |= edits
    return sorted(chosen)


def _overlap(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    # two insertions at one place overlap too: their order would be a guess
    return (a[0] < b[1] and b[0] < a[1]) or a[0] == b[0]


def _apply_edits(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, content in reversed(edits):
        text = text[:start] + content + text[end:]
    return text


def _line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in _LINE_BREAK.finditer(text))]


def _offset(starts: list[int], location: dict[str, int]) -> int:
    # ruff counts rows from 1 and columns from 1, in characters
    return starts[location["row"] - 1] + location["column"] - 1
