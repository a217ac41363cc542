"""Every run, remembered: a SQLite database beside the run directories.

``results/history.sqlite`` holds each recorded run's environments and outcomes, so a
nightly job can say what changed since the night before: new failures, new fixes,
new warnings, and the library releases that moved in between. Recording a run again
replaces its rows, so it is safe to repeat.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from typing import TYPE_CHECKING, Any

from harness.analysis import summary, trends
from harness.analysis.changes import Changes, NewWarning, StatusChange, VersionChange
from harness.core.errors import UsageError
from harness.core.results import Status

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from harness.execute.rundir import RunDir

SCHEMA_VERSION = 3  # 2: releases_seen; 3: model_rates
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, started TEXT, matrix TEXT, baseline TEXT, recorded_order INTEGER
);
CREATE TABLE IF NOT EXISTS envs (
    run_id TEXT, combo TEXT, ok INTEGER, python TEXT, versions TEXT, error TEXT,
    PRIMARY KEY (run_id, combo)
);
CREATE TABLE IF NOT EXISTS outcomes (
    run_id TEXT, combo TEXT, problem_id TEXT, source TEXT, attempt INTEGER, status TEXT,
    library TEXT, exc_type TEXT, message TEXT, warnings TEXT, duration_s REAL,
    PRIMARY KEY (run_id, combo, problem_id, source, attempt)
);
CREATE INDEX IF NOT EXISTS outcomes_by_problem ON outcomes (problem_id, source, combo);
CREATE TABLE IF NOT EXISTS model_rates (
    run_id TEXT, model TEXT, combo TEXT, ran INTEGER, passed INTEGER, candidates INTEGER,
    stale INTEGER, PRIMARY KEY (run_id, model, combo)
);
CREATE TABLE IF NOT EXISTS releases_seen (
    package TEXT, version TEXT, uploaded TEXT, first_seen TEXT, PRIMARY KEY (package, version)
);
"""
_FAILURES = tuple(s.value for s in Status if s.is_failure)


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating if needed) a history database of a schema this code understands."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.executescript(_SCHEMA)
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None:
        db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        db.commit()
    elif int(row[0]) > SCHEMA_VERSION:
        db.close()
        raise UsageError(
            f"{path}: history schema {row[0]} was written by a newer harness (this one reads {SCHEMA_VERSION})"
        )
    elif int(row[0]) < SCHEMA_VERSION:
        # Every change so far only added tables, which the script above has created.
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))
        db.commit()
    return db


def record(db: sqlite3.Connection, run: RunDir) -> None:
    """Store ``run`` (its envs and outcomes), replacing an earlier record of it."""
    manifest = run.read_manifest()
    combos = run.known_combos(manifest)
    run_id = run.run_id
    outcomes = run.read_all()
    with db:
        for table in ("runs", "envs", "outcomes", "model_rates"):
            db.execute(f"DELETE FROM {table} WHERE run_id = ?", (run_id,))  # noqa: S608 - fixed names
        order = db.execute("SELECT COALESCE(MAX(recorded_order), 0) + 1 FROM runs").fetchone()[0]
        db.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?)",
            (
                run_id,
                manifest.started if manifest else None,
                manifest.matrix if manifest else None,
                manifest.baseline if manifest else None,
                order,
            ),
        )
        for combo, env in run.read_envs(combos).items():
            db.execute(
                "INSERT INTO envs VALUES (?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    combo,
                    int(env.ok),
                    env.python,
                    json.dumps(env.library_versions()),
                    env.error,
                ),
            )
        db.executemany(
            "INSERT OR REPLACE INTO outcomes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    run_id,
                    o.combo,
                    o.problem_id,
                    o.source,
                    o.attempt,
                    o.status.value,
                    o.library,
                    o.exc_type,
                    o.first_line,
                    json.dumps([[w.category, w.message, w.module] for w in o.warnings]),
                    o.duration_s,
                )
                for o in outcomes
            ],
        )
        # the stale rates need the run's era order and stale answers: its summary
        kept = summary.read(run)
        order = (kept.order if kept else None) or combos
        stale = {m.staleness.model: m.staleness.stale for m in kept.models} if kept else {}
        db.executemany(
            "INSERT OR REPLACE INTO model_rates VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(run_id, *row) for row in trends.model_rates(outcomes, order, stale)],
        )


def runs(db: sqlite3.Connection) -> list[str]:
    """Recorded run ids, oldest first (in the order they were first recorded)."""
    return [r[0] for r in db.execute("SELECT run_id FROM runs ORDER BY recorded_order")]


def previous(db: sqlite3.Connection, run_id: str) -> str | None:
    ids = runs(db)
    if run_id not in ids:
        return ids[-1] if ids else None
    position = ids.index(run_id)
    return ids[position - 1] if position > 0 else None


def _outcomes(
    db: sqlite3.Connection, run_id: str
) -> dict[tuple[str, str, str], tuple[str, str, list[Any]]]:
    rows = db.execute(
        "SELECT combo, problem_id, source, status, message, warnings FROM outcomes"
        " WHERE run_id = ? AND attempt = 0",
        (run_id,),
    )
    return {(c, p, s): (st, msg or "", json.loads(w)) for c, p, s, st, msg, w in rows}


def _versions(db: sqlite3.Connection, run_id: str) -> dict[str, dict[str, str]]:
    rows = db.execute("SELECT combo, versions FROM envs WHERE run_id = ? AND ok = 1", (run_id,))
    return {combo: json.loads(v) for combo, v in rows}


def diff(db: sqlite3.Connection, before: str, after: str) -> Changes:
    """What changed from run ``before`` to run ``after``."""
    known = runs(db)
    for run_id in (before, after):
        if run_id not in known:
            raise UsageError(
                f"no run {run_id!r} in the history (runs: {', '.join(known[-5:]) or 'none'})"
            )
    a, b = _outcomes(db, before), _outcomes(db, after)
    new_failures, new_fixes = [], []
    for key in sorted(set(a) & set(b)):
        (was, _, _), (now, message, _) = a[key], b[key]
        if was == Status.PASS.value and now in _FAILURES:
            new_failures.append(StatusChange(*key, was, now, error=message))
        elif was in _FAILURES and now == Status.PASS.value:
            new_fixes.append(StatusChange(*key, was, now))
    seen = {(w[0], w[1]) for _, _, ws in a.values() for w in ws}
    # (category, message) → (library, the executions that raised it), in first-seen order
    new_warnings: dict[tuple[str, str], tuple[str, list[str]]] = {}
    for (combo, problem_id, _), (_, _, ws) in sorted(b.items()):
        for category, message, module in ws:
            if (category, message) not in seen and not module.startswith("<"):
                _, problems = new_warnings.setdefault(
                    (category, message), (module.split(".")[0], [])
                )
                problems.append(f"{combo}:{problem_id}")
    va, vb = _versions(db, before), _versions(db, after)
    return Changes(
        previous=before,
        current=after,
        new_failures=tuple(new_failures),
        new_fixes=tuple(new_fixes),
        new_warnings=tuple(
            NewWarning(library, category, message, tuple(problems))
            for (category, message), (library, problems) in new_warnings.items()
        ),
        releases=tuple(
            VersionChange(combo, lib, va[combo].get(lib, "-"), vb[combo].get(lib, "-"))
            for combo in sorted(set(va) & set(vb))
            for lib in sorted(set(va[combo]) | set(vb[combo]))
            if va[combo].get(lib) != vb[combo].get(lib)
        ),
    )


def compare(path: Path, chosen: Sequence[str] = ()) -> Changes:
    """``harness diff``: what changed between two recorded runs of the history at ``path``.

    ``chosen`` names them (one: that run and the one recorded before it); by default the
    last run recorded and the one before it.
    """
    if not path.is_file():
        raise UsageError(f"{path}: no history yet (harness run records each run there)")
    if len(chosen) > 2:
        raise UsageError("diff takes at most two runs")
    with closing(connect(path)) as db:
        known = runs(db)
        if chosen:
            after = chosen[-1]
            before = chosen[0] if len(chosen) == 2 else previous(db, after)
        else:
            after = known[-1] if known else ""
            before = previous(db, after) if after else None
        if not before:
            raise UsageError("need two recorded runs to compare")
        return diff(db, before, after)


def default_path(results_root: Path) -> Path:
    return results_root / "history.sqlite"


def record_and_diff(run: RunDir, history: Path) -> Changes | None:
    """Record ``run`` and return what changed since the run recorded before it."""
    return record_night(run, history)[0]


def record_night(
    run: RunDir, history: Path, nights: int = trends.DEFAULT_NIGHTS
) -> tuple[Changes | None, trends.Trends | None]:
    """Record ``run``; return what changed since the run recorded before it, and the
    trends of the last ``nights`` runs up to it."""
    with closing(connect(history)) as db:
        record(db, run)
        before = previous(db, run.run_id)
        changes = diff(db, before, run.run_id) if before else None
        return changes, trends.read(db, run.run_id, nights)
