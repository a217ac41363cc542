"""Runs a batch's executions, ``jobs`` at a time, and emits each outcome as it ends.

In zygote mode the executions are grouped by their problem's library and by which of the
``APART`` libraries they need; each group gets a zygote of its own that preloads what that
group's problems import and forks one child per execution. In fresh mode (or for libraries
that do not survive a fork) each execution gets a brand-new interpreter. Either way every
execution has its own process group, working directory, time limit and sandbox.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import selectors
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from typing import Callable

from . import admission, resident, sandbox
from .allowlist import shipped_allowlist
from .execution import execute, prepare, report, reset_after_fork
from .protocol import LAUNCHER, Json, describe_exit, exit_code, outcome
from .wire import read_exactly
from .zygote import FORK_PROBES, fork_probe, imports_in, preload, warm_pyplot, warm_reseeding

_KILL_GRACE = 0.5  # seconds to wait for pipes to close after the process has gone


class _Child:
    """One execution's process, forked from the zygote or a fresh interpreter."""

    def __init__(
        self,
        index: int,
        pid: int,
        output_fd: int,
        result_fd: int,
        workdir: str,
        timeout: float,
        popen: subprocess.Popen[bytes] | None = None,
    ) -> None:
        self.index = index
        self.pid = pid
        self.popen = popen
        self.fds = {"output": output_fd, "result": result_fd}
        self.workdir = workdir
        self.start = time.monotonic()
        self.deadline = self.start + timeout
        self.result = bytearray()
        self.head = bytearray()
        self.tail = bytearray()
        self.output_bytes = 0
        self.timed_out = False
        self.exited_at: float | None = None
        self.returncode: int | None = None

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


def _children() -> list[int]:
    """Our child processes, from /proc (Linux); [] where that cannot be read."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError), open("/proc/self/task/%s/children" % task) as fh:
                found.extend(int(p) for p in fh.read().split())
    return found


# Libraries that never share a zygote: each carries native runtimes (LLVM, protobuf,
# thread pools) that clash when both are loaded into one process, which a fresh
# interpreter running one problem would never do.
APART = ("tensorflow", "torch")


class Scheduler:
    """Runs a batch's executions, ``jobs`` at a time, and emits each outcome as it ends.

    In zygote mode the executions are grouped by their problem's library and by which of
    the ``APART`` libraries they need; each group gets a zygote of its own that preloads
    what that group's problems import and forks one child per execution.
    """

    def __init__(
        self, batch: Json, emit: Callable[[int, Json], None], protocol_fd: int = -1
    ) -> None:
        self.batch = batch
        self.emit = emit
        self.protocol_fd = protocol_fd
        self.jobs = max(1, int(batch.get("jobs", 1)))
        self.output_limit = int(batch.get("output_limit", 65536))
        self.memory_mb = batch.get("memory_mb")
        self.isolation = batch.get("isolation", "zygote")
        self.selector = selectors.DefaultSelector()
        self.running: dict[int, _Child] = {}
        self.env = child_environment()
        self.fresh_only: dict[str, str] = {}  # top-level module → why it is not forked
        self.preloaded: list[str] = []
        self.preload_failures: dict[str, str] = {}
        self.zygotes: list[Json] = []  # what each group's zygote reported
        self.worker_cgroups: list[str] = []  # this worker's, in a worker
        # Untrusted solutions run apart from their checks (the guard), and every execution
        # in the sandbox, when this machine allows it (the reason it does not, otherwise).
        self.guard = bool(batch.get("guard", True))
        self.limits = batch.get("limits") or {}
        # what no execution may read: the batch (it holds every solution) and what the
        # host names (the problems, with their references; the results)
        self.hide = list(batch.get("hide", [])) + (
            [os.path.dirname(os.path.abspath(batch["path"]))] if batch.get("path") else []
        )
        self.sandbox_reason: str | None = "not probed"
        if batch.get("sandbox", True):
            probe_dir = tempfile.mkdtemp(prefix="harness-probe-")
            try:
                self.sandbox_reason = sandbox.probe(probe_dir)
            finally:
                shutil.rmtree(probe_dir, ignore_errors=True)
        else:
            self.sandbox_reason = "switched off"
        sandbox.set_subreaper()
        sandbox.sweep_cgroups()
        sandbox.warm()  # what the guard's children look up, looked up once here
        # A cap on processes and threads per execution: a pids cgroup where we may make
        # one (root, which RLIMIT_NPROC does not bind), else RLIMIT_NPROC.
        self.max_tasks = int(self.limits.get("tasks", 1024))
        self.task_cap = "rlimit" if self.sandbox_reason is None else "none"
        if self.sandbox_reason is None:
            trial = sandbox.execution_cgroups("harness-probe-%d" % os.getpid(), 8)
            for cgroup in trial:
                sandbox.release_cgroup(cgroup)
            if trial:
                self.task_cap = "cgroup"

    # -- setup ----------------------------------------------------------------------
    def prepare_zygote(self, queue: list[tuple[int, Json]]) -> None:
        """Import what the queued problems import, then check each heavy library forks."""
        wanted: list[str] = []
        for problem_id in dict.fromkeys(spec["problem"] for _, spec in queue):
            wanted.extend(imports_in(self.batch["problems"][problem_id]["context"]))
        for _, spec in queue:
            if spec.get("trusted"):
                wanted.extend(imports_in(spec["solution"]))
        configured = set(self.batch.get("fresh_for", []))
        for module in configured:
            self.fresh_only[module] = "configured to run in a fresh interpreter"
        wanted = [m for m in dict.fromkeys(wanted) if m.split(".")[0] not in configured]
        if any(m.split(".")[0] == "numpy" for m in wanted):
            # the guard hardens NumPy's testing asserts in every check of untrusted values
            # (guard._strict_masks): import it once here, not in every execution
            wanted.append("numpy.testing")
        self.preloaded, self.preload_failures = preload(wanted)
        warm_reseeding()
        warm_pyplot()
        if self.guard and self._guards_any(queue):
            # what checking returned values needs, looked up once for every child
            admission.warm(shipped_allowlist(self.batch.get("allowlist_extra", "")))
        for library in FORK_PROBES:
            if library in sys.modules and library not in self.fresh_only:
                reason = fork_probe(library)
                if reason:
                    self.fresh_only[library] = reason
        # Objects that exist now are never collected in a child: without this, the
        # first collection in each child would write to (and copy) every page.
        gc.collect()
        if hasattr(gc, "freeze"):
            gc.freeze()

    def _guards_any(self, queue: list[tuple[int, Json]]) -> bool:
        """Whether any of ``queue`` runs its solution through the guard: an untrusted one,
        or any at all when the run records what the guard admits (references too)."""
        if self.batch.get("record_transport"):
            return bool(queue)
        return any(not spec.get("trusted") for _, spec in queue)

    def info(self) -> Json:
        """What the run did, for the record: per zygote, and merged."""
        merged: Json = {"preloaded": [], "fresh_only": {}, "preload_failures": {}}
        for zygote in self.zygotes:
            merged["preloaded"] += [m for m in zygote["preloaded"] if m not in merged["preloaded"]]
            merged["fresh_only"].update(zygote["fresh_only"])
            merged["preload_failures"].update(zygote["preload_failures"])
        return {
            "isolation": self.isolation,
            "sandbox": self.sandbox_reason or "on",
            "task_cap": self.task_cap,
            "guard": self.guard,
            "zygotes": self.zygotes,
            **merged,
        }

    # -- main loop --------------------------------------------------------------------
    def run(self) -> None:
        problems = self.batch["problems"]
        queue = []
        missing_cache: dict[str, bool] = {}
        for index, spec in enumerate(self.batch["executions"]):
            problem = problems[spec["problem"]]
            missing = [m for m in problem.get("requires", []) if not _importable(m, missing_cache)]
            if missing:
                message = "needs %s, not installed in this environment" % ", ".join(missing)
                self.emit(index, outcome("skipped", message=message))
            else:
                queue.append((index, spec))
        if self.isolation != "zygote":
            self._drain(queue)
            return
        groups: dict[tuple[tuple[str, ...], str], list[tuple[int, Json]]] = {}
        for index, spec in queue:
            problem = problems[spec["problem"]]
            apart = tuple(m for m in APART if m in problem.get("requires", []))
            # and by the problem's library: a zygote holds only what its problems import,
            # so each fork (of an execution, and of a guarded solution) copies less
            groups.setdefault((apart, problem.get("library", "")), []).append((index, spec))
        for (apart, library), items in groups.items():
            self._run_zygote(apart, library, items)

    def _drain(self, queue: list[tuple[int, Json]]) -> None:
        """Run ``queue`` to the end on ``jobs`` workers, one execution at a time each.

        Each worker is a fork of this process that lives in a pids and a cpu cgroup of its
        own (where the machine lets us make them), so that the executions it forks are
        born in them: moving a process between cgroups costs the kernel an RCU grace
        period (up to ~10 ms, during which every fork on the machine waits), and a
        cgroup made and removed per execution paid that twice for every execution.

        Workers take execution numbers from one pipe (4 bytes each: a pipe never splits so
        small a write) and report on pipes of their own. A worker that dies (an execution
        killed it) is replaced while work remains; what it was running is a crash.
        """
        if not queue:
            return
        pool = _Pool(self, min(self.jobs, len(queue)))
        feed = b"".join(struct.pack("<I", index) for index, _ in queue)
        selector = selectors.DefaultSelector()
        os.set_blocking(pool.work_w, False)
        selector.register(pool.work_w, selectors.EVENT_WRITE, None)
        for slot in range(pool.size):
            selector.register(pool.spawn(slot), selectors.EVENT_READ, slot)
        while pool.alive:
            for key, _ in selector.select():
                if key.data is None:
                    try:
                        written = os.write(pool.work_w, feed[:4096])
                    except BlockingIOError:
                        continue
                    feed = feed[written:]
                    if not feed:
                        selector.unregister(pool.work_w)
                        pool.close_feed()
                    continue
                slot = key.data
                for event in pool.read(slot):
                    if "started" in event:
                        pool.running[slot] = event["started"]
                    else:
                        pool.running[slot] = None
                        self.emit(event["seq"], event["outcome"])
                if pool.ended(slot):
                    selector.unregister(key.fd)
                    lost = pool.running.pop(slot, None)
                    if lost is not None:
                        reason = "the worker running this execution died before reporting it"
                        self.emit(lost, outcome("crash", message=reason))
                    if feed or pool.work_left():
                        selector.register(pool.spawn(slot), selectors.EVENT_READ, slot)
        pool.close()

    def _work(self, slot: int, work_r: int, out_w: int) -> None:
        """A worker: take the next execution, run it, report it; until the work runs out."""
        sandbox.set_subreaper()  # what its executions leave behind becomes its own
        cgroups: list[str] = []
        if self.task_cap == "cgroup":
            # the worker itself is one task of its cgroup
            cgroups = sandbox.execution_cgroups(
                "harness-%d-slot%d-%d" % (os.getppid(), slot, os.getpid()), self.max_tasks + 1
            )
            for cgroup in cgroups:
                sandbox.join_cgroup(cgroup)
        self.worker_cgroups = cgroups  # a guarded solution's process joins them too
        out = os.fdopen(out_w, "w", buffering=1, encoding="utf-8")

        def report(index: int, record: Json) -> None:
            out.write(json.dumps({"seq": index, "outcome": record}) + "\n")

        self.emit = report
        # a selector of its own: the one it inherited is shared with every other worker
        self.selector = selectors.DefaultSelector()
        by_index = dict(enumerate(self.batch["executions"]))
        while True:
            number = read_exactly(lambda size: os.read(work_r, size), 4)
            if number is None:
                break
            index = struct.unpack("<I", number)[0]
            out.write(json.dumps({"started": index}) + "\n")
            self._start(index, by_index[index])
            while self.running:
                self._wait()
            # nothing of this execution may run on beside the next one
            for cgroup in cgroups:
                sandbox.empty_cgroup(cgroup, keep=os.getpid())
            self._reap_strays()
        out.flush()

    def _run_zygote(
        self, group: tuple[str, ...], library: str, items: list[tuple[int, Json]]
    ) -> None:
        """Fork a zygote for one group, relay what it reports, account for what it does not."""
        read_fd, write_fd = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the zygote
            try:
                sandbox.die_with_parent(parent)
                os.close(read_fd)
                with contextlib.suppress(OSError):
                    os.close(self.protocol_fd)
                self.protocol_fd = write_fd  # executions must not inherit it either
                # what executions leave behind becomes ours, to be reaped (the attribute
                # is not inherited across fork)
                sandbox.set_subreaper()
                out = os.fdopen(write_fd, "w", buffering=1, encoding="utf-8")

                def relay(index: int, record: Json) -> None:
                    out.write(json.dumps({"seq": index, "outcome": record}) + "\n")

                self.emit = relay
                self.prepare_zygote(items)
                if self.guard and self.isolation == "zygote" and self._guards_any(items):
                    # the guarded solutions' processes: forked by a template that imported
                    # what this zygote did, and never held the batch (resident.TEMPLATE)
                    resident.start_template(
                        [m for m in self.preloaded if m.split(".")[0] not in self.fresh_only],
                        {
                            "sandboxed": self.sandbox_reason is None,
                            "hide": self.hide,
                            "memory_mb": self.memory_mb,
                            "workdirs": os.path.realpath(tempfile.gettempdir()),
                        },
                    )
                report = {
                    "group": list(group),
                    "library": library,
                    "preloaded": self.preloaded,
                    "fresh_only": self.fresh_only,
                    "preload_failures": self.preload_failures,
                }
                out.write(json.dumps({"zygote": report}) + "\n")
                self._drain(items)
                out.flush()
            finally:
                os._exit(0)
        os.close(write_fd)
        pending = {index for index, _ in items}
        with os.fdopen(read_fd, encoding="utf-8") as lines:
            for line in lines:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if "zygote" in event:
                    self.zygotes.append(event["zygote"])
                elif event.get("seq") in pending:
                    pending.discard(event["seq"])
                    self.emit(event["seq"], event["outcome"])
        _, status = os.waitpid(pid, 0)
        reason = "the zygote died (%s) before reporting this execution" % describe_exit(
            exit_code(status)
        )
        for index in sorted(pending):
            self.emit(index, outcome("crash", message=reason))

    def _fresh_for(self, problem: Json) -> bool:
        if self.isolation != "zygote":
            return True
        return any(m in self.fresh_only for m in problem.get("requires", []))

    def _start(self, index: int, spec: Json) -> None:
        problem = self.batch["problems"][spec["problem"]]
        timeout = float(spec.get("timeout") or self.batch.get("timeout", 120))
        payload = {
            "context": problem["context"],
            "solution": spec["solution"],
            "memory_mb": self.memory_mb,
            # measuring the allowlist, every solution goes through the guard (references
            # are still trusted to name what the zygote imports)
            "untrusted": (not spec.get("trusted", False) and self.guard)
            or bool(self.batch.get("record_transport")),
            "sandboxed": self.sandbox_reason is None,
            "hide": self.hide,
            "cgroups": self.worker_cgroups,
            "limits": dict(
                self.limits, tasks=self.max_tasks, task_cap=self.task_cap, timeout=timeout
            ),
            "allowlist_extra": self.batch.get("allowlist_extra", ""),
            "record_transport": bool(self.batch.get("record_transport")),
            # graded beside the solution, decided by the run from the task's reference
            "in_process": problem.get("in_process", ""),
        }
        # no "-" in the name, as in tempfile's own: tasks split their paths on it
        workdir = tempfile.mkdtemp(prefix="harness_exec_")
        if self._fresh_for(problem):
            child = self._spawn_fresh(index, payload, workdir, timeout)
        else:
            child = self._fork(index, payload, workdir, timeout)
        self.running[index] = child
        for kind, fd in child.fds.items():
            self.selector.register(fd, selectors.EVENT_READ, (child, kind))

    def _spawn_fresh(self, index: int, payload: Json, workdir: str, timeout: float) -> _Child:
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
        return _Child(index, popen.pid, out_r, result_r, workdir, timeout, popen)

    def _fork(self, index: int, payload: Json, workdir: str, timeout: float) -> _Child:
        out_r, out_w = os.pipe()
        result_r, result_w = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            try:
                sandbox.die_with_parent(parent)
                os.setsid()
                # Nothing the runner holds is the child's business: not the protocol,
                # not the other executions' pipes.
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in [out_r, result_r] + [
                    f for c in self.running.values() for f in c.fds.values()
                ]:
                    with contextlib.suppress(OSError):
                        os.close(fd)
                # The protocol fd is owned by a file object (the zygote's relay): covered,
                # not closed, or that object's finalizer would one day close whatever
                # reused the number (the guard's pipe, say).
                with contextlib.suppress(OSError):
                    os.dup2(devnull, self.protocol_fd)
                os.dup2(devnull, 0)
                os.close(devnull)
                os.dup2(out_w, 1)
                os.dup2(out_w, 2)
                os.chdir(workdir)
                reset_after_fork()
                prepare(payload, workdir, result_w)
                report(result_w, execute(payload))
            finally:
                os._exit(70)
        os.close(out_w)
        os.close(result_w)
        return _Child(index, pid, out_r, result_r, workdir, timeout)

    def _wait(self) -> None:
        now = time.monotonic()
        wake = min(
            [c.deadline for c in self.running.values()]
            + [c.exited_at + _KILL_GRACE for c in self.running.values() if c.exited_at]
        )
        # A child whose pipes have closed is exiting: look again soon rather than sleep
        # through the whole tick with nothing left to wake us (it added ~25 ms a child).
        exiting = any(not c.fds and c.exited_at is None for c in self.running.values())
        tick = 0.002 if exiting else 0.05
        events = self.selector.select(timeout=max(0.0, min(wake - now, tick)))
        for key, _ in events:
            child, kind = key.data
            try:
                chunk = os.read(key.fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                self._close(child, kind)
            elif kind == "result":
                child.result.extend(chunk)
            else:
                self._keep_output(child, chunk)
        self._reap_strays()
        now = time.monotonic()
        for child in list(self.running.values()):
            if child.exited_at is None and child.poll() is not None:
                child.exited_at = now
            if child.exited_at is None and now >= child.deadline:
                child.timed_out = True
                child.kill_group()
                child.exited_at = now
            if child.exited_at is not None and (
                not child.fds or now >= child.exited_at + _KILL_GRACE
            ):
                self._finish(child)

    def _reap_strays(self) -> None:
        """Kill what an execution left behind: we are a subreaper, so its orphans (even those
        in sessions of their own) became our children. Only children we did not start."""
        known = {c.pid for c in self.running.values()}
        for pid in _children():
            if pid not in known:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                with contextlib.suppress(ChildProcessError, OSError):
                    os.waitpid(pid, os.WNOHANG)

    def _close(self, child: _Child, kind: str) -> None:
        """Stop watching and close one of a child's pipes, exactly once."""
        fd = child.fds.pop(kind, None)
        if fd is not None:
            self.selector.unregister(fd)
            os.close(fd)

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

    def _finish(self, child: _Child) -> None:
        # Whatever the execution left behind in its process group goes with it.
        child.kill_group()
        child.wait()
        for kind in list(child.fds):
            self._close(child, kind)
        del self.running[child.index]
        shutil.rmtree(child.workdir, ignore_errors=True)
        duration = time.monotonic() - child.start
        if child.timed_out:
            result = outcome(
                "timeout", message="exceeded the time limit of %gs" % (child.deadline - child.start)
            )
        else:
            result = _parse_result(bytes(child.result), child.wait())
        result["duration_s"] = round(duration, 4)
        if result["status"] != "pass":
            output = bytes(child.head)
            lost = child.output_bytes - len(child.head) - len(child.tail)
            if lost > 0:
                output += b"\n[... %d bytes not kept ...]\n" % lost
            result["output"] = (output + bytes(child.tail)).decode("utf-8", "replace")
        self.emit(child.index, result)


class _Pool:
    """The workers of one drain: their pids, their report pipes, the shared work pipe."""

    def __init__(self, scheduler: Scheduler, size: int) -> None:
        self.scheduler = scheduler
        self.size = size
        self.work_r, self.work_w = os.pipe()
        self.pids: dict[int, int] = {}  # slot → pid
        self.outputs: dict[int, int] = {}  # slot → read end of its reports
        self.buffers: dict[int, bytes] = {}
        self.running: dict[int, int | None] = {}  # slot → the execution it runs now
        self.feed_open = True

    @property
    def alive(self) -> bool:
        return bool(self.outputs)

    def spawn(self, slot: int) -> int:
        out_r, out_w = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the worker
            try:
                sandbox.die_with_parent(parent)
                for fd in [out_r, *self.outputs.values()]:
                    os.close(fd)
                if self.feed_open:
                    os.close(self.work_w)
                self.scheduler._work(slot, self.work_r, out_w)  # noqa: SLF001
            finally:
                os._exit(0)
        os.close(out_w)
        self.pids[slot] = pid
        self.outputs[slot] = out_r
        self.buffers[slot] = b""
        return out_r

    def read(self, slot: int) -> list[Json]:
        """The complete report lines the worker of ``slot`` has sent so far."""
        chunk = os.read(self.outputs[slot], 1 << 16)
        if not chunk:
            os.close(self.outputs.pop(slot))
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pids.pop(slot), 0)
            return []
        lines = (self.buffers[slot] + chunk).split(b"\n")
        self.buffers[slot] = lines.pop()
        events = []
        for line in lines:
            with contextlib.suppress(ValueError):
                events.append(json.loads(line.decode("utf-8")))
        return events

    def ended(self, slot: int) -> bool:
        return slot not in self.outputs

    def work_left(self) -> bool:
        """Whether numbers wait in the work pipe, unread."""
        import fcntl
        import termios

        try:
            waiting = fcntl.ioctl(self.work_r, termios.FIONREAD, b"\0\0\0\0")
        except OSError:
            return False
        return bool(struct.unpack("i", waiting)[0])

    def close_feed(self) -> None:
        os.close(self.work_w)
        self.feed_open = False

    def close(self) -> None:
        if self.feed_open:
            self.close_feed()
        os.close(self.work_r)
        deadline = time.monotonic() + 10
        while (
            sandbox.remove_cgroups("harness-%d-slot" % os.getpid()) and time.monotonic() < deadline
        ):
            time.sleep(0.05)


def _parse_result(data: bytes, returncode: int) -> Json:
    if data:
        try:
            result = json.loads(data.decode("utf-8"))
        except ValueError:
            result = None
        if isinstance(result, dict) and result.get("status") in ("pass", "fail", "error"):
            return result
    if returncode < 0:
        name = describe_exit(returncode).replace("killed by ", "")
        return outcome("crash", exc_type=name, message="killed by %s" % name)
    return outcome(
        "crash", message="exited with status %d before reporting an outcome" % returncode
    )


def _importable(module: str, cache: dict[str, bool]) -> bool:
    if module not in cache:
        import importlib.util

        try:
            cache[module] = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            cache[module] = False
    return cache[module]


_ENVIRONMENT = {
    "PYTHONHASHSEED": "0",  # set and dict order of strings repeat from run to run
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8",
    "MPLBACKEND": "Agg",
    "TF_CPP_MIN_LOG_LEVEL": "2",
    # One thread per execution: results do not depend on the core count, and
    # parallel executions do not fight over the same cores.
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


def child_environment() -> dict[str, str]:
    """The environment executions see: ours, minus anything that redirects Python."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(_ENVIRONMENT)
    return env


def in_child_environment() -> bool:
    return all(os.environ.get(k) == v for k, v in _ENVIRONMENT.items())
