"""Where an execution's time goes, phase by phase: sandbox + guard, sandbox only, unprotected.

    python benchmarks/phases.py                                  # DS-1000 Pandas + NumPy, codex002
    python benchmarks/phases.py --library Matplotlib --every 2 -j 2
    python benchmarks/phases.py --json phases.json               # also the raw marks

Runs the chosen DS-1000 problems' references and one model's answers in one combo's
environment, straight through the env side (as ``benchmarks/executor.py`` does), once
per configuration, the configurations taking turns library by library. Timing is
switched on (``HARNESS_PHASES``, ``harness/envside/timing/phases.py``): each process of an
execution marks the moments it passes on the machine's monotonic clock, and a phase is
the time from the mark before it to its own. Prints, per configuration and per kind of
solution (references run beside their check; answers cross to their own process where
the guard is on), the median milliseconds of each phase and of the whole execution.
The shipped allowlist only (a ``harness run`` first admits what the references use in the
combo): an answer's status may differ from such a run's.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from _envside import DATA as SHARED
from _envside import ENV_DIR, ROOT, environment, run_side

from harness.core.problem import REFERENCE, Solution
from harness.execute.runner import Execution, RunOptions
from harness.problems import answers as answerfiles
from harness.problems import sets as problemsets

DATA = SHARED / "ds1000"
CONFIGS = {
    "sandbox + guard": {"sandbox": True, "guard": True},
    "sandbox only": {"sandbox": True, "guard": False},
    "unprotected": {"sandbox": False, "guard": False},
}
# the phases in the order an execution passes them (each named by the mark that ends it)
ORDER = (
    "forked", "reseeded", "sandboxed", "prepared", "handed", "program", "guard", "pickled",
    "placer", "placer_forked",
    "placed", "sent", "solution_placing", "solution_placed", "solution_ready", "solution_loaded", "solution_ran",
    "solution_packed", "answered", "admitted", "checked", "reported", "exited",
    "released", "emitted", "emptied",
)  # fmt: skip


def run(
    python: Path, executions: list[Execution], config: dict[str, bool], jobs: int
) -> tuple[float, dict[int, str], list[dict[str, Any]]]:
    """One configuration over ``executions``: wall time, statuses, each one's marks."""
    options = RunOptions(
        jobs=jobs,
        isolation="zygote",
        sandbox=config["sandbox"],
        # unprotected means the model answers too: they run only where a batch lets them
        unsandboxed_answers=not config["sandbox"],
        guard=config["guard"],
    )
    ran = run_side(python, executions, options, phases=True)
    return ran.wall_s, ran.statuses(), ran.marks


def durations(marks: list[list[Any]]) -> dict[str, float]:
    """Seconds per phase of one execution: each mark ends the phase named after it (a
    solution run more than once adds up its phases)."""
    ordered = sorted(marks, key=lambda m: m[1])
    # a process made ahead of its execution (the supervisor's spare) marked its set-up
    # before the execution began: off its clock, and left out here
    begun = [moment for name, moment in ordered if name == "start"]
    if begun:
        ordered = [m for m in ordered if m[1] >= begun[0]]
    spent: dict[str, float] = defaultdict(float)
    for (_, before), (name, moment) in itertools.pairwise(ordered):
        spent[name] += moment - before
    spent["total"] = ordered[-1][1] - ordered[0][1] if ordered else 0.0
    return spent


def table(rows: dict[str, list[dict[str, float]]]) -> list[str]:
    """Median ms per phase (over the executions that passed it), one column per row."""
    names = [n for n in (*ORDER, "total") if any(n in d for r in rows.values() for d in r)]
    lines = [
        "| phase | " + " | ".join(rows) + " |",
        "| --- |" + " ---: |" * len(rows),
    ]
    for name in names:
        cells = []
        for spent in rows.values():
            values = [d[name] for d in spent if name in d]
            cells.append(f"{statistics.median(values) * 1000:.1f}" if values else "–")
        lines.append(f"| {name} | {' | '.join(cells)} |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matrix", default=str(ROOT / "matrix.toml"))
    parser.add_argument("--combo", default="ds1000-2024")
    parser.add_argument("--env-dir", default=ENV_DIR)
    parser.add_argument("--library", action="append", default=[], help="default Pandas, Numpy")
    parser.add_argument("--model", default="codex002")
    parser.add_argument("--every", type=int, default=1, help="every K-th problem only")
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("--json", help="also write the raw marks here")
    args = parser.parse_args()
    env = environment(args.matrix, args.combo, args.env_dir)
    problems = problemsets.load_jsonl(DATA / "ds1000.jsonl.gz")
    answers_path = DATA / "answers" / f"{args.model}-answers.jsonl"
    walls: dict[str, float] = defaultdict(float)
    spent: dict[str, dict[str, list[dict[str, float]]]] = defaultdict(lambda: defaultdict(list))
    statuses: dict[str, dict[tuple[str, str], str]] = defaultdict(dict)
    raw: dict[str, list[Any]] = defaultdict(list)
    names = list(CONFIGS)
    for turn, library in enumerate(args.library or ["Pandas", "Numpy"]):
        chosen = [p for p in problems if p.library.lower() == library.lower()][:: args.every]
        model = answerfiles.load_answers(answers_path, problems, {p.id for p in chosen}, args.model)
        executions = [Execution(p, Solution(p.id, REFERENCE, p.reference_code)) for p in chosen]
        by_id = {p.id: p for p in chosen}
        executions += [Execution(by_id[s.problem_id], s) for s in model]
        for name in names[turn % 3 :] + names[: turn % 3]:
            wall, status, marks = run(env.python_exe, executions, CONFIGS[name], args.jobs)
            walls[name] += wall
            raw[name] += marks
            for entry in marks:
                execution = executions[entry["index"]]
                kind = "references" if execution.solution.source == REFERENCE else "answers"
                spent[kind][name].append(durations(entry["marks"]))
            for index, value in status.items():
                statuses[name][
                    (executions[index].problem.id, executions[index].solution.source)
                ] = value
    base = statuses["unprotected"]
    print(f"{args.combo}, -j {args.jobs}, {len(base)} executions per configuration")
    for name in names:
        differ = sorted(k for k, v in statuses[name].items() if base.get(k) != v)
        print(f"{name}: wall {walls[name]:.1f} s, {len(differ)} status differences {differ[:6]}")
    for kind, rows in spent.items():
        print(f"\n{kind} (median ms per phase)\n")
        print("\n".join(table(rows)))
    if args.json:
        Path(args.json).write_text(json.dumps(raw))
    return 0


if __name__ == "__main__":
    sys.exit(main())
