"""Compare the statuses of two runs execution by execution (e.g. zygote vs fresh).

    python benchmarks/compare_runs.py results/<run-a> results/<run-b>

Prints, per combo, the executions, the status counts of each run and every execution
whose status differs; exits 1 when any does.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.core.results import Outcome  # noqa: E402, TC001
from harness.execute.rundir import RunDir  # noqa: E402


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = RunDir(Path(argv[1])), RunDir(Path(argv[2]))
    differ = 0
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
    print("\n".join(notes))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
