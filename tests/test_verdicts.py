"""Upstream's verdicts beside its answers (harness/problems/verdicts.py), and ours set
beside them (harness/analysis/agreement.py, harness/reports/agreement.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.analysis.agreement import Agreement, compare
from harness.benchmarks.bigcodebench import verdicts as bigcodebench_verdicts
from harness.core.errors import ProblemError
from harness.core.problem import Problem
from harness.core.results import Outcome, Status
from harness.problems import verdicts
from harness.reports.agreement import markdown

BCB = {
    "date": "2024-06-01 10:00",
    "eval": {
        "BigCodeBench/0": [
            {"task_id": "BigCodeBench/0", "solution": "...", "status": "pass", "details": {}}
        ],
        "BigCodeBench/1": [
            {
                "task_id": "BigCodeBench/1",
                "solution": "...",
                "status": "fail",
                "details": {
                    "test_case_2": "Traceback (most recent call last):\n  ...\nAssertionError: 3 != 4\n"
                },
            }
        ],
        "BigCodeBench/2": [
            {"task_id": "BigCodeBench/2", "solution": "...", "status": "timeout", "details": {}}
        ],
    },
}
GITCHAMELEON = (
    "example_id,code_id,output,passed,compiled\n"
    "0,solution_code,1 passed in 0.01s,True,True\n"
    '1,solution_code,"FAILED test_sample.py::test_x - AttributeError: no attr\n1 failed",False,True\n'
)


def test_the_verdict_file_is_found_beside_the_answers_by_upstreams_name(tmp_path: Path) -> None:
    answers = tmp_path / "gpt--bigcodebench-complete.jsonl"
    answers.write_text("")
    assert verdicts.beside(answers) is None
    written = tmp_path / "gpt--bigcodebench-complete_eval_results.json"
    written.write_text(json.dumps(BCB))
    assert verdicts.beside(answers) == written


def test_bigcodebench_eval_results() -> None:
    found = bigcodebench_verdicts._bigcodebench(BCB, "r.json")
    assert [(v.problem, v.passed, v.status) for v in found.values()] == [
        ("BigCodeBench/0", True, "pass"),
        ("BigCodeBench/1", False, "fail"),
        ("BigCodeBench/2", False, "timeout"),
    ]
    assert found["BigCodeBench/1"].reason == "test_case_2: AssertionError: 3 != 4"


def test_gitchameleon_eval_results(tmp_path: Path) -> None:
    path = tmp_path / "gen_eval_results.csv"
    path.write_text(GITCHAMELEON)
    found = verdicts.read(path)
    assert (found["0"].passed, found["1"].passed) == (True, False)
    assert found["1"].reason == "1 failed"


def test_not_upstreams_shape_is_a_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "x_eval_results.json"
    path.write_text('{"results": []}')
    with pytest.raises(ProblemError, match=r"x_eval_results.json: not BigCodeBench's eval results"):
        verdicts.read(path)


def outcome(problem: str, status: Status, combo: str = "pinned", message: str = "") -> Outcome:
    return Outcome("r", combo, problem, "model:gpt", status, message=message)


def test_our_verdicts_beside_upstreams() -> None:
    problems = [
        Problem(
            f"bigcodebench/BigCodeBench/{i}",
            f"BigCodeBench/{i}",
            "bigcodebench",
            "pandas",
            "",
            "",
            "",
        )
        for i in range(5)
    ]
    found = bigcodebench_verdicts._bigcodebench(BCB, "r.json")
    outcomes = [
        outcome("bigcodebench/BigCodeBench/0", Status.PASS),
        outcome("bigcodebench/BigCodeBench/0", Status.FAIL, combo="latest"),  # not the baseline
        outcome("bigcodebench/BigCodeBench/1", Status.PASS),  # upstream failed it
        outcome("bigcodebench/BigCodeBench/2", Status.TIMEOUT, message="exceeded the time limit"),
        outcome("bigcodebench/BigCodeBench/3", Status.SKIPPED),
        outcome("bigcodebench/BigCodeBench/4", Status.PASS),  # upstream has no verdict
    ]
    got = compare("gpt", "r.json", found, outcomes, problems, "pinned")
    assert (got.both_pass, got.both_fail, got.not_run, got.ungraded) == (1, 1, 1, 1)
    assert [(d.problem_id, d.ours, d.theirs, d.their_reason) for d in got.disagreements] == [
        ("bigcodebench/BigCodeBench/1", "pass", "fail", "test_case_2: AssertionError: 3 != 4")
    ]
    assert got.rate == pytest.approx(2 / 3)
    assert Agreement.from_dict(got.to_dict()) == got
    text = markdown([got], ["other-model.jsonl"])
    assert "| `gpt` | 3 | 66.7% | 1 | 1 | 1 | 0 | 1 | 1 |" in text
    assert "No upstream verdicts beside `other-model.jsonl`." in text
    assert (
        "| `bigcodebench/BigCodeBench/1` | `pinned` | pass | – | fail | test_case_2: AssertionError: 3 != 4 |"
        in text
    )


def test_a_problem_that_ran_in_one_combo_only_is_compared_there() -> None:
    # --own-envs: each GitChameleon problem in its own env, none of them the baseline
    problems = [Problem("gitchameleon/0", "0", "gitchameleon", "scipy", "", "", "")]
    got = compare(
        "gpt",
        "v.csv",
        {"0": verdicts.Verdict("0", False, "fail", "1 failed")},
        [outcome("gitchameleon/0", Status.PASS, combo="gc-scipy-1.8.1")],
        problems,
        "gc-numpy-1.21",
    )
    assert [(d.combo, d.ours, d.theirs) for d in got.disagreements] == [
        ("gc-scipy-1.8.1", "pass", "fail")
    ]
