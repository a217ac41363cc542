"""``harness reach``: where each solution of a version-conditioned problem works — its
reference, our problems' old idioms (``--idioms``) and models' answers (``--answers``) —
over its library's releases, and what each model knows of the versions it was asked for.

A problem is version-conditioned two ways here:

* it brings its own environment (GitChameleon's ``metadata.env``: ``scipy==1.8.1`` on
  Python 3.9, its other pins): the library's releases are tried from there, the other
  pins held (``--own-envs``);
* it is one of ours, built around an API change: the release it asks about is the one its
  ``[change]`` names (``changed``), tried on the newest local Python with wheels of it
  and the release before it, the problem's other libraries resolved as the index was a
  month after that release, then held while the library moves. Libraries named by
  ``--near`` (torch, TensorFlow: gigabytes a release) are tried on the releases next to
  that one only.

The investigations are ``harness.labs.reach``'s; the ranges, their signed version errors
and each model's knowledge date are ``harness.analysis.ranges``' and ``.knowledge``'s.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from harness import reports
from harness.analysis import knowledge
from harness.app.plan import place_in_own_envs
from harness.core import defaults
from harness.core.libraries import canonical
from harness.core.results import write_json
from harness.core.text import split
from harness.envs import interpreters
from harness.envs.build import EnvBuilder
from harness.execute import options as execution_options
from harness.execute.rundir import RunDir
from harness.execute.runner import Execution, RunOptions
from harness.labs import bisection, reach
from harness.labs import lab as lab_mod
from harness.labs.validate import COMPANIONS_LAG, ReleaseFacts, companions, release_before
from harness.matrix import own_envs, spec
from harness.matrix.package_index import Index, IndexUnavailableError
from harness.problems import sets as problemsets
from harness.problems.answers import load_solutions
from harness.reports import knowledge as knowledge_report
from harness.reports import reach as reach_report

if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Callable, Generator, Mapping, Sequence

    from harness.analysis.ranges import Reach
    from harness.core.problem import Problem, Solution
    from harness.labs.lab import Answer, Need

NEAR = 1  # releases on each side of the asked one, for a --near library


@dataclass(frozen=True)
class Target:
    """Where a problem's solutions are ranged: the library, the release asked for, the
    Python, the other packages (pinned, or "" to resolve as of ``as_of``)."""

    package: str
    pinned: str
    python: str
    others: Mapping[str, str]
    today: str
    as_of: dt.date | None = None
    near: bool = False  # only the releases next to ``pinned``


def _own_env_targets(
    problems: Sequence[Problem], index: Index, matrix: spec.MatrixSpec
) -> dict[str, Target]:
    """The problems that bring their own environment, each with its target."""
    brought = [p for p in problems if p.metadata.get("env")]
    if not brought:
        return {}
    _, combos, placement = place_in_own_envs(matrix, brought, ())
    by_id = {c.id: c for c in combos}
    targets = {}
    for problem in brought:
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
        targets[problem.id] = Target(package, pinned, combo.python, others, today)
    return targets


def _change_targets(
    problems: Sequence[Problem], facts: ReleaseFacts, near: Sequence[str]
) -> dict[str, Target]:
    """Our problems built around an API change, each with its target: the release the
    change names, on the newest local Python that has it and the release before it."""
    targets = {}
    heavy = {canonical(n) for n in near}
    for problem in problems:
        change = problem.change
        if problem.metadata.get("env") or change is None or not change.changed:
            continue
        lib = problem.library
        package = reach.package_of(lib)
        try:
            found = release_before(facts, package, change.changed)
            today = reach.finals([str(r.version) for r in facts.index.releases(package)])[-1]
        except (IndexUnavailableError, LookupError, IndexError):
            continue
        if found is None:
            continue
        python, _before, _ = found
        era = facts.uploaded(package, change.changed)
        targets[problem.id] = Target(
            package,
            change.changed,
            python,
            companions(problem, package),
            today,
            as_of=era + COMPANIONS_LAG if era else None,
            near=lib in heavy,
        )
    return targets


def _near(
    releases: Callable[[str, str], list[str]], package: str, pinned: str
) -> Callable[[str, str], list[str]]:
    """``releases``, cut to the ones next to ``pinned`` for ``package``."""

    def cut(name: str, python: str) -> list[str]:
        found = releases(name, python)
        if name != package:
            return found
        series = reach.finals(found)
        if pinned not in series:
            return series
        at = series.index(pinned)
        return series[max(0, at - NEAR) : at + NEAR + 1]

    return cut


def _dated(found: Reach, index: Index) -> Reach:
    """``found`` with the days its bounding releases came out."""
    wanted = {found.lowest, found.highest, found.below, found.above, found.pinned, found.oldest}
    try:
        days = {
            str(r.version): r.upload_time.date().isoformat()
            for r in index.releases(found.library)
            if str(r.version) in wanted and r.upload_time
        }
    except IndexUnavailableError:
        return found
    return dataclasses.replace(found, dates=days)


def reach_into(
    out: Path,
    env_root: Path,
    log: Callable[[str], None],
    *,
    problems: Sequence[str],
    library: Sequence[str] = (),
    problem_id: Sequence[str] = (),
    limit: int | None = None,
    jobs: int = 1,
    answers: Sequence[str] = (),
    idioms: bool = False,
    near: Sequence[str] = (),
) -> Path:
    """``harness reach`` (its options by name): :func:`reach_problems`, written into
    ``out`` (:func:`write`); returns the path of its reach.md."""
    found = reach_problems(
        problems,
        library,
        problem_id,
        limit,
        env_root,
        jobs,
        log,
        answers=answers,
        idioms=idioms,
        near=near,
    )
    return write(out, found)


def reach_problems(
    problem_locations: Sequence[str],
    libraries: Sequence[str],
    ids: Sequence[str],
    limit: int | None,
    env_root: Path,
    jobs: int,
    log: Callable[[str], None],
    *,
    answers: Sequence[str] = (),
    idioms: bool = False,
    near: Sequence[str] = (),
) -> list[Reach]:
    """Where each chosen problem's solutions work over its library's releases: its
    reference, and with ``idioms`` our problems' old idioms, and every answer of
    ``answers`` (``[NAME=]PATH``)."""
    paths = problemsets.resolve(problem_locations)
    loaded_problems = problemsets.load_problems(paths)
    problems = problemsets.filter_problems(loaded_problems, split(libraries), ids, limit)
    solutions = load_solutions(loaded_problems, problems, answers, idioms=idioms, log=log)
    loaded = spec.load(defaults.MATRIX_FILE) if Path(defaults.MATRIX_FILE).is_file() else None
    index_url = loaded.index_url if loaded else None
    index = Index(index_url)
    matrix = spec.MatrixSpec(Path("own-envs"), (), "", index_url=index_url)
    facts = ReleaseFacts(index, interpreters.available())
    targets = {
        **_own_env_targets(problems, index, matrix),
        **_change_targets(problems, facts, near),
    }
    releases = bisection.release_lister(index)
    investigations: list[Generator[Need, Answer, Reach]] = []
    by_id = {p.id: p for p in problems}
    for solution in solutions:
        target = targets.get(solution.problem_id)
        if target is None:
            continue
        listed = _near(releases, target.package, target.pinned) if target.near else releases
        investigations.append(_investigate(by_id[solution.problem_id], solution, target, listed))
    timeout = loaded.timeout if loaded else RunOptions().timeout
    options = execution_options.for_problems(jobs=jobs, timeout=timeout, problem_paths=paths)
    lab = lab_mod.Lab(EnvBuilder(env_root, index, log=log), options, log=log)
    return [_dated(found, index) for found in lab_mod.drive(lab, investigations)]


def _investigate(
    problem: Problem,
    solution: Solution,
    target: Target,
    releases: Callable[[str, str], list[str]],
) -> Generator[Need, Answer, Reach]:
    return reach.investigate(
        Execution(problem, solution),
        target.package,
        target.pinned,
        target.python,
        target.others,
        releases,
        target.today,
        as_of=target.as_of,
    )


def write(out: Path, found: Sequence[Reach]) -> Path:
    """Write ``reach.json``, ``knowledge.json`` and ``reach.md`` into ``out``; when ``out``
    is a run's directory, its reports show the ranges too. Returns the Markdown's path."""
    run = RunDir(out)
    out.mkdir(parents=True, exist_ok=True)
    write_json(run.reach_json, [r.to_dict() for r in found])
    known = knowledge.by_source(found)
    write_json(run.knowledge_json, [k.to_dict() for k in known])
    text = reach_report.markdown([r for r in found if r.source == "reference"])
    text += knowledge_report.markdown(known, found)
    run.reach_md.write_text(text, encoding="utf-8")
    if run.manifest.is_file():
        reports.write_reports(run)
    return run.reach_md
