"""DS-1000's audit: its answers are snippets inserted where the program set the inputs
(``[insert]`` in its ``exec_context``), leaving their result in ``result`` (or returning
it, in a function's body) — unless the program sets ``result`` itself after the snippet:
from another variable (``result = df``), which is then the snippet's result, or from
something else (``result = None`` after a figure is saved, ``result = len(clf.steps)``),
where doing nothing is the one null answer."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from harness.benchmarks import nulls
from harness.benchmarks.base import Audit

if TYPE_CHECKING:
    from harness.core.problem import Problem

_PROGRAM = re.compile(r'exec_context\s*=\s*r?"""(.*?)"""', re.DOTALL)
_RESULT = re.compile(r"^[ \t]*result[ \t]*=[ \t]*(.+?)[ \t]*$", re.MULTILINE)


def result_of(problem: Problem) -> str | None:
    """The variable the program reads as the snippet's result; None when the program
    makes its result itself, from what the snippet did."""
    program = _PROGRAM.search(problem.code_context)
    after = program.group(1).partition("[insert]")[2] if program else ""
    set_after = _RESULT.search(after)
    if set_after is None:
        return "result"
    value = set_after.group(1)
    return value if value.isidentifier() and value != "None" else None


def null_answers(problem: Problem) -> dict[str, str]:
    """The snippet's nulls; the names the program imports are not its inputs."""
    result = result_of(problem)
    if result is None:
        return nulls.nothing(problem.reference_code)
    provided = nulls.imported_names(problem.code_context)
    return nulls.snippet(problem.reference_code, result=result, provided=provided)


def reads(problem: Problem) -> tuple[str, ...]:  # noqa: ARG001 - every problem alike
    """What the check reads of the answer: every DS-1000 program runs the snippet and
    whatever it sets after it in one ``exec`` and checks ``test_env["result"]`` (a
    figure the Matplotlib problems draw crosses as one, compared always)."""
    return ("result",)


AUDIT = Audit(nulls=null_answers, reads=reads)
