"""What ``harness audit`` costs beside a plain run of the same executions.

    python benchmarks/audit.py [--problems PATH] [--combos ID] [--limit N] [--mutants 5]
                               [--repeats 1] [-j 2] [--results DIR]

One after the other, on one machine, with the same envs:

1. ``harness audit`` over the problems in one combo: the references, their probes (null
   answers, mutants, the reference as an answer), and ``--repeats - 1`` more runs of
   the references;
2. ``harness run`` of the very executions the audit made: the references, and the
   audit's probes written as answers files (one per probe name), plus a ``--repeat``-free
   run of the reference copies per extra repeat — nothing of the audit's own work
   (making mutants, assessing, the reports) besides.

Prints the executions, both wall times and their ratio, and how many statuses agree
(problems that draw unseeded random inputs may differ). Defaults: all of DS-1000
(``$HARNESS_DATA``, else ``../shared/data``) in ``ds1000-2024``, 5 mutants, no repeats.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from _envside import DATA, ROOT

from harness.audit import probes as probes_mod
from harness.audit.files import AuditFiles
from harness.execute.rundir import RunDir


def harness(*args: str) -> float:
    """Run ``python -m harness ARGS``; its wall time (exits on failure)."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "harness", *args], cwd=ROOT, check=False)
    if done.returncode != 0:
        sys.exit(f"harness {args[0]} failed with {done.returncode}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", default=str(DATA / "ds1000" / "ds1000.jsonl.gz"))
    parser.add_argument("--combos", default="ds1000-2024")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--mutants", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--results", default=str(ROOT / "results" / "bench-audit"))
    args = parser.parse_args()
    if not Path(args.problems).exists():
        sys.exit(f"{args.problems}: not found (set HARNESS_DATA or --problems)")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    common = ["--problems", args.problems, "--combos", args.combos, "-j", str(args.jobs)]
    common += ["--results", args.results, "-q"] + (
        ["--limit", str(args.limit)] if args.limit else []
    )
    audit_id, plain_id = f"audit-{stamp}", f"plain-{stamp}"
    audit_s = harness(
        "audit", *common, "--run-id", audit_id, "--mutants", str(args.mutants),
        "--repeats", str(args.repeats),
    )  # fmt: skip
    audited = RunDir(Path(args.results) / audit_id)
    made = probes_mod.read(AuditFiles(audited).probes)
    answers = Path(args.results) / f"{plain_id}-answers"
    answers.mkdir(parents=True, exist_ok=True)
    by_name: dict[str, list[str]] = defaultdict(list)
    for p in made:
        by_name[p.name].append(json.dumps({"problem_id": p.problem_id, "code": p.code}))
    files = []
    for name, lines in by_name.items():
        (answers / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        files += ["--answers", f"{name}={answers / f'{name}.jsonl'}"]
    plain_s = harness("run", *common, "--run-id", plain_id, "--no-idioms", "--no-history", *files)
    for k in range(1, args.repeats):
        copies = ["--answers", f"reference-copy={answers / 'reference-copy.jsonl'}"]
        plain_s += harness(
            "run", *common, "--run-id", f"{plain_id}-{k}", "--no-reference", "--no-idioms",
            "--no-history", *copies,
        )  # fmt: skip
    ours = {o.key: o.status for o in audited.read_all()}
    theirs = {o.key: o.status for o in RunDir(Path(args.results) / plain_id).read_all()}
    same = sum(1 for k in ours if theirs.get(k) == ours[k])
    files_of = AuditFiles(audited)
    executions = len(ours) + len(files_of.confirm.read_all())
    executions += sum(len(again.read_all()) for _, again in files_of.repeats())
    print("| executions | audit | plain run | ratio | statuses the same |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    print(
        f"| {executions} | {audit_s:.0f} s | {plain_s:.0f} s | {audit_s / plain_s:.2f} | "
        f"{same} of {len(ours)} |"
    )


if __name__ == "__main__":
    main()
