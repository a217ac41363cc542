"""BigCodeBench at full scale: the ground truth per combo against upstream's 99%, and
where a run's time goes.

    harness run --matrix matrices/bigcodebench.toml \\
        --problems ../shared/data/bigcodebench/BigCodeBench-v0.1.5.jsonl.gz --run-id bcb
    python benchmarks/bigcodebench.py results/bcb

Prints, per combo: the canonical solutions' statuses and pass rate (of those that ran;
and without the tasks this machine cannot grade: network, a library's data, a program),
the classes of what did not pass, the environment (build or reuse time, size on disk,
packages left out), and the time: the run's wall time from its manifest, executions per
second, the summed execution time, and the libraries and tasks that took the most.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.analysis.causes import Cause, diagnose  # noqa: E402
from harness.core.problem import REFERENCE  # noqa: E402
from harness.core.results import Status  # noqa: E402
from harness.execute.rundir import RunDir  # noqa: E402

UNGRADABLE = (Cause.NEEDS_NETWORK, Cause.NEEDS_DATA, Cause.NEEDS_TOOL)
UPSTREAM_THRESHOLD = 0.99


def size(path: Path) -> int:
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            with_path = Path(root) / name
            if not with_path.is_symlink():
                total += with_path.stat().st_size
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    args = parser.parse_args()
    run = RunDir(args.run)
    manifest = run.read_manifest()
    outcomes = [o for o in run.read_all() if o.attempt == 0 and o.source == REFERENCE]
    combos = list(manifest.combos) if manifest else sorted({o.combo for o in outcomes})
    envs = run.read_envs(combos)

    print("## Ground truth per combo (canonical solutions)\n")
    print(
        "| combo | ran | pass | pass rate | gradable here | pass rate of those | vs 99% | not passing |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for combo in combos:
        mine = [o for o in outcomes if o.combo == combo]
        ran = [o for o in mine if o.status not in (Status.SKIPPED, Status.ENV_ERROR)]
        passed = [o for o in ran if o.status is Status.PASS]
        why: Counter[str] = Counter()
        ungradable = 0
        for o in ran:
            if o.status is Status.PASS:
                continue
            found = diagnose(o)
            cause = found.cause if found else None
            ungradable += cause in UNGRADABLE
            why[cause.value if cause else o.status.value] += 1
        skipped = len(mine) - len(ran)
        if skipped:
            why["skipped"] = skipped
        gradable = len(ran) - ungradable
        rate = len(passed) / len(ran) if ran else 0.0
        rate_g = len(passed) / gradable if gradable else 0.0
        mark = "≥" if rate_g >= UPSTREAM_THRESHOLD else "<"
        shown = ", ".join(f"{k} {n}" for k, n in why.most_common())
        print(
            f"| `{combo}` | {len(ran)} | {len(passed)} | {rate:.1%} | {gradable} | "
            f"{rate_g:.1%} | {mark} 99% | {shown} |"
        )

    print("\n## Environments\n")
    print("| combo | Python | built (s) | reused | on disk (GiB) | left out |")
    print("| --- | --- | ---: | --- | ---: | --- |")
    for combo in combos:
        env = envs.get(combo)
        if env is None:
            continue
        on_disk = size(Path(env.path)) / 2**30 if env.path and Path(env.path).is_dir() else 0.0
        left = ", ".join(sorted(getattr(env, "dropped", {}) or {})) or "–"
        print(
            f"| `{combo}` | {env.python} | {env.build_s:.0f} | {'yes' if env.reused else 'no'} | "
            f"{on_disk:.1f} | {left} |"
        )

    print("\n## Time\n")
    every = [o for o in run.read_all() if o.attempt == 0]
    if manifest and manifest.started and manifest.finished:
        started = dt.datetime.fromisoformat(manifest.started)
        finished = dt.datetime.fromisoformat(manifest.finished)
        wall = (finished - started).total_seconds()
        print(
            f"Wall time {wall / 60:.1f} min for {len(every)} executions: "
            f"{len(every) / wall:.2f} executions/s (environments included)."
        )
    summed = sum(o.duration_s for o in every)
    jobs = manifest.options.jobs if manifest and manifest.options else 1
    print(f"Summed execution time {summed / 60:.1f} min ({jobs} at a time).\n")
    by_library: dict[str, float] = defaultdict(float)
    for o in every:
        by_library[o.library] += o.duration_s
    print("| library (the task's) | executions | time (min) | share |")
    print("| --- | ---: | ---: | ---: |")
    counts = Counter(o.library for o in every)
    for library, seconds in sorted(by_library.items(), key=lambda kv: -kv[1]):
        print(f"| {library} | {counts[library]} | {seconds / 60:.1f} | {seconds / summed:.0%} |")
    slowest = sorted(every, key=lambda o: -o.duration_s)[:10]
    print(
        "\nSlowest executions: "
        + ", ".join(
            f"{o.problem_id.rsplit('/', 1)[-1]}@{o.combo} {o.duration_s:.0f} s ({o.status.value})"
            for o in slowest
        )
    )


if __name__ == "__main__":
    main()
