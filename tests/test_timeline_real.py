"""A tiny timeline end to end: real environments resolved as the index was on two
dates, our pandas problems, and two "models" whose answers are known — one answers
with each problem's old idiom, one with its modern reference.

The old-idiom model must be dated to the earlier date (its idioms pass there and
several break by the later one); the model that answers with the references carries
no date at all (it passes wherever the reference holds: a flat curve).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import pytest

from harness.app import plan as planning
from harness.app import run as app_run
from harness.execute.progress import QuietReporter
from harness.execute.rundir import RunRequest
from harness.problems.sets import load_problems
from tests.conftest import ROOT

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.network

MATRIX = """
[timeline.pd]
start = 2022-01-01
end = 2025-06-01
every = "4 years"  # the start, then the end
libraries = ["pandas"]
"""


@pytest.fixture(scope="module")
def timeline_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root: Path = tmp_path_factory.mktemp("timeline")
    (root / "matrix.toml").write_text(MATRIX, encoding="utf-8")
    problems = load_problems([ROOT / "problems" / "pandas"])
    for name, code in (
        ("old-idioms", lambda p: p.idioms["old"]),
        ("references", lambda p: p.reference_code),
    ):
        lines = [json.dumps({"problem_id": p.id, "code": code(p)}) for p in problems]
        (root / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    env_root = os.environ.get("HARNESS_ENV_DIR", str(ROOT / ".harness" / "envs"))
    request = RunRequest(
        matrix=str(root / "matrix.toml"),
        problems=(str(ROOT / "problems" / "pandas"),),
        answers=(
            f"old-idioms={root / 'old-idioms.jsonl'}",
            f"references={root / 'references.jsonl'}",
        ),
        idioms=False,
    )
    job = planning.plan(
        request,
        results=root / "results",
        env_root=(ROOT / env_root).absolute(),
        run_id="tl",
        jobs=2,
    )
    app_run.run(job, QuietReporter())
    run = job.run_dir
    return {
        "timeline": json.loads((run.root / "timeline.json").read_text()),
        "md": run.summary_md.read_text(),
        "html": run.report_html.read_text(),
        "root": run.root,
        "envs": {
            c: json.loads(run.env_info(c).read_text()) for c in ("pd-2022-01-01", "pd-2025-06-01")
        },
    }


def test_each_date_is_resolved_as_the_index_was_then(timeline_run: dict[str, Any]) -> None:
    old, new = timeline_run["envs"]["pd-2022-01-01"], timeline_run["envs"]["pd-2025-06-01"]
    assert old["as_of"] == "2022-01-01" and new["as_of"] == "2025-06-01"
    assert old["python"].startswith("3.9.") and new["python"].startswith("3.13.")
    assert old["versions"]["pandas"] == "1.3.5"  # the newest pandas on 2022-01-01
    assert new["versions"]["pandas"] == "2.2.3"  # and on 2025-06-01 (2.3.0 came on 06-04)


def test_the_old_idioms_date_to_the_earlier_libraries(timeline_run: dict[str, Any]) -> None:
    models = {m["model"]: m for m in timeline_run["timeline"]["models"]}
    old = models["old-idioms"]
    assert old["vintage"] == "2022-01-01"
    assert old["shape"] == ["decay"]
    early, late = old["curve"]
    assert early["rate"] == 1.0  # every old idiom passes where its reference does
    assert late["rate"] < 1.0
    assert models["references"]["vintage"] is None
    assert models["references"]["shape"] == ["flat"]


def test_the_reports_show_it(timeline_run: dict[str, Any]) -> None:
    assert "| old-idioms | 2022-01-01 |" in timeline_run["md"]
    assert "API vintage" in timeline_run["html"]
    assert (timeline_run["root"] / "timeline.png").stat().st_size > 1000
