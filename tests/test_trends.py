"""Trends across nights, and what will break next, from recorded runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness import reports
from harness.analysis import history, upcoming
from harness.analysis.summary import Summary
from harness.analysis.summary import read as read_summary
from harness.app import nightly
from harness.core.results import CapturedWarning, Outcome, OutcomeWriter, Status
from harness.envs.build import EnvInfo
from harness.execute.rundir import RunDir, RunManifest

if TYPE_CHECKING:
    from pathlib import Path

VERSIONS = {"old": "1.26.4", "latest": "2.0.0", "pre": "2.1.0rc1"}
REMOVED = ("AttributeError", "module 'numpy' has no attribute 'product'")
WARNING = CapturedWarning("DeprecationWarning", "`product` is deprecated", "numpy.core.fromnumeric")


def night(root: Path, run_id: str, pre_breaks: bool, model_fixed: bool) -> RunDir:
    """One night: references and a model's answers in two released combos and a lane."""
    run = RunDir(root / run_id)
    run.root.mkdir(parents=True)
    run.write_manifest(
        RunManifest(run_id, started=f"2026-11-0{run_id[-1]}T03:00:00+00:00", combos=tuple(VERSIONS))
    )
    for combo, version in VERSIONS.items():
        lane = "pre-release" if combo == "pre" else ""
        versions = {"numpy": version}
        run.write_env(combo, EnvInfo(combo, ok=True, python="3.11.9", versions=versions, lane=lane))

    def o(
        combo: str,
        problem: str,
        source: str,
        status: Status,
        error: tuple[str, str] | None = None,
        warned: bool = False,
    ) -> Outcome:
        exc, message = error or (None, "")
        return Outcome(
            run_id,
            combo,
            problem,
            source,
            status,
            library="numpy",
            exc_type=exc,
            message=message,
            warnings=(WARNING,) if warned else (),
            versions={"numpy": VERSIONS[combo]},
            duration_s=1.0,
        )

    for combo in VERSIONS:
        rows = [
            o(combo, "p/2", "reference", Status.PASS),
            o(combo, "p/3", "reference", Status.PASS),
            o(combo, "p/3", "model:m", Status.FAIL, ("AssertionError", "wrong")),
        ]
        broken = combo == "pre" and pre_breaks
        rows.append(
            o(combo, "p/1", "reference", Status.ERROR, REMOVED)
            if broken
            else o(combo, "p/1", "reference", Status.PASS, warned=combo == "latest")
        )
        rows.append(
            o(combo, "p/1", "model:m", Status.PASS)
            if not broken
            else o(combo, "p/1", "model:m", Status.ERROR, REMOVED)
        )
        stale = combo != "old" and not model_fixed
        rows.append(
            o(combo, "p/2", "model:m", Status.ERROR, REMOVED)
            if stale
            else o(combo, "p/2", "model:m", Status.PASS)
        )
        with OutcomeWriter(run.outcomes(combo)) as writer:
            for row in rows:
                writer.write(row)
    return run


def test_three_nights_of_trends_and_the_breakage_before_it_ships(tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite"
    for run_id, pre_breaks, fixed in (
        ("night1", False, False),
        ("night2", True, False),
        ("night3", True, True),
    ):
        run = night(tmp_path, run_id, pre_breaks, fixed)
        reports.write_reports(run)
        changes, trends = history.record_night(run, db)
        summary = reports.write_reports(run, changes, night_trends=trends)
    assert trends is not None and summary.trends == trends
    assert trends.nights == ("night1", "night2", "night3")
    table = {(s.kind, s.subject, s.combo): s.values for s in trends.series}
    assert table[("holds", "p", "latest")] == (1.0, 1.0, 1.0)
    assert table[("holds", "p", "pre")] == (1.0, 2 / 3, 2 / 3)
    assert table[("pass", "m", "latest")] == (1 / 3, 1 / 3, 2 / 3)
    # stale in latest: of p/1 and p/2 (both passed in old, both hold in latest), p/2 fails
    assert table[("stale", "m", "latest")] == (0.5, 0.5, 0.0)
    # in pre from night 2, p/1's reference fails too: not the model's fault, not counted
    assert table[("stale", "m", "pre")] == (0.5, 1.0, 0.0)
    assert [(f.combo, f.problem_id, f.night, f.started[:10]) for f in trends.first_seen] == [
        ("pre", "p/1", "night2", "2026-11-02")
    ]
    (breakage,) = summary.upcoming
    assert breakage == upcoming.Breakage(
        lane="pre",
        kind="pre-release",
        library="numpy",
        version="2.1.0rc1",
        current="latest",
        current_version="2.0.0",
        problem_id="p/1",
        error="AttributeError: module 'numpy' has no attribute 'product'",
        warning="DeprecationWarning: `product` is deprecated",
    )
    kept = read_summary(run)  # as harness issue-text reads it back
    assert kept == summary
    text = nightly.issue_text(kept)
    assert text.startswith(
        "## Nightly run `night3`\n\nCompared with `night2`.\n\n### What will break next (1)\n\n"
        "- numpy 2.1.0rc1 (`pre`, pre-release) breaks 1 problem that passes on 2.0.0 (`latest`):\n"
        "  - `p/1` — AttributeError: module 'numpy' has no attribute 'product'; "
        "today it already warns: DeprecationWarning: `product` is deprecated\n"
    )
    assert "### Trends since the previous night\n\n" in text
    assert "- `m`'s stale rate in `latest` fell from 50.0% to 0.0% since `night2`" in text
    assert "- `m`'s pass rate in `latest` rose from 33.3% to 66.7% since `night2`" in text
    md = run.summary_md.read_text()
    assert "## What will break next: references that fail only in the nightly lanes" in md
    assert "## Trends over the last 3 nights" in md
    assert "| p · references holding · pre | 100.0% | 66.7% | 66.7% |" in md
    assert "| `pre` | `p/1` | `night2` 2026-11-02 |" in md
    page = run.report_html.read_text()
    assert "<h2>Trends over the last 3 nights</h2>" in page and '<div class="trends"><svg' in page
    # a rewrite without the history keeps the trends summary.json holds
    again = reports.write_reports(run)
    assert again.trends == trends


def test_nothing_to_say_without_lanes_news_or_movement() -> None:
    one_night = {"run_id": "r", "trends": {"nights": ["r"], "series": []}}
    assert nightly.issue_text(Summary.from_dict(one_night)) == ""
