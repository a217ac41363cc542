"""CIBench-style sessions: steps that share one interpreter, like a notebook's cells.

A row: ``task_id``, optional ``setup`` (code run first), ``steps``: a list of
``{prompt, reference, check, expected_output}`` where ``check`` is code run after the step
in the session's namespace (asserting on it) and ``expected_output`` is compared with the
step's output as in ExeDS; a step needs at least one of the two. A solution is a script in
the percent format, one ``# %% step N`` line before each step's code; a model's answer may
also give ``steps`` as a list of code strings.

Each task is two problems: ``<task>`` runs end to end (every step is the solution's, on the
state its earlier steps left), ``<task>/oracle`` replaces a failed step with the reference
code, so that each later step is judged on its own. Per-step outcomes are the execution's
parts. The steps run in one session, in the solution's process; the expected outputs and
the checks stay in the check's process, which compares and checks on data.
"""

from __future__ import annotations

import re
from typing import Any

from harness.benchmarks.base import Format, Row, check, context, main_library
from harness.core.problem import Problem, imported_modules

ORACLE_SUFFIX = "/oracle"
_MARKER = re.compile(r"^# %% step (\d+)[ \t]*(?:\n|$)", re.MULTILINE)
MARKER = _MARKER.pattern  # what the env side splits a solution at


def script(steps: list[str]) -> str:
    """Step codes → one percent-format script."""
    return "".join(f"# %% step {n}\n{code.rstrip()}\n" for n, code in enumerate(steps, start=1))


def split(solution: str) -> dict[int, str]:
    """A percent-format script → {step number: code}; code before the first marker is
    kept as step 1's prologue."""
    pieces = _MARKER.split(solution)
    steps: dict[int, str] = {}
    prologue = pieces[0]
    for number, code in zip(pieces[1::2], pieces[2::2], strict=False):
        steps[int(number)] = steps.get(int(number), "") + code
    if prologue.strip():
        steps[1] = prologue + steps.get(1, "")
    return steps


# The in-process fallback, for a session whose reference cannot be graded across the
# boundary: the whole session, step by step, beside the solution in its process.
DRIVER = """
def _harness_session():
    import builtins
    state = globals()
    parts = []
    if _HARNESS_SETUP:
        builtins.exec(compile(_HARNESS_SETUP, "<setup>", "exec"), state)
    for number, step in enumerate(_HARNESS_SPEC, start=1):
        name = "step %d" % number
        try:
            code = _HARNESS_STEPS.get(number)
            if code is None:
                raise LookupError("the solution has no code for step %d" % number)
            output = _harness_run_cell(code, state)
            if step.get("expected_output") is not None:
                reason = _harness_compare_output(output, step["expected_output"])
                assert not reason, reason
            if step.get("check"):
                builtins.exec(compile(step["check"], "<check %d>" % number, "exec"), state)
            parts.append({"name": name, "status": "pass"})
        except Exception as exc:
            part = _harness_error_part(name, exc)
            if not part["message"] and step.get("check"):
                part["message"] = "check failed: " + step["check"].strip().splitlines()[0][:200]
            parts.append(part)
            if _HARNESS_ORACLE:
                try:
                    _harness_run_cell(step["reference"], state)
                except Exception:
                    pass
    return parts


_harness_report = _harness_session()
"""

# The session runs in the solution's process (a reference's: in the check's); what each
# step printed, and the values its check names, come back as data (``formatlib_cibench``).
CHECK = """
_SETUP = {setup!r}
_SPEC = {spec!r}
_ORACLE = {oracle!r}
_MARKER = {marker!r}
_DRIVER = {driver!r}


def test_execution(solution):
    {session}(solution, _SETUP, _SPEC, _ORACLE, _MARKER, fallback=_DRIVER)
"""


RUNS = "pass  # graded as CIBench grades an 'exec' step: it must run"


def _text(value: Any) -> str:
    """A notebook field: a string, or a list of lines."""
    return "".join(value) if isinstance(value, list) else str(value or "")


def notebook_row(notebook: dict[str, Any], task_id: str) -> dict[str, Any]:
    """A CIBench notebook as published → a session row (``task_id``, ``steps``).

    Questions and code cells pair up in order, as CIBench's own loader pairs them; a code
    cell with no question before it gets an empty prompt.
    """
    steps: list[dict[str, Any]] = []
    question = ""
    for cell in notebook.get("cells") or []:
        kind = cell.get("cell_type") if isinstance(cell, dict) else None
        if kind == "markdown":
            question = _text(cell.get("source")).strip()
        elif kind == "code":
            outputs = cell.get("outputs") or [{}]
            last = outputs[-1] if isinstance(outputs[-1], dict) else {}
            data = last.get("data") or {}
            step: dict[str, Any] = {"prompt": question, "reference": _text(cell.get("source"))}
            if "text/plain" in data and "image/png" not in data:
                step["expected_output"] = _text(data["text/plain"])
            else:
                step["check"] = RUNS
            steps.append(step)
            question = ""
    return {"task_id": task_id, "steps": steps}


def matches(row: dict[str, Any]) -> bool:
    return "steps" in row and "task_id" in row and "canonical_solution" not in row


def _step(row: Row, index: int, value: Any) -> dict[str, Any]:
    key = f"steps[{index}]"
    if not isinstance(value, dict):
        raise row.fail(key, "must be a table with reference and check or expected_output")
    reference = value.get("reference")
    if not isinstance(reference, str) or not reference.strip():
        raise row.fail(f"{key}.reference", "must be a non-empty string")
    check, expected = value.get("check"), value.get("expected_output")
    if check is None and expected is None:
        raise row.fail(key, "needs a check or an expected_output")
    for name, field in (("check", check), ("expected_output", expected)):
        if field is not None and not isinstance(field, str):
            raise row.fail(f"{key}.{name}", "must be a string")
    return {
        "prompt": str(value.get("prompt", "")),
        "reference": reference,
        "check": check,
        "expected_output": expected,
    }


def load_row(row: Row, set_name: str) -> list[Problem]:
    data, shown = row.data, row.shown
    task_id = row.text("task_id")
    setup = row.text("setup", "", empty=True)
    raw = data.get("steps")
    if not isinstance(raw, list) or not raw:
        raise row.fail("steps", "must be a non-empty list")
    spec = [_step(row, i, value) for i, value in enumerate(raw)]
    code = [setup, *(s["reference"] for s in spec), *(s["check"] or "" for s in spec)]
    reference = script([s["reference"] for s in spec])
    prompt = "\n\n".join(f"Step {n}: {s['prompt']}" for n, s in enumerate(spec, start=1))
    timeout = row.number_or("timeout", 120.0)
    problems = []
    for oracle in (False, True):
        native = task_id + (ORACLE_SUFFIX if oracle else "")
        problems.append(
            Problem(
                id=f"{set_name}/{native}",
                native_id=native,
                set_name=set_name,
                library=main_library(list(imported_modules(*code))),
                prompt=prompt,
                reference_code=reference,
                code_context=context(
                    check(
                        CHECK,
                        setup=setup,
                        spec=spec,
                        oracle=oracle,
                        marker=_MARKER.pattern,
                        driver=DRIVER,
                    ),
                    checks="cibench",
                ),
                timeout=timeout,
                metadata={"format": "cibench", "task": task_id, "oracle": oracle},
                source_file=shown,
                requires=imported_modules(*code),
            )
        )
    return problems


FORMAT = Format("cibench", matches, load_row, rank=30)
