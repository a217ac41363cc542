"""Our problems' audit: their references are snippets, as DS-1000's are, leaving their
result in ``result`` after the context set the inputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.benchmarks import nulls
from harness.benchmarks.base import Audit
from harness.benchmarks.ours.load import compact_context

if TYPE_CHECKING:
    from harness.core.problem import Problem


def null_answers(problem: Problem) -> dict[str, str]:
    """The snippet's nulls; the names the context imports are not its inputs."""
    return nulls.snippet(
        problem.reference_code, provided=nulls.imported_names(problem.code_context)
    )


# what follows ``_SETUP = …`` and ``_CHECK = …`` (one line each) in the compact form's context
_COMPACT_TAIL = compact_context("", "").split("\n", 2)[2]


def reads(problem: Problem) -> tuple[str, ...] | None:
    """What the check reads of the answer: the compact form's check sees ``result``
    alone; a full context may read anything (None)."""
    lines = problem.code_context.split("\n", 2)
    compact = (
        len(lines) == 3
        and lines[0].startswith("_SETUP = ")
        and lines[1].startswith("_CHECK = ")
        and lines[2] == _COMPACT_TAIL
    )
    return ("result",) if compact else None


AUDIT = Audit(nulls=null_answers, reads=reads)
