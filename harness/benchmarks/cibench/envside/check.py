"""CIBench's checks: a session of steps, like a notebook's cells.

Each step's code runs in the session: in the solution's process for an untrusted solution
(its state stays there; what a step printed, and the values a step's check names, come
back as data), in this process for a reference. The output is compared with the expected
one and the check run here. A CIBench context imports ``harness_session`` from here.
"""

from __future__ import annotations

import base64
import contextlib
import os
from typing import Any, Dict, List, Optional

from ...bridge import guard
from ...checks.formatlib import (
    active,
    decided,
    exception_part,
    harness_compare_output,
    harness_run_cell,
    harness_verdict,
    in_process,
    names_loaded,
)
from ...protocol import OUTPUT_FORMAT
from . import cells as cibench_cells
from . import scores as cibench_scores

__all__ = ["harness_cibench_experiment", "harness_session"]


class _Session:
    """A notebook's kernel: in this process for a reference, in the solution's process
    for an untrusted solution (its state stays there; what a step printed, and the
    values a check names, come back as data)."""

    NAME = "__session__"

    def __init__(self, apart: Any) -> None:
        self.apart = apart
        self.namespace: Dict[str, Any] = {"__name__": "__main__"}

    def cell(self, code: str) -> str:
        if self.apart is None:
            return str(harness_run_cell(code, self.namespace))
        return str(self.apart.cell(self.NAME, code))

    def check(self, code: str, number: int) -> None:
        compiled = compile(code, "<check %d>" % number, "exec")
        if self.apart is None:
            exec(compiled, self.namespace)
            return
        names = sorted(names_loaded(code))
        namespace: Dict[str, Any] = {"__name__": "__main__"}
        namespace.update(self.apart.fetch_many(self.NAME, names) if names else {})
        refused = [n for n in names if n in self.apart.refused_names and n not in namespace]
        if refused:
            raise guard.GuardRefusedError(
                "the session's %s could not be checked: refused as data" % ", ".join(refused)
            )
        exec(compiled, namespace)


def _split_steps(solution: str, marker: str) -> Dict[int, str]:
    """A percent-format script → {step number: code}; code before the first marker is
    step 1's prologue (the host's ``formats.cibench.split``, on this side)."""
    import re

    pieces = re.split(marker, solution, flags=re.MULTILINE)
    steps: Dict[int, str] = {}
    for number, code in zip(pieces[1::2], pieces[2::2]):
        steps[int(number)] = steps.get(int(number), "") + code
    if pieces[0].strip():
        steps[1] = pieces[0] + steps.get(1, "")
    return steps


def harness_session(
    solution: str,
    setup: str,
    spec: List[Dict[str, Any]],
    oracle: bool,
    marker: str,
    fallback: str = "",
) -> None:
    """Grade a session step by step: each step's code runs in the session; its output is
    compared with the expected one and its check run here, on data. In oracle mode a
    failed step is replaced by its reference, so that each later step is judged alone."""
    steps = _split_steps(solution, marker)
    apart = active()
    reason = decided()
    if reason and fallback:
        given = {
            "__name__": "__main__",
            "_HARNESS_SETUP": setup,
            "_HARNESS_SPEC": spec,
            "_HARNESS_ORACLE": oracle,
            "_HARNESS_STEPS": steps,
            "_harness_run_cell": harness_run_cell,
            "_harness_compare_output": harness_compare_output,
        }
        harness_verdict(in_process(reason, fallback, **given))
        return
    if apart is not None:
        apart.engaged = True
    session = _Session(apart)
    if setup:
        session.cell(setup)
    parts = []
    for number, step in enumerate(spec, start=1):
        name = "step %d" % number
        try:
            _grade_step(session, steps.get(number), number, step)
            parts.append({"name": name, "status": "pass"})
        except Exception as exc:
            part = exception_part(name, exc)
            if not part["message"] and step.get("check") and isinstance(exc, AssertionError):
                part["message"] = "check failed: " + step["check"].strip().splitlines()[0][:200]
            parts.append(part)
            if oracle:
                with contextlib.suppress(Exception):
                    session.cell(step["reference"])
    harness_verdict(parts)


def _grade_step(session: _Session, code: Optional[str], number: int, step: Dict[str, Any]) -> None:
    """Run one step of the solution's and judge it: its output, then its check."""
    if code is None:
        raise LookupError("the solution has no code for step %d" % number)
    output = session.cell(code)
    if step.get("expected_output") is not None:
        reason = harness_compare_output(output, step["expected_output"])
        assert not reason, reason
    if step.get("check"):
        session.check(step["check"], number)


# -- CIBench's experiments as published: steps graded by their type, as upstream grades ----


def harness_cibench_experiment(
    solution: str,
    spec: List[Dict[str, Any]],
    data: List[List[str]],
    unavailable: str,
    oracle: bool,
    marker: str,
    expected: str = "published",
) -> None:
    """Grade an experiment step by step: each step runs in the session (the solution's
    process for an answer), its text and figure come back as data and are scored here
    against the expected ones (``cibench_scores``), by the step's type."""
    if unavailable:  # the host skips such a session without sending it (execute/runner.py)
        raise RuntimeError("cannot run: %s" % unavailable)
    cibench_cells.stage(data, os.getcwd())
    steps = _split_steps(solution, marker)
    apart = active()
    if apart is not None:
        apart.engaged = True
    session = _Session(apart)
    session.cell(cibench_cells.SEED)
    parts = []
    for number, step in enumerate(spec, start=1):
        name = "step %d (%s)" % (number, step["type"])
        try:
            text, figure = cibench_cells.run_step(session.cell, _code(steps, number))
            part = _scored(name, step, text, figure)
            if expected != "published" and step["type"] != "exec":
                # what a scored step was compared with: say where it came from
                part["message"] = "%s [expected output %s]" % (part["message"], expected)
            parts.append(part)
        except Exception as exc:
            parts.append(exception_part(name, exc))
            if oracle:
                with contextlib.suppress(Exception):
                    cibench_cells.run_step(session.cell, step["reference"])
    harness_verdict(parts)


def _scored(name: str, step: Dict[str, Any], text: str, figure: Optional[str]) -> Dict[str, Any]:
    """The part of a step that ran: ``exec`` passes; the others by their score."""
    kind = step["type"]
    want = step.get("figure") if kind == "vis" else step.get("text")
    if kind == "exec":
        return {"name": name, "status": "pass"}
    if want is None:
        return {"name": name, "status": "skipped", "message": "no expected output to compare"}
    if kind == "num":
        ok = cibench_scores.num_matches(text, want)
        message = "" if ok else "output %r is not the expected %r" % (text[:150], want[:150])
        if not ok and cibench_scores.same_values(text, want):
            message = "%s: %s" % (OUTPUT_FORMAT, message)
    elif kind == "text":
        score = cibench_scores.rouge1(text, want)
        ok = score >= cibench_scores.TEXT_THRESHOLD
        message = "rouge1 %.3f (passes from %.2f)" % (score, cibench_scores.TEXT_THRESHOLD)
    elif figure is None:
        ok, message = False, "the step drew no figure"
    else:
        score = cibench_scores.ssim(base64.b64decode(figure), base64.b64decode(want))
        ok = score >= cibench_scores.VIS_THRESHOLD
        message = "ssim %.3f (passes from %.2f)" % (score, cibench_scores.VIS_THRESHOLD)
    return {"name": name, "status": "pass" if ok else "fail", "message": message}


def _code(steps: Dict[int, str], number: int) -> str:
    code = steps.get(number)
    if code is None:
        raise LookupError("the solution has no code for step %d" % number)
    return code
