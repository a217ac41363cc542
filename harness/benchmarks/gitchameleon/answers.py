"""GitChameleon's answers files: ``example_id``, and ``answer``, else ``solution``, else
``output`` (upstream's order): its generation files and, with ``output``, its agent
result files. Upstream's ``extract_code``: the inside of the first ```python fence, else
the whole text; prose around the fence is dropped."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from harness.benchmarks.base import Read, Shape, text_of

if TYPE_CHECKING:
    from harness.core.problem import Problem

_FENCE = re.compile(r"```python(.*?)```", re.DOTALL)


def extract(text: str) -> str:
    """GitChameleon's ``extract_code``: the first ```python block's inside, else all."""
    found = _FENCE.search(text)
    return found.group(1) if found else text


def _read(field_name: str, value: Any, _problem: Problem, _file: str) -> Read:
    text = text_of(value, field_name)
    code = extract(text)
    return Read(code, "as is" if code == text else "from a ```python block")


SHAPE = Shape(
    "GitChameleon generations",
    ("answer", "solution", "output"),
    _read,
    claims=lambda row: "example_id" in row,
    # an answer may keep its problem's row, whose ``solution`` is the reference's body:
    # ``answer`` first, as upstream reads it
    fits=lambda row: "answer" in row or "output" in row,
    called=(("output", "GitChameleon agent results"),),
    rank=20,
)
