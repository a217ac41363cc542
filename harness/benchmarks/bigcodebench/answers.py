"""BigCodeBench's sample files: ``task_id``, and ``solution``, ``completion`` or
``raw_solution``. A ``solution`` is the program as is (in a file whose name says
``sanitized-calibrated``, after the prompt's signature and ``pass``, as upstream's
evaluator puts it); a ``completion`` follows the task's ``complete_prompt``; a
``raw_solution`` alone is sanitised as ``bigcodebench.sanitize`` does (:mod:`.sanitize`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.benchmarks.base import Read, Shape, text_of
from harness.benchmarks.bigcodebench.sanitize import sanitize

if TYPE_CHECKING:
    from collections.abc import Mapping

    from harness.core.problem import Problem

FIELDS = ("solution", "completion", "raw_solution")


def _read(field_name: str, value: Any, problem: Problem, file_name: str) -> Read:
    text = text_of(value, field_name)
    if field_name == "completion":
        return Read(str(problem.metadata.get("complete_prompt", "")) + text, "after the prompt")
    if field_name == "raw_solution":
        entry = str(problem.metadata.get("entry_point") or "task_func")
        return Read(sanitize(text, entry), "sanitised as BigCodeBench does")
    if "sanitized-calibrated" in file_name:
        prompt = str(problem.metadata.get("code_prompt", ""))
        return Read(prompt + "\n    pass\n" + text, "calibrated")
    return Read(text, "as is")


def _claims(row: Mapping[str, Any]) -> bool:
    return "task_id" in row and any(f in row for f in FIELDS)


SHAPE = Shape(
    "BigCodeBench samples",
    FIELDS,
    _read,
    claims=_claims,
    fits=lambda row: any(f in row for f in FIELDS),
    rank=30,
)
