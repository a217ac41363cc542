"""``harness validate-problems``: does each problem of ours hold what its metadata says?

For a problem built around an API change, in real environments:

1. the modern idiom (the reference) passes on the newest release of its library;
2. the old idiom passes on the release just before ``change.changed``;
3. bisecting the library's releases from there to the newest one finds exactly
   ``change.changed`` as the first release where the old idiom stops passing.

For a deprecation that has not been carried out yet (no ``changed``), the old idiom
must still pass on the newest release and raise a deprecation warning there.

The other libraries a problem imports are resolved as the index was when the release
before the change came out (``as_of``), then held there while the library moves.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from packaging.version import Version

from harness.core.errors import UsageError
from harness.core.libraries import canonical, lookup, same_library
from harness.core.problem import IDIOM_PREFIX, REFERENCE, Problem, Solution
from harness.envs import interpreters
from harness.envs.build import EnvBuilder
from harness.execute.runner import Execution, RunOptions
from harness.labs.bisection import _pins, _step, bisect_library, distribution
from harness.labs.lab import Answer, Lab, Need, drive
from harness.matrix.package_index import Index, IndexUnavailableError
from harness.problems import sets as problemsets

if TYPE_CHECKING:
    from collections.abc import Callable, Generator, Sequence
    from pathlib import Path

# Release of the library before the change + this, for the era of its companions.
COMPANIONS_LAG = dt.timedelta(days=30)


@dataclass(frozen=True)
class Check:
    problem_id: str
    library: str
    change: str  # "old → new"
    expected: str  # the release in the metadata ("2.0.0"), or "deprecated 2.1.0"
    observed: str  # what the runs found
    ok: bool
    notes: str = ""
    trials: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        """The check as ``harness validate-problems`` prints it."""
        notes = f" ({self.notes})" if self.notes else ""
        mark = "ok  " if self.ok else "FAIL"
        return (
            f"{mark} {self.problem_id}: expected {self.expected}, observed {self.observed}{notes}"
        )


@dataclass(frozen=True)
class Validation:
    """The checks of one ``harness validate-problems``, and how many envs they took."""

    checks: tuple[Check, ...]
    envs_built: int

    @property
    def held(self) -> int:
        return sum(c.ok for c in self.checks)

    @property
    def ok(self) -> bool:
        return self.held == len(self.checks)

    def lines(self) -> list[str]:
        """What ``harness validate-problems`` prints: each check, then the count."""
        total = f"{self.held} of {len(self.checks)} problems hold ({self.envs_built} environments)"
        return [*(c.line() for c in self.checks), total]

    def save_json(self, path: Path) -> None:
        path.write_text(json.dumps([c.to_dict() for c in self.checks], indent=2) + "\n")

    def save_table(self, path: Path, command: str) -> None:
        """Put the table of the checks, dated today, into the README at ``path``."""
        today = dt.datetime.now(dt.timezone.utc).date().isoformat()
        block = table(self.checks, today, command)
        path.write_text(write_table(path.read_text(encoding="utf-8"), block), encoding="utf-8")


def check_problems(
    problems: Sequence[Problem],
    env_root: Path,
    *,
    libraries: Sequence[str] = (),
    ids: Sequence[str] = (),
    per_library: int | None = None,
    span: str = "full",
    near: Sequence[str] = (),
    options: RunOptions,
    log: Callable[[str], None] = lambda _m: None,
) -> Validation:
    """Validate the chosen ``problems`` (by library and id, then the first ``per_library``
    of each library) in envs under ``env_root``; ``span`` as for :func:`validate`, but
    "near" for the libraries ``near`` names; each trial run with ``options``."""
    chosen = problemsets.filter_problems(problems, libraries, ids)
    if per_library:
        chosen = sample(chosen, per_library)
    if not chosen:
        raise UsageError("no problems selected")
    pythons = interpreters.available()
    index = Index()
    near_libraries = {canonical(name) for name in near}
    lab = Lab(EnvBuilder(env_root, index), options, log=log)
    facts = ReleaseFacts(index, pythons)
    checks = drive(
        lab,
        [validate(p, facts, "near" if p.library in near_libraries else span) for p in chosen],
    )
    return Validation(tuple(checks), len(lab.envs_built))


def _package(problem: Problem) -> str:
    lib = lookup(problem.library)
    return lib.package if lib else distribution(problem.library)


def companions(problem: Problem, package: str) -> dict[str, str]:
    """The other distributions the problem needs, unpinned (""): what it imports, and
    NumPy (and SciPy under scikit-learn), which every library here is compiled against."""
    own = set(same_library(package))
    modules = [*problem.requires, "numpy", *(["scipy"] if package == "scikit-learn" else [])]
    return {
        distribution(m): ""
        for m in modules
        if distribution(m) not in own and m not in sys.stdlib_module_names  # io, os: no wheel
    }


class ReleaseFacts:
    """Which releases of a package install on which local Python, and when they came out."""

    def __init__(self, index: Index, pythons: Sequence[str]) -> None:
        self.index = index
        self.pythons = list(pythons)  # ascending

    def on(self, package: str, python: str) -> list[str]:
        return [str(v) for v in self.index.versions_with_wheels(package, python, yanked=True)]

    def uploaded(self, package: str, version: str) -> dt.date | None:
        for release in self.index.releases(package):
            if str(release.version) == version and release.upload_time:
                return release.upload_time.date()
        return None

    def newest_python(self, package: str, *versions: str) -> tuple[str, list[str]] | None:
        """The newest local Python with a wheel for each of ``versions`` (or any, when none)."""
        for python in reversed(self.pythons):
            available = self.on(package, python)
            if available and all(v in available for v in versions):
                return python, available
        return None


def validate(
    problem: Problem, facts: ReleaseFacts, span: str = "full"
) -> Generator[Need, Answer, Check]:
    """Check ``problem`` in real envs; ``span`` is how far the bisection reaches: "full" (to the
    newest release) or "near" (the release before ``changed``, it, and the one after it:
    the boundary, for libraries whose every release costs gigabytes)."""
    trials = [0]
    change = problem.change
    old_code = problem.idioms.get("old")
    package = _package(problem)
    described = f"{change.old_api} → {change.new_api}" if change else "–"
    expected = (change.changed or f"deprecated {change.deprecated}") if change else "–"

    def check(ok: bool, observed: str, notes: str = "") -> Check:
        return Check(
            problem.id, problem.library, described, expected, observed, ok, notes, trials[0]
        )

    if change is None or old_code is None:
        return check(False, "–", "needs a [change] table and an old idiom to validate")
    modern = Execution(problem, Solution(problem.id, REFERENCE, problem.reference_code))
    old = Execution(problem, Solution(problem.id, IDIOM_PREFIX + "old", old_code))
    companions_of = companions(problem, package)
    try:
        newest = facts.newest_python(package)
    except (IndexUnavailableError, LookupError) as exc:
        return check(False, "–", f"package index: {exc}")
    if newest is None:
        return check(False, "–", f"no local Python has a wheel of {package}")
    latest_python, available = newest
    latest = available[-1]
    now = yield from _step(
        Need(latest_python, _pins({**companions_of, package: latest}), modern), trials
    )
    if not now.passed:
        return check(False, f"modern idiom {_status(now)} on {package} {latest}", _why(now))

    if not change.changed:
        warned = yield from _step(
            Need(latest_python, _pins({**companions_of, package: latest}), old), trials
        )
        if not warned.passed:
            return check(False, f"old idiom {_status(warned)} on {latest}", _why(warned))
        if not warned.outcome or not warned.outcome.warnings:
            return check(False, f"old idiom passes on {latest} without a warning")
        return check(True, f"warns on {latest}", _first_warning(warned))

    try:
        found = release_before(facts, package, change.changed)
    except (IndexUnavailableError, LookupError) as exc:
        return check(False, "–", f"package index: {exc}")
    if found is None:
        return check(
            False, "–", f"no local Python installs both {change.changed} and the release before it"
        )
    python, before, series = found
    era = facts.uploaded(package, before)
    as_of = era + COMPANIONS_LAG if era else None
    start = yield from _step(
        Need(python, _pins({**companions_of, package: before}), old, as_of=as_of), trials
    )
    if not start.passed:
        return check(False, f"old idiom {_status(start)} on {before}", _why(start))
    others = {p: start.env.versions.get(p, "") for p in companions_of}
    end = (
        series[-1]
        if span == "full"
        else series[min(len(series) - 1, series.index(change.changed) + 1)]
    )
    finding = yield from bisect_library(old, package, before, end, python, others, facts.on)
    trials[0] += finding.trials
    observed = finding.first_bad or "–"
    ok = finding.first_bad == change.changed
    notes = "" if ok else finding.how
    if ok and finding.moved:
        notes = "with " + ", ".join(f"{p} {v}" for p, v in finding.moved.items())
    return check(ok, observed, notes)


def release_before(
    facts: ReleaseFacts, package: str, changed: str
) -> tuple[str, str, list[str]] | None:
    """A Python, the release before ``changed`` on it, and its releases from there on."""
    for python in reversed(facts.pythons):
        series = facts.on(package, python)
        if changed not in series:
            continue
        earlier = [v for v in series if Version(v) < Version(changed)]
        if earlier:
            return python, earlier[-1], series[series.index(earlier[-1]) :]
    return None


def _status(answer: Answer) -> str:
    if answer.outcome is None:
        return "cannot be installed"
    return answer.outcome.status.value


def _why(answer: Answer) -> str:
    if answer.outcome is None:
        return answer.env.error[:300]
    return answer.outcome.first_line[:300]


def _first_warning(answer: Answer) -> str:
    if answer.outcome is None or not answer.outcome.warnings:
        return ""
    w = answer.outcome.warnings[0]
    return f"{w.category}: {w.message[:120]}"


_TABLE_START = "<!-- validation:start -->"
_TABLE_END = "<!-- validation:end -->"


def table(checks: Sequence[Check], when: str, command: str) -> str:
    """The validation table for problems/README.md, with its totals."""
    passed = sum(c.ok for c in checks)
    lines = [
        _TABLE_START,
        f"Validated {when} with `{command}`: **{passed} of {len(checks)} problems hold**.",
        "",
        "| problem | library | change | expected | observed | ok | notes |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for c in checks:
        notes = re.sub(r"\s+", " ", c.notes).replace("|", "\\|")[:120]
        lines.append(
            f"| `{c.problem_id}` | {c.library} | `{c.change}` | {c.expected} | {c.observed} | "
            f"{'yes' if c.ok else '**no**'} | {notes} |"
        )
    lines.append(_TABLE_END)
    return "\n".join(lines)


def write_table(readme: str, block: str) -> str:
    """``readme`` with its validation table replaced (or appended)."""
    if _TABLE_START in readme and _TABLE_END in readme:
        head, rest = readme.split(_TABLE_START, 1)
        tail = rest.split(_TABLE_END, 1)[1]
        return head + block + tail
    return readme.rstrip() + "\n\n## Validation\n\n" + block + "\n"


def sample(problems: Sequence[Problem], per_library: int) -> list[Problem]:
    """The first ``per_library`` problems of each library (in file order)."""
    taken: dict[str, int] = {}
    out = []
    for p in problems:
        if taken.get(p.library, 0) < per_library:
            taken[p.library] = taken.get(p.library, 0) + 1
            out.append(p)
    return out
