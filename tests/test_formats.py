"""Benchmark formats: BigCodeBench tasks, ExeDS notebook cells, CIBench sessions.

The loaders and the env-side helpers are tested here on the host; one real run over the
three sample sets, across two combos, checks the grading end to end (per-test and
per-step outcomes, oracle mode, drift).
"""

from __future__ import annotations

import ast
import json
import os
import sys
import textwrap
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

from harness.benchmarks import registry
from harness.benchmarks.bigcodebench import load as bigcodebench
from harness.benchmarks.cibench import load as cibench
from harness.benchmarks.exeds import load as exeds
from harness.core.errors import ProblemError
from harness.envside.bridge import crossing_errors
from harness.envside.checks import formatlib
from harness.problems import answers
from harness.problems import sets as problemsets
from tests.conftest import ROOT, run_harness
from tests.envside import benchmark_side

SAMPLES = ROOT / "tests" / "data" / "formats"
SETS = ("bigcodebench-sample", "exeds-sample", "cibench-sample")

formatlib_bigcodebench = benchmark_side("bigcodebench.check")
bigcodebench_driver = benchmark_side("bigcodebench.driver")


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
    assert registry.detect(sample_rows(name)[0]) == expected


def test_ds1000_rows_stay_ds1000() -> None:
    row = {"reference_code": "x", "code_context": "def test_execution(s): pass", "metadata": {}}
    assert registry.detect(row) == "ds1000"


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
    # an exception only the solution's process knows keeps its name, and its frames
    with pytest.raises(crossing_errors.RemoteError, match="singular") as raised:
        formatlib.harness_verdict(
            [
                {
                    "name": "a",
                    "status": "error",
                    "type": "numpy.linalg.LinAlgError",
                    "message": "singular",
                    "traceback": "/env/site-packages/numpy/linalg/_linalg.py:104 in _raise",
                }
            ]
        )
    assert raised.value.qualified == "numpy.linalg.LinAlgError"
    assert raised.value.remote_traceback.endswith("_linalg.py:104 in _raise")
    with pytest.raises(AssertionError, match="nothing was graded"):
        formatlib.harness_verdict([])


# -- BigCodeBench's driver, run here: the module as upstream makes it, a part per test -------


@pytest.fixture
def drive(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Runs the driver on (solution, tests) in this process and returns its parts."""
    monkeypatch.delitem(sys.modules, "__test__", raising=False)
    zone = os.environ.get("TZ")  # the driver sets UTC

    def run(solution: str, tests: str) -> dict[str, dict[str, str]]:
        namespace = {
            "_HARNESS_SOLUTION": textwrap.dedent(solution),
            "_HARNESS_TESTS": textwrap.dedent(tests),
            "_harness_error_part": formatlib.harness_error_part,
        }
        exec(bigcodebench_driver.program("harness.envside.benchmarks.bigcodebench"), namespace)
        report: list[dict[str, str]] = namespace["_harness_report"]  # type: ignore[assignment]
        return {part["name"]: part for part in report}

    yield run
    if zone is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = zone
    time.tzset()


def test_the_solution_is_the_module_upstream_names(drive: Any) -> None:
    found = drive(
        """
        from random import randint
        def task_func():
            return randint(1, 6), os.path.sep, __name__
        """,
        """
        import time, unittest
        from unittest.mock import patch
        class TestCases(unittest.TestCase):
            @patch(__name__ + '.randint', return_value=25)
            def test_patched(self, _randint):
                self.assertEqual(task_func(), (25, '/', '__test__'))
            def test_utc(self):
                self.assertEqual(time.strftime('%Z', time.localtime(0)), 'UTC')
        """,
    )
    assert {name: part["status"] for name, part in found.items()} == {
        "TestCases.test_patched": "pass",
        "TestCases.test_utc": "pass",
    }


def test_each_test_reports_what_it_raised_where(drive: Any) -> None:
    found = drive(
        """
        import json, subprocess
        def parse(text):
            return json.loads(text)
        def ocr():
            try:
                subprocess.run(['harness-no-such-program', '--version'])
            except FileNotFoundError:
                raise RuntimeError('the OCR engine is not installed') from None
        """,
        """
        import unittest
        class TestCases(unittest.TestCase):
            def test_json(self):
                parse('{')
            def test_removed_assert(self):
                self.assertAlmostEqualz(1.0, 1.0)
            def test_program(self):
                ocr()
            def test_fails(self):
                self.assertEqual(parse('1'), 2)
        """,
    )
    assert found["TestCases.test_json"]["type"] == "json.decoder.JSONDecodeError"
    assert found["TestCases.test_json"]["traceback"].splitlines()[-1].endswith("in raw_decode")
    assert found["TestCases.test_removed_assert"]["message"] == (
        "'TestCases' object has no attribute 'assertAlmostEqualz'"
        " [harness: TestCases derives from unittest.TestCase]"
    )
    assert found["TestCases.test_program"]["message"] == (
        "the OCR engine is not installed"
        " [harness: no program 'harness-no-such-program' on this machine]"
    )
    assert (found["TestCases.test_fails"]["status"], found["TestCases.test_fails"]["type"]) == (
        "fail",
        "AssertionError",
    )


def test_a_test_that_reached_for_the_network_says_so(drive: Any) -> None:
    # the solution swallows the error (as BigCodeBench/176 does): what it did still shows
    found = drive(
        """
        import socket
        def reverse(ip):
            try:
                with socket.create_connection((ip, 9), timeout=0.01):
                    return "reached"
            except OSError:
                return None
        """,
        """
        import unittest
        class TestCases(unittest.TestCase):
            def test_remote(self):
                self.assertEqual(reverse('192.0.2.1'), 'reached')
            def test_local_is_not_the_network(self):
                self.assertEqual(reverse('127.0.0.1'), 'reached')
        """,
    )
    assert found["TestCases.test_remote"]["message"] == (
        "None != 'reached' [harness: reached for the network: socket.getaddrinfo('192.0.2.1')]"
    )
    assert found["TestCases.test_local_is_not_the_network"]["message"] == "None != 'reached'"


def test_a_solution_that_does_not_run_is_one_error(drive: Any) -> None:
    found = drive("import no_such_module_here\n", "import unittest\n")
    assert list(found) == ["solution"]
    assert found["solution"]["type"] == "ModuleNotFoundError"


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


# -- the datasets as their maintainers publish them ------------------------------------------

RELEASE = SAMPLES / "bigcodebench-release.jsonl"  # BigCodeBench's release row schema, our tasks
BIGCODEBENCH_DIR = Path(
    os.environ.get("BIGCODEBENCH_DIR", ROOT.parent / "shared" / "data" / "bigcodebench")
)
BIGCODEBENCH_FILE = BIGCODEBENCH_DIR / "BigCodeBench-v0.1.5.jsonl.gz"
RELEASE_KEYS = [
    "task_id",
    "complete_prompt",
    "instruct_prompt",
    "canonical_solution",
    "code_prompt",
    "test",
    "entry_point",
    "doc_struct",
    "libs",
]


def test_the_release_fixture_has_the_release_schema() -> None:
    assert all(list(row) == RELEASE_KEYS for row in sample_rows("bigcodebench-release"))


def test_bigcodebench_rows_as_released() -> None:
    loaded = problemsets.load_problems([RELEASE])
    assert [p.id for p in loaded] == [
        "bigcodebench-release/BigCodeBench/2001",
        "bigcodebench-release/BigCodeBench/2002",
    ]
    first = loaded[0]
    assert first.library == "pandas"  # the first data-science library of libs' repr
    assert first.reference_code == (
        "import pandas as pd\nimport numpy as np\ndef task_func(n):\n"
        "    x = np.arange(n)\n    return pd.DataFrame({'x': x, 'y': x ** 2})\n"
    )
    assert first.prompt.startswith("Build a DataFrame")  # the instruct prompt
    # the prompts stay beside the task: a sample's completion follows complete_prompt, a
    # calibrated solution the code_prompt (harness/problems/shapes.py)
    assert first.metadata == {
        "format": "bigcodebench",
        "entry_point": "task_func",
        "complete_prompt": sample_rows("bigcodebench-release")[0]["complete_prompt"],
        "code_prompt": sample_rows("bigcodebench-release")[0]["code_prompt"],
    }
    assert set(first.requires) == {"pandas", "numpy", "unittest"}
    assert loaded[1].library == "python"  # the standard library only


def test_extra_keys_of_a_released_row_are_ignored(tmp_path: Path) -> None:
    """BigCodeBench-Hard's rows may carry more than the nine keys: those are not needed."""
    row = {**sample_rows("bigcodebench-release")[0], "q_idx": 7, "score": 0.5}
    path = write_rows(tmp_path / "hard.jsonl", row)
    assert [p.native_id for p in problemsets.load_problems([path])] == ["BigCodeBench/2001"]


@pytest.mark.skipif(
    not BIGCODEBENCH_FILE.is_file(),
    reason=f"BigCodeBench data not found at {BIGCODEBENCH_DIR} (set BIGCODEBENCH_DIR)",
)
def test_every_published_bigcodebench_task_loads() -> None:
    loaded = problemsets.load_problems([BIGCODEBENCH_FILE])
    assert len(loaded) == 1140
    assert [p.native_id for p in loaded] == [f"BigCodeBench/{n}" for n in range(1140)]
    for problem in loaded:
        with warnings.catch_warnings():  # some tasks' regexes are not raw strings: a warning
            warnings.simplefilter("ignore")  # (DeprecationWarning before 3.12)
            compile(problem.reference_code, problem.id, "exec")  # code_prompt + body: a program
        assert "def test_execution(" in problem.code_context
        assert problem.prompt and problem.timeout == bigcodebench.DEFAULT_TIMEOUT


def test_an_exeds_test_item_as_published_is_refused_with_what_to_build(tmp_path: Path) -> None:
    item = {
        "idx": 0,
        "file": "file_000001",
        "url": "https://github.com/example/nb",
        "executable": 1,
        "table_keys": ["'a'"],
        "output": {"ori": "df.a.sum()", "position": 5, "cell_type": "code"},
        "context_dist1": {"cell_type": "markdown", "str": "Sum a.", "token": ["Sum", "a"]},
    }
    assert registry.detect(item) == "exeds"
    path = write_rows(tmp_path / "exeds_test.jsonl", item)
    with pytest.raises(ProblemError) as caught:
        problemsets.load_problems([path])
    assert str(caught.value) == f"{path}:1: line 1: {exeds.PUBLISHED}"


def test_a_cibench_notebook_as_published_becomes_a_session() -> None:
    notebook = json.loads((SAMPLES / "cibench-notebook.ipynb").read_text())
    row = cibench.notebook_row(notebook, "statistics/mean")
    assert row == {
        "task_id": "statistics/mean",
        "steps": [
            {
                "prompt": "Make a list `values` of the numbers 1 to 4.",
                "reference": "import statistics\n\nvalues = [1, 2, 3, 4]",
                "check": cibench.RUNS,  # no output: the step must run
            },
            {
                "prompt": "What is the mean of `values`?",
                "reference": "statistics.mean(values)",
                "expected_output": "2.5",
            },
            {
                "prompt": "Plot `values`.",
                "reference": "import matplotlib.pyplot as plt\n\nplt.plot(values)",
                "check": cibench.RUNS,  # an image: not compared
            },
            {
                "prompt": "Print how many values there are.",
                "reference": "print(len(values))",
                "check": cibench.RUNS,  # printed, not shown: CIBench's loader skips it too
            },
        ],
    }


def test_a_converted_notebook_loads_and_its_references_hold(tmp_path: Path) -> None:
    notebook = json.loads((SAMPLES / "cibench-notebook.ipynb").read_text())
    path = write_rows(tmp_path / "cibench.jsonl", cibench.notebook_row(notebook, "s/mean"))
    end_to_end, oracle = problemsets.load_problems([path])
    assert (end_to_end.id, oracle.id) == ("cibench/s/mean", "cibench/s/mean/oracle")
    namespace: dict[str, Any] = {}
    for step in cibench.notebook_row(notebook, "s/mean")["steps"]:
        if "matplotlib" in step["reference"]:
            continue  # the host never imports the libraries under test
        output = formatlib.harness_run_cell(step["reference"], namespace)
        if "expected_output" in step:
            assert formatlib.harness_compare_output(output, step["expected_output"]) == ""
        else:
            exec(step["check"], namespace)


@pytest.mark.parametrize(
    ("cells", "steps"),
    [
        ([], []),
        ([{"cell_type": "code", "source": "x = 1", "outputs": []}], [("", "x = 1", "check")]),
        (  # two questions in a row: the later one asks for the code
            [
                {"cell_type": "markdown", "source": ["a"]},
                {"cell_type": "markdown", "source": ["b"]},
                {"cell_type": "code", "source": ["1"], "outputs": [{"data": {"text/plain": "1"}}]},
            ],
            [("b", "1", "expected_output")],
        ),
        ([{"cell_type": "raw", "source": "x"}, "not a cell"], []),
    ],
)
def test_notebook_cells_pair_up_in_order(
    cells: list[Any], steps: list[tuple[str, str, str]]
) -> None:
    row = cibench.notebook_row({"cells": cells}, "t")
    got = [
        (s["prompt"], s["reference"], "check" if "check" in s else "expected_output")
        for s in row["steps"]
    ]
    assert got == steps


def test_the_answers_module_runs_the_tests_set_up_but_never_their_values() -> None:
    tests = textwrap.dedent('''
        """Tests for task_func: the expected output is 42."""
        import unittest
        from django.conf import settings
        try:
            from zoneinfo import ZoneInfo
        except ImportError:
            from pytz import timezone as ZoneInfo
        if not settings.configured:
            settings.configure(DEBUG=True)
        matplotlib.use("Agg")
        EXPECTED = [1, 2, 3]
        if True:
            HIDDEN = 42
        def expected():
            return 42
        class TestCases(unittest.TestCase):
            def test_it(self):
                self.assertEqual(task_func(), EXPECTED)
    ''')
    kept = formatlib_bigcodebench._tests_top_level(tests)
    names = {type(node).__name__ for node in ast.parse(kept).body}
    assert names == {"Import", "ImportFrom", "Try", "If", "Expr"}
    assert "settings.configure(DEBUG=True)" in kept and 'matplotlib.use("Agg")' in kept
    for hidden in ("EXPECTED", "HIDDEN", "42", "def expected", "TestCases"):
        assert hidden not in kept
