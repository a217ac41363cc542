from __future__ import annotations

import json
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from harness.envs import doctor, interpreters
from harness.envs.doctor import MISSING, OK, WARNING, Check
from harness.matrix.spec import Combo, LibrarySpec, VersionKind
from tests.conftest import ROOT, run_harness

if TYPE_CHECKING:
    from collections.abc import Iterator

HERE = f"{sys.version_info.major}.{sys.version_info.minor}"


@pytest.fixture
def index() -> Iterator[dict[str, object]]:
    """A loopback index root answering HEAD with ``state["status"]``."""
    state: dict[str, object] = {"status": 200, "requests": []}

    class Handler(BaseHTTPRequestHandler):
        def do_HEAD(self) -> None:
            requests = state["requests"]
            assert isinstance(requests, list)
            requests.append(self.path)
            status = state["status"]
            assert isinstance(status, int)
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    state["url"] = f"http://127.0.0.1:{httpd.server_address[1]}/simple"
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


def _combo(name: str, python: str, *libraries: str) -> Combo:
    return Combo(
        name, python, tuple(LibrarySpec(k, k, "latest", VersionKind.LATEST) for k in libraries)
    )


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


# -- interpreters ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("local", "uv", "uv_found", "downloadable", "downloads", "status", "detail"),
    [
        (True, None, None, None, "never", OK, "3.10.13 at /py/python3.10 (pyenv)"),
        (
            False,
            "uv",
            "/uv/python3.10",
            None,
            "never",
            OK,
            "3.10.13 at /uv/python3.10 (uv-managed)",
        ),
        (
            False,
            "uv",
            None,
            "cpython-3.10.22-linux-x86_64-gnu",
            "automatic",
            WARNING,
            (
                "not installed; a run downloads cpython-3.10.22-linux-x86_64-gnu with uv "
                "(from GitHub or $UV_PYTHON_INSTALL_MIRROR)"
            ),
        ),
        (
            False,
            "uv",
            None,
            "cpython-3.10.22-linux-x86_64-gnu",
            "never",
            MISSING,
            (
                "not on PATH, not under pyenv (/pyenv/versions); uv python find: none here; "
                "uv downloads off (UV_PYTHON_DOWNLOADS=never)"
            ),
        ),
        (
            False,
            "uv",
            None,
            None,
            "automatic",
            MISSING,
            (
                "not on PATH, not under pyenv (/pyenv/versions); uv python find: none here; "
                "uv knows no download of it"
            ),
        ),
        (
            False,
            None,
            None,
            None,
            "automatic",
            MISSING,
            "not on PATH, not under pyenv (/pyenv/versions); no uv to ask",
        ),
    ],
)
def test_check_python(
    monkeypatch: pytest.MonkeyPatch,
    local: bool,
    uv: str | None,
    uv_found: str | None,
    downloadable: str | None,
    downloads: str,
    status: str,
    detail: str,
) -> None:
    here = interpreters.Interpreter(Path("/py/python3.10"), "3.10.13", "pyenv")
    monkeypatch.setattr(interpreters, "local", lambda _w: here if local else None)
    monkeypatch.setattr(interpreters, "pyenv_roots", lambda: [Path("/pyenv/versions")])
    monkeypatch.setattr(
        interpreters,
        "uv_find",
        lambda _w, _uv: interpreters.UvAnswer(Path(uv_found) if uv_found else None, "none here"),
    )
    monkeypatch.setattr(interpreters, "_probe", lambda _path: "3.10.13")
    monkeypatch.setattr(interpreters, "uv_downloadable", lambda _w, _uv: downloadable)
    check = doctor.check_python("3.10", downloads, uv)
    assert (check.name, check.status, check.detail) == ("python 3.10", status, detail)
    if status != OK:
        assert check.fix.endswith("`uv python install 3.10` or put python3.10 on PATH")


def test_check_python_with_the_real_uv_knows_its_downloads(tmp_path: Path) -> None:
    """uv's list of downloads is built in: no network."""
    uv = interpreters.uv_binary()
    assert interpreters.uv_downloadable("3.10", uv) is not None
    assert interpreters.uv_downloadable("3.0", uv) is None


# -- uv and disk -------------------------------------------------------------------------------


def test_check_uv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    check, uv = doctor.check_uv()
    assert (check.status, uv) == (OK, interpreters.uv_binary())
    assert check.detail.startswith("uv 0.")

    broken = _script(tmp_path / "uv", "echo 'error: broken' >&2; exit 3\n")
    monkeypatch.setattr(interpreters, "uv_binary", lambda: str(broken))
    assert doctor.check_uv() == (Check("uv", MISSING, f"{broken}: broken", "pip install uv"), None)

    def absent() -> str:
        raise FileNotFoundError("uv not found: pip install uv")

    monkeypatch.setattr(interpreters, "uv_binary", absent)
    assert doctor.check_uv() == (
        Check("uv", MISSING, "uv does not run: uv not found: pip install uv", "pip install uv"),
        None,
    )


@pytest.mark.parametrize(("free", "status"), [(10_000, OK), (500, WARNING)])
def test_check_uv_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, free: int, status: str
) -> None:
    uv = _script(tmp_path / "uv", f"echo {tmp_path}/cache\n")
    monkeypatch.setattr(doctor, "_free_mb", lambda _p: free)
    check = doctor.check_uv_cache(str(uv), 1000)
    assert (check.status, check.detail.split(",")[0]) == (
        status,
        f"{tmp_path}/cache: {free} MiB free",
    )


def test_estimate_is_the_table_per_library_plus_a_base() -> None:
    combos = [_combo("a", "3.10", "numpy", "torch"), _combo("b", "3.11")]
    assert doctor.estimate_mb(combos) == 150 + 46 + 1183 + 3055 + 150


@pytest.mark.parametrize(
    ("free", "status", "fix"),
    [
        (100_000, OK, ""),
        (4500, WARNING, "free disk or use --env-dir (envs share uv's files)"),
        (4000, MISSING, "free at least 434 MiB or use --env-dir"),
    ],
)
def test_check_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, free: int, status: str, fix: str
) -> None:
    monkeypatch.setattr(doctor, "_free_mb", lambda _p: free)
    combos = [_combo("a", "3.10", "numpy", "torch"), _combo("b", "3.11", "pandas")]
    check = doctor.check_disk(tmp_path / "envs", combos)
    assert check == Check(
        "disk",
        status,
        f"{tmp_path}/envs: {free} MiB free, 2 combos need up to 4668 MiB "
        "(per-library sizes in harness/envs/doctor.py)",
        fix,
    )


def test_free_space_of_a_directory_yet_to_be_made(tmp_path: Path) -> None:
    assert doctor._free_mb(tmp_path / "not" / "yet") == doctor._free_mb(tmp_path)


# -- sandbox -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stdout", "status", "detail"),
    [
        (
            '{"done": true, "sandbox": "on", "task_cap": "cgroup"}',
            OK,
            "namespaces on, tasks capped by a cgroup",
        ),
        (
            '{"done": true, "sandbox": "on", "task_cap": "rlimit"}',
            WARNING,
            "namespaces on; no cgroup, tasks capped by rlimit",
        ),
        (
            '{"done": true, "sandbox": "unshare: Operation not permitted", "task_cap": "none"}',
            WARNING,
            (
                "unavailable (unshare: Operation not permitted): executions run unsandboxed, "
                "the run warns for model answers"
            ),
        ),
        ("", WARNING, "the env side did not answer: exit status 0"),
    ],
)
def test_check_sandbox_reads_what_the_env_side_says(
    tmp_path: Path, stdout: str, status: str, detail: str
) -> None:
    fake = _script(tmp_path / "python", f"echo '{stdout}'\n")
    check = doctor.check_sandbox(str(fake))
    assert (check.status, check.detail) == (status, detail)


def test_check_sandbox_asks_the_real_env_side() -> None:
    check = doctor.check_sandbox()
    assert check.status in (OK, WARNING)
    assert check.detail != "" and "did not answer" not in check.detail


# -- index -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("status", "result"), [(200, OK), (404, MISSING), (503, MISSING)])
def test_check_index(index: dict[str, object], status: int, result: str) -> None:
    index["status"] = status
    check = doctor.check_index(str(index["url"]))
    assert (check.status, check.detail) == (result, f"{index['url']}: HTTP {status}")
    assert index["requests"] == ["/simple/"]


def test_a_local_index(tmp_path: Path) -> None:
    assert doctor.check_index(tmp_path.as_uri()).status == OK
    assert doctor.check_index((tmp_path / "no").as_uri()) == Check(
        "package index",
        MISSING,
        f"{tmp_path.as_uri()}/no: no such directory",
        "check the index URL",
    )


def test_an_unreachable_index() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    check = doctor.check_index(f"http://127.0.0.1:{port}/simple", timeout=2)
    assert check.status == MISSING
    assert (
        check.detail
        == f"http://127.0.0.1:{port}/simple unreachable: [Errno 111] Connection refused"
    )


# -- rendering and the command -----------------------------------------------------------------


def test_render_is_one_table() -> None:
    checks = [Check("uv", OK, "uv 0.13"), Check("python 3.9", MISSING, "not found", "install it")]
    assert doctor.render(checks).splitlines() == [
        "check       status   detail     to do",
        "uv          ok       uv 0.13",
        "python 3.9  missing  not found  install it",
    ]
    assert json.loads(doctor.to_json(checks))["ok"] is False


def _matrix(tmp_path: Path, url: object) -> Path:
    path = tmp_path / "m.toml"
    path.write_text(f'[matrix]\nindex_url = "{url}"\n[combos.a]\npython = "{HERE}"\n')
    return path


def test_the_command_on_this_machine_exits_0(tmp_path: Path, index: dict[str, object]) -> None:
    proc = run_harness(
        "doctor",
        "--matrix",
        str(_matrix(tmp_path, index["url"])),
        "--env-dir",
        str(tmp_path / "envs"),
        "--json",
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] is True
    names = [c["name"] for c in report["checks"]]
    assert names == [f"python {HERE}", "uv", "uv cache", "disk", "sandbox", "package index"]
    assert report["checks"][0]["status"] == OK


@pytest.mark.parametrize(
    ("env", "argv"),
    [({"UV_PYTHON_DOWNLOADS": "never"}, []), ({}, ["--python-downloads", "never"])],
)
def test_with_interpreters_hidden_it_exits_1_and_says_what_to_do(
    tmp_path: Path, index: dict[str, object], env: dict[str, str], argv: list[str]
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "uv").symlink_to(interpreters.uv_binary())
    hidden = {
        "PATH": str(bin_dir),
        "PYENV_ROOT": str(tmp_path / "no-pyenv"),
        "HOME": str(tmp_path),
        "UV_PYTHON_INSTALL_DIR": str(tmp_path / "uv-python"),
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        **env,
    }
    proc = run_harness(
        "doctor",
        "--matrix",
        str(_matrix(tmp_path, index["url"])),
        "--env-dir",
        str(tmp_path / "envs"),
        *argv,
        cwd=ROOT,
        env=hidden,
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith(f"python {HERE}"))
    assert " missing " in line
    assert "uv downloads off (UV_PYTHON_DOWNLOADS=never)" in line
    assert line.endswith(f"run `uv python install {HERE}` or put python{HERE} on PATH")
