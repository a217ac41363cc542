"""The timeline section of a run's reports (harness/reports/timeline.py): a run whose
combos carry dates gets each model's vintage, the references' decay, and the curves
(timeline.json, .png, .svg, and the same in summary.md and report.html)."""

from __future__ import annotations

import datetime as dt
import json
from typing import TYPE_CHECKING

from harness.analysis.vintage import Timeline
from harness.analysis.vintage import build_timeline as build
from harness.core.results import Outcome, OutcomeWriter, Status, write_json
from harness.envs.build import EnvInfo
from harness.execute.rundir import RunDir
from harness.reports import write_reports

if TYPE_CHECKING:
    from pathlib import Path

DAYS = ["2021-01-01", "2022-01-01", "2023-01-01", "2024-01-01"]
# problem → reference, then a model that knows the 2022 APIs, per date
ROWS = {
    **{f"p/{i}": ("1111", "0110") for i in range(6)},
    **{f"p/{i}": ("1100", "0100") for i in range(6, 10)},  # drift: the reference breaks in 2023
    "p/10": ("....", "...."),  # its library is not in these combos
}
STATUS = {"1": Status.PASS, "0": Status.FAIL, ".": Status.SKIPPED}


def make_run(tmp_path: Path, dated: bool = True) -> RunDir:
    run = RunDir(tmp_path / "t1")
    combos = [f"core-{d}" for d in DAYS] + ["fixed"]
    write_json(run.manifest, {"run_id": "t1", "baseline": combos[0], "combos": combos})
    for i, combo in enumerate(combos):
        as_of = DAYS[i] if dated and i < len(DAYS) else ""
        env = EnvInfo(combo, ok=True, python="3.11.7", versions={"pandas": "2.2.3"}, as_of=as_of)
        write_json(run.env_info(combo), env.to_dict())
        with OutcomeWriter(run.outcomes(combo)) as w:
            for seq, (pid, (ref, model)) in enumerate(ROWS.items()):
                for source, row in (("reference", ref), ("model:m", model)):
                    status = STATUS[row[i]] if i < len(DAYS) else Status.PASS
                    w.write(Outcome("t1", combo, pid, source, status, library="pandas", seq=seq))
    return run


def test_the_vintage_counts_only_problems_whose_reference_always_holds(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    envs = run.read_envs(run.known_combos())
    timeline = build(run.read_all(), envs, samples=100)
    assert timeline is not None
    assert [d.isoformat() for d in timeline.days] == DAYS
    assert timeline.combos == tuple(f"core-{d}" for d in DAYS)  # "fixed" has no date
    (m,) = timeline.models
    # p/6–9 drift (their reference breaks in 2023): left out at every date, so that each
    # date counts the same six problems
    assert [(p.passed, p.counted) for p in m.curve] == [(0, 6), (6, 6), (6, 6), (0, 6)]
    assert m.best == dt.date(2022, 1, 1)
    assert m.shape == ("rise", "plateau", "decay")  # 2022 and 2023 tie: the earlier middle
    refs = timeline.references
    assert [(p.passed, p.counted) for p in refs.curve] == [(10, 10), (10, 10), (6, 10), (6, 10)]
    assert refs.anchor == dt.date(2021, 1, 1)
    assert refs.half_life_days is not None and refs.extrapolated  # 60% left: never half


def test_reports_carry_the_timeline(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    summary = write_reports(run)
    assert summary.timeline is not None
    data = json.loads((run.root / "timeline.json").read_text())
    assert data["models"][0]["model"] == "m"
    assert data["models"][0]["vintage"] == "2022-01-01"
    assert json.loads(run.summary_json.read_text())["timeline"] == data
    assert Timeline.from_dict(data) == summary.timeline
    assert (run.root / "timeline.png").read_bytes().startswith(b"\x89PNG")
    assert "<svg" in (run.root / "timeline.svg").read_text()
    md = run.summary_md.read_text()
    assert "## API vintage" in md
    assert "| m | 2022-01-01 |" in md
    html = run.report_html.read_text()
    assert "API vintage" in html and html.count("<svg") >= 1 and "<?xml" not in html


def test_no_dates_no_timeline(tmp_path: Path) -> None:
    run = make_run(tmp_path, dated=False)
    summary = write_reports(run)
    assert summary.timeline is None
    assert not (run.root / "timeline.json").exists()
    assert "API vintage" not in run.summary_md.read_text()
