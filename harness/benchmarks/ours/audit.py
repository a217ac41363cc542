"""Our problems' audit: their references are snippets, as DS-1000's are, leaving their
result in ``result`` after the context set the inputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.benchmarks import nulls
from harness.benchmarks.base import Audit

if TYPE_CHECKING:
    from harness.core.problem import Problem


def null_answers(problem: Problem) -> dict[str, str]:
    """The snippet's nulls; the names the context imports are not its inputs."""
    return nulls.snippet(
        problem.reference_code, provided=nulls.imported_names(problem.code_context)
    )


AUDIT = Audit(nulls=null_answers)
