"""What a model knows of its libraries' versions, dated from where its answers work.

Every answer to a version-conditioned problem was ranged over its library's releases
(``harness reach --answers``: ``labs/reach.py``): it works from some release to some
other. From those ranges, per model:

* the **signed version errors**: 0 for an answer that works at the release its problem
  asks for, negative for one written for older releases (stale), positive for newer ones,
  in releases of the library; their distribution and the **share of stale answers**;
* the **version-knowledge date**: the day the most answers' code works on. An answer's
  range is a span of days — from the release of the oldest release it passes on to the
  release of the first newer one where it fails (an end it reaches to is open) — and a
  model whose knowledge of the APIs stopped on day D writes code that works on D. The day
  inside the most spans is the estimate (the middle of the widest run of such days where
  several tie); its 95% interval comes from resampling the answers (bootstrap).

An answer that works nowhere tried is wrong, not dated: it counts in neither.
"""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.core.problem import MODEL_PREFIX

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from harness.analysis.ranges import Reach

SAMPLES = 1000
Span = tuple["dt.date | None", "dt.date | None"]  # open ends are None


@dataclass(frozen=True)
class Knowledge:
    """One source's answers (a model, or an idiom of ours) over their ranges."""

    source: str
    answers: int  # answers ranged
    ranged: int  # of them, with a range (the rest work nowhere tried)
    errors: Mapping[int, int]  # signed version error → answers
    date: dt.date | None  # the version-knowledge date; None: no spans with a date
    low: dt.date | None  # its bootstrap 95% interval
    high: dt.date | None
    support: int = 0  # answers whose span holds the date

    @property
    def stale(self) -> float | None:
        """The share of ranged answers written for older releases than asked."""
        if not self.ranged:
            return None
        return sum(n for e, n in self.errors.items() if e < 0) / self.ranged

    @property
    def ahead(self) -> float | None:
        if not self.ranged:
            return None
        return sum(n for e, n in self.errors.items() if e > 0) / self.ranged

    @property
    def model(self) -> str:
        return self.source.removeprefix(MODEL_PREFIX)

    def to_dict(self) -> dict[str, Any]:
        def day(value: dt.date | None) -> str | None:
            return value.isoformat() if value else None

        return {
            "source": self.source,
            "answers": self.answers,
            "ranged": self.ranged,
            "errors": {str(k): v for k, v in sorted(self.errors.items())},
            "stale": self.stale,
            "ahead": self.ahead,
            "date": day(self.date),
            "low": day(self.low),
            "high": day(self.high),
            "support": self.support,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Knowledge:
        def day(value: object) -> dt.date | None:
            return dt.date.fromisoformat(str(value)) if value else None

        return cls(
            source=str(data["source"]),
            answers=int(data["answers"]),
            ranged=int(data["ranged"]),
            errors={int(k): int(v) for k, v in dict(data.get("errors", {})).items()},
            date=day(data.get("date")),
            low=day(data.get("low")),
            high=day(data.get("high")),
            support=int(data.get("support", 0)),
        )


def best_day(spans: Sequence[Span]) -> tuple[dt.date | None, int]:
    """The day inside the most ``spans`` (each from its start, inclusive, to its end,
    exclusive; None is open), the middle of the widest run of days that ties; and how
    many spans hold it. None when no span has a date at either end."""
    edges = sorted({d for span in spans for d in span if d is not None})
    if not edges:
        return None, 0
    # the days between edges are alike: test one day in each stretch, and each edge
    before, after = edges[0] - dt.timedelta(days=1), edges[-1] + dt.timedelta(days=1)
    probes = [before, *edges, after]
    counts = [sum(_holds(span, day) for span in spans) for day in probes]
    top = max(counts)
    # the widest run of consecutive probes at the top count (an open end is narrow)
    runs: list[tuple[int, int]] = []
    start = None
    for i, count in enumerate(counts):
        if count == top and start is None:
            start = i
        if count != top and start is not None:
            runs.append((start, i - 1))
            start = None
    if start is not None:
        runs.append((start, len(counts) - 1))

    def days(run: tuple[int, int]) -> tuple[dt.date, dt.date]:
        """The days a run of probes stands for: each probe holds until the next edge."""
        first, last = run
        end = probes[last + 1] - dt.timedelta(days=1) if last + 1 < len(probes) else probes[last]
        return probes[first], end

    start_day, end_day = max((days(r) for r in runs), key=lambda d: d[1] - d[0])
    return start_day + (end_day - start_day) / 2, top


def _holds(span: Span, day: dt.date) -> bool:
    start, end = span
    return (start is None or start <= day) and (end is None or day < end)


def knowledge(
    source: str, found: Sequence[Reach], *, samples: int = SAMPLES, seed: int = 0
) -> Knowledge:
    """The knowledge of ``source`` from the ranges of its answers in ``found``."""
    mine = [r for r in found if r.source == source]
    ranged = [r for r in mine if r.ranged]
    errors = Counter(r.error for r in ranged if r.error is not None)
    spans = [r.works for r in ranged]
    dated: list[Span] = [s for s in spans if s is not None and (s[0] or s[1])]
    date, support = best_day(dated)
    low = high = None
    if date is not None:
        rng = random.Random(seed)  # noqa: S311 - a bootstrap, not a secret
        days = sorted(
            d
            for _ in range(samples)
            if (d := best_day([rng.choice(dated) for _ in dated])[0]) is not None
        )
        low, high = days[int(0.025 * (len(days) - 1))], days[int(0.975 * (len(days) - 1))]
    return Knowledge(source, len(mine), len(ranged), dict(errors), date, low, high, support)


def by_source(found: Sequence[Reach], *, samples: int = SAMPLES) -> list[Knowledge]:
    """One :class:`Knowledge` per source other than the references, in name order."""
    sources = sorted({r.source for r in found if r.source != "reference"})
    return [knowledge(s, found, samples=samples) for s in sources]
