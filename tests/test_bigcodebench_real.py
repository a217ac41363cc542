"""A small real subset of the published BigCodeBench, end to end in two combos.

Two tasks per data-science library, read from the published file as it is (the tasks
whose code imports nothing beyond the five libraries and the standard library, so the
environments stay small), #1038 (its test serves on localhost), and three tasks known to
drift: #1026 (Matplotlib 3.9 renamed
``boxplot(labels=)``: the solution's drift) and #323, #357 (``assertAlmostEquals``,
gone from Python 3.12's ``unittest``: the tests' own drift, Python's). One combo pins the
five libraries as BigCodeBench's evaluation environment does (Python 3.10), the other
takes their newest releases on Python 3.13. The whole 1,140 tasks in BigCodeBench's full
environment are in docs/benchmarks/bigcodebench.md.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import sys
from typing import Any

import pytest

from harness.app import plan as planning
from harness.app import run as app_run
from harness.execute.progress import QuietReporter
from harness.execute.rundir import RunRequest
from tests.conftest import ROOT

PUBLISHED = ROOT.parent / "shared" / "data" / "bigcodebench" / "BigCodeBench-v0.1.5.jsonl.gz"
pytestmark = [
    pytest.mark.network,
    pytest.mark.skipif(not PUBLISHED.is_file(), reason="needs ../shared/data/bigcodebench"),
]
LIBRARIES = ("numpy", "pandas", "scipy", "sklearn", "matplotlib")
DRIFTING = ("BigCodeBench/1026", "BigCodeBench/323", "BigCodeBench/357")
# its test serves on localhost: the sandbox's own loopback, not the network
LOCAL_SERVER = "BigCodeBench/1038"
MATRIX = """
[matrix]
baseline = "bcb-era"
timeout = 240

[combos.bcb-era]
description = "the five libraries as BigCodeBench's requirements-eval.txt pins them"
python = "3.10"
as_of = 2024-06-01
numpy = "1.21.2"
pandas = "2.0.3"
scipy = "1.7.2"
scikit-learn = "1.3.1"
matplotlib = "3.7.0"

[combos.newest]
python = "3.13"
numpy = "latest"
pandas = "latest"
scipy = "latest"
scikit-learn = "latest"
matplotlib = "latest"
"""


def _imports(code: str) -> set[str]:
    return {
        m.split(".")[0] for m in re.findall(r"^\s*(?:import|from)\s+([\w.]+)", code, re.MULTILINE)
    }


def subset() -> list[str]:
    """Two tasks per library, in the file's order, and the drifting three."""
    chosen: dict[str, list[str]] = {lib: [] for lib in LIBRARIES}
    with gzip.open(PUBLISHED, "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            used = _imports(row["code_prompt"] + row["canonical_solution"] + row["test"])
            outside = used - set(sys.stdlib_module_names)
            if not outside or not outside <= set(LIBRARIES):
                continue
            for lib in sorted(outside):
                if len(chosen[lib]) < 2:
                    chosen[lib].append(row["task_id"])
                    break
    ids = [*(t for ids in chosen.values() for t in ids), *DRIFTING, LOCAL_SERVER]
    return list(dict.fromkeys(ids))


@pytest.fixture(scope="module")
def bcb_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("bcb")
    (root / "matrix.toml").write_text(MATRIX, encoding="utf-8")
    tasks = subset()
    env_root = os.environ.get("HARNESS_ENV_DIR", str(ROOT / ".harness" / "envs"))
    request = RunRequest(
        matrix=str(root / "matrix.toml"),
        problems=(str(PUBLISHED),),
        problem_id=tuple(tasks),
    )
    job = planning.plan(
        request,
        results=root / "results",
        env_root=(ROOT / env_root).absolute(),
        run_id="bcb",
        jobs=2,
    )
    summary = app_run.run(job, QuietReporter())
    return {
        "tasks": tasks,
        "summary": json.loads(job.run_dir.summary_json.read_text()),
        "s": summary,
        "outcomes": job.run_dir.read_all(),
    }


def test_the_subset_is_what_it_says(bcb_run: dict[str, Any]) -> None:
    assert len(bcb_run["tasks"]) >= 10
    assert bcb_run["summary"]["problems"] == len(bcb_run["tasks"])


def test_every_canonical_solution_passes_in_bigcodebenchs_era(bcb_run: dict[str, Any]) -> None:
    (era,) = [c for c in bcb_run["summary"]["combos"] if c["id"] == "bcb-era"]
    assert era["counts"]["reference"] == {"pass": len(bcb_run["tasks"])}


def test_the_known_drifts_are_found_where_they_broke(bcb_run: dict[str, Any]) -> None:
    drift = {d["problem_id"].split("/", 1)[1]: d for d in bcb_run["summary"]["drift"]}
    assert set(DRIFTING) <= set(drift), sorted(drift)
    boxplot = drift["BigCodeBench/1026"]
    assert (boxplot["cause"], boxplot["library"], boxplot["site"]) == (
        "changed-signature",
        "matplotlib",
        "solution",
    )
    assert boxplot["symbol"] == "matplotlib.Axes.boxplot(labels=)"
    for task in ("BigCodeBench/323", "BigCodeBench/357"):
        removed = drift[task]
        assert (removed["cause"], removed["library"], removed["site"]) == (
            "removed-api",
            "python",
            "test",
        ), removed
        assert removed["symbol"] == "unittest.TestCase.assertAlmostEquals"


def test_results_keep_each_unit_test(bcb_run: dict[str, Any]) -> None:
    (row,) = [row for row in bcb_run["s"].drift if row.problem_id.endswith("/1026")]
    (bad,) = [
        o
        for o in bcb_run["outcomes"]
        if (o.combo, o.problem_id, o.source) == (row.first_bad, row.problem_id, row.source)
    ]
    assert len(bad.parts) > 1
    assert {p.status for p in bad.parts} <= {"pass", "fail", "error"}
