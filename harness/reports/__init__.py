"""Writers of a run's reports, all fed from the same :class:`Summary`."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness import staleness
from harness.envs import EnvInfo
from harness.problems import MODEL_PREFIX, Solution
from harness.reports import exports, html, junit, markdown
from harness.reports.summary import Summary, summarise
from harness.results import Outcome, write_json

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
    models = model_reports(run, summary, outcomes, manifest)
    found = run.root / "releases.json"
    release_data = json.loads(found.read_text(encoding="utf-8")) if found.is_file() else {}
    summary = replace(summary, models=models, releases=release_data)
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
    run.report_html.write_text(html.render(summary, outcomes, models), encoding="utf-8")
    exports.write(run, outcomes)
    return summary


def model_reports(
    run: RunDir, summary: Summary, outcomes: list[Outcome], manifest: dict[str, Any]
) -> list[dict[str, Any]]:
    """Staleness and per-library pass rates of every model in the run."""
    if not any(s.startswith(MODEL_PREFIX) for s in summary.sources):
        return []
    catalogue = staleness.load_catalogue()
    for extra in manifest.get("inputs", {}).get("catalogues", []):
        catalogue += staleness.load_catalogue(Path(extra))
    solutions = load_answers(run)
    measured = staleness.measure(
        outcomes, summary.trajectories, summary.order, solutions, catalogue
    )
    out = []
    for m in measured:
        source = MODEL_PREFIX + m.model
        per_library = {c: staleness.per_library(outcomes, source, c) for c in summary.order}
        out.append({**m.to_dict(), "per_library": per_library})
    return out


def load_answers(run: RunDir) -> list[Solution]:
    """The model answers a run executed, as it saved them."""
    solutions = []
    for path in sorted(run.answers_dir.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            solutions.append(Solution(row["problem_id"], MODEL_PREFIX + path.stem, row["code"]))
    return solutions
