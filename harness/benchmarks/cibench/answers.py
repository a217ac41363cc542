"""CIBench's answers files: ``steps``, one code string per step of the session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.benchmarks.base import Read, Shape, ShapeError
from harness.benchmarks.cibench.load import script

if TYPE_CHECKING:
    from harness.core.problem import Problem


def _read(field_name: str, value: Any, _problem: Problem, _file: str) -> Read:
    if not isinstance(value, list) or not all(isinstance(step, str) for step in value):
        raise ShapeError(f"{field_name} must be a list of strings")
    return Read(script(value), "as is")


SHAPE = Shape("CIBench sessions", ("steps",), _read, claims=lambda row: "steps" in row, rank=10)
