"""Per-model statuses in the shape of BigCodeBench's published per-model results.

One record per task — ``task_id`` and ``status`` (``pass`` or ``fail``, BigCodeBench's
two values), plus ``detail``, our finer status — in one file per solution source and
combo: ``exports/<combo>/<source>.jsonl`` and ``.csv``.
"""

from __future__ import annotations

import csv
import json
import re
from typing import TYPE_CHECKING

from harness.core.results import Status

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.core.results import Outcome
    from harness.execute.rundir import RunDir


def _name(source: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]+", "-", source.removeprefix("model:"))


def write(run: RunDir, outcomes: Sequence[Outcome]) -> None:
    files: dict[tuple[str, str], list[dict[str, str]]] = {}
    for o in sorted(outcomes, key=lambda o: o.seq):
        if o.attempt:
            continue
        record = {
            "task_id": o.problem_id,
            "status": "pass" if o.status is Status.PASS else "fail",
            "detail": o.status.value,
        }
        files.setdefault((o.combo, _name(o.source)), []).append(record)
    for (combo, name), records in files.items():
        folder = run.exports(combo)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
        )
        csv_path = folder / f"{name}.csv"
        with csv_path.open("w", newline="", encoding="utf-8", errors="backslashreplace") as fh:
            writer = csv.DictWriter(fh, fieldnames=["task_id", "status", "detail"])
            writer.writeheader()
            writer.writerows(records)
