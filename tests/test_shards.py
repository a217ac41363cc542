"""Shards balanced by the durations earlier nights recorded."""

from __future__ import annotations

import json
import random
import re
from contextlib import closing
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from harness.analysis import history
from harness.app import nightly, shards
from harness.core.errors import UsageError
from harness.core.results import Outcome, OutcomeWriter, Status
from harness.envs.build import EnvInfo
from harness.execute.rundir import RunDir, RunManifest
from harness.matrix.spec import Combo
from harness.problems import sets as problemsets

if TYPE_CHECKING:
    from pathlib import Path


@dataclass(frozen=True)
class P:
    id: str


def record_night(db_path: Path, root: Path, run_id: str, seconds: dict[str, float]) -> None:
    """A night of one combo whose problems took ``seconds``, recorded in the history."""
    run = RunDir(root / run_id)
    run.root.mkdir(parents=True)
    run.write_manifest(RunManifest(run_id, started="2026-11-01T03:00:00+00:00", combos=("c",)))
    run.write_env("c", EnvInfo("c", ok=True, python="3.11.9"))
    with OutcomeWriter(run.outcomes("c")) as writer:
        for problem, total in seconds.items():
            # a reference and a model answer: the shard carries both
            for source, share in (("reference", 0.25), ("model:m", 0.75)):
                writer.write(
                    Outcome(run_id, "c", problem, source, Status.PASS, duration_s=total * share)
                )
        writer.write(Outcome(run_id, "c", "skipped/1", "reference", Status.SKIPPED, duration_s=9.0))
    with closing(history.connect(db_path)) as db:
        history.record(db, run)


def skewed(n: int, night: int) -> dict[str, float]:
    """Heavy-tailed seconds, as problems are (most take a second, a few run to the
    timeout), the same problems slow every night, each night within 10%."""
    base, jitter = random.Random(2), random.Random(night)
    return {
        f"s/{i}": round(min(base.paretovariate(1.2), 120.0) * jitter.uniform(0.9, 1.1), 3)
        for i in range(n)
    }


def test_recorded_durations_balance_a_skewed_set(tmp_path: Path) -> None:
    db_path = tmp_path / "history.sqlite"
    nights = [skewed(240, night) for night in (1, 2, 3)]
    for i, seconds in enumerate(nights):
        record_night(db_path, tmp_path / "runs", f"night{i}", seconds)
    with closing(history.connect(db_path)) as db:
        durations = shards.from_history(db)
    problem = "s/7"
    # the median of the three nights, reference and model added up; skipped ones left out
    assert durations["c"][problem] == pytest.approx(sorted(n[problem] for n in nights)[1], abs=1e-3)
    assert "skipped/1" not in durations["c"]
    problems = [P(f"s/{i}") for i in range(240)]
    for count in (2, 4, 6):
        split = shards.balanced(problems, count, durations["c"])
        assert sorted(p.id for s in split for p in s) == sorted(p.id for p in problems)
        loads = shards.loads(split, durations["c"])
        mean = sum(loads) / count
        assert max(loads) <= 1.3 * mean, (count, loads)
        # every count-th problem, on the same set: never better
        naive = shards.loads(
            [problemsets.shard(problems, i, count) for i in range(1, count + 1)], durations["c"]
        )
        assert max(loads) <= max(naive)
    # ...and at six shards far worse: one shard gets most of the slow problems
    assert max(naive) > 1.5 * (sum(naive) / 6), naive


def test_every_job_computes_the_same_split_and_keeps_the_problems_order() -> None:
    durations = {"a": 10.0, "b": 1.0, "c": 1.0, "d": 8.0}
    problems = [P(x) for x in "abcdef"]  # e, f never measured: the median (4.5 s) each
    first = shards.balanced(problems, 2, durations)
    assert first == shards.balanced(list(problems), 2, dict(durations))
    # longest first: a, d, then e and f at 4.5 s each; both shards end at 14.5 s
    assert [[p.id for p in s] for s in first] == [["a", "f"], ["b", "c", "d", "e"]]


def test_the_plan_estimates_each_shard(tmp_path: Path) -> None:
    durations = {"c": {"p/1": 30.0, "p/2": 10.0, "p/3": 10.0, "p/4": 10.0}}
    plan = nightly.plan(
        [Combo("c", "3.11", ())], 2, durations=durations, problems={"c": list(durations["c"])}
    )
    assert plan == {
        "include": [
            {"name": "c-1of2", "runs": "c:1/2", "estimate_s": 30.0},
            {"name": "c-2of2", "runs": "c:2/2", "estimate_s": 30.0},
        ]
    }


def test_durations_file_round_trip_and_mistakes(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    shards.write(path, {"c": {"p/1": 1.5}})
    assert shards.read(path) == {"c": {"p/1": 1.5}}
    path.write_text(json.dumps({"durations": {"c": {"p/1": "slow"}}}))
    with pytest.raises(
        UsageError,
        match=rf"^harness: --shard-durations {re.escape(str(path))}: durations.c must map problems to seconds$",
    ):
        shards.read(path)
    path.write_text("{")
    with pytest.raises(UsageError, match=r"not JSON"):
        shards.read(path)
    with pytest.raises(UsageError, match=r"No such file"):
        shards.read(tmp_path / "gone.json")
