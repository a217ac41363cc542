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
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matrix", default=str(ROOT / "matrix.toml"))
    parser.add_argument("--combo", default="ds1000-2024")
    parser.add_argument("--env-dir", default=os.environ.get("HARNESS_ENV_DIR", ".harness/envs"))
    parser.add_argument("--set", choices=sorted(SETS), default="ds1000")
    parser.add_argument("--every", type=int, default=5, help="every K-th problem")
    parser.add_argument("--limit", type=int, help="then the first N")
    parser.add_argument("-j", "--jobs", type=int, default=1)
    args = parser.parse_args()
    matrix = spec.load(args.matrix)
    combo = matrix.by_id[args.combo]
    env, _ = EnvBuilder(Path(args.env_dir)).build(combo)
    if not env.ok:
        print(f"cannot build {combo.id}: {env.error}", file=sys.stderr)
        return 1
    chosen = problemsets.load_jsonl(SETS[args.set])[:: args.every][: args.limit]
    executions = [Execution(p, Solution(p.id, REFERENCE, p.reference_code)) for p in chosen]
    options = RunOptions(jobs=args.jobs, timeout=matrix.timeout)
    with tempfile.TemporaryDirectory() as tmp:
        batch = Path(tmp) / "batch.json"
        # a fixed -j (no workers added while cores sit idle: the per-execution figures), as the
        # env sides before issue #31's item 3 read a batch (they know no ``max_jobs``)
        data = make_batch(executions, options).to_json()
        data["options"].pop("max_jobs")
        batch.write_text(json.dumps(data))
        marks = Path(tmp) / "marks.jsonl"
        start = time.monotonic()
        proc = subprocess.run(
            [str(env.python_exe), "-s", str(ENVSIDE), "run", str(batch)],
            capture_output=True,
            text=True,
            check=True,
            env=dict(os.environ, HARNESS_PHASES=str(marks)),
        )
        wall = time.monotonic() - start
        entries = [json.loads(line) for line in marks.open()]
        cpu = {entry["index"]: entry["cpu_s"] for entry in entries}
        waited = {entry["index"]: entry.get("waited_s", 0.0) for entry in entries}
    outcomes = {}
    for text in proc.stdout.splitlines():
        line = protocol.read_line(text)
        if isinstance(line, protocol.OutcomeLine):
            outcomes[line.seq] = line.outcome
    rows: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    for index, outcome in outcomes.items():
        if cpu.get(index) is not None and outcome.duration_s:
            row = (cpu[index], outcome.duration_s, waited[index])
            rows[executions[index].problem.library].append(row)
            rows["all"].append(row)
    print(
        f"{combo.id}, {args.set}, {len(executions)} references, -j {args.jobs}, wall {wall:.1f} s"
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
