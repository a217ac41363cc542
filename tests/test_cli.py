from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
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
        "error: harness: no combo matches the selection (combos: ds1000-2022, ds1000-2024, latest)\n"
    )


def test_combos_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["combos", "--json", "-t", "baseline"]) == 0
    (combo,) = json.loads(capsys.readouterr().out)
    assert combo["id"] == "ds1000-2024" and combo["baseline"] is True
    assert combo["libraries"]["pandas"] == "1.5.3"


def test_python_dash_m_and_console_script_agree() -> None:
    proc = run_harness("--help", cwd=ROOT, check=False)
    assert proc.returncode == 0
    assert "run" in proc.stdout and "report" in proc.stdout
