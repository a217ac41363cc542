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
import os
import statistics
import sys

from _envside import DATA, ENV_DIR, ROOT, SideRun, environment, run_side

from harness.core.problem import REFERENCE, Solution
from harness.envs.build import ENVSIDE
from harness.execute.runner import Execution, RunOptions
from harness.problems import sets as problemsets

DS1000 = DATA / "ds1000" / "ds1000.jsonl.gz"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, help="another checkout's envside/__main__.py")
    parser.add_argument("--matrix", default=str(ROOT / "matrix.toml"))
    parser.add_argument("--combo", default="ds1000-2024")
    parser.add_argument("--env-dir", default=ENV_DIR)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if not DS1000.exists():
        print(f"skipped: {DS1000} is absent", file=sys.stderr)
        return 0
    env = environment(args.matrix, args.combo, args.env_dir)
    problems = problemsets.load_jsonl(DS1000)[:: args.every]
    executions = [Execution(p, Solution(p.id, REFERENCE, p.reference_code)) for p in problems]
    options = RunOptions(jobs=args.jobs)
    sides = {  # name: (env side, command)
        "before": (args.before, "run"),
        "after": (str(ENVSIDE), "run"),
        "floor": (str(ENVSIDE), "floor"),
    }
    names = list(sides)
    runs: dict[str, list[SideRun]] = {n: [] for n in names}
    for r in range(args.rounds):
        for name in names[r % 3 :] + names[: r % 3]:
            side, command = sides[name]
            runs[name].append(
                run_side(env.python_exe, executions, options, side=side, command=command)
            )
    print(f"{len(executions)} references, -j {args.jobs}, {args.rounds} rounds, {args.combo}")
    print(f"load average at the end: {os.getloadavg()}")
    floor = runs["floor"]
    for name in names:
        walls = [r.wall_s for r in runs[name]]
        cpus = ", ".join(f"{r.cpu_s:.1f}" for r in runs[name])
        ratio = statistics.mean(w / f.wall_s for w, f in zip(walls, floor, strict=True))
        overhead = statistics.mean(
            statistics.median(
                r.outcomes[i].duration_s - f.outcomes[i].duration_s for i in r.outcomes
            )
            for r, f in zip(runs[name], floor, strict=True)
        )
        base = floor[0].statuses()
        differ = sum(1 for r in runs[name] for i, s in r.statuses().items() if s != base[i])
        print(
            f"{name:6s} wall {statistics.mean(walls):6.1f} s  CPU {cpus} s  "
            f"/floor {ratio:.2f}  median overhead {overhead * 1000:5.1f} ms  "
            f"status differences from the floor {differ}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
