"""Busy cores: a fixed ``-j`` against workers added while cores sit idle, taking turns.

    python benchmarks/cores.py --set bigcodebench --every 11 --limit 100 \\
        --matrix matrices/bigcodebench.toml --combo bigcodebench --jobs 2 --rounds 2
    python benchmarks/cores.py --every 5 --jobs 2                 # DS-1000, 200 references

Runs the chosen problems' references straight through the env side (zygote, sandbox and
guard as shipped) twice per round: with ``-j`` workers only (``fixed``) and with up to
``--burst`` workers while the machine's cores sit idle (``burst``, the default of
``harness run``: twice ``-j``), the order swapping from round to round so that a machine
that gets busier or quieter weighs on both alike. Prints per mode the wall time of each
round, the CPU time of the whole process tree, and every execution whose status differs
between any two runs (the claim: none beyond flaky problems, timeouts included; an
execution's clock leaves out the time it waits for a CPU, envside/clock.py).
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.core.problem import REFERENCE, Solution  # noqa: E402
from harness.envs.build import ENVSIDE, EnvBuilder  # noqa: E402
from harness.envside import protocol  # noqa: E402
from harness.execute.runner import Execution, RunOptions, make_batch  # noqa: E402
from harness.matrix import spec  # noqa: E402
from harness.problems import sets as problemsets  # noqa: E402

DATA = Path(os.environ.get("HARNESS_DATA", ROOT.parent / "shared" / "data"))
SETS = {
    "ds1000": DATA / "ds1000" / "ds1000.jsonl.gz",
    "bigcodebench": DATA / "bigcodebench" / "BigCodeBench-v0.1.5.jsonl.gz",
}


def run(
    python: Path, executions: list[Execution], options: RunOptions
) -> tuple[float, float, dict[int, str]]:
    """One run: wall seconds, CPU seconds of the process tree, status by execution."""
    with tempfile.TemporaryDirectory() as tmp:
        batch = Path(tmp) / "batch.json"
        batch.write_text(json.dumps(make_batch(executions, options).to_json()))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        proc = subprocess.run(
            [str(python), "-s", str(ENVSIDE), "run", str(batch)],
            capture_output=True,
            text=True,
            check=True,
        )
        wall = time.monotonic() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    statuses = {}
    for line in proc.stdout.splitlines():
        parsed = protocol.read_line(line)
        if isinstance(parsed, protocol.OutcomeLine):
            statuses[parsed.seq] = parsed.outcome.status
    return wall, cpu, statuses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matrix", default=str(ROOT / "matrix.toml"))
    parser.add_argument("--combo", default="ds1000-2024")
    parser.add_argument("--env-dir", default=os.environ.get("HARNESS_ENV_DIR", ".harness/envs"))
    parser.add_argument("--set", choices=sorted(SETS), default="ds1000")
    parser.add_argument("--every", type=int, default=5, help="every K-th problem")
    parser.add_argument("--limit", type=int, help="then the first N")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--burst", type=int, help="most workers at once (default: twice -j)")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    source = SETS[args.set]
    if not source.is_file():
        print(f"skipped: {source} is absent", file=sys.stderr)
        return 0
    matrix = spec.load(args.matrix)
    combo = matrix.by_id[args.combo]
    env, _ = EnvBuilder(Path(args.env_dir)).build(combo)
    if not env.ok:
        print(f"cannot build {combo.id}: {env.error}", file=sys.stderr)
        return 1
    chosen = problemsets.load_jsonl(source)[:: args.every][: args.limit]
    executions = [Execution(p, Solution(p.id, REFERENCE, p.reference_code)) for p in chosen]
    burst = args.burst or 2 * args.jobs
    modes = {
        "fixed": RunOptions(jobs=args.jobs, burst_jobs=args.jobs, timeout=matrix.timeout),
        "burst": RunOptions(jobs=args.jobs, burst_jobs=burst, timeout=matrix.timeout),
    }
    walls: dict[str, list[float]] = {mode: [] for mode in modes}
    cpus: dict[str, list[float]] = {mode: [] for mode in modes}
    runs: list[tuple[str, dict[int, str]]] = []
    for turn in range(args.rounds):
        order = list(modes) if turn % 2 == 0 else list(reversed(modes))
        for mode in order:
            wall, cpu, statuses = run(env.python_exe, executions, modes[mode])
            walls[mode].append(wall)
            cpus[mode].append(cpu)
            runs.append((mode, statuses))
            print(f"round {turn + 1}, {mode}: {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
    print(
        f"\n{combo.id}, {args.set}, {len(executions)} references, -j {args.jobs}, "
        f"burst up to {burst}, {args.rounds} rounds\n"
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
