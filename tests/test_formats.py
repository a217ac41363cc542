"""Benchmark formats: BigCodeBench tasks, ExeDS notebook cells, CIBench sessions.

The loaders and the env-side helpers are tested here on the host; one real run over the
three sample sets, across two combos, checks the grading end to end (per-test and
per-step outcomes, oracle mode, drift).
"""

from __future__ import annotations

import ast
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from harness import answers, formats, problemsets
from harness.envside import formatlib
from harness.errors import ProblemError
from harness.formats import bigcodebench, cibench
from tests.conftest import ROOT, run_harness

SAMPLES = ROOT / "tests" / "data" / "formats"
SETS = ("bigcodebench-sample", "exeds-sample", "cibench-sample")


def write_rows(path: Path, *rows: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def sample_rows(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (SAMPLES / f"{name}.jsonl").read_text().splitlines()]


# -- telling formats apart ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("bigcodebench-sample", "bigcodebench"),
        ("exeds-sample", "exeds"),
        ("cibench-sample", "cibench"),
    ],
)
def test_detect(name: str, expected: str) -> None:
    assert formats.detect(sample_rows(name)[0]) == expected


def test_ds1000_rows_stay_ds1000() -> None:
    row = {"reference_code": "x", "code_context": "def test_execution(s): pass", "metadata": {}}
    assert formats.detect(row) == "ds1000"


# -- BigCodeBench --------------------------------------------------------------------------


def test_bigcodebench_problem() -> None:
    loaded = problemsets.load_problems([SAMPLES / "bigcodebench-sample.jsonl"])
    first = loaded[0]
    assert first.id == "bigcodebench-sample/BigCodeBench/1001"
    assert first.native_id == "BigCodeBench/1001"
    assert first.library == "numpy"  # from libs, given as a Python repr
    assert first.reference_code.startswith("import numpy as np\n\ndef task_func(values):\n")
    assert "np.product" in first.reference_code
    assert first.timeout == bigcodebench.DEFAULT_TIMEOUT
    assert "def test_execution(" in first.code_context
    assert set(first.requires) >= {"numpy", "unittest"}
    assert loaded[1].library == "pandas"  # libs as a list


def test_bigcodebench_answers_use_the_solution_field() -> None:
    loaded = problemsets.load_problems([SAMPLES / "bigcodebench-sample.jsonl"])
    got = answers.load_answers(SAMPLES / "bigcodebench-sample-answers.jsonl", loaded)
    assert [s.problem_id for s in got] == [p.id for p in loaded]
    assert got[0].source == "model:bigcodebench-sample"
    assert "np.prod(values)" in got[0].code


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"test": 3}, "test: must be a non-empty string"),
        ({"code_prompt": ""}, "code_prompt: must be a non-empty string"),
        ({"timeout": -1}, "timeout: must be a non-negative number"),
    ],
)
def test_bigcodebench_mistakes(tmp_path: Path, change: dict[str, Any], message: str) -> None:
    row = {**sample_rows("bigcodebench-sample")[0], **change}
    path = write_rows(tmp_path / "bcb.jsonl", row)
    with pytest.raises(ProblemError) as caught:
        problemsets.load_problems([path])
    assert str(caught.value) == f"{path}:1: {message}"


# -- ExeDS ---------------------------------------------------------------------------------


def test_exeds_problem() -> None:
    first = problemsets.load_problems([SAMPLES / "exeds-sample.jsonl"])[0]
    assert first.id == "exeds-sample/nb-1/cell-3"
    assert first.library == "pandas"
    assert first.reference_code == "df['c'] = df.a * df.b\ndf"
    assert "_EXPECTED = " in first.code_context


def test_exeds_mistakes(tmp_path: Path) -> None:
    row = {**sample_rows("exeds-sample")[0], "cells": "import pandas"}
    path = write_rows(tmp_path / "nb.jsonl", row)
    with pytest.raises(ProblemError, match=r"nb.jsonl:1: cells: must be a list of strings$"):
        problemsets.load_problems([path])


# -- CIBench -------------------------------------------------------------------------------


def test_a_session_is_two_problems() -> None:
    end_to_end, oracle = problemsets.load_problems([SAMPLES / "cibench-sample.jsonl"])
    assert end_to_end.id == "cibench-sample/session-1"
    assert oracle.id == "cibench-sample/session-1/oracle"
    assert "_ORACLE = False" in end_to_end.code_context
    assert "_ORACLE = True" in oracle.code_context
    assert end_to_end.reference_code == oracle.reference_code
    assert cibench.split(end_to_end.reference_code) == {
        1: "df = pd.DataFrame(raw)\n",
        2: "means = df.groupby('k').mean()\n",
        3: "print(means['v'].max())\n",
    }


def test_script_and_split_round_trip() -> None:
    steps = ["a = 1", "b = a + 1\nprint(b)", "c = b"]
    assert [cibench.split(cibench.script(steps))[n].rstrip() for n in (1, 2, 3)] == steps
    # code before the first marker belongs to step 1
    assert cibench.split("import x\n# %% step 1\na = x\n") == {1: "import x\na = x\n"}


def test_a_session_answer_is_judged_both_ways() -> None:
    loaded = problemsets.load_problems([SAMPLES / "cibench-sample.jsonl"])
    got = answers.load_answers(SAMPLES / "cibench-sample-answers.jsonl", loaded)
    assert [s.problem_id for s in got] == [p.id for p in loaded]
    assert got[0].code == got[1].code
    assert cibench.split(got[0].code)[2] == "means = df.groupby('k')[['v']].sum()\n"


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ([], "steps: must be a non-empty list"),
        ([{"reference": "x = 1"}], "steps[0]: needs a check or an expected_output"),
        (
            [{"reference": "", "check": "x"}],
            "steps[0].reference: must be a non-empty string",
        ),
        (
            ["x = 1"],
            "steps[0]: must be a table with reference and check or expected_output",
        ),
    ],
)
def test_session_mistakes(tmp_path: Path, steps: list[Any], message: str) -> None:
    path = write_rows(tmp_path / "s.jsonl", {"task_id": "t", "steps": steps})
    with pytest.raises(ProblemError) as caught:
        problemsets.load_problems([path])
    assert str(caught.value) == f"{path}:1: {message}"


def test_session_answers_must_be_code(tmp_path: Path) -> None:
    loaded = problemsets.load_problems([SAMPLES / "cibench-sample.jsonl"])
    path = write_rows(tmp_path / "m-answers.jsonl", {"task_id": "session-1", "steps": [1, 2]})
    with pytest.raises(ProblemError, match=r":1: line 1: steps must be a list of strings$"):
        answers.load_answers(path, loaded)


# -- the env-side helpers --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("actual", "expected"),
    [
        ("   a    b\n0  1  0.30000000000000004\n", "a b\n0 1 0.3"),  # alignment, float noise
        ("31\n", "31"),
        ("x  NaN\n", "x NaN\n"),
        ("-inf", "-inf"),
        ("mean: 2.00001", "mean: 2.0"),  # within rtol 1e-4
    ],
)
def test_outputs_that_match(actual: str, expected: str) -> None:
    assert formatlib.harness_compare_output(actual, expected) == ""


@pytest.mark.parametrize(
    ("actual", "expected", "reason"),
    [
        ("31", "32", "output differs at token 1: got '31', expected '32'"),
        ("mean: 2.01", "mean: 2.0", "output differs at token 3: got '2.01', expected '2.0'"),
        ("a b", "a b c", "output has 2 tokens, expected 3"),
        ("Name: x", "Name: y", "output differs at token 3: got 'x', expected 'y'"),
    ],
)
def test_outputs_that_differ(actual: str, expected: str, reason: str) -> None:
    assert formatlib.harness_compare_output(actual, expected) == reason


def test_a_cell_shows_its_stdout_then_its_last_value() -> None:
    namespace: dict[str, Any] = {}
    assert formatlib.harness_run_cell("x = 2\nprint('hi')\nx * 21", namespace) == "hi\n42\n"
    assert formatlib.harness_run_cell("x + 1;", namespace) == ""  # a ';' hides the value
    assert formatlib.harness_run_cell("y = x", namespace) == ""
    assert namespace["y"] == 2


def test_the_verdict_is_the_worst_part() -> None:
    passing = [{"name": "a", "status": "pass"}]
    formatlib.harness_verdict(passing)
    assert passing == formatlib.HARNESS_PARTS
    with pytest.raises(AttributeError, match="no attribute 'product'"):
        formatlib.harness_verdict(
            [
                {"name": "a", "status": "fail", "message": "1 != 2"},
                {
                    "name": "b",
                    "status": "error",
                    "type": "AttributeError",
                    "message": "no attribute 'product'",
                },
            ]
        )
    with pytest.raises(AssertionError, match=r"^1 of 2 failed \(a\): 1 != 2$"):
        formatlib.harness_verdict(
            [{"name": "a", "status": "fail", "message": "1 != 2"}, {"name": "b", "status": "pass"}]
        )
    with pytest.raises(RuntimeError, match="LinAlgError: singular"):
        formatlib.harness_verdict(
            [{"name": "a", "status": "error", "type": "LinAlgError", "message": "singular"}]
        )
    with pytest.raises(AssertionError, match="nothing was graded"):
        formatlib.harness_verdict([])


def test_the_env_library_runs_on_python_3_8(tmp_path: Path) -> None:
    """Contexts run on the combo's Python; the oldest we support must compile them."""
    for problem in problemsets.load_problems([SAMPLES / f"{name}.jsonl" for name in SETS]):
        ast.parse(problem.code_context, problem.id, feature_version=(3, 8))


# -- the real thing: three sample sets, two combos -------------------------------------------


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[tuple[str, str], Any]]:
    work = tmp_path_factory.mktemp("formats")
    (work / "matrix.toml").write_text(
        textwrap.dedent(f"""
        [matrix]
        python = "{sys.version_info.major}.{sys.version_info.minor}"
        baseline = "old"
        [combos.old]
        numpy = "1.26.4"
        pandas = "1.5.3"
        [combos.new]
        numpy = "2.2.6"
        pandas = "2.2.3"
        """)
    )
    command = ["run", "--matrix", str(work / "matrix.toml")]
    for name in SETS:
        command += ["--problems", str(SAMPLES / f"{name}.jsonl")]
        command += ["--answers", str(SAMPLES / f"{name}-answers.jsonl")]
    command += ["--results", str(work / "results"), "--run-id", "formats", "--no-history"]
    run_harness(*command, cwd=ROOT)
    run = work / "results" / "formats"
    found: dict[str, dict[tuple[str, str], Any]] = {}
    for combo in ("old", "new"):
        rows = [json.loads(line) for line in (run / f"{combo}.jsonl").read_text().splitlines()]
        found[combo] = {(r["problem_id"], r["source"]): r for r in rows}
    found["summary"] = json.loads((run / "summary.json").read_text())
    return found


def parts(outcome: dict[str, Any]) -> dict[str, str]:
    return {p["name"]: p["status"] for p in outcome.get("parts", [])}


@pytest.mark.network
def test_every_reference_passes_in_its_own_era(sample_run: dict[str, Any]) -> None:
    old = sample_run["old"]
    references = {k[0]: o["status"] for k, o in old.items() if k[1] == "reference"}
    assert len(references) == 6
    assert set(references.values()) == {"pass"}


@pytest.mark.network
def test_unit_tests_are_graded_one_by_one(sample_run: dict[str, Any]) -> None:
    outcome = sample_run["old"][
        ("bigcodebench-sample/BigCodeBench/1002", "model:bigcodebench-sample")
    ]
    assert outcome["status"] == "fail"
    assert parts(outcome) == {
        "TestCases.test_one_group": "fail",
        "TestCases.test_returns_dict": "pass",
        "TestCases.test_two_groups": "pass",
    }
    assert "1 of 3 failed (TestCases.test_one_group): {} != {'x': 7.0}" in outcome["message"]
    # a removed API errors every test, and the outcome carries the library's own error
    drifted = sample_run["new"][("bigcodebench-sample/BigCodeBench/1001", "reference")]
    assert (drifted["status"], drifted["exc_type"]) == ("error", "AttributeError")
    assert set(parts(drifted).values()) == {"error"}


@pytest.mark.network
def test_a_notebook_cell_is_graded_by_its_output(sample_run: dict[str, Any]) -> None:
    for combo in ("old", "new"):
        assert (
            sample_run[combo][("exeds-sample/nb-1/cell-3", "model:exeds-sample")]["status"]
            == "pass"
        )
    appended = sample_run["new"][("exeds-sample/nb-2/cell-4", "reference")]
    assert "'DataFrame' object has no attribute 'append'" in appended["message"]


@pytest.mark.network
def test_sessions_end_to_end_and_with_the_oracle(sample_run: dict[str, Any]) -> None:
    source = "model:cibench-sample"
    end_to_end = sample_run["old"][("cibench-sample/session-1", source)]
    oracle = sample_run["old"][("cibench-sample/session-1/oracle", source)]
    assert parts(end_to_end) == {"step 1": "pass", "step 2": "fail", "step 3": "fail"}
    # the reference's step 2 put the session right, so step 3 is judged on its own
    assert parts(oracle) == {"step 1": "pass", "step 2": "fail", "step 3": "pass"}
    assert "check failed: assert means.loc['x', 'v'] == 2" in end_to_end["message"]


@pytest.mark.network
def test_drift_is_found_in_every_format(sample_run: dict[str, Any]) -> None:
    drifted = {
        row["problem_id"]: row["cause"]
        for row in sample_run["summary"]["drift"]
        if row["class"] == "drifted" and row["source"] == "reference"
    }
    assert drifted == {
        "bigcodebench-sample/BigCodeBench/1001": "removed-api",
        "exeds-sample/nb-2/cell-4": "removed-api",
        "cibench-sample/session-1": "changed-behaviour",
        "cibench-sample/session-1/oracle": "changed-behaviour",
    }
