from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from harness.app.bisect import Bisected, BisectTarget
from harness.cli import main
from harness.core.findings import Finding
from harness.core.problem import Problem, Solution
from harness.execute.runner import Execution, RunOptions
from harness.matrix.spec import Combo, MatrixSpec, load
from tests.conftest import ROOT, Writer, run_harness


def test_bad_matrix_is_one_line_and_status_2(write: Writer) -> None:
    path = write("m.toml", '[matrix]\npython = "3.11"\n[combos.pandas2]\nnumpy = "1.2x"\n')
    proc = run_harness("combos", "--matrix", str(path), cwd=ROOT, check=False)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert (
        proc.stderr
        == f"error: {path}:4: combo 'pandas2'.numpy: '1.2x' is not a valid version or specifier\n"
    )


def test_each_mistake_of_a_matrix_is_a_line_and_status_2(write: Writer) -> None:
    path = write("m.toml", '[combos.a]\npython = "3.11"\nnumpy = "1.2x"\npandas = "2.x"\n')
    proc = run_harness("combos", "--matrix", str(path), cwd=ROOT, check=False)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == (
        f"error: {path}:3: combo 'a'.numpy: '1.2x' is not a valid version or specifier\n"
        f"error: {path}:4: combo 'a'.pandas: '2.x' is not a valid version or specifier\n"
    )


def test_bad_problem_file_is_one_line_and_status_2(write: Writer, tmp_path: Path) -> None:
    problems = write("bad.jsonl", "{not json\n")
    matrix = write("m.toml", '[combos.a]\npython = "3.11"\n')
    proc = run_harness(
        "run",
        "--matrix",
        str(matrix),
        "--problems",
        str(problems),
        "--results",
        str(tmp_path / "r"),
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"error: {problems}:1: line 1: invalid JSON: ")
    assert proc.stderr.count("\n") == 1
    assert not (tmp_path / "r").exists()  # nothing started, nothing half-written


def test_no_matching_combo(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["combos", "--combos", "nope"]) == 2
    assert capsys.readouterr().err == (
        "error: harness: no combo matches the selection "
        "(combos: ds1000-2022, ds1000-2024, latest; lanes: pre, nightly-wheels)\n"
    )


def test_combos_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["combos", "--json", "-t", "baseline"]) == 0
    (combo,) = json.loads(capsys.readouterr().out)
    assert combo["id"] == "ds1000-2024" and combo["baseline"] is True
    constraints = {lib["library"]: lib["constraint"] for lib in combo["libraries"]}
    assert constraints["pandas"] == "1.5.3"
    assert Combo.from_dict(combo) in load(ROOT / "matrix.toml").combos  # it round-trips


def test_python_dash_m_and_console_script_agree() -> None:
    proc = run_harness("--help", cwd=ROOT, check=False)
    assert proc.returncode == 0
    assert "run" in proc.stdout and "report" in proc.stdout


def test_what_bisect_prints_of_a_finding() -> None:
    problem = Problem("ds1000/47", "47", "ds1000", "pandas", "", "r", "")
    target = BisectTarget(
        MatrixSpec(Path("m.toml"), (), "base"),
        Combo("base", "3.11", ()),
        Execution(problem, Solution("ds1000/47", "reference", "r")),
        RunOptions(),
    )
    found = Finding("ds1000/47", "reference", "pandas 1.5.3", "pandas 2.2.3", "pandas")
    assert Bisected(target, found, "pandas").lines() == [
        "ds1000/47 (reference): no first bad release: "
    ]
    found = dataclasses.replace(
        found,
        python="3.11",
        last_good="1.5.3",
        first_bad="2.0.0",
        error="AttributeError: append",
        warning="FutureWarning: append is deprecated",
        candidates=9,
        trials=4,
    )
    assert Bisected(target, found, "pandas").lines() == [
        "ds1000/47 (reference): first bad release pandas 2.0.0 (last good 1.5.3; 9 releases, 4 trials, Python 3.11)",
        "  fails with: AttributeError: append",
        "  pandas 1.5.3 warned: FutureWarning: append is deprecated",
    ]


def test_bisect_needs_a_problem_or_a_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bisect", "--problem", "ds1000/47"]) == 2
    assert capsys.readouterr().err == (
        "error: harness: bisect needs --library, --good, --bad (or --run RUN_DIR)\n"
    )
