"""``harness bisect``: which library broke a drifted problem, and in which release.

For a finished run (``--run``, :func:`bisect_job` then :func:`analyse_existing`), every
drifted problem is attributed and bisected, its trials replaying the run's own limits and
hiding what it hid; for one problem (``--problem``, :func:`bisect_target` then
:func:`bisect_problem`), the releases of one library between a good and a bad one. The
investigations themselves are ``harness.labs.bisection``'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from harness import reports
from harness.core import defaults
from harness.core.errors import UsageError
from harness.envs.build import EnvBuilder
from harness.execute import expected
from harness.execute import options as execution_options
from harness.execute.job import (
    Job,
)
from harness.execute.rundir import RunDir
from harness.execute.runner import Execution, RunOptions
from harness.labs import bisection
from harness.labs import lab as lab_mod
from harness.matrix import spec
from harness.matrix.package_index import Index
from harness.problems import sets as problemsets
from harness.problems.answers import load_solutions

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from harness.analysis.summary import Summary
    from harness.core.findings import Finding
    from harness.execute.progress import Reporter
    from harness.matrix.spec import Combo, MatrixSpec


def bisect_job(
    run_dir: str,
    matrix: str | None,
    problems: Sequence[str],
    answers: Sequence[str],
    env_root: Path,
) -> Job:
    """A job to attribute and bisect the drift of the finished run at ``run_dir``
    (:func:`analyse_existing`), with its problems, answers and matrix unless others are
    given; its trials replay the run's own limits and hide what it hid."""
    run = RunDir(Path(run_dir))
    manifest = run.read_manifest()
    if manifest is None:
        raise UsageError(f"{run_dir}: not a results directory (no run.json)")
    locations = problems or manifest.inputs.problems
    all_problems = problemsets.load(locations)
    solutions = load_solutions(
        all_problems, all_problems, answers or manifest.inputs.answers, idioms=False
    )
    return Job(
        spec=spec.load(defaults.matrix(matrix or manifest.matrix)),
        combos=(),
        problems=all_problems,
        solutions=solutions,
        run_dir=run,
        env_root=env_root,
        options=execution_options.replay(manifest, problem_paths=problemsets.resolve(locations)),
    )


class BisectTarget(NamedTuple):
    """What ``harness bisect --problem`` investigates: one execution, the other libraries
    pinned as in ``combo``, each trial run with ``options``."""

    matrix: MatrixSpec
    combo: Combo
    execution: Execution
    options: RunOptions


def bisect_target(
    matrix: str | None,
    combo: str | None,
    problem_id: str,
    source: str,
    problems: Sequence[str] = (),
    answers: Sequence[str] = (),
) -> BisectTarget:
    """What ``harness bisect --problem`` investigates: the execution of ``source``'s
    solution of the problem, the other libraries pinned as in ``combo`` (default: the
    matrix's baseline)."""
    loaded = spec.load(defaults.matrix(matrix))
    pinned = loaded.by_id.get(combo or loaded.baseline)
    if pinned is None:
        raise UsageError(f"--combo {combo!r}: no such combo in {loaded.path}")
    all_problems = problemsets.load(problems)
    chosen = problemsets.filter_problems(all_problems, ids=[problem_id])
    if not chosen:
        raise UsageError(f"--problem {problem_id!r}: no such problem")
    problem = chosen[0]
    solutions = load_solutions(all_problems, [problem], answers, idioms=True)
    solution = next((s for s in solutions if s.source == source), None)
    if solution is None:
        raise UsageError(f"--source {source!r}: no such solution for {problem.id}")
    options = execution_options.for_problems(
        jobs=1, timeout=loaded.timeout, problem_paths=problemsets.resolve(problems)
    )
    return BisectTarget(loaded, pinned, Execution(problem, solution), options)


@dataclass(frozen=True)
class Bisected:
    """What ``harness bisect --problem`` found, in the distribution ``package``."""

    target: BisectTarget
    finding: Finding
    package: str

    def lines(self) -> list[str]:
        """The finding as ``harness bisect`` prints it."""
        f, execution = self.finding, self.target.execution
        shown = f"{execution.problem.id} ({execution.solution.source})"
        if not f.first_bad:
            return [f"{shown}: no first bad release: {f.how}"]
        found = f"first bad release {self.package} {f.first_bad} (last good {f.last_good}; "
        tried = f"{f.candidates} releases, {f.trials} trials, Python {f.python})"
        lines = [f"{shown}: {found}{tried}", f"  fails with: {f.error}"]
        if f.warning:
            lines.append(f"  {self.package} {f.last_good} warned: {f.warning}")
        return lines


def bisect_problem(
    target: BisectTarget,
    library: str,
    good: str,
    bad: str,
    *,
    env_root: Path,
    python: str | None = None,
    log: Callable[[str], None] = lambda _m: None,
) -> Bisected:
    """The first release of ``library`` from ``good`` to ``bad`` where the outcome of
    ``target``'s execution changes."""
    finding, package = bisection.bisect_release(
        target.execution,
        library,
        good,
        bad,
        builder=EnvBuilder(env_root, Index(target.matrix.index_url)),
        combo=target.combo,
        options=target.options,
        python=python,
        log=log,
    )
    return Bisected(target, finding, package)


def bisect_one(
    *,
    problem: str | None,
    library: str | None,
    good: str | None,
    bad: str | None,
    source: str,
    matrix: str | None,
    combo: str | None,
    problems: Sequence[str],
    answers: Sequence[str],
    env_root: Path,
    python: str | None = None,
    log: Callable[[str], None] = lambda _m: None,
) -> Bisected:
    """``harness bisect --problem``: :func:`bisect_target`, then :func:`bisect_problem`;
    every option it needs named at once when some are missing."""
    given = {"problem": problem, "library": library, "good": good, "bad": bad}
    missing = [f"--{k}" for k, v in given.items() if not v]
    if missing or not (problem and library and good and bad):
        raise UsageError(f"bisect needs {', '.join(missing)} (or --run RUN_DIR)")
    target = bisect_target(matrix, combo, problem, source, problems, answers)
    return bisect_problem(target, library, good, bad, env_root=env_root, python=python, log=log)


def bisect_run(
    run_dir: str,
    matrix: str | None,
    problems: Sequence[str],
    answers: Sequence[str],
    env_root: Path,
    reporter: Reporter,
) -> Summary:
    """``harness bisect --run``: :func:`bisect_job`, then :func:`analyse_existing`."""
    return analyse_existing(bisect_job(run_dir, matrix, problems, answers, env_root), reporter)


def analyse_existing(job: Job, reporter: Reporter) -> Summary:
    """Attribute and bisect the drift of a finished run, then rewrite its reports."""
    summary = reports.write_reports(job.run_dir, problems=job.problems)
    builder = EnvBuilder(job.env_root, Index(job.spec.index_url), log=reporter.log)
    analyse(job, summary, builder, reporter)
    return reports.write_reports(job.run_dir, problems=job.problems)


def analyse(job: Job, summary: Summary, builder: EnvBuilder, reporter: Reporter) -> None:
    """Find the responsible library and its first bad release for every drifted problem."""
    # CIBench's sessions graded against the expected outputs the run derived (the job's
    # problems are as loaded: ``execute`` derives them for its own executions only)
    problems = {p.id: p for p in expected.as_recorded(job.problems, job.run_dir)}
    solutions = {(s.problem_id, s.source): s for s in job.solutions}
    envs = job.run_dir.read_envs(c.id for c in summary.combos if c.ok)
    drifts = []
    for row in summary.drift:
        solution = solutions.get((row.problem_id, row.source))
        if solution and row.last_good in envs and row.first_bad in envs:
            execution = Execution(problems[row.problem_id], solution)
            drifts.append((execution, row.last_good, row.first_bad, row.symbol_library))
    reporter.log(f"bisect: investigating {len(drifts)} drifted problems")
    lab = lab_mod.Lab(builder, job.options, log=reporter.log)
    findings = bisection.analyse_drift(lab, drifts, envs, bisection.release_lister(builder.index))
    job.run_dir.write_analysis(findings)
    reporter.log(
        f"bisect: {sum(1 for f in findings if f.first_bad)} first bad releases found "
        f"in {len(lab.envs_built)} environments"
    )
