"""How the env side forks and cleans up (harness/envside/isolation/processes.py), with real processes
and real files."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from harness.envside.isolation import processes


def test_a_working_directory_is_removed_however_deep_its_tree(tmp_path: Path) -> None:
    # deeper than shutil.rmtree's recursion reaches before Python 3.12 (RecursionError in
    # the worker ended it, and the next execution with it)
    root = tmp_path / "harness_exec_deep"
    root.mkdir()
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(3000):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        os.close(os.open("leaf", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    finally:
        os.close(fd)
    processes.remove_tree(str(root))
    assert not root.exists()


def test_removing_what_is_not_there_is_no_error(tmp_path: Path) -> None:
    processes.remove_tree(str(tmp_path / "never-made"))
    assert list(tmp_path.iterdir()) == []


def test_executions_find_the_combos_python_first(monkeypatch: pytest.MonkeyPatch) -> None:
    # a test that runs ``python script.py`` gets the combo's interpreter, which the sandbox
    # shows, whatever the machine's PATH named first
    monkeypatch.setenv("PATH", f"/somewhere/else/bin{os.pathsep}/usr/bin")
    monkeypatch.setenv("PYTHONPATH", "/redirected")
    env = processes.child_environment()
    own = str(Path(sys.executable).parent)
    assert env["PATH"].split(os.pathsep) == [own, "/somewhere/else/bin", "/usr/bin"]
    assert "PYTHONPATH" not in env


@pytest.mark.parametrize(
    ("given", "seed"),
    [
        (None, "0"),
        ("7", "7"),
        ("4294967295", "4294967295"),
        ("4294967296", "0"),
        ("-1", "0"),
        ("x", "0"),
    ],
)
def test_the_hash_seed_is_the_hosts_if_python_takes_it(
    monkeypatch: pytest.MonkeyPatch, given: str | None, seed: str
) -> None:
    if given is None:
        monkeypatch.delenv(processes.HASH_SEED, raising=False)
    else:
        monkeypatch.setenv(processes.HASH_SEED, given)
    monkeypatch.setenv("PYTHONHASHSEED", "123")  # the caller's own never passes on
    env = processes.child_environment()
    assert env["PYTHONHASHSEED"] == seed
    monkeypatch.setattr(os, "environ", env)
    assert processes.in_child_environment()
