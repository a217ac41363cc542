"""The opt-in timing of an execution's phases (``envside/timing/phases.py``) and the guard's
solution process asked for as the execution starts (``Resident.prestart``).

Nothing here times anything: it checks which marks each process leaves and in what order,
that timing changes no outcome, and that a solution's process asked for early is replaced
when the check changes the environment before it runs the solution.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Any

from harness.envside import protocol
from harness.envside.timing import phases
from tests.envside import run_envside

ADD_ONE = textwrap.dedent("""
    def test_execution(solution):
        namespace = {"x": 2}
        exec(solution, namespace)
        assert namespace["result"] == 3
""")
# The check changes the environment before it first runs the solution, which must see it.
SETS_VARIABLE = textwrap.dedent("""
    import os
    def test_execution(solution):
        os.environ["HARNESS_TEST_SEEN"] = "yes"
        namespace = {}
        exec(solution, namespace)
        assert namespace["result"] == "yes"
""")


def run(tmp_path: Path, context: str, solution: str, marks: Path | None) -> dict[str, Any]:
    """One untrusted solution through the env side (zygote, sandbox and guard as shipped)."""
    batch = {
        "protocol": protocol.PROTOCOL,
        "options": {"jobs": 1, "timeout": 30},
        "problems": {"p": {"context": context}},
        "executions": [{"problem": "p", "solution": solution, "trusted": False}],
    }
    env = {k: v for k, v in os.environ.items() if k != "HARNESS_PHASES"}
    if marks is not None:
        env["HARNESS_PHASES"] = str(marks)
    _, lines = run_envside(tmp_path, batch, check=True, env=env)
    outcomes = [line.outcome.to_json() for line in lines if isinstance(line, protocol.OutcomeLine)]
    assert len(outcomes) == 1
    return outcomes[0]


def names(marks: Path) -> list[str]:
    (line,) = marks.read_text().splitlines()
    return [name for name, _ in json.loads(line)["marks"]]


def test_timing_is_off_by_default_and_changes_no_outcome(tmp_path: Path) -> None:
    assert not phases.ON  # the tests run without HARNESS_PHASES
    untimed = run(tmp_path, ADD_ONE, "result = x + 1", None)
    marks = tmp_path / "marks.jsonl"
    timed = run(tmp_path, ADD_ONE, "result = x + 1", marks)
    assert untimed["status"] == timed["status"] == "pass"
    assert "phases" not in timed  # the marks go to the file, not into the outcome
    seen = names(marks)
    for name in ("start", "forked", "placer", "placed", "solution_ran", "admitted", "emptied"):
        assert name in seen, (name, seen)
    assert "replaced" not in seen


def test_a_process_asked_for_early_is_replaced_when_the_environment_changed(
    tmp_path: Path,
) -> None:
    marks = tmp_path / "marks.jsonl"
    outcome = run(
        tmp_path, SETS_VARIABLE, "import os\nresult = os.environ.get('HARNESS_TEST_SEEN')", marks
    )
    assert outcome["status"] == "pass", outcome
    assert "replaced" in names(marks)


def test_marks_said_by_another_process_are_read_back() -> None:
    said = phases.said([("placer", 12.5), ("placer_forked", 12.75)])
    assert phases.stamps("pid 7 " + said) == [("placer", 12.5), ("placer_forked", 12.75)]
