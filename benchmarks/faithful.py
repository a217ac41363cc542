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

from harness.causes import Cause, diagnose  # noqa: E402
from harness.results import RunDir, Status  # noqa: E402

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
    libraries = list(DS1000_NAMES.values())
    print(f"Problems needing the network here: {len(network)} ({', '.join(sorted(network))})\n")
    print("| model | scope | published | ours | difference (pp) |")
    print("| --- | --- | ---: | ---: | ---: |")
    worst_overall = worst_library = 0.0
    for model in sorted(by_model):
        overall, per_library = published(Path(args.published) / f"{model}-result.txt")
        rows = [("overall", overall, by_model[model]["all"])]
        rows += [(lib, per_library[lib], by_model[model][lib]) for lib in libraries]
        for scope, pub, values in rows:
            ours = sum(values) / len(values)
            diff = (ours - pub) * 100
            if scope == "overall":
                worst_overall = max(worst_overall, abs(diff))
            else:
                worst_library = max(worst_library, abs(diff))
            print(f"| {model} | {scope} | {pub:.1%} | {ours:.1%} | {diff:+.1f} |")
        gradable = offline[model]["all"]
        print(
            f"| {model} | overall, without those {len(network)} | – | {sum(gradable) / len(gradable):.1%} | – |"
        )
    print(
        f"\nlargest difference: {worst_overall:.1f} pp overall, {worst_library:.1f} pp for a library"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
