"""What the per-execution benchmarks share: a batch run straight through an env side.

``executor.py``, ``sides.py``, ``phases.py``, ``busy.py`` and ``cores.py`` all skip the
host (no matrix run, no reports) and hand one batch file to an environment's env side, as
the runner does, then read the outcome lines back. This module is that one step, measured:
wall time, the CPU time of the process tree, every outcome, and the phase marks when asked.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from harness.envs.build import ENVSIDE, EnvBuilder, EnvInfo  # noqa: E402
from harness.envside import protocol  # noqa: E402
from harness.execute.runner import Execution, RunOptions, make_batch  # noqa: E402
from harness.matrix import spec  # noqa: E402

DATA = Path(os.environ.get("HARNESS_DATA", ROOT.parent / "shared" / "data"))
SETS = {
    "ds1000": DATA / "ds1000" / "ds1000.jsonl.gz",
    "bigcodebench": DATA / "bigcodebench" / "BigCodeBench-v0.1.5.jsonl.gz",
}
ENV_DIR = os.environ.get("HARNESS_ENV_DIR", str(ROOT / ".harness" / "envs"))


@dataclass(frozen=True)
class SideRun:
    """One batch through one env side."""

    wall_s: float
    # user + system of every process the run waited for (RUSAGE_CHILDREN): the env side,
    # its workers and their executions; a process nobody waited for is not counted
    cpu_s: float
    outcomes: dict[int, protocol.Record]  # by the execution's index in the batch
    marks: list[dict[str, Any]]  # HARNESS_PHASES entries, when asked for

    def statuses(self) -> dict[int, str]:
        return {index: outcome.status for index, outcome in self.outcomes.items()}


def environment(matrix: str, combo_id: str, env_dir: str = ENV_DIR) -> EnvInfo:
    """The combo's environment, built if missing; exits with a one-line reason if it cannot be."""
    combo = spec.load(matrix).by_id[combo_id]
    env, _ = EnvBuilder(Path(env_dir)).build(combo)
    if not env.ok:
        sys.exit(f"cannot build {combo.id}: {env.error}")
    return env


def run_side(
    python: Path,
    executions: list[Execution],
    options: RunOptions,
    *,
    side: str = str(ENVSIDE),
    command: str = "run",
    fixed: bool = True,
    phases: bool = False,
) -> SideRun:
    """Run ``executions`` through ``side`` (``run`` or ``floor``) in ``python``'s env.

    ``fixed`` keeps the pool at ``-j`` workers: the batch carries no ``max_jobs``, so no
    worker is added while cores sit idle (the per-execution figures), and the env sides
    written before busy cores (issue #31, item 3), which know no ``max_jobs``, read it too.
    ``phases`` switches the env side's timing marks on (``HARNESS_PHASES``).
    """
    data = make_batch(executions, options).to_json()
    if fixed:
        data["options"].pop("max_jobs")
    if not options.unsandboxed_answers:
        # its default, left out: env sides written before the key existed read the batch too
        data["options"].pop("unsandboxed_answers")
    with tempfile.TemporaryDirectory() as tmp:
        batch = Path(tmp) / "batch.json"
        batch.write_text(json.dumps(data))
        marks_file = Path(tmp) / "marks.jsonl"
        env = dict(os.environ, HARNESS_PHASES=str(marks_file)) if phases else None
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        proc = subprocess.run(
            [str(python), "-s", side, command, str(batch)],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        wall = time.monotonic() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        marks = (
            [json.loads(line) for line in marks_file.read_text().splitlines()]
            if phases and marks_file.exists()
            else []
        )
    outcomes = {}
    for text in proc.stdout.splitlines():
        line = protocol.read_line(text)
        if isinstance(line, protocol.OutcomeLine):
            outcomes[line.seq] = line.outcome
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return SideRun(wall, cpu, outcomes, marks)
