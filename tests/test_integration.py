"""The main job end to end: real uv environments, real problems, every output file.

Needs the package index (PyPI) to build environments; numpy wheels keep it small.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from junitparser import Error, Failure, JUnitXml

from tests.conftest import DS1000_FILE, ROOT, needs_ds1000, run_harness

pytestmark = pytest.mark.network
PY = f"{sys.version_info.major}.{sys.version_info.minor}"


def harness(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_harness(*args, cwd=cwd)


@pytest.fixture(scope="module")
def numpy_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("e2e")
    (work / "matrix.toml").write_text(
        textwrap.dedent(f"""
        [matrix]
        baseline = "np1"
        python = "{PY}"
        [combos.np1]
        numpy = "1.26.4"
        [combos.np2]
        numpy = "2.2.6"
        [combos.broken]
        numpy = "99"
    """)
    )
    args = [
        "run",
        "--problems",
        str(ROOT / "tests/data/problems"),
        "--env-dir",
        str(work / "envs"),
        "--results",
        str(work / "results"),
        "-j",
        "2",
    ]
    harness(*args, "--run-id", "first", cwd=work)
    harness(*args, "--run-id", "second", "--combos", "np1", cwd=work)
    return work / "results"


def test_drift_row_in_summary(numpy_run: Path) -> None:
    md = (numpy_run / "first" / "summary.md").read_text()
    assert (
        "| `problems/numpy/product` | numpy | drifted | `np1` → `np2` | AttributeError: module 'numpy' "
        "has no attribute 'product' | removed-api | `numpy.product` | – | – | – | `np1` warned: `product` is "
        "deprecated as of NumPy 1.25.0"
    ) in md
    assert (
        "| `problems/numpy/promotion` | numpy | drifted | `np1` → `np2` | AssertionError: 44 | "
        "changed-behaviour | – | assertion | – | – | – | numpy 1.26.4→2.2.6 |"
    ) in md
    assert "`problems/numpy/prod`" not in md.split("## Drifted problems")[1]
    assert "| reference | 1 | 2 |" in md  # one stable pass, two drifted
    assert "| `np1` | reference | 3 | 0 | 0 | 0 | 100.0% |" in md
    assert "| `np2` | reference | 1 | 1 | 1 | 0 | 33.3% |" in md
    assert "| `broken` | reference | 0 | 0 | 0 | 3 | – |" in md
    assert "**env_error** (resolve): No solution found when resolving dependencies:" in md


def test_outcomes_and_envs_on_disk(numpy_run: Path) -> None:
    run = numpy_run / "first"
    lines = [json.loads(line) for line in (run / "np2.jsonl").read_text().splitlines()]
    assert sorted(o["problem_id"] for o in lines) == [
        "problems/numpy/prod",
        "problems/numpy/product",
        "problems/numpy/promotion",
    ]
    assert {o["versions"]["numpy"] for o in lines} == {"2.2.6"}
    assert all(o["run_id"] == "first" and o["combo"] == "np2" for o in lines)
    env = json.loads((run / "envs" / "np1.json").read_text())
    assert env["ok"] and env["versions"] == {"numpy": "1.26.4"} and env["imports"]["numpy"]["ok"]
    assert "numpy==1.26.4" in (run / "envs" / "np1.lock").read_text()
    broken = json.loads((run / "envs" / "broken.json").read_text())
    assert not broken["ok"] and broken["stage"] == "resolve" and "numpy==99" in broken["error"]
    assert not (run / "envs" / "broken.lock").exists()
    # an unchanged combo reuses its environment
    again = json.loads((numpy_run / "second" / "envs" / "np1.json").read_text())
    assert again["reused"] and again["path"] == env["path"]


def test_junit(numpy_run: Path) -> None:
    xml = JUnitXml.fromfile(str(numpy_run / "first" / "junit.xml"))
    suites = {s.name: s for s in xml}
    assert list(suites) == ["np1", "np2", "broken"]
    np2 = suites["np2"]
    assert {p.name: p.value for p in np2.properties()}["numpy"] == "2.2.6"
    cases = {c.classname: c for c in np2}
    assert isinstance(cases["problems/numpy/product"].result[0], Error)
    assert isinstance(cases["problems/numpy/promotion"].result[0], Failure)
    assert cases["problems/numpy/prod"].is_passed
    assert (np2.tests, np2.failures, np2.errors) == (3, 1, 1)
    assert suites["broken"].errors == 3


@needs_ds1000()
def test_real_ds1000_subset(tmp_path: Path) -> None:
    (tmp_path / "matrix.toml").write_text(
        textwrap.dedent("""
        [matrix]
        baseline = "pd15"
        python = "3.10"
        [combos.pd15]
        as_of = "2024-05-01"
        numpy = "1.26.4"
        pandas = "1.5.3"
        [combos.pd20]
        as_of = "2023-07-01"
        numpy = "1.25.0"
        pandas = "2.0.3"
    """)
    )
    answers = DS1000_FILE.parent / "answers" / "gpt-4-0613-answers.jsonl"
    ids = [str(i) for i in (*range(8), 47)]
    harness(
        "run",
        "--problems",
        str(DS1000_FILE),
        "--answers",
        str(answers),
        "--env-dir",
        str(tmp_path / "envs"),
        "--results",
        str(tmp_path / "results"),
        "--run-id",
        "ds",
        *[a for i in ids for a in ("--problem-id", i)],
        cwd=tmp_path,
    )
    run = tmp_path / "results" / "ds"
    outcomes = [json.loads(line) for line in (run / "pd15.jsonl").read_text().splitlines()]
    assert len(outcomes) == 18
    reference = {o["problem_id"]: o["status"] for o in outcomes if o["source"] == "reference"}
    assert reference == {f"ds1000/{i}": "pass" for i in ids}
    assert {o["source"] for o in outcomes} == {"reference", "model:gpt-4-0613"}
    md = (run / "summary.md").read_text()
    assert (
        "| `ds1000/47` | pandas | drifted | `pd15` → `pd20` | AttributeError: 'DataFrame' object has no "
        "attribute 'append' | removed-api | `pandas.DataFrame.append` | – | – | – | `pd15` warned: The "
        "frame.append method is deprecated"
    ) in md
