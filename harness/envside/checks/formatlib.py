"""What every format's context uses, env-side: each context starts with
``from _harness_envside.checks.formatlib import *``.

The functions here run in the check's process: the verdict (``harness_verdict`` over the
graded parts, ``HARNESS_PARTS``), the comparison of a notebook cell's output, and what the
formats whose tests call what the solution defined share. Their test runners live in
their benchmark's folder, each imported by its format's context as
``_harness_envside.benchmarks.<name>.check`` (``envside/benchmarks.py``): BigCodeBench's
``unittest`` suites, GitChameleon's pytest files, CIBench's sessions. Those run the tests here and reach the solution's module across the boundary
(``crossing_*``); a trusted solution (a reference) is loaded into this process instead,
as upstream grades it. ``harness_run_cell`` is also handed to a driver that runs apart
with the solution.
"""

from __future__ import annotations

import builtins as _builtins
from typing import Any as _Any

from ..bridge import guard as _guard
from ..bridge.crossing_errors import HERE as _HERE
from ..bridge.crossing_errors import RemoteError as _RemoteError
from ..bridge.crossing_errors import inherited_note as _inherited_note
from ..bridge.crossing_errors import program_note as _program_note
from ..bridge.crossing_errors import remote_frames as _remote_frames
from ..protocol import RUNS_SOLUTION as HARNESS_RUNS_SOLUTION

__all__ = [
    "HARNESS_GRADED",
    "HARNESS_PARTS",
    "HARNESS_RUNS_SOLUTION",
    "harness_compare_output",
    "harness_error_part",
    "harness_run_cell",
    "harness_verdict",
]

# A program starting with HARNESS_RUNS_SOLUTION runs apart, like a solution.
# The graded parts of this execution, read by the env-side runner when the check ends.
HARNESS_PARTS: list[dict[str, _Any]] = []
# Why an untrusted solution was graded in its own process, tests beside it, if it was.
HARNESS_GRADED: list[str] = []


def harness_run_cell(source: str, namespace: dict[str, _Any]) -> str:
    """Run ``source`` as a notebook cell: its stdout, then the value of its last line when
    that is an expression (``df.head()``) and does not end with ``;``.

    Self-contained (it imports what it uses): it runs in the solution's process, which
    holds none of the check's globals."""
    import ast
    import builtins
    import io
    import sys

    tree = ast.parse(source)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not source.rstrip().endswith(";"):
        last = ast.Expression(tree.body[-1].value)
        tree.body.pop()
    buffer = io.StringIO()
    saved = sys.stdout
    sys.stdout = buffer
    try:
        builtins.exec(compile(tree, "<cell>", "exec"), namespace)
        value = None
        if last is not None:
            value = builtins.eval(compile(last, "<cell>", "eval"), namespace)
    finally:
        sys.stdout = saved
    output = buffer.getvalue()
    if value is not None:
        output += repr(value) + "\n"
    return output


def harness_error_part(name: str, exc: BaseException) -> dict[str, _Any]:
    return {
        "name": name,
        "status": "fail" if isinstance(exc, AssertionError) else "error",
        "type": type(exc).__name__,
        "message": str(exc)[:400],
    }


def harness_verdict(parts: object) -> None:
    """Record ``parts`` and end the way the worst of them did: the first error's own
    exception type (so drift analysis reads ``AttributeError: …``), else a failure."""
    if not isinstance(parts, list):
        raise TypeError("the driver did not report its parts")
    HARNESS_PARTS[:] = parts
    if not parts:
        raise AssertionError("nothing was graded")
    errors = [p for p in parts if p.get("status") == "error"]
    failures = [p for p in parts if p.get("status") == "fail"]
    if errors:
        first = errors[0]
        name, message = str(first.get("type", "")), str(first.get("message", ""))
        frames = str(first.get("traceback", ""))
        kind = getattr(_builtins, name, None)
        if frames or not (isinstance(kind, type) and issubclass(kind, Exception)):
            # under the name and with the frames it was raised with, where the driver
            # saw them: what drift analysis reads (``urllib.error.URLError``, a frame in
            # ``site-packages/pandas``), as for an exception of a guarded solution
            raise _RemoteError(name or "Exception", message, frames)
        raise kind(message)
    if failures:
        names = ", ".join(str(p.get("name")) for p in failures[:5])
        raise AssertionError(
            "%d of %d failed (%s): %s" % (len(failures), len(parts), names, failures[0]["message"])
        )


def harness_compare_output(
    actual: str, expected: str, rtol: float = 1e-4, atol: float = 1e-8
) -> str:
    """'' when ``actual`` matches ``expected``, else why not.

    Whitespace is ignored (a frame's columns realign when a value's width changes);
    numbers match within ``rtol``/``atol``, nan matches nan; every other token exactly.
    Self-contained, like ``harness_run_cell``.
    """
    import math
    import re

    token = re.compile(
        r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)\b|\w+|[^\w\s]"
    )

    def number(text: str) -> float | None:
        try:
            return float(text)
        except ValueError:
            return None

    got, want = token.findall(actual), token.findall(expected)
    for index, (a, b) in enumerate(zip(got, want)):
        if a == b:
            continue
        x, y = number(a), number(b)
        if (
            x is not None
            and y is not None
            and (
                (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=rtol, abs_tol=atol)
            )
        ):
            continue
        return "output differs at token %d: got %r, expected %r" % (index + 1, a, b)
    if len(got) != len(want):
        return "output has %d tokens, expected %d" % (len(got), len(want))
    return ""


# -- what the formats whose tests call what the solution defined share ---------------------


def active() -> _Any:
    """The guard of this execution when its solution is untrusted; None for a reference."""
    return _guard.ACTIVE[0] if _guard.ACTIVE else None


def decided() -> str:
    """Why this task is graded in the solution's process whatever the answer does, when
    the run decided so from its reference (``harness/execute/admission.py``); else ''."""
    apart = active()
    return str(getattr(apart, "in_process", "") or "") if apart is not None else ""


def in_process(reason: str, driver: str, **given: _Any) -> _Any:
    """Grade in the solution's process (the tests beside the solution, their parts sent
    back as data), and say so: what a task gets whose tests share something with the
    solution that cannot cross, or whose reference does not grade the same across."""
    apart = active()
    HARNESS_GRADED[:] = [reason]
    apart.retire()
    namespace = {"_harness_error_part": harness_error_part, **given}
    apart.exec(HARNESS_RUNS_SOLUTION + driver + _ONLY_THE_REPORT, namespace)
    return namespace.get("_harness_report")


# What a fallback driver sends back: its report, not the figures and values the tests left
# (they are not what is graded, and a figure would have to be admitted for nothing).
_ONLY_THE_REPORT = """

def _harness_only_the_report():
    import sys
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")
    for name in [n for n in list(globals()) if n != "_harness_report" and not n.startswith("__")]:
        del globals()[name]


_harness_only_the_report()
"""


def names_loaded(source: str) -> set[str]:
    """The global names ``source`` reads and does not bind itself (the ones a test takes
    from the solution's module)."""
    import ast

    tree = ast.parse(source)
    loaded: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return loaded - bound - set(dir(_builtins))


def exception_part(
    name: str, exc: BaseException, status: str = "", first_line: bool = False
) -> dict[str, _Any]:
    """A graded part for ``exc``: its type's full name, its message with what only this
    process can tell about it, and its frames here and (when the solution raised it) there."""
    import traceback

    part = harness_error_part(name, exc)
    if status:
        part["status"] = status
    kind = type(exc)
    if isinstance(exc, _RemoteError):
        part["type"] = exc.qualified
    elif isinstance(exc, (_guard.GuardRefusedError, _guard.GuardError)):
        # named as the execution's own outcome would name it: never drift
        part["type"] = "GuardRefused" if isinstance(exc, _guard.GuardRefusedError) else "GuardError"
    elif kind.__module__ != "builtins":
        part["type"] = "%s.%s" % (kind.__module__, kind.__qualname__)
    text = str(exc)
    if first_line:  # as pytest's short summary shows it
        lines = [line for line in text.splitlines() if line.strip()]
        text = lines[0] if lines else ""
    part["message"] = text[:400] + _inherited_note(exc) + _program_note(exc)
    notes = getattr(exc, "_harness_notes", "")
    if isinstance(notes, str):
        part["message"] += notes
    here = [
        "%s:%s in %s" % (f.filename, f.lineno, f.name)
        for f in traceback.extract_tb(exc.__traceback__)[-6:]
        if not f.filename.startswith(_HERE)
    ]
    remote = _remote_frames(exc)
    part["traceback"] = "\n".join(here + ([remote] if remote else []))
    return part
