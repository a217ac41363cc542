from __future__ import annotations

import os
import platform
import socket
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from harness.cli import _parser
from harness.envs import interpreters

if TYPE_CHECKING:
    from collections.abc import Iterator

UV_NOT_FOUND = "No interpreter found for Python {v} in managed installations or search path"
PYENV_310 = Path.home() / ".pyenv" / "versions" / "3.10.13" / "bin" / "python3.10"


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    interpreters.clear_cache()
    yield
    interpreters.clear_cache()


@pytest.fixture
def bare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No Python on PATH, an empty pyenv, uv's installs and cache in ``tmp_path``."""
    (tmp_path / "versions").mkdir()
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("UV_PYTHON_INSTALL_DIR", str(tmp_path / "uv-python"))
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    monkeypatch.delenv("UV_PYTHON_DOWNLOADS", raising=False)
    monkeypatch.delenv("UV_PYTHON_INSTALL_MIRROR", raising=False)
    return tmp_path


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port  # closed again: connecting is refused at once


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
    assert interpreters.find("3.99") == interpreters.Interpreter(exe, "3.99.1", "pyenv")


def test_missing_interpreter_says_in_one_line_what_was_tried_and_what_to_do(bare: Path) -> None:
    with pytest.raises(interpreters.InterpreterNotFoundError) as caught:
        interpreters.find("3.98", "never")
    assert str(caught.value) == (
        "no Python 3.98: not on PATH (python3.98, python3, python); "
        f"not under pyenv ({bare}/versions); "
        f"uv python find 3.98: {UV_NOT_FOUND.format(v='3.98')}; "
        "uv python install not tried (UV_PYTHON_DOWNLOADS=never); "
        "to provide it, run `uv python install 3.98` or put python3.98 on PATH"
    )


def test_downloads_default_to_uvs_own_setting(bare: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UV_PYTHON_DOWNLOADS", "never")
    with pytest.raises(interpreters.InterpreterNotFoundError, match="install not tried"):
        interpreters.find("3.98")


def test_an_unreachable_mirror_fails_fast_and_says_why(
    bare: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real uv, downloading from a closed loopback port: no network needed."""
    port = _closed_port()
    monkeypatch.setenv("UV_PYTHON_INSTALL_MIRROR", f"http://127.0.0.1:{port}/")
    monkeypatch.setenv("UV_HTTP_RETRIES", "0")
    start = time.monotonic()
    with pytest.raises(interpreters.InterpreterNotFoundError) as caught:
        interpreters.find("3.10", "automatic")
    elapsed = time.monotonic() - start
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(
        "no Python 3.10: not on PATH (python3.10, python3, python); "
        f"not under pyenv ({bare}/versions); "
        f"uv python find 3.10: {UV_NOT_FOUND.format(v='3.10')}; "
        "uv python install 3.10: Failed to install cpython-3.10."
    )
    assert message.endswith(
        ": Connection refused (os error 111); "
        "to provide it, run `uv python install 3.10` or put python3.10 on PATH"
    )
    assert elapsed < 10, f"uv python install took {elapsed:.1f} s"
    assert not any((bare / "uv-python").glob("cpython-*"))


@pytest.mark.skipif(not PYENV_310.exists(), reason="needs pyenv's Python 3.10.13")
def test_real_uv_finds_a_managed_interpreter(bare: Path) -> None:
    """A uv-managed install (here: a link to pyenv's 3.10, under uv's install dir)."""
    key = f"cpython-3.10.13-linux-{platform.machine()}-gnu"
    exe = bare / "uv-python" / key / "bin" / "python3.10"
    exe.parent.mkdir(parents=True)
    exe.symlink_to(PYENV_310)
    assert interpreters.find("3.10", "never") == interpreters.Interpreter(exe, "3.10.13", "uv")


def _fake_uv(tmp_path: Path, python: Path) -> Path:
    """A uv that finds ``python`` only once ``uv python install`` has run."""
    installed = tmp_path / "installed"
    uv = tmp_path / "fake-uv"
    uv.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> {tmp_path}/calls\n'
        f'if [ "$2" = install ]; then : > {installed}; exit 0; fi\n'
        f"if [ -e {installed} ]; then echo {python}; exit 0; fi\n"
        "echo 'error: No interpreter found for Python 3.97' >&2; exit 2\n"
    )
    uv.chmod(0o755)
    return uv


def test_uv_install_then_find(bare: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    python = bare / "py397"
    python.write_text("#!/bin/sh\necho 3.97.2\n")
    python.chmod(0o755)
    uv = _fake_uv(bare, python)
    monkeypatch.setattr(interpreters, "uv_binary", lambda: str(uv))
    found = interpreters.find("3.97", "automatic")
    assert found == interpreters.Interpreter(python, "3.97.2", "uv install")
    find = "python find --system --no-project --no-python-downloads 3.97"
    assert (bare / "calls").read_text().splitlines() == [find, "python install 3.97", find]


def test_uv_giving_the_wrong_version_is_not_taken(
    bare: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = bare / "py396"
    python.write_text("#!/bin/sh\necho 3.96.0\n")
    python.chmod(0o755)
    (bare / "installed").touch()
    monkeypatch.setattr(interpreters, "uv_binary", lambda: str(_fake_uv(bare, python)))
    with pytest.raises(interpreters.InterpreterNotFoundError) as caught:
        interpreters.find("3.97", "never")
    assert f"uv python find 3.97: {python} is Python 3.96.0;" in str(caught.value)


def test_without_uv(bare: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> str:
        raise FileNotFoundError("uv not found: pip install uv")

    monkeypatch.setattr(interpreters, "uv_binary", missing)
    with pytest.raises(interpreters.InterpreterNotFoundError) as caught:
        interpreters.find("3.97", "automatic")
    assert str(caught.value) == (
        "no Python 3.97: not on PATH (python3.97, python3, python); "
        f"not under pyenv ({bare}/versions); uv not found: pip install uv; "
        "to provide it, run `uv python install 3.97` or put python3.97 on PATH"
    )


def test_available_never_downloads(bare: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[str, str | None]] = []

    def fake_find(wanted: str, downloads: str | None = None) -> interpreters.Interpreter:
        asked.append((wanted, downloads))
        raise interpreters.InterpreterNotFoundError(wanted)

    monkeypatch.setattr(interpreters, "find", fake_find)
    assert interpreters.available(("3.10", "3.11")) == []
    assert asked == [("3.10", "never"), ("3.11", "never")]


@pytest.mark.parametrize(
    ("value", "setting"),
    [
        (None, "automatic"),
        ("", "automatic"),
        ("automatic", "automatic"),
        ("never", "never"),
        ("NEVER", "never"),
        ("manual", "never"),
    ],
)
def test_downloads_setting(value: str | None, setting: str) -> None:
    environ = {} if value is None else {"UV_PYTHON_DOWNLOADS": value}
    assert interpreters.downloads_setting(environ) == setting


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("", ""),
        ("error: No interpreter found\n", "No interpreter found"),
        (
            "error: Failed to install x\n  cause: Request failed\n  cause: Connection refused\n",
            "Failed to install x: Connection refused",
        ),
        ("warning: a\n   ╰─▶ b.\n", "a: b."),
    ],
)
def test_one_line(text: str, line: str) -> None:
    assert interpreters.one_line(text) == line


@pytest.mark.parametrize(
    ("environ", "argv", "value"),
    [
        ("", [], "automatic"),
        ("never", [], "never"),
        ("never", ["--python-downloads", "automatic"], "automatic"),
        ("automatic", ["--python-downloads", "never"], "never"),
    ],
)
@pytest.mark.parametrize("command", ["run", "bisect", "validate-problems", "fetch-data", "doctor"])
def test_the_option_reads_uvs_setting_and_the_command_line_wins(
    monkeypatch: pytest.MonkeyPatch, command: str, environ: str, argv: list[str], value: str
) -> None:
    monkeypatch.setenv("UV_PYTHON_DOWNLOADS", environ)
    assert _parser().parse_args([command, *argv]).python_downloads == value


def test_set_downloads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UV_PYTHON_DOWNLOADS", raising=False)
    interpreters.set_downloads("automatic")  # already so: the environment is left alone
    assert "UV_PYTHON_DOWNLOADS" not in os.environ
    interpreters.set_downloads("never")
    assert interpreters.downloads_setting() == "never"
    with pytest.raises(ValueError, match=r"^--python-downloads: 'sometimes' is not one of"):
        interpreters.set_downloads("sometimes")
