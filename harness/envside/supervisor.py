"""One execution's process, from its start to its outcome.

The process is forked from here (a zygote's worker, which holds the preloaded libraries)
or is a fresh interpreter; either way it leads a session of its own, in a working
directory of its own, and reports on a pipe of its own. It is watched until it has
reported and gone, or until its time limit, when it and everything in its process group
are killed; its output is kept, head and tail, for a failure's record.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from typing import Callable, Sequence

from . import phases
from .execution import execute, prepare, report, reset_after_fork
from .processes import fork, reap_strays
from .protocol import (
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
        self.deadline = self.start + timeout
        self.result = bytearray()
        self.head = bytearray()
        self.tail = bytearray()
        self.output_bytes = 0
        self.timed_out = False
        self.exited_at: float | None = None
        self.reported_at: float | None = None  # when its report's pipe closed
        self.returncode: int | None = None
        self.fds = {"output": output_fd, "result": result_fd}
        self.selector = selectors.DefaultSelector()
        for kind, fd in self.fds.items():
            self.selector.register(fd, selectors.EVENT_READ, kind)

    def poll(self) -> int | None:
        if self.returncode is None:
            if self.popen is not None:
                self.returncode = self.popen.poll()
            else:
                with contextlib.suppress(ChildProcessError):
                    done, status = os.waitpid(self.pid, os.WNOHANG)
                    if done:
                        self.returncode = exit_code(status)
        return self.returncode

    def wait(self) -> int:
        if self.returncode is None:
            if self.popen is not None:
                self.returncode = self.popen.wait()
            else:
                _, status = os.waitpid(self.pid, 0)
                self.returncode = exit_code(status)
        return self.returncode

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
        """Whatever the execution left behind in its process group goes with it."""
        self.kill_group()
        self.wait()
        for kind in list(self.fds):
            self.close(kind)
        self.selector.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


class Supervisor:
    """Runs executions one after another, each in a process of its own, and emits how
    each ended.

    A forked execution's process holds none of this one's descriptors: ``close`` are
    closed in it and ``cover`` (the protocol, a worker's reports) pointed at /dev/null.
    """

    def __init__(
        self,
        emit: Emit,
        output_limit: int,
        env: dict[str, str],
        close: Sequence[int] = (),
        cover: Sequence[int] = (),
    ) -> None:
        self.emit = emit
        self.output_limit = output_limit
        self.env = env
        self.close = list(close)
        self.cover = list(cover)
        # what the last execution's process marked (phases.py), when timing is on
        self.marks: list[tuple[str, float]] = []
        self.status = ""  # and how it ended

    def run(self, index: int, payload: Json, timeout: float, fresh: bool) -> None:
        """Run one execution to its end (or its time limit) and emit its outcome."""
        phases.begin()
        # no "-" in the name, as in tempfile's own: tasks split their paths on it
        workdir = tempfile.mkdtemp(prefix="harness_exec_")
        start = self._spawn_fresh if fresh else self._fork
        child = start(payload, workdir, timeout)
        while not self._step(child):
            pass
        record = self._finish(child)
        self.emit(index, record)
        phases.mark("emitted")
        self.status = record.status

    def _spawn_fresh(self, payload: Json, workdir: str, timeout: float) -> _Child:
        out_r, out_w = os.pipe()
        result_r, result_w = os.pipe()
        popen = subprocess.Popen(
            [sys.executable, "-s", LAUNCHER, "exec", str(result_w), str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=out_w,
            stderr=out_w,
            cwd=workdir,
            env=self.env,
            pass_fds=(result_w,),
            start_new_session=True,
        )
        os.close(out_w)
        os.close(result_w)
        assert popen.stdin is not None
        try:
            popen.stdin.write(json.dumps(payload).encode("utf-8"))
            popen.stdin.close()
        except OSError:
            pass  # the child died at once; its exit is reported as a crash
        return _Child(popen.pid, out_r, result_r, workdir, timeout, popen)

    def _fork(self, payload: Json, workdir: str, timeout: float) -> _Child:
        out_r, out_w = os.pipe()
        result_r, result_w = os.pipe()

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
            prepare(payload, workdir, result_w)
            report(result_w, execute(payload))

        # Nothing this process holds is the child's business: not the protocol, not the
        # work and report pipes of a worker.
        pid = fork(body, close=[out_r, result_r, *self.close], cover=self.cover, status=_CRASHED)
        os.close(out_w)
        os.close(result_w)
        return _Child(pid, out_r, result_r, workdir, timeout)

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
        tick = 0.002 if exiting else 0.05
        for key, _ in child.selector.select(timeout=max(0.0, min(wake - now, tick))):
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
        reap_strays(known=[child.pid])
        now = time.monotonic()
        if child.exited_at is None and child.poll() is not None:
            child.exited_at = now
        if child.exited_at is None and now >= child.deadline:
            child.timed_out = True
            child.kill_group()
            child.exited_at = now
        if child.exited_at is None:
            return False
        # A pass keeps no output: what still holds the output pipe (its solution's
        # process and keeper, on their way out) is not waited for; the worker's cgroup is
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
        phases.mark("released")
        if phases.ON:
            child.result[:] = self._take_marks(bytes(child.result))
        duration = round(time.monotonic() - child.start, 4)
        if child.timed_out:
            limit = child.deadline - child.start
            record = Record(TIMEOUT, message="exceeded the time limit of %gs" % limit)
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
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            reported = json.loads(data.decode("utf-8"))
            taken = reported.pop("phases", [])
            self.marks = [(str(name), float(moment)) for name, moment in taken]
            data = json.dumps(reported).encode("utf-8")
        return data


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
