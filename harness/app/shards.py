"""Shards of equal length, from the durations earlier nights measured.

Every ``I``-th problem (``problemsets.shard``) gives shards of equal *count*, but not of
equal *time*: one combo's matplotlib problems or a model that loops until its timeout
make one shard run much longer than the others, and the night lasts as long as its
longest job. The plan job reads the history, writes each problem's measured time per
combo to a small JSON file, and every run job splits its combo's problems with the same
file by longest-processing-time-first, so all jobs agree on the split without talking
to each other.
"""

from __future__ import annotations

import json
from statistics import median
from typing import TYPE_CHECKING, Protocol, TypeVar

from harness.analysis.drift import natural_key
from harness.core.errors import UsageError

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Mapping, Sequence
    from pathlib import Path

Durations = dict[str, dict[str, float]]  # combo → problem id → seconds (all its sources)


class HasId(Protocol):
    @property
    def id(self) -> str: ...


P = TypeVar("P", bound=HasId)


def from_history(db: sqlite3.Connection, nights: int = 7) -> Durations:
    """Each problem's seconds per combo: all its executions (reference, models, idioms)
    of one night added up, the median over the last ``nights`` recorded runs that ran it."""
    runs = [
        r[0]
        for r in db.execute(
            "SELECT run_id FROM runs ORDER BY recorded_order DESC LIMIT ?", (nights,)
        )
    ]
    per_night: dict[tuple[str, str], list[float]] = {}
    for run_id in runs:
        rows = db.execute(
            "SELECT combo, problem_id, SUM(duration_s) FROM outcomes "
            "WHERE run_id = ? AND attempt = 0 AND status NOT IN ('skipped', 'env_error') "
            "GROUP BY combo, problem_id",
            (run_id,),
        )
        for combo, problem, seconds in rows:
            per_night.setdefault((combo, problem), []).append(float(seconds or 0.0))
    out: Durations = {}
    for (combo, problem), seconds in sorted(per_night.items()):
        out.setdefault(combo, {})[problem] = round(median(seconds), 3)
    return out


def write(path: Path, durations: Mapping[str, Mapping[str, float]]) -> None:
    data = {"schema": 1, "durations": {c: dict(d) for c, d in durations.items()}}
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def read(path: Path) -> Durations:
    """The file :func:`write` wrote; a one-line error for anything else."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"--shard-durations {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise UsageError(f"--shard-durations {path}: not JSON ({exc})") from None
    table = data.get("durations") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        raise UsageError(f"--shard-durations {path}: no 'durations' table")
    out: Durations = {}
    for combo, problems in table.items():
        if not isinstance(problems, dict) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and v >= 0
            for v in problems.values()
        ):
            raise UsageError(
                f"--shard-durations {path}: durations.{combo} must map problems to seconds"
            )
        out[str(combo)] = {str(k): float(v) for k, v in problems.items()}
    return out


def balanced(problems: Sequence[P], count: int, durations: Mapping[str, float]) -> list[list[P]]:
    """``problems`` in ``count`` shards of near-equal total time (longest first, each to
    the shard with the least so far). A problem never measured counts as the median of
    those that were (1 s if none were). Each shard keeps the problems' own order."""
    known = [durations[p.id] for p in problems if p.id in durations]
    default = median(known) if known else 1.0
    weight = {p.id: durations.get(p.id, default) for p in problems}
    order = sorted(problems, key=lambda p: (-weight[p.id], natural_key(p.id)))
    loads = [0.0] * count
    assigned: dict[str, int] = {}
    for p in order:
        shard = min(range(count), key=lambda i: (loads[i], i))
        loads[shard] += weight[p.id]
        assigned[p.id] = shard
    return [[p for p in problems if assigned[p.id] == i] for i in range(count)]


def loads(shards: Sequence[Sequence[P]], durations: Mapping[str, float]) -> list[float]:
    """Each shard's expected seconds (problems never measured count as 0 here)."""
    return [sum(durations.get(p.id, 0.0) for p in shard) for shard in shards]
