"""What an execution sees: a root built from what it may see (harness/envside/isolation/view.py).

The pure parts (what is allowed, what is covered) and, in a real process that enters the
sandbox, the view itself: a dataset planted under a home folder and under a cache outside
/tmp is not there, and nothing but the working directory and /tmp can be written.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.envside.isolation import sandbox, view


def test_cover_covers_outer_directories_only(tmp_path: Path) -> None:
    runs = tmp_path / "batches"
    (runs / "mine").mkdir(parents=True)
    (runs / "mine" / "batch.json").write_text("{}")
    (tmp_path / "secret.txt").write_text("x")
    work = tmp_path / "work"
    work.mkdir()
    directories, files = view.cover(
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


def test_cover_never_covers_what_the_execution_needs(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "problem.toml").write_text("")
    directories, files = view.cover(
        [str(tmp_path), str(tmp_path / "problem.toml"), str(tmp_path / "missing")],
        [str(tmp_path / "work")],
    )
    assert directories == []
    assert files == [str((tmp_path / "problem.toml").resolve())]


def test_allowed_is_the_interpreter_the_env_side_and_the_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "seaborn"
    data.mkdir()
    monkeypatch.setenv("SEABORN_DATA", str(data))
    monkeypatch.setenv("NLTK_DATA", f"{tmp_path / 'missing'}{os.pathsep}/tmp")
    binds, _ = view.allowed()
    assert os.path.realpath(sys.base_prefix) in binds or any(
        os.path.realpath(sys.base_prefix).startswith(s) for s in ("/usr/",)
    )
    assert os.path.realpath(view.HERE) in binds or any(
        os.path.realpath(view.HERE).startswith(b + "/") for b in binds
    )
    # the benchmarks' own env-side folders, each alone (not their benchmark's folder)
    assert view.BENCHMARK_SIDES
    assert all(os.path.realpath(side) in binds for side in view.BENCHMARK_SIDES)
    assert str(data.resolve()) in binds
    # /tmp named as a data folder would bring the machine's whole /tmp; a missing one nothing
    assert "/tmp" not in binds
    assert not any(b.startswith(str(tmp_path / "missing")) for b in binds)
    # nothing else: no home folder, no project, nothing sys.path may hold besides
    assert all(
        b.startswith((os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)))
        or b in (os.path.realpath(view.HERE), str(data.resolve()))
        or b in map(os.path.realpath, view.BENCHMARK_SIDES)
        for b in binds
    )


def test_allowed_never_names_a_folder_twice_or_one_inside_another() -> None:
    binds, _ = view.allowed()
    assert len(binds) == len(set(binds))
    assert not [a for a in binds for b in binds if a != b and a.startswith(b + "/")]


# -- the view, entered by a real process ------------------------------------------------


def inside(workdir: str, body: Callable[[], dict[str, Any]], **enter: Any) -> dict[str, Any]:
    """Run ``body`` in a forked child that entered the sandbox; what it returned."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read_fd)
        try:
            sandbox.enter(workdir, **enter)
            found = body()
        except BaseException as exc:
            found = {"error": f"{type(exc).__name__}: {exc}"}
        os.write(write_fd, json.dumps(found).encode())
        os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as handle:
        data = handle.read()
    os.waitpid(pid, 0)
    return dict(json.loads(data))


@pytest.fixture
def planted() -> Iterator[dict[str, Path]]:
    """A dataset copy under a home folder and under a harness cache, both outside /tmp
    (the sandbox's /tmp is its own in any design: these test what else it shows)."""
    base = Path(tempfile.mkdtemp(prefix="harness-view-", dir="/var/tmp"))
    places = {
        "home": base / "home" / ".cache" / "huggingface" / "ds1000.jsonl",
        "cache": base / "cache" / "ds-matrix-harness" / "downloads" / "ds1000.jsonl",
    }
    for path in places.values():
        path.parent.mkdir(parents=True)
        path.write_text('{"reference_code": "result = 42"}\n')
    yield places
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def workdir() -> Iterator[str]:
    folder = tempfile.mkdtemp(prefix="harness_exec_")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _needs_the_sandbox(workdir: str) -> None:
    reason = sandbox.probe(workdir)
    if reason:
        pytest.fail(f"the sandbox cannot be entered on this machine: {reason}")


def test_a_dataset_anywhere_else_on_disk_is_not_there(
    planted: dict[str, Path], workdir: str
) -> None:
    _needs_the_sandbox(workdir)
    assert all(p.read_text() for p in planted.values())  # there, outside the sandbox

    def look() -> dict[str, Any]:
        found: dict[str, Any] = {}
        for name, path in planted.items():
            for candidate in (path, path.parent, path.parents[2]):
                try:
                    found[f"{name}:{candidate}"] = sorted(p.name for p in candidate.iterdir())
                except NotADirectoryError:
                    found[f"{name}:{candidate}"] = Path(candidate).read_text()
                except OSError as exc:
                    found[f"{name}:{candidate}"] = type(exc).__name__
        found["/"] = sorted(p.name for p in Path("/").iterdir())
        found["/var"] = Path("/var").exists()
        found["project"] = (Path(view.HERE).parents[1] / "problems").exists()
        bigcodebench = Path(view.HERE).parent / "benchmarks" / "bigcodebench"
        found["its check"] = (bigcodebench / "envside" / "check.py").exists()
        found["its host side"] = (bigcodebench / "load.py").exists()
        return found

    found = inside(workdir, look)
    assert "error" not in found, found
    for name, path in planted.items():
        for candidate in (path, path.parent, path.parents[2]):
            assert found[f"{name}:{candidate}"] in ("FileNotFoundError", "PermissionError")
    assert found["/var"] is False  # not even the folder the plants are in
    assert found["project"] is False  # the env side's folder alone, not the project
    assert found["its check"] is True  # a benchmark's env-side folder, and only that
    assert found["its host side"] is False
    assert set(found["/"]) <= {*view.SYSTEM, "dev", "proc", "sys", "tmp", *_tops()}


def _tops() -> set[str]:
    """The top-level folders the interpreter, the env side and the data live under."""
    binds, _ = view.allowed()
    return {b.split("/")[1] for b in binds}


def test_only_the_working_directory_and_tmp_can_be_written(workdir: str) -> None:
    _needs_the_sandbox(workdir)

    def write() -> dict[str, Any]:
        results: dict[str, Any] = {}
        for place in ("/", "/usr", "/etc", sys.prefix, view.HERE, "/tmp", workdir, "/dev/shm"):
            try:
                (Path(place) / "harness-view-probe").write_text("x")
                results[place] = "written"
            except OSError as exc:
                results[place] = type(exc).__name__
        return results

    results = inside(workdir, write)
    assert results.pop(workdir) == "written"
    assert results.pop("/tmp") == "written"
    assert results.pop("/dev/shm") == "written"
    assert set(results.values()) <= {"OSError", "PermissionError", "FileNotFoundError"}, results
    assert not (Path("/tmp") / "harness-view-probe").exists()  # its /tmp, not ours


def test_the_interpreter_and_its_libraries_still_work(workdir: str) -> None:
    _needs_the_sandbox(workdir)

    def run() -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, "-c", "import json, sqlite3, ssl; print('ok')"],
            capture_output=True,
            text=True,
            check=False,
        )
        shell = subprocess.run(["sh", "-c", "ls / | wc -l"], capture_output=True, check=False)
        return {"python": done.stdout.strip() + done.stderr[-300:], "shell": shell.returncode}

    assert inside(workdir, run) == {"python": "ok", "shell": 0}


def test_a_hidden_path_inside_what_is_bound_is_covered(workdir: str) -> None:
    _needs_the_sandbox(workdir)
    data = Path(tempfile.mkdtemp(prefix="harness-view-data-", dir="/var/tmp"))
    try:
        (data / "problems.jsonl").write_text("secret")
        (data / "inputs.csv").write_text("a,b\n")
        os.environ["SEABORN_DATA"] = str(data)

        def read() -> dict[str, Any]:
            return {name: (data / name).read_text() for name in ("problems.jsonl", "inputs.csv")}

        found = inside(workdir, read, hide=[str(data / "problems.jsonl")])
        assert found == {"problems.jsonl": "", "inputs.csv": "a,b\n"}
    finally:
        os.environ.pop("SEABORN_DATA", None)
        shutil.rmtree(data, ignore_errors=True)


def test_a_new_interpreters_tmp_keeps_the_benchmarks_env_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A solution's new interpreter (fresh isolation) covers /tmp with its own, binding
    back what it needs from there: the benchmarks' env-side folders too, which an
    in-process fallback imports its driver from (a checkout under /tmp, as a test suite's,
    lost them: ModuleNotFoundError for every answer graded in its own process)."""
    side = tmp_path / "harness" / "benchmarks" / "some" / "envside"
    side.mkdir(parents=True)
    (side / "driver.py").write_text("RUN = 1\n")
    (tmp_path / "harness" / "benchmarks" / "some" / "load.py").write_text("SECRET = 1\n")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setattr(view, "BENCHMARK_SIDES", [str(side)])
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read_fd)
        try:
            sandbox.cover_tmp(str(work))
            found: dict[str, object] = {
                "driver": (side / "driver.py").is_file(),
                "rest": (side.parent / "load.py").exists(),
            }
        except BaseException as exc:
            found = {"error": f"{type(exc).__name__}: {exc}"}
        os.write(write_fd, json.dumps(found).encode())
        os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as handle:
        data = handle.read()
    os.waitpid(pid, 0)
    assert json.loads(data) == {"driver": True, "rest": False}
