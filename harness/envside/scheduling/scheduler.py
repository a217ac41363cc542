"""Runs a batch's executions, ``jobs`` at a time, and emits each outcome as it ends.

In zygote mode the executions are grouped by which of the ``APART`` libraries they need
and, those that need none, by their problem's library; each group gets a zygote of its own
that preloads what that group's problems import (while the group before it runs, and
beginning beside that group's last executions when the pool may grow past ``jobs``) and
forks one child per execution. In fresh mode (or for libraries
that do not survive a fork) each execution gets a brand-new interpreter. Either way every
execution has its own process group, working directory, time limit and sandbox: the
worker pool (``pool``) runs them, each worker one at a time (``supervisor``).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import selectors
import shutil
import sys
import tempfile
from typing import Callable, List, NamedTuple, Tuple

from ..allowlist import shipped_allowlist
from ..bridge import admission, resident
from ..bridge.wire import JsonLines, read_exactly
from ..isolation import cgroups, refusal, sandbox
from ..isolation.processes import PidNamespace, child_environment, fork, probe_checker, reap_strays
from ..protocol import (
    CRASH,
    ENV_ERROR,
    PROTOCOL,
    SKIPPED,
    Batch,
    Done,
    ExecutionSpec,
    Json,
    OutcomeLine,
    ProblemSpec,
    Record,
    Zygote,
    describe_exit,
    exit_code,
    imports_in,
    outcome_line,
)
from ..timing import phases
from .pool import WORK, Census, Reports, Share, cgroup_name, drain
from .supervisor import Emit, Supervisor
from .zygote import FORK_PROBES, fork_probe, preload, warm_pyplot, warm_reseeding

# Libraries that never share a zygote: each carries native runtimes (LLVM, protobuf,
# thread pools) that clash when both are loaded into one process, which a fresh
# interpreter running one problem would never do.
APART = ("tensorflow", "torch")
# Processes and threads an execution may have at once (a fork bomb stops there).
MAX_TASKS = 1024
_ZYGOTE = "zygote"  # a line of a zygote's relay: what it holds (the others are outcomes)
_TAIL = "tail"  # and: all its executions given out, this many workers still run

Queue = List[Tuple[int, ExecutionSpec]]  # executions by their index in the batch


class Scheduler:
    """Runs a batch's executions and emits each outcome as it ends (the module says how).

    It forks its zygotes and workers, which go on with a copy of it: what it holds is
    the process's own (its protocol descriptor, for one).
    """

    def __init__(
        self, batch: Batch, emit: Emit, protocol_fd: int = -1, batch_file: str = ""
    ) -> None:
        self.batch = batch
        self.options = batch.options
        self.emit = emit
        self.protocol_fd = protocol_fd
        self.env = child_environment()
        self.fresh_only: dict[str, str] = {}  # top-level module → why it is not forked
        self.preloaded: list[str] = []
        self.preload_failures: dict[str, str] = {}
        self.zygotes: list[Zygote] = []  # what each group's zygote reported
        # what no execution may read: the batch (it holds every solution) and what the
        # host names (the problems, with their references; the results)
        self.hide = list(self.options.hide) + (
            [os.path.dirname(os.path.abspath(batch_file))] if batch_file else []
        )
        # Untrusted solutions run apart from their checks (the guard), and every execution
        # in the sandbox, when this machine allows it (the reason it does not, otherwise,
        # naming the kernel's switch that refuses it, and what would lift it).
        self.sandbox_reason = _probe_sandbox() if self.options.sandbox else "switched off"
        self.sandbox_fix = ""
        if self.options.sandbox and self.sandbox_reason is not None:
            self.sandbox_reason, self.sandbox_fix = refusal.diagnose(self.sandbox_reason)
        sandbox.set_subreaper()
        cgroups.sweep_cgroups()
        sandbox.warm()  # what the guard's children look up, looked up once here
        self.task_cap = _task_cap(self.sandbox_reason)
        # The checker of each execution: in its worker's pid namespace, not the machine's
        # root, no capability on the machine, not dumpable, where this machine lets it
        # (sandbox.confine_checker); else why not.
        self.checker_reason = _probe_checker(self.sandbox_reason)
        # the descriptors of zygotes' pipes this process holds: no zygote forked later
        # may hold them too (a zygote's end would not close while another held it)
        self._held: set[int] = set()
        self.census = Census()  # how many workers the batch's pools run (made per batch)

    # -- setup ----------------------------------------------------------------------
    def prepare_zygote(self, queue: Queue) -> None:
        """Import what the queued problems import, then check each heavy library forks."""
        wanted: list[str] = []
        for problem_id in dict.fromkeys(spec.problem for _, spec in queue):
            problem = self.batch.problems[problem_id]
            wanted.extend(imports_in(problem.context))
            wanted.extend(problem.preload)
        for _, spec in queue:
            if spec.trusted:
                wanted.extend(imports_in(spec.solution))
        configured = set(self.options.fresh_for)
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
        if self.options.guard and self._guards_any(queue):
            # what checking returned values needs, looked up once for every child
            admission.warm(shipped_allowlist(self.options.allowlist_extra))
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

    def _guards_any(self, queue: Queue) -> bool:
        """Whether any of ``queue`` runs its solution through the guard: an untrusted one,
        or any at all when the run records what the guard admits (references too)."""
        if self.options.record_transport:
            return bool(queue)
        return any(not spec.trusted for _, spec in queue)

    def done(self) -> Done:
        """The done line: what the run did, for the record, per zygote and merged."""
        preloaded: list[str] = []
        fresh_only: dict[str, str] = {}
        failures: dict[str, str] = {}
        for zygote in self.zygotes:
            preloaded += [m for m in zygote.preloaded if m not in preloaded]
            fresh_only.update(zygote.fresh_only)
            failures.update(zygote.preload_failures)
        return Done(
            PROTOCOL,
            isolation=self.options.isolation,
            sandbox=self.sandbox_reason or "on",
            sandbox_fix=self.sandbox_fix,
            checker=self.checker_reason or "confined",
            task_cap=self.task_cap,
            guard=self.options.guard,
            zygotes=tuple(self.zygotes),
            preloaded=tuple(preloaded),
            fresh_only=fresh_only,
            preload_failures=failures,
        )

    # -- main loop --------------------------------------------------------------------
    def unsandboxed_refusal(self) -> str:
        """Why this batch's model answers may not run ('' when they may): they run only
        in the sandbox unless the batch allows them out of it."""
        if self.sandbox_reason is None or self.options.unsandboxed_answers:
            return ""
        if not self.options.sandbox:
            return (
                "not run: the sandbox is switched off (--no-sandbox) and model answers run"
                " only in it; pass --allow-unsandboxed-answers to run them without it"
            )
        return (
            "not run: model answers run only in the sandbox, refused here (%s); %s, or pass"
            " --allow-unsandboxed-answers to run them without it"
        ) % (self.sandbox_reason, self.sandbox_fix)

    def run(self) -> None:
        queue: Queue = []
        missing_cache: dict[str, bool] = {}
        # checked here, before any execution starts: no model answer runs unsandboxed
        # unless the batch says it may (the host asks the same before it builds a batch)
        refused = self.unsandboxed_refusal()
        for index, spec in enumerate(self.batch.executions):
            problem = self.batch.problems[spec.problem]
            missing = [m for m in problem.requires if not _importable(m, missing_cache)]
            if missing:
                message = "needs %s, not installed in this environment" % ", ".join(missing)
                self.emit(index, Record(SKIPPED, message=message))
            elif refused and not spec.trusted:
                self.emit(index, Record(ENV_ERROR, message=refused))
            else:
                queue.append((index, spec))
        if self.options.isolation != "zygote":
            self._drain(queue, self.emit)
            return
        groups: dict[tuple[tuple[str, ...], str], Queue] = {}
        for index, spec in queue:
            problem = self.batch.problems[spec.problem]
            apart = tuple(m for m in APART if m in problem.requires)
            # and by the problem's library: a zygote holds only what its problems import,
            # so each fork (of an execution, and of a guarded solution) copies less. Not
            # those that need one of APART: that library is most of their zygote, and a
            # zygote of its own for a few NumPy problems needing torch would import it again.
            library = "" if apart else problem.library
            groups.setdefault((apart, library), []).append((index, spec))
        self.census = Census(len(groups))  # before the zygotes are forked: they share it
        self._relay_zygotes(list(groups.items()))

    def _drain(
        self, queue: Queue, emit: Emit, member: int = 0, tail: Callable[[int], None] | None = None
    ) -> None:
        indices = [index for index, _ in queue]
        drain(
            indices,
            self.options.jobs,
            self._serve,
            emit,
            ceiling=self.options.max_jobs,
            census=self.census,
            member=member,
            tail=tail,
        )

    def _serve(self, slot: int, work_r: int, reports: Reports, share: Share) -> None:
        """A worker: take the next execution, run it, report it; until the work runs out."""
        sandbox.set_subreaper()  # what its executions leave behind becomes its own
        groups: list[str] = []
        if self.task_cap == "cgroup":
            # the worker itself is one task of its cgroup, its placer another, the keeper of
            # its executions' pid namespace a third (and a spare, when the supervisor makes
            # them ahead, a fourth)
            groups = cgroups.execution_cgroups(cgroup_name(slot), MAX_TASKS + 4)
            for cgroup in groups:
                cgroups.join_cgroup(cgroup)
        # the pid namespace its executions are born in (its keeper, in its cgroups, is
        # one more of their tasks)
        namespace = PidNamespace.made() if self.checker_reason is None else None
        supervisor = Supervisor(
            reports.outcome,
            self.options.output_limit,
            self.env,
            close=[work_r],
            cover=[self.protocol_fd, reports.fd],
            # whether an execution may have waited for a CPU because the pool ran more
            # executions than cores (then that wait is off its clock), and its processes
            # beside its own: those in the worker's cgroups but the worker and its placer
            crowded_since=share.crowded_since,
            processes=lambda: [
                pid
                for pid in (cgroups.processes_in(groups[0]) if groups else [])
                if pid != os.getpid()
                and pid not in resident.spared()
                and (namespace is None or pid != namespace.keeper)
            ],
            namespace=namespace,
            # No ``place``: each execution's process is forked as it starts. Made ahead
            # (spares, while the execution before runs) they were measured slower on two
            # cores, where they compete with that execution (docs/benchmarks/speed.md, issue #31).
        )
        while share.more(slot):
            number = read_exactly(lambda size: os.read(work_r, size), WORK.size)
            if number is None:
                break
            index = WORK.unpack(number)[0]
            reports.started(index)
            spec = self.batch.executions[index]
            problem = self.batch.problems[spec.problem]
            timeout = self.batch.timeout_of(spec)
            payload = self._payload(spec, problem, timeout, groups)
            fresh = self._fresh_for(problem)
            if payload["untrusted"] and not fresh:
                # its solution's process, forked ahead by this worker's placer in its
                # cgroups (started for the first), where the zygote has a template
                resident.next_execution(groups)
            supervisor.run(index, payload, timeout, fresh=fresh)
            reports.peak(supervisor.peak_mb)
            # nothing of this execution may run on beside the next one
            # (but the next execution's process, made while this one ran)
            for cgroup in groups:
                cgroups.empty_cgroup(
                    cgroup, keep=[os.getpid(), *resident.spared(), *supervisor.keep()]
                )
            reap_strays(known=supervisor.keep())
            if phases.ON:
                phases.mark("emptied")
                marks = set(phases.MARKS) | set(supervisor.marks)  # the child's copy of "start"
                ordered = sorted(marks, key=lambda m: m[1])
                phases.write(
                    index, supervisor.status, ordered, supervisor.cpu_s, supervisor.waited_s
                )
        supervisor.finish()

    def _start_zygote(
        self, member: int, key: tuple[tuple[str, ...], str], items: Queue
    ) -> _Started:
        """Fork the zygote of one group: it prepares at once, and runs its group when told
        (``_relay_zygotes``)."""
        group, library = key
        if not library:  # a group of one APART library: named by its problems' most common
            counts: dict[str, int] = {}
            for _, spec in items:
                name = self.batch.problems[spec.problem].library
                counts[name] = counts.get(name, 0) + 1
            library = max(counts, key=lambda name: counts[name])
        read_fd, write_fd = os.pipe()
        go_r, go_w = os.pipe()

        def zygote() -> None:  # pragma: no cover - runs in the zygote
            self.protocol_fd = write_fd  # executions must not hold it either
            self._zygote(write_fd, go_r, group, library, items, member)

        # nor the zygote other zygotes' pipes (those running, and the one prepared)
        pid = fork(zygote, close=[read_fd, go_w, *self._held], cover=[self.protocol_fd])
        os.close(write_fd)
        os.close(go_r)
        self._held.update((read_fd, go_w))
        return _Started(member, pid, read_fd, go_w, [index for index, _ in items])

    def _relay_zygotes(self, order: list[tuple[tuple[tuple[str, ...], str], Queue]]) -> None:
        """Run the groups' zygotes in turn, relaying what they report.

        Each zygote prepares (imports, probes) while the one before it runs its group: a
        core the executions leave idle does the next group's imports. And a group's last
        executions need not hold the next one back: once a zygote has given out all its
        executions and runs no more than ``max_jobs - jobs`` workers, the next zygote
        begins beside it (with a fixed ``-j`` that is none: the next one begins when the
        one before has ended). A slow execution at the end of a group (a test that
        sleeps, a solution that runs to its time limit) then keeps one worker, not all.
        """
        overlap = max(0, self.options.max_jobs - self.options.jobs)
        selector = selectors.DefaultSelector()
        prepared = self._start_zygote(0, *order[0]) if order else None
        newest: _Relay | None = None  # the zygote begun last (the one whose tail counts)

        def begin() -> None:
            nonlocal prepared, newest
            started, prepared = prepared, None
            assert started is not None
            following = started.member + 1
            if following < len(order):  # prepared while this one runs
                prepared = self._start_zygote(following, *order[following])
            with contextlib.suppress(OSError):  # it died preparing: its executions crash
                os.write(started.go_w, b"g")
            os.close(started.go_w)
            self._held.discard(started.go_w)
            newest = _Relay(started)
            selector.register(started.read_fd, selectors.EVENT_READ, newest)

        if prepared is not None:
            begin()
        while selector.get_map():
            for key, _ in selector.select():
                relay: _Relay = key.data
                chunk = os.read(key.fd, 1 << 16)
                for event in relay.lines.feed(chunk):
                    if _ZYGOTE in event:
                        self.zygotes.append(Zygote.from_json(event[_ZYGOTE], "zygote"))
                    elif _TAIL in event:
                        running = event[_TAIL]
                        if prepared is not None and relay is newest and running <= overlap:
                            begin()
                    else:
                        try:
                            outcome = OutcomeLine.from_json(event, "zygote's outcome line")
                        except ValueError:
                            continue
                        if outcome.seq in relay.pending:
                            relay.pending.discard(outcome.seq)
                            self.emit(outcome.seq, outcome.outcome)
                if not chunk:
                    selector.unregister(key.fd)
                    os.close(key.fd)
                    self._held.discard(key.fd)
                    self._account(relay)
                    if prepared is not None and relay is newest:
                        begin()
        selector.close()

    def _account(self, relay: _Relay) -> None:
        """A zygote has ended: each execution it did not report is a crash."""
        _, status = os.waitpid(relay.started.pid, 0)
        reason = "the zygote died (%s) before reporting this execution" % describe_exit(
            exit_code(status)
        )
        for index in sorted(relay.pending):
            self.emit(index, Record(CRASH, message=reason))

    def _zygote(
        self,
        write_fd: int,
        go_r: int,
        group: tuple[str, ...],
        library: str,
        items: Queue,
        member: int,
    ) -> None:
        """In the zygote: preload, report what it holds, and run the group on its workers
        once the scheduler says so (the zygote before it has run its own)."""
        # what executions leave behind becomes ours, to be reaped (the attribute is not
        # inherited across fork)
        sandbox.set_subreaper()
        out = os.fdopen(write_fd, "w", buffering=1, encoding="utf-8")
        self.prepare_zygote(items)
        if self.options.guard and self.options.isolation == "zygote" and self._guards_any(items):
            # the guarded solutions' processes: forked by a template that imported
            # what this zygote did, and never held the batch (resident.TEMPLATE)
            resident.start_template(
                [m for m in self.preloaded if m.split(".")[0] not in self.fresh_only],
                {
                    "sandboxed": self.sandbox_reason is None,
                    "hide": self.hide,
                    "memory_mb": self.options.memory_mb,
                    "workdirs": os.path.realpath(tempfile.gettempdir()),
                },
            )
        report = Zygote(
            group=group,
            library=library,
            preloaded=tuple(self.preloaded),
            fresh_only=self.fresh_only,
            preload_failures=self.preload_failures,
        )
        out.write(json.dumps({_ZYGOTE: report.to_json()}) + "\n")

        def relay(index: int, record: Record) -> None:
            out.write(outcome_line(index, record))

        def tail(running: int) -> None:
            out.write(json.dumps({_TAIL: running}) + "\n")

        out.flush()
        os.read(go_r, 1)  # a byte, or the end of the pipe: the scheduler is gone or done
        os.close(go_r)
        self._drain(items, relay, member, tail)
        out.flush()

    def _fresh_for(self, problem: ProblemSpec) -> bool:
        if self.options.isolation != "zygote":
            return True
        return any(m in self.fresh_only for m in problem.requires)

    def _payload(
        self, spec: ExecutionSpec, problem: ProblemSpec, timeout: float, groups: list[str]
    ) -> Json:
        """What the execution's process is told (``execution.execute`` reads it)."""
        record_transport = self.options.record_transport
        return {
            "context": problem.context,
            "solution": spec.solution,
            "memory_mb": self.options.memory_mb,
            # measuring the allowlist, every solution goes through the guard (references
            # are still trusted to name what the zygote imports)
            "untrusted": (not spec.trusted and self.options.guard) or record_transport,
            "sandboxed": self.sandbox_reason is None,
            "confined": self.checker_reason is None,  # the checker (sandbox.confine_checker)
            "hide": self.hide,
            "cgroups": groups,  # a guarded solution's process joins them too
            "limits": {"tasks": MAX_TASKS, "task_cap": self.task_cap, "timeout": timeout},
            "allowlist_extra": self.options.allowlist_extra,
            "record_transport": record_transport,
            # graded beside the solution, decided by the run from the task's reference
            "in_process": problem.in_process,
        }


class _Started(NamedTuple):
    """A zygote forked to run one group: its place among the batch's groups, its pid, its
    outcome lines, the word to begin, and its executions."""

    member: int
    pid: int
    read_fd: int
    go_w: int
    indices: list[int]


class _Relay:
    """A running zygote's relay, read as it comes: the executions it has not reported."""

    def __init__(self, started: _Started) -> None:
        self.started = started
        self.pending = set(started.indices)
        # its lines (the end of the relay completes the last one; a line cut short by the
        # zygote's death is skipped)
        self.lines = JsonLines()


def _probe_sandbox() -> str | None:
    """None when executions can be sandboxed here, else why not."""
    probe_dir = tempfile.mkdtemp(prefix="harness-probe-")
    try:
        return sandbox.probe(probe_dir)
    finally:
        shutil.rmtree(probe_dir, ignore_errors=True)


def _probe_checker(sandbox_reason: str | None) -> str | None:
    """None when checkers can be confined here (``sandbox.confine_checker``, each in its
    worker's pid namespace), else why not."""
    if sandbox_reason is not None:
        return "the sandbox is off (%s)" % sandbox_reason
    if not sandbox.machine_root():
        return (
            "the harness does not run as root: each checker runs as its user, without "
            "capabilities, in the machine's pid namespace"
        )
    probe_dir = tempfile.mkdtemp(prefix="harness-probe-")
    try:
        reason = probe_checker(probe_dir)
    finally:
        shutil.rmtree(probe_dir, ignore_errors=True)
    return None if reason is None else "checkers stay root: %s" % reason


def _task_cap(sandbox_reason: str | None) -> str:
    """How an execution's processes and threads are capped: a pids cgroup where we may
    make one (root, which RLIMIT_NPROC does not bind), else RLIMIT_NPROC in the sandbox."""
    if sandbox_reason is not None:
        return "none"
    trial = cgroups.execution_cgroups("harness-probe-%d" % os.getpid(), 8)
    for cgroup in trial:
        cgroups.release_cgroup(cgroup)
    return "cgroup" if trial else "rlimit"


def _importable(module: str, cache: dict[str, bool]) -> bool:
    if module not in cache:
        import importlib.util

        try:
            cache[module] = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            cache[module] = False
    return cache[module]
