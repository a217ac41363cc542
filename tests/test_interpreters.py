from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness import interpreters


def test_finds_the_running_interpreter_version() -> None:
    wanted = f"{sys.version_info.major}.{sys.version_info.minor}"
    found = interpreters.find(wanted)
    assert found.version.startswith(wanted + ".")
    assert found.path.exists()


def test_exact_patch_version() -> None:
    exact = ".".join(str(n) for n in sys.version_info[:3])
    assert interpreters.find(exact).version == exact


def test_pyenv_installs_are_searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "versions" / "3.99.1" / "bin"
    fake.mkdir(parents=True)
    exe = fake / "python3.99"
    exe.write_text("#!/bin/sh\necho 3.99.1\n")
    exe.chmod(0o755)
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    monkeypatch.setenv("PATH", "/nonexistent")
    interpreters.find.cache_clear()
    try:
        assert interpreters.find("3.99") == interpreters.Interpreter(exe, "3.99.1")
    finally:
        interpreters.find.cache_clear()


def test_missing_interpreter_says_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "versions").mkdir()
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("HOME", str(tmp_path))
    interpreters.find.cache_clear()
    try:
        with pytest.raises(
            interpreters.InterpreterNotFoundError,
            match=rf"^no Python 3.98 found on PATH or under {tmp_path}/versions$",
        ):
            interpreters.find("3.98")
    finally:
        interpreters.find.cache_clear()
