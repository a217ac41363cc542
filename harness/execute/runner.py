"""Host side of execution: hand one combo's batch to its env-side runner, stream outcomes back.

The host never imports the libraries under test. It writes a batch file (problem
contexts once, then the executions that refer to them), starts the env side's ``run``
with the combo's interpreter, and turns each protocol line into an :class:`Outcome`
appended to the combo's results file the moment it arrives.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from harness.core.libraries import REMOVED_STDLIB
from harness.core.problem import MODEL_PREFIX
from harness.core.results import CapturedWarning, Outcome, Part, Status
from harness.envs.build import ENVSIDE, EnvInfo
from harness.envs.interpreters import one_line
from harness.envside import protocol

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from harness.core.problem import Problem, Solution

DEFAULT_MEMORY_MB = 6144
# The batch's own defaults (``envside/protocol.py``), where a run's are the same.
_BATCH = protocol.Options()


class Sink(Protocol):
    """Where outcomes go: an :class:`OutcomeWriter`, or a list in memory."""

    def write(self, outcome: Outcome) -> None: ...


# The most executions at once, as a multiple of -j, while cores sit idle: three times kept
# the whole BigCodeBench pinned combo within 0.57 of a fixed -j's wall time, twice only
# within 0.70, with identical statuses (docs/benchmarks/speed.md, "Busy cores"; benchmarks/cores.py)
BURST = 3


@dataclass(frozen=True)
class RunOptions:
    """How a run's executions run: the batch's options (``protocol.Options`` says what
    each is), and the host's own (``repeat``, ``env``, admission)."""

    jobs: int = os.cpu_count() or 1  # the batch's default is one
    # executions at once while cores sit idle (envside/scheduling/cores.py); None: ``BURST`` × ``jobs``
    burst_jobs: int | None = None
    timeout: float = _BATCH.timeout  # default per execution; a problem's own timeout wins
    memory_mb: int | None = DEFAULT_MEMORY_MB  # the batch's default is no cap
    output_limit: int = _BATCH.output_limit
    isolation: str = _BATCH.isolation  # "zygote" or "fresh" (DS-1000's own grader's way)
    fresh_for: tuple[str, ...] = _BATCH.fresh_for
    repeat: int = 1  # runs of each execution per combo, to find flaky ones
    # extra environment for executions, e.g. SEABORN_DATA pointing at the dataset cache
    env: tuple[tuple[str, str], ...] = ()
    hide: tuple[str, ...] = _BATCH.hide
    sandbox: bool = _BATCH.sandbox
    # model answers may run where the sandbox is refused or off (--allow-unsandboxed-answers)
    unsandboxed_answers: bool = _BATCH.unsandboxed_answers
    guard: bool = _BATCH.guard
    allowlist_extra: str = _BATCH.allowlist_extra  # added to harness/envside/allowlist.txt
    record_transport: bool = _BATCH.record_transport  # harness guard allowlist
    # before model answers run in a combo, admit what the references' values use there
    # (harness/execute/admission.py): a release the shipped allowlist has not met refuses nothing
    measured_admission: bool = True
    # problem id → why its answers are graded in their own process (its reference does not
    # grade the same across the boundary: harness/execute/admission.py)
    in_process: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Execution:
    problem: Problem
    solution: Solution
    attempt: int = 0


def pair(
    problems: Sequence[Problem], solutions: Sequence[Solution], repeat: int = 1
) -> list[Execution]:
    """Executions in problem order; within a problem, solutions in the order given.

    With ``repeat`` > 1 each execution is run that many times (attempts 0..n-1), so
    outcomes that differ between runs in one env show up as flaky.
    """
    by_problem: dict[str, list[Solution]] = {}
    for s in solutions:
        by_problem.setdefault(s.problem_id, []).append(s)
    return [
        Execution(p, s, attempt)
        for p in problems
        for s in by_problem.get(p.id, [])
        for attempt in range(repeat)
    ]


def batches_root() -> Path:
    """Where every run of this user keeps its batch files (each holds every solution of
    its batch, references included). Executions see this whole directory hidden, so
    they cannot read a batch of a run that started beside theirs, even a later one."""
    root = Path(tempfile.gettempdir()) / f"harness-batches-{os.getuid()}"
    root.mkdir(mode=0o700, exist_ok=True)
    return root


def make_batch(executions: Sequence[Execution], options: RunOptions) -> protocol.Batch:
    """The batch file of ``executions``: each problem stated once, then the executions."""
    problems: dict[str, protocol.ProblemSpec] = {}
    in_process = dict(options.in_process)
    for e in executions:
        if e.problem.id not in problems:
            problems[e.problem.id] = protocol.ProblemSpec(
                context=e.problem.code_context,
                # what the env side skips a problem for where it is not installed: a
                # module Python itself dropped is not an install to miss but a removed
                # API, so the problem runs there and fails on its import (drift)
                requires=tuple(m for m in e.problem.requires if m not in REMOVED_STDLIB),
                library=e.problem.library,
                in_process=in_process.get(e.problem.id, ""),
                preload=tuple(protocol.imports_in(e.problem.reference_code)),
            )
    return protocol.Batch(
        protocol=protocol.PROTOCOL,
        problems=problems,
        executions=tuple(
            protocol.ExecutionSpec(
                problem=e.problem.id,
                solution=e.solution.code,
                # only code we trust may name modules for the zygote to import
                trusted=not e.solution.source.startswith(MODEL_PREFIX),
                timeout=e.problem.timeout,  # none: the batch's (``Batch.timeout_of``)
            )
            for e in executions
        ),
        options=protocol.Options(
            jobs=options.jobs,
            max_jobs=options.burst_jobs if options.burst_jobs is not None else BURST * options.jobs,
            timeout=options.timeout,
            memory_mb=options.memory_mb,
            output_limit=options.output_limit,
            isolation=options.isolation,
            fresh_for=options.fresh_for,
            hide=options.hide,
            sandbox=options.sandbox,
            unsandboxed_answers=options.unsandboxed_answers,
            guard=options.guard or options.record_transport,
            allowlist_extra=options.allowlist_extra,
            record_transport=options.record_transport,
        ),
    )


@dataclass(frozen=True)
class SandboxState:
    """Whether the env side can sandbox executions on this machine, as its done line says
    (the line a run keeps as ``envs/<combo>.executor.json``)."""

    sandbox: str = ""  # "on", or why not (naming the kernel's switch that refuses it)
    fix: str = ""  # what would let it be entered ("" when it is)
    task_cap: str = ""  # how an execution's tasks are capped: cgroup | rlimit | none
    error: str = ""  # why the env side gave no done line (then the rest is unknown)

    @property
    def refused(self) -> bool:
        """The env side answered, and cannot enter its sandbox here."""
        return not self.error and self.sandbox != "on"


def ask_sandbox(
    python: str | Path, options: RunOptions | None = None, timeout: float = 60.0
) -> SandboxState:
    """Ask the env side, started with ``python``, how it would run ``options``' executions
    here: a batch of none, built like every batch, runs its probe and nothing else."""
    options = options or RunOptions()
    batch = make_batch([], options)
    with tempfile.TemporaryDirectory(prefix="batch-", dir=batches_root()) as tmp:
        path = Path(tmp) / "batch.json"
        path.write_text(json.dumps(batch.to_json()), encoding="utf-8")
        try:
            proc = subprocess.run(
                [str(python), "-s", str(ENVSIDE), "run", str(path)],
                env={**os.environ, **dict(options.env)},
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return SandboxState(error=str(exc))
    lines = proc.stdout.strip().splitlines()
    try:
        done = protocol.read_line(lines[-1]) if lines else None
    except protocol.ProtocolError as exc:
        return SandboxState(error=str(exc))
    if not isinstance(done, protocol.Done) or done.refused:
        told = done.refused if isinstance(done, protocol.Done) else ""
        tail = one_line(proc.stderr)
        return SandboxState(error=told or tail or f"exit status {proc.returncode}")
    return SandboxState(done.sandbox, done.sandbox_fix, done.task_cap)


class ComboRun:
    """Runs one combo's executions and writes their outcomes."""

    def __init__(
        self,
        run_id: str,
        env: EnvInfo,
        writer: Sink,
        options: RunOptions,
        on_outcome: Callable[[Outcome], None] | None = None,
    ) -> None:
        self.run_id = run_id
        self.env = env
        self.writer = writer
        self.options = options
        self.on_outcome = on_outcome or (lambda _o: None)
        self.versions = env.library_versions()
        self.executor: dict[str, Any] = {}  # what the env-side runner reports at the end

    def outcome(self, e: Execution, seq: int, status: Status, **fields: Any) -> Outcome:
        return Outcome(
            run_id=self.run_id,
            combo=self.env.combo,
            problem_id=e.problem.id,
            source=e.solution.source,
            status=status,
            library=e.problem.library,
            versions=self.versions,
            python=self.env.python,
            seq=seq,
            attempt=e.attempt,
            **fields,
        )

    def record(self, outcome: Outcome) -> None:
        """Write an outcome of this combo (one this run already has, or a new one)."""
        self.writer.write(outcome)
        self.on_outcome(outcome)

    _record = record

    def run(self, executions: Sequence[Execution], seqs: Sequence[int] | None = None) -> None:
        """Run ``executions``; ``seqs`` numbers them within the combo (default 0..n-1)."""
        numbers = list(seqs) if seqs is not None else list(range(len(executions)))
        if not self.env.ok:
            message = f"{self.env.stage}: {self.env.error}"
            for e, seq in zip(executions, numbers, strict=True):
                self._record(self.outcome(e, seq, Status.ENV_ERROR, message=message))
            return
        # a problem that cannot run anywhere (a data file its published copy lacks, a
        # reference that does not run in the baseline: CIBench's) is not sent
        runnable = []
        for e, seq in zip(executions, numbers, strict=True):
            reason = e.problem.metadata.get("unavailable")
            if reason:
                self._record(self.outcome(e, seq, Status.SKIPPED, message=str(reason)))
            else:
                runnable.append((e, seq))
        executions, numbers = [e for e, _ in runnable], [seq for _, seq in runnable]
        if not executions:
            return
        pending = dict(
            zip(range(len(executions)), zip(executions, numbers, strict=True), strict=True)
        )
        root = batches_root()
        # every batch directory is hidden from executions, this run's and any other's
        batch = make_batch(executions, replace(self.options, hide=(*self.options.hide, str(root))))
        with tempfile.TemporaryDirectory(prefix="batch-", dir=root) as tmp:
            batch_path = Path(tmp) / "batch.json"
            batch_path.write_text(json.dumps(batch.to_json()), encoding="utf-8")
            stderr_tail: deque[str] = deque(maxlen=40)
            with subprocess.Popen(
                [str(self.env.python_exe), "-s", str(ENVSIDE), "run", str(batch_path)],
                env={**os.environ, **dict(self.options.env)},
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
            ) as proc:
                assert proc.stdout is not None
                assert proc.stderr is not None
                drain = _Drain(proc.stderr, stderr_tail)
                broken = self._read(proc.stdout, pending)
                proc.wait()
                drain.join()
        tail = "".join(stderr_tail)[-2000:]
        for e, seq in pending.values():
            if broken:
                # nothing it said can be trusted to mean what the host reads into it
                failure = self.outcome(e, seq, Status.ENV_ERROR, message=broken, output=tail)
            else:
                # The runner itself died (killed, out of memory): what it did not report is
                # lost work, recorded as crashes so that nothing disappears from the results.
                reason = (
                    f"the env-side runner exited with status {proc.returncode} before running this"
                )
                failure = self.outcome(e, seq, Status.CRASH, message=reason, output=tail)
            self._record(failure)

    def _read(self, lines: Iterable[str], pending: dict[int, tuple[Execution, int]]) -> str:
        """Record each outcome line as it arrives and keep the done line's report; return
        why the runner's lines cannot be trusted ('' when they can)."""
        broken = ""
        for text in lines:
            try:
                line = protocol.read_line(text)
            except protocol.ProtocolError as exc:
                broken = broken or f"the env-side runner broke the protocol: {exc}"
                continue
            if isinstance(line, protocol.Done):
                if line.refused:
                    broken = f"the env-side runner refused the batch: {line.refused}"
                else:
                    self.executor = line.to_json()
            elif line.seq in pending:  # not a second report of one execution
                e, seq = pending.pop(line.seq)
                self._record(self._from_env(e, seq, line.outcome))
        return broken

    def _from_env(self, e: Execution, seq: int, record: protocol.Record) -> Outcome:
        return self.outcome(
            e,
            seq,
            Status(record.status),
            exc_type=record.exc_type,
            message=record.message,
            duration_s=record.duration_s,
            warnings=tuple(
                CapturedWarning(w.category, w.message, w.module, w.origin) for w in record.warnings
            ),
            traceback=record.traceback,
            output=record.output,
            note=record.note,
            graded=record.graded,
            crossed=record.crossed,
            parts=tuple(Part(p.name, p.status, p.message, p.exc_type) for p in record.parts),
            transport=record.transport,
        )


class _Drain:
    """Reads a pipe to its end on a thread, keeping the last lines."""

    def __init__(self, stream: Any, tail: deque[str]) -> None:
        import threading  # noqa: PLC0415 - only runs alongside a live runner

        self._thread = threading.Thread(target=lambda: tail.extend(stream), daemon=True)
        self._thread.start()

    def join(self) -> None:
        self._thread.join(timeout=5)
