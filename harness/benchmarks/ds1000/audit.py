"""DS-1000's audit: its answers are snippets inserted where the program set the inputs,
leaving their result in ``result`` (or returning it, in a function's body)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.benchmarks import nulls
from harness.benchmarks.base import Audit

if TYPE_CHECKING:
    from harness.core.problem import Problem


def null_answers(problem: Problem) -> dict[str, str]:
    """The snippet's nulls; the names the program imports are not its inputs."""
    return nulls.snippet(
        problem.reference_code, provided=nulls.imported_names(problem.code_context)
    )


AUDIT = Audit(nulls=null_answers)
