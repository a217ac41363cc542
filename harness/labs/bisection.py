"""Which library broke a problem, and in which release: attribution, then bisection.

Both build throwaway environments near the combo where the problem last passed:
the problem's own libraries pinned to that combo's versions, on a Python where the
versions in question install. Attribution swaps one library at a time to its version
in the failing combo; bisection walks the releases of the responsible library
(those with a wheel for that Python) in O(log n) builds. Environments are keyed by
their lock, so a step any earlier analysis built is reused, not rebuilt.

Every investigation is a generator that yields what it needs to know next (run
this execution in an env with these pins) and receives the answer. The driver
gathers the requests of all investigations, runs each env once with all the
executions asked of it, and answers them: ten problems that drifted the same way
share every env along their bisections.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from packaging.version import Version

from harness.analysis.causes import diagnose
from harness.analysis.drift import related_warnings
from harness.core.errors import UsageError
from harness.core.findings import Finding
from harness.core.libraries import MODULE_TO_PACKAGE, canonical, lookup, same_library
from harness.envs import interpreters
from harness.envside.protocol import SUPPORTED_PYTHONS
from harness.labs.lab import (
    Answer,
    Lab,
    Need,
    drive,
)
from harness.matrix.package_index import Index, IndexUnavailableError, ProjectNotFoundError

if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Callable, Mapping, Sequence

    from harness.envs.build import EnvBuilder, EnvInfo
    from harness.execute.runner import Execution, RunOptions
    from harness.matrix.spec import Combo


Investigation = Generator[Need, Answer, "Finding"]


def distribution(module: str) -> str:
    return MODULE_TO_PACKAGE.get(module, module).lower().replace("_", "-")


def problem_packages(execution: Execution, versions: Mapping[str, str]) -> dict[str, str]:
    """The distributions the problem imports, at the versions of ``versions`` (a lock).

    NumPy is always among them (and SciPy under scikit-learn): every library here is
    compiled against them, so leaving them free would let the resolver pair an old
    release with a NumPy it cannot import with.
    """
    modules = [*execution.problem.requires, "numpy"]
    if "sklearn" in modules:
        modules.append("scipy")
    pins = {}
    for module in modules:
        for name in same_library(distribution(module)):
            if name in versions:
                pins[name] = versions[name]
                break
    return pins


def _ends(good: Answer, bad: Answer, others: Mapping[str, str]) -> dict[str, Any]:
    """What a finding says about the two releases it found: the failure, the warning
    the good one raised about it, and which other libraries rose with the bad one."""
    error = warning = ""
    if bad.outcome is not None:
        error = bad.outcome.first_line or bad.outcome.status.value
        if good.outcome is not None:
            related = related_warnings(good.outcome.warnings, diagnose(bad.outcome))
            warning = related[0].message if related else ""
    return {"error": error, "warning": warning, "moved": _moved(bad, others)}


def _moved(answer: Answer | None, others: Mapping[str, str]) -> dict[str, str]:
    """Which of ``others`` the env of ``answer`` holds at another version."""
    if answer is None:
        return {}
    found = answer.env.versions
    return {p: found[p] for p, v in others.items() if p in found and found[p] != v}


def _pins(mapping: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(mapping.items()))


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def pythons_between(low: str, high: str) -> list[str]:
    """Python minor versions from ``low`` to ``high`` that this machine has (a bisection
    walks the Pythons at hand; it never downloads one per step)."""
    lo, hi = sorted((Version(_minor(low)), Version(_minor(high))))
    out = []
    for minor in range(lo.minor, hi.minor + 1) if lo.major == hi.major else [lo.minor]:
        wanted = f"{lo.major}.{minor}"
        try:
            interpreters.find(wanted, "never")
        except interpreters.InterpreterNotFoundError:
            continue
        out.append(wanted)
    return out


def _step(need: Need, trials: list[int]) -> Generator[Need, Answer, Answer]:
    trials[0] += 1
    return (yield need)


def bisect_releases(
    execution: Execution,
    package: str,
    releases: Sequence[str],
    python: str,
    others: Mapping[str, str],
    trials: list[int],
    good_passes: bool = True,
    as_of: dt.date | None = None,
    blames: Callable[[Answer], bool] | None = None,
) -> Generator[Need, Answer, tuple[int | None, int | None, Answer | None, Answer | None]]:
    """Binary search for the first release of ``package`` whose outcome differs from the first's.

    ``releases`` are sorted; the first is known to pass (or, with ``good_passes``
    false, to fail) and the last to do the opposite. Releases whose env cannot be
    built are dropped as the search meets them, and so are failures that ``blames``
    does not lay on ``package`` (another library had to rise with that release, and the
    failure is that library's). Returns the indexes of the last
    release like the first and of the first release unlike it, with their answers.
    Unpinned packages of ``others`` resolve as the index was on ``as_of``.
    """
    candidates = list(releases)
    lo, hi = 0, len(candidates) - 1
    answers: dict[int, Answer] = {}
    while hi - lo > 1:
        mid = (lo + hi) // 2
        answer = yield from _step(
            Need(
                python,
                _pins({**others, package: candidates[mid]}),
                execution,
                package,
                as_of=as_of,
            ),
            trials,
        )
        if answer.passed is None or (
            answer.passed is False and blames is not None and not blames(answer)
        ):
            del candidates[mid]
            hi -= 1
            answers = {i if i < mid else i - 1: a for i, a in answers.items() if i != mid}
            continue
        answers[mid] = answer
        if answer.passed == good_passes:
            lo = mid
        else:
            hi = mid
    good, bad = releases.index(candidates[lo]), releases.index(candidates[hi])
    return good, bad, answers.get(lo), answers.get(hi)


def investigate(
    execution: Execution,
    good_name: str,
    bad_name: str,
    good_versions: Mapping[str, str],
    bad_versions: Mapping[str, str],
    good_python: str,
    bad_python: str,
    releases: Callable[[str, str], list[str]],
    named: str = "",
) -> Investigation:
    """Attribute one drift to a library and bisect that library's releases.

    A library is responsible when, on some Python, with every other library held at
    one set of versions, the solution passes with the library's good release and
    fails with its bad one. Candidates are tried in order: the library the error
    names (``named``), the problem's own, then the others that changed. The other
    libraries are held at the good combo's versions, or else at the newest versions
    that still accept the good release (pandas 2.3 accepts both NumPy 1.26 and 2.x);
    when the bad release needs them higher, they rise as little as it requires, and
    the failure then counts only if it does not point at a library that rose.
    """
    trials = [0]
    base = problem_packages(execution, good_versions)
    after = problem_packages(execution, bad_versions)
    changed = [p for p in after if base.get(p) not in (None, after[p])]
    finding = Finding(execution.problem.id, execution.solution.source, good_name, bad_name)

    def done(**fields: Any) -> Finding:
        return Finding(**{**finding.to_dict(), **fields, "trials": trials[0]})

    python_moved = _minor(good_python) != _minor(bad_python)
    if not changed:
        how = "none of the problem's libraries changed"
        if python_moved:
            return done(library="python", how=how + f"; Python {good_python} → {bad_python}")
        return done(how=how)
    if named == "python" and python_moved:
        # the error is Python's own (a removed unittest method, a dropped module): no
        # library's releases can be to blame, and no trial on the good Python would fail
        return done(
            library="python",
            how=f"the error names Python's standard library; Python {good_python} → {bad_python}",
        )
    own = _packages_named(execution.problem.library)
    first = _packages_named(named)
    changed.sort(key=lambda p: (p not in first, p not in own, p))
    for package in changed:
        good, bad = base[package], after[package]
        for python in pythons_between(good_python, bad_python):
            others = yield from _swap_alone(execution, package, base, after, python, trials)
            if others is None:
                continue
            how = f"changing {package} alone breaks it"
            if len(changed) == 1:
                how = f"the only library of the problem that changed; {how}"
            return (
                yield from _bisect_found(
                    execution, package, good, bad, python, others, releases, trials, done, how
                )
            )
    return done(
        how="no single library breaks it alone on any Python from "
        f"{_minor(good_python)} to {_minor(bad_python)}"
    )


def _swap_alone(
    execution: Execution,
    package: str,
    base: Mapping[str, str],
    after: Mapping[str, str],
    python: str,
    trials: list[int],
) -> Generator[Need, Answer, dict[str, str] | None]:
    """Versions of the other libraries at which moving ``package`` alone from its good
    release to its bad one breaks the problem on ``python``, if there are any."""
    good, bad = base[package], after[package]
    queue = yield from _companion_sets(execution, package, good, base, python, trials)
    tried: list[dict[str, str]] = []
    while queue:
        others = queue.pop(0)
        tried.append(others)
        start = yield from _step(
            Need(python, _pins({**others, package: good}), execution, package), trials
        )
        if not start.passed:
            continue
        end = yield from _step(
            Need(python, _pins({**others, package: bad}), execution, package), trials
        )
        raised = _raised_companion(end, others, after)
        if raised is not None and raised not in tried:
            queue.insert(0, raised)  # the bad release refused a held companion: not its break
            continue
        if end.passed is False and _blames(end, others):
            return others
    return None


# pandas checks its optional dependencies' versions when it first uses them (openpyxl for
# .xlsx), which no resolver sees: "Pandas requires version '3.1.5' or newer of 'openpyxl'".
_NEEDS_NEWER = re.compile(r"requires version '([^']+)' or newer of '([^']+)'")


def _raised_companion(
    end: Answer, others: Mapping[str, str], after: Mapping[str, str]
) -> dict[str, str] | None:
    """``others`` with the companion the failure says is too old at the bad combo's release,
    when that is what the failure says."""
    found = _NEEDS_NEWER.search(end.outcome.message) if end.outcome else None
    if found is None:
        return None
    for name in _packages_named(found.group(2)):
        if name in others and after.get(name, others[name]) != others[name]:
            return {**others, name: after[name]}
    return None


def _packages_named(name: str) -> tuple[str, ...]:
    """The distributions a library or module name may stand for in a lock: an error that
    names ``cv2`` names ``opencv-python-headless`` where the combo installed that build."""
    if not name:
        return ()
    lib = lookup(name)
    return same_library(lib.package if lib else distribution(name))


def _companion_sets(
    execution: Execution,
    package: str,
    good: str,
    base: Mapping[str, str],
    python: str,
    trials: list[int],
) -> Generator[Need, Answer, list[dict[str, str]]]:
    """Versions to hold the other libraries at: the good combo's, then the newest that accept ``good``."""
    held = {k: v for k, v in base.items() if k != package}
    options = [held]
    if held:
        free = yield from _step(
            Need(python, _pins({**dict.fromkeys(held, ""), package: good}), execution), trials
        )
        if free.env.ok:
            newest = {k: free.env.versions.get(k, v) for k, v in held.items()}
            if newest != held:
                options.append(newest)
    return options


def _blames(end: Answer, others: Mapping[str, str]) -> bool:
    """Whether a failure can be laid on the library that moved: not when the error names
    another library that had to rise along with it."""
    moved = _moved(end, others)
    if not moved or end.outcome is None:
        return True
    named = diagnose(end.outcome)
    library = named.library if named else ""
    return not library or not set(_packages_named(library)) & set(moved)


def _bisect_found(
    execution: Execution,
    package: str,
    good: str,
    bad: str,
    python: str,
    others: Mapping[str, str],
    releases: Callable[[str, str], list[str]],
    trials: list[int],
    done: Callable[..., Finding],
    how: str,
) -> Generator[Need, Answer, Finding]:
    library = canonical(package)  # the library of a distribution: tensorflow-cpu is tensorflow
    try:
        series = releases(package, python)
    except (IndexUnavailableError, LookupError) as exc:
        return done(library=library, python=python, how=how + f"; no bisection: {exc}")
    span = [good, *[v for v in series if Version(good) < Version(v) < Version(bad)], bad]
    good_i, bad_i, good_answer, bad_answer = yield from bisect_releases(
        execution, package, span, python, others, trials, blames=lambda a: _blames(a, others)
    )
    ends = [Need(python, _pins({**others, package: v}), execution, package) for v in (good, bad)]
    good_answer = good_answer or (yield from _step(ends[0], trials))
    bad_answer = bad_answer or (yield from _step(ends[1], trials))
    return done(
        library=library,
        how=how,
        python=python,
        last_good=span[good_i] if good_i is not None else None,
        first_bad=span[bad_i] if bad_i is not None else None,
        candidates=len(span),
        **_ends(good_answer, bad_answer, others),
    )


def release_lister(index: Index, *more: Index) -> Callable[[str, str], list[str]]:
    """``(package, python) → releases with a wheel``, as strings, oldest first: those of
    every index given that has the package (a combo's extra index may hold releases the
    main one has not, or the whole package). An index that cannot be asked is an error:
    a release left out would move the first bad one."""

    def releases(package: str, python: str) -> list[str]:
        found: set[Version] = set()
        absent: list[ProjectNotFoundError] = []
        for each in (index, *more):
            try:
                found.update(each.versions_with_wheels(package, python, yanked=True))
            except ProjectNotFoundError as exc:
                absent.append(exc)
        if absent and len(absent) == len(more) + 1:
            raise absent[0]
        return [str(v) for v in sorted(found)]

    return releases


def bisect_library(
    execution: Execution,
    package: str,
    good: str,
    bad: str,
    python: str,
    others: Mapping[str, str],
    releases: Callable[[str, str], list[str]],
) -> Investigation:
    """``harness bisect``: the first release of ``package`` between ``good`` and ``bad``
    where the outcome changes, the others pinned at ``others``."""
    trials = [0]
    finding = Finding(
        execution.problem.id,
        execution.solution.source,
        f"{package} {good}",
        f"{package} {bad}",
        library=canonical(package),
        python=python,
    )

    def done(**fields: Any) -> Finding:
        return Finding(**{**finding.to_dict(), **fields, "trials": trials[0]})

    start = yield from _step(
        Need(python, _pins({**others, package: good}), execution, package), trials
    )
    end = yield from _step(
        Need(python, _pins({**others, package: bad}), execution, package), trials
    )
    for version, answer in ((good, start), (bad, end)):
        if answer.passed is None:
            return done(
                how=f"{package} {version} does not install on Python {python}: {answer.env.error}"
            )
    if start.passed == end.passed:
        status = start.outcome.status.value if start.outcome else "?"
        return done(how=f"the outcome is the same ({status}) at both ends")
    try:
        series = releases(package, python)
    except (IndexUnavailableError, LookupError) as exc:
        return done(how=f"cannot list releases: {exc}")
    span = [good, *[v for v in series if Version(good) < Version(v) < Version(bad)], bad]
    good_i, bad_i, good_answer, bad_answer = yield from bisect_releases(
        execution, package, span, python, others, trials, good_passes=bool(start.passed)
    )
    return done(
        how="bisection" + ("" if start.passed else " (fails first, then passes)"),
        last_good=span[good_i] if good_i is not None else None,
        first_bad=span[bad_i] if bad_i is not None else None,
        candidates=len(span),
        **_ends(good_answer or start, bad_answer or end, others),
    )


def analyse_drift(
    lab: Lab,
    drifts: Sequence[tuple[Execution, str, str, str]],
    envs: Mapping[str, EnvInfo],
    releases: Callable[[str, str], list[str]],
) -> list[Finding]:
    """Attribute and bisect each (execution, last good combo, first bad combo, library
    the error names)."""
    investigations = []
    for execution, good, bad, named in drifts:
        g, b = envs[good], envs[bad]
        investigations.append(
            investigate(
                execution, good, bad, g.versions, b.versions, g.python, b.python, releases, named
            )
        )
    return drive(lab, investigations)


def python_for(
    package: str, good: str, bad: str, start: str, releases: Callable[[str, str], list[str]]
) -> str:
    """The first Python from ``start`` up on which both ends have a wheel."""
    for python in pythons_between(start, SUPPORTED_PYTHONS[-1]):
        try:
            available = set(releases(package, python))
        except (IndexUnavailableError, LookupError):
            continue
        if good in available and bad in available:
            return python
    raise UsageError(f"no Python from {start} up has wheels of {package} {good} and {bad}")


def bisect_release(
    execution: Execution,
    library: str,
    good: str,
    bad: str,
    *,
    builder: EnvBuilder,
    combo: Combo,
    options: RunOptions,
    python: str | None = None,
    log: Callable[[str], None] = lambda _m: None,
) -> tuple[Finding, str]:
    """``harness bisect``: the first release of ``library`` from ``good`` to ``bad`` where
    ``execution``'s outcome changes, the problem's other libraries pinned as in ``combo``,
    each trial run with ``options``.

    The trials run on ``python``, or else on the first Python from the combo's up that
    has wheels of both ends. Returns the finding and the distribution bisected.
    """
    found = lookup(library)
    package = found.package if found else library
    try:
        _, base_versions = builder.resolved_versions(combo)
    except LookupError as exc:
        raise UsageError(str(exc)) from None
    others = {
        k: v
        for k, v in problem_packages(execution, base_versions).items()
        if k not in (package, library)
    }
    # the trials resolve from the combo's indexes, and its releases are listed from them
    extra = combo.extra_index
    releases = release_lister(builder.index, *([Index(extra)] if extra else []))
    chosen = python or python_for(package, good, bad, combo.python, releases)
    investigation = bisect_library(execution, package, good, bad, chosen, others, releases)
    (finding,) = drive(Lab(builder, options, log=log, extra_index_url=extra), [investigation])
    return finding, package
