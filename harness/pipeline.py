"""The main job: for each combo, build its env, run its executions, then write the reports.

One combo's failure never stops the next: an env that cannot be built becomes
``env_error`` outcomes, and whatever a run finished is on disk before it moves on.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness import reports
from harness.envs import EnvBuilder
from harness.results import SCHEMA_VERSION, OutcomeWriter, RunDir, write_json
from harness.runner import ComboRun, RunOptions, pair
from harness.versions import Index

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from harness.problems import Problem, Solution
    from harness.progress import Reporter
    from harness.reports.summary import Summary
    from harness.spec import Combo, MatrixSpec


@dataclass(frozen=True)
class Job:
    spec: MatrixSpec
    combos: Sequence[Combo]
    problems: Sequence[Problem]
    solutions: Sequence[Solution]
    run_dir: RunDir
    env_root: Path
    options: RunOptions = field(default_factory=RunOptions)
    inputs: Mapping[str, Any] = field(default_factory=dict)


def _write_manifest(job: Job) -> None:
    path = job.run_dir.manifest
    previous: dict[str, Any] = {}
    if path.is_file():
        previous = json.loads(path.read_text(encoding="utf-8"))
    combos = list(previous.get("combos", []))
    combos += [c.id for c in job.combos if c.id not in combos]
    write_json(
        path,
        {
            **previous,
            "schema": SCHEMA_VERSION,
            "run_id": job.run_dir.run_id,
            "started": previous.get("started") or dt.datetime.now(dt.timezone.utc).isoformat(),
            "matrix": str(job.spec.path),
            "baseline": job.spec.baseline,
            "combos": combos,
            "inputs": {**previous.get("inputs", {}), **job.inputs},
            "options": {
                "jobs": job.options.jobs,
                "timeout": job.options.timeout,
                "memory_mb": job.options.memory_mb,
            },
        },
    )


def run(job: Job, reporter: Reporter) -> Summary:
    job.run_dir.root.mkdir(parents=True, exist_ok=True)
    _write_manifest(job)
    builder = EnvBuilder(job.env_root, Index(job.spec.index_url), log=reporter.log)
    executions = pair(job.problems, job.solutions, job.options.repeat)
    for combo in job.combos:
        reporter.log(f"{combo.id}: preparing environment (Python {combo.python})")
        info, lock = builder.build(combo)
        if lock:
            job.run_dir.lock(combo.id).parent.mkdir(parents=True, exist_ok=True)
            job.run_dir.lock(combo.id).write_text(lock, encoding="utf-8")
        write_json(job.run_dir.env_info(combo.id), info.to_dict())
        reporter.env_ready(info)
        # A combo rerun under the same run id replaces its earlier outcomes.
        job.run_dir.outcomes(combo.id).unlink(missing_ok=True)
        reporter.combo_started(combo.id, len(executions))
        with OutcomeWriter(job.run_dir.outcomes(combo.id)) as writer:
            combo_run = ComboRun(job.run_dir.run_id, info, writer, job.options, reporter.outcome)
            combo_run.run(executions)
        if combo_run.executor:
            write_json(job.run_dir.executor_info(combo.id), combo_run.executor)
    return reports.write_reports(job.run_dir)
