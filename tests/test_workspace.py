"""The results directory: room to write (checked by a real write) and one run at a time."""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path
from typing import NamedTuple

import pytest

from harness.core.errors import HarnessError
from harness.envs.workspace import LOCK_NAME, MIN_FREE_MB, WorkspaceError, check_writable, exclusive


class Usage(NamedTuple):
    total: int
    used: int
    free: int


MIB = 1024 * 1024


def test_a_new_results_directory_is_made_and_left_clean(tmp_path: Path) -> None:
    root = tmp_path / "a" / "b" / "results"
    check_writable(root)
    assert root.is_dir()
    assert list(root.iterdir()) == []  # the probe file is gone


def test_a_results_path_that_is_a_file(tmp_path: Path) -> None:
    root = tmp_path / "results"
    root.write_text("a file")
    with pytest.raises(WorkspaceError) as caught:
        check_writable(root)
    assert str(caught.value) == f"{root}: cannot create the results directory: File exists"


def test_a_results_path_under_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    root = tmp_path / "file" / "results"
    with pytest.raises(WorkspaceError) as caught:
        check_writable(root)
    assert str(caught.value) == f"{root}: cannot create the results directory: Not a directory"


@pytest.mark.parametrize(
    ("free_mb", "min_free_mb", "ok"),
    [
        (MIN_FREE_MB, MIN_FREE_MB, True),
        (MIN_FREE_MB - 1, MIN_FREE_MB, False),
        (0, 0, True),
        (500, 1000, False),
    ],
)
def test_free_space(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, free_mb: int, min_free_mb: int, ok: bool
) -> None:
    # a few bytes short of one more MiB still counts as the MiB below
    usage = Usage(10**12, 0, free_mb * MIB + MIB - 1)
    monkeypatch.setattr("harness.envs.workspace.shutil.disk_usage", lambda _path: usage)
    if ok:
        check_writable(tmp_path, min_free_mb)
        return
    with pytest.raises(WorkspaceError) as caught:
        check_writable(tmp_path, min_free_mb)
    assert str(caught.value) == (
        f"{tmp_path}: only {free_mb} MiB free; a run needs at least {min_free_mb} MiB"
    )


def fail_with(code: int) -> object:
    def fail(*_args: object) -> int:
        raise OSError(code, os.strerror(code))

    return fail


@pytest.mark.parametrize(
    ("call", "replacement", "reason"),
    [
        ("open", fail_with(errno.EACCES), "Permission denied"),
        ("open", fail_with(errno.EROFS), "Read-only file system"),
        ("write", fail_with(errno.ENOSPC), "the disk is full"),
        ("write", lambda _fd, data: len(data) // 2, "the disk is full"),  # a short write
        ("fsync", fail_with(errno.EDQUOT), "the disk is full"),  # over quota
        ("fsync", fail_with(errno.EIO), "Input/output error"),
    ],
)
def test_a_failed_probe_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: str, replacement: object, reason: str
) -> None:
    monkeypatch.setattr(f"harness.envs.workspace.os.{call}", replacement)
    with pytest.raises(WorkspaceError) as caught:
        check_writable(tmp_path)
    monkeypatch.undo()
    assert str(caught.value) == f"{tmp_path}: cannot write results here: {reason}"
    assert list(tmp_path.iterdir()) == []
    assert isinstance(caught.value, HarnessError) and caught.value.exit_code == 2


def test_exclusive_names_its_holder_and_lets_go(tmp_path: Path) -> None:
    with exclusive(tmp_path, "run 20261130-120000"):
        lock = tmp_path / LOCK_NAME
        assert lock.read_text() == f"pid {os.getpid()} (run 20261130-120000)\n"
        with pytest.raises(WorkspaceError) as caught, exclusive(tmp_path, "second"):
            pass
        assert str(caught.value) == (
            f"{tmp_path}: in use by pid {os.getpid()} (run 20261130-120000); "
            "wait for it to finish or pass another --results"
        )
        assert lock.read_text() == f"pid {os.getpid()} (run 20261130-120000)\n"  # untouched
    with exclusive(tmp_path, "report"):
        assert lock.read_text() == f"pid {os.getpid()} (report)\n"  # the old name is gone


def test_a_holder_that_has_not_named_itself(tmp_path: Path) -> None:
    with (tmp_path / LOCK_NAME).open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(WorkspaceError) as caught, exclusive(tmp_path, "x"):
            pass
    assert str(caught.value) == (
        f"{tmp_path}: in use by another harness process; "
        "wait for it to finish or pass another --results"
    )


def test_exclusive_makes_the_directory_and_releases_on_error(tmp_path: Path) -> None:
    root = tmp_path / "new" / "results"
    with pytest.raises(RuntimeError), exclusive(root, "x"):
        raise RuntimeError
    with exclusive(root, "y"):
        pass
