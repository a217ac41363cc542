"""The sandbox: why a machine refuses it its namespaces (the kernel's switch, and its
fix), and emptying a worker's cgroups, with real processes and cgroups.

Entering the sandbox needs a real process and is exercised by tests/test_view.py (what
an execution sees), tests/test_envside.py and tests/test_hostile.py.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import pytest

from harness.envside.isolation import cgroups, processes, refusal

# -- emptying a worker's cgroup between executions ------------------------------------


def _sleeper() -> int:
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        time.sleep(60)
        os._exit(0)
    return pid


def test_await_exits_returns_once_the_killed_have_exited() -> None:
    pids = [_sleeper(), _sleeper()]
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    processes.await_exits(pids, timeout=30.0)
    # exited (zombies of ours now): reaped without waiting
    assert all(os.waitpid(pid, os.WNOHANG)[0] == pid for pid in pids)


def test_await_exits_gives_up_at_its_timeout_on_a_living_process() -> None:
    pid = _sleeper()
    try:
        processes.await_exits([pid], timeout=0.05)
        assert os.waitpid(pid, os.WNOHANG) == (0, 0)  # still running: nothing was killed
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    processes.await_exits([pid], timeout=1.0)  # a pid already gone: returns at once


def test_empty_cgroup_kills_all_but_those_kept() -> None:
    groups = cgroups.execution_cgroups(f"harness-test-empty-{os.getpid()}", 16)
    if not groups:
        pytest.skip("this machine does not let us make cgroups (not root, or none mounted)")
    ready_r, ready_w = os.pipe()
    leader = os.fork()
    if leader == 0:  # pragma: no cover - the child: joins, starts three more, waits
        os.close(ready_r)
        cgroups.join_cgroup(groups[0])
        for _ in range(3):
            _sleeper()
        os.write(ready_w, b"x")
        time.sleep(60)
        os._exit(0)
    os.close(ready_w)
    try:
        assert os.read(ready_r, 1) == b"x"
        inside = cgroups.processes_in(groups[0])
        assert leader in inside and len(inside) == 4
        kept = next(p for p in inside if p != leader)
        cgroups.empty_cgroup(groups[0], keep=[kept])
        assert cgroups.processes_in(groups[0]) == [kept]
        cgroups.empty_cgroup(groups[0], keep=[])
        assert cgroups.processes_in(groups[0]) == []
    finally:
        os.close(ready_r)
        for cgroup in groups:
            cgroups.release_cgroup(cgroup)
        with contextlib.suppress(ChildProcessError):  # emptying reaps what it killed
            os.waitpid(leader, 0)


def test_await_exits_leaves_a_fork_bombs_many_to_the_cgroup_reread() -> None:
    pids = [_sleeper() for _ in range(processes._WAIT_AT_MOST + 1)]
    try:
        processes.await_exits(pids, timeout=30.0)  # none killed: returns after its 2 ms
        assert all(os.waitpid(pid, os.WNOHANG) == (0, 0) for pid in pids)
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


REFUSED = "[Errno 1] unshare: Operation not permitted"


@pytest.mark.parametrize(
    ("switches", "cause", "fix"),
    [
        # Ubuntu 24.04, GitHub's ubuntu-latest
        (
            {"kernel.apparmor_restrict_unprivileged_userns": "1", "user.max_user_namespaces": "63"},
            f"{REFUSED} (kernel.apparmor_restrict_unprivileged_userns=1)",
            "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
        ),
        (
            {"kernel.apparmor_restrict_unprivileged_userns": "0", "user.max_user_namespaces": "0"},
            f"{REFUSED} (user.max_user_namespaces=0)",
            "sudo sysctl -w user.max_user_namespaces=15000",
        ),
        (
            {"kernel.unprivileged_userns_clone": "0", "user.max_user_namespaces": "63"},
            f"{REFUSED} (kernel.unprivileged_userns_clone=0)",
            "sudo sysctl -w kernel.unprivileged_userns_clone=1",
        ),
        ({"user.max_user_namespaces": "63"}, REFUSED, refusal.USER_FIX),
    ],
)
def test_a_refusal_names_the_kernels_switch_and_its_fix(
    switches: dict[str, str], cause: str, fix: str
) -> None:
    assert refusal.diagnose(REFUSED, 1000, switches.get) == (cause, fix)


def test_no_switch_refuses_root_its_namespaces() -> None:
    """Root makes them without a user namespace: a refusal there is a container's."""
    refusing = {"kernel.apparmor_restrict_unprivileged_userns": "1"}
    assert refusal.diagnose(REFUSED, 0, refusing.get) == (REFUSED, refusal.ROOT_FIX)


def test_the_switches_are_read_where_the_kernel_keeps_them() -> None:
    assert refusal._read_sysctl("user.max_user_namespaces") == (
        Path("/proc/sys/user/max_user_namespaces").read_text().strip()
    )
    assert refusal._read_sysctl("kernel.no_such_switch") is None
