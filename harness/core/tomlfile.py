"""Read a TOML file once, and answer "on which line is this key?" for error messages.

``tomllib`` gives values but no positions. Our errors promise a line where one can be
found, so this module keeps the text and finds the line of a dotted key by scanning
table headers: good enough for the flat, hand-written files we read.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from harness.core.errors import HarnessError

_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*=""")


def _split_dotted(header: str) -> tuple[str, ...]:
    parts = re.findall(r"""\s*("[^"]*"|'[^']*'|[^.\s]+)\s*\.?""", header)
    return tuple(p.strip("\"'") for p in parts)


@dataclass(frozen=True)
class TomlFile:
    path: Path
    display: str
    text: str
    data: dict[str, Any]

    @classmethod
    def load(
        cls,
        path: Path,
        error: Callable[..., HarnessError],
        display: str | None = None,
    ) -> TomlFile:
        shown = display or str(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise error(shown, None, "file not found") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise error(shown, None, f"cannot read: {exc}") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            line = getattr(exc, "lineno", None) or _line_from_message(str(exc))
            raise error(
                shown, None, f"invalid TOML: {_strip_position(str(exc))}", line=line
            ) from None
        return cls(path, shown, text, data)

    def line_of(self, *keys: str) -> int | None:
        """Best-effort line number of ``keys`` (table path then key), or of its table; a
        key of an inline table (``sources = { torch = "x" }``) at the line naming it."""
        if not keys:
            return None
        found = self._line_of(keys)
        if found is None and len(keys) > 2:  # only a key's own line, never a table's
            return self._line_of(keys[:-1], key_only=True)
        return found

    def _line_of(self, keys: tuple[str, ...], *, key_only: bool = False) -> int | None:
        table: tuple[str, ...] = ()
        table_line: int | None = None
        prefix_line: int | None = None
        *want_table, want_key = keys
        inside: str | None = None  # the delimiter of the multi-line string we are in
        for number, raw in enumerate(self.text.splitlines(), start=1):
            if inside is not None:
                if inside in raw:
                    inside = None
                continue
            # a line that opens a multi-line string (an odd count of its delimiter)
            # makes the following lines text, not keys
            inside = next((d for d in ('"""', "'''") if raw.count(d) % 2), None)
            header = _HEADER.match(raw)
            if header:
                table = _split_dotted(header.group(1))
                if table == tuple(keys) and not key_only:
                    return number
                if table == tuple(want_table):
                    table_line = number
                if prefix_line is None and table[: len(keys)] == tuple(keys):
                    prefix_line = number  # [combos.a] locates the table "combos"
                continue
            key = _KEY.match(raw)
            if key and table == tuple(want_table) and key.group(1).strip("\"'") == want_key:
                return number
        return None if key_only else table_line or prefix_line


def _line_from_message(message: str) -> int | None:
    found = re.search(r"line (\d+)", message)
    return int(found.group(1)) if found else None


def _strip_position(message: str) -> str:
    return re.sub(r"\s*\(at line \d+, column \d+\)", "", message)
