"""The checker confined: what code running in an execution's own process can reach.

An answer never runs in its checker's process; these tests ask what it could do if a
future escape ran it there anyway. The problem's context is the check's own code, run in
the checker: here it plays the escaped answer, looks around, and reports what it found
(``harness/envside/isolation/sandbox.confine_checker``, ``processes.PidNamespace``). Where the
harness runs as the machine's root (CI does), the checker must be confined: not root on
the machine, no process of the machine in sight, no capability on the machine, not
dumpable, nothing writable but its working directory and its /tmp. The worst it could do
is forge its own verdict.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest

from harness.envside import protocol
from harness.envside.isolation import sandbox
from harness.envside.scheduling import scheduler
from tests import hostile_escape
from tests.envside import run_envside

LOOK_AROUND = textwrap.dedent(
    r"""
    import ctypes, json, os, signal, sys

    def _try(action):
        try:
            action()
            return "done"
        except OSError as exc:
            return type(exc).__name__

    def _checked(result, libc):
        if result < 0:
            number = ctypes.get_errno()
            raise OSError(number, os.strerror(number))
        return result

    def _escape(found, libc):
        # what an escaped answer would try next (tests/hostile_escape.py), from here
        libc.syscall.restype = ctypes.c_long
        keyctl = lambda *a: _checked(libc.syscall(ctypes.c_long(250), *a), libc)
        found["read the machine's /tmp"] = _try(lambda: open("BEACON").read(1))
        found["read the runner's session keyring"] = _try(lambda: keyctl(
            ctypes.c_long(10), ctypes.c_long(-3), b"user", b"RUNNER_KEY", ctypes.c_long(0)))
        # (its session keyring is a new one of its own: a key it adds lands there, and the
        # runner's is checked from outside, below)
        found["add a key to its session keyring"] = _try(lambda: _checked(libc.syscall(
            ctypes.c_long(248), b"user", b"planted-by-the-checker", b"x", ctypes.c_long(1),
            ctypes.c_long(-3)), libc))
        found["signal every process it may (kill -1)"] = _try(lambda: os.kill(-1, 0))
        found["signal the first process through a pidfd"] = _try(lambda: _checked(
            libc.syscall(ctypes.c_long(424), ctypes.c_long(os.pidfd_open(1)),
                         ctypes.c_long(0), None, ctypes.c_long(0)), libc))
        found["read the first process by ptrace"] = _try(lambda: _checked(
            libc.ptrace(ctypes.c_long(16), ctypes.c_long(1), None, None), libc))
        found["read the first process's descriptors"] = _try(lambda: os.listdir("/proc/1/fd"))
        cgroups = [l.strip().split(":", 2) for l in open("/proc/self/cgroup")]
        pids = [c[2] for c in cgroups if len(c) == 3 and c[1] == "pids" and c[2] != "/"]
        found["write its worker's cgroup"] = _try(lambda: open(
            "/sys/fs/cgroup/pids%s/pids.max" % (pids[0] if pids else ""), "w").close())

        def from_a_namespace_of_its_own():
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    if libc.unshare(0x10000000 | 0x20000) == 0:  # user, mount
                        libc.mount(None, b"/usr", None, 32 | 4096, None)  # remount rw
                        open("/usr/harness-escape", "w").close()
                        code = 0
                finally:
                    os._exit(code)
            if os.waitpid(pid, 0)[1] != 0:
                raise PermissionError("refused")
        found["write /usr from a user namespace of its own"] = _try(from_a_namespace_of_its_own)

        def from_a_program_it_starts():
            import subprocess
            code = (
                "import os, sys\n"
                "for name in ('mem', 'environ', 'fd/0'):\n"
                "    try:\n"
                "        os.close(os.open('/proc/%s/' % sys.argv[1] + name, os.O_RDONLY))\n"
                "        print(name)\n"
                "    except OSError:\n"
                "        pass\n"
            )
            shown = subprocess.run([sys.executable, "-S", "-c", code, str(os.getpid())],
                                   capture_output=True, text=True).stdout
            if not shown:
                raise PermissionError("refused")
        found["read the checker from a program it starts"] = _try(from_a_program_it_starts)

    def test_execution(solution):
        found = {"uid_map": open("/proc/self/uid_map").read().split()}
        found["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        found["me"] = os.getpid()
        found["status"] = {
            line.split(":")[0]: line.split(":", 1)[1].strip()
            for line in open("/proc/self/status")
            if line.startswith(("NoNewPrivs", "Uid"))
        }
        libc = ctypes.CDLL(None, use_errno=True)
        found["dumpable"] = libc.prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE
        found["read /etc/shadow"] = _try(lambda: open("/etc/shadow").read(1))
        found["read /proc/1/root"] = _try(lambda: os.listdir("/proc/1/root"))
        found["read /proc/1/environ"] = _try(lambda: open("/proc/1/environ").read(1))
        found["signal the first process"] = _try(lambda: os.kill(1, 0))
        found["signal the test runner"] = _try(lambda: os.kill(TEST_RUNNER, 0))
        found["write /usr"] = _try(lambda: open("/usr/harness-escape", "w").close())
        found["write /etc"] = _try(lambda: open("/etc/harness-escape", "w").close())
        found["write /proc/sys"] = _try(
            lambda: open("/proc/sys/kernel/hostname", "w").write("escaped")
        )
        found["read the first process's mount namespace"] = _try(
            lambda: os.close(os.open("/proc/1/ns/mnt", os.O_RDONLY))
        )
        found["mount here"] = "refused" if libc.mount(
            b"tmpfs", b"/usr", b"tmpfs", 0, None
        ) != 0 else "done"
        _escape(found, libc)
        exec(solution, {})
        raise AssertionError("FOUND " + json.dumps(found))
    """
)


def look_around(tmp_path: Path, isolation: str, trusted: bool) -> tuple[dict[str, Any], str]:
    context = LOOK_AROUND.replace("TEST_RUNNER", str(os.getpid()))
    context = context.replace("BEACON", str(hostile_escape.BEACON))
    context = context.replace("RUNNER_KEY", hostile_escape.RUNNER_KEY)
    batch = {
        "protocol": protocol.PROTOCOL,
        "options": {"jobs": 1, "timeout": 60, "isolation": isolation},
        "problems": {"p": {"context": context, "requires": []}},
        "executions": [{"problem": "p", "solution": "result = 1", "trusted": trusted}],
    }
    # beside a bystander of the checker's own user, in a session keyring of the runner's
    watch = hostile_escape.Watch()
    _, lines = watch.call(run_envside, tmp_path, batch, check=True)
    outside = watch.finish()
    *outcomes, done = lines
    assert isinstance(done, protocol.Done)
    (outcome,) = outcomes
    message = outcome.outcome.message
    assert "FOUND " in message, f"{outcome.outcome.status}: {message}"
    found = json.loads(message.split("FOUND ", 1)[1])
    found["outside"] = outside
    return found, done.checker


needs_root = pytest.mark.skipif(
    not sandbox.machine_root(), reason="a checker is confined where the harness runs as root"
)


@needs_root
@pytest.mark.parametrize("isolation", ["zygote", "fresh"])
@pytest.mark.parametrize("trusted", [True, False], ids=["reference", "answer"])
def test_code_in_the_checker_reaches_nothing_of_the_machine(
    tmp_path: Path, isolation: str, trusted: bool
) -> None:
    found, checker = look_around(tmp_path, isolation, trusted)
    assert checker == "confined"
    # root of a user namespace of its own, the unprivileged user on the machine
    assert found["uid_map"] == ["0", str(sandbox.NOBODY), "1"]
    # its worker's pid namespace: the keeper and itself, nothing of the machine
    assert found["pids"] == [1, found["me"]]
    assert found["status"]["NoNewPrivs"] == "1"
    assert found["dumpable"] == 0
    refused = {"PermissionError", "OSError", "FileNotFoundError", "ProcessLookupError"}
    for action, result in found.items():
        if action.startswith(("read ", "signal ", "write ")):
            assert result in refused, (action, result)
    assert found["mount here"] == "refused"
    # the bystanders of tests/hostile_escape.py, the runner's session keyring among them:
    # nothing reached (a key the checker added went to a keyring of its own)
    assert found["outside"] == []


@needs_root
def test_the_machine_is_as_it_was(tmp_path: Path) -> None:
    look_around(tmp_path, "zygote", trusted=True)
    assert not Path("/usr/harness-escape").exists()
    assert not Path("/etc/harness-escape").exists()
    assert Path("/proc/sys/kernel/hostname").read_text().strip() != "escaped"


def test_an_unprivileged_run_says_why_its_checkers_are_not_confined(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sandbox, "machine_root", lambda: False)
    reason = scheduler._probe_checker(None)
    assert reason is not None
    assert "does not run as root" in reason


def test_a_run_without_the_sandbox_says_its_checkers_are_not_confined(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": ""}
    batch = {
        "protocol": protocol.PROTOCOL,
        "options": {"jobs": 1, "timeout": 60, "isolation": "zygote", "sandbox": False},
        "problems": {"p": {"context": "def test_execution(solution):\n    pass\n"}},
        "executions": [{"problem": "p", "solution": "result = 1", "trusted": True}],
    }
    _, lines = run_envside(tmp_path, batch, check=True, env=env)
    done = lines[-1]
    assert isinstance(done, protocol.Done)
    assert done.checker.startswith("the sandbox is off")
    assert len(lines) == 2  # the execution ran, its outcome line first
