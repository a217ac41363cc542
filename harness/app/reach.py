"""``harness reach``: how far each version-conditioned problem's reference reaches over
its library's releases, from the environment the problem brings (``--own-envs``); the
investigations are ``harness.labs.reach``'s, the ranges ``harness.analysis.ranges``'."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from harness import reports
from harness.app.plan import place_in_own_envs
from harness.core.problem import REFERENCE, Solution
from harness.core.results import write_json
from harness.core.text import split
from harness.envs.build import EnvBuilder
from harness.execute import options as execution_options
from harness.execute.rundir import RunDir
from harness.execute.runner import Execution, RunOptions
from harness.labs import bisection, reach
from harness.labs import lab as lab_mod
from harness.matrix import own_envs, spec
from harness.matrix.package_index import Index, IndexUnavailableError
from harness.matrix.selection import DEFAULT_MATRIX
from harness.problems import sets as problemsets
from harness.reports import reach as reach_report

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from harness.analysis.ranges import Reach


def reach_problems(
    problem_locations: Sequence[str],
    libraries: Sequence[str],
    ids: Sequence[str],
    limit: int | None,
    env_root: Path,
    jobs: int,
    log: Callable[[str], None],
) -> list[Reach]:
    """``harness reach``: how far each chosen problem's reference reaches over its
    library's releases, from the environment the problem brings (``--own-envs``)."""
    paths = problemsets.resolve(problem_locations)
    problems = problemsets.filter_problems(
        problemsets.load_problems(paths), split(libraries), ids, limit
    )
    loaded = spec.load(DEFAULT_MATRIX) if Path(DEFAULT_MATRIX).is_file() else None
    index_url = loaded.index_url if loaded else None
    matrix = spec.MatrixSpec(Path("own-envs"), (), "", index_url=index_url)
    _, combos, placement = place_in_own_envs(matrix, problems, ())
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
    timeout = loaded.timeout if loaded else RunOptions().timeout
    options = execution_options.for_problems(jobs=jobs, timeout=timeout, problem_paths=paths)
    lab = lab_mod.Lab(EnvBuilder(env_root, index, log=log), options, log=log)
    return lab_mod.drive(lab, investigations)


def write(out: Path, found: Sequence[Reach]) -> Path:
    """Write ``reach.json`` and ``reach.md`` into ``out``; when ``out`` is a run's
    directory, its reports show the ranges too. Returns the Markdown's path."""
    run = RunDir(out)
    out.mkdir(parents=True, exist_ok=True)
    write_json(run.reach_json, [r.to_dict() for r in found])
    run.reach_md.write_text(reach_report.markdown(found), encoding="utf-8")
    if run.manifest.is_file():
        reports.write_reports(run)
    return run.reach_md
