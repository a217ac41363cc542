"""How far a version-conditioned problem reaches: the releases of its library over which
a solution passes — its reference, or a model's answer.

A GitChameleon problem is written for one release (``scipy==1.8.1``). A solution is run
there, then at the newest and at the oldest release of the library with a wheel for the
problem's Python, the problem's other pins held where they install (where they do not,
they rise as little as the release needs: ``lab.Lab``). Where an end fails, the releases
between it and the pinned one are bisected for the last that passes. A range is assumed
to be one piece, as bisection assumes everywhere. When the newest release with a wheel
for that Python is not the library's newest, the newest is tried too, on the first
Python that has a wheel of it.

A model's answer may fail at the problem's own release: written for older releases
(stale), or for newer ones. Then the ends are tried first, the oldest first: where one passes, the releases
between it and the pinned one are bisected for the first that passes, and the range runs
from there to that end; where neither does, the middle of each side is tried once, and
an answer that passes nowhere tried has no range (it is wrong, not dated).

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

from harness.analysis.ranges import Reach, classify, signed_error
from harness.core.libraries import lookup
from harness.core.problem import REFERENCE
from harness.envside.protocol import SUPPORTED_PYTHONS
from harness.labs.bisection import _pins, bisect_releases, distribution
from harness.labs.lab import Answer, Need

if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Callable, Generator, Mapping, Sequence

    from harness.execute.runner import Execution

# Packages a problem's env asks for without a version, held at one release in every trial:
# when the other pins rise (``lab_mod.Lab``), they rise as little as they can, and an
# unpinned package would sink to its first release. These releases install on every
# Python from 3.8 to 3.13.
HELD = {"pytest": "8.3.5", "setuptools": "75.3.0"}


def package_of(library: str) -> str:
    """The distribution a library's releases are tried as (``scikit-learn``, ``torch``)."""
    lib = lookup(library)
    return lib.package if lib else distribution(library)


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
    as_of: dt.date | None = None,
) -> Generator[Need, Answer, Reach]:
    """The reach of ``execution`` (a reference, or a model's answer) over ``package``'s
    releases. The unpinned packages of ``others`` resolve at the first trial (the pinned
    release) as the index was on ``as_of``, and are held at what they resolved to from
    then on, as the library moves."""
    trials = [0]
    found = Reach(
        execution.problem.id, package, pinned, python, today=today, source=execution.solution.source
    )

    def done(**fields: Any) -> Reach:
        if fields.get("lowest") and fields.get("highest"):
            fields["error"] = signed_error(series, pinned, fields["lowest"], fields["highest"])
        return Reach(**{**found.to_dict(), **fields, "trials": trials[0]})

    def ask(version: str, on: str = python) -> Generator[Need, Answer, Answer]:
        trials[0] += 1
        pins = _pins({**others, package: version})
        return (yield Need(on, pins, execution, package, as_of=as_of))

    series = finals(releases(package, python))
    # the release asked for, spelled as asked: a problem's "2" is 2.0.0, not one beside it
    series = sorted([*(v for v in series if Version(v) != Version(pinned)), pinned], key=Version)
    start = yield from ask(pinned)
    if as_of is not None and start.env.ok:
        others = {p: v or start.env.versions.get(p, "") for p, v in others.items()}
        as_of = None
    if start.passed is None or (not start.passed and execution.solution.source == REFERENCE):
        # a reference that fails at its own release is a broken problem: nothing to range
        return done(oldest=series[0], note=_at_pinned(pinned, start))
    at = series.index(pinned)
    if not start.passed:
        elsewhere = yield from _elsewhere(
            execution, package, series, at, python, others, trials, ask
        )
        if elsewhere is None:
            return done(oldest=series[0], note=_at_pinned(pinned, start))
        lowest, highest, below, above = elsewhere
        return done(
            lowest=lowest, highest=highest, below=below, above=above, oldest=series[0],
            passes_pinned=False,
        )  # fmt: skip
    highest, above, top = yield from _edge(
        execution, package, series[at:], python, others, trials, ask, as_of
    )
    lowest, below, _ = yield from _edge(
        execution, package, series[: at + 1][::-1], python, others, trials, ask, as_of
    )
    note = ""
    if top and Version(highest) < Version(today):
        # the newest release has no wheel for this Python: try it on the first that has
        passed, note = yield from _newest_elsewhere(package, today, python, releases, ask)
        if passed:
            highest = today
        elif passed is False:
            above = today
    return done(
        lowest=lowest,
        highest=highest,
        below=below,
        above=above,
        oldest=series[0],
        klass=classify(pinned, lowest, highest, today),
        note=note,
        passes_pinned=True,
    )


def _at_pinned(pinned: str, start: Answer) -> str:
    """Why there is no range: what the trial at the pinned release found."""
    if start.passed is None:
        return f"does not install at its own release {pinned}: {start.env.error}"[:300]
    detail = start.outcome.first_line if start.outcome else ""
    return f"fails at its own release {pinned}: {detail}"[:300]


def _newest_elsewhere(
    package: str,
    today: str,
    python: str,
    releases: Callable[[str, str], list[str]],
    ask: Callable[[str, str], Generator[Need, Answer, Answer]],
) -> Generator[Need, Answer, tuple[bool | None, str]]:
    """The library's newest release, which has no wheel for ``python``, tried on the first
    Python that has one: whether it passes there (None: not tried, or it does not
    install), and a note that says so."""
    newer = _python_with(package, today, python, releases)
    if newer is None:
        return None, f"{package} {today} has no wheel for a Python this machine has"
    last = yield from ask(today, newer)
    if last.passed:
        return True, f"{today} passes on Python {newer}"
    if last.passed is False:
        return False, f"{today} fails on Python {newer}"
    return None, f"{package} {today} does not install on Python {newer}"


def _elsewhere(
    execution: Execution,
    package: str,
    series: Sequence[str],
    at: int,
    python: str,
    others: Mapping[str, str],
    trials: list[int],
    ask: Callable[[str], Generator[Need, Answer, Answer]],
    as_of: dt.date | None = None,
) -> Generator[Need, Answer, tuple[str, str, str | None, str | None] | None]:
    """Where an answer that fails at the pinned release (``series[at]``) passes: (lowest,
    highest, the release below lowest that fails, the one above highest that fails), or
    None when it passes on none of the releases tried. The older side first, then the
    newer; each at its far end, then at its middle."""
    # from the pinned one outwards, the older side first: a model's answer is far more
    # often written for older releases than for newer ones
    sides = (list(series[: at + 1][::-1]), list(series[at:]))
    for older, span in zip((True, False), sides, strict=True):
        far_end: bool | None = None  # how the far end answered, once asked
        for first in dict.fromkeys(i for i in (len(span) - 1, len(span) // 2) if i > 0):
            probe = first
            answer = yield from ask(span[probe])
            if probe == len(span) - 1:
                far_end = answer.passed
            while answer.passed is None and probe > 1:
                # it does not install here (the other pins held: SciPy 1.11 beside NumPy
                # 2): the next release in, until one installs
                probe -= 1
                answer = yield from ask(span[probe])
            if not answer.passed:
                continue
            # bisect from the passing probe towards the pinned release (which fails)...
            inward = span[: probe + 1][::-1]
            good, bad, _, _ = yield from bisect_releases(
                execution, package, inward, python, others, trials, True, as_of
            )
            near, nearer = inward[good or 0], inward[bad] if bad is not None else None
            # ...and outwards, when the probe is not the far end (known to fail there, or
            # not to install: then the edge is looked for among the releases before it)
            far, farther = span[probe], None
            outward = span[probe:]
            if far_end is False and len(outward) > 1:
                good, bad, _, _ = yield from bisect_releases(
                    execution, package, outward, python, others, trials, True, as_of
                )
                far, farther = outward[good or 0], outward[bad] if bad is not None else None
            elif far_end is None and len(outward) > 2:
                far, farther, _ = yield from _edge(
                    execution, package, outward[:-1], python, others, trials, ask, as_of
                )
            # on the older side the near end is the range's newest release, on the newer
            # side its oldest (the same release when the range is one release wide)
            if older:
                return far, near, farther, nearer
            return near, far, nearer, farther
    return None


def _edge(
    execution: Execution,
    package: str,
    span: Sequence[str],
    python: str,
    others: Mapping[str, str],
    trials: list[int],
    ask: Callable[[str], Generator[Need, Answer, Answer]],
    as_of: dt.date | None = None,
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
                execution, package, span, python, others, trials, True, as_of
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
