"""``reports.exports``: per-model statuses in BigCodeBench's shape (the gap test_reports leaves)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from harness.core.results import Outcome, Status
from harness.execute.rundir import RunDir
from harness.reports import exports


def o(combo: str, pid: str, source: str, status: Status, seq: int, attempt: int = 0) -> Outcome:
    return Outcome("r1", combo, pid, source, status, seq=seq, attempt=attempt)


def read(folder: Path, name: str) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    jsonl = [json.loads(x) for x in (folder / f"{name}.jsonl").read_text().splitlines()]
    with (folder / f"{name}.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    return jsonl, rows


def test_one_file_pair_per_combo_and_source_in_batch_order(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "r1")
    exports.write(
        run,
        [
            o("new", "BigCodeBench/2", "model:gpt-4/turbo", Status.FAIL, seq=3),
            o("new", "BigCodeBench/1", "model:gpt-4/turbo", Status.PASS, seq=1),
            o("new", "BigCodeBench/1", "model:gpt-4/turbo", Status.FAIL, seq=1, attempt=1),
            o("new", "BigCodeBench/1", "reference", Status.PASS, seq=0),
            o("old", "BigCodeBench/1", "idiom:old", Status.TIMEOUT, seq=0),
        ],
    )
    files = sorted(str(p.relative_to(run.root)) for p in run.root.rglob("*") if p.is_file())
    assert files == [
        "exports/new/gpt-4-turbo.csv",
        "exports/new/gpt-4-turbo.jsonl",
        "exports/new/reference.csv",
        "exports/new/reference.jsonl",
        "exports/old/idiom-old.csv",
        "exports/old/idiom-old.jsonl",
    ]
    jsonl, rows = read(run.root / "exports" / "new", "gpt-4-turbo")
    assert (
        jsonl
        == rows
        == [  # only the first attempt of a repeated execution
            {"task_id": "BigCodeBench/1", "status": "pass", "detail": "pass"},
            {"task_id": "BigCodeBench/2", "status": "fail", "detail": "fail"},
        ]
    )
    header = (run.root / "exports" / "new" / "reference.csv").read_text().splitlines()[0]
    assert header == "task_id,status,detail"


@pytest.mark.parametrize(
    ("status", "exported"),
    [
        (Status.PASS, "pass"),
        (Status.FAIL, "fail"),
        (Status.ERROR, "fail"),
        (Status.TIMEOUT, "fail"),
        (Status.CRASH, "fail"),
        (Status.SKIPPED, "fail"),
        (Status.ENV_ERROR, "fail"),
    ],
)
def test_two_statuses_and_our_detail(tmp_path: Path, status: Status, exported: str) -> None:
    run = RunDir(tmp_path / "r1")
    exports.write(run, [o("c", "t/1", "model:m", status, seq=0)])
    jsonl, rows = read(run.root / "exports" / "c", "m")
    assert jsonl == rows == [{"task_id": "t/1", "status": exported, "detail": status.value}]


def test_nothing_to_export_writes_nothing(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "r1")
    exports.write(run, [o("c", "t/1", "model:m", Status.PASS, seq=0, attempt=1)])
    exports.write(run, [])
    assert not (run.root / "exports").exists()
