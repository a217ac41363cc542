"""The sandbox's pure parts: which paths an execution may not see.

Entering the sandbox needs a real process and is exercised by tests/test_envside.py
and tests/test_hostile.py.
"""

from __future__ import annotations

from pathlib import Path

from harness.envside.sandbox import hideable


def test_hideable_covers_outer_directories_only(tmp_path: Path) -> None:
    runs = tmp_path / "batches"
    (runs / "mine").mkdir(parents=True)
    (runs / "mine" / "batch.json").write_text("{}")
    (tmp_path / "secret.txt").write_text("x")
    work = tmp_path / "work"
    work.mkdir()
    directories, files = hideable(
        [
            str(runs / "mine"),
            str(runs),
            str(tmp_path / "secret.txt"),
            str(runs / "mine" / "batch.json"),
        ],
        [str(work)],
    )
    assert directories == [str(runs.resolve())]
    assert files == [str((tmp_path / "secret.txt").resolve())]


def test_hideable_never_covers_what_the_execution_needs(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "problem.toml").write_text("")
    directories, files = hideable(
        [str(tmp_path), str(tmp_path / "problem.toml"), str(tmp_path / "missing")],
        [str(tmp_path / "work")],
    )
    assert directories == []
    assert files == [str((tmp_path / "problem.toml").resolve())]
