"""A model's API vintage and a benchmark's decay, from outcomes over dated combos.

Pure arithmetic on pass/fail tables (no run directories, no plotting), so that it can be
tested on synthetic outcomes with a known answer.

- A **curve** is one share per date. A model's share at a date counts only the problems
  whose reference passes at that date (problem drift is never charged to the model) and
  that its answer could run there (``None``: skipped, no environment). The reports pass
  in only the problems whose reference passes at every date (``reports.timeline``), so
  that every date counts the same problems.
- The **vintage** is the date where the share is highest. Tied highest dates (a plateau)
  give their middle date; a curve equal everywhere (flat) gives none: it carries no
  information about dates. The 95% interval comes from a bootstrap over problems.
- The references' **decay**: of the problems passing at the references' best date, the
  share still passing at each later date, and the **half-life**: when that share reaches
  one half (between dates, linearly), or, when it never does within the timeline, from an
  exponential fitted to the shares (``None`` when nothing decays).
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from harness.core.problem import MODEL_PREFIX, REFERENCE
from harness.core.results import Status

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from harness.core.results import Outcome
    from harness.envs.build import EnvInfo

RISE, PLATEAU, DECAY, FLAT, NO_DATA = "rise", "plateau", "decay", "flat", "no data"
_EPS = 1e-12


@dataclass(frozen=True)
class Point:
    day: dt.date
    passed: int
    counted: int

    @property
    def rate(self) -> float | None:
        return self.passed / self.counted if self.counted else None


@dataclass(frozen=True)
class Vintage:
    source: str
    curve: tuple[Point, ...]
    best: dt.date | None  # None: a flat curve, or nothing counted
    low: dt.date | None  # the bootstrap's 95% interval
    high: dt.date | None
    shape: tuple[str, ...]  # rise / plateau / decay, in order; or (flat,) or (no data,)


@dataclass(frozen=True)
class Decay:
    curve: tuple[Point, ...]  # the references' share passing at each date
    anchor: dt.date | None  # their best date
    surviving: tuple[Point, ...]  # of those passing at the anchor, still passing later
    half_life_days: float | None
    extrapolated: bool  # the half-life lies beyond the timeline's last date


def _vectors(
    outcomes: Mapping[str, Mapping[dt.date, bool | None]],
    days: Sequence[dt.date],
    holds: Mapping[str, Mapping[dt.date, bool | None]] | None,
) -> dict[str, tuple[tuple[int, ...], tuple[int, ...]]]:
    """Per problem: (counted, passed) per date."""
    out = {}
    for problem, by_day in outcomes.items():
        counted, passed = [], []
        for day in days:
            ran = by_day.get(day)
            held = True if holds is None else holds.get(problem, {}).get(day) is True
            counts = ran is not None and held
            counted.append(int(counts))
            passed.append(int(counts and bool(ran)))
        out[problem] = (tuple(counted), tuple(passed))
    return out


def _sum(
    vectors: Sequence[tuple[tuple[int, ...], tuple[int, ...]]], width: int
) -> tuple[list[int], list[int]]:
    """Counted and passed per date, over all problems."""
    counted, passed = [0] * width, [0] * width
    for c, p in vectors:
        for j in range(width):
            counted[j] += c[j]
            passed[j] += p[j]
    return counted, passed


def best_index(rates: Sequence[float | None]) -> int | None:
    """The index of the highest rate: the middle of a tie; None when flat or empty."""
    known = [(i, r) for i, r in enumerate(rates) if r is not None]
    if not known:
        return None
    top = max(r for _, r in known)
    if all(abs(r - top) <= _EPS for _, r in known):
        return None if len(known) > 1 else known[0][0]
    tied = [i for i, r in known if abs(r - top) <= _EPS]
    return tied[(len(tied) - 1) // 2]


def shape(rates: Sequence[float | None]) -> tuple[str, ...]:
    known = [r for r in rates if r is not None]
    if not known:
        return (NO_DATA,)
    top = max(known)
    if all(abs(r - top) <= _EPS for r in known):
        return (FLAT,)
    tops = [i for i, r in enumerate(known) if abs(r - top) <= _EPS]
    words = []
    if any(r < top - _EPS for r in known[: tops[0]]):
        words.append(RISE)
    if len(tops) > 1:
        words.append(PLATEAU)
    if any(r < top - _EPS for r in known[tops[-1] + 1 :]):
        words.append(DECAY)
    return tuple(words)


def _rates(counted: Sequence[int], passed: Sequence[int]) -> list[float | None]:
    return [p / c if c else None for c, p in zip(counted, passed, strict=True)]


def vintage(
    source: str,
    answers: Mapping[str, Mapping[dt.date, bool | None]],
    references: Mapping[str, Mapping[dt.date, bool | None]],
    days: Sequence[dt.date],
    *,
    samples: int = 1000,
    seed: int = 0,
) -> Vintage:
    """``source``'s curve over ``days``, its best date and the bootstrap interval."""
    vectors = _vectors(answers, days, references)
    problems = sorted(vectors)
    counted, passed = _sum([vectors[p] for p in problems], len(days))
    curve = tuple(Point(d, p, c) for d, c, p in zip(days, counted, passed, strict=True))
    rates = _rates(counted, passed)
    best = best_index(rates)
    low = high = None
    if best is not None and problems:
        low, high = _interval(np.array([vectors[p] for p in problems]), days, samples, seed)
    return Vintage(
        source,
        curve,
        days[best] if best is not None else None,
        low,
        high,
        shape(rates),
    )


def _interval(
    vectors: np.ndarray, days: Sequence[dt.date], samples: int, seed: int
) -> tuple[dt.date | None, dt.date | None]:
    """The 95% interval of the best date over ``samples`` resamplings of the problems.

    ``vectors`` is problems × (counted, passed) × dates; each resampling weighs every
    problem by how often it was drawn, so one matrix product gives all its counts."""
    rng = np.random.default_rng(seed)
    n = len(vectors)
    weights = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(samples)])
    counted = weights @ vectors[:, 0, :]
    passed = weights @ vectors[:, 1, :]
    picks = []
    for c, p in zip(counted, passed, strict=True):
        index = best_index([float(b) / a if a else None for a, b in zip(c, p, strict=True)])
        if index is not None:
            picks.append(index)
    if not picks:
        return None, None
    picks.sort()
    return days[picks[int(0.025 * (len(picks) - 1))]], days[
        picks[math.ceil(0.975 * (len(picks) - 1))]
    ]


def decay(
    references: Mapping[str, Mapping[dt.date, bool | None]], days: Sequence[dt.date]
) -> Decay:
    """The references' share passing per date, and the half-life of those passing at
    their best date."""
    vectors = _vectors(references, days, None)
    counted, passed = _sum(list(vectors.values()), len(days))
    curve = tuple(Point(d, p, c) for d, c, p in zip(days, counted, passed, strict=True))
    rates = _rates(counted, passed)
    known = [i for i, r in enumerate(rates) if r is not None]
    if not known:
        return Decay(curve, None, (), None, False)
    top = max(rates[i] or 0.0 for i in known)
    anchor = next(i for i in known if abs((rates[i] or 0.0) - top) <= _EPS)
    alive = [p for p, by_day in references.items() if by_day.get(days[anchor]) is True]
    surviving = []
    for day in days[anchor:]:
        ran = [p for p in alive if references[p].get(day) is not None]
        surviving.append(Point(day, sum(1 for p in ran if references[p][day]), len(ran)))
    half, extrapolated = _half_life(surviving)
    return Decay(curve, days[anchor], tuple(surviving), half, extrapolated)


def _half_life(points: Sequence[Point]) -> tuple[float | None, bool]:
    """Days until the share reaches 1/2: crossed between two dates, or fitted."""
    known = [(p.day, r) for p in points if (r := p.rate) is not None]
    if len(known) < 2:
        return None, False
    start = known[0][0]
    for (d0, r0), (d1, r1) in itertools.pairwise(known):
        if r1 <= 0.5 < r0:  # the anchor's share is 1: it starts above
            fraction = (r0 - 0.5) / (r0 - r1)
            return (d0 - start).days + fraction * (d1 - d0).days, False
    # never reached within the timeline: fit share = exp(-λ t) through the anchor
    xs = [(d - start).days for d, _ in known[1:]]
    ys = [-math.log(max(r or 0.0, 1e-9)) for _, r in known[1:]]
    denominator = sum(x * x for x in xs)
    rate = sum(x * y for x, y in zip(xs, ys, strict=True)) / denominator if denominator else 0.0
    if rate <= 0:
        return None, False
    return math.log(2) / rate, True


SAMPLES = 1000


# statuses that say nothing about the code: it could not run there
_NOT_RUN = frozenset({Status.SKIPPED, Status.ENV_ERROR})


@dataclass(frozen=True)
class Timeline:
    days: tuple[dt.date, ...]
    combos: tuple[str, ...]  # the combo of each date
    references: Decay
    models: tuple[Vintage, ...]

    def to_dict(self) -> dict[str, Any]:
        def points(curve: Iterable[Any]) -> list[dict[str, Any]]:
            return [
                {
                    "date": p.day.isoformat(),
                    "passed": p.passed,
                    "counted": p.counted,
                    "rate": p.rate,
                }
                for p in curve
            ]

        def day(value: dt.date | None) -> str | None:
            return value.isoformat() if value else None

        return {
            "dates": [d.isoformat() for d in self.days],
            "combos": list(self.combos),
            "references": {
                "curve": points(self.references.curve),
                "anchor": day(self.references.anchor),
                "surviving": points(self.references.surviving),
                "half_life_days": self.references.half_life_days,
                "half_life_extrapolated": self.references.extrapolated,
            },
            "models": [
                {
                    "model": v.source.removeprefix(MODEL_PREFIX),
                    "vintage": day(v.best),
                    "low": day(v.low),
                    "high": day(v.high),
                    "shape": list(v.shape),
                    "curve": points(v.curve),
                }
                for v in self.models
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Timeline:
        """The inverse of :meth:`to_dict` (kept in summary.json and timeline.json)."""

        def points(curve: Iterable[Mapping[str, Any]]) -> tuple[Point, ...]:
            return tuple(
                Point(dt.date.fromisoformat(p["date"]), int(p["passed"]), int(p["counted"]))
                for p in curve
            )

        def day(value: str | None) -> dt.date | None:
            return dt.date.fromisoformat(value) if value else None

        refs = data["references"]
        half_life = refs.get("half_life_days")
        return cls(
            days=tuple(dt.date.fromisoformat(d) for d in data["dates"]),
            combos=tuple(str(c) for c in data["combos"]),
            references=Decay(
                points(refs["curve"]),
                day(refs.get("anchor")),
                points(refs["surviving"]),
                None if half_life is None else float(half_life),
                bool(refs.get("half_life_extrapolated", False)),
            ),
            models=tuple(
                Vintage(
                    MODEL_PREFIX + str(m["model"]),
                    points(m["curve"]),
                    day(m.get("vintage")),
                    day(m.get("low")),
                    day(m.get("high")),
                    tuple(str(s) for s in m["shape"]),
                )
                for m in data["models"]
            ),
        )


def dated_combos(envs: Mapping[str, EnvInfo]) -> dict[str, dt.date]:
    """The run's combos that carry a date, in date order (one combo per date: the first)."""
    by_day: dict[dt.date, str] = {}
    for combo, env in envs.items():
        if env.as_of:
            by_day.setdefault(dt.date.fromisoformat(env.as_of), combo)
    return {combo: day for day, combo in sorted(by_day.items())}


def build_timeline(
    outcomes: Sequence[Outcome],
    envs: Mapping[str, EnvInfo],
    *,
    samples: int = SAMPLES,
    seed: int = 0,
) -> Timeline | None:
    """The run's timeline; None when fewer than two of its combos carry a date."""
    dated = dated_combos(envs)
    if len(dated) < 2:
        return None
    days = tuple(dated.values())
    tables: dict[str, dict[str, dict[dt.date, bool | None]]] = {}
    for o in outcomes:
        day = dated.get(o.combo)
        if day is None:
            continue
        passed = None if o.status in _NOT_RUN else o.status is Status.PASS
        tables.setdefault(o.source, {}).setdefault(o.problem_id, {})[day] = passed
    references = tables.get(REFERENCE, {})
    # The models are compared on the same problems at every date: those whose reference
    # passes at every date it ran. Counting at each date the problems that hold there
    # would move the denominator with the problems' own drift (801 to 862 of DS-1000's),
    # and that movement, not the answers, would pick the best date.
    steady = {
        problem: by_day
        for problem, by_day in references.items()
        if any(v is not None for v in by_day.values())
        and all(v is not False for v in by_day.values())
    }
    models = tuple(
        vintage(
            source,
            {p: a for p, a in table.items() if p in steady},
            steady,
            days,
            samples=samples,
            seed=seed,
        )
        for source, table in sorted(tables.items())
        if source.startswith(MODEL_PREFIX)
    )
    return Timeline(days, tuple(dated), decay(references, days), models)
