"""The fan-out path: plan the jobs, merge what they produced, say what is new.

The reusable workflow (``.github/workflows/harness.yml``, which our nightly and other
repositories call) runs exactly these, so the whole path runs the same on one machine:

    harness plan --github --shards 2      # the job matrix, JSON for fromJSON
    harness run --combos C --shard 1/2    # one job: one shard of one combo
    harness merge artifacts/* --into results/<run-id>
    harness report results/<run-id> --history results/history.sqlite
    harness issue-text results/<run-id>   # only what is new since the last run
"""

from __future__ import annotations

import shutil
from contextlib import closing
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from harness import reports
from harness.analysis import upcoming
from harness.analysis.drift import natural_key
from harness.analysis.history import connect
from harness.analysis.summary import read as read_summary
from harness.analysis.trends import DEFAULT_NIGHTS
from harness.app import shards as shards_mod
from harness.audit import files
from harness.core import defaults
from harness.core.errors import HarnessError, UsageError
from harness.core.results import OutcomeWriter, read_outcomes, write_json
from harness.execute.rundir import RunDir, RunManifest
from harness.matrix import releases, spec
from harness.matrix.selection import select_combos
from harness.reports import audit as audit_report

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from harness.analysis.summary import Summary
    from harness.core.results import Outcome
    from harness.matrix.releases import ReleaseNews
    from harness.matrix.spec import Combo


GITHUB_JOB_LIMIT = 256  # jobs one matrix may hold


def plan(
    combos: Sequence[Combo],
    shards: int = 1,
    max_jobs: int = GITHUB_JOB_LIMIT,
    *,
    durations: Mapping[str, Mapping[str, float]] | None = None,
    problems: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """The job matrix: one job per (combo, shard), or groups of them above ``max_jobs``.

    Each job has a ``name`` (safe for artifact names) and ``runs``: space-separated
    ``combo:I/N`` items the job runs one after the other. With the ``durations`` earlier
    nights measured (combo → problem → seconds) and the ``problems`` each combo will
    split, each job also gets ``estimate_s``: the seconds its shards should take when
    split by ``harness run --shard-durations`` (the same split, :func:`shards.balanced`).
    """
    if shards < 1 or max_jobs < 1:
        raise UsageError("--shards and --max-jobs must be at least 1")
    runs = [f"{c.id}:{i}/{shards}" for c in combos for i in range(1, shards + 1)]
    if len(runs) <= max_jobs:
        jobs = [[r] for r in runs]
    else:
        jobs = [runs[i::max_jobs] for i in range(max_jobs)]
    estimate = _estimates(combos, shards, durations or {}, problems or {})
    include = []
    for n, job in enumerate(jobs):
        entry: dict[str, Any] = {
            "name": _name(job) if len(job) == 1 else f"group-{n + 1:03d}",
            "runs": " ".join(job),
        }
        if estimate:
            entry["estimate_s"] = round(sum(estimate.get(r, 0.0) for r in job), 1)
        include.append(entry)
    return {"include": include}


def _estimates(
    combos: Sequence[Combo],
    count: int,
    durations: Mapping[str, Mapping[str, float]],
    problems: Mapping[str, Sequence[str]],
) -> dict[str, float]:
    """``combo:I/N`` → the seconds that shard's problems took on earlier nights."""
    out = {}
    for combo in combos:
        measured = durations.get(combo.id, {})
        ids = problems.get(combo.id, ())
        if not measured or not ids:
            continue
        split = shards_mod.balanced([_Id(i) for i in ids], count, measured)
        for i, seconds in enumerate(shards_mod.loads(split, measured), start=1):
            out[f"{combo.id}:{i}/{count}"] = seconds
    return out


@dataclass(frozen=True)
class _Id:
    id: str


def _name(runs: Sequence[str]) -> str:
    combo, shard = runs[0].split(":")
    index, count = shard.split("/")
    return combo if count == "1" else f"{combo}-{index}of{count}"


def merge(sources: Sequence[Path], target: RunDir) -> dict[str, int]:
    """Fold the run directories the jobs produced into ``target``.

    Outcomes are combined per combo (an execution reported twice is kept once, the
    last one seen); environment records, locks and model answers are copied; the
    manifests' combos and inputs are joined. Returns outcomes per combo.
    """
    for source in sources:
        if not source.is_dir():
            raise UsageError(f"{source}: no such directory")
    manifest: RunManifest | None = None
    combined: dict[str, dict[tuple[str, str, str, int], Outcome]] = {}
    for source in sources:
        run = RunDir(source)
        part = run.read_manifest()
        if part is not None:
            # the first job's manifest speaks for the run; the combos are every job's
            first = manifest or part
            combos = tuple(dict.fromkeys([*first.combos, *part.combos]))
            manifest = replace(first, combos=combos)
        for combo in run.combos():
            outcomes, _ = read_outcomes(run.outcomes(combo))
            bucket = combined.setdefault(combo, {})
            for o in outcomes:
                bucket[o.key] = o
        for folder in ("envs", "answers"):
            src = source / folder
            if src.is_dir():
                shutil.copytree(src, target.root / folder, dirs_exist_ok=True)
    target.root.mkdir(parents=True, exist_ok=True)
    for combo, bucket in combined.items():
        target.outcomes(combo).unlink(missing_ok=True)
        ordered = sorted(
            bucket.values(), key=lambda o: (natural_key(o.problem_id), o.source, o.attempt)
        )
        with OutcomeWriter(target.outcomes(combo)) as writer:
            for seq, o in enumerate(ordered):
                writer.write(_renumbered(o, seq, target.run_id))
    merged = manifest or RunManifest(target.run_id)
    # the merged run is every shard of it
    inputs = replace(merged.inputs, shard=None)
    target.write_manifest(replace(merged, run_id=target.run_id, inputs=inputs))
    return {combo: len(bucket) for combo, bucket in combined.items()}


def _renumbered(o: Outcome, seq: int, run_id: str) -> Outcome:
    return replace(o, seq=seq, run_id=run_id)


def workflow_commands(summary: Summary, limit: int = 50) -> list[str]:
    """GitHub workflow commands that show the run's news on the workflow page: an error
    per new failure, a warning per drifted problem."""
    out = []
    for f in summary.changes.new_failures[:limit] if summary.changes else ():
        detail = f" — {f.error}" if f.error else ""
        out.append(
            _command(
                "error",
                f"New failure: {f.problem_id}",
                f"{f.combo} ({f.source}): {f.before} → {f.after}{detail}",
            )
        )
    for row in summary.drift[:limit]:
        found = row.finding
        bisected = (
            f"; first bad release {found.library} {found.first_bad}"
            if found and found.first_bad
            else ""
        )
        out.append(
            _command(
                "warning",
                f"{'Output-format drift' if row in summary.format_drift else 'Drift'}: "
                f"{row.problem_id}",
                f"{row.last_good} → {row.first_bad}: {row.error} ({row.cause}){bisected}",
            )
        )
    return out


def _command(kind: str, title: str, message: str) -> str:
    """``::kind title=...::message`` with GitHub's escaping of both parts."""

    def escape(text: str, extra: str = "") -> str:
        text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        for char, code in {":": "%3A", ",": "%2C"}.items():
            if char in extra:
                text = text.replace(char, code)
        return text

    return f"::{kind} title={escape(title, ':,')}::{escape(message)}"


def issue_text(summary: Summary, releases: ReleaseNews | None = None) -> str:
    """The body of the nightly issue: what will break next (references failing only in
    the nightly lanes) first, then only what is new since the last run and how the trends
    moved; "" when there is nothing to say."""
    changes = summary.changes
    failures = changes.new_failures if changes else ()
    warnings = changes.new_warnings if changes else ()
    new_releases = releases.new if releases else ()
    coming = summary.upcoming
    moved = trend_sentences(summary)
    if not (coming or failures or warnings or new_releases or moved):
        return ""
    lines = [f"## Nightly run `{summary.run_id}`", ""]
    if changes and changes.previous:
        lines += [f"Compared with `{changes.previous}`.", ""]
    if coming:
        lines += [f"### What will break next ({len(coming)})", ""]
        for group in upcoming.grouped(coming):
            lines.append(f"- {upcoming.sentence(group)}:")
            for b in group:
                warned = f"; today it already warns: {b.warning[:200]}" if b.warning else ""
                lines.append(f"  - `{b.problem_id}` — {b.error[:200]}{warned}")
        lines.append("")
    if failures:
        lines += [f"### New failures ({len(failures)})", ""]
        lines += [
            f"- `{f.combo}` `{f.problem_id}` ({f.source}): {f.before} → {f.after}"
            + (f" — {f.error}" if f.error else "")
            for f in sorted(failures, key=lambda f: (f.combo, natural_key(f.problem_id)))
        ]
        lines.append("")
    if moved:
        lines += ["### Trends since the previous night", "", *moved, ""]
    if warnings:
        lines += [f"### New deprecation warnings ({len(warnings)})", ""]
        lines += [
            f"- {w.library}: {w.message[:200]} ({len(w.problems)} executions)" for w in warnings
        ]
        lines.append("")
    if new_releases:
        lines += [f"### New releases ({len(new_releases)})", ""]
        lines += [
            f"- {r.package} {r.version}"
            + (" (pre-release)" if r.pre else "")
            + (f", {r.uploaded[:10]}" if r.uploaded else "")
            for r in new_releases
        ]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


_TREND_WORDS = {
    "stale": "stale rate",
    "pass": "pass rate",
    "holds": "references holding",
}


def trend_sentences(summary: Summary, threshold: float = 0.001) -> list[str]:
    """One line per series that moved between the last two nights, with the releases
    that moved in that combo between them (from the run's changes)."""
    found = summary.trends
    if found is None or len(found.nights) < 2:
        return []
    changes = summary.changes
    moved_in: dict[str, list[str]] = {}
    for r in changes.releases if changes else ():
        moved_in.setdefault(r.combo, []).append(f"{r.library} {r.before} → {r.after}")
    previous = found.nights[-2]
    out = []
    for s in found.series:
        before, after = s.values[-2], s.values[-1]
        if before is None or after is None or abs(after - before) < threshold:
            continue
        verb = "rose" if after > before else "fell"
        who = f"`{s.subject}`'s" if s.kind != "holds" else f"`{s.subject}`"
        why = f" ({'; '.join(moved_in[s.combo])})" if s.combo in moved_in else ""
        out.append(
            f"- {who} {_TREND_WORDS.get(s.kind, s.kind)} in `{s.combo}` {verb} from "
            f"{before:.1%} to {after:.1%} since `{previous}`{why}"
        )
    return out


def nights_of(run: RunDir) -> int:
    """How many nights the trends of ``run`` look back over: its matrix's
    ``[nightly].nights`` when the matrix can still be read, else the default."""
    manifest = run.read_manifest()
    try:
        if manifest is None or not manifest.matrix:
            return DEFAULT_NIGHTS
        return spec.load(manifest.matrix).nightly.nights
    except (HarnessError, OSError):
        return DEFAULT_NIGHTS


def job_matrix(
    matrix: str,
    *,
    combos: Sequence[str] = (),
    keyword: str | None = None,
    tag: Sequence[str] = (),
    nightly: bool = False,
    shards: int | None = None,
    max_jobs: int = GITHUB_JOB_LIMIT,
    history: Path | None = None,
    write_durations: Path | None = None,
) -> dict[str, Any]:
    """``harness plan`` (its options by name): the CI job matrix (:func:`plan`) of the
    combos of ``matrix`` chosen as ``harness run`` chooses them, ``shards`` jobs per combo
    (default:
    ``[nightly].shards`` with ``nightly``, else 1), balanced by the durations ``history``
    recorded (none on the first night), which are also written to ``write_durations`` for
    the jobs to split their problems by."""
    spec_, chosen = select_combos(matrix, combos, keyword, tag, nightly=nightly)
    count = shards or (spec_.nightly.shards if nightly else 1)
    durations: shards_mod.Durations = {}
    if history is not None and history.is_file():
        with closing(connect(history)) as db:
            durations = shards_mod.from_history(db)
    if write_durations is not None:
        shards_mod.write(write_durations, durations)
    problems: dict[str, list[str]] = {}
    if durations and count > 1:
        # what the jobs will split: the problems each combo ran most recently
        problems = {c.id: list(durations.get(c.id, {})) for c in chosen}
    return plan(chosen, count, max_jobs, durations=durations, problems=problems)


def merge_and_report(sources: Sequence[Path], target: RunDir) -> dict[str, int]:
    """``harness merge``: :func:`merge`, then the merged run's reports."""
    counts = merge(sources, target)
    reports.write_reports(target)
    return counts


def _summary_of(run: RunDir) -> Summary:
    found = read_summary(run)
    if found is None:
        raise UsageError(f"{run.root}: no summary.json (run harness report first)")
    return found


def issue_text_of(
    run: RunDir,
    releases: Path | None = None,
    audit: Path | None = None,
    audit_before: Path | None = None,
) -> str:
    """``harness issue-text``: :func:`issue_text` of the run's summary, with the release
    news ``releases`` (default: the run's own ``releases.json``); with ``audit`` (an
    audit's audit.json), the problems newly flagged since ``audit_before`` (an earlier
    one, if there is one) after it."""
    text = issue_text(_summary_of(run), run.read_releases(releases))
    if audit is None:
        return text
    before = files.flagged(audit_before) if audit_before and audit_before.is_file() else None
    section = audit_report.news(files.flagged(audit), before)
    if not section:
        return text
    head = [] if text else [f"## Nightly run `{run.run_id}`", ""]
    return "\n".join([*([text.rstrip("\n"), ""] if text else head), *section])


def annotations_of(run: RunDir) -> list[str]:
    """``harness annotations``: :func:`workflow_commands` of the run's summary."""
    return workflow_commands(_summary_of(run))


def release_news(matrix: str, history: Path, write: Path | None = None) -> list[str]:
    """``harness releases``: what the index published for the matrix's libraries since
    the last check recorded in ``history``, written as JSON to ``write`` when given."""
    with closing(connect(history)) as db:
        news = releases.check(spec.load(defaults.matrix(matrix)), db)
    if write is not None:
        write_json(write, news.to_dict())
    return releases.markdown(news)
