"""One execution's process, from its start to its outcome.

The process is forked from here (a zygote's worker, which holds the preloaded libraries)
or is a fresh interpreter; either way it leads a session of its own, in a working
directory of its own, and reports on a pipe of its own. It is watched until it has
reported and gone, or until its time limit, when it and everything in its process group
are killed; its output is kept, head and tail, for a failure's record.

A forked execution's process enters its sandbox, reseeds and then reads its program from a
pipe; its clock (time limit, duration) starts when it is handed it. Given a ``place``
common to all executions, the supervisor makes that process ahead (a *spare*, forked
while the execution before runs, holding nothing of it); the scheduler does not, as that
was measured slower on two cores (docs/benchmarks/speed.md, issue #31). The worker learns that an
execution's process ended from a pidfd (where Python has one), not a poll.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ..isolation.processes import PidNamespace, exit_watch, fork, reap_strays, remove_tree
from ..protocol import (
    CRASH,
    LAUNCHER,
    PASS,
    REPORTED_STATUSES,
    TIMEOUT,
    Json,
    Record,
    describe_exit,
    exit_code,
)
from ..timing import clock, phases
from .execution import execute, prepare, report, reset_after_fork

if TYPE_CHECKING:
    import resource

Emit = Callable[[int, Record], None]

_KILL_GRACE = 0.5  # seconds to wait for pipes to close after the process has gone
_CRASHED = 70  # how a forked execution leaves when it could not even report


class _Child:
    """One execution's process and the pipes it writes: its output, and its report."""

    def __init__(
        self,
        pid: int,
        output_fd: int,
        result_fd: int,
        workdir: str,
        timeout: float,
        popen: subprocess.Popen[bytes] | None = None,
    ) -> None:
        self.pid = pid
        self.popen = popen
        self.workdir = workdir
        self.start = time.monotonic()
        self.limit = timeout
        self.deadline = self.start + timeout  # moved by the time it waits for a CPU (clock)
        self.waited = 0.0
        self.result = bytearray()
        self.head = bytearray()
        self.tail = bytearray()
        self.output_bytes = 0
        self.timed_out = False
        self.exited_at: float | None = None
        self.reported_at: float | None = None  # when its report's pipe closed
        self.returncode: int | None = None
        # CPU time of its process (and of what that waited for), once reaped: the timing
        # of phases reports it (phases.py); None for a fresh interpreter's
        self.cpu_s: float | None = None
        self.peak_mb = 0.0  # and the most memory it held (the pool adds workers by it)
        self.fds = {"output": output_fd, "result": result_fd}
        self.selector = selectors.DefaultSelector()
        for kind, fd in self.fds.items():
            self.selector.register(fd, selectors.EVENT_READ, kind)
        # readable once the process has ended (None where Python or the kernel has none)
        self.exit_fd = exit_watch(pid)
        if self.exit_fd is not None:
            self.selector.register(self.exit_fd, selectors.EVENT_READ, "exit")

    def poll(self) -> int | None:
        if self.returncode is None:
            with contextlib.suppress(ChildProcessError):
                done, status, usage = os.wait4(self.pid, os.WNOHANG)
                if done:
                    self._reaped(status, usage)
        return self.returncode

    def wait(self) -> int:
        if self.returncode is None:
            _, status, usage = os.wait4(self.pid, 0)
            self._reaped(status, usage)
        assert self.returncode is not None
        return self.returncode

    def _reaped(self, status: int, usage: resource.struct_rusage) -> None:
        """Its process has been waited for: keep how it ended and what it used."""
        self.returncode = exit_code(status)
        self.peak_mb = usage.ru_maxrss / 1024
        if self.popen is not None:
            # reaped here, not by subprocess: tell it, or it would wait for a pid now free
            self.popen.returncode = self.returncode
        else:
            # a fresh interpreter's CPU time is mostly its imports: not the execution's
            self.cpu_s = usage.ru_utime + usage.ru_stime

    def kill_group(self) -> None:
        # Each child leads its own session and process group: this reaches
        # everything it started that did not escape into a session of its own.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)

    def close(self, kind: str) -> None:
        """Stop watching and close one of the pipes, exactly once."""
        fd = self.fds.pop(kind, None)
        if fd is not None:
            self.selector.unregister(fd)
            os.close(fd)

    def release(self) -> None:
        """Whatever the execution left behind in its process group goes with it (its
        working directory is removed by the supervisor, off the critical path)."""
        self.kill_group()
        self.wait()
        for kind in list(self.fds):
            self.close(kind)
        self.ended()
        if self.exit_fd is not None:
            os.close(self.exit_fd)
            self.exit_fd = None
        self.selector.close()

    def descriptors(self) -> list[int]:
        """What this process holds of the execution: pipes, pidfd, selector."""
        exit_fd = [self.exit_fd] if self.exit_fd is not None else []
        return [*self.fds.values(), *exit_fd, self.selector.fileno()]

    def ended(self) -> None:
        """Its pidfd has said it ended: stop watching it (it stays readable)."""
        if self.exit_fd is not None and self.exit_fd in self.selector.get_map():
            self.selector.unregister(self.exit_fd)


_SIGKILL_BIT = 1 << (signal.SIGKILL - 1)


def _kill_pending(pid: int) -> bool:
    """Whether process ``pid`` has a SIGKILL pending (Linux's /proc status; False where
    it cannot be read)."""
    try:
        with open("/proc/%d/status" % pid) as fh:
            for line in fh:
                if (
                    line.startswith(("SigPnd:", "ShdPnd:"))
                    and int(line.split()[1], 16) & _SIGKILL_BIT
                ):
                    return True
    except (OSError, ValueError, IndexError):
        pass
    return False


class _Spare:
    """An execution's process made ahead: in its sandbox, waiting for its program."""

    def __init__(
        self, pid: int, program_fd: int, output_fd: int, result_fd: int, workdir: str
    ) -> None:
        self.pid = pid
        self.program_fd = program_fd  # the write end its program is sent on
        self.output_fd = output_fd
        self.result_fd = result_fd
        self.workdir = workdir

    def fds(self) -> list[int]:
        return [self.program_fd, self.output_fd, self.result_fd]

    def alive(self) -> bool:
        """Whether it can still take a program: not ended, and not about to (a SIGKILL sent
        just now is pending until the process next runs: waitpid alone would miss it)."""
        with contextlib.suppress(ChildProcessError):
            if os.waitpid(self.pid, os.WNOHANG)[0] != 0:
                return False
            return not _kill_pending(self.pid)
        return False

    def discard(self) -> None:
        """End it unused: the process, its pipes, its working directory."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        for fd in self.fds():
            with contextlib.suppress(OSError):
                os.close(fd)
        remove_tree(self.workdir)


class Supervisor:
    """Runs executions one after another, each in a process of its own, and emits how
    each ended.

    A forked execution's process holds none of this one's descriptors: ``close`` are
    closed in it and ``cover`` (the protocol, a worker's reports) pointed at /dev/null.
    ``place`` is what every execution's process is put in before its program (what
    ``execution.prepare`` reads: sandboxed, hide, memory_mb), the same for all of them:
    with it, processes are made ahead (spares); without it, each at its execution's start.
    """

    def __init__(
        self,
        emit: Emit,
        output_limit: int,
        env: dict[str, str],
        close: Sequence[int] = (),
        cover: Sequence[int] = (),
        place: Json | None = None,
        more: Callable[[], bool] = lambda: True,
        crowded_since: Callable[[float], bool] = lambda _start: False,
        processes: Callable[[], Sequence[int]] = tuple,
        namespace: PidNamespace | None = None,
    ) -> None:
        self.emit = emit
        self.output_limit = output_limit
        self.env = env
        self.close = list(close)
        self.cover = list(cover)
        self.place = place
        self.more = more  # whether another execution may follow (else no spare is made)
        # whether the pool has run more executions than cores since a time: then the
        # time an execution waited for a CPU moves its deadline (clock), read from its
        # process and those beside it (its worker's cgroups)
        self.crowded_since = crowded_since
        self.processes = processes
        # the worker's pid namespace, where its executions are born (None: the worker's own)
        self.namespace = namespace
        self.spare: _Spare | None = None
        self._removals: list[str] = []  # ended executions' working directories
        # what the last execution's process marked (phases.py), when timing is on
        self.marks: list[tuple[str, float]] = []
        self.status = ""  # and how it ended
        self.cpu_s: float | None = None  # and the CPU time its process used
        self.waited_s = 0.0  # and waited for a CPU (when timing is on)
        self.cpu_before = 0.0  # (of which this much before it had its program)
        self.peak_mb = 0.0  # and the most memory it held

    def keep(self) -> list[int]:
        """Processes of this worker that are no execution's leftovers: the spare, and the
        keeper of the executions' pid namespace."""
        kept = [self.spare.pid] if self.spare is not None else []
        return kept + ([self.namespace.keeper] if self.namespace is not None else [])

    def _born(self) -> Any:
        """Where the process forked meanwhile is born: the executions' pid namespace."""
        return self.namespace.children() if self.namespace is not None else contextlib.nullcontext()

    def run(self, index: int, payload: Json, timeout: float, fresh: bool) -> None:
        """Run one execution to its end (or its time limit) and emit its outcome."""
        phases.begin()
        self.cpu_s = None
        if fresh:
            # no "-" in the name, as in tempfile's own: tasks split their paths on it
            child = self._spawn_fresh(payload, tempfile.mkdtemp(prefix="harness_exec_"), timeout)
        else:
            child = self._hand(payload, timeout)
            if self.place is not None and self.more():
                self.spare = self._make_spare(busy=child.descriptors())  # while it runs
        self._remove_workdirs()
        while not self._step(child):
            pass
        record = self._finish(child)
        self.emit(index, record)
        phases.mark("emitted")
        self.status = record.status
        self.peak_mb = child.peak_mb
        if child.cpu_s is not None:  # its own, since it had its program
            self.cpu_s = child.cpu_s - self.cpu_before

    def finish(self) -> None:
        """No more executions: end the spare, remove what is left to remove."""
        if self.spare is not None:
            self.spare.discard()
            self.spare = None
        self._remove_workdirs()

    def _remove_workdirs(self) -> None:
        for workdir in self._removals:
            remove_tree(workdir)
        del self._removals[:]

    def _spawn_fresh(self, payload: Json, workdir: str, timeout: float) -> _Child:
        out_r, out_w = os.pipe()
        result_r, result_w = os.pipe()
        with self._born():
            popen = self._popen(workdir, out_w, result_w)
        os.close(out_w)
        os.close(result_w)
        assert popen.stdin is not None
        try:
            popen.stdin.write(json.dumps(payload).encode("utf-8"))
            popen.stdin.close()
        except OSError:
            pass  # the child died at once; its exit is reported as a crash
        return _Child(popen.pid, out_r, result_r, workdir, timeout, popen)

    def _popen(self, workdir: str, out_w: int, result_w: int) -> subprocess.Popen[bytes]:
        """A new interpreter for one execution, reading its program on standard input."""
        return subprocess.Popen(
            [sys.executable, "-s", LAUNCHER, "exec", str(result_w), str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=out_w,
            stderr=out_w,
            cwd=workdir,
            env=self.env,
            pass_fds=(result_w,),
            start_new_session=True,
        )

    def _make_spare(self, busy: Sequence[int] = (), place: Json | None = None) -> _Spare:
        """Fork the process of the next execution: sandboxed, waiting for its program."""
        settings = dict(place if place is not None else self.place or {})
        workdir = tempfile.mkdtemp(prefix="harness_exec_")
        out_r, out_w = os.pipe()
        result_r, result_w = os.pipe()
        program_r, program_w = os.pipe()

        def body() -> None:  # pragma: no cover - runs in the child
            phases.mark("forked")
            os.setsid()
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)
            os.close(devnull)
            os.dup2(out_w, 1)
            os.dup2(out_w, 2)
            os.chdir(workdir)
            reset_after_fork()
            phases.mark("reseeded")
            prepare(settings, workdir, result_w)
            payload = json.loads(_read_all(program_r).decode("utf-8"))
            os.close(program_r)
            phases.handed()
            payload["result_fd"] = result_w
            report(result_w, execute(payload))

        # Nothing this process holds is the child's business: not the protocol, not the
        # work and report pipes of a worker, not the running execution's pipes.
        closed = [out_r, result_r, program_w, *busy, *self.close]
        with self._born():
            pid = fork(body, close=closed, cover=self.cover, status=_CRASHED)
        for fd in (out_w, result_w, program_r):
            os.close(fd)
        return _Spare(pid, program_w, out_r, result_r, workdir)

    def _hand(self, payload: Json, timeout: float) -> _Child:
        """Give the execution's program to a process made for it (the spare, or one made
        now, with the execution's own place when there is no common one)."""
        spare, self.spare = self.spare, None
        if spare is not None and not spare.alive():
            spare.discard()  # something ended it while it waited: make another
            spare = None
        if spare is None:
            spare = self._make_spare(place=self.place if self.place is not None else payload)
        data = json.dumps(payload).encode("utf-8")
        child = _Child(spare.pid, spare.output_fd, spare.result_fd, spare.workdir, timeout)
        try:
            _write_all(spare.program_fd, data, child.deadline)
        except OSError:
            pass  # it died before taking its program: reported as a crash
        finally:
            os.close(spare.program_fd)
        return child

    def _step(self, child: _Child) -> bool:
        """Read what the child wrote and keep its time limit; True once it has ended."""
        now = time.monotonic()
        wake = child.deadline if child.exited_at is None else child.exited_at + _KILL_GRACE
        reported = "result" not in child.fds
        if reported and child.reported_at is None:
            child.reported_at = now
        # A child whose report's pipe has closed is exiting: look again soon rather than
        # sleep through the whole tick (it added ~25 ms a child; its output may stay open
        # longer, held by its solution's process). For a second: a program that closed the
        # pipe itself runs on, and is looked at as usual.
        exiting = (
            reported
            and child.exited_at is None
            and child.reported_at is not None
            and now < child.reported_at + 1.0
        )
        tick = 0.002 if exiting and child.exit_fd is None else 0.05
        for key, _ in child.selector.select(timeout=max(0.0, min(wake - now, tick))):
            if key.data == "exit":
                child.ended()  # poll() below reaps it
                continue
            try:
                chunk = os.read(key.fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                child.close(key.data)
            elif key.data == "result":
                child.result.extend(chunk)
            else:
                self._keep_output(child, chunk)
        reap_strays(known=[child.pid, *self.keep()])
        now = time.monotonic()
        if child.exited_at is None and child.poll() is not None:
            child.exited_at = now
        if child.exited_at is None and now >= child.deadline and self.crowded_since(child.start):
            # the time it waited for a CPU while the pool ran more executions than cores
            # is not on its clock (clock.py); a few of its processes tell (not a fork
            # bomb's thousand, which would keep the worker reading while it runs on)
            processes = self.processes()[: clock.READ_AT_MOST]
            child.waited = clock.held_back([child.pid, *processes])
            child.deadline = clock.deadline(child.start, child.limit, child.waited)
        if child.exited_at is None and now >= child.deadline:
            child.timed_out = True
            child.kill_group()
            child.exited_at = now
        if child.exited_at is None:
            return False
        # A pass keeps no output: what still holds the output pipe (its solution's
        # process and its pid namespace, on their way out) is not waited for; the worker's cgroup is
        # emptied after each execution.
        return (
            not child.fds
            or now >= child.exited_at + _KILL_GRACE
            or (reported and not child.timed_out and _passed(bytes(child.result)))
        )

    def _keep_output(self, child: _Child, chunk: bytes) -> None:
        half = self.output_limit // 2
        child.output_bytes += len(chunk)
        if len(child.head) < half:
            take = half - len(child.head)
            child.head.extend(chunk[:take])
            chunk = chunk[take:]
        if chunk:
            child.tail.extend(chunk)
            del child.tail[: max(0, len(child.tail) - half)]

    def _finish(self, child: _Child) -> Record:
        if phases.ON:
            phases.MARKS.append(("exited", child.exited_at or time.monotonic()))
        child.release()
        self._removals.append(child.workdir)
        phases.mark("released")
        if phases.ON:
            child.result[:] = self._take_marks(bytes(child.result))
        duration = round(time.monotonic() - child.start, 4)
        if child.timed_out:
            # the same words however long it waited: outcomes compare across runs
            record = Record(TIMEOUT, message="exceeded the time limit of %gs" % child.limit)
        else:
            record = _reported(bytes(child.result), child.wait())
        if record.status == PASS:
            return replace(record, duration_s=duration)
        output = bytes(child.head)
        lost = child.output_bytes - len(child.head) - len(child.tail)
        if lost > 0:
            output += b"\n[... %d bytes not kept ...]\n" % lost
        output += bytes(child.tail)
        return replace(record, duration_s=duration, output=output.decode("utf-8", "replace"))

    def _take_marks(self, data: bytes) -> bytes:
        """The report without the marks the execution's process added (when timing is
        on), which join this process's own (``phases.write`` keeps them)."""
        self.marks = []
        self.waited_s = self.cpu_before = 0.0
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            reported = json.loads(data.decode("utf-8"))
            taken = [(str(name), float(moment)) for name, moment in reported.pop("phases", [])]
            usage = dict(m for m in taken if m[0] in (phases.WAITED, phases.CPU_BEFORE))
            self.marks = [m for m in taken if m[0] not in usage]
            self.waited_s = usage.get(phases.WAITED, 0.0)
            self.cpu_before = usage.get(phases.CPU_BEFORE, 0.0)
            data = json.dumps(reported).encode("utf-8")
        return data


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _write_all(fd: int, data: bytes, deadline: float) -> None:
    """Write ``data`` to a pipe whose reader takes it at once, or raise OSError (it
    died; or it did not take it before ``deadline``)."""
    os.set_blocking(fd, False)
    while data:
        try:
            data = data[os.write(fd, data) :]
        except BlockingIOError:
            wait = deadline - time.monotonic()
            if wait <= 0:
                raise TimeoutError("the execution's process did not take its program") from None
            select.select([], [fd], [], wait)


def _passed(data: bytes) -> bool:
    """Whether the report says the execution passed (what ``_reported`` would read)."""
    try:
        return bool(json.loads(data.decode("utf-8")).get("status") == PASS)
    except (ValueError, AttributeError):
        return False


def _reported(data: bytes, returncode: int) -> Record:
    """How the execution's process said it ended, or how it died without saying."""
    unreadable = ""
    if data:
        try:
            record = Record.from_json(json.loads(data.decode("utf-8")), "its report")
        except ValueError as exc:  # not UTF-8, not JSON, or not a record
            unreadable = str(exc)
        else:
            if record.status in REPORTED_STATUSES:
                return record
            unreadable = "its report: status: %r is not for a process to report" % record.status
    if returncode < 0:
        name = describe_exit(returncode).replace("killed by ", "")
        return Record(CRASH, exc_type=name, message="killed by %s" % name)
    if unreadable:
        return Record(CRASH, message="reported an outcome that could not be read: " + unreadable)
    return Record(CRASH, message="exited with status %d before reporting an outcome" % returncode)
