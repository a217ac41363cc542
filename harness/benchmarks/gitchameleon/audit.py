"""GitChameleon's audit: an answer completes the problem's starting code, a module whose
last function is the one its hidden tests call."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from harness.benchmarks import nulls
from harness.benchmarks.base import Audit

if TYPE_CHECKING:
    from harness.core.problem import Problem

_DEFINED = re.compile(r"^\s*(?:async\s+)?def\s+(\w+)", re.MULTILINE)


def null_answers(problem: Problem) -> dict[str, str]:
    """The nulls of the function the starting code leaves to complete (its
    ``name_of_class_or_func`` names the library's API, not this function)."""
    named = _DEFINED.findall(str(problem.metadata.get("starting_code", "")))
    return nulls.function(problem.reference_code, named[-1] if named else "")


AUDIT = Audit(nulls=null_answers)
