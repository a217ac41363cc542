"""The main job, as stages that each take the previous one's result.

1. :func:`plan`: a :class:`RunRequest` (``harness run``'s options, or the ones a resumed
   run recorded, :func:`resume`) becomes a :class:`Job`: combos, problems, solutions, options;
2. :func:`run`: for each combo, build its env and run its executions, streaming outcomes
   into the run directory; then the reports, the analysis (``--bisect``), the history.

One combo's failure never stops the next: an env that cannot be built becomes
``env_error`` outcomes, and whatever a run finished is on disk before it moves on.

The other jobs that build envs start here too: ``harness bisect`` (:func:`bisect_job` for
a finished run, :func:`bisect_target` and :func:`bisect_problem` for one problem) and
``harness fetch-data`` (:func:`fetch_data`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from harness import (
    admission,
    bisection,
    downloads,
    history,
    interpreters,
    own_envs,
    problemsets,
    reach,
    reports,
    runtime_data,
    shards,
    spec,
    workspace,
)
from harness import answers as answers_mod
from harness.combos import ID_PATTERN, select
from harness.envs import EnvBuilder
from harness.errors import HarnessError, RunFileError, UsageError
from harness.package_index import Index, IndexUnavailableError
from harness.problem import IDIOM_PREFIX, MODEL_PREFIX, REFERENCE, Solution
from harness.results import OutcomeWriter, new_run_id, repair_outcomes
from harness.rundir import RecordedOptions, RunDir, RunInputs, RunManifest
from harness.runner import ComboRun, Execution, RunOptions, pair
from harness.trends import DEFAULT_NIGHTS

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from harness.bisection import Finding
    from harness.envs import EnvInfo
    from harness.problem import Problem
    from harness.progress import Reporter
    from harness.reports.summary import Summary
    from harness.results import Outcome
    from harness.rundir import RunRequest
    from harness.spec import Combo, MatrixSpec, NightlySpec

DEFAULT_PROBLEMS = ("problems",)
DEFAULT_MATRIX = "matrix.toml"


@dataclass(frozen=True)
class Job:
    spec: MatrixSpec
    combos: Sequence[Combo]
    problems: Sequence[Problem]
    solutions: Sequence[Solution]
    run_dir: RunDir
    env_root: Path
    options: RunOptions = field(default_factory=RunOptions)
    inputs: RunInputs = field(default_factory=RunInputs)
    bisect: bool = False  # attribute and bisect every drifted problem after the run
    history: Path | None = None  # SQLite history to record the run in, and diff against
    # continue an interrupted run: keep the outcomes on disk, run only what is missing
    resume: bool = False
    # --own-envs: the combo each problem runs in (and only there); empty: every combo
    placement: Mapping[str, str] = field(default_factory=dict)


# -- from a request to a job ---------------------------------------------------------------


def split(values: Sequence[str]) -> list[str]:
    """``["a,b", "c"]`` → ``["a", "b", "c"]``: options that take comma-separated lists."""
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


def select_combos(
    matrix: str,
    ids: Sequence[str] = (),
    keyword: str | None = None,
    tags: Sequence[str] = (),
    *,
    nightly: bool = False,
) -> tuple[MatrixSpec, list[Combo]]:
    """The matrix file ``matrix`` and its combos chosen by id or glob, substring and tag.

    The nightly lanes (``[nightly.lanes]``) are chosen only by name, or with ``nightly``:
    then the selection starts from what ``[nightly]`` declares, the combos it names and
    every lane."""
    loaded = spec.load(matrix)
    names = split(ids)
    pool: Sequence[Combo] = loaded.combos
    if nightly and not names:
        declared = loaded.nightly.combos
        pool = [*(select(loaded.combos, declared) if declared else loaded.combos), *loaded.lanes]
    elif names:
        pool = [*loaded.combos, *loaded.lanes]
    chosen = select(pool, names, keyword, tags)
    if not chosen:
        known = ", ".join(c.id for c in loaded.combos)
        if loaded.lanes:
            known += "; lanes: " + ", ".join(c.id for c in loaded.lanes)
        raise UsageError(f"no combo matches the selection (combos: {known})")
    return loaded, chosen


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


def nightly_request(request: RunRequest, night: NightlySpec, base: Path) -> RunRequest:
    """``request`` with what ``[nightly]`` declares where the command line gave nothing:
    the problem sets (a relative path is relative to the matrix file, ``base``), the
    answers directory's files and whether idioms run."""

    def located(location: str) -> str:
        if location in downloads.NAMED or downloads.is_url(location):
            return location
        path = Path(location)
        return location if path.is_absolute() or base == Path() else str(base / path)

    return replace(
        request,
        problems=request.problems or tuple(located(p) for p in night.problems),
        answers=request.answers or tuple(night.answer_files()),
        idioms=request.idioms and night.idioms,
    )


def _resolve(locations: Sequence[str]) -> list[Path]:
    return [downloads.resolve(p) for p in (locations or DEFAULT_PROBLEMS)]


def load_problems(locations: Sequence[str]) -> list[Problem]:
    """The problems at ``locations`` (files, directories, URLs, ``ds1000``; default problems/)."""
    return problemsets.load_problems(_resolve(locations))


def load_solutions(
    all_problems: Sequence[Problem],
    chosen: Sequence[Problem],
    answers: Sequence[str] = (),
    *,
    reference: bool = True,
    idioms: bool = False,
) -> list[Solution]:
    """The solutions to run for ``chosen``: references, our problems' idioms, and the
    answers files ``answers`` (``[NAME=]PATH``; answers are matched against every problem)."""
    selected = {p.id for p in chosen}
    solutions: list[Solution] = []
    if reference:
        solutions += [Solution(p.id, REFERENCE, p.reference_code) for p in chosen]
    if idioms:
        solutions += [
            Solution(p.id, IDIOM_PREFIX + name, code)
            for p in chosen
            for name, code in p.idioms.items()
        ]
    for entry in answers:
        name, sep, location = entry.partition("=")
        if not sep or downloads.is_url(entry):
            name, location = "", entry
        path = downloads.resolve(location)
        solutions += answers_mod.load_answers(path, all_problems, selected, name or None)
    return solutions


def resume(results: Path, run_id: str | None) -> tuple[str, RunRequest]:
    """The run to resume under ``results`` (``run_id``, or else the unfinished one started
    last) and the request it was started with."""
    if run_id:
        run = RunDir(results / run_id)
        if not run.manifest.is_file():
            raise UsageError(f"--resume: no run {run_id!r} in {results}")
        manifest = run.read_manifest()
    else:
        unfinished = []
        for path in results.glob("*/run.json"):
            # a manifest that cannot be read is no candidate: it says nothing to resume
            with contextlib.suppress(RunFileError, OSError):
                found = RunDir(path.parent).read_manifest()
                if found is not None and found.resumable:
                    unfinished.append((found.started or "", path.parent.name, found))
        if not unfinished:
            raise UsageError(f"--resume: every run in {results} has finished; nothing to resume")
        _, run_id, manifest = max(unfinished, key=lambda u: u[:2])
        run = RunDir(results / run_id)
    command = manifest.inputs.command if manifest else None
    if command is None:
        raise UsageError(f"--resume: {run.manifest} does not say how the run was started")
    return run_id, command


def _read_allowlist(path: str | None) -> str:
    if not path:
        return ""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--guard-allowlist {path}: {exc.strerror}") from None


def plan(
    request: RunRequest,
    *,
    results: Path,
    env_root: Path,
    run_id: str | None = None,
    jobs: int = 1,
    history: Path | None = None,
    resume: bool = False,
) -> Job:
    """The job ``request`` asks for, its results in ``results/<run_id>``; every mistake in
    it is found here, before any work (a UsageError, a SpecError, a ProblemError)."""
    matrix, combos = select_combos(
        request.matrix, request.combos, request.keyword, request.tag, nightly=request.nightly
    )
    if request.nightly:
        request = nightly_request(request, matrix.nightly, matrix.path.parent)
    if jobs < 1 or request.repeat < 1:
        raise UsageError("--jobs and --repeat must be at least 1")
    locations = request.problems or DEFAULT_PROBLEMS
    paths = _resolve(locations)
    all_problems = problemsets.load_problems(paths)
    chosen = problemsets.filter_problems(
        all_problems, split(request.library), request.problem_id, request.limit
    )
    if request.shard:
        try:
            index, count = problemsets.parse_shard(request.shard)
        except ValueError as exc:
            raise UsageError(f"--shard {exc}") from None
        if request.shard_durations:
            if len(combos) != 1:
                raise UsageError("--shard-durations shards one combo: name it with --combos")
            durations = shards.read(Path(request.shard_durations)).get(combos[0].id, {})
            chosen = shards.balanced(chosen, count, durations)[index - 1]
        else:
            chosen = problemsets.shard(chosen, index, count)
    if not chosen:
        raise UsageError("no problems selected (check --library, --problem-id, --limit, --shard)")
    placement: dict[str, str] = {}
    if request.own_envs:
        matrix, combos, placement = _own_envs(matrix, chosen, request.combos)
        chosen = [p for p in chosen if p.id in placement]
    solutions = load_solutions(
        all_problems,
        chosen,
        request.answers,
        reference=not request.no_reference,
        idioms=request.idioms,
    )
    run_id = run_id or new_run_id()
    if not ID_PATTERN.match(run_id.replace("_", "-")):
        raise UsageError(f"--run-id {run_id!r}: use lowercase letters, digits, '-' and '_'")
    options = RunOptions(
        jobs=jobs,
        timeout=request.timeout or matrix.timeout,
        memory_mb=request.memory_mb or None,
        isolation=request.isolation,
        fresh_for=tuple(split(request.fresh_for)),
        repeat=request.repeat,
        env=tuple(sorted(runtime_data.environment().items())),
        # no execution may read the problems (their references) or earlier results
        hide=tuple(str(p.absolute()) for p in [*paths, results]),
        sandbox=request.sandbox,
        guard=request.guard,
        allowlist_extra=_read_allowlist(request.guard_allowlist),
        record_transport=request.guard_record,
        measured_admission=request.measured_admission,
    )
    return Job(
        spec=matrix,
        combos=combos,
        problems=chosen,
        solutions=solutions,
        run_dir=RunDir(results / run_id),
        env_root=env_root,
        options=options,
        inputs=RunInputs(tuple(locations), request.answers, request.shard, request),
        bisect=request.bisect,
        resume=resume,
        history=history,
        placement=placement,
    )


def _own_envs(
    matrix: MatrixSpec, problems: Sequence[Problem], ids: Sequence[str]
) -> tuple[MatrixSpec, list[Combo], dict[str, str]]:
    """The combos ``problems`` bring (those ``ids`` name, if any), the matrix they make,
    and the combo each problem goes to."""
    derived = own_envs.derive(problems, lift=True)
    if not derived.combos:
        raise UsageError("--own-envs: none of the chosen problems brings its own environment")
    # a pin with no wheel for the env's Python (numpy 1.21.0 on 3.10): the nearest Python
    # this machine has where every pin has one, else the env stays as asked (an env_error)
    index = Index(matrix.index_url)
    pythons = interpreters.available()

    def has_wheel(package: str, version: str, python: str) -> bool:
        try:
            releases = index.releases(package)
        except IndexUnavailableError:
            return True  # cannot tell: leave the env as asked
        wanted = Version(version)  # "1.23" is 1.23.0
        return any(r.version == wanted and r.has_wheel_for(python) for r in releases)

    placed: dict[str, str] = {}
    renamed: list[Combo] = []
    for combo in derived.combos:
        python = own_envs.nearest_python(combo, pythons, has_wheel)
        new = own_envs.moved(combo, python) if python else combo
        placed[combo.id] = new.id
        renamed.append(new)
    derived = replace(
        derived,
        combos=tuple(renamed),
        combo_of={p: placed[c] for p, c in derived.combo_of.items()},
    )
    combos = select(derived.combos, split(ids)) if ids else list(derived.combos)
    if not combos:
        raise UsageError(
            f"--own-envs: no environment of the chosen problems matches {', '.join(ids)}"
        )
    chosen = {c.id for c in combos}
    placement = {p: c for p, c in derived.combo_of.items() if c in chosen}
    spec = replace(matrix, combos=tuple(combos), baseline=combos[0].id)
    return spec, combos, placement


def bisect_job(
    run_dir: str, matrix: str, problems: Sequence[str], answers: Sequence[str], env_root: Path
) -> Job:
    """A job to attribute and bisect the drift of the finished run at ``run_dir``
    (:func:`analyse_existing`), with its problems and answers unless others are given."""
    run = RunDir(Path(run_dir))
    manifest = run.read_manifest()
    if manifest is None:
        raise UsageError(f"{run_dir}: not a results directory (no run.json)")
    all_problems = load_problems(problems or manifest.inputs.problems)
    solutions = load_solutions(
        all_problems, all_problems, answers or manifest.inputs.answers, idioms=False
    )
    return Job(
        spec=spec.load(matrix),
        combos=(),
        problems=all_problems,
        solutions=solutions,
        run_dir=run,
        env_root=env_root,
    )


class BisectTarget(NamedTuple):
    """What ``harness bisect --problem`` investigates: one execution, the other libraries
    pinned as in ``combo``."""

    matrix: MatrixSpec
    combo: Combo
    execution: Execution


def bisect_target(
    matrix: str,
    combo: str | None,
    problem_id: str,
    source: str,
    problems: Sequence[str] = (),
    answers: Sequence[str] = (),
) -> BisectTarget:
    """What ``harness bisect --problem`` investigates: the execution of ``source``'s
    solution of the problem, the other libraries pinned as in ``combo`` (default: the
    matrix's baseline)."""
    loaded = spec.load(matrix)
    pinned = loaded.by_id.get(combo or loaded.baseline)
    if pinned is None:
        raise UsageError(f"--combo {combo!r}: no such combo in {matrix}")
    all_problems = load_problems(problems)
    chosen = problemsets.filter_problems(all_problems, ids=[problem_id])
    if not chosen:
        raise UsageError(f"--problem {problem_id!r}: no such problem")
    problem = chosen[0]
    solutions = load_solutions(all_problems, [problem], answers, idioms=True)
    solution = next((s for s in solutions if s.source == source), None)
    if solution is None:
        raise UsageError(f"--source {source!r}: no such solution for {problem.id}")
    return BisectTarget(loaded, pinned, Execution(problem, solution))


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
        python=python,
        log=log,
    )
    return Bisected(target, finding, package)


def fetch_data(
    problems: Sequence[str],
    root: Path,
    seaborn_url: str,
    *,
    matrix: str,
    combo: str | None,
    env_root: Path,
) -> list[runtime_data.Fetched]:
    """Download into ``root`` the datasets the problems at ``problems`` load at run time;
    scikit-learn's through its own fetchers, in the env of ``combo`` (default: baseline)."""
    needs = runtime_data.needed(load_problems(problems))
    fetched = runtime_data.fetch_seaborn(needs.seaborn, root, seaborn_url)
    if needs.sklearn:
        loaded = spec.load(matrix)
        chosen = loaded.by_id.get(combo or loaded.baseline)
        if chosen is None:
            raise UsageError(f"--combo {combo!r}: no such combo")
        env, _ = EnvBuilder(env_root, Index(loaded.index_url)).build(chosen)
        if not env.ok:
            raise UsageError(f"combo {chosen.id!r} cannot be built: {env.error}")
        fetched += runtime_data.fetch_sklearn(needs.sklearn, root, env)
    return fetched


# -- running it ----------------------------------------------------------------------------


def _write_manifest(job: Job) -> None:
    previous = job.run_dir.read_manifest()
    combos = list(previous.combos) if previous else []
    combos += [c.id for c in job.combos if c.id not in combos]
    job.run_dir.write_manifest(
        RunManifest(
            run_id=job.run_dir.run_id,
            started=(previous.started if previous else None) or _now(),
            finished=None,  # set when the run completes: a run without it can be resumed
            matrix=str(job.spec.path),
            baseline=job.spec.baseline,
            combos=tuple(combos),
            inputs=job.inputs,
            options=RecordedOptions(job.options.jobs, job.options.timeout, job.options.memory_mb),
        )
    )


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat()


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
    # reports count the old APIs model answers use: keep them with the run
    job.run_dir.write_answers(job.solutions)
    builder = EnvBuilder(job.env_root, Index(job.spec.index_url), log=reporter.log)
    executions = pair(job.problems, job.solutions, job.options.repeat)
    for combo in job.combos:
        todo = _todo(job, combo.id, executions, reporter)
        if job.placement:  # each problem in its own combo only
            todo = [(seq, e) for seq, e in todo if job.placement.get(e.problem.id) == combo.id]
        if not todo:
            reporter.log(f"{combo.id}: all {len(executions)} outcomes already recorded")
            continue
        reporter.log(f"{combo.id}: preparing environment (Python {combo.python})")
        # a resumed combo runs in the very env its first part ran in
        resumed_lock = job.run_dir.read_lock(combo.id) if job.resume else ""
        info, lock = builder.build(combo, resumed_lock)
        if lock:
            job.run_dir.write_lock(combo.id, lock)
        job.run_dir.write_env(combo.id, info)
        reporter.env_ready(info)
        options, ran = _admitting(job, combo.id, info, [e for _, e in todo], reporter)
        reporter.combo_started(combo.id, len(todo))
        with OutcomeWriter(job.run_dir.outcomes(combo.id)) as writer:
            combo_run = ComboRun(job.run_dir.run_id, info, writer, options, reporter.outcome)
            # references the admission just ran in one process are not run twice
            for seq, e in todo:
                done = ran.get(e.problem.id) if _plain_reference(e, job) else None
                if done is not None:
                    combo_run.record(replace(done, seq=seq))
            todo = [
                (s, e) for s, e in todo if not (_plain_reference(e, job) and e.problem.id in ran)
            ]
            combo_run.run([e for _, e in todo], [seq for seq, _ in todo])
        if combo_run.executor:
            job.run_dir.write_executor(combo.id, combo_run.executor)
            _warn_unsandboxed(job, combo.id, combo_run.executor, reporter)
    summary = reports.write_reports(job.run_dir, problems=job.problems)
    if job.bisect and summary.drift:
        analyse(job, summary, builder, reporter)
        summary = reports.write_reports(job.run_dir, problems=job.problems)
    if job.history is not None:
        changes, night = history.record_night(job.run_dir, job.history, job.spec.nightly.nights)
        if changes or night:
            summary = reports.write_reports(job.run_dir, changes, job.problems, night)
    _mark_finished(job)
    return summary


def _plain_reference(execution: Execution, job: Job) -> bool:
    return (
        execution.solution.source == REFERENCE
        and execution.attempt == 0
        and job.options.repeat == 1
    )


def _admitting(
    job: Job, combo: str, info: EnvInfo, executions: Sequence[Execution], reporter: Reporter
) -> tuple[RunOptions, Mapping[str, Outcome]]:
    """The run's options for ``combo``, its checker admitting what the references'
    values use in this environment beyond the shipped allowlist, and grading in the
    answer's process the tasks whose reference does not grade the same across the
    boundary (``admission.py``); and the references' outcomes it ran in one process."""
    if not job.options.measured_admission:
        return job.options, {}
    admitted = admission.measure(
        job.env_root, info, executions, job.options, job.run_dir.run_id, reporter
    )
    if admitted.measured:
        reporter.log(
            f"{combo}: measured what {admitted.measured} references' values use "
            f"({admitted.cached} kept from before): {admitted.lines} name(s) beyond the "
            "shipped allowlist"
        )
    if admitted.in_process:
        reporter.log(
            f"{combo}: {len(admitted.in_process)} task(s) graded in the answer's own process "
            "(their reference does not grade the same across the boundary)"
        )
    options = replace(job.options, in_process=tuple(sorted(admitted.in_process.items())))
    if not admitted.text:
        return options, admitted.references
    job.run_dir.write_admission(combo, admitted.text)
    extra = "\n".join(t for t in (options.allowlist_extra, admitted.text) if t)
    return replace(options, allowlist_extra=extra), admitted.references


def _mark_finished(job: Job) -> None:
    manifest = job.run_dir.read_manifest()
    if manifest is not None:  # written when the run started
        job.run_dir.write_manifest(replace(manifest, finished=_now()))


def analyse_existing(job: Job, reporter: Reporter) -> Summary:
    """Attribute and bisect the drift of a finished run, then rewrite its reports."""
    summary = reports.write_reports(job.run_dir, problems=job.problems)
    builder = EnvBuilder(job.env_root, Index(job.spec.index_url), log=reporter.log)
    analyse(job, summary, builder, reporter)
    return reports.write_reports(job.run_dir, problems=job.problems)


def analyse(job: Job, summary: Summary, builder: EnvBuilder, reporter: Reporter) -> None:
    """Find the responsible library and its first bad release for every drifted problem."""
    problems = {p.id: p for p in job.problems}
    solutions = {(s.problem_id, s.source): s for s in job.solutions}
    envs = job.run_dir.read_envs(c.id for c in summary.combos if c.env.ok)
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
    job.run_dir.write_analysis(findings)
    reporter.log(
        f"bisect: {sum(1 for f in findings if f.first_bad)} first bad releases found "
        f"in {len(lab.envs_built)} environments"
    )


def reach_problems(
    problem_locations: Sequence[str],
    libraries: Sequence[str],
    ids: Sequence[str],
    limit: int | None,
    env_root: Path,
    jobs: int,
    log: Callable[[str], None],
) -> list[reach.Reach]:
    """``harness reach``: how far each chosen problem's reference reaches over its
    library's releases, from the environment the problem brings (``--own-envs``)."""
    problems = problemsets.filter_problems(
        load_problems(problem_locations), split(libraries), ids, limit
    )
    loaded = spec.load(DEFAULT_MATRIX) if Path(DEFAULT_MATRIX).is_file() else None
    index_url = loaded.index_url if loaded else None
    matrix = spec.MatrixSpec(Path("own-envs"), (), "", index_url=index_url)
    _, combos, placement = _own_envs(matrix, problems, ())
    by_id = {c.id: c for c in combos}
    index = Index(index_url)
    releases = bisection.release_lister(index)
    investigations = []
    for problem in problems:
        combo = by_id.get(placement.get(problem.id, ""))
        asked = problem.metadata.get("env", {}).get("requirements", [])
        if combo is None or not asked:
            continue
        first = Requirement(asked[0])
        package = canonicalize_name(first.name)
        pinned = next((s.version for s in first.specifier if s.operator == "=="), None)
        if pinned is None:
            continue
        others = {p: v for p, v in own_envs.pins(combo) if p != package}
        for text in combo.extras:
            name = canonicalize_name(Requirement(text).name)
            # unpinned: held at one release in every trial (reach.HELD)
            others.setdefault(name, reach.HELD.get(name, ""))
        try:
            today = reach.finals([str(r.version) for r in index.releases(package)])[-1]
        except (IndexUnavailableError, IndexError):
            continue
        execution = Execution(problem, Solution(problem.id, REFERENCE, problem.reference_code))
        investigations.append(
            reach.investigate(execution, package, pinned, combo.python, others, releases, today)
        )
    lab = bisection.Lab(EnvBuilder(env_root, index, log=log), RunOptions(jobs=jobs), log=log)
    return bisection.drive(lab, investigations)
