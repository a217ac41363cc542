"""How busy an execution keeps a core: its process's CPU time against its wall time, per library.

    python benchmarks/busy.py                                   # DS-1000 references, every 5th
    python benchmarks/busy.py --set bigcodebench --limit 100 \\
        --matrix matrices/bigcodebench.toml --combo bigcodebench

Runs the chosen problems' references straight through the env side (zygote and sandbox as
shipped, ``-j 1`` by default) with the timing of phases on (``HARNESS_PHASES``), which
records for each execution the CPU time (user + system) of its process from its exit. The
share CPU / wall is what a core spends on an execution while it runs: where it is well
below 1 (sleeps, subprocesses, I/O), more executions at once than cores would fill the
idle time (issue #31, item 3). The CPU of processes an execution started and did not wait
for, and of a guarded answer's own process, is not counted (references run in theirs).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict

from _envside import ENV_DIR, ROOT, SETS, environment, run_side

from harness.core.problem import REFERENCE, Solution
from harness.execute.runner import Execution, RunOptions
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
    parser.add_argument("-j", "--jobs", type=int, default=1)
    args = parser.parse_args()
    matrix = spec.load(args.matrix)
    env = environment(args.matrix, args.combo, args.env_dir)
    chosen = problemsets.load_jsonl(SETS[args.set])[:: args.every][: args.limit]
    executions = [Execution(p, Solution(p.id, REFERENCE, p.reference_code)) for p in chosen]
    options = RunOptions(jobs=args.jobs, timeout=matrix.timeout)
    ran = run_side(env.python_exe, executions, options, phases=True)
    cpu = {entry["index"]: entry["cpu_s"] for entry in ran.marks}
    waited = {entry["index"]: entry.get("waited_s", 0.0) for entry in ran.marks}
    rows: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    for index, outcome in ran.outcomes.items():
        if cpu.get(index) is not None and outcome.duration_s:
            row = (cpu[index], outcome.duration_s, waited[index])
            rows[executions[index].problem.library].append(row)
            rows["all"].append(row)
    print(
        f"{args.combo}, {args.set}, {len(executions)} references, -j {args.jobs}, "
        f"wall {ran.wall_s:.1f} s"
    )
    print(
        "\n| library | executions | wall s (sum) | CPU s (sum) | waiting for a CPU s (sum) "
        "| CPU / wall | CPU / (wall − waiting) | median of that |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for library, group in sorted(rows.items(), key=lambda r: (r[0] == "all", -len(r[1]))):
        spent = sum(c for c, _, _ in group)
        took = sum(d for _, d, _ in group)
        queued = sum(w for _, _, w in group)
        median = statistics.median(c / max(d - w, 1e-6) for c, d, w in group)
        print(
            f"| {library} | {len(group)} | {took:.1f} | {spent:.1f} | {queued:.1f} "
            f"| {spent / took:.2f} | {spent / max(took - queued, 1e-6):.2f} | {median:.2f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
