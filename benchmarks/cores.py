"""Busy cores: a fixed ``-j`` against workers added while cores sit idle, taking turns.

    python benchmarks/cores.py --set bigcodebench --every 11 --limit 100 \\
        --matrix matrices/bigcodebench.toml --combo bigcodebench --jobs 2 --rounds 2
    python benchmarks/cores.py --every 5 --jobs 2                 # DS-1000, 200 references

Runs the chosen problems' references straight through the env side (zygote, sandbox and
guard as shipped) in each mode per round: with ``-j`` workers only (``fixed``: the library
groups one after another) and with up to ``--burst`` workers while the machine's cores
sit idle (``burst``, the default of ``harness run``: three times ``-j``; a group's last
executions finishing beside the next group's first), the order reversing from round to
round so that a machine that gets busier or quieter weighs on all alike. Prints per mode the wall time of each
round, the CPU time of the whole process tree, and every execution whose status differs
between any two runs (the claim: none beyond flaky problems, timeouts included; an
execution's clock leaves out the time it waits for a CPU, envside/timing/clock.py).
"""

from __future__ import annotations

import argparse
import statistics
import sys

from _envside import ENV_DIR, ROOT, SETS, environment, run_side

from harness.core.problem import REFERENCE, Solution
from harness.execute.runner import BURST, Execution, RunOptions
from harness.matrix import spec
from harness.problems import sets as problemsets


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matrix", default=str(ROOT / "matrix.toml"))
    parser.add_argument("--combo", default="ds1000-2024")
    parser.add_argument("--env-dir", default=ENV_DIR)
    parser.add_argument("--set", choices=sorted(SETS), default="ds1000")
    parser.add_argument("--every", type=int, default=5, help="every K-th problem")
    parser.add_argument("--limit", type=int, help="then the first N")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument(
        "--burst",
        type=int,
        action="append",
        help="most workers at once (default: three times -j); repeat to compare ceilings",
    )
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    source = SETS[args.set]
    if not source.is_file():
        print(f"skipped: {source} is absent", file=sys.stderr)
        return 0
    matrix = spec.load(args.matrix)
    env = environment(args.matrix, args.combo, args.env_dir)
    chosen = problemsets.load_jsonl(source)[:: args.every][: args.limit]
    executions = [Execution(p, Solution(p.id, REFERENCE, p.reference_code)) for p in chosen]
    bursts = args.burst or [BURST * args.jobs]
    modes = {"fixed": RunOptions(jobs=args.jobs, burst_jobs=args.jobs, timeout=matrix.timeout)}
    for burst in bursts:
        name = "burst" if len(bursts) == 1 else f"burst {burst}"
        modes[name] = RunOptions(jobs=args.jobs, burst_jobs=burst, timeout=matrix.timeout)
    walls: dict[str, list[float]] = {mode: [] for mode in modes}
    cpus: dict[str, list[float]] = {mode: [] for mode in modes}
    runs: list[tuple[str, dict[int, str]]] = []
    for turn in range(args.rounds):
        order = list(modes) if turn % 2 == 0 else list(reversed(modes))
        for mode in order:
            ran = run_side(env.python_exe, executions, modes[mode], fixed=False)
            walls[mode].append(ran.wall_s)
            cpus[mode].append(ran.cpu_s)
            runs.append((mode, ran.statuses()))
            print(
                f"round {turn + 1}, {mode}: {ran.wall_s:.1f} s wall, {ran.cpu_s:.1f} s CPU",
                flush=True,
            )
    print(
        f"\n{args.combo}, {args.set}, {len(executions)} references, -j {args.jobs}, "
        f"burst up to {', '.join(map(str, bursts))}, {args.rounds} rounds\n"
    )
    print("| mode | wall s, each round | mean wall s | CPU s, each round | wall / fixed |")
    print("| --- | --- | ---: | --- | ---: |")
    fixed = statistics.mean(walls["fixed"])
    for mode in modes:
        mean = statistics.mean(walls[mode])
        each = ", ".join(f"{w:.1f}" for w in walls[mode])
        spent = ", ".join(f"{c:.1f}" for c in cpus[mode])
        print(f"| {mode} | {each} | {mean:.1f} | {spent} | {mean / fixed:.2f} |")
    differing = sorted(
        index
        for index in range(len(executions))
        if len({statuses.get(index, "missing") for _, statuses in runs}) > 1
    )
    print(f"\nexecutions whose status differs between runs: {len(differing)}")
    for index in differing:
        seen = ", ".join(f"{mode} {statuses.get(index, 'missing')}" for mode, statuses in runs)
        print(f"  {executions[index].problem.id}: {seen}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
