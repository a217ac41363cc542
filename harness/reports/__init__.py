"""Writers of a run's reports, all fed from the same :class:`Summary`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from harness.envs import EnvInfo
from harness.reports import junit, markdown
from harness.reports.summary import Summary, summarise
from harness.results import write_json

if TYPE_CHECKING:
    from harness.results import RunDir

__all__ = ["Summary", "load_manifest", "write_reports"]


def load_manifest(run: RunDir) -> dict[str, Any]:
    if run.manifest.is_file():
        data: dict[str, Any] = json.loads(run.manifest.read_text(encoding="utf-8"))
        return data
    return {}


def load_envs(run: RunDir, combos: list[str]) -> dict[str, EnvInfo]:
    envs = {}
    for combo in combos:
        path = run.env_info(combo)
        if path.is_file():
            envs[combo] = EnvInfo.from_dict(json.loads(path.read_text(encoding="utf-8")))
    return envs


def write_reports(run: RunDir, changes: dict[str, Any] | None = None) -> Summary:
    """(Re)write every report of ``run`` from its results files.

    ``changes`` (since the previous run, from the history) are kept in summary.json,
    so a later rewrite without them keeps them.
    """
    manifest = load_manifest(run)
    combos = list(manifest.get("combos", []))
    combos += [c for c in run.combos() if c not in combos]
    outcomes = run.read_all()
    envs = load_envs(run, combos)
    baseline = str(manifest.get("baseline") or (combos[0] if combos else ""))
    analysis = {}
    if run.analysis.is_file():
        for finding in json.loads(run.analysis.read_text(encoding="utf-8")):
            analysis[(finding["problem_id"], finding["source"])] = finding
    if changes is None and run.summary_json.is_file():
        changes = json.loads(run.summary_json.read_text(encoding="utf-8")).get("changes")
    summary = summarise(run.run_id, baseline, combos, envs, outcomes, analysis, changes)
    by_combo: dict[str, list[Any]] = {c: [] for c in combos}
    for o in outcomes:
        by_combo.setdefault(o.combo, []).append(o)
    suites = [
        junit.suite(c, envs.get(c, EnvInfo(c, ok=False, stage="missing")), by_combo[c])
        for c in combos
    ]
    junit.write(suites, {c: run.junit(c) for c in combos}, run.merged_junit)
    write_json(run.summary_json, summary.to_dict())
    run.summary_md.write_text(markdown.render(summary), encoding="utf-8")
    return summary
