"""Trends across nights, from the history database.

Each recorded run adds one night. Per model and combo: the pass rate, and the stale rate
(of its answers that ran here and passed in an older combo, the share failing here on an
API its answer used that moved; problem drift is never charged). Per problem set and
combo: the share of references that hold. Per drifted reference: the first night it
failed in a row up to now. The last ``nights`` runs are shown; a night that did not run
a combo is a gap, not a zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.analysis.drift import natural_key
from harness.core.problem import MODEL_PREFIX, REFERENCE
from harness.core.results import Status

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Mapping, Sequence

    from harness.core.results import Outcome

DEFAULT_NIGHTS = 14
_NOT_RUN = (Status.SKIPPED.value, Status.ENV_ERROR.value)


def problem_set(problem_id: str) -> str:
    """The set a problem id belongs to: ``ds1000/15`` → ``ds1000``."""
    return problem_id.split("/", 1)[0]


# -- what a night stores beyond its outcomes ---------------------------------------------


def model_rates(
    outcomes: Sequence[Outcome], order: Sequence[str], stale: Mapping[str, Sequence[Sequence[str]]]
) -> list[tuple[str, str, int, int, int, int]]:
    """``(model, combo, ran, passed, candidates, stale)`` per model and combo.

    ``stale``: per model (without the ``model:`` prefix), its stale answers
    (:attr:`~harness.analysis.staleness.ModelStaleness.stale`), ``(problem, last good
    combo, first bad combo)``.
    A candidate in combo C is an answer that ran in C, passed in a combo before C in
    era order, and whose reference holds in C; it is stale in C when it fails there and
    its answer went stale at C or before."""
    position = {c: i for i, c in enumerate(order)}
    first = [o for o in outcomes if o.attempt == 0]
    holds = {
        (o.combo, o.problem_id) for o in first if o.source == REFERENCE and o.status is Status.PASS
    }
    by_answer: dict[tuple[str, str], dict[str, Outcome]] = {}
    for o in first:
        if o.source.startswith(MODEL_PREFIX):
            by_answer.setdefault((o.source, o.problem_id), {})[o.combo] = o
    went_stale = {
        (MODEL_PREFIX + model, item[0]): position.get(item[2], len(order))
        for model, items in stale.items()
        for item in items
    }
    tally: dict[tuple[str, str], list[int]] = {}
    for (source, problem), per_combo in by_answer.items():
        passed_at = [
            position[c] for c, o in per_combo.items() if o.status is Status.PASS and c in position
        ]
        for combo, o in per_combo.items():
            counts = tally.setdefault((source, combo), [0, 0, 0, 0])
            if o.status.value in _NOT_RUN:
                continue
            counts[0] += 1
            counts[1] += o.status is Status.PASS
            here = position.get(combo)
            if here is None or not any(p < here for p in passed_at):
                continue
            if (combo, problem) not in holds:
                continue
            counts[2] += 1
            if o.status is not Status.PASS and went_stale.get((source, problem), here + 1) <= here:
                counts[3] += 1
    return [
        (source.removeprefix(MODEL_PREFIX), combo, *counts)  # type: ignore[misc]
        for (source, combo), counts in sorted(tally.items())
    ]


# -- reading the trends back -------------------------------------------------------------


@dataclass(frozen=True)
class Series:
    """One line of the trend table: a value per night (None: not run that night)."""

    kind: str  # "pass" (a model's pass rate), "stale" (its stale rate), "holds" (references)
    subject: str  # the model, or the problem set
    combo: str
    values: tuple[float | None, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "subject": self.subject,
            "combo": self.combo,
            "values": list(self.values),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Series:
        return cls(
            str(data["kind"]),
            str(data["subject"]),
            str(data["combo"]),
            tuple(None if v is None else float(v) for v in data["values"]),
        )


@dataclass(frozen=True)
class FirstSeen:
    """A reference failing in ``combo`` tonight, failing every night since ``night``."""

    combo: str
    problem_id: str
    night: str  # run id
    started: str  # that run's start (ISO), "" if unknown

    def to_dict(self) -> dict[str, Any]:
        return {
            "combo": self.combo,
            "problem_id": self.problem_id,
            "night": self.night,
            "started": self.started,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FirstSeen:
        return cls(
            str(data["combo"]), str(data["problem_id"]), str(data["night"]), str(data["started"])
        )


@dataclass(frozen=True)
class Trends:
    nights: tuple[str, ...]  # run ids, oldest first; the last is this run
    started: tuple[str, ...]  # when each started (ISO), "" if unknown
    series: tuple[Series, ...]
    first_seen: tuple[FirstSeen, ...] = ()

    def of(self, kind: str) -> list[Series]:
        return [s for s in self.series if s.kind == kind]

    def to_dict(self) -> dict[str, Any]:
        return {
            "nights": list(self.nights),
            "started": list(self.started),
            "series": [s.to_dict() for s in self.series],
            "first_seen": [f.to_dict() for f in self.first_seen],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Trends:
        return cls(
            tuple(str(n) for n in data["nights"]),
            tuple(str(s) for s in data.get("started", [""] * len(data["nights"]))),
            tuple(Series.from_dict(s) for s in data.get("series", [])),
            tuple(FirstSeen.from_dict(f) for f in data.get("first_seen", [])),
        )


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def read(db: sqlite3.Connection, run_id: str, nights: int = DEFAULT_NIGHTS) -> Trends | None:
    """The trends of the ``nights`` runs recorded up to ``run_id``; None if it is not
    recorded."""
    ordered = list(db.execute("SELECT run_id, started FROM runs ORDER BY recorded_order"))
    ids = [r[0] for r in ordered]
    if run_id not in ids:
        return None
    window = ordered[max(0, ids.index(run_id) + 1 - nights) : ids.index(run_id) + 1]
    runs = [r[0] for r in window]
    column = {r: i for i, r in enumerate(runs)}
    marks = ",".join("?" * len(runs))
    series: list[Series] = []

    def add(kind: str, rows: Sequence[tuple[str, str, str, float | None]]) -> None:
        table: dict[tuple[str, str], list[float | None]] = {}
        for run, subject, combo, value in rows:
            table.setdefault((subject, combo), [None] * len(runs))[column[run]] = value
        current = {(s, c) for run, s, c, _ in rows if run == run_id}
        for (subject, combo), values in sorted(table.items()):
            if (subject, combo) in current:  # what tonight still runs
                series.append(Series(kind, subject, combo, tuple(values)))

    rates = list(
        db.execute(
            f"SELECT run_id, model, combo, ran, passed, candidates, stale FROM model_rates "  # noqa: S608 - placeholders only
            f"WHERE run_id IN ({marks})",
            runs,
        )
    )
    add("pass", [(r, m, c, _rate(p, n)) for r, m, c, n, p, _, _ in rates])
    add("stale", [(r, m, c, _rate(s, k)) for r, m, c, _, _, k, s in rates])
    holding: dict[tuple[str, str, str], list[int]] = {}
    for run, combo, problem, status in db.execute(
        f"SELECT run_id, combo, problem_id, status FROM outcomes "  # noqa: S608 - placeholders only
        f"WHERE run_id IN ({marks}) AND source = ? AND attempt = 0",
        [*runs, REFERENCE],
    ):
        if status in _NOT_RUN:
            continue
        counts = holding.setdefault((run, problem_set(problem), combo), [0, 0])
        counts[0] += status == Status.PASS.value
        counts[1] += 1
    add("holds", [(r, s, c, _rate(p, n)) for (r, s, c), (p, n) in holding.items()])
    return Trends(
        tuple(runs), tuple(r[1] or "" for r in window), tuple(series), _first_seen(db, runs)
    )


def _first_seen(db: sqlite3.Connection, runs: Sequence[str]) -> tuple[FirstSeen, ...]:
    """For each reference failing in the last of ``runs``: the first of its nights in a
    row of failures (within ``runs``) that ends tonight."""
    started = dict(db.execute("SELECT run_id, started FROM runs"))
    status: dict[tuple[str, str], dict[str, str]] = {}
    marks = ",".join("?" * len(runs))
    for run, combo, problem, st in db.execute(
        f"SELECT run_id, combo, problem_id, status FROM outcomes "  # noqa: S608 - placeholders only
        f"WHERE run_id IN ({marks}) AND source = ? AND attempt = 0",
        [*runs, REFERENCE],
    ):
        status.setdefault((combo, problem), {})[run] = st
    failing = {s.value for s in Status if s.is_failure}
    out = []
    for (combo, problem), by_run in status.items():
        if by_run.get(runs[-1]) not in failing:
            continue
        first = runs[-1]
        for run in reversed(runs[:-1]):
            if by_run.get(run) in failing:
                first = run
            elif run in by_run:
                break  # it passed (or was skipped) that night: the streak begins after
        out.append(FirstSeen(combo, problem, first, started.get(first) or ""))
    out.sort(key=lambda f: (f.combo, natural_key(f.problem_id)))
    return tuple(out)
