from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from harness.analysis import history
from harness.analysis.changes import Changes
from harness.cli import main
from harness.core.errors import UsageError
from harness.core.results import CapturedWarning, Outcome, OutcomeWriter, Status, write_json
from harness.envs.build import EnvInfo
from harness.execute.rundir import RunDir


def make_run(
    root: Path, run_id: str, statuses: dict[str, Status], numpy: str, warn: str | None = None
) -> RunDir:
    run = RunDir(root / run_id)
    write_json(run.manifest, {"run_id": run_id, "baseline": "c", "combos": ["c"]})
    write_json(
        run.env_info("c"),
        EnvInfo("c", ok=True, python="3.11.7", versions={"numpy": numpy}).to_dict(),
    )
    with OutcomeWriter(run.outcomes("c")) as w:
        for seq, (problem, status) in enumerate(statuses.items()):
            warnings = (CapturedWarning("DeprecationWarning", warn, "numpy.core"),) if warn else ()
            w.write(
                Outcome(
                    run_id,
                    "c",
                    problem,
                    "reference",
                    status,
                    library="numpy",
                    exc_type="AttributeError" if status is Status.ERROR else None,
                    message="gone" if status is Status.ERROR else "",
                    seq=seq,
                    warnings=warnings,
                    versions={"numpy": numpy},
                )
            )
    return run


def test_record_and_diff(tmp_path: Path) -> None:
    db_path = tmp_path / "history.sqlite"
    first = make_run(
        tmp_path, "r1", {"p/1": Status.PASS, "p/2": Status.FAIL, "p/3": Status.PASS}, "1.26.4"
    )
    second = make_run(
        tmp_path,
        "r2",
        {"p/1": Status.ERROR, "p/2": Status.PASS, "p/3": Status.PASS},
        "2.1.3",
        warn="np.foo is deprecated",
    )
    assert history.record_and_diff(first, db_path) is None  # nothing to compare with yet
    changes = history.record_and_diff(second, db_path)
    assert changes is not None
    assert changes.to_dict() == {
        "previous": "r1",
        "current": "r2",
        "new_failures": [
            {
                "combo": "c",
                "problem_id": "p/1",
                "source": "reference",
                "before": "pass",
                "after": "error",
                "error": "AttributeError: gone",
            }
        ],
        "new_fixes": [
            {
                "combo": "c",
                "problem_id": "p/2",
                "source": "reference",
                "before": "fail",
                "after": "pass",
            }
        ],
        "new_warnings": [
            {
                "library": "numpy",
                "category": "DeprecationWarning",
                "message": "np.foo is deprecated",
                "problems": ["c:p/1", "c:p/2", "c:p/3"],
            }
        ],
        "releases": [{"combo": "c", "library": "numpy", "before": "1.26.4", "after": "2.1.3"}],
    }
    assert Changes.from_dict(changes.to_dict()) == changes  # as summary.json keeps it
    # recording again replaces, not duplicates
    assert history.record_and_diff(second, db_path) == changes
    with closing(sqlite3.connect(db_path)) as db:
        assert db.execute("SELECT COUNT(*) FROM outcomes WHERE run_id = 'r2'").fetchone() == (3,)
        assert db.execute("SELECT value FROM meta").fetchone() == (str(history.SCHEMA_VERSION),)


def test_diff_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db_path = tmp_path / "history.sqlite"
    history.record_and_diff(make_run(tmp_path, "r1", {"p/1": Status.PASS}, "1.26.4"), db_path)
    history.record_and_diff(make_run(tmp_path, "r2", {"p/1": Status.ERROR}, "2.1.3"), db_path)
    assert main(["diff", "--history", str(db_path)]) == 0
    out = capsys.readouterr().out
    assert "## Since the previous run (`r1`)" in out
    assert "- `c` `p/1` reference: pass → error (AttributeError: gone)" in out
    assert "- `c` numpy: 1.26.4 → 2.1.3" in out
    assert main(["diff", "r1", "nope", "--history", str(db_path)]) == 2
    assert "no run 'nope' in the history" in capsys.readouterr().err


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    db_path = tmp_path / "h.sqlite"
    with closing(history.connect(db_path)) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
        db.commit()
    with pytest.raises(UsageError, match="history schema 99 was written by a newer harness"):
        history.connect(db_path)
