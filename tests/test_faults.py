"""Faults: a run killed midway, a cut results file, two runs at once, a results directory
that cannot be written, a package index that cannot be reached. Nothing recorded is lost,
nothing is recorded twice, and what can still run, runs.

The numbers in RELIABILITY.md come from this module: `python -m pytest tests/test_faults.py`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest

from harness.core.results import repair_outcomes
from harness.envs import workspace
from tests.conftest import ROOT, run_harness
from tests.test_results import outcome as make_outcome

PY = f"{sys.version_info.major}.{sys.version_info.minor}"


def harness(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run_harness(*args, cwd=cwd, check=check)


# -- a results file cut by a kill ------------------------------------------------------


def test_a_cut_last_line_is_dropped_and_the_file_repaired(tmp_path: Path) -> None:
    path = tmp_path / "combo.jsonl"
    first, second = make_outcome(problem_id="p/1"), make_outcome(problem_id="p/2")
    whole = json.dumps(first.to_dict()) + "\n" + json.dumps(second.to_dict()) + "\n"
    path.write_text(whole + json.dumps(make_outcome(problem_id="p/3").to_dict())[:57])
    kept, dropped = repair_outcomes(path)
    assert ([o.problem_id for o in kept], dropped) == (["p/1", "p/2"], 1)
    assert path.read_text() == whole  # the cut line is gone from the file too
    assert repair_outcomes(path) == (kept, 0)


def test_a_repeated_outcome_is_kept_once(tmp_path: Path) -> None:
    path = tmp_path / "combo.jsonl"
    line = json.dumps(make_outcome(problem_id="p/1").to_dict()) + "\n"
    path.write_text(line + line)
    kept, dropped = repair_outcomes(path)
    assert (len(kept), dropped, path.read_text()) == (1, 1, line)


def test_a_whole_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "combo.jsonl"
    line = json.dumps(make_outcome(problem_id="p/1").to_dict())
    path.write_text(line)
    kept, dropped = repair_outcomes(path)
    assert (len(kept), dropped, path.read_text()) == (1, 0, line + "\n")


# -- the workspace -------------------------------------------------------------------------


def test_a_second_run_on_the_same_results_is_refused(tmp_path: Path) -> None:
    results = tmp_path / "results"
    with workspace.exclusive(results, "run first"):
        proc = harness(
            "run", "--problems", str(ROOT / "tests/data/problems"), "--results", str(results),
            "--run-id", "second", "--no-history", cwd=ROOT, check=False,
        )  # fmt: skip
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert line == (
        f"error: {results}: in use by pid {os.getpid()} (run first); "
        "wait for it to finish or pass another --results"
    )
    assert not (results / "second").exists()  # refused before doing anything


def test_the_lock_dies_with_its_holder(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import time
            from pathlib import Path
            from harness.envs import workspace
            with workspace.exclusive(Path({str(tmp_path)!r}), "run killed"):
                print("held", flush=True)
                time.sleep(60)
        """)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "held"
    with (
        pytest.raises(workspace.WorkspaceError, match="in use by pid"),
        workspace.exclusive(tmp_path, "x"),
    ):
        pass
    holder.kill()
    holder.wait()
    holder.stdout.close()
    with workspace.exclusive(tmp_path, "after the kill"):
        pass  # no stale lock


def test_results_under_a_file_are_reported_before_any_work(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("a file, not a directory\n")
    proc = harness(
        "run", "--problems", str(ROOT / "tests/data/problems"), "--results", str(tmp_path / "taken" / "results"),
        "--env-dir", str(tmp_path / "envs"), "--no-history", cwd=ROOT, check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert (
        line
        == f"error: {tmp_path}/taken/results: cannot create the results directory: Not a directory"
    )
    assert not (tmp_path / "envs").exists()  # no environment was built


def test_a_full_disk_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Usage:
        free = 5 * 1024 * 1024

    monkeypatch.setattr("harness.envs.workspace.shutil.disk_usage", lambda _path: Usage())
    with pytest.raises(workspace.WorkspaceError) as caught:
        workspace.check_writable(tmp_path / "results")
    assert str(caught.value) == f"{tmp_path}/results: only 5 MiB free; a run needs at least 64 MiB"


needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="mounting a small or read-only filesystem needs root"
)


def _in_mount_namespace(script: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` (bash) in a mount namespace of its own: its mounts vanish with it."""
    return subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "bash", "-c", script],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=300,
    )


@needs_root
def test_a_really_full_filesystem_is_reported(tmp_path: Path) -> None:
    mount = tmp_path / "small"
    mount.mkdir()
    proc = _in_mount_namespace(
        f"mount -t tmpfs -o size=2m tmpfs {mount} && head -c 2000000 /dev/zero > {mount}/filler; "
        f"{sys.executable} -m harness run --problems tests/data/problems --results {mount}/results "
        f"--env-dir {tmp_path}/envs --no-history"
    )
    assert proc.returncode == 2, proc.stderr
    assert (
        proc.stderr.strip()
        == f"error: {mount}/results: only 0 MiB free; a run needs at least 64 MiB"
    )
    assert not (tmp_path / "envs").exists()


@needs_root
def test_a_read_only_filesystem_is_reported(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    proc = _in_mount_namespace(
        f"mount --bind {results} {results} && mount -o remount,bind,ro {results} && "
        f"{sys.executable} -m harness run --problems tests/data/problems --results {results} "
        f"--env-dir {tmp_path}/envs --no-history"
    )
    assert proc.returncode == 2, proc.stderr
    assert (
        proc.stderr.strip() == f"error: {results}: cannot write results here: Read-only file system"
    )


# -- killed midway, then resumed -------------------------------------------------------------


def _slow_problems(root: Path, count: int, tag: str) -> Path:
    problems = root / "problems" / "slow"
    problems.mkdir(parents=True)
    for i in range(count):
        (problems / f"p{i:02d}.toml").write_text(
            textwrap.dedent(f"""
            library = "numpy"
            prompt = "Wait a little, then give {i}."
            setup = "import numpy as np"
            reference = '''
            import time
            time.sleep(0.4)
            result = np.int64({i})
            '''
            check = "assert result == {i}"
            """)
        )
    answers = root / "slow-answers.jsonl"
    # one answer never ends: after the kill, nothing of it may be left running
    lines = [
        {"problem_id": f"slow/p{i:02d}", "code": f"result = np.int64({i})"} for i in range(count)
    ]
    lines[count // 2]["code"] = f"import time\nwhile True:\n    time.sleep(0.1)  # {tag}"
    answers.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return answers


def _processes_mentioning(tag: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if tag.encode() in cmdline and b"pytest" not in cmdline:
                found.append(cmdline.decode(errors="replace"))
    return found


@pytest.mark.network
def test_sigkill_midway_then_resume_loses_and_repeats_nothing(tmp_path: Path) -> None:
    count = 24
    tag = f"harness-fault-{uuid.uuid4().hex[:8]}"
    answers = _slow_problems(tmp_path, count, tag)
    (tmp_path / "matrix.toml").write_text(
        f'[matrix]\npython = "{PY}"\n[combos.np]\nnumpy = "2.2.6"\n[combos.np-old]\nnumpy = "1.26.4"\n'
    )
    command = [
        sys.executable, "-m", "harness", "run", "--problems", "problems", "--answers", str(answers),
        "--results", "results", "--env-dir", "envs", "--run-id", "killed", "--timeout", "10",
        "--no-history", "-j", "2",
    ]  # fmt: skip
    outcomes = tmp_path / "results" / "killed" / "np.jsonl"
    run = subprocess.Popen(
        command,
        cwd=tmp_path,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline and run.poll() is None:
        if outcomes.is_file() and len(outcomes.read_text().splitlines()) >= count // 2:
            break
        time.sleep(0.1)
    assert run.poll() is None, "the run ended before it could be killed"
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    before = outcomes.read_text().splitlines()
    # the kill may or may not have cut a line; make sure one is cut, as a crash would
    with outcomes.open("a") as fh:
        fh.write(before[-1][: len(before[-1]) // 2])
    time.sleep(1)
    assert _processes_mentioning(tag) == []  # the never-ending answer died with the run
    manifest = json.loads((tmp_path / "results" / "killed" / "run.json").read_text())
    assert manifest["finished"] is None

    resumed = harness(
        "run", "--resume", "--results", "results", "--env-dir", "envs", cwd=tmp_path, check=False
    )
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "resuming run killed" in resumed.stderr
    assert "np: dropped 1 unreadable line(s) of np.jsonl (cut off)" in resumed.stderr
    for combo in ("np", "np-old"):
        rows = [
            json.loads(line)
            for line in (tmp_path / "results" / "killed" / f"{combo}.jsonl")
            .read_text()
            .splitlines()
        ]
        keys = Counter((r["problem_id"], r["source"]) for r in rows)
        assert len(keys) == 2 * count  # nothing lost: every reference and every answer
        assert max(keys.values()) == 1  # nothing twice
        assert sorted(r["seq"] for r in rows) == list(range(2 * count))
        statuses = Counter(r["status"] for r in rows)
        assert statuses == {"pass": 2 * count - 1, "timeout": 1} or statuses == {
            "pass": 2 * count - 1,
            "crash": 1,
        }
    # the part run before the kill is kept as it was, not rerun
    kept = set(before[:-1])
    after = set((tmp_path / "results" / "killed" / "np.jsonl").read_text().splitlines())
    assert kept <= after
    manifest = json.loads((tmp_path / "results" / "killed" / "run.json").read_text())
    assert manifest["finished"]
    again = harness("run", "--resume", "--results", "results", cwd=tmp_path, check=False)
    assert again.returncode == 2
    assert (
        again.stderr.strip()
        == "error: harness: --resume: every run in results has finished; nothing to resume"
    )


# -- the package index cannot be reached -----------------------------------------------------


@pytest.mark.network
def test_an_unreachable_index_still_runs_the_combos_already_built(tmp_path: Path) -> None:
    combos = '[combos.built]\nnumpy = "2.2.6"\n[combos.never-built]\nnumpy = "2.1.3"\n'
    (tmp_path / "first.toml").write_text(
        f'[matrix]\npython = "{PY}"\n' + combos.split("[combos.never", maxsplit=1)[0]
    )
    (tmp_path / "offline.toml").write_text(
        f'[matrix]\npython = "{PY}"\nindex_url = "http://127.0.0.1:9/simple"\n' + combos
    )
    common = [
        "--problems",
        str(ROOT / "tests/data/problems"),
        "--env-dir",
        "envs",
        "--no-history",
        "--results",
        "results",
    ]
    harness("run", "--matrix", "first.toml", *common, "--run-id", "online", cwd=tmp_path)
    proc = harness("run", "--matrix", "offline.toml", *common, "--run-id", "offline", cwd=tmp_path)
    assert "built: package index unreachable: using this combo's last resolution" in proc.stderr
    built = json.loads((tmp_path / "results/offline/envs/built.json").read_text())
    assert (
        built["ok"]
        and built["note"] == "package index unreachable: using this combo's last resolution"
    )
    statuses = Counter(
        json.loads(line)["status"]
        for line in (tmp_path / "results/offline/built.jsonl").read_text().splitlines()
    )
    assert statuses["env_error"] == 0 and sum(statuses.values()) == 3
    never = json.loads((tmp_path / "results/offline/envs/never-built.json").read_text())
    assert not never["ok"] and never["stage"] == "resolve"
    assert never["error"].startswith("package index unreachable (http://127.0.0.1:9/simple): ")
    assert "\n" not in never["error"]
