"""Which deprecated or removed APIs a model reaches for, and what that says of when its
knowledge stops — from every answer, not only the few whose outcome changes with the date.

Each answer is joined with the catalogue of API changes (``harness/data/catalogue.toml``)
in three ways, each evidence of its own:

* **uses** — its code uses the old API (the entry's pattern);
* **warned** — an execution of it raised a ``DeprecationWarning`` or ``FutureWarning``
  naming the old API (or matching the entry's ``warning``);
* **failed** — it uses the old API and failed, for an API's reason (removed, changed
  signature or behaviour), in a combo whose library has already removed it;

and, where the new API is recent enough to say something (the entry's ``introduced``),
**knows** — its code uses the new API.

Dating: an answer that uses the new API knows the library at least as of the release
that introduced it; one that uses the old API was written as if before the release that
removed it (or, for an API deprecated and not removed, before the one that deprecated
it). Each is a span of days (``harness.matrix.release_dates``); the knowledge date is the
day the most spans hold, and its 95% interval comes from resampling the answers — the
estimator of ``harness.analysis.knowledge``.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from harness.analysis.causes import Cause, diagnose
from harness.analysis.knowledge import best_day
from harness.analysis.staleness import static_uses
from harness.core.problem import MODEL_PREFIX
from harness.core.results import Status
from harness.matrix.release_dates import day_of

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from harness.analysis.knowledge import Span
    from harness.analysis.staleness import Entry
    from harness.core.problem import Solution
    from harness.core.results import Outcome

SAMPLES = 1000
_API_CAUSES = (Cause.REMOVED_API, Cause.CHANGED_SIGNATURE, Cause.CHANGED_BEHAVIOUR)
_DEPRECATION = re.compile(r"Deprecat|FutureWarning")
_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class ApiUse:
    """One API change of the catalogue, as one model's answers meet it (problem ids)."""

    library: str
    old: str
    new: str
    deprecated: str | None
    removed: str | None
    introduced: str | None
    uses: tuple[str, ...] = ()  # answers whose code uses the old API
    warned: tuple[str, ...] = ()  # answers whose execution warned about it
    failed: tuple[str, ...] = ()  # answers that failed where it was already removed
    knows: tuple[str, ...] = ()  # answers whose code uses the new API

    @property
    def stale(self) -> tuple[str, ...]:
        """Answers that reach for the old API, by any evidence."""
        return tuple(sorted({*self.uses, *self.warned, *self.failed}))

    def to_dict(self) -> dict[str, Any]:
        return {
            "library": self.library,
            "old": self.old,
            "new": self.new,
            "deprecated": self.deprecated,
            "removed": self.removed,
            "introduced": self.introduced,
            "uses": list(self.uses),
            "warned": list(self.warned),
            "failed": list(self.failed),
            "knows": list(self.knows),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ApiUse:
        return cls(
            str(data["library"]),
            str(data["old"]),
            str(data["new"]),
            data.get("deprecated"),
            data.get("removed"),
            data.get("introduced"),
            *(
                tuple(str(p) for p in data.get(k, ()))
                for k in ("uses", "warned", "failed", "knows")
            ),
        )


@dataclass(frozen=True)
class ModelApis:
    """What one model's answers say of the APIs it knows."""

    model: str
    answers: int
    apis: tuple[ApiUse, ...]  # the changes its answers met, most stale uses first
    newest: str = ""  # the newest API change it knows: "pandas 2.2.0: frequency aliases …"
    newest_day: dt.date | None = None
    date: dt.date | None = None  # the knowledge date from the APIs it uses
    low: dt.date | None = None
    high: dt.date | None = None
    spans: int = 0  # dated evidence behind the date
    stale_answers: tuple[str, ...] = field(default=())  # answers using any old API

    def to_dict(self) -> dict[str, Any]:
        def day(value: dt.date | None) -> str | None:
            return value.isoformat() if value else None

        return {
            "model": self.model,
            "answers": self.answers,
            "apis": [a.to_dict() for a in self.apis],
            "newest": self.newest,
            "newest_day": day(self.newest_day),
            "date": day(self.date),
            "low": day(self.low),
            "high": day(self.high),
            "spans": self.spans,
            "stale_answers": list(self.stale_answers),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelApis:
        def day(value: object) -> dt.date | None:
            return dt.date.fromisoformat(str(value)) if value else None

        return cls(
            model=str(data["model"]),
            answers=int(data["answers"]),
            apis=tuple(ApiUse.from_dict(a) for a in data.get("apis", ())),
            newest=str(data.get("newest", "")),
            newest_day=day(data.get("newest_day")),
            date=day(data.get("date")),
            low=day(data.get("low")),
            high=day(data.get("high")),
            spans=int(data.get("spans", 0)),
            stale_answers=tuple(str(p) for p in data.get("stale_answers", ())),
        )


def _symbols(entry: Entry) -> list[str]:
    """The names a warning about ``entry``'s old API would use: the last dotted part of
    each alternative, and the keywords it names (``read_csv(delim_whitespace=)``)."""
    found = []
    for part in entry.old.split(" / "):
        head = part.split("(")[0].strip()
        if head:
            found.append(head.split(".")[-1])
        found += re.findall(r"\b(\w+)=", part)
    return [s for s in dict.fromkeys(found) if _SYMBOL.fullmatch(s) and len(s) > 2]


def _warns_about(outcome: Outcome, entry: Entry) -> bool:
    for w in outcome.warnings:
        if not _DEPRECATION.search(w.category):
            continue
        if entry.warning is not None:
            if entry.warning.search(w.message):
                return True
        elif any(re.search(rf"\b{re.escape(s)}\b", w.message) for s in _symbols(entry)):
            return True
    return False


def _removed_there(outcome: Outcome, entry: Entry) -> bool:
    if entry.removed is None:
        return False
    have = outcome.versions.get(entry.library)
    try:
        return have is not None and Version(have) >= Version(entry.removed)
    except InvalidVersion:
        return False


def _failed_of(outcome: Outcome, entry: Entry) -> bool:
    if outcome.status not in (Status.FAIL, Status.ERROR) or not _removed_there(outcome, entry):
        return False
    found = diagnose(outcome)
    return found is not None and found.cause in _API_CAUSES


def _spans(api: ApiUse, dates: Mapping[str, Mapping[str, dt.date]]) -> dict[str, list[Span]]:
    """Per answer, the days its uses of ``api`` are right on."""
    out: dict[str, list[Span]] = {}
    if api.introduced and (day := day_of(dates, api.library, api.introduced)):
        for p in api.knows:
            out.setdefault(p, []).append((day, None))
    gone = api.removed or api.deprecated
    if gone and (day := day_of(dates, api.library, gone)):
        for p in api.stale:
            out.setdefault(p, []).append((None, day))
    return out


def measure(
    model: str,
    solutions: Sequence[Solution],
    outcomes: Sequence[Outcome],
    catalogue: Sequence[Entry],
    dates: Mapping[str, Mapping[str, dt.date]],
    *,
    samples: int = SAMPLES,
    seed: int = 0,
) -> ModelApis:
    """What ``model``'s answers (``solutions``, run as ``outcomes``) say of its APIs."""
    source = MODEL_PREFIX + model
    mine = [s for s in solutions if s.source == source]
    runs: dict[str, list[Outcome]] = {}
    for o in outcomes:
        if o.source == source:
            runs.setdefault(o.problem_id, []).append(o)
    # each answer's old APIs, found once: the catalogue's patterns on its code
    used = {s.problem_id: {id(e) for e in static_uses(s.code, catalogue)} for s in mine}
    apis = []
    for entry in catalogue:
        uses, warned, failed, knows = [], [], [], []
        for s in mine:
            old = id(entry) in used[s.problem_id]
            if old:
                uses.append(s.problem_id)
            if entry.new_pattern is not None and entry.new_pattern.search(s.code):
                knows.append(s.problem_id)
            ran = runs.get(s.problem_id, [])
            if any(_warns_about(o, entry) for o in ran):
                warned.append(s.problem_id)
            if old and any(_failed_of(o, entry) for o in ran):
                failed.append(s.problem_id)
        if uses or warned or failed or knows:
            apis.append(
                ApiUse(
                    entry.library, entry.old, entry.new, entry.deprecated, entry.removed,
                    entry.introduced, tuple(uses), tuple(warned), tuple(failed), tuple(knows),
                )
            )  # fmt: skip
    apis.sort(key=lambda a: (-len(a.stale), a.library, a.old))
    per_answer: dict[str, list[Span]] = {}
    for api in apis:
        for problem, spans in _spans(api, dates).items():
            per_answer.setdefault(problem, []).extend(spans)
    known = [
        (day, f"{a.library} {a.introduced}: {a.new}")
        for a in apis
        if a.knows and a.introduced and (day := day_of(dates, a.library, a.introduced))
    ]
    newest_day, newest = max(known) if known else (None, "")
    date, _ = best_day([s for spans in per_answer.values() for s in spans])
    low = high = None
    if date is not None:
        rng = random.Random(seed)  # noqa: S311 - a bootstrap, not a secret
        answers = list(per_answer.values())
        days = sorted(
            d
            for _ in range(samples)
            if (d := best_day([s for a in (rng.choice(answers) for _ in answers) for s in a])[0])
        )
        low, high = days[int(0.025 * (len(days) - 1))], days[int(0.975 * (len(days) - 1))]
    stale = tuple(sorted({p for a in apis for p in a.stale}))
    return ModelApis(
        model, len(mine), tuple(apis), newest, newest_day, date, low, high,
        sum(len(s) for s in per_answer.values()), stale,
    )  # fmt: skip


def models(
    solutions: Sequence[Solution],
    outcomes: Sequence[Outcome],
    catalogue: Sequence[Entry],
    dates: Mapping[str, Mapping[str, dt.date]],
    *,
    samples: int = SAMPLES,
) -> list[ModelApis]:
    """One :class:`ModelApis` per model of ``solutions``, in name order."""
    names = sorted(
        {
            s.source.removeprefix(MODEL_PREFIX)
            for s in solutions
            if s.source.startswith(MODEL_PREFIX)
        }
    )
    return [measure(m, solutions, outcomes, catalogue, dates, samples=samples) for m in names]
