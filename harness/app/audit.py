"""``harness audit``: do each problem's tests still tell a right answer from a wrong one,
in each combo of the matrix?

One audit is one run (``results/<run-id>/``, every report a run has) whose solutions are
the references and their probes (:mod:`harness.audit.probes`: null answers, mutants and
the reference as an answer, all graded as untrusted answers), then ``repeats - 1`` more
runs of the references alone, each graded as an answer (``repeats/<k>/``), under another
hash seed and with the problems in reverse order (their random seeds differ in every
run): do its verdict and the values it sends its check stay the same? What the
outcomes say (:mod:`harness.audit.health`) is written to ``audit.json`` and
``audit.md``; with ``bisect``, each weakened test is bisected to the release of its
library that weakened it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from harness import reports
from harness.app import plan
from harness.app.bisect import bisect_job
from harness.audit import health, probes
from harness.audit.files import AuditFiles
from harness.core.errors import HarnessError, UsageError
from harness.core.findings import Finding
from harness.core.results import write_json
from harness.envs import workspace
from harness.envs.build import EnvBuilder
from harness.execute.job import execute, mark_finished, require_sandbox
from harness.execute.progress import reporter
from harness.execute.runner import Execution
from harness.labs import bisection
from harness.matrix.package_index import Index
from harness.reports import audit as audit_report

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from harness.audit.health import Health, Weakened
    from harness.core.results import Outcome
    from harness.execute.job import Job
    from harness.execute.progress import Reporter
    from harness.execute.rundir import RunDir, RunRequest

# The host's name for the hash seed of a batch's executions (the env side's
# ``isolation.processes.HASH_SEED``: the host never imports it)
HASH_SEED = "HARNESS_HASH_SEED"


@dataclass(frozen=True)
class Audited:
    """What ``harness audit`` found, and where it wrote it."""

    healths: tuple[Health, ...]
    weakened: tuple[Weakened, ...]
    probes: int
    audit_md: Path
    report: Path

    def lines(self) -> list[str]:
        """What ``harness audit`` prints: the flags' counts, then where to read more."""
        counted = health.counts(self.healths, self.weakened)
        problems = len({h.problem_id for h in self.healths})
        flagged = ", ".join(f"{n} {name}" for name, n in counted.items() if n) or "nothing flagged"
        return [
            (
                f"audited {problems} problems in {len({h.combo for h in self.healths})} combos "
                f"with {self.probes} probes: {flagged}"
            ),
            str(self.audit_md),
        ]


def audit_request(
    request: RunRequest,
    *,
    results: Path,
    run_id: str | None,
    env_root: Path,
    jobs: int,
    burst_jobs: int | None = None,
    mutants: int = 5,
    seed: int = 0,
    repeats: int = 3,
    bisect: bool = False,
    quiet: bool = False,
    log: Callable[[str], None] = lambda _m: None,
) -> Audited:
    """``harness audit``: plan the references ``request`` selects (its answers and idioms
    are not the audit's), add their probes, run, repeat, assess and write."""
    if mutants < 0 or repeats < 1:
        raise UsageError("--mutants must be at least 0 and --repeats at least 1")
    request = replace(request, answers=(), idioms=False, no_reference=False, repeat=1)
    job = plan.plan(
        request,
        results=results,
        env_root=env_root,
        run_id=run_id,
        jobs=jobs,
        burst_jobs=burst_jobs,
        log=log,
    )
    # with repeats, each problem's reference as an answer from the start (the repeats grade
    # it again); without, only where a mutant survives (``_audit``)
    made = probes.build(job.problems, limit=mutants, seed=seed, copy=repeats > 1)
    log(
        f"audit: {len(made)} probes of {len(job.problems)} problems ({mutants} mutants at most each, seed {seed})"
    )
    job = replace(job, solutions=[*job.solutions, *(p.solution() for p in made)])
    with reporter(quiet) as progress:
        return audit(job, made, progress, repeats=repeats, bisect=bisect)


def audit(
    job: Job, made: Sequence[probes.Probe], progress: Reporter, *, repeats: int, bisect: bool
) -> Audited:
    """Run ``job`` (references and ``made``), its repeats, then assess and write: one
    audit at a time per results directory, checked writable first; probes do not start
    where they could not run in the sandbox (they are answers), unless allowed."""
    asked = require_sandbox(job)
    if asked is not None and asked.error:
        progress.log(f"could not ask the env side whether it can sandbox answers ({asked.error})")
    results = job.run_dir.root.parent
    workspace.check_writable(results)
    with workspace.exclusive(results, f"audit {job.run_dir.run_id}"):
        return _audit(job, made, progress, repeats, bisect)


def _audit(
    job: Job, made: Sequence[probes.Probe], progress: Reporter, repeats: int, bisect: bool
) -> Audited:
    job.run_dir.root.mkdir(parents=True, exist_ok=True)
    files = AuditFiles(job.run_dir)
    probes.write(files.probes, made)
    builder = EnvBuilder(job.env_root, Index(job.spec.index_url), log=progress.log)
    execute(job, builder, progress)
    outcomes = job.run_dir.read_all()
    if repeats == 1:
        # the reference as an answer, twice, where a mutant survived: its values judge
        # the survivors, where they are the same both times
        survived = health.with_survivors(made, outcomes)
        late = probes.copies(p for p in job.problems if p.id in survived)
        if late:
            again = _confirm(job, late, files.confirm)
            execute(again, builder, progress)
            outcomes += again.run_dir.read_all()
            made = [*made, *late]
            probes.write(files.probes, made)
    for k in range(1, repeats):
        again = _repeat(job, k, made, files.repeat(k))
        execute(again, builder, progress)
        outcomes += [replace(o, attempt=k) for o in again.run_dir.read_all()]
    healths = health.assess(job.problems, made, outcomes, default_limit=job.options.timeout)
    envs = job.run_dir.read_envs([c.id for c in job.combos])
    # with the problems' own libraries: one outside the seven orders the combos too
    own = {p.library for p in job.problems}
    versions = {c: {**e.library_versions(own), "python": e.python} for c, e in envs.items()}
    found = health.weakened(healths, made, outcomes, versions)
    settings = _settings(job, made, repeats)
    _write(files, healths, found, settings)  # before bisecting: nothing done is lost
    if bisect and found:
        found = _bisected(job, made, found, builder, progress)
        _write(files, healths, found, settings)
    reports.write_reports(job.run_dir, problems=job.problems)  # report.html's tests column
    mark_finished(job)
    return Audited(tuple(healths), tuple(found), len(made), files.markdown, job.run_dir.report_html)


def _write(
    files: AuditFiles,
    healths: Sequence[Health],
    found: Sequence[Weakened],
    settings: dict[str, object],
) -> None:
    write_json(files.json, audit_report.to_json(healths, found, settings))
    files.markdown.write_text(audit_report.markdown(healths, found), encoding="utf-8")


def _confirm(job: Job, second: Sequence[probes.Probe], run_dir: RunDir) -> Job:
    """A run of the copies of references alone, in ``run_dir``."""
    run_dir.root.mkdir(parents=True, exist_ok=True)
    ids = {p.problem_id for p in second}
    return replace(
        job,
        problems=[p for p in job.problems if p.id in ids],
        solutions=[p.solution() for p in second],
        run_dir=run_dir,
        resume=False,
    )


def _repeat(job: Job, k: int, made: Sequence[probes.Probe], run_dir: RunDir) -> Job:
    """The ``k``-th repeat of ``job``'s references, each graded as an answer (its verdict,
    and the values it sends its check): another hash seed, the problems in reverse order,
    its outcomes in ``run_dir``."""
    run_dir.root.mkdir(parents=True, exist_ok=True)
    return replace(
        job,
        problems=list(reversed(job.problems)),
        solutions=[p.solution() for p in made if p.name == probes.COPY],
        run_dir=run_dir,
        options=replace(job.options, env=(*job.options.env, (HASH_SEED, str(k)))),
        resume=False,
    )


def _bisected(
    job: Job,
    made: Sequence[probes.Probe],
    found: Sequence[Weakened],
    builder: EnvBuilder,
    progress: Reporter,
) -> list[Weakened]:
    """Each weakened test bisected over its library's releases, from where the mutant
    was killed to where it survived, the other libraries pinned as in the latter."""
    problem_of = {p.id: p for p in job.problems}
    probe_of = {(p.problem_id, p.name): p for p in made}
    combo_of = {c.id: c for c in job.combos}
    done = []
    for w in found:
        probe, combo = probe_of[(w.problem_id, w.mutant)], combo_of.get(w.survived_in)
        good, bad = w.versions
        if combo is None or "-" in (good, bad):
            done.append(w)
            continue
        progress.log(f"audit: bisecting {w.problem_id} {w.mutant}: {w.library} {good} → {bad}")
        try:
            finding, _package = bisection.bisect_release(
                Execution(problem_of[w.problem_id], probe.solution()),
                w.library,
                good,
                bad,
                builder=builder,
                combo=combo,
                options=job.options,
                log=progress.log,
            )
        except HarnessError as exc:  # one bisection that cannot run stops no other
            ends = (f"{w.library} {good}", f"{w.library} {bad}")
            finding = Finding(w.problem_id, probe.source, *ends, how=f"cannot bisect: {exc}")
        done.append(replace(w, finding=finding))
    return done


def _settings(job: Job, made: Sequence[probes.Probe], repeats: int) -> dict[str, object]:
    return {
        "run_id": job.run_dir.run_id,
        "combos": [c.id for c in job.combos],
        "problems": len(job.problems),
        "probes": len(made),
        "repeats": repeats,
        "headroom": health.HEADROOM,
    }


def reassess(run: RunDir, *, env_root: Path, bisect: bool = False) -> Audited:
    """``harness audit --report``: assess a finished (or interrupted) audit again from its
    files — its outcomes, probes and envs, its problems as its run.json names them — and
    rewrite audit.json, audit.md and the run's reports; with ``bisect``, bisect its
    weakened tests too."""
    manifest = run.read_manifest()
    files = AuditFiles(run)
    if manifest is None or not files.probes.is_file():
        raise UsageError(
            f"{run.root}: not an audit's directory (no run.json or audit-probes.jsonl)"
        )
    made = probes.read(files.probes)
    chosen = {p.problem_id for p in made}
    job = bisect_job(str(run.root), None, (), (), env_root)  # its problems, matrix, limits
    problems = [p for p in job.problems if p.id in chosen]
    outcomes = read_outcomes(run)
    healths = health.assess(problems, made, outcomes, default_limit=job.options.timeout)
    envs = run.read_envs(list(manifest.combos))
    own = {p.library for p in problems}
    versions = {c: {**e.library_versions(own), "python": e.python} for c, e in envs.items()}
    found = health.weakened(healths, made, outcomes, versions)
    repeats = 1 + len(files.repeats())
    settings = {"run_id": run.run_id, "combos": list(manifest.combos), "problems": len(problems),
                "probes": len(made), "repeats": repeats, "headroom": health.HEADROOM}  # fmt: skip
    _write(files, healths, found, settings)
    if bisect and found:
        builder = EnvBuilder(env_root, Index(job.spec.index_url))
        with reporter(True) as progress:
            found = _bisected(replace(job, problems=problems), made, found, builder, progress)
        _write(files, healths, found, settings)
    reports.write_reports(run, problems=problems)
    return Audited(tuple(healths), tuple(found), len(made), files.markdown, run.report_html)


def read_outcomes(run: RunDir) -> list[Outcome]:
    """A finished audit's outcomes, its repeats' with their attempt numbers."""
    files = AuditFiles(run)
    outcomes = run.read_all() + files.confirm.read_all()
    for k, again in files.repeats():
        outcomes += [replace(o, attempt=k) for o in again.read_all()]
    return outcomes
