from __future__ import annotations

import json
import socket
import sys
import threading
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from harness.app import doctor
from harness.app.doctor import MISSING, OK, WARNING, Check
from harness.envs import interpreters
from harness.envs.build import ENVSIDE
from harness.envside import protocol
from harness.execute.runner import ask_sandbox
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
        "(per-library sizes in harness/app/doctor.py)",
        fix,
    )


def test_free_space_of_a_directory_yet_to_be_made(tmp_path: Path) -> None:
    assert doctor._free_mb(tmp_path / "not" / "yet") == doctor._free_mb(tmp_path)


# -- sandbox -----------------------------------------------------------------------------------


def _done(**fields: str) -> str:
    return protocol.done_line(protocol.Done(protocol.PROTOCOL, **fields)).strip()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("stdout", "check"),
    [
        (
            _done(sandbox="on", task_cap="cgroup"),
            Check("sandbox", OK, "namespaces on, tasks capped by a cgroup"),
        ),
        (
            _done(sandbox="on", task_cap="rlimit"),
            Check(
                "sandbox",
                WARNING,
                "namespaces on; no cgroup, tasks capped by rlimit",
                "run where a cgroup v2 subtree is writable",
            ),
        ),
        (
            _done(
                sandbox="[Errno 1] unshare: Operation not permitted "
                "(kernel.apparmor_restrict_unprivileged_userns=1)",
                sandbox_fix="sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
                task_cap="none",
            ),
            Check(
                "sandbox",
                MISSING,
                "refused ([Errno 1] unshare: Operation not permitted "
                "(kernel.apparmor_restrict_unprivileged_userns=1)): a run with model answers "
                "stops before they run (--allow-unsandboxed-answers runs them unsandboxed)",
                "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
            ),
        ),
        (
            _done(refused="batch: unknown key 'limits'"),
            Check(
                "sandbox",
                WARNING,
                "the env side did not answer: batch: unknown key 'limits'",
                "check that {python} can run " + str(ENVSIDE),
            ),
        ),
        (
            "",
            Check(
                "sandbox",
                WARNING,
                "the env side did not answer: exit status 0",
                "check that {python} can run " + str(ENVSIDE),
            ),
        ),
    ],
)
def test_check_sandbox_reads_what_the_env_side_says(
    tmp_path: Path, stdout: str, check: Check
) -> None:
    (tmp_path / "done.json").write_text(stdout + "\n" if stdout else "")
    fake = _script(tmp_path / "python", f"cat {tmp_path / 'done.json'}\n")
    assert doctor.check_sandbox(str(fake)) == replace(check, fix=check.fix.format(python=fake))


def test_doctor_says_what_a_real_run_records(tmp_path: Path) -> None:
    """Doctor asks the env side the way a run does (a batch the protocol accepts, made by
    the one builder) and says "ok" exactly when a real run here records its sandbox on,
    with the state and fix that run records."""
    (tmp_path / "matrix.toml").write_text(f'[matrix]\npython = "{HERE}"\n[combos.bare]\n')
    problem = tmp_path / "set" / "numpy" / "one.toml"
    problem.parent.mkdir(parents=True)
    problem.write_text(
        'library = "numpy"\nprompt = "1"\nsetup = "x = 0"\nreference = "result = 1"\n'
        'check = "assert result == 1"\n'
    )
    answers = tmp_path / "gpt-answers.jsonl"
    answers.write_text('{"problem_id": "set/numpy/one", "code": "result = 1"}\n')
    run_harness(
        "run", "--matrix", str(tmp_path / "matrix.toml"), "--problems", str(tmp_path / "set"),
        "--answers", str(answers), "--results", str(tmp_path / "results"),
        "--env-dir", str(tmp_path / "envs"), "--run-id", "r1", "--no-history", "--quiet",
        cwd=ROOT, env={"UV_CACHE_DIR": str(tmp_path / "uv-cache"), "UV_OFFLINE": "1"},
    )  # fmt: skip
    recorded = json.loads((tmp_path / "results/r1/envs/bare.executor.json").read_text())
    state = ask_sandbox(sys.executable)
    assert state.error == ""  # the protocol accepted doctor's batch
    assert (state.sandbox, state.fix, state.task_cap) == (
        recorded["sandbox"],
        recorded["sandbox_fix"],
        recorded["task_cap"],
    )
    check = doctor.check_sandbox()
    assert (check.status == OK) == (
        recorded["sandbox"] == "on" and recorded["task_cap"] == "cgroup"
    )
    assert (check.status == MISSING) == (recorded["sandbox"] != "on")
    if check.status == MISSING:
        assert recorded["sandbox"] in check.detail and check.fix == recorded["sandbox_fix"]


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
    ("kinds", "names"),
    [
        (["sandbox"], ["sandbox"]),
        (["index", "python"], [f"python {HERE}", "package index"]),  # in the table's order
        (["uv"], ["uv", "uv cache"]),
    ],
)
def test_check_runs_only_the_kinds_named(
    tmp_path: Path, index: dict[str, object], kinds: list[str], names: list[str]
) -> None:
    matrix = _matrix(tmp_path, index["url"])
    argv = [a for kind in kinds for a in ("--check", kind)]
    proc = run_harness("doctor", "--matrix", str(matrix), *argv, "--json", cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [c["name"] for c in json.loads(proc.stdout)["checks"]] == names
    assert index["requests"] == (["/simple/"] if "index" in kinds else [])


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
