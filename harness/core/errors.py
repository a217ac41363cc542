"""Errors the user can act on: each renders as one line naming the file, where, and what
(a group of them, as a line each).

The CLI prints each of ``error.lines()`` (one, or one per mistake of a group) and exits
with status 2; no traceback reaches the user.
Everything else (a combo that cannot be built, a solution that crashes) is not an
error at all but a result, recorded as data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence


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

    def lines(self) -> tuple[str, ...]:
        """What the CLI prints, one line each."""
        return (self.render(),)


class SpecError(HarnessError):
    """A mistake in ``matrix.toml``."""


class SpecErrorGroup(SpecError):  # noqa: N818 - named like the ExceptionGroup it stands for
    """Several mistakes of one ``matrix.toml``, found in one walk and raised together (as
    ``packaging.metadata`` raises its group): each a :class:`SpecError`, in file order.

    Not an ``ExceptionGroup``: Python 3.10 has none, and ``except HarnessError`` (the
    CLI's, with its exit status) must still catch it. Its own fields are the first
    mistake's; its string is every mistake's line, one under the other."""

    def __init__(self, errors: Sequence[SpecError]) -> None:
        self.errors = tuple(errors)
        first = self.errors[0]
        super().__init__(first.file, first.where, first.problem, line=first.line)

    def render(self) -> str:
        return "\n".join(self.lines())

    def lines(self) -> tuple[str, ...]:
        return tuple(error.render() for error in self.errors)


class ProblemError(HarnessError):
    """A mistake in a problem or answers file."""


class RunFileError(HarnessError):
    """A file of a run directory this harness cannot read."""


class UsageError(HarnessError):
    """A bad command-line option or combination of options."""

    def __init__(self, problem: str) -> None:
        super().__init__("harness", None, problem)
