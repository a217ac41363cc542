"""JSON Lines files, read one way for every input: problem sets, answers, format rows.

A file is ``.jsonl`` or ``.jsonl.gz`` (gzip when the name ends in ``.gz``), UTF-8, one
JSON object per line; blank lines are skipped, and a file with no rows at all is refused
(an empty download or a wrong file, never a set of zero problems or answers). Every
mistake is a ``ProblemError`` of one line naming the file and the line:
``d.jsonl:3: line 3: invalid JSON: ...``.
"""

from __future__ import annotations

import gzip
import json
from typing import TYPE_CHECKING, Any

from harness.core.errors import ProblemError

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


def line_error(shown: str, number: int, message: str, key: str | None = None) -> ProblemError:
    """The error for line ``number``: located by ``key`` when one is named, else by the line."""
    return ProblemError(shown, key or f"line {number}", message, line=number)


def read_rows(path: Path, display: str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of ``path``.

    The file is read whole before the first row is yielded, so that a file that cannot
    be read (missing, truncated gzip, not UTF-8) is reported as such, before any row.
    """
    shown = display or str(path)
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        # Text mode splits on \n, \r\n and \r only, as iterating the file would: a
        # U+2028 inside a JSON string stays inside its line (str.splitlines would cut it).
        with opener(path, "rt", encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise ProblemError(shown, None, "file not found") from None
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise ProblemError(shown, None, f"cannot read: {exc}") from None
    return _rows(text, shown)


def _rows(text: str, shown: str) -> Iterator[tuple[int, dict[str, Any]]]:
    empty = True
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except (ValueError, RecursionError) as exc:  # deep nesting overflows the parser
            raise line_error(shown, number, f"invalid JSON: {exc}") from None
        if not isinstance(row, dict):
            raise line_error(shown, number, "expected a JSON object")
        empty = False
        yield number, row
    if empty:
        raise ProblemError(shown, None, "empty: no JSON rows")
