"""Writers of a run's reports, all fed from the same :class:`Summary`."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from harness.analysis import ranges, staleness
from harness.analysis import repairs as repair_table
from harness.analysis.history import Changes
from harness.analysis.idioms import ChangeNote, notes_of
from harness.analysis.summary import ModelReport, Summary, summarise
from harness.analysis.trends import Trends
from harness.analysis.vintage import build_timeline
from harness.core.errors import HarnessError
from harness.core.problem import MODEL_PREFIX
from harness.core.results import Outcome, write_json
from harness.envs.build import EnvInfo
from harness.problems import downloads
from harness.problems import sets as problemsets
from harness.reports import exports, html, junit, markdown, timeline, trend_chart
from harness.reports import reach as reach_report

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.core.problem import Problem
    from harness.execute.rundir import RunDir, RunManifest

__all__ = ["Summary", "write_reports"]


def write_reports(
    run: RunDir,
    changes: Changes | None = None,
    problems: Sequence[Problem] | None = None,
    night_trends: Trends | None = None,
) -> Summary:
    """(Re)write every report of ``run`` from its results files.

    ``changes`` (since the previous run, from the history) are kept in summary.json,
    so a later rewrite without them keeps them. So are the change notes of the run's
    ``problems`` (what each problem of ours says about its API change); without either,
    they are read from the run's local problem locations.
    """
    manifest = run.read_manifest()
    combos = run.known_combos(manifest)
    outcomes = run.read_all()
    envs = run.read_envs(combos)
    baseline = (manifest.baseline if manifest else None) or (combos[0] if combos else "")
    if changes is None:
        changes = _kept_changes(run)
    if night_trends is None:
        night_trends = _kept_trends(run)
    notes = notes_of(problems) if problems is not None else _kept_notes(run, manifest)
    summary = summarise(
        run.run_id, baseline, combos, envs, outcomes, run.read_analysis(), changes, notes
    )
    summary = replace(
        summary,
        models=model_reports(run, summary, outcomes),
        releases=run.read_releases(),
        repairs=repair_table.read(run.verification_json),
    )
    dated = build_timeline(outcomes, envs)
    if dated is not None:
        svg = timeline.figure_svg(dated, run.timeline(".png"), run.timeline(".svg"))
        write_json(run.timeline(".json"), dated.to_dict())
        summary = replace(summary, timeline=dated, timeline_svg=svg)
    found = ranges.read(run.reach_json)
    if found:
        summary = replace(summary, reach=found, reach_svg=reach_report.figure_svg(found))
    if night_trends is not None:
        summary = replace(
            summary, trends=night_trends, trends_svg=trend_chart.figure_svg(night_trends)
        )
    by_combo: dict[str, list[Outcome]] = {c: [] for c in combos}
    for o in outcomes:
        by_combo.setdefault(o.combo, []).append(o)
    suites = [
        junit.suite(c, envs.get(c, EnvInfo(c, ok=False, stage="missing")), by_combo[c])
        for c in combos
    ]
    junit.write(suites, {c: run.junit(c) for c in combos}, run.merged_junit)
    write_json(run.summary_json, summary.to_dict())
    write_json(run.validity_json, [v.to_dict() for v in summary.validity])
    # a program's output may hold lone surrogates (undecodable bytes): written as escapes
    run.summary_md.write_text(markdown.render(summary), "utf-8", "backslashreplace")
    run.report_html.write_text(html.render(summary, outcomes), "utf-8", "backslashreplace")
    exports.write(run, outcomes)
    return summary


def _kept_trends(run: RunDir) -> Trends | None:
    """The trends the run's last summary.json kept, if any."""
    summary = run.read_summary()
    kept = summary.get("trends") if summary else None
    return Trends.from_dict(kept) if kept else None


def _kept_changes(run: RunDir) -> Changes | None:
    """The changes the run's last summary.json kept, if any."""
    summary = run.read_summary()
    kept = summary.get("changes") if summary else None
    return Changes.from_dict(kept) if kept else None


def _kept_notes(run: RunDir, manifest: RunManifest | None) -> list[ChangeNote]:
    """The change notes the run's last summary.json kept, or else those of the problems at
    its local locations (directories and TOML files; downloads are not fetched again)."""
    summary = run.read_summary()
    kept = summary.get("notes") if summary else None
    if isinstance(kept, list):
        return [
            ChangeNote.from_dict(n)
            for n in kept
            if isinstance(n, dict) and {"problem_id", "library"} <= n.keys()
        ]
    locations = manifest.inputs.problems if manifest else ()
    paths = [
        Path(loc)
        for loc in locations
        if not downloads.is_url(loc) and (Path(loc).is_dir() or Path(loc).suffix == ".toml")
    ]
    if not paths:
        return []
    with contextlib.suppress(HarnessError, OSError):
        return notes_of(problemsets.load_problems(paths))
    return []


def model_reports(run: RunDir, summary: Summary, outcomes: list[Outcome]) -> list[ModelReport]:
    """Staleness and per-library pass rates of every model in the run."""
    if not any(s.startswith(MODEL_PREFIX) for s in summary.sources):
        return []
    measured = staleness.measure(
        outcomes,
        summary.trajectories,
        summary.order,
        run.read_answers(),
        staleness.load_catalogue(),
    )
    return [
        ModelReport(
            m,
            {c: staleness.per_library(outcomes, MODEL_PREFIX + m.model, c) for c in summary.order},
        )
        for m in measured
    ]
