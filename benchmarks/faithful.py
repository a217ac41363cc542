"""Faithful scoring: our pass rates for DS-1000's published model answers vs the published ones.

    harness run --problems ../shared/data/ds1000/ds1000.jsonl.gz --combos ds1000-2024 \\
        --answers .../codex002-answers.jsonl ... --run-id models
    python benchmarks/faithful.py results/models --combo ds1000-2024

Reads upstream's published score files (``results/*-result.txt``) and prints, per model,
overall and per library: published, ours, and the difference in percentage points;
also ours with the problems this machine could not grade (no network) left out of
both the numerator and the denominator.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.analysis.causes import Cause, diagnose  # noqa: E402
from harness.core.results import Status  # noqa: E402
from harness.execute.rundir import RunDir  # noqa: E402

DS1000_NAMES = {
    "Matplotlib": "matplotlib",
    "Numpy": "numpy",
    "Pandas": "pandas",
    "Pytorch": "torch",
    "Scipy": "scipy",
    "Sklearn": "scikit-learn",
    "Tensorflow": "tensorflow",
}


def published(path: Path) -> tuple[float, dict[str, float]]:
    text = path.read_text()
    overall = float(re.search(r"^mean\s+([\d.]+)", text, re.MULTILINE).group(1))  # type: ignore[union-attr]
    libraries = {
        DS1000_NAMES[name]: float(mean)
        for name, mean in re.findall(r"^(\w+)\s+\d+\s+([\d.]+)$", text, re.MULTILINE)
        if name in DS1000_NAMES
    }
    return overall, libraries


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--combo", default="ds1000-2024")
    parser.add_argument(
        "--published", default=str(ROOT.parent / "shared" / "data" / "ds1000" / "results")
    )
    args = parser.parse_args()
    outcomes = RunDir(Path(args.run_dir)).read(args.combo)
    network = {
        o.problem_id
        for o in outcomes
        if o.source == "reference"
        and (d := diagnose(o)) is not None
        and d.cause is Cause.NEEDS_NETWORK
    }
    by_model: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    offline: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for o in outcomes:
        if not o.source.startswith("model:"):
            continue
        model = o.source.removeprefix("model:")
        passed = o.status is Status.PASS
        by_model[model]["all"].append(passed)
        by_model[model][o.library].append(passed)
        if o.problem_id not in network:
            offline[model]["all"].append(passed)
            offline[model][o.library].append(passed)
    libraries = list(DS1000_NAMES.values())
    print(f"Problems needing the network here: {len(network)} ({', '.join(sorted(network))})\n")
    print(
        "| model | scope | published | ours | difference (pp) "
        f"| ours without the {len(network)} | difference (pp) |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    worst = {"all": [0.0, 0.0], "library": [0.0, 0.0]}  # [as graded, without network]
    for model in sorted(by_model):
        overall, per_library = published(Path(args.published) / f"{model}-result.txt")
        rows = [("overall", "all", overall)]
        rows += [(lib, lib, per_library[lib]) for lib in libraries]
        for scope, key, pub in rows:
            cells = []
            for column, values in enumerate((by_model[model][key], offline[model][key])):
                ours = sum(values) / len(values)
                diff = (ours - pub) * 100
                kind = "all" if key == "all" else "library"
                worst[kind][column] = max(worst[kind][column], abs(diff))
                cells.append(f"{ours:.1%} | {diff:+.1f}")
            print(f"| {model} | {scope} | {pub:.1%} | {cells[0]} | {cells[1]} |")
    print(
        f"\nlargest difference as graded: {worst['all'][0]:.1f} pp overall, "
        f"{worst['library'][0]:.1f} pp for a library; without the problems needing the "
        f"network: {worst['all'][1]:.1f} pp overall, {worst['library'][1]:.1f} pp for a library"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
