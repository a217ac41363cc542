"""``harness run``: plan a request, execute the job, then report on it, bisect its drift
(``--bisect``), repair it (``--repair``) and record it in the history.

:func:`run_request` is the whole command: :func:`harness.app.plan.plan` turns a request
into a :class:`~harness.execute.job.Job`; :func:`run` executes it
(``harness.execute.job``), writes the reports, and, when asked, attributes and bisects
every drifted problem (``harness.app.bisect``) and records the run in the SQLite history;
``harness.app.repair`` repairs what drifted. One combo's failure never stops the next,
and whatever a run finished is on disk before it moves on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness import reports
from harness.analysis import agreement, history
from harness.app import plan
from harness.app.bisect import analyse
from harness.app.nightly import nights_of
from harness.core.errors import UsageError
from harness.core.results import write_json
from harness.envs import workspace
from harness.envs.build import EnvBuilder
from harness.execute.job import execute, mark_finished, require_sandbox
from harness.execute.progress import reporter
from harness.execute.rundir import resume as resumed
from harness.matrix.package_index import Index
from harness.problems import verdicts
from harness.problems.answers import answers_file, model_name
from harness.reports import agreement as agreement_report

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from harness.analysis.agreement import Agreement
    from harness.analysis.summary import Summary
    from harness.app.repair import Repaired
    from harness.execute.job import Job
    from harness.execute.progress import Reporter
    from harness.execute.rundir import RunDir, RunRequest


@dataclass(frozen=True)
class Ran:
    """What ``harness run`` did: the run's summary and where it is, and what came of its
    repairs (``--repair``)."""

    summary: Summary
    summary_md: Path
    repaired: Repaired | None = None

    def lines(self) -> list[str]:
        """What ``harness run`` prints."""
        return [*(self.repaired.lines() if self.repaired else ()), str(self.summary_md)]


def run_request(
    request: RunRequest,
    *,
    results: Path,
    run_id: str | None,
    env_root: Path,
    jobs: int,
    burst_jobs: int | None = None,
    resume: bool = False,
    history: Path | None = None,
    repair: bool = False,
    quiet: bool = False,
    log: Callable[[str], None] = lambda _m: None,
) -> Ran:
    """``harness run``: plan ``request`` (or, with ``resume``, the run ``run_id`` names, or
    the latest unfinished one, with the inputs it was started with), :func:`run` it with
    progress shown unless ``quiet``, then repair its drift when asked. ``log`` says what
    planning found, whatever ``quiet`` says."""
    if resume:
        run_id, request = resumed(results, run_id)
        log(f"resuming run {run_id}")
    job = plan.plan(
        request,
        results=results,
        env_root=env_root,
        run_id=run_id,
        jobs=jobs,
        burst_jobs=burst_jobs,
        resume=resume,
        log=log,
    )
    with reporter(quiet) as progress:
        summary = run(
            job,
            progress,
            bisect=request.bisect,
            history=history,
            compare_upstream=request.compare_upstream,
        )
        repaired = None
        if repair:
            # LibCST takes half a second to load: only a run that repairs pays it
            from harness.app.repair import repair as repair_run  # noqa: PLC0415

            repaired = repair_run(job.run_dir.root, env_root=env_root, reporter=progress, jobs=jobs)
    return Ran(summary, job.run_dir.summary_md, repaired)


def run(
    job: Job,
    reporter: Reporter,
    *,
    bisect: bool = False,
    history: Path | None = None,
    compare_upstream: bool = False,
) -> Summary:
    """Run the job, then write its reports; with ``bisect``, attribute and bisect every
    drifted problem; with ``history``, record the run in that SQLite history and diff it
    against the last one; with ``compare_upstream``, set each model's verdicts beside the
    ones upstream wrote next to its answers (``agreement.md``). One run at a time per
    results directory, checked writable first. A job with model answers does not start
    where they could not run in the sandbox, unless it allows them out of it."""
    asked = require_sandbox(job)
    if asked is not None and asked.error:
        reporter.log(
            f"could not ask the env side whether it can sandbox model answers ({asked.error});"
            " each combo's refuses those it cannot sandbox"
        )
    results = job.run_dir.root.parent
    workspace.check_writable(results)
    with workspace.exclusive(results, f"run {job.run_dir.run_id}"):
        summary = _run(job, reporter, bisect, history)
        if compare_upstream:
            compare_with_upstream(job, reporter)
        return summary


def _run(job: Job, reporter: Reporter, bisect: bool, history_path: Path | None) -> Summary:
    builder = EnvBuilder(job.env_root, Index(job.spec.index_url), log=reporter.log)
    execute(job, builder, reporter)
    summary = reports.write_reports(job.run_dir, problems=job.problems)
    if bisect and summary.drift:
        analyse(job, summary, builder, reporter)
        summary = reports.write_reports(job.run_dir, problems=job.problems)
    if history_path is not None:
        changes, night = history.record_night(job.run_dir, history_path, job.spec.nightly.nights)
        if changes or night:
            summary = reports.write_reports(job.run_dir, changes, job.problems, night)
    mark_finished(job)
    return summary


def report(run: RunDir, history_path: Path | None = None) -> Path:
    """``harness report``: rewrite the reports of ``run`` from its files; with
    ``history_path``, record it in that history first and diff it against the last run.
    Returns the path of its summary.md."""
    if not run.root.is_dir():
        raise UsageError(f"{run.root}: no such results directory")
    changes, night = None, None
    if history_path is not None:
        changes, night = history.record_night(run, history_path, nights_of(run))
    reports.write_reports(run, changes, night_trends=night)
    return run.summary_md


def compare_with_upstream(job: Job, reporter: Reporter) -> list[Agreement]:
    """Each answers file's verdicts against the ones upstream's grader wrote beside it;
    ``agreement.json`` and ``agreement.md`` in the run's directory."""
    outcomes = job.run_dir.read_all()
    found, missing = [], []
    for entry in job.inputs.answers:
        name, path = answers_file(entry)
        beside = verdicts.beside(path)
        if beside is None:
            missing.append(path.name)
            continue
        model = name or model_name(path)
        found.append(
            agreement.compare(
                model,
                beside.name,
                verdicts.read(beside),
                outcomes,
                job.problems,
                job.spec.baseline,
            )
        )
    write_json(job.run_dir.agreement_json, [a.to_dict() for a in found])
    job.run_dir.agreement_md.write_text(agreement_report.markdown(found, missing), encoding="utf-8")
    for a in found:
        reporter.log(
            f"upstream: {a.model}: {a.compared - len(a.disagreements)} of {a.compared} "
            f"verdicts agree ({len(a.disagreements)} disagree: {job.run_dir.agreement_md})"
        )
    for m in missing:
        reporter.log(f"upstream: no verdicts beside {m}")
    return found
