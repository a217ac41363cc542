"""From a request to a job: what ``harness run`` (or a resumed run) asks for becomes a
:class:`~harness.execute.job.Job` — the combos, problems, solutions and execution options —
with every mistake in it found here, before any environment is built."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.version import Version

from harness.app import shards
from harness.core import defaults
from harness.core.errors import UsageError
from harness.core.results import new_run_id
from harness.core.text import split
from harness.envs import interpreters
from harness.execute import options as execution_options
from harness.execute.job import (
    Job,
)
from harness.execute.rundir import RunDir, RunInputs
from harness.matrix import own_envs
from harness.matrix.combos import ID_PATTERN, select
from harness.matrix.package_index import Index, IndexUnavailableError
from harness.matrix.selection import select_combos
from harness.problems import downloads
from harness.problems import sets as problemsets
from harness.problems.answers import load_solutions

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from harness.core.problem import Problem
    from harness.execute.rundir import RunRequest
    from harness.matrix.nightly_table import NightlySpec
    from harness.matrix.spec import Combo, MatrixSpec


def nightly_request(request: RunRequest, night: NightlySpec, base: Path) -> RunRequest:
    """``request`` with what ``[nightly]`` declares where the command line gave nothing:
    the problem sets (a relative path is relative to the matrix file, ``base``), the
    answers directory's files and whether idioms run."""

    def located(location: str) -> str:
        if downloads.named(location) is not None or downloads.is_url(location):
            return location
        path = Path(location)
        return location if path.is_absolute() or base == Path() else str(base / path)

    declared = night.problems or (
        (defaults.PROBLEMS_DIR,) if (base / defaults.PROBLEMS_DIR).is_dir() else ()
    )  # none here either: the run's default (harness.core.defaults.problems)
    return replace(
        request,
        problems=request.problems or tuple(located(p) for p in declared),
        answers=request.answers or tuple(night.answer_files()),
        idioms=request.idioms and night.idioms,
    )


def plan(
    request: RunRequest,
    *,
    results: Path,
    env_root: Path,
    run_id: str | None = None,
    jobs: int = 1,
    burst_jobs: int | None = None,
    resume: bool = False,
    log: Callable[[str], None] = lambda _m: None,
) -> Job:
    """The job ``request`` asks for, its results in ``results/<run_id>``; every mistake in
    it is found here, before any work (a UsageError, a SpecError, a ProblemError)."""
    matrix, combos = select_combos(
        request.matrix, request.combos, request.keyword, request.tag, nightly=request.nightly
    )
    if request.nightly:
        request = nightly_request(request, matrix.nightly, matrix.path.parent)
    locations = request.problems or defaults.problems()
    paths = problemsets.resolve(locations)
    options = execution_options.for_request(
        request,
        jobs=jobs,
        burst_jobs=burst_jobs,
        default_timeout=matrix.timeout,
        problem_paths=paths,
        results=results,
    )
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
        matrix, combos, placement = place_in_own_envs(matrix, chosen, request.combos)
        chosen = [p for p in chosen if p.id in placement]
    solutions = load_solutions(
        all_problems,
        chosen,
        request.answers,
        reference=not request.no_reference,
        idioms=request.idioms,
        log=log,
    )
    run_id = run_id or new_run_id()
    if not ID_PATTERN.match(run_id.replace("_", "-")):
        raise UsageError(f"--run-id {run_id!r}: use lowercase letters, digits, '-' and '_'")
    return Job(
        spec=matrix,
        combos=combos,
        problems=chosen,
        solutions=solutions,
        run_dir=RunDir(results / run_id),
        env_root=env_root,
        options=options,
        inputs=RunInputs(tuple(locations), request.answers, request.shard, request),
        resume=resume,
        placement=placement,
    )


def place_in_own_envs(
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
