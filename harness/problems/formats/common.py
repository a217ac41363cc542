"""What the formats share: the shape of a JSONL format, the row being loaded with its
typed field checks, the contexts' preamble, libraries and timeouts."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.core.errors import ProblemError
from harness.core.jsonl import line_error
from harness.core.libraries import canonical, lookup
from harness.envside.protocol import FORMAT_HELPERS

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from harness.core.problem import Problem

# The env side runs every context with its own package loaded under this name.
ENVSIDE_PACKAGE = "_harness_envside"
PREAMBLE = f"from {ENVSIDE_PACKAGE}.checks.formatlib import *  # the formats' env-side helpers"


def context(*sections: str, checks: str = "") -> str:
    """A context: the env-side helpers, and the format's own checks where they are a
    module of the env side (``checks``: ``formatlib_bigcodebench``), then the format's
    own code."""
    preamble = PREAMBLE
    if checks:
        preamble += f"\nfrom {ENVSIDE_PACKAGE}.{checks} import *  # the format's env-side checks"
    return "\n\n".join([preamble, *sections])


def check(template: str, **values: Any) -> str:
    """A format's check program: ``template`` filled in with ``values`` and with the names
    of the env side's helpers it calls (``{unittest}``, ``{run_cell}``, …), as
    ``protocol.FORMAT_HELPERS`` declares them."""
    return template.format(**FORMAT_HELPERS, **values)


class Row:
    """One JSONL row being loaded: typed access that fails with the file, line and key."""

    def __init__(self, data: dict[str, Any], shown: str, number: int) -> None:
        self.data, self.shown, self.number = data, shown, number

    def fail(self, key: str, message: str) -> ProblemError:
        """A mistake in field ``key``: ``file:N: key: message``."""
        return line_error(self.shown, self.number, message, key)

    def fail_line(self, message: str) -> ProblemError:
        """A mistake in the row as a whole: ``file:N: line N: message``."""
        return line_error(self.shown, self.number, message)

    def text(self, key: str, default: str | None = None, *, empty: bool = False) -> str:
        value = self.data.get(key, default)
        if value is None:
            raise self.fail(key, "missing")
        if not isinstance(value, str) or (not empty and not value.strip()):
            raise self.fail(key, "must be a non-empty string")
        return value

    def number_or(self, key: str, default: float) -> float:
        value = self.data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise self.fail(key, "must be a non-negative number")
        return float(value)

    def texts(self, key: str) -> list[str]:
        value = self.data.get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(key, "must be a list of strings")
        return value


@dataclass(frozen=True)
class Format:
    """A JSONL format: which rows are its own, and how one row becomes problems."""

    name: str
    matches: Callable[[dict[str, Any]], bool]  # told by the keys of a file's first row
    load_row: Callable[[Row, str], list[Problem]]  # (row, set name) → its problems
    # For a format whose rows need files beside them (GitChameleon's hidden tests): the
    # whole file, (path, shown) → its problems, read in place of ``load_row``.
    load_file: Callable[[Path, str], list[Problem]] | None = None


def main_library(names: list[str], fallback: str = "python") -> str:
    """The first data-science library among ``names``, by its canonical key."""
    for name in names:
        if lookup(name) is not None:
            return canonical(name)
    return fallback


def library_list(value: Any) -> list[str]:
    """BigCodeBench stores ``libs`` as a list, or as that list's Python repr."""
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            value = [value]
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return []


def timeout(value: Any, shown: str, where: str) -> float | None:
    """A problem's own time limit: absent, or a positive number of seconds."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ProblemError(shown, where, "timeout must be a positive number of seconds")
    return float(value)
