"""What the sandbox and the guard cost, and that they change no honest outcome.

    python benchmarks/guard.py [--combo ds1000-2024] [--limit N] [--models codex002,...]
    python benchmarks/guard.py --combo latest --skip "sandbox only"   # equivalence only
    python benchmarks/guard.py --library Tensorflow                   # one library's problems

Runs DS-1000 (references and the published model answers) in one combo three times in
this one invocation: as shipped (sandbox + guard), sandbox only (``--no-guard``), and
neither (``--no-sandbox --no-guard``, the executor before either existed). The three
take turns library by library (pandas under each, then NumPy under each, …, the order
rotating), so that a machine that gets busier or quieter during the half hour weighs on
all three alike; ``--whole`` runs each configuration in one go instead. Prints, per
configuration, wall-clock time and the sum of the executions' own durations, as ratios to
the unprotected run; and every execution whose status differs from the unprotected run's,
which must be none but the ones the protection exists for (answers that reach outside
their sandbox).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "ds1000"
CONFIGS = {
    "sandbox + guard": [],
    "sandbox only": ["--no-guard"],
    "unprotected": ["--no-sandbox", "--allow-unsandboxed-answers", "--no-guard"],
}


# DS-1000's libraries, the slices the configurations take turns on
LIBRARIES = ("Pandas", "Numpy", "Matplotlib", "Tensorflow", "Scipy", "Sklearn", "Pytorch")


def run(
    config: list[str], args: argparse.Namespace, results: Path, run_id: str, library: str = ""
) -> float:
    answers = [str(DATA / "answers" / f"{m}-answers.jsonl") for m in args.models.split(",") if m]
    command = [
        sys.executable, "-m", "harness", "run",
        "--problems", str(DATA / "ds1000.jsonl.gz"),
        "--combos", args.combo,
        "--results", str(results),
        "--run-id", run_id,
        "--no-history", "--quiet",
        "-j", str(args.jobs),
        *(["--limit", str(args.limit)] if args.limit else []),
        *(["--library", library] if library else []),
        *[a for path in answers for a in ("--answers", path)],
        *config,
    ]  # fmt: skip
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def outcomes(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return {(r["problem_id"], r["source"]): r for r in rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--combo", default="ds1000-2024")
    parser.add_argument(
        "--models", default="codex002,gpt-3.5-turbo-0613,gpt-4-0613,gpt-4-turbo-2024-04-09"
    )
    parser.add_argument("--limit", type=int, default=0, help="first N problems only")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--results", help="keep the runs here (default: a temporary dir)")
    parser.add_argument(
        "--whole", action="store_true",
        help="each configuration in one run, one after the other (not library by library)",
    )  # fmt: skip
    parser.add_argument(
        "--library", action="append", default=[], choices=LIBRARIES,
        help="these of DS-1000's libraries only (default: all seven)",
    )  # fmt: skip
    parser.add_argument(
        "--skip", action="append", default=[], choices=[c for c in CONFIGS if c != "unprotected"],
        help="leave out a configuration (e.g. for an equivalence check only)",
    )  # fmt: skip
    args = parser.parse_args()
    if not (DATA / "ds1000.jsonl.gz").is_file():
        print(f"DS-1000 not found at {DATA}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(args.results or tmp)
        # build (or reuse) the env first, and have the guard measure what the references'
        # values use in it (harness/execute/admission.py: once per environment, kept): no
        # configuration pays for either
        first = args.models.split(",")[0]
        warm = argparse.Namespace(**{**vars(args), "models": first})
        once = (
            sum(
                run([], warm, results, f"warm-up-{library.lower()}", library)
                for library in args.library
            )
            if args.library
            else run([], warm, results, "warm-up")
        )
        print(
            f"one-time, before the configurations: the environment and the admission "
            f"measured on the references ({first}'s answers run beside them): {once:.0f} s\n"
        )
        chosen = [name for name in CONFIGS if name not in args.skip]
        walls = dict.fromkeys(chosen, 0.0)
        runs: dict[str, dict[tuple[str, str], dict[str, Any]]] = {n: {} for n in chosen}
        slices = [""] if args.whole else list(args.library or LIBRARIES)
        for turn, library in enumerate(slices):
            for name in chosen[turn % len(chosen) :] + chosen[: turn % len(chosen)]:
                run_id = name.replace(" + ", "-").replace(" ", "-")
                run_id += f"-{library.lower()}" if library else ""
                walls[name] += run(CONFIGS[name], args, results, run_id, library)
                runs[name].update(outcomes(results / run_id / f"{args.combo}.jsonl"))
    base = runs["unprotected"]
    how = "each configuration whole" if args.whole else "taking turns library by library"
    print(f"{len(base)} executions per configuration ({args.combo}, -j {args.jobs}, {how})\n")
    print(
        "| configuration | wall clock (s) | ratio | sum of executions (s) | ratio | status differences |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    base_sum = sum(float(r["duration_s"]) for r in base.values())
    differences: dict[str, list[tuple[tuple[str, str], str, str, str]]] = {}
    for name, rows in runs.items():
        total = sum(float(r["duration_s"]) for r in rows.values())
        differences[name] = sorted(
            (key, base[key]["status"], row["status"], row.get("message", ""))
            for key, row in rows.items()
            if key in base and row["status"] != base[key]["status"]
        )
        print(
            f"| {name} | {walls[name]:.0f} | {walls[name] / walls['unprotected']:.2f} | "
            f"{total:.0f} | {total / base_sum:.2f} | {len(differences[name])} |"
        )
    if "sandbox only" in walls and "sandbox + guard" in walls:
        # the guard's own cost: what it adds to the sandbox it runs in
        print(
            f"\nthe guard over the sandbox alone: {walls['sandbox + guard'] / walls['sandbox only'] - 1:+.0%}"
            " wall clock"
        )
    for name, rows in runs.items():
        # what the guard says about how an answer was graded (no answer runs beside its
        # check: such a note would say so)
        notes = Counter(str(r["note"])[:80] for r in rows.values() if r.get("note"))
        print(
            f"{name}: {sum(notes.values())} outcomes with a note"
            + "".join(f"\n  {count} × {note}" for note, count in notes.most_common(5))
        )
    for name, changed in differences.items():
        for (problem, source), before, after, message in changed:
            print(f"{name}: {problem} {source}: {before} → {after} ({str(message)[:100]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
