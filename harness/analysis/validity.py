"""Validity ranges: for each problem's reference, the releases of each library where it
passes, as far as the run (and its bisection) can tell.

A matrix samples releases, so a range has two ends, each known within an interval:

* **first good** — the lowest release seen passing (``passes_from``); the true first
  good release lies after the highest release seen failing below it (``fails_below``),
  when one was.
* **first bad** — the lowest release seen failing above every passing one
  (``fails_from``); the true first bad release lies after the highest release seen
  passing (``passes_to``). ``harness bisect`` narrows this end to adjacent releases of
  the library it blamed: then ``bisected`` is true and the two are exact.

Only the first attempt in each combo counts (as in the drift classes), and combos where
the reference did not run (skipped, no env) say nothing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from harness.analysis.drift import DriftClass
from harness.core.libraries import BY_KEY
from harness.core.problem import REFERENCE
from harness.core.results import Status

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from harness.analysis.drift import Trajectory
    from harness.core.findings import Finding

_NOT_RUN = (Status.SKIPPED, Status.ENV_ERROR)


@dataclass(frozen=True)
class Range:
    """Where one library's releases let a reference pass."""

    library: str
    passes_from: str | None  # the lowest release seen passing
    passes_to: str | None  # the highest release seen passing
    fails_below: str | None = None  # the highest release seen failing below passes_from
    fails_from: str | None = None  # the lowest release seen failing above passes_to
    bisected: bool = False  # passes_to and fails_from are adjacent releases (harness bisect)

    @property
    def bounded(self) -> bool:
        """True when some release of this library was seen failing."""
        return self.fails_below is not None or self.fails_from is not None

    def text(self) -> str:
        """``pandas 1.3.5–1.5.3, fails from 2.0.0 (bisected)`` and the like."""
        if self.passes_from is None:
            return f"{self.library}: passes in no release tried"
        span = self.passes_from
        if self.passes_to and self.passes_to != self.passes_from:
            span += f"–{self.passes_to}"
        parts = [f"{self.library} {span}"]
        if self.fails_below:
            parts.append(f"fails in {self.fails_below}")
        if self.fails_from:
            how = " (bisected)" if self.bisected else ""
            parts.append(f"fails from {self.fails_from}{how}")
        return ", ".join(parts)


@dataclass(frozen=True)
class Validity:
    """One problem's reference: how it fared per combo, and its ranges per library."""

    problem_id: str
    library: str  # the problem's own library
    klass: str  # its drift class
    combos: Mapping[str, str]  # combo → status, in era order
    ranges: Sequence[Range]  # every library whose releases differed across the combos
    blamed: str = ""  # the library the drift analysis or bisection blamed, if any

    @property
    def everywhere(self) -> bool:
        """Passes in every combo where it ran."""
        ran = [s for s in self.combos.values() if s not in {s.value for s in _NOT_RUN}]
        return bool(ran) and all(s == Status.PASS.value for s in ran)

    def shown(self) -> list[Range]:
        """The ranges a reader needs: the blamed library's, else those that bound the
        reference, else the problem's own library's."""
        by_lib = {r.library: r for r in self.ranges}
        if self.blamed in by_lib:
            return [by_lib[self.blamed]]
        bounded = [r for r in self.ranges if r.bounded]
        if bounded:
            own = [r for r in bounded if r.library == self.library]
            return own or bounded
        return [by_lib[self.library]] if self.library in by_lib else []

    def text(self) -> str:
        shown = self.shown()
        return "; ".join(r.text() for r in shown) if shown else "no library varied"

    def to_dict(self) -> dict[str, Any]:
        return {
            "problem_id": self.problem_id,
            "library": self.library,
            "class": self.klass,
            "blamed": self.blamed or None,
            "combos": dict(self.combos),
            "ranges": {
                r.library: {k: v for k, v in asdict(r).items() if k != "library"}
                for r in self.ranges
            },
            "text": self.text(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Validity:
        """The inverse of :meth:`to_dict` (kept in summary.json; ``text`` is derived)."""

        def optional(value: object) -> str | None:
            return None if value is None else str(value)

        ranges = tuple(
            Range(
                str(library),
                passes_from=optional(r.get("passes_from")),
                passes_to=optional(r.get("passes_to")),
                fails_below=optional(r.get("fails_below")),
                fails_from=optional(r.get("fails_from")),
                bisected=bool(r.get("bisected", False)),
            )
            for library, r in data.get("ranges", {}).items()
        )
        return cls(
            problem_id=str(data["problem_id"]),
            library=str(data["library"]),
            klass=str(data["class"]),
            combos={str(c): str(s) for c, s in data["combos"].items()},
            ranges=ranges,
            blamed=str(data.get("blamed") or ""),
        )


def _key(version: str) -> Version | None:
    try:
        return Version(version)
    except InvalidVersion:
        return None


def library_range(
    library: str, seen: Sequence[tuple[str, bool]], finding: Finding | None = None
) -> Range:
    """The range of ``library`` from (release, passed) pairs; a bisection's ``finding``
    of this library makes the first-bad end exact."""
    parsed = [(v, p, k) for v, p in seen if (k := _key(v)) is not None]
    good = sorted((k, v) for v, p, k in parsed if p)
    bad = sorted((k, v) for v, p, k in parsed if not p)
    if not good:
        return Range(library, None, None, fails_from=bad[0][1] if bad else None)
    low, high = good[0], good[-1]
    below = [b for b in bad if b[0] < low[0]]
    above = [b for b in bad if b[0] > high[0]]
    found = Range(
        library,
        passes_from=low[1],
        passes_to=high[1],
        fails_below=below[-1][1] if below else None,
        fails_from=above[0][1] if above else None,
    )
    if finding is not None and finding.library == library and finding.first_bad:
        # the bisection walked the releases between the last good and first bad combos
        return Range(
            library,
            passes_from=found.passes_from,
            passes_to=finding.last_good or found.passes_to,
            fails_below=found.fails_below,
            fails_from=finding.first_bad,
            bisected=True,
        )
    return found


def validity(t: Trajectory, finding: Finding | None = None) -> Validity:
    """The validity of one reference trajectory."""
    ran = [(c, a[0]) for c, a in t.steps if a]
    seen: dict[str, list[tuple[str, bool]]] = {}
    for _, o in ran:
        if o.status in _NOT_RUN:
            continue
        for lib, version in o.versions.items():
            if lib in BY_KEY:
                seen.setdefault(lib, []).append((version, o.status is Status.PASS))
    ranges = [
        library_range(lib, pairs, finding)
        for lib, pairs in sorted(seen.items())
        if len({v for v, _ in pairs}) > 1 or lib == t.library
    ]
    blamed = (finding.library if finding and finding.library else "") or (
        t.diagnosis.library if t.diagnosis and t.diagnosis.library in BY_KEY else ""
    )
    return Validity(
        t.problem_id,
        t.library,
        t.klass.value,
        {c: o.status.value for c, o in ran},
        tuple(ranges),
        blamed if t.klass is not DriftClass.STABLE_PASS else "",
    )


def validities(
    trajectories: Iterable[Trajectory], analysis: Mapping[tuple[str, str], Finding] | None = None
) -> list[Validity]:
    """The validity of every reference among ``trajectories``, in their order."""
    found = analysis or {}
    return [
        validity(t, found.get((t.problem_id, t.source)))
        for t in trajectories
        if t.source == REFERENCE
    ]


def headline(found: Sequence[Validity]) -> str:
    """One sentence on a run's validity ranges."""
    everywhere = sum(1 for v in found if v.everywhere)
    limited = len(limited_ranges(found))
    nowhere = len(found) - everywhere - limited
    return (
        f"{everywhere} of {len(found)} references pass in every combo where they ran; "
        f"{limited} pass only in part of the matrix (below); {nowhere} pass in none."
    )


def limited_ranges(found: Sequence[Validity]) -> list[Validity]:
    """The references that pass in some combos and fail in others."""
    return [
        v
        for v in found
        if not v.everywhere and any(s == Status.PASS.value for s in v.combos.values())
    ]
