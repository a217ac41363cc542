"""How far a version-conditioned problem reaches: the releases of its library over which
its solution passes.

A GitChameleon problem is written for one release (``scipy==1.8.1``). Its reference is run
there, then at the newest and at the oldest release of the library with a wheel for the
problem's Python, the problem's other pins held where they install (where they do not,
they rise as little as the release needs: ``lab_mod.Lab``). Where an end fails, the
releases between it and the pinned one are bisected for the last that passes. A range is
assumed to be one piece, as bisection assumes everywhere. When the newest release with a
wheel for that Python is not the library's newest, the newest is tried too, on the first
Python that has a wheel of it.

Each problem gets a class from two facts: does the solution pass on a release older than
its own minor series (*works earlier*), and does it pass up to the library's newest
release (*reaches today*):

* ``version-specific`` — neither: it passes only around its version;
* ``breaks later`` — it works on older releases too, then stops working;
* ``version-robust`` — it passes from its version (not before) to today;
* ``works everywhere`` — on every release tried, old and new: the problem does not test
  knowledge of any version.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from harness.analysis.ranges import Reach, classify
from harness.envside.protocol import SUPPORTED_PYTHONS
from harness.labs.bisection import _pins, bisect_releases
from harness.labs.lab import Answer, Need

if TYPE_CHECKING:
    from collections.abc import Callable, Generator, Mapping, Sequence

    from harness.execute.runner import Execution

# Packages a problem's env asks for without a version, held at one release in every trial:
# when the other pins rise (``lab_mod.Lab``), they rise as little as they can, and an
# unpinned package would sink to its first release. These releases install on every
# Python from 3.8 to 3.13.
HELD = {"pytest": "8.3.5", "setuptools": "75.3.0"}


def finals(versions: Sequence[str]) -> list[str]:
    """Final releases only (no pre-releases, no dev builds), oldest first."""
    out = []
    for v in versions:
        try:
            parsed = Version(v)
        except InvalidVersion:
            continue
        if not (parsed.is_prerelease or parsed.is_devrelease):
            out.append(v)
    return sorted(out, key=Version)


def investigate(
    execution: Execution,
    package: str,
    pinned: str,
    python: str,
    others: Mapping[str, str],
    releases: Callable[[str, str], list[str]],
    today: str,
) -> Generator[Need, Answer, Reach]:
    """The reach of ``execution`` (a reference) over ``package``'s releases."""
    trials = [0]
    found = Reach(execution.problem.id, package, pinned, python, today=today)

    def done(**fields: Any) -> Reach:
        return Reach(**{**found.to_dict(), **fields, "trials": trials[0]})

    def ask(version: str, on: str = python) -> Generator[Need, Answer, Answer]:
        trials[0] += 1
        pins = _pins({**others, package: version})
        return (yield Need(on, pins, execution, package))

    series = finals(releases(package, python))
    if pinned not in series:
        series = sorted({*series, pinned}, key=Version)
    start = yield from ask(pinned)
    if not start.passed:
        why = "does not install" if start.passed is None else "fails"
        detail = (
            start.env.error
            if start.passed is None
            else (start.outcome.first_line if start.outcome else "")
        )
        return done(oldest=series[0], note=f"{why} at its own release {pinned}: {detail}"[:300])
    at = series.index(pinned)
    highest, above, top = yield from _edge(
        execution, package, series[at:], python, others, trials, ask
    )
    lowest, below, _ = yield from _edge(
        execution, package, series[: at + 1][::-1], python, others, trials, ask
    )
    note = ""
    if top and Version(highest) < Version(today):
        # the newest release has no wheel for this Python: try it on the first that has
        newer = _python_with(package, today, python, releases)
        if newer is None:
            note = f"{package} {today} has no wheel for a Python this machine has"
        else:
            last = yield from ask(today, newer)
            if last.passed:
                highest, note = today, f"{today} passes on Python {newer}"
            elif last.passed is False:
                above, note = today, f"{today} fails on Python {newer}"
            else:
                note = f"{package} {today} does not install on Python {newer}"
    return done(
        lowest=lowest,
        highest=highest,
        below=below,
        above=above,
        oldest=series[0],
        klass=classify(pinned, lowest, highest, today),
        note=note,
    )


def _edge(
    execution: Execution,
    package: str,
    span: Sequence[str],
    python: str,
    others: Mapping[str, str],
    trials: list[int],
    ask: Callable[[str], Generator[Need, Answer, Answer]],
) -> Generator[Need, Answer, tuple[str, str | None, bool]]:
    """The farthest release of ``span`` (from the pinned one, which passes, outwards)
    that still passes, the nearest beyond it that fails (None: none does), and whether
    it is the farthest release of ``span`` that installs."""
    span = list(span)
    while len(span) > 1:
        end = yield from ask(span[-1])
        if end.passed:
            return span[-1], None, True
        if end.passed is False:
            good, bad, _, _ = yield from bisect_releases(
                execution, package, span, python, others, trials, good_passes=True
            )
            return span[good or 0], span[bad] if bad is not None else None, False
        span.pop()  # the far end does not install here: the next one in
    return span[0], None, True


def _python_with(
    package: str, version: str, start: str, releases: Callable[[str, str], list[str]]
) -> str | None:
    """The first Python from ``start`` up with a wheel of ``package`` ``version``."""
    for python in SUPPORTED_PYTHONS:
        if Version(python) < Version(start):
            continue
        try:
            if version in releases(package, python):
                return python
        except LookupError:
            continue
    return None
