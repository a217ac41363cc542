"""What the generated contexts of the formats use, env-side: each context starts with
``from _harness_envside.formatlib import *``.

The functions here run in the check's process (the verdict, the comparison) or are
handed to a driver that runs apart with the solution (``harness_run_cell``).
"""

from __future__ import annotations

import builtins as _builtins
from typing import Any as _Any

from .guard import RemoteError as _RemoteError
from .protocol import RUNS_SOLUTION as HARNESS_RUNS_SOLUTION

__all__ = [
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
