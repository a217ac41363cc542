"""Where the kernel refuses namespaces, no model answer runs unsandboxed unless the user
says so (``--allow-unsandboxed-answers``), and ``harness doctor`` names the refusal and
its fix.

Each test runs the harness, or the env side, where every namespace is refused
(``tests/refused_namespaces.py`` says how: an unprivileged user in a user namespace whose
``user.max_user_namespaces`` is 0, the machine's own settings untouched), against the same
harness run normally on this machine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.envs.build import ENVSIDE
from harness.envside import protocol
from tests import refused_namespaces

pytestmark = pytest.mark.skipif(
    bool(refused_namespaces.available()), reason=refused_namespaces.available()
)

HERE = f"{sys.version_info.major}.{sys.version_info.minor}"
CAUSE = "(user.max_user_namespaces=0)"
FIX = "sudo sysctl -w user.max_user_namespaces=15000"


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
