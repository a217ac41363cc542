"""The nightly workflow's path, locally: plan → shards → merge → report → issue text; and
the workflow's own steps that prepare its runners."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.analysis import history
from harness.analysis.causes import Cause
from harness.analysis.changes import Changes, StatusChange
from harness.analysis.drift import DriftClass, DriftRow
from harness.analysis.summary import Summary
from harness.app import nightly
from harness.core.errors import UsageError
from harness.core.findings import Finding
from harness.execute.rundir import RunDir
from harness.matrix import releases
from harness.matrix.package_index import Index
from harness.matrix.releases import NewRelease, ReleaseNews
from harness.matrix.spec import Combo, LibrarySpec, VersionKind
from tests.conftest import ROOT, run_harness
from tests.indexserver import IndexServer, wheel

PY = f"{sys.version_info.major}.{sys.version_info.minor}"


def harness(*args: str, cwd: Path) -> str:
    return run_harness(*args, cwd=cwd).stdout


def test_plan_one_job_per_combo_and_shard() -> None:
    combos = [Combo("a", PY, ()), Combo("b", PY, ())]
    assert nightly.plan(combos, shards=2) == {
        "include": [
            {"name": "a-1of2", "runs": "a:1/2"},
            {"name": "a-2of2", "runs": "a:2/2"},
            {"name": "b-1of2", "runs": "b:1/2"},
            {"name": "b-2of2", "runs": "b:2/2"},
        ]
    }
    assert nightly.plan(combos) == {
        "include": [{"name": "a", "runs": "a:1/1"}, {"name": "b", "runs": "b:1/1"}]
    }


def test_plan_groups_above_the_job_limit() -> None:
    combos = [Combo(f"c{i}", PY, ()) for i in range(300)]
    jobs = nightly.plan(combos, shards=1)["include"]
    assert len(jobs) == nightly.GITHUB_JOB_LIMIT
    runs = [r for job in jobs for r in job["runs"].split()]
    assert sorted(runs) == sorted(f"c{i}:1/1" for i in range(300))  # each run exactly once
    assert jobs[0] == {"name": "group-001", "runs": "c0:1/1 c256:1/1"}


@pytest.mark.parametrize(("shards", "max_jobs"), [(0, 1), (1, 0)])
def test_a_plan_has_at_least_one_job(shards: int, max_jobs: int) -> None:
    with pytest.raises(UsageError, match=r"^harness: --shards and --max-jobs must be at least 1$"):
        nightly.plan([Combo("a", PY, ())], shards, max_jobs)


def test_merge_needs_every_source(tmp_path: Path) -> None:
    with pytest.raises(
        UsageError, match=rf"^harness: {re.escape(str(tmp_path / 'gone'))}: no such directory$"
    ):
        nightly.merge([tmp_path / "gone"], RunDir(tmp_path / "merged"))
    assert not (tmp_path / "merged").exists()


def test_issue_text_only_says_what_is_new() -> None:
    assert nightly.issue_text(Summary.from_dict({"run_id": "r2"})) == ""
    unchanged = {"run_id": "r2", "changes": Changes("r1", "r2").to_dict()}
    assert nightly.issue_text(Summary.from_dict(unchanged)) == ""
    failure = StatusChange("latest", "p/10", "reference", "pass", "error", "AttributeError: gone")
    summary = Summary.from_dict(
        {"run_id": "r2", "changes": Changes("r1", "r2", (failure,)).to_dict()}
    )
    news = ReleaseNews((NewRelease("numpy", "2.6.0rc1", pre=True, uploaded="2026-11-28T10:00"),))
    text = nightly.issue_text(summary, news)
    assert text == textwrap.dedent("""\
        ## Nightly run `r2`

        Compared with `r1`.

        ### New failures (1)

        - `latest` `p/10` (reference): pass → error — AttributeError: gone

        ### New releases (1)

        - numpy 2.6.0rc1 (pre-release), 2026-11-28
    """)


def test_release_watching_against_a_local_index(tmp_path: Path) -> None:
    now = dt.datetime(2026, 11, 29, tzinfo=dt.timezone.utc)
    projects = {
        "numpy": [
            wheel("numpy", "1.26.4", "py3-none-any", uploaded="2024-02-05T00:00:00Z"),
            wheel("numpy", "2.5.5", "py3-none-any", uploaded="2026-11-20T00:00:00Z"),
            wheel("numpy", "2.6.0rc1", "py3-none-any", uploaded="2026-11-25T00:00:00Z"),
        ]
    }
    with IndexServer(projects) as server, closing(history.connect(tmp_path / "h.sqlite")) as db:
        first = releases.watch(Index(server.url), ["numpy"], db, now=now)
        # the first look reports the last 30 days only
        assert [(r.version, r.pre) for r in first] == [("2.5.5", False), ("2.6.0rc1", True)]
        assert releases.watch(Index(server.url), ["numpy"], db, now=now) == []
        server.projects["numpy"].append(
            wheel("numpy", "2.6.0", "py3-none-any", uploaded="2026-11-29T00:00:00Z")
        )
        later = releases.watch(Index(server.url), ["numpy"], db, now=now)
        assert [r.version for r in later] == ["2.6.0"]
        combo = Combo("latest", PY, (numpy_spec("latest"),))
        pre = Combo("pre", PY, (numpy_spec("pre"),))
        resolved = releases.resolve([combo, pre], Index(server.url))
        assert [r.version for r in resolved] == ["2.6.0", "2.6.0"]


def numpy_spec(kind: str) -> LibrarySpec:
    return LibrarySpec("numpy", "numpy", kind, VersionKind(kind))


@pytest.mark.network
def test_the_workflow_path_end_to_end(tmp_path: Path) -> None:
    problems = str(ROOT / "tests" / "data" / "problems")
    for night, numpy in (("night1", "1.26.4"), ("night2", "2.2.6")):
        # the matrix moves between nights, as a `latest` combo does
        (tmp_path / "matrix.toml").write_text(
            f'[matrix]\npython = "{PY}"\n[combos.np]\nnumpy = "{numpy}"\n'
        )
        plan = json.loads(harness("plan", "--shards", "2", "--github", cwd=tmp_path))
        assert plan == {
            "include": [
                {"name": "np-1of2", "runs": "np:1/2"},
                {"name": "np-2of2", "runs": "np:2/2"},
            ]
        }
        artifacts = []
        for job in plan["include"]:
            for item in job["runs"].split():
                combo, shard = item.split(":")
                out = tmp_path / "artifacts" / night / job["name"]
                harness(
                    "run",
                    "--combos",
                    combo,
                    "--shard",
                    shard,
                    "--problems",
                    problems,
                    "--results",
                    str(out),
                    "--run-id",
                    night,
                    "--env-dir",
                    str(tmp_path / "envs"),
                    "--no-history",
                    "-q",
                    cwd=tmp_path,
                )
                artifacts.append(str(out / night))
        merged = tmp_path / "results" / night
        harness("merge", *artifacts, "--into", str(merged), cwd=tmp_path)
        harness(
            "report",
            str(merged),
            "--history",
            str(tmp_path / "results" / "history.sqlite"),
            cwd=tmp_path,
        )
        outcomes = [json.loads(line) for line in (merged / "np.jsonl").read_text().splitlines()]
        assert sorted(o["problem_id"] for o in outcomes) == [
            "problems/numpy/prod",
            "problems/numpy/product",
            "problems/numpy/promotion",
        ]
    issue = harness("issue-text", str(tmp_path / "results" / "night2"), cwd=tmp_path)
    assert issue.startswith(
        "## Nightly run `night2`\n\nCompared with `night1`.\n\n### New failures (2)\n"
    )
    assert (
        "- `np` `problems/numpy/product` (reference): pass → error — AttributeError: module 'numpy' has no attribute 'product'"
        in issue
    )
    assert (
        "- `np` `problems/numpy/promotion` (reference): pass → fail — AssertionError: 44" in issue
    )
    md = (tmp_path / "results" / "night2" / "summary.md").read_text()
    assert "## Since the previous run (`night1`)" in md
    assert "- `np` numpy: 1.26.4 → 2.2.6" in md
    with closing(sqlite3.connect(tmp_path / "results" / "history.sqlite")) as db:
        assert [r[0] for r in db.execute("SELECT run_id FROM runs ORDER BY recorded_order")] == [
            "night1",
            "night2",
        ]


def test_annotations_escape_and_cover_failures_and_drift() -> None:
    failure = StatusChange("latest", "p/1", "reference", "pass", "error", "KeyError: 'a,b'\nmore")
    drifted = DriftRow(
        "ds1000/47",
        "reference",
        "pandas",
        DriftClass.DRIFTED,
        last_good="old",
        first_bad="new",
        error="AttributeError: x",
        cause=Cause.REMOVED_API,
        finding=Finding("ds1000/47", "reference", "old", "new", "pandas", first_bad="2.0.0"),
    )
    summary = Summary.from_dict({"changes": Changes("r1", "r2", (failure,)).to_dict()})
    repr_only = DriftRow(
        "cibench/s1",
        "reference",
        "numpy",
        DriftClass.FORMAT_DRIFT,
        last_good="old",
        first_bad="new",
        error="AssertionError: y",
        cause=Cause.OUTPUT_FORMAT,
    )
    summary = dataclasses.replace(summary, drift=(drifted, repr_only))
    assert nightly.workflow_commands(summary) == [
        "::error title=New failure%3A p/1::latest (reference): pass → error — KeyError: 'a,b'%0Amore",
        (
            "::warning title=Drift%3A ds1000/47::old → new: AttributeError: x (removed-api); "
            "first bad release pandas 2.0.0"
        ),
        (
            "::warning title=Output-format drift%3A cibench/s1::old → new: AssertionError: y "
            "(output-format)"
        ),
    ]


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_an_unreachable_nightly_wheels_index_is_that_lanes_env_error_only(tmp_path: Path) -> None:
    """No network: the main index is a loopback server, the nightly wheels' one is closed."""
    dead = f"http://127.0.0.1:{closed_port()}/simple"
    with IndexServer({}) as server:
        (tmp_path / "matrix.toml").write_text(
            textwrap.dedent(f"""\
                [matrix]
                python = "{PY}"
                index_url = "{server.url}"
                [combos.bare]
                description = "no libraries: builds without any index"
                [nightly]
                problems = ["{ROOT / "tests" / "data" / "problems"}"]
                [nightly.lanes.nightly-wheels]
                nightly = true
                extra_index_url = "{dead}"
                numpy = "latest"
                """)
        )
        harness(
            "run",
            "--nightly",
            "--results",
            str(tmp_path / "results"),
            "--run-id",
            "night",
            "--env-dir",
            str(tmp_path / "envs"),
            "--no-history",
            "-q",
            cwd=tmp_path,
        )
    run = RunDir(tmp_path / "results" / "night")
    envs = run.read_envs(["bare", "nightly-wheels"])
    lane = envs["nightly-wheels"]
    assert not lane.ok and lane.stage == "resolve" and lane.lane == "nightly wheels"
    assert lane.error.startswith(f"package index unreachable ({dead}): ")
    assert envs["bare"].ok  # the other combo is built and runs
    statuses = {(o.combo, o.status.value) for o in run.read_all()}
    assert statuses == {("bare", "skipped"), ("nightly-wheels", "env_error")}
    summary = run.read_summary() or {}
    assert [c["lane"] for c in summary["combos"]] == ["", "nightly wheels"]


PANDAS_PROBLEMS = {
    # removed in pandas 3.0 (deprecated in 2.1): passes on 2.3, fails in 3.0.0rc0
    "applymap": ("result = df.applymap(lambda x: x * 2)", 'assert result["a"].tolist() == [2, 4]'),
    "swapaxes": ("result = df.swapaxes(0, 1)", "assert result.shape == (1, 2)"),
    # the new spelling: holds on both
    "map": ("result = df.map(lambda x: x + 1)", 'assert result["a"].tolist() == [2, 3]'),
}


def problems_and_answers(root: Path) -> None:
    """Three pandas problems, and a model's answers committed beside the matrix in
    answers/: the night picks them up without being told."""
    for name, (reference, check) in PANDAS_PROBLEMS.items():
        path = root / "problems" / "pandas" / f"{name}.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f'library = "pandas"\nprompt = "..."\n'
            f"setup = 'import pandas as pd; df = pd.DataFrame({{\"a\": [1, 2]}})'\n"
            f"reference = '{reference}'\ncheck = '{check}'\n"
        )
    rows = [
        {"problem_id": "problems/pandas/applymap", "code": "result = df.map(lambda x: x * 2)"},
        {"problem_id": "problems/pandas/swapaxes", "code": "result = df.swapaxes(0, 1)"},
        {"problem_id": "problems/pandas/map", "code": "result = df"},
    ]
    (root / "answers").mkdir()
    (root / "answers" / "toy-answers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.mark.network
def test_three_nights_with_a_pre_release_lane_that_moves(tmp_path: Path) -> None:
    """The workflow's path by hand: a pre-release lane whose pandas moves from 2.3.3 to
    3.0.0rc0 between nights (its `as_of` stands for the night it runs)."""
    problems_and_answers(tmp_path)
    history_db = tmp_path / "results" / "history.sqlite"
    nights = (("night1", "2025-11-20"), ("night2", "2025-12-05"), ("night3", "2025-12-05"))
    issues = {}
    for night, as_of in nights:
        (tmp_path / "matrix.toml").write_text(
            textwrap.dedent(f"""\
                [matrix]
                python = "{PY}"
                [combos.pd]
                pandas = "2.3.3"
                [nightly]
                shards = 2
                [nightly.lanes.pre]
                pandas = "pre"
                as_of = {as_of}
                """)
        )
        plan = json.loads(
            harness(
                "plan",
                "--nightly",
                "--github",
                "--history",
                str(history_db),
                "--write-durations",
                "durations.json",
                cwd=tmp_path,
            )
        )
        assert [j["runs"] for j in plan["include"]] == ["pd:1/2", "pd:2/2", "pre:1/2", "pre:2/2"]
        # from the second night on, each job carries the seconds its shard should take
        assert all(("estimate_s" in j) == (night != "night1") for j in plan["include"])
        artifacts = []
        for job in plan["include"]:
            combo, shard = job["runs"].split(":")
            out = tmp_path / "artifacts" / night / job["name"]
            harness(
                "run",
                "--nightly",
                "--combos",
                combo,
                "--shard",
                shard,
                "--shard-durations",
                "durations.json",
                "--results",
                str(out),
                "--run-id",
                night,
                "--env-dir",
                str(tmp_path / "envs"),
                "--no-history",
                "-q",
                cwd=tmp_path,
            )
            artifacts.append(str(out / night))
        merged = tmp_path / "results" / night
        harness("merge", *artifacts, "--into", str(merged), cwd=tmp_path)
        harness("report", str(merged), "--history", str(history_db), cwd=tmp_path)
        outcomes = RunDir(merged).read_all()
        # every problem once per source and combo: the shards split without overlap
        assert len(outcomes) == len({o.key for o in outcomes}) == 2 * 3 * 2
        issues[night] = harness("issue-text", str(merged), cwd=tmp_path)
    assert "What will break next" not in issues["night1"]
    text = issues["night2"]
    assert text.startswith(
        "## Nightly run `night2`\n\nCompared with `night1`.\n\n### What will break next (2)\n\n"
        "- pandas 3.0.0rc0 (`pre`, pre-release) breaks 2 problems that pass on 2.3.3 (`pd`):\n"
        "  - `problems/pandas/applymap` — AttributeError: 'DataFrame' object has no attribute "
        "'applymap'; today it already warns: FutureWarning: DataFrame.applymap has been "
        "deprecated"
    )
    assert "\n  - `problems/pandas/swapaxes` — AttributeError: " in text
    assert (
        "- `problems` references holding in `pre` fell from 100.0% to 33.3% since `night1` "
        "(pandas 2.3.3 → 3.0.0rc0" in text
    )
    # the model's answer that used swapaxes fails in the lane too
    assert "- `toy`'s pass rate in `pre` fell from 66.7% to 33.3% since `night1`" in text
    # the third night: the lane breaks the same problems, and the trends show since when
    md = (tmp_path / "results" / "night3" / "summary.md").read_text()
    assert "## Trends over the last 3 nights" in md
    assert "| problems · references holding · pre | 100.0% | 33.3% | 33.3% |" in md
    # the lane broke the problems themselves: no answer there is charged as stale
    assert "| toy · stale rate · pre | 0.0% | – | – |" in md
    assert "| series | `night1` | `night2` | `night3` |" in md  # three runs of one day
    assert "| `pre` | `problems/pandas/applymap` | `night2`" in md
    assert issues["night3"].startswith(
        "## Nightly run `night3`\n\nCompared with `night2`.\n\n### What will break next (2)\n"
    )


# -- the workflow's runners: the sandbox must work there -----------------------------------

# the jobs live in the reusable workflow; nightly.yml only calls it (test_workflow_reusable)
WORKFLOW = ROOT / ".github" / "workflows" / "harness.yml"
SWITCH = "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
PREPARE = "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"
GATE = "harness doctor --check sandbox"
# the commands that execute solutions, model answers among them
EXECUTING = ("harness run", "harness bisect", "harness audit")


def _runs(job: dict[str, Any]) -> list[str]:
    return [str(step.get("run", "")) for step in job["steps"]]


def _first(runs: list[str], text: str) -> int:
    return next(i for i, run in enumerate(runs) if text in run)


def test_every_job_that_runs_solutions_lets_the_sandbox_in_first() -> None:
    """Ubuntu 24.04's AppArmor refuses the runner's user its namespaces: a job that runs
    solutions lifts that before any harness step, then fails unless the sandbox works."""
    jobs = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]
    executing = {
        name: _runs(job)
        for name, job in jobs.items()
        if any(command in run for run in _runs(job) for command in EXECUTING)
    }
    assert sorted(executing) == ["audit", "report", "run"]
    for name, runs in executing.items():
        prepare, gate = _first(runs, PREPARE), _first(runs, GATE)
        harness = [i for i, run in enumerate(runs) if "harness " in run and i != gate]
        assert prepare < gate < min(harness), name
        assert runs[gate].strip() == GATE, name  # its exit status is the step's
    assert not any(PREPARE in run for run in _runs(jobs["plan"]))  # it runs no solution


@pytest.mark.parametrize("present", [True, False])
@pytest.mark.parametrize("job", ["run", "audit", "report"])
def test_the_preparing_step_sets_the_switch_only_where_the_kernel_has_it(
    tmp_path: Path, job: str, present: bool
) -> None:
    """The step's own script, with ``sudo`` a stub that records what it was asked and the
    switch's file one of ours (there or not)."""
    jobs = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]
    script = jobs[job]["steps"][_first(_runs(jobs[job]), PREPARE)]["run"]
    switch = tmp_path / "apparmor_restrict_unprivileged_userns"
    if present:
        switch.write_text("1\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    sudo = bin_dir / "sudo"
    sudo.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path / "asked"}\n')
    sudo.chmod(0o755)
    assert SWITCH in script
    subprocess.run(
        ["bash", "-e", "-c", script.replace(SWITCH, str(switch))],
        env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"},
        check=True,
    )
    asked = tmp_path / "asked"
    if present:
        assert asked.read_text() == "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0\n"
    else:
        assert not asked.exists()  # a kernel without AppArmor's switch: nothing to lift
