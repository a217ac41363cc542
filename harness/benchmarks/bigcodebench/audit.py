"""BigCodeBench's audit: an answer is a module defining the task's entry point
(``task_func``), which its unit tests call."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.benchmarks import nulls
from harness.benchmarks.base import Audit

if TYPE_CHECKING:
    from harness.core.problem import Problem


def null_answers(problem: Problem) -> dict[str, str]:
    """The nulls of the entry point the task names."""
    return nulls.function(problem.reference_code, str(problem.metadata.get("entry_point", "")))


AUDIT = Audit(nulls=null_answers)
