"""Two env sides and the compute floor, taking turns, with the CPU time of each run.

    mkdir -p /tmp/before && git archive 0e63fd4 harness | tar -x -C /tmp/before
    python benchmarks/sides.py --before /tmp/before/harness/envside/__main__.py \
        --every 10 --jobs 1 --rounds 3

Runs every ``--every``-th DS-1000 reference, straight through the env side (as
``benchmarks/executor.py`` does), in ``--combo``'s environment: with this checkout's env
side, with the one at ``--before``, and through the floor (no isolation), ``--rounds``
times each, the order rotating from round to round so that a machine that gets busier
or quieter weighs on all three alike. Prints, per side, the mean wall time, the CPU time
of the whole process tree (user + system, every round), the ratio to the floor, the
median overhead per execution over the floor and the status differences from it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.core.problem import REFERENCE, Solution  # noqa: E402
from harness.envs.build import ENVSIDE, EnvBuilder  # noqa: E402
from harness.envside import protocol  # noqa: E402
from harness.execute.runner import Execution, RunOptions, make_batch  # noqa: E402
from harness.matrix import spec  # noqa: E402
from harness.problems import sets as problemsets  # noqa: E402

DS1000 = ROOT.parent / "shared" / "data" / "ds1000" / "ds1000.jsonl.gz"


def run(
    python: Path, side: str, command: str, executions: list[Execution], jobs: int
) -> tuple[float, float, dict[int, Any]]:
    """One run of ``executions``: wall seconds, CPU seconds of the tree, outcomes by seq."""
    with tempfile.TemporaryDirectory() as tmp:
        batch = Path(tmp) / "batch.json"
        # a fixed -j (no workers added while cores sit idle: the per-execution figures), as the
        # env sides before issue #31's item 3 read a batch (they know no ``max_jobs``)
        data = make_batch(executions, RunOptions(jobs=jobs)).to_json()
        data["options"].pop("max_jobs")
        batch.write_text(json.dumps(data))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        proc = subprocess.run(
            [str(python), "-s", side, command, str(batch)],
            capture_output=True,
            text=True,
            check=True,
        )
        wall = time.monotonic() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    outcomes = {}
    for line in proc.stdout.splitlines():
        parsed = protocol.read_line(line)
        if isinstance(parsed, protocol.OutcomeLine):
            outcomes[parsed.seq] = parsed.outcome.to_json()
    return wall, cpu, outcomes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, help="another checkout's envside/__main__.py")
    parser.add_argument("--matrix", default=str(ROOT / "matrix.toml"))
    parser.add_argument("--combo", default="ds1000-2024")
    parser.add_argument("--env-dir", default=str(ROOT / ".harness" / "envs"))
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if not DS1000.exists():
        print(f"skipped: {DS1000} is absent", file=sys.stderr)
        return 0
    combo = spec.load(args.matrix).by_id[args.combo]
    env, _ = EnvBuilder(Path(args.env_dir)).build(combo)
    if not env.ok:
        print(f"cannot build {combo.id}: {env.error}", file=sys.stderr)
        return 1
    problems = problemsets.load_jsonl(DS1000)[:: args.every]
    executions = [Execution(p, Solution(p.id, REFERENCE, p.reference_code)) for p in problems]
    sides = {"before": (args.before, "run"), "after": (str(ENVSIDE), "run")}
    sides["floor"] = (str(ENVSIDE), "floor")
    names = list(sides)
    runs: dict[str, list[tuple[float, float, dict[int, Any]]]] = {n: [] for n in names}
    for r in range(args.rounds):
        for name in names[r % 3 :] + names[: r % 3]:
            side, command = sides[name]
            runs[name].append(run(env.python_exe, side, command, executions, args.jobs))
    print(f"{len(executions)} references, -j {args.jobs}, {args.rounds} rounds, {args.combo}")
    print(f"load average at the end: {os.getloadavg()}")
    floor = runs["floor"]
    for name in names:
        walls = [w for w, _, _ in runs[name]]
        cpus = ", ".join(f"{c:.1f}" for _, c, _ in runs[name])
        ratio = statistics.mean(w / f[0] for w, f in zip(walls, floor, strict=True))
        overhead = statistics.mean(
            statistics.median(o[i]["duration_s"] - fo[i]["duration_s"] for i in o)
            for (_, _, o), (_, _, fo) in zip(runs[name], floor, strict=True)
        )
        differ = sum(
            1 for _, _, o in runs[name] for i in o if o[i]["status"] != floor[0][2][i]["status"]
        )
        print(
            f"{name:6s} wall {statistics.mean(walls):6.1f} s  CPU {cpus} s  "
            f"/floor {ratio:.2f}  median overhead {overhead * 1000:5.1f} ms  "
            f"status differences from the floor {differ}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
