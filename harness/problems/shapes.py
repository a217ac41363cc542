"""The shapes of answer files as each benchmark's own tools write them, and how each
upstream takes the code out of one of its lines.

A user points ``--answers`` at what the benchmark's tools wrote, unconverted. Each line's
keys tell its shape (a file made by one upstream has one shape; a file of one model's
answers to several benchmarks may mix them):

* **DS-1000** (``code``, and ``problem_id`` or ``metadata.problem_id``): DS-1000's
  ``postprocess`` (a list's first element; cut at ``</code>``, fences and
  ``END SOLUTION``). A file of any other benchmark with a ``code`` field is read so too.
* **GitChameleon** (``example_id``, and ``answer``, else ``solution``, else ``output`` —
  upstream's order): its generation files and, with ``output``, its agent result files.
  Upstream's ``extract_code``: the inside of the first ````` ```python ````` fence, else the
  whole text; prose around the fence is dropped.
* **BigCodeBench** (``task_id``, and ``solution``, ``completion`` or ``raw_solution``):
  its sample files. A ``solution`` is the program as is (in a file whose name says
  ``sanitized-calibrated``, after the prompt's signature and ``pass``, as upstream's
  evaluator puts it); a ``completion`` follows the task's ``complete_prompt``; a
  ``raw_solution`` alone is sanitised as ``bigcodebench.sanitize`` does
  (``harness.problems.sanitize``).
* **CIBench** (``steps``): one code string per step of the session.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.problems.formats import cibench
from harness.problems.sanitize import sanitize

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from harness.core.problem import Problem

_GITCHAMELEON_FENCE = re.compile(r"```python(.*?)```", re.DOTALL)


def ds1000_postprocess(code: str | list[Any]) -> str:
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


def gitchameleon_extract(text: str) -> str:
    """GitChameleon's ``extract_code``: the first ```python block's inside, else all."""
    found = _GITCHAMELEON_FENCE.search(text)
    return found.group(1) if found else text


class ShapeError(ValueError):
    """A line that does not have what its file's shape needs (the message says what)."""


@dataclass(frozen=True)
class Read:
    """The code one line gives, and how it was taken out."""

    code: str
    how: str  # "as is", "from a ```python block", "sanitised", …


@dataclass(frozen=True)
class Shape:
    """How one upstream writes a model's answers: which field holds the code, in its
    order, and how the code is taken out of it."""

    name: str  # "GitChameleon generations"
    fields: tuple[str, ...]  # where the code may be, in upstream's order
    read: Callable[[str, Any, Problem, str], Read]  # (field, value, problem, file name)
    # what a file is called when its code is in another field than the first
    called: tuple[tuple[str, str], ...] = ()

    def code(self, row: Mapping[str, Any], problem: Problem, file_name: str) -> Read:
        for field_name in self.fields:
            if field_name in row and row[field_name] is not None:
                return self.read(field_name, row[field_name], problem, file_name)
        raise ShapeError(f"no {' or '.join(self.fields)} (a line of {self.name}, by its keys)")

    def describe(self, row: Mapping[str, Any]) -> str:
        """``GitChameleon generations (example_id + answer)``: the shape and the fields a
        line of it uses."""
        key = next(
            (k for k in ("problem_id", "task_id", "example_id") if k in row),
            "metadata.problem_id",
        )
        field_name = next((f for f in self.fields if f in row), self.fields[0])
        return f"{dict(self.called).get(field_name, self.name)} ({key} + {field_name})"


def _text(value: Any, field_name: str) -> str:
    if not isinstance(value, str):
        raise ShapeError(f"{field_name} must be a string")
    return value


def _ds1000(field_name: str, value: Any, _problem: Problem, _file: str) -> Read:
    if not isinstance(value, str) and not (
        isinstance(value, list) and value and isinstance(value[0], str)
    ):
        raise ShapeError(f"{field_name} must be a string or a list of strings")
    cleaned = ds1000_postprocess(value)
    raw = value[0] if isinstance(value, list) else value
    return Read(cleaned, "as is" if cleaned == raw else "cleaned up as DS-1000 does")


def _gitchameleon(field_name: str, value: Any, _problem: Problem, _file: str) -> Read:
    text = _text(value, field_name)
    code = gitchameleon_extract(text)
    return Read(code, "as is" if code == text else "from a ```python block")


def _bigcodebench(field_name: str, value: Any, problem: Problem, file_name: str) -> Read:
    text = _text(value, field_name)
    if field_name == "completion":
        return Read(str(problem.metadata.get("complete_prompt", "")) + text, "after the prompt")
    if field_name == "raw_solution":
        entry = str(problem.metadata.get("entry_point") or "task_func")
        return Read(sanitize(text, entry), "sanitised as BigCodeBench does")
    if "sanitized-calibrated" in file_name:
        prompt = str(problem.metadata.get("code_prompt", ""))
        return Read(prompt + "\n    pass\n" + text, "calibrated")
    return Read(text, "as is")


def _steps(field_name: str, value: Any, _problem: Problem, _file: str) -> Read:
    if not isinstance(value, list) or not all(isinstance(step, str) for step in value):
        raise ShapeError(f"{field_name} must be a list of strings")
    return Read(cibench.script(value), "as is")


DS1000 = Shape("DS-1000 answers", ("code",), _ds1000)
GITCHAMELEON = Shape(
    "GitChameleon generations",
    ("answer", "solution", "output"),
    _gitchameleon,
    called=(("output", "GitChameleon agent results"),),
)
BIGCODEBENCH = Shape(
    "BigCodeBench samples", ("solution", "completion", "raw_solution"), _bigcodebench
)
CIBENCH = Shape("CIBench sessions", ("steps",), _steps)


def shape_of(row: Mapping[str, Any]) -> Shape:
    """The shape of one line, from its keys."""
    if "code" in row:
        return DS1000
    if "steps" in row:
        return CIBENCH
    if "example_id" in row:
        return GITCHAMELEON
    if "task_id" in row and any(f in row for f in BIGCODEBENCH.fields):
        return BIGCODEBENCH
    # a GitChameleon answer may keep its problem's row, whose ``solution`` is the
    # reference's body: ``answer`` first, as upstream reads it
    if "answer" in row or "output" in row:
        return GITCHAMELEON
    if "solution" in row or "completion" in row or "raw_solution" in row:
        return BIGCODEBENCH
    return DS1000
