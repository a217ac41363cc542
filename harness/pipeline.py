"""The main job: for each combo, build its env, run its executions, then write the reports.

One combo's failure never stops the next: an env that cannot be built becomes
``env_error`` outcomes, and whatever a run finished is on disk before it moves on.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness import bisection, history, reports, workspace
from harness.envs import EnvBuilder
from harness.problems import MODEL_PREFIX
from harness.results import SCHEMA_VERSION, OutcomeWriter, RunDir, repair_outcomes, write_json
from harness.runner import ComboRun, Execution, RunOptions, pair
from harness.versions import Index

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from harness.problems import Problem, Solution
    from harness.progress import Reporter
    from harness.reports.summary import Summary
    from harness.spec import Combo, MatrixSpec


@dataclass(frozen=True)
class Job:
    spec: MatrixSpec
    combos: Sequence[Combo]
    problems: Sequence[Problem]
    solutions: Sequence[Solution]
    run_dir: RunDir
    env_root: Path
    options: RunOptions = field(default_factory=RunOptions)
    inputs: Mapping[str, Any] = field(default_factory=dict)
    bisect: bool = False  # attribute and bisect every drifted problem after the run
    history: Path | None = None  # SQLite history to record the run in, and diff against
    # continue an interrupted run: keep the outcomes on disk, run only what is missing
    resume: bool = False


def _write_manifest(job: Job) -> None:
    path = job.run_dir.manifest
    previous: dict[str, Any] = {}
    if path.is_file():
        previous = json.loads(path.read_text(encoding="utf-8"))
    combos = list(previous.get("combos", []))
    combos += [c.id for c in job.combos if c.id not in combos]
    write_json(
        path,
        {
            **previous,
            "schema": SCHEMA_VERSION,
            "run_id": job.run_dir.run_id,
            "started": previous.get("started") or dt.datetime.now(dt.timezone.utc).isoformat(),
            "finished": None,  # set when the run completes: a run without it can be resumed
            "matrix": str(job.spec.path),
            "baseline": job.spec.baseline,
            "combos": combos,
            "inputs": {**previous.get("inputs", {}), **job.inputs},
            "options": {
                "jobs": job.options.jobs,
                "timeout": job.options.timeout,
                "memory_mb": job.options.memory_mb,
            },
        },
    )


def _save_answers(job: Job) -> None:
    """Keep the model answers with the run: reports count the old APIs they use."""
    by_model: dict[str, list[str]] = {}
    for s in job.solutions:
        if s.source.startswith(MODEL_PREFIX):
            line = json.dumps({"problem_id": s.problem_id, "code": s.code})
            by_model.setdefault(s.source.removeprefix(MODEL_PREFIX), []).append(line)
    for model, lines in by_model.items():
        path = job.run_dir.answers_dir / f"{model}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _warn_unsandboxed(job: Job, combo: str, executor: dict[str, Any], reporter: Reporter) -> None:
    """Model answers are untrusted: say so when they ran without the sandbox."""
    state = executor.get("sandbox", "on")
    if state != "on" and any(s.source.startswith(MODEL_PREFIX) for s in job.solutions):
        reporter.log(f"{combo}: warning: model answers ran without the sandbox ({state})")


def run(job: Job, reporter: Reporter) -> Summary:
    """Run the job; one run at a time per results directory, checked writable first."""
    results = job.run_dir.root.parent
    workspace.check_writable(results)
    with workspace.exclusive(results, f"run {job.run_dir.run_id}"):
        return _run(job, reporter)


def _todo(
    job: Job, combo: str, executions: Sequence[Execution], reporter: Reporter
) -> list[tuple[int, Execution]]:
    """The executions (with their sequence numbers) still to run for ``combo``."""
    path = job.run_dir.outcomes(combo)
    if not job.resume:
        # A combo rerun under the same run id replaces its earlier outcomes.
        path.unlink(missing_ok=True)
        return list(enumerate(executions))
    done, dropped = repair_outcomes(path)
    if dropped:
        reporter.log(f"{combo}: dropped {dropped} unreadable line(s) of {path.name} (cut off)")
    keys = {(o.problem_id, o.source, o.attempt) for o in done}
    return [
        (seq, e)
        for seq, e in enumerate(executions)
        if (e.problem.id, e.solution.source, e.attempt) not in keys
    ]


def _run(job: Job, reporter: Reporter) -> Summary:
    job.run_dir.root.mkdir(parents=True, exist_ok=True)
    _write_manifest(job)
    _save_answers(job)
    builder = EnvBuilder(job.env_root, Index(job.spec.index_url), log=reporter.log)
    executions = pair(job.problems, job.solutions, job.options.repeat)
    for combo in job.combos:
        todo = _todo(job, combo.id, executions, reporter)
        if not todo:
            reporter.log(f"{combo.id}: all {len(executions)} outcomes already recorded")
            continue
        reporter.log(f"{combo.id}: preparing environment (Python {combo.python})")
        lock_file = job.run_dir.lock(combo.id)
        # a resumed combo runs in the very env its first part ran in
        resumed_lock = (
            lock_file.read_text(encoding="utf-8") if job.resume and lock_file.is_file() else ""
        )
        info, lock = builder.build(combo, resumed_lock)
        if lock:
            lock_file.parent.mkdir(parents=True, exist_ok=True)
            lock_file.write_text(lock, encoding="utf-8")
        write_json(job.run_dir.env_info(combo.id), info.to_dict())
        reporter.env_ready(info)
        reporter.combo_started(combo.id, len(todo))
        with OutcomeWriter(job.run_dir.outcomes(combo.id)) as writer:
            combo_run = ComboRun(job.run_dir.run_id, info, writer, job.options, reporter.outcome)
            combo_run.run([e for _, e in todo], [seq for seq, _ in todo])
        if combo_run.executor:
            write_json(job.run_dir.executor_info(combo.id), combo_run.executor)
            _warn_unsandboxed(job, combo.id, combo_run.executor, reporter)
    summary = reports.write_reports(job.run_dir)
    if job.bisect and summary.drift:
        analyse(job, summary, builder, reporter)
        summary = reports.write_reports(job.run_dir)
    if job.history is not None:
        changes = history.record_and_diff(job.run_dir, job.history)
        if changes:
            summary = reports.write_reports(job.run_dir, changes)
    _mark_finished(job)
    return summary


def _mark_finished(job: Job) -> None:
    manifest = json.loads(job.run_dir.manifest.read_text(encoding="utf-8"))
    manifest["finished"] = dt.datetime.now(dt.timezone.utc).isoformat()
    write_json(job.run_dir.manifest, manifest)


def analyse_existing(job: Job, reporter: Reporter) -> Summary:
    """Attribute and bisect the drift of a finished run, then rewrite its reports."""
    summary = reports.write_reports(job.run_dir)
    builder = EnvBuilder(job.env_root, Index(job.spec.index_url), log=reporter.log)
    analyse(job, summary, builder, reporter)
    return reports.write_reports(job.run_dir)


def analyse(job: Job, summary: Summary, builder: EnvBuilder, reporter: Reporter) -> None:
    """Find the responsible library and its first bad release for every drifted problem."""
    problems = {p.id: p for p in job.problems}
    solutions = {(s.problem_id, s.source): s for s in job.solutions}
    envs = reports.load_envs(job.run_dir, [c.id for c in summary.combos if c.env.ok])
    drifts = []
    for t in summary.drift:
        solution = solutions.get((t.problem_id, t.source))
        if solution and t.last_good in envs and t.first_bad in envs:
            named = t.diagnosis.library if t.diagnosis else ""
            drifts.append(
                (Execution(problems[t.problem_id], solution), t.last_good, t.first_bad, named)
            )
    reporter.log(f"bisect: investigating {len(drifts)} drifted problems")
    lab = bisection.Lab(builder, job.options, log=reporter.log)
    findings = bisection.analyse_drift(lab, drifts, envs, bisection.release_lister(builder.index))
    write_json(job.run_dir.analysis, [f.to_dict() for f in findings])
    reporter.log(
        f"bisect: {sum(1 for f in findings if f.first_bad)} first bad releases found "
        f"in {len(lab.envs_built)} environments"
    )
