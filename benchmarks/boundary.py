"""Grading across the boundary changes no honest outcome: the same code as a reference
(trusted, graded in one process, as upstream does) and as a model's answer (tests in the
checker, the answer in its own process: harness/envside/bridge/crossing_*.py), side by side in
one run.

    python benchmarks/boundary.py --write-answers ANSWERS.jsonl PROBLEMS   # the references as answers
    harness run --problems PROBLEMS --answers canonical=ANSWERS.jsonl --run-id boundary …
    python benchmarks/boundary.py results/boundary [--source model:canonical]

Prints per combo: how many tasks give the same status both ways, which do not (with
both outcomes), how many answers were graded in their own process and why, and the time
the two ways took (summed execution time, and its median per task).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.core.problem import REFERENCE  # noqa: E402
from harness.execute.rundir import RunDir  # noqa: E402
from harness.problems.sets import load as load_problems  # noqa: E402

if TYPE_CHECKING:
    from harness.core.results import Outcome


def write_answers(problems: list[str], path: Path) -> None:
    """Every problem's reference as a model's answer (BigCodeBench's shape for its
    tasks, ``problem_id`` + ``code`` otherwise)."""
    rows = [{"problem_id": p.id, "code": p.reference_code} for p in load_problems(problems)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(f"{len(rows)} answers written to {path}")


def shown(outcome: Outcome) -> str:
    text = outcome.first_line.replace("|", "\\|").replace("\n", " ")
    return f"{outcome.status.value}: {text[:110]}" if text else outcome.status.value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "run", nargs="*", help="a run directory (or, with --write-answers, problem files)"
    )
    parser.add_argument("--source", default="model:canonical")
    parser.add_argument("--write-answers", type=Path, metavar="PATH")
    args = parser.parse_args()
    if args.write_answers:
        write_answers(args.run, args.write_answers)
        return
    run = RunDir(Path(args.run[0]))
    by_combo: dict[str, dict[str, dict[str, Outcome]]] = defaultdict(lambda: defaultdict(dict))
    for o in run.read_all():
        if o.attempt == 0 and o.source in (REFERENCE, args.source):
            by_combo[o.combo][o.problem_id][o.source] = o
    for combo, problems in by_combo.items():
        pairs = [
            (p, d[REFERENCE], d[args.source]) for p, d in sorted(problems.items()) if len(d) == 2
        ]
        same = [p for p, r, a in pairs if r.status == a.status]
        differ = [(p, r, a) for p, r, a in pairs if r.status != a.status]
        in_process = [(p, a) for p, _, a in pairs if a.graded == "in-process"]
        ran = [(r, a) for _, r, a in pairs if r.status.value not in ("skipped", "env_error")]
        print(f"## `{combo}`\n")
        print(f"- tasks with both outcomes: {len(pairs)}; the same status both ways: {len(same)}")
        print(
            f"- graded across the boundary: {len(pairs) - len(in_process)} of {len(pairs)} "
            f"({(len(pairs) - len(in_process)) / len(pairs):.1%})"
            if pairs
            else "- none"
        )
        statuses = Counter((r.status.value, a.status.value) for _, r, a in differ)
        if statuses:
            print(
                "- differences (reference → answer): "
                + ", ".join(f"{k[0]} → {k[1]}: {n}" for k, n in statuses.most_common())
            )
        if ran:
            one = sum(r.duration_s for r, _ in ran)
            two = sum(a.duration_s for _, a in ran)
            print(
                f"- time, summed over the {len(ran)} tasks that ran: in one process {one / 60:.1f} min, "
                f"across the boundary {two / 60:.1f} min ({two / one:.2f}×); median per task "
                f"{statistics.median(r.duration_s for r, _ in ran):.2f} s and "
                f"{statistics.median(a.duration_s for _, a in ran):.2f} s"
            )
        if differ:
            print("\n| task | in one process (reference) | across the boundary (answer) |")
            print("| --- | --- | --- |")
            for p, r, a in differ:
                print(f"| `{p}` | {shown(r)} | {shown(a)} |")
        if in_process:
            print("\n| graded in the answer's own process | why |")
            print("| --- | --- |")
            for p, a in in_process:
                why = a.note.split(";")[0].replace("graded in the solution's process: ", "")
                print(f"| `{p}` | {why} |")
        print()


if __name__ == "__main__":
    main()
