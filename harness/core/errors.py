"""Errors the user can act on: each renders as one line naming the file, where, and what.

The CLI prints ``str(error)`` and exits with status 2; no traceback reaches the user.
Everything else (a combo that cannot be built, a solution that crashes) is not an
error at all but a result, recorded as data.
"""

from __future__ import annotations


class HarnessError(Exception):
    """Base class: bad input or an unusable setup, reported before work is lost."""

    exit_code = 2

    def __init__(
        self, file: str, where: str | None, problem: str, *, line: int | None = None
    ) -> None:
        self.file = file
        self.where = where
        self.problem = problem
        self.line = line
        super().__init__(self.render())

    def render(self) -> str:
        location = f"{self.file}:{self.line}" if self.line else self.file
        parts = [location, self.where, self.problem]
        # Messages are one line by contract: fold anything a resolver printed.
        return ": ".join(" ".join(p.split()) for p in parts if p)


class SpecError(HarnessError):
    """A mistake in ``matrix.toml``."""


class ProblemError(HarnessError):
    """A mistake in a problem or answers file."""


class RunFileError(HarnessError):
    """A file of a run directory this harness cannot read."""


class UsageError(HarnessError):
    """A bad command-line option or combination of options."""

    def __init__(self, problem: str) -> None:
        super().__init__("harness", None, problem)
