"""When a model's knowledge of its libraries stops, told as far as its answers can tell:
a bound where they bound it on one side only, an interval where they bound it on both.

Each **informative** answer meets an API change whose new API came out on a known day
(``Evidence``): it uses the new API (it *shows* the change) or the old one. The model is
taken to know its libraries as of some day K. It cannot show a change that came out after
K (no answer uses an API that did not exist yet); a change that came out by K it shows at
a rate of that change's own, unknown, drawn independently of when the change came.

* **Lower bound** — K is no earlier than the newest change any answer shows. Under the
  model this is certain; how many answers show it is said beside it.
* **Upper bound** — only from evidence of not knowing newer changes. Each change met
  counts once, by the first answer (in problem order) that meets it, so that a change met
  by many answers weighs no more than one met by one, and its own rate is one draw.
  Under "K is on or after day t", the changes that came out by t are shown or not
  independently at one rate; given how many were shown (k), which ones were is a uniform
  draw, and the chance that none of the m latest is among them is C(n, k) / C(n + m, k)
  (n = n + m changes by t, the m of them after the lower bound). The upper bound is the
  first change's day at which that chance falls under 1 − ``level``: a one-sided exact
  test, so the statement holds for at least ``level`` of models (``tests/test_dating.py``
  checks it on synthetic models of known cut-off).
* **Ceiling** — the newest change any informative answer met. After it, a model's
  answers to these problems look the same whatever K is: the benchmark cannot date later.

Where no answer shows any change, nothing is dated: the answers say no more than that.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from harness.analysis.drift import natural_key

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

LEVEL = 0.95
INTERVAL, LOWER, UNDATED = "interval", "lower bound", "undated"


@dataclass(frozen=True)
class Evidence:
    """One answer meeting one API change whose new API came out on ``day``."""

    problem: str
    change: str  # "scikit-learn 1.0: get_feature_names_out"
    day: dt.date
    shows: bool  # it uses the new API


@dataclass(frozen=True)
class Dating:
    """What a set of answers says of when the knowledge behind them stops."""

    answers: int = 0  # the answers looked at
    informative: int = 0  # of them, those meeting a dated API change
    changes: int = 0  # the distinct changes they meet
    shown: int = 0  # of those, the changes some answer shows
    low: dt.date | None = None  # no earlier than: the newest change shown
    low_change: str = ""
    low_answers: int = 0  # the answers that show it
    high: dt.date | None = None  # before: where the evidence bounds it above
    high_change: str = ""
    after: int = 0  # changes met after the lower bound, none shown
    oldest: dt.date | None = None  # the releases the informative answers span
    oldest_change: str = ""
    ceiling: dt.date | None = None  # the newest change met: no later date can be told
    ceiling_change: str = ""
    level: float = LEVEL

    @property
    def kind(self) -> str:
        """``interval`` (bounded on both sides), ``lower bound``, or ``undated``."""
        if self.low is None:
            return UNDATED
        return INTERVAL if self.high is not None else LOWER

    def to_dict(self) -> dict[str, Any]:
        def day(value: dt.date | None) -> str | None:
            return value.isoformat() if value else None

        return {
            "kind": self.kind,
            "answers": self.answers,
            "informative": self.informative,
            "changes": self.changes,
            "shown": self.shown,
            "low": day(self.low),
            "low_change": self.low_change,
            "low_answers": self.low_answers,
            "high": day(self.high),
            "high_change": self.high_change,
            "after": self.after,
            "oldest": day(self.oldest),
            "oldest_change": self.oldest_change,
            "ceiling": day(self.ceiling),
            "ceiling_change": self.ceiling_change,
            "level": self.level,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Dating:
        """The inverse of :meth:`to_dict` (``kind`` is derived)."""

        def day(key: str) -> dt.date | None:
            value = data.get(key)
            return dt.date.fromisoformat(str(value)) if value else None

        def count(key: str) -> int:
            return int(data.get(key, 0))

        def text(key: str) -> str:
            return str(data.get(key, ""))

        return cls(
            answers=count("answers"),
            informative=count("informative"),
            changes=count("changes"),
            shown=count("shown"),
            low=day("low"),
            low_change=text("low_change"),
            low_answers=count("low_answers"),
            high=day("high"),
            high_change=text("high_change"),
            after=count("after"),
            oldest=day("oldest"),
            oldest_change=text("oldest_change"),
            ceiling=day("ceiling"),
            ceiling_change=text("ceiling_change"),
            level=float(data.get("level", LEVEL)),
        )


def date(evidence: Sequence[Evidence], answers: int, level: float = LEVEL) -> Dating:
    """What ``evidence`` (from ``answers`` answers) says of when the knowledge stops."""
    if not evidence:
        return Dating(answers=answers, level=level)
    # a change is its name and day: the same name on two days are two changes
    changes = {(e.day, e.change) for e in evidence}
    shown = {(e.day, e.change) for e in evidence if e.shows}
    oldest, newest = min(changes), max(changes)
    base = Dating(
        answers=answers,
        informative=len({e.problem for e in evidence}),
        changes=len(changes),
        shown=len(shown),
        oldest=oldest[0],
        oldest_change=oldest[1],
        ceiling=newest[0],
        ceiling_change=newest[1],
        level=level,
    )
    if not shown:
        return base
    low_day, low_change = max(shown)
    low_answers = len({e.problem for e in evidence if e.shows and e.day == low_day})
    after = sorted(c for c in changes if c[0] > low_day)
    high = _upper(_units(evidence), low_day, 1.0 - level)
    return replace(
        base,
        low=low_day,
        low_change=low_change,
        low_answers=low_answers,
        high=high[0] if high else None,
        high_change=high[1] if high else "",
        after=len(after),
    )


def _units(evidence: Sequence[Evidence]) -> list[tuple[dt.date, str, bool]]:
    """Each change once, as the first answer in problem order that meets it shows it or
    not (the order of problems, never the outcome, picks the answer)."""
    first: dict[tuple[dt.date, str], bool] = {}
    for e in sorted(evidence, key=lambda e: (natural_key(e.problem), e.day, e.change)):
        first.setdefault((e.day, e.change), e.shows)
    return [(day, change, shows) for (day, change), shows in sorted(first.items())]


def _upper(
    units: Sequence[tuple[dt.date, str, bool]], low: dt.date, alpha: float
) -> tuple[dt.date, str] | None:
    """The first change's day after ``low`` at which "K is on or after it" is rejected at
    ``alpha``; None when no day is."""
    k = sum(shows for _, _, shows in units)
    if k == 0:
        return None  # no change shown by its own answer: no rate to miss newer ones at
    n = sum(1 for day, _, _ in units if day <= low)
    later = [(day, change) for day, change, _ in units if day > low]
    for i, (day, change) in enumerate(later):
        if i + 1 < len(later) and later[i + 1][0] == day:
            continue  # changes of one day are tested together
        if chance_none_shown(n, k, i + 1) < alpha:
            return day, change
    return None


def chance_none_shown(n: int, k: int, m: int) -> float:
    """Of ``n + m`` changes of which ``k`` are shown, drawn uniformly: the chance that none
    of the last ``m`` is shown, C(n, k) / C(n + m, k)."""
    if k > n:
        return 0.0
    return math.comb(n, k) / math.comb(n + m, k)
