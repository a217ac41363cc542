"""Writers of a run's reports, all fed from the same :class:`Summary`."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from harness.analysis import ranges, staleness
from harness.analysis import repairs as repair_table
from harness.analysis.idioms import notes_of
from harness.analysis.summary import Summary, summarise, unsandboxed_answers, with_reach
from harness.analysis.summary import read as summary_of
from harness.analysis.vintage import build_timeline
from harness.audit.files import AuditFiles
from harness.core.errors import HarnessError
from harness.core.results import write_json
from harness.envs.build import EnvInfo
from harness.execute import expected as derived_outputs
from harness.problems import downloads
from harness.problems import sets as problemsets
from harness.reports import deprecations as deprecations_report
from harness.reports import exports, html, junit, markdown, timeline, trend_chart
from harness.reports import knowledge as knowledge_report
from harness.reports import reach as reach_report

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from harness.analysis.changes import Changes
    from harness.analysis.idioms import ChangeNote
    from harness.analysis.trends import Trends
    from harness.core.problem import Problem
    from harness.core.results import Outcome
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
    so a later rewrite without them keeps them; so are the ``night_trends``. So are the
    change notes of the run's ``problems`` (what each problem of ours says about its API
    change); without either, they are read from the run's local problem locations.
    """
    manifest = run.read_manifest()
    combos = run.known_combos(manifest)
    outcomes = run.read_all()
    envs = run.read_envs(combos)
    baseline = (manifest.baseline if manifest else None) or (combos[0] if combos else "")
    kept = summary_of(run)
    answers = run.read_answers()
    summary = summarise(
        run.run_id,
        baseline,
        combos,
        envs,
        outcomes,
        run.read_analysis(),
        changes or (kept.changes if kept else None),
        notes_of(problems) if problems is not None else _kept_notes(manifest, kept),
        answers,
        staleness.load_catalogue() if answers else (),
    )
    summary = replace(
        summary,
        releases=run.read_releases(),
        repairs=repair_table.read(run.verification_json),
        timeline=build_timeline(outcomes, envs),
        trends=night_trends or (kept.trends if kept else None),
        expected=derived_outputs.described(run.expected()),
        unsandboxed=unsandboxed_answers(outcomes, run.read_sandbox(combos)),
    )
    summary = with_reach(summary, ranges.read(run.reach_json))
    _write_junit(run, combos, envs, outcomes)
    write_json(run.summary_json, summary.to_dict())
    write_json(run.validity_json, [v.to_dict() for v in summary.validity])
    if summary.apis:
        write_json(run.deprecations_json, [m.to_dict() for m in summary.apis])
    # a program's output may hold lone surrogates (undecodable bytes): written as escapes
    run.summary_md.write_text(markdown.render(summary), "utf-8", "backslashreplace")
    page = html.render(summary, outcomes, _charts(run, summary), AuditFiles(run).cells())
    run.report_html.write_text(page, "utf-8", "backslashreplace")
    exports.write(run, outcomes)
    return summary


def _charts(run: RunDir, summary: Summary) -> html.Charts:
    """The pictures report.html shows; the timeline's also written beside it (PNG, SVG
    and its numbers)."""
    timeline_svg = ""
    if summary.timeline is not None:
        timeline_svg = timeline.figure_svg(
            summary.timeline, run.timeline(".png"), run.timeline(".svg")
        )
        write_json(run.timeline(".json"), summary.timeline.to_dict())
    return html.Charts(
        timeline=timeline_svg,
        trends=trend_chart.figure_svg(summary.trends) if summary.trends is not None else "",
        reach=reach_report.figure_svg(summary.reach) if summary.reach else "",
        knowledge=knowledge_report.figure_svg(summary.knowledge) if summary.knowledge else "",
        apis=deprecations_report.figure_svg(summary.apis) if summary.apis else "",
    )


def _write_junit(
    run: RunDir, combos: Sequence[str], envs: Mapping[str, EnvInfo], outcomes: Sequence[Outcome]
) -> None:
    by_combo: dict[str, list[Outcome]] = {c: [] for c in combos}
    for o in outcomes:
        by_combo.setdefault(o.combo, []).append(o)
    suites = [
        junit.suite(c, envs.get(c, EnvInfo(c, ok=False, stage="missing")), by_combo[c])
        for c in combos
    ]
    junit.write(suites, {c: run.junit(c) for c in combos}, run.merged_junit)


def _kept_notes(manifest: RunManifest | None, kept: Summary | None) -> list[ChangeNote]:
    """The change notes the run's last summary kept, or else those of the problems at
    its local locations (directories and TOML files; downloads are not fetched again)."""
    if kept is not None and kept.notes:
        return list(kept.notes)
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
