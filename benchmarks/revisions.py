"""What a change to the harness costs, and which honest outcomes it changes: two revisions
side by side on the same DS-1000 slice.

    python benchmarks/revisions.py BEFORE [AFTER] [--combo ds1000-2024]
        [--library Pandas --library Numpy] [--models codex002] [--rounds 2]

Each revision is checked out (``git worktree``) into a temporary folder and run from
there (``python -m harness`` with that folder first on the path, this checkout's
installed dependencies); both share one environment folder, so neither pays for building
the combo. The two take turns library by library, the order swapping each turn, for
``--rounds`` rounds, so that a machine that gets busier or quieter weighs on both alike.
Prints the wall-clock time and the sum of the executions' own durations of each, as ratios
of AFTER to BEFORE, and every execution whose status differs between them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from guard import DATA, LIBRARIES, outcomes

ROOT = Path(__file__).resolve().parents[1]


def checkout(revision: str, into: Path) -> Path:
    subprocess.run(
        ["git", "worktree", "add", "--detach", "--quiet", str(into), revision],
        cwd=ROOT,
        check=True,
    )
    return into


def run(tree: Path, args: argparse.Namespace, results: Path, run_id: str, library: str) -> float:
    answers = [str(DATA / "answers" / f"{m}-answers.jsonl") for m in args.models.split(",") if m]
    command = [
        sys.executable, "-m", "harness", "run",
        "--problems", str(DATA / "ds1000.jsonl.gz"),
        "--combos", args.combo,
        "--results", str(results),
        "--env-dir", str(args.env_dir),
        "--run-id", run_id,
        "--no-history", "--quiet",
        "-j", str(args.jobs),
        "--library", library,
        *[a for path in answers for a in ("--answers", path)],
    ]  # fmt: skip
    environ = {**os.environ, "PYTHONPATH": str(tree)}
    start = time.perf_counter()
    subprocess.run(command, cwd=tree, env=environ, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", help="a git revision: the baseline")
    parser.add_argument("after", nargs="?", default="HEAD", help="a git revision (HEAD)")
    parser.add_argument("--combo", default="ds1000-2024")
    parser.add_argument("--models", default="codex002")
    parser.add_argument("--library", action="append", default=[], choices=LIBRARIES)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument(
        "--env-dir", type=Path, default=Path(os.environ.get("HARNESS_ENV_DIR", ROOT / ".envs"))
    )
    args = parser.parse_args()
    if not (DATA / "ds1000.jsonl.gz").is_file():
        print(f"DS-1000 not found at {DATA}", file=sys.stderr)
        return 2
    libraries = args.library or ["Pandas", "Numpy"]
    names = {"before": args.before, "after": args.after}
    with tempfile.TemporaryDirectory() as tmp:
        trees = {n: checkout(r, Path(tmp) / n) for n, r in names.items()}
        try:
            results = Path(tmp) / "results"
            # one run of each first, not counted: the environment built or found, and each
            # revision's one-time work on it (the guard's admission measure) done
            for name, tree in trees.items():
                run(tree, args, results, f"warm-{name}", libraries[0])
            walls = dict.fromkeys(trees, 0.0)
            runs: dict[str, dict[tuple[str, str], dict[str, Any]]] = {n: {} for n in trees}
            sums = dict.fromkeys(trees, 0.0)
            turn = 0
            for round_ in range(args.rounds):
                for library in libraries:
                    order = list(trees) if turn % 2 == 0 else list(trees)[::-1]
                    turn += 1
                    for name in order:
                        run_id = f"{name}-{library.lower()}-{round_}"
                        walls[name] += run(trees[name], args, results, run_id, library)
                        found = outcomes(results / run_id / f"{args.combo}.jsonl")
                        sums[name] += sum(float(r["duration_s"]) for r in found.values())
                        if round_ == 0:
                            runs[name].update(found)
        finally:
            for tree in trees.values():
                subprocess.run(
                    ["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False
                )
    revisions = {
        n: subprocess.run(
            ["git", "rev-parse", "--short", r], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        for n, r in names.items()
    }
    count = len(runs["before"])
    print(
        f"{count} executions per revision and round ({args.combo}, {', '.join(libraries)}; "
        f"{args.models}; -j {args.jobs}; {args.rounds} rounds taking turns)\n"
    )
    print("| revision | wall clock (s) | ratio | sum of executions (s) | ratio |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in trees:
        print(
            f"| {name} ({revisions[name]}) | {walls[name]:.0f} | "
            f"{walls[name] / walls['before']:.2f} | {sums[name]:.0f} | "
            f"{sums[name] / sums['before']:.2f} |"
        )
    before, after = runs["before"], runs["after"]
    changed = sorted(
        (key, before[key]["status"], row["status"], str(row.get("message", ""))[:100])
        for key, row in after.items()
        if key in before and row["status"] != before[key]["status"]
    )
    print(f"\n{len(changed)} status differences (first round)")
    for (problem, source), was, now, message in changed:
        print(f"  {problem} {source}: {was} → {now} ({message})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
