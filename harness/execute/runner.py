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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from harness.core.problem import MODEL_PREFIX
from harness.core.results import CapturedWarning, Outcome, Part, Status
from harness.envs.build import ENVSIDE, EnvInfo

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from harness.core.problem import Problem, Solution

DEFAULT_MEMORY_MB = 6144


class Sink(Protocol):
    """Where outcomes go: an :class:`OutcomeWriter`, or a list in memory."""

    def write(self, outcome: Outcome) -> None: ...


@dataclass(frozen=True)
class RunOptions:
    jobs: int = os.cpu_count() or 1
    timeout: float = 120.0  # default per execution; a problem's own timeout wins
    memory_mb: int | None = DEFAULT_MEMORY_MB
    output_limit: int = 64 * 1024
    # "zygote": fork each execution from a process that preloaded the libraries;
    # "fresh": a new interpreter per execution, as DS-1000's own grader does.
    isolation: str = "zygote"
    fresh_for: tuple[str, ...] = ()  # top-level modules whose problems always run fresh
    repeat: int = 1  # runs of each execution per combo, to find flaky ones
    # extra environment for executions, e.g. SEABORN_DATA pointing at the dataset cache
    env: tuple[tuple[str, str], ...] = ()
    # files and directories no execution may read (covered inside the sandbox)
    hide: tuple[str, ...] = ()
    # sandbox: namespaces, read-only filesystem, no network, caps on tasks (where the
    # machine allows); guard: model answers run in a process apart from their checks
    sandbox: bool = True
    guard: bool = True
    # the text of an allowlist file added to the shipped one (harness/envside/allowlist.txt)
    allowlist_extra: str = ""
    # measuring the allowlist: every solution, references too, goes through the guard, whose
    # transport admits everything and records what it used (harness guard allowlist)
    record_transport: bool = False
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


def batch_payload(executions: Sequence[Execution], options: RunOptions) -> dict[str, Any]:
    problems: dict[str, Any] = {}
    in_process = dict(options.in_process)
    for e in executions:
        if e.problem.id not in problems:
            problems[e.problem.id] = {
                "context": e.problem.code_context,
                "requires": list(e.problem.requires),
                "library": e.problem.library,
            }
            if e.problem.id in in_process:
                problems[e.problem.id]["in_process"] = in_process[e.problem.id]
    return {
        "jobs": options.jobs,
        "timeout": options.timeout,
        "memory_mb": options.memory_mb,
        "output_limit": options.output_limit,
        "isolation": options.isolation,
        "fresh_for": list(options.fresh_for),
        "hide": list(options.hide),
        "sandbox": options.sandbox,
        "guard": options.guard or options.record_transport,
        "allowlist_extra": options.allowlist_extra,
        "record_transport": options.record_transport,
        "problems": problems,
        "executions": [
            {
                "problem": e.problem.id,
                "source": e.solution.source,
                "solution": e.solution.code,
                # only code we trust may name modules for the zygote to import
                "trusted": not e.solution.source.startswith(MODEL_PREFIX),
                "timeout": e.problem.timeout or options.timeout,
            }
            for e in executions
        ],
    }


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
        if not executions:
            return
        pending = dict(
            zip(range(len(executions)), zip(executions, numbers, strict=True), strict=True)
        )
        root = batches_root()
        with tempfile.TemporaryDirectory(prefix="batch-", dir=root) as tmp:
            batch_path = Path(tmp) / "batch.json"
            payload = batch_payload(executions, self.options)
            payload["hide"].append(str(root))
            batch_path.write_text(json.dumps(payload), encoding="utf-8")
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
                for line in proc.stdout:
                    self._handle(_decode(line), pending)
                proc.wait()
                drain.join()
        # The runner itself died (killed, out of memory): what it did not report is lost
        # work, recorded as crashes so that nothing disappears from the results.
        reason = f"the env-side runner exited with status {proc.returncode} before running this"
        tail = "".join(stderr_tail)[-2000:]
        for e, seq in pending.values():
            self._record(self.outcome(e, seq, Status.CRASH, message=reason, output=tail))

    def _handle(
        self, event: dict[str, Any] | None, pending: dict[int, tuple[Execution, int]]
    ) -> None:
        """One protocol line: an outcome to record, or the runner's closing report."""
        if event is None:
            return
        if event.get("done"):
            self.executor = {k: v for k, v in event.items() if k != "done"}
        elif "seq" in event and int(event["seq"]) in pending:
            e, seq = pending.pop(int(event["seq"]))
            self._record(self._from_env(e, seq, event["outcome"]))

    def _from_env(self, e: Execution, seq: int, data: dict[str, Any]) -> Outcome:
        try:
            status = Status(data.get("status"))
        except ValueError:
            status = Status.CRASH
        return self.outcome(
            e,
            seq,
            status,
            exc_type=data.get("exc_type"),
            message=str(data.get("message", "")),
            duration_s=float(data.get("duration_s", 0.0)),
            warnings=tuple(
                CapturedWarning(str(w["category"]), str(w["message"]), str(w["module"]))
                for w in data.get("warnings", [])
            ),
            traceback=str(data.get("traceback", "")),
            output=str(data.get("output", "")),
            note=str(data.get("note", "")),
            graded=str(data.get("graded", "")),
            parts=tuple(
                Part(
                    str(p.get("name", "")),
                    str(p.get("status", "")),
                    str(p.get("message", "")),
                    str(p.get("exc_type", "")),
                )
                for p in data.get("parts", [])
                if isinstance(p, dict)
            ),
            transport=data["transport"] if isinstance(data.get("transport"), dict) else {},
        )


def _decode(line: str) -> dict[str, Any] | None:
    try:
        data = json.loads(line)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


class _Drain:
    """Reads a pipe to its end on a thread, keeping the last lines."""

    def __init__(self, stream: Any, tail: deque[str]) -> None:
        import threading  # noqa: PLC0415 - only runs alongside a live runner

        self._thread = threading.Thread(target=lambda: tail.extend(stream), daemon=True)
        self._thread.start()

    def join(self) -> None:
        self._thread.join(timeout=5)
