"""A job's executions, combo after combo, into its run directory.

A :class:`Job` is what to run (combos, problems, solutions, options) and where (the run
directory, the env root). :func:`execute` builds each combo's environment, has the guard
admit what the references' values use there (``admission.py``), runs every execution
not yet recorded (``--resume``) and appends each outcome to the combo's file the moment it
arrives. One combo's failure never stops the next: an env that cannot be built becomes
``env_error`` outcomes.
"""

from __future__ import annotations

import datetime as dt
import sys
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from harness.core.errors import HarnessError, UsageError
from harness.core.problem import MODEL_PREFIX, REFERENCE, Solution
from harness.core.results import OutcomeWriter, repair_outcomes
from harness.execute import admission, expected
from harness.execute.rundir import RecordedOptions, RunDir, RunInputs, RunManifest
from harness.execute.runner import (
    ComboRun,
    Execution,
    RunOptions,
    SandboxState,
    ask_sandbox,
    pair,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from harness.core.problem import Problem
    from harness.core.results import Outcome
    from harness.envs.build import EnvBuilder, EnvInfo
    from harness.execute.progress import Reporter
    from harness.matrix.spec import Combo, MatrixSpec


@dataclass(frozen=True)
class Job:
    spec: MatrixSpec
    combos: Sequence[Combo]
    problems: Sequence[Problem]
    solutions: Sequence[Solution]
    run_dir: RunDir
    env_root: Path
    options: RunOptions = field(default_factory=RunOptions)
    inputs: RunInputs = field(default_factory=RunInputs)
    # continue an interrupted run: keep the outcomes on disk, run only what is missing
    resume: bool = False
    # --own-envs: the combo each problem runs in (and only there); empty: every combo
    placement: Mapping[str, str] = field(default_factory=dict)


def _write_manifest(job: Job) -> None:
    previous = job.run_dir.read_manifest()
    combos = list(previous.combos) if previous else []
    combos += [c.id for c in job.combos if c.id not in combos]
    job.run_dir.write_manifest(
        RunManifest(
            run_id=job.run_dir.run_id,
            started=(previous.started if previous else None) or _now(),
            finished=None,  # set when the run completes: a run without it can be resumed
            matrix=str(job.spec.path),
            baseline=job.spec.baseline,
            combos=tuple(combos),
            inputs=job.inputs,
            options=RecordedOptions.of(job.options),
        )
    )


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat()


def _has_answers(job: Job) -> bool:
    return any(s.source.startswith(MODEL_PREFIX) for s in job.solutions)


def require_sandbox(job: Job, python: str | Path = sys.executable) -> SandboxState | None:
    """Stop a job with model answers before anything runs where they could not run in the
    sandbox, unless it allows them out of it (``--allow-unsandboxed-answers``): one line
    naming the cause and the fix. The env side asked is the one every batch runs (on this
    interpreter: namespaces are the kernel's, the same for every combo's); each batch's
    env side refuses such answers itself too. What it said, or None when not asked
    (references alone, trusted, run either way)."""
    if job.options.unsandboxed_answers or not _has_answers(job):
        return None
    if not job.options.sandbox:
        raise UsageError(
            "--no-sandbox would run model answers unsandboxed: add "
            "--allow-unsandboxed-answers to run them so, or drop --no-sandbox"
        )
    state = ask_sandbox(python, job.options)
    if state.refused:
        raise HarnessError(
            "sandbox",
            None,
            f"refused on this machine ({state.sandbox}), and model answers run only in it; "
            f"fix: {state.fix}, or pass --allow-unsandboxed-answers to run them unsandboxed",
        )
    return state


def _say_unsandboxed(job: Job, combo: str, executor: dict[str, Any], reporter: Reporter) -> None:
    """Model answers are untrusted: say what became of them where the sandbox was off."""
    state = executor.get("sandbox", "on")
    if state == "on" or not _has_answers(job):
        return
    if job.options.unsandboxed_answers:
        reporter.log(
            f"{combo}: warning: model answers ran without the sandbox ({state}), "
            "as --allow-unsandboxed-answers allows"
        )
    else:
        reporter.log(f"{combo}: model answers not run: the sandbox is refused here ({state})")


def _todo(
    job: Job, combo: str, executions: Sequence[Execution], reporter: Reporter
) -> list[tuple[int, Execution]]:
    """The executions (with their sequence numbers) still to run for ``combo``."""
    path = job.run_dir.outcomes(combo)
    if not job.resume:
        # A combo rerun under the same run id replaces its earlier outcomes.
        path.unlink(missing_ok=True)
        return list(enumerate(executions))
    done, dropped = repair_outcomes(path)
    if dropped:
        reporter.log(f"{combo}: dropped {dropped} unreadable line(s) of {path.name} (cut off)")
    keys = {(o.problem_id, o.source, o.attempt) for o in done}
    return [
        (seq, e)
        for seq, e in enumerate(executions)
        if (e.problem.id, e.solution.source, e.attempt) not in keys
    ]


def _plain_reference(execution: Execution, job: Job) -> bool:
    return (
        execution.solution.source == REFERENCE
        and execution.attempt == 0
        and job.options.repeat == 1
    )


def _admitting(
    job: Job, combo: str, info: EnvInfo, executions: Sequence[Execution], reporter: Reporter
) -> tuple[RunOptions, Mapping[str, Outcome]]:
    """The run's options for ``combo``, its checker admitting what the references'
    values use in this environment beyond the shipped allowlist, and grading in the
    answer's process the tasks whose reference does not grade the same across the
    boundary (``admission.py``); and the references' outcomes it ran in one process."""
    if not job.options.measured_admission:
        return job.options, {}
    admitted = admission.measure(
        job.env_root, info, executions, job.options, job.run_dir.run_id, reporter
    )
    if admitted.measured:
        reporter.log(
            f"{combo}: measured what {admitted.measured} references' values use "
            f"({admitted.cached} kept from before): {admitted.lines} name(s) beyond the "
            "shipped allowlist"
        )
    if admitted.in_process:
        reporter.log(
            f"{combo}: {len(admitted.in_process)} task(s) graded in the answer's own process "
            "(their reference does not grade the same across the boundary)"
        )
    options = replace(job.options, in_process=tuple(sorted(admitted.in_process.items())))
    if not admitted.text:
        return options, admitted.references
    job.run_dir.write_admission(combo, admitted.text)
    extra = "\n".join(t for t in (options.allowlist_extra, admitted.text) if t)
    return replace(options, allowlist_extra=extra), admitted.references


def mark_finished(job: Job) -> None:
    manifest = job.run_dir.read_manifest()
    if manifest is not None:  # written when the run started
        job.run_dir.write_manifest(replace(manifest, finished=_now()))


def execute(job: Job, builder: EnvBuilder, reporter: Reporter) -> None:
    """Run the job's executions, combo after combo, each outcome appended to its combo's
    file the moment it arrives; a combo whose env cannot be built gets ``env_error``
    outcomes and the next one runs."""
    job.run_dir.root.mkdir(parents=True, exist_ok=True)
    _write_manifest(job)
    # reports count the old APIs model answers use: keep them with the run
    job.run_dir.write_answers(job.solutions)
    # CIBench's sessions without published outputs: derived once, in the baseline
    problems = expected.for_run(job.problems, job.spec, job.combos, builder, job.run_dir, reporter)
    executions = pair(problems, job.solutions, job.options.repeat)
    for combo in job.combos:
        todo = _todo(job, combo.id, executions, reporter)
        if job.placement:  # each problem in its own combo only
            todo = [(seq, e) for seq, e in todo if job.placement.get(e.problem.id) == combo.id]
        if not todo:
            reporter.log(f"{combo.id}: all {len(executions)} outcomes already recorded")
            continue
        reporter.log(f"{combo.id}: preparing environment (Python {combo.python})")
        # a resumed combo runs in the very env its first part ran in
        resumed_lock = job.run_dir.read_lock(combo.id) if job.resume else ""
        info, lock = builder.build(combo, resumed_lock)
        if lock:
            job.run_dir.write_lock(combo.id, lock)
        job.run_dir.write_env(combo.id, info)
        reporter.env_ready(info)
        options, ran = _admitting(job, combo.id, info, [e for _, e in todo], reporter)
        reporter.combo_started(combo.id, len(todo))
        with OutcomeWriter(job.run_dir.outcomes(combo.id)) as writer:
            combo_run = ComboRun(job.run_dir.run_id, info, writer, options, reporter.outcome)
            # references the admission just ran in one process are not run twice
            for seq, e in todo:
                done = ran.get(e.problem.id) if _plain_reference(e, job) else None
                if done is not None:
                    combo_run.record(replace(done, seq=seq))
            todo = [
                (s, e) for s, e in todo if not (_plain_reference(e, job) and e.problem.id in ran)
            ]
            combo_run.run([e for _, e in todo], [seq for seq, _ in todo])
        if combo_run.executor:
            job.run_dir.write_executor(combo.id, combo_run.executor)
            _say_unsandboxed(job, combo.id, combo_run.executor, reporter)
