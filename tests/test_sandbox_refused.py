"""Where the kernel refuses namespaces, no model answer runs unsandboxed unless the user
says so (``--allow-unsandboxed-answers``), and ``harness doctor`` names the refusal and
its fix.

Each test runs the harness, or the env side, where every namespace is refused
(``tests/refused_namespaces.py`` says how: an unprivileged user in a user namespace whose
``user.max_user_namespaces`` is 0, the machine's own settings untouched), against the same
harness run normally on this machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from harness.envs.build import ENVSIDE
from harness.envside import protocol
from harness.execute.runner import ask_sandbox
from tests import refused_namespaces
from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(
    bool(refused_namespaces.available()), reason=refused_namespaces.available()
)

HERE = f"{sys.version_info.major}.{sys.version_info.minor}"
CAUSE = "(user.max_user_namespaces=0)"
FIX = "sudo sysctl -w user.max_user_namespaces=15000"


def refused(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``harness ARGS`` where the kernel refuses namespaces, with its own caches under
    ``cwd`` (nothing it writes lands in root's home) and no index needed."""
    home = cwd / "home"
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "UV_CACHE_DIR": str(cwd / "uv-cache"),
        "UV_OFFLINE": "1",
    }
    return subprocess.run(
        refused_namespaces.refusing(sys.executable, "-m", "harness", *args),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
        check=False,
    )


@pytest.fixture
def inputs(tmp_path: Path) -> list[str]:
    """``harness run`` arguments: a combo of no library (built offline in a second), one
    problem, its reference and one model's answer."""
    (tmp_path / "matrix.toml").write_text(f'[matrix]\npython = "{HERE}"\n[combos.bare]\n')
    problem = tmp_path / "set" / "numpy" / "one.toml"
    problem.parent.mkdir(parents=True)
    problem.write_text(
        textwrap.dedent("""
            library = "numpy"
            prompt = "Give 1."
            setup = "x = 0"
            reference = "result = 1"
            check = "assert result == 1"
        """)
    )
    answers = tmp_path / "gpt-answers.jsonl"
    answers.write_text('{"problem_id": "set/numpy/one", "code": "result = 1"}\n')
    return [
        "run", "--matrix", str(tmp_path / "matrix.toml"), "--problems", str(tmp_path / "set"),
        "--answers", str(answers), "--results", str(tmp_path / "results"),
        "--env-dir", str(tmp_path / "envs"), "--run-id", "r1", "--no-history", "--quiet",
    ]  # fmt: skip


def test_the_command_runs_unprivileged_with_user_namespaces_refused() -> None:
    machine = Path(refused_namespaces.LIMIT).read_text()
    shown = subprocess.run(
        refused_namespaces.refusing("sh", "-c", f"id -u; cat {refused_namespaces.LIMIT}"),
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.split() == ["65534", "0"]
    assert Path(refused_namespaces.LIMIT).read_text() == machine != "0\n"  # untouched


def test_doctor_says_the_sandbox_is_refused_and_names_the_fix(tmp_path: Path) -> None:
    proc = refused("doctor", "--check", "sandbox", "--json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr  # blocking: a run with answers would not start
    (check,) = json.loads(proc.stdout)["checks"]
    assert (check["name"], check["status"], check["fix"]) == ("sandbox", "missing", FIX)
    assert check["detail"] == (
        f"refused ([Errno 28] unshare: No space left on device {CAUSE}): a run with model "
        "answers stops before they run (--allow-unsandboxed-answers runs them unsandboxed)"
    )


def test_a_run_with_model_answers_does_not_start(tmp_path: Path, inputs: list[str]) -> None:
    proc = refused(*inputs, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[-1] == (
        f"error: sandbox: refused on this machine ([Errno 28] unshare: No space left on "
        f"device {CAUSE}), and model answers run only in it; fix: {FIX}, or pass "
        "--allow-unsandboxed-answers to run them unsandboxed"
    )
    assert [line for line in proc.stderr.splitlines() if line.startswith("error")] == [
        proc.stderr.splitlines()[-1]
    ]
    # stopped before anything: no environment built, no run directory, nothing ran
    assert not (tmp_path / "envs").exists() and not (tmp_path / "results").exists()


def test_with_the_option_the_answers_run_and_the_run_says_so(
    tmp_path: Path, inputs: list[str]
) -> None:
    proc = refused(*inputs, "--allow-unsandboxed-answers", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    run = tmp_path / "results" / "r1"
    outcomes = [json.loads(line) for line in (run / "bare.jsonl").read_text().splitlines()]
    assert {(o["source"], o["status"]) for o in outcomes} == {
        ("reference", "pass"),
        ("model:gpt", "pass"),
    }
    executor = json.loads((run / "envs" / "bare.executor.json").read_text())
    assert executor["sandbox"] == f"[Errno 28] unshare: No space left on device {CAUSE}"
    assert executor["sandbox_fix"] == FIX
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["options"]["unsandboxed_answers"] is True
    assert manifest["inputs"]["command"]["allow_unsandboxed_answers"] is True
    warning = (
        f"Warning: model answers ran without the sandbox in `bare` ({executor['sandbox']}), "
        "as `--allow-unsandboxed-answers` allowed: untrusted code ran with this machine's reach."
    )
    summary_md = (run / "summary.md").read_text()
    first_screen = summary_md[: summary_md.index("## Environments")]
    assert f"**{warning}**" in first_screen
    assert "data-glance='unsandboxed'" in (run / "report.html").read_text()
    assert json.loads((run / "summary.json").read_text())["unsandboxed"] == {
        "bare": executor["sandbox"]
    }
    # and doctor, asked where the run ran, says what the run recorded
    doctor = refused("doctor", "--check", "sandbox", "--json", cwd=tmp_path)
    (check,) = json.loads(doctor.stdout)["checks"]
    assert check["detail"].startswith(f"refused ({executor['sandbox']}): ")
    assert check["fix"] == executor["sandbox_fix"]


def test_references_alone_run_without_the_option(tmp_path: Path, inputs: list[str]) -> None:
    without_answers = [a for a in inputs if "answers" not in a]
    assert len(without_answers) == len(inputs) - 2
    proc = refused(*without_answers, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    run = tmp_path / "results" / "r1"
    (outcome,) = [json.loads(line) for line in (run / "bare.jsonl").read_text().splitlines()]
    assert (outcome["source"], outcome["status"]) == ("reference", "pass")
    assert "Warning: model answers ran" not in (run / "summary.md").read_text()


def _batch(tmp_path: Path, unsandboxed_answers: bool) -> Path:
    check = "def test_execution(solution):\n    ns = {}\n    exec(solution, ns)\n    assert ns['r'] == 3\n"
    batch = protocol.Batch(
        protocol=protocol.PROTOCOL,
        problems={"p": protocol.ProblemSpec(context=check)},
        executions=(
            protocol.ExecutionSpec(problem="p", solution="r = 3", trusted=True),
            protocol.ExecutionSpec(problem="p", solution="r = 3"),  # a model's
        ),
        options=protocol.Options(unsandboxed_answers=unsandboxed_answers),
    )
    path = tmp_path / f"batch-{unsandboxed_answers}" / "batch.json"
    path.parent.mkdir()
    path.write_text(json.dumps(batch.to_json()))
    return path


@pytest.mark.parametrize("allowed", [False, True])
def test_the_env_side_itself_refuses_model_answers_it_cannot_sandbox(
    tmp_path: Path, allowed: bool
) -> None:
    """Whatever the host did or did not ask first, a batch's env side runs no model answer
    unsandboxed unless the batch allows it; the references run either way."""
    proc = subprocess.run(
        refused_namespaces.refusing(
            sys.executable, "-s", str(ENVSIDE), "run", str(_batch(tmp_path, allowed))
        ),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    lines = [protocol.read_line(line) for line in proc.stdout.splitlines()]
    done = lines[-1]
    assert isinstance(done, protocol.Done) and done.sandbox_fix == FIX
    records = {line.seq: line.outcome for line in lines if isinstance(line, protocol.OutcomeLine)}
    assert records[0].status == protocol.PASS
    if allowed:
        assert records[1].status == protocol.PASS
    else:
        assert records[1].status == protocol.ENV_ERROR
        assert records[1].message == (
            f"not run: model answers run only in the sandbox, refused here ({done.sandbox}); "
            f"{FIX}, or pass --allow-unsandboxed-answers to run them without it"
        )


def test_asked_through_a_combos_interpreter_the_env_side_says_the_same(tmp_path: Path) -> None:
    python = refused_namespaces.interpreter(tmp_path / "python")
    state = ask_sandbox(python)
    assert state.refused and state.error == ""
    assert (state.sandbox, state.fix, state.task_cap) == (
        f"[Errno 28] unshare: No space left on device {CAUSE}",
        FIX,
        "none",
    )
