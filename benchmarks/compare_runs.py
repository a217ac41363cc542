"""Compare the statuses of two runs execution by execution (e.g. zygote vs fresh).

    python benchmarks/compare_runs.py results/<run-a> results/<run-b>

Prints, per combo, the executions, the status counts of each run and every execution
whose status differs; then, per combo and kind of solution (references, answers), the
sum of the executions' own durations in each run, over the executions both ran, and
their ratio (what a change of the harness costs, machine weather aside: run the two
one after the other on a quiet machine). Exits 1 when any status differs.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.core.problem import MODEL_PREFIX, REFERENCE  # noqa: E402
from harness.core.results import Outcome  # noqa: E402, TC001
from harness.execute.rundir import RunDir  # noqa: E402


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = RunDir(Path(argv[1])), RunDir(Path(argv[2]))
    differ = 0
    costs = []
    print(f"| combo | executions | {a.run_id} | {b.run_id} | differences |")
    print("| --- | ---: | --- | --- | ---: |")
    notes = []
    for combo in a.combos():
        left = {o.key: o for o in a.read(combo)}
        right = {o.key: o for o in b.read(combo)}
        keys = sorted(set(left) | set(right))
        diffs = [
            k for k in keys if k not in left or k not in right or left[k].status != right[k].status
        ]
        differ += len(diffs)

        def counts(run: dict[tuple[str, str, str, int], Outcome]) -> str:
            tally = Counter(o.status.value for o in run.values())
            return ", ".join(f"{s} {n}" for s, n in sorted(tally.items()))

        print(f"| `{combo}` | {len(keys)} | {counts(left)} | {counts(right)} | {len(diffs)} |")
        for k in diffs:
            before = left[k].status.value if k in left else "missing"
            after = right[k].status.value if k in right else "missing"
            notes.append(f"- `{combo}` `{k[1]}` {k[2]}: {before} vs {after}")
        both = [k for k in keys if k in left and k in right]
        for kind, chosen in (
            ("references", [k for k in both if left[k].source == REFERENCE]),
            ("answers", [k for k in both if left[k].source.startswith(MODEL_PREFIX)]),
            ("all", both),
        ):
            if chosen:
                spent = [sum(run[k].duration_s for k in chosen) for run in (left, right)]
                ratio = f"{spent[1] / spent[0]:.2f}" if spent[0] else "-"
                costs.append(
                    f"| `{combo}` | {kind} | {len(chosen)} | {spent[0]:.1f} | {spent[1]:.1f} "
                    f"| {ratio} |"
                )
    print("\n".join(notes))
    print(f"\n| combo | solutions | executions | {a.run_id} (s) | {b.run_id} (s) | ratio |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    print("\n".join(costs))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
