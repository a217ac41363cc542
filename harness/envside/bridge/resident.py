"""The solution's process of one execution: started, asked, ended.

Started the first time the check runs the solution, it stays for the check's next runs
(DS-1000 checks run the solution once per test case) and answers requests until the guard
lets it go. It never held the checker's memory: in zygote mode the worker's placer forks
it (``placer``: a fork of the zygote's *template*, a new interpreter that imported the
library group and never held a batch or a check), and it places itself like its
execution; otherwise the checker spawns a new interpreter (``solution.main``), which goes
on in a pid namespace of its own (``sandbox.into_own_pid_namespace``). Either way the
checker cannot be signalled or traced from it, and a process that ends without a whole
report ends the execution the same way.
"""

from __future__ import annotations

import array
import contextlib
import io
import json
import os
import select
import shutil
import signal
import socket
import sys
import time
from typing import Any, BinaryIO, Callable, NoReturn

from ..isolation import sandbox
from ..protocol import LAUNCHER, Json
from ..timing import phases
from .wire import read_report, send_request

# Bound at import, before any check runs: what the checker asks with while a test's
# patches are active (``os.pipe`` and ``io.open`` are what a test patches for the code
# it tests).
_pipe, _close, _open = os.pipe, os.close, io.open


# How long a solution's new interpreter that closed its report unfinished is given to end
# as its child in its pid namespace did, before it is killed.
_ENDING_S = 0.5


class _Started:
    """One process started for the solution, and how to end it.

    Each request carries the pipe its report goes back on, which the process closes once
    it has written the report: a report cut short ends at the end of its pipe, as it did
    when a process ended after its one report."""

    def __init__(
        self,
        pid: int,
        requests: socket.socket,
        lifeline: int = -1,
        status: BinaryIO | None = None,
    ) -> None:
        self.pid = pid
        self.requests = requests
        # Started by a placer, it is not this process's child: the placer ends it when
        # ``lifeline`` closes, and says on ``status`` how it ended.
        self.lifeline = lifeline
        self.status = status

    def end(self) -> int:
        """End the process (if it has not ended) and return its wait status."""
        if self.status is None:
            # A new interpreter goes on in a pid namespace of its own, as the child of the
            # process started here, which ends as its child did: its report's pipe closes
            # as the child ends, moments before it does. Given those moments to end so.
            deadline = time.monotonic() + _ENDING_S
            while time.monotonic() < deadline:
                done, status = os.waitpid(self.pid, os.WNOHANG)
                if done:
                    return status
                time.sleep(0.002)
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)  # an ended process keeps its status
            return os.waitpid(self.pid, 0)[1]
        os.close(self.lifeline)
        self.lifeline = -1
        for line in self.status:
            if line.startswith(b"status "):
                return int(line.split()[1])
        return signal.SIGKILL  # its placer went without a word: as if killed

    def let_go(self) -> None:
        self.requests.close()
        if self.status is None:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, os.WNOHANG)
            return
        if self.lifeline >= 0:
            os.close(self.lifeline)
        self.status.close()


class _Pending:
    """A solution's process asked of the placer, until it says its pid."""

    def __init__(
        self, message: Json, asking: socket.socket, lifeline: int, status: BinaryIO, sent: bool
    ) -> None:
        self.message = message  # where the execution lived when it was asked for
        self.asking = asking
        self.lifeline = lifeline
        self.status = status
        self.sent = sent

    def started(self) -> _Started | None:
        """The process, once the placer has started it; None if the placer cannot
        start one (then new interpreters are started instead, from now on)."""
        line = self.status.readline() if self.sent else b""
        if phases.ON:
            phases.mark("placed")
            phases.MARKS.extend(phases.stamps(line.decode("utf-8", "replace")))
        if not line.startswith(b"pid "):
            self.let_go()
            drop_template()  # it is gone, broken or refused: new interpreters from now on
            return None
        return _Started(int(line.split()[1]), self.asking, self.lifeline, self.status)

    def let_go(self) -> None:
        """Not wanted after all: the placer ends it when the lifeline closes."""
        self.asking.close()
        os.close(self.lifeline)
        self.status.close()


# Where the solution processes come from (``placer``): in a zygote, the template of its
# library group, a new interpreter with the group's libraries imported, which never held
# a batch or a check; in a worker (and the executions it forks), the worker's placer, a
# fork of the template that forks each solution's process on request.
TEMPLATE: list[socket.socket] = []
PLACER: list[int] = []  # the worker's placer's pid, spared when the worker empties its cgroups


def start_template(modules: list[str], place: Json) -> None:
    """Start the template for the executions this process will fork (the zygote's).

    ``place`` is what the template enforces whatever a request says: whether to sandbox,
    what to hide, the memory cap, where working directories may be. A request comes from
    a checker's process, and a solution that ran there (beside a TensorFlow check) could
    write one of its own."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    fd = theirs.fileno()
    config = dict(place, parent=os.getpid(), modules=modules)
    argv = [sys.executable, "-s", LAUNCHER, "template", str(fd), json.dumps(config)]
    actions = [a for a in no_descriptors() if a[:2] != (os.POSIX_SPAWN_CLOSE, fd)]
    os.set_inheritable(fd, True)
    try:
        os.posix_spawn(sys.executable, argv, os.environ, file_actions=actions)
    finally:
        theirs.close()
    mine.setblocking(True)
    TEMPLATE[:] = [mine]


def drop_template() -> None:
    """Close this process's way to the template."""
    for template in TEMPLATE:
        template.close()
    del TEMPLATE[:]
    del PLACER[:]


def start_placer(cgroups: list[str]) -> None:
    """In a worker: have the template fork this worker's placer, which joins ``cgroups``
    (so that the solutions' processes it forks are born in them) and forks each
    solution's process this worker's executions ask for; from now on they ask it, and
    not the template (which this worker no longer reaches). Without a template, or if it
    cannot, new interpreters are started instead."""
    if not TEMPLATE:
        return
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    said = b""
    try:
        TEMPLATE[0].sendmsg(
            [json.dumps({"cgroups": cgroups}).encode("utf-8")],
            [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [theirs.fileno()]))],
        )
        theirs.close()
        if select.select([mine], [], [], 300.0)[0]:
            said = mine.recv(64)
    except OSError:
        pass
    finally:
        theirs.close()
    drop_template()
    if not said.startswith(b"pid "):
        mine.close()
        return
    TEMPLATE[:] = [mine]
    PLACER[:] = [int(said.split()[1])]


def spared() -> list[int]:
    """The placer's pid while it lives (its socket still open at its end): the worker's
    emptying of its cgroups after each execution must not kill it. A pid whose process
    has gone may be another's, so a placer gone is spared no more."""
    if not TEMPLATE or not PLACER:
        return []
    poller = select.poll()
    poller.register(TEMPLATE[0].fileno(), select.POLLIN)
    if any(event & (select.POLLHUP | select.POLLERR) for _, event in poller.poll(0)):
        drop_template()
        return []
    return list(PLACER)


def next_execution(cgroups: list[str]) -> None:
    """In a worker, as a guarded execution starts (after the worker emptied its cgroups
    of the execution before): its placer (started now for the worker's first, and waited
    for: the template may still be importing) forks the solution's process now, into a
    pid namespace made for it, while the execution's own process starts."""
    if TEMPLATE and not PLACER:
        start_placer(cgroups)
    if TEMPLATE and PLACER:
        with contextlib.suppress(OSError):
            TEMPLATE[0].send(b"next", socket.MSG_DONTWAIT)


def sleeper(lifetime: float) -> tuple[str, list[str]]:
    seconds = str(int(lifetime) + 30)
    sleeper = shutil.which("sleep") or "/bin/sleep"
    if os.path.exists(sleeper):
        return sleeper, [sleeper, seconds]
    # no coreutils here: a Python that waits
    return sys.executable, [sys.executable, "-S", "-c", "import time; time.sleep(%s)" % seconds]


def _inherited(keep: int = -1) -> list[int]:
    """This process's descriptors that a new program would inherit, but ``keep``: a pipe
    it held would keep the execution's output open after the execution ended, and the
    result pipe is the checker's alone."""
    found = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        with contextlib.suppress(OSError):
            if fd > 2 and fd != keep and os.get_inheritable(fd):
                found.append(fd)
    return found


def no_descriptors() -> list[Any]:
    """None of this process's descriptors for a process it spawns (the sleeper)."""
    actions: list[Any] = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_DUP2, 1, 2),
    ]
    return actions + [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited()]


def _spawn(argv: list[str], close: list[int]) -> int:
    """Start the solution's new interpreter: a process group of its own (kill(0, …) and
    killpg reach only what the solution starts, never the checker), standard input from
    /dev/null, only the descriptors it is meant to have. Spawned, not forked: this process
    may be running threads (TensorFlow's, torch's) that a fork would copy mid-step."""
    actions: list[Any] = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)]
    actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in close]
    return os.posix_spawn(argv[0], argv, os.environ, file_actions=actions, setpgroup=0)


class Resident:
    """The solution's process of one execution, kept after its first run: the check's
    next runs of the solution are sent to it as requests instead of starting again."""

    def __init__(self, sandboxed: bool, limits: Json, place: Json, warnings: bool) -> None:
        self.sandboxed = sandboxed
        self.limits = limits
        # where the execution lives, for a process started by the placer
        self.place = place
        self.warnings = warnings  # whether the process records the solution's warnings
        self._process: _Started | None = None
        self._pending: _Pending | None = None  # asked of the placer, not yet waited for
        self._nproc = 0

    def ask(
        self, request: bytes, answer: Callable[[Json, list[bytes]], bytes]
    ) -> tuple[Json, list[bytes]]:
        """The solution's report on ``request``, from its process (started now if there
        is none yet: one serves all the check's runs of the solution). While it works on
        the request it may call back what the check lent it: ``answer`` makes the reply
        to each callback, sent back at once, and the report that ends the request follows."""
        for attempt in (1, 2):
            started = self._process is None
            if self._process is None:
                self._process = self._start()
            read_fd, write_fd = _pipe()
            try:
                try:
                    send_request(self._process.requests, request, write_fd)
                    phases.mark("sent")
                finally:
                    _close(write_fd)
            except OSError:
                _close(read_fd)
                if started or attempt == 2:
                    self._crashed()
                self.retire()  # it ended after its last report: a new one runs this
                continue
            with _open(read_fd, "rb") as reports:
                received = read_report(reports)
                while received is not None and received[0].get("kind") == "callback":
                    self._reply(answer(*received))
                    received = read_report(reports)
            if received is None:
                self._crashed()
            if phases.ON:
                phases.mark("answered")
                phases.MARKS.extend(phases.stamps(str(received[0].get("phases", ""))))
            return received
        raise AssertionError("unreachable")  # pragma: no cover

    def _reply(self, reply: bytes) -> None:
        """A reply to the solution's callback: on the request socket, with no pipe."""
        assert self._process is not None
        try:
            send_request(self._process.requests, reply, -1)
        except OSError:
            self._crashed()

    def prestart(self) -> None:
        """Have the placer start the solution's process now, while the check computes
        what it will give it: the first run then finds it placed and waiting. Started as
        the execution stands now; if its working directory or environment has changed by
        the first run, that run starts another (``_start``)."""
        if TEMPLATE and self._process is None and self._pending is None:
            self._pending = self._to_template(self._config())

    def _config(self) -> Json:
        # RLIMIT_NPROC counts every task of the user: the cap is what runs now plus the
        # allowance (where a pids cgroup holds the execution, that is the cap).
        if self.sandboxed and self.limits.get("task_cap") == "rlimit" and not self._nproc:
            self._nproc = sandbox.tasks_of_this_user() + int(self.limits.get("tasks", 1024))
        return {
            # a process whose parent is outside its pid namespace sees it as pid 0
            "parent": 0 if self.sandboxed else os.getpid(),
            "sandboxed": self.sandboxed,
            "fsize_mb": int(self.limits.get("fsize_mb", 1024)),
            "nproc": self._nproc,
            "warnings": self.warnings,
        }

    def _start(self) -> _Started:
        """Start the solution's process: forked by the placer where there is one, else
        a new interpreter (``solution.py``) that goes on in a pid namespace of its own, with
        the request socket and the standard streams as its only descriptors."""
        config = self._config()
        pending, self._pending = self._pending, None
        if pending is not None and pending.message != self._message(config):
            pending.let_go()  # placed as the execution no longer is
            pending = None
            phases.mark("replaced")
        process = pending.started() if pending is not None else None
        if process is None and TEMPLATE:
            process = self._from_template(config)
        if process is not None:
            return process
        if self.sandboxed:
            # its first step: a pid namespace of its own, where it sees and signals only
            # what it starts, never this process (solution.main)
            config["own_pid"] = True
            config["cover_tmp"] = os.getcwd()
        config["parent"] = os.getpid()  # (born beside this process: it knows its pid)
        asking, answering = socket.socketpair()
        fd = answering.fileno()
        argv = [sys.executable, "-s", LAUNCHER, "solution", str(fd), json.dumps(config)]
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        close = _inherited(keep=fd)
        os.set_inheritable(fd, True)
        try:
            pid = _spawn(argv, close)
        finally:
            answering.close()
        return _Started(pid, asking)

    def _message(self, config: Json) -> Json:
        """What the placer is told: where the execution lives, as it is now."""
        return dict(
            config,
            workdir=os.getcwd(),
            hide=self.place.get("hide") or [],
            memory_mb=self.place.get("memory_mb"),
            environ=dict(os.environ),
            timeout=float(self.limits.get("timeout", 120)),
        )

    def _from_template(self, config: Json) -> _Started | None:
        """The solution's process forked by the placer, placed and waiting; None if the
        placer cannot (then a new interpreter is started instead)."""
        return self._to_template(config).started()

    def _to_template(self, config: Json) -> _Pending:
        """Ask the placer for the solution's process, placed in a sandbox like this
        execution's: its working directory, hidden paths, cgroups, limits, environment
        and standard streams (``_Pending.started`` waits for it)."""
        message = self._message(config)
        asking, answering = socket.socketpair()
        lifeline_r, lifeline_w = os.pipe()
        status_r, status_w = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        # this execution's network namespace: a server the test starts on localhost is one
        # the solution reaches, and the other way round, as in one process
        network = os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        fds = [answering.fileno(), lifeline_r, status_w, 1, 2, network]
        try:
            TEMPLATE[0].sendmsg(
                [json.dumps(message).encode("utf-8")],
                [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))],
            )
            sent = True
        except OSError:
            sent = False
        finally:
            answering.close()
            os.close(lifeline_r)
            os.close(status_w)
            os.close(network)
        return _Pending(message, asking, lifeline_w, os.fdopen(status_r, "rb"), sent)

    def retire(self) -> None:
        """Let the solution's process go (its request socket closes, and it ends); the
        next request starts a new one."""
        process, self._process = self._process, None
        if process is not None:
            process.let_go()
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.let_go()

    def _crashed(self) -> NoReturn:
        """The solution's process closed its report's pipe without a whole report: it
        ended (the solution crashed it), or it lies. Either way the execution ends as
        that process did, killed if it had not ended yet."""
        assert self._process is not None
        _die_like(self._process.end())


def _die_like(status: int) -> NoReturn:
    """The solution's process ended without a word: end this one the same way, so the
    execution is a crash exactly as it would be without the guard."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        with contextlib.suppress(Exception):
            signal.signal(number, signal.SIG_DFL)  # SIGKILL and SIGSTOP refuse: no matter
        with contextlib.suppress(Exception):
            os.kill(os.getpid(), number)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70)
