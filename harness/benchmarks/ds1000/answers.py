"""DS-1000's answers files: ``code`` (and ``problem_id`` or ``metadata.problem_id``),
read with DS-1000's ``postprocess``. A file of any other benchmark with a ``code`` field
is read so too (the fallback shape)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.benchmarks.base import Read, Shape, ShapeError

if TYPE_CHECKING:
    from harness.core.problem import Problem


def postprocess(code: str | list[Any]) -> str:
    """DS-1000's clean-up of a raw completion, step for step.

    Take the first element of a list; cut at ``</code>``; remove every opening
    Python fence; cut at the next fence; cut at ``END SOLUTION``; drop ``<code>``.
    """
    text = code[0] if isinstance(code, list) else code
    text = str(text).split("</code>")[0]
    text = text.replace("```python", "")
    text = text.split("```")[0]
    text = text.split("\nEND SOLUTION")[0]
    return text.replace("<code>", "")


def _read(field_name: str, value: Any, _problem: Problem, _file: str) -> Read:
    if not isinstance(value, str) and not (
        isinstance(value, list) and value and isinstance(value[0], str)
    ):
        raise ShapeError(f"{field_name} must be a string or a list of strings")
    cleaned = postprocess(value)
    raw = value[0] if isinstance(value, list) else value
    return Read(cleaned, "as is" if cleaned == raw else "cleaned up as DS-1000 does")


SHAPE = Shape(
    "DS-1000 answers", ("code",), _read, claims=lambda row: "code" in row, rank=0, fallback=True
)
