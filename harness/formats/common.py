"""Helpers the format loaders share: the contexts' preamble, field checks, libraries."""

from __future__ import annotations

import ast
from typing import Any

from harness.errors import ProblemError
from harness.libraries import canonical, lookup

# The env side runs every context with its own package loaded under this name.
PREAMBLE = "from _harness_envside.formatlib import *  # the formats' env-side helpers"


def context(*sections: str) -> str:
    """A context: the env-side helpers, then the format's own code."""
    return "\n\n".join([PREAMBLE, *sections])


class Row:
    """One JSONL row being loaded: typed access that fails with the file, line and key."""

    def __init__(self, data: dict[str, Any], shown: str, number: int) -> None:
        self.data, self.shown, self.number = data, shown, number

    def fail(self, key: str, message: str) -> ProblemError:
        return ProblemError(self.shown, key, message, line=self.number)

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
