"""Executor benchmark: fresh interpreters vs the zygote vs the compute floor, side by side.

    python benchmarks/executor.py                          # DS-1000 references + problems/
    python benchmarks/executor.py --limit 100 --jobs 1     # a quick look
    python benchmarks/executor.py --every 5 --jobs 2       # every 5th problem: all libraries

For each problem set and each ``-j``, in one run and one environment:

* fresh  — a new interpreter per execution (DS-1000's own grading);
* zygote — one fork per execution from a process that preloaded the libraries;
* floor  — the same programs exec'd one after another in warm processes, with no
  isolation at all: not a grader, the lower bound of what isolation can reach.

Wall times include each mode's start-up (the zygote's imports). Statuses of fresh and
zygote must be identical; every difference is listed.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from _envside import DATA, ENV_DIR, ROOT, environment, run_side

from harness.core.problem import REFERENCE, Problem, Solution
from harness.envs.build import ENVSIDE
from harness.execute.runner import Execution, RunOptions
from harness.problems import sets as problemsets

DS1000 = DATA / "ds1000" / "ds1000.jsonl.gz"


def run_mode(
    python: Path, executions: list[Execution], mode: str, jobs: int, before: str = ""
) -> tuple[float, dict[int, Any]]:
    options = RunOptions(jobs=jobs, isolation="fresh" if mode == "fresh" else "zygote")
    ran = run_side(
        python,
        executions,
        options,
        side=before if mode == "before" else str(ENVSIDE),
        command="floor" if mode == "floor" else "run",
    )
    return ran.wall_s, {index: o.to_json() for index, o in ran.outcomes.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matrix", default=str(ROOT / "matrix.toml"))
    parser.add_argument("--combo", default="ds1000-2024")
    parser.add_argument("--env-dir", default=ENV_DIR)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--limit", type=int, help="only the first N problems of each set")
    parser.add_argument(
        "--every", type=int, default=1, help="every K-th problem (a sample across libraries)"
    )
    parser.add_argument("--sets", nargs="+", default=["ds1000", "problems"])
    parser.add_argument("--modes", nargs="+", default=["fresh", "zygote", "floor"])
    parser.add_argument("--json", help="also write the raw numbers here")
    parser.add_argument(
        "--before",
        help="the env side of another checkout (its harness/envside/__main__.py): its zygote "
        "mode runs too, as 'before', taking turns with the others",
    )
    args = parser.parse_args()

    env = environment(args.matrix, args.combo, args.env_dir)
    sets: dict[str, list[Problem]] = {}
    if "ds1000" in args.sets and DS1000.is_file():
        sets["ds1000"] = problemsets.load_jsonl(DS1000)
    if "problems" in args.sets:
        sets["problems"] = problemsets.load_problems([ROOT / "problems"])
    print(
        f"machine: {platform.machine()}, {platform.processor() or '?'}; cores: "
        f"{subprocess.run(['nproc'], capture_output=True, text=True, check=False).stdout.strip()}; "
        f"env {args.combo}: Python {env.python}, "
        + ", ".join(f"{k} {v}" for k, v in env.library_versions().items())
    )
    raw: dict[str, Any] = {}
    rows = []
    for name, problems in sets.items():
        chosen = problems[:: args.every]
        chosen = chosen[: args.limit] if args.limit else chosen
        executions = [Execution(p, Solution(p.id, REFERENCE, p.reference_code)) for p in chosen]
        modes = [*args.modes, *(["before"] if args.before else [])]
        for turn, jobs in enumerate(args.jobs):
            # the modes take turns: who goes first rotates from one -j to the next, so that
            # a machine getting busier or quieter does not favour one mode throughout
            order = modes[turn % len(modes) :] + modes[: turn % len(modes)]
            ran = {
                mode: run_mode(env.python_exe, executions, mode, jobs, args.before or "")
                for mode in order
            }
            results = {mode: ran[mode] for mode in modes}
            raw[f"{name}-j{jobs}"] = {
                m: {"wall": w, "outcomes": o} for m, (w, o) in results.items()
            }
            walls = {m: w for m, (w, _) in results.items()}
            diffs = []
            if "fresh" in results and "zygote" in results:
                fresh, zygote = results["fresh"][1], results["zygote"][1]
                diffs = [
                    (executions[i].problem.id, fresh[i]["status"], zygote[i]["status"])
                    for i in range(len(executions))
                    if fresh[i]["status"] != zygote[i]["status"]
                ]
            overhead = None
            if "zygote" in results and "floor" in results:
                z, f = results["zygote"][1], results["floor"][1]
                overhead = statistics.median(
                    z[i]["duration_s"] - f[i]["duration_s"] for i in range(len(executions))
                )
            if "before" in results and "floor" in results:
                b, f = results["before"][1], results["floor"][1]
                then = statistics.median(
                    b[i]["duration_s"] - f[i]["duration_s"] for i in range(len(executions))
                )
                changed = sum(
                    b[i]["status"] != results["zygote"][1][i]["status"]
                    for i in range(len(executions))
                )
                print(
                    f"{name} -j {jobs}: before {walls['before']:.1f} s "
                    f"({walls['before'] / walls['floor']:.2f}× the floor), median overhead "
                    f"{then * 1000:.0f} ms; {changed} status differences with zygote"
                )
            rows.append((name, len(executions), jobs, walls, overhead, diffs))
    print()
    print(
        "| set | executions | -j | fresh s | zygote s | floor s | zygote / floor | fresh / zygote | median overhead (zygote - floor) | status differences |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, n, jobs, walls, overhead, diffs in rows:

        def cell(mode: str, walls: dict[str, float] = walls) -> str:
            return f"{walls[mode]:.1f}" if mode in walls else "–"

        zf = (
            f"{walls['zygote'] / walls['floor']:.2f}×" if {"zygote", "floor"} <= set(walls) else "–"
        )
        fz = (
            f"{walls['fresh'] / walls['zygote']:.1f}×" if {"fresh", "zygote"} <= set(walls) else "–"
        )
        oh = f"{overhead * 1000:.0f} ms" if overhead is not None else "–"
        print(
            f"| {name} | {n} | {jobs} | {cell('fresh')} | {cell('zygote')} | {cell('floor')} | {zf} | {fz} | {oh} | {len(diffs)} |"
        )
    for name, _, jobs, _, _, diffs in rows:
        for problem_id, fresh_status, zygote_status in diffs:
            print(
                f"difference ({name}, -j {jobs}): {problem_id}: fresh {fresh_status}, zygote {zygote_status}"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(raw, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
