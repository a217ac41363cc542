"""The host side of execution: pairing, the batch file, and protocol lines → outcomes.

Most tests give ``ComboRun`` a fake interpreter that prints chosen protocol lines, so
every way a line can be good, bad or missing is checked exactly; one test drives the
real env side under this interpreter (it is stdlib-only: no combo environment needed).
"""

from __future__ import annotations

import json
import os
import stat
import sys
import tempfile
import textwrap
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest

from harness.core.problem import MODEL_PREFIX, Problem, Solution
from harness.core.results import CapturedWarning, Outcome, Part, Status
from harness.envs.build import ENVSIDE, EnvInfo
from harness.envside import protocol
from harness.execute.runner import (
    ComboRun,
    Execution,
    RunOptions,
    batches_root,
    make_batch,
    pair,
)

CHECK_THREE = textwrap.dedent("""
    def test_execution(solution):
        namespace = {}
        exec(solution, namespace)
        assert namespace["result"] == 3
""")


def problem(pid: str, timeout: float | None = None, requires: tuple[str, ...] = ()) -> Problem:
    return Problem(
        pid,
        pid,
        "set",
        "numpy",
        "",
        "result = 3",
        CHECK_THREE,
        timeout=timeout,
        requires=requires,
    )


def ids(executions: list[Execution]) -> list[tuple[str, str, int]]:
    return [(e.problem.id, e.solution.source, e.attempt) for e in executions]


P1, P2, P3 = problem("p/1"), problem("p/2"), problem("p/3")
REF1, REF2 = Solution("p/1", "reference", "result = 3"), Solution("p/2", "reference", "x")
MODEL1 = Solution("p/1", "model:m", "result = 4")
STRAY = Solution("p/9", "reference", "result = 3")  # a solution to no selected problem


@pytest.mark.parametrize(
    ("problems", "solutions", "repeat", "expected"),
    [
        ([], [REF1], 1, []),
        ([P1], [], 1, []),
        ([P1, P2], [REF1, REF2], 1, [("p/1", "reference", 0), ("p/2", "reference", 0)]),
        # problem order wins over solution order; within a problem, solutions as given
        (
            [P2, P1],
            [REF1, MODEL1, REF2],
            1,
            [("p/2", "reference", 0), ("p/1", "reference", 0), ("p/1", "model:m", 0)],
        ),
        ([P1], [MODEL1, REF1], 1, [("p/1", "model:m", 0), ("p/1", "reference", 0)]),
        ([P1, P3], [REF1, STRAY], 1, [("p/1", "reference", 0)]),  # strays and bare problems
        (
            [P1],
            [REF1, MODEL1],
            3,
            [("p/1", "reference", a) for a in range(3)] + [("p/1", "model:m", a) for a in range(3)],
        ),
        ([P1], [REF1], 0, []),
    ],
)
def test_pair(
    problems: list[Problem],
    solutions: list[Solution],
    repeat: int,
    expected: list[tuple[str, str, int]],
) -> None:
    assert ids(pair(problems, solutions, repeat)) == expected


def test_the_batch_names_what_each_reference_imports_for_the_zygote() -> None:
    # the answers may run without their reference (it ran while admission was measured):
    # the modules its reference imports still reach the zygote, named by the host
    with_imports = replace(
        problem("p/imports"), reference_code="import numpy as np\nfrom scipy import stats\n"
    )
    batch = make_batch([Execution(with_imports, MODEL1)], RunOptions())
    assert batch.problems["p/imports"].preload == ("numpy", "scipy", "scipy.stats")
    assert batch.executions[0].trusted is False


def test_the_batch_states_each_problem_once_and_trusts_no_model() -> None:
    slow = problem("p/slow", timeout=300, requires=("numpy", "scipy"))
    executions = [
        Execution(P1, REF1),
        Execution(P1, MODEL1),
        Execution(P1, MODEL1, attempt=1),
        Execution(slow, Solution("p/slow", "idiom:old", "y")),
    ]
    options = RunOptions(
        jobs=3, timeout=20, fresh_for=("torch",), hide=("/secret",), in_process=(("p/1", "x"),)
    )
    batch = make_batch(executions, options)
    assert batch.problems == {
        "p/1": protocol.ProblemSpec(CHECK_THREE, (), "numpy", in_process="x"),
        "p/slow": protocol.ProblemSpec(CHECK_THREE, ("numpy", "scipy"), "numpy"),
    }
    assert batch.executions == (
        protocol.ExecutionSpec("p/1", "result = 3", trusted=True),
        protocol.ExecutionSpec("p/1", "result = 4", trusted=False),
        protocol.ExecutionSpec("p/1", "result = 4", trusted=False),
        protocol.ExecutionSpec("p/slow", "y", trusted=True, timeout=300),
    )
    # the problem's own timeout wins; the others run under the batch's
    assert [batch.timeout_of(e) for e in batch.executions] == [20, 20, 20, 300]
    assert batch.options == protocol.Options(
        jobs=3,
        max_jobs=9,  # three times -j while cores sit idle, unless told otherwise
        timeout=20,
        memory_mb=6144,
        fresh_for=("torch",),
        hide=("/secret",),
    )
    # the batch file is JSON, and the env side reads back what the host wrote
    assert protocol.read_batch(json.dumps(batch.to_json())) == batch


def test_a_module_python_dropped_is_not_an_install_the_env_side_skips_for() -> None:
    # BigCodeBench/272 imports cgi, gone in Python 3.13: skipped there it was never seen
    # to drift; run, it fails on its import, which the drift analysis reads as removed
    dropped = problem("p/cgi", requires=("cgi", "http", "numpy", "distutils"))
    batch = make_batch([Execution(dropped, Solution("p/cgi", "reference", "x"))], RunOptions())
    assert batch.problems["p/cgi"].requires == ("http", "numpy")


@pytest.mark.parametrize(
    ("guard", "record", "expected"),
    [(True, False, True), (False, False, False), (False, True, True), (True, True, True)],
)
def test_measuring_the_allowlist_always_runs_the_guard(
    guard: bool, record: bool, expected: bool
) -> None:
    batch = make_batch([], RunOptions(guard=guard, record_transport=record))
    assert batch.options.guard is expected
    assert batch.options.record_transport is record
    assert batch.problems == {} and batch.executions == ()


def test_a_runs_defaults_are_the_batchs_where_they_are_not_the_hosts_own() -> None:
    batch, run = protocol.Options(), RunOptions()
    # all cores, a memory cap, and more workers while cores sit idle (``burst_jobs``)
    host_own = {"jobs", "memory_mb", "max_jobs"}
    shared = {f.name for f in fields(protocol.Options)} - host_own
    assert {name: getattr(run, name) for name in shared} == {
        name: getattr(batch, name) for name in shared
    }
    assert (batch.jobs, batch.memory_mb, batch.max_jobs) == (1, None, 0)
    assert run.burst_jobs is None  # twice ``jobs``


def test_batches_root_belongs_to_this_user_alone() -> None:
    root = batches_root()
    assert root == Path(tempfile.gettempdir()) / f"harness-batches-{os.getuid()}"
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    assert batches_root() == root  # made once, then reused


# -- a fake interpreter that speaks chosen protocol lines ------------------------------

FAKE_ENVSIDE = """
import json, os, shutil, sys
here = os.path.dirname(os.path.abspath(__file__))
flag, envside, command, batch = sys.argv[1:]
shutil.copy(batch, os.path.join(here, "seen-batch.json"))
with open(os.path.join(here, "seen-env.json"), "w") as fh:
    json.dump({"argv": [flag, envside, command], "var": os.environ.get("HARNESS_TEST_VAR"),
               "batch": batch}, fh)
with open(os.path.join(here, "script.json")) as fh:
    script = json.load(fh)
for line in script["stdout"]:
    print(line, flush=True)
sys.stderr.write(script["stderr"])
sys.exit(script["exit"])
"""


class FakeEnv:
    """An env directory whose ``bin/python`` plays back a script of protocol lines."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "bin").mkdir(parents=True)
        (root / "fake_envside.py").write_text(FAKE_ENVSIDE)
        python = root / "bin" / "python"
        python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{root / "fake_envside.py"}" "$@"\n')
        python.chmod(0o755)
        self.info = EnvInfo(
            "new",
            ok=True,
            python="3.11.7",
            path=str(root),
            versions={"numpy": "2.2.6", "pandas": "2.2.3", "tzdata": "2024.1"},
        )

    def play(self, stdout: list[str], stderr: str = "", exit_code: int = 0) -> None:
        script = {"stdout": stdout, "stderr": stderr, "exit": exit_code}
        (self.root / "script.json").write_text(json.dumps(script))

    def seen(self, name: str) -> Any:
        return json.loads((self.root / f"seen-{name}.json").read_text())


@pytest.fixture
def fake(tmp_path: Path) -> FakeEnv:
    return FakeEnv(tmp_path / "env")


def line(seq: int, **outcome: Any) -> str:
    return json.dumps({"seq": seq, "outcome": outcome})


EXECUTIONS = [Execution(P1, REF1), Execution(P1, MODEL1), Execution(P2, REF2, attempt=1)]


def run(
    env: EnvInfo,
    executions: list[Execution] = EXECUTIONS,
    seqs: list[int] | None = None,
    options: RunOptions | None = None,
) -> tuple[list[Outcome], list[Outcome], ComboRun]:
    """Run ``executions``; the outcomes written, and those passed to ``on_outcome``."""
    written: list[Outcome] = []
    seen: list[Outcome] = []

    class Sink:
        def write(self, outcome: Outcome) -> None:
            written.append(outcome)

    combo = ComboRun("r1", env, Sink(), options or RunOptions(jobs=1), on_outcome=seen.append)
    combo.run(executions, seqs)
    return written, seen, combo


DONE = protocol.done_line(
    protocol.Done(protocol.PROTOCOL, isolation="zygote", sandbox="on")
).strip()


def test_protocol_lines_become_outcomes_as_they_arrive(fake: FakeEnv) -> None:
    fake.play(
        [
            line(
                1,
                status="fail",
                exc_type="AssertionError",
                message="4 != 3",
                duration_s=0.25,
                warnings=[{"category": "FutureWarning", "message": "old", "module": "numpy.core"}],
                traceback="Traceback ...",
                output="printed",
                note="ran apart from its check",
                parts=[{"name": "t1", "status": "pass"}, {"name": "t2", "status": "error"}],
                transport={"numpy.ndarray": 1},
            ),
            line(1, status="pass"),  # a second report of one execution is ignored
            line(7, status="pass"),  # so is a report of no execution of the batch
            line(0, status="timeout"),
            DONE,
        ]
    )
    written, seen, combo = run(fake.info, seqs=[10, 11, 12])
    assert written == seen
    assert [(o.seq, o.source, o.status) for o in written] == [
        (11, "model:m", Status.FAIL),
        (10, "reference", Status.TIMEOUT),
        (12, "reference", Status.CRASH),  # never reported
    ]
    fail, timeout, missing = written
    assert fail == Outcome(
        run_id="r1",
        combo="new",
        problem_id="p/1",
        source="model:m",
        status=Status.FAIL,
        library="numpy",
        exc_type="AssertionError",
        message="4 != 3",
        duration_s=0.25,
        warnings=(CapturedWarning("FutureWarning", "old", "numpy.core"),),
        versions={"numpy": "2.2.6", "pandas": "2.2.3"},
        python="3.11.7",
        seq=11,
        traceback="Traceback ...",
        output="printed",
        note="ran apart from its check",
        parts=(Part("t1", "pass"), Part("t2", "error")),
        transport={"numpy.ndarray": 1},
    )
    assert (timeout.exc_type, timeout.message, timeout.duration_s) == (None, "", 0.0)
    assert (missing.problem_id, missing.attempt) == ("p/2", 1)
    assert missing.message == "the env-side runner exited with status 0 before running this"
    assert combo.executor == {k: v for k, v in json.loads(DONE).items() if k != "done"}


BROKEN = "the env-side runner broke the protocol: "


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("a line that is not JSON", "a line that is not JSON: 'a line that is not JSON'"),
        ("[1, 2]", "outcome line: expected an object, got [1, 2]"),
        (
            line(0, status="no-such-status"),
            (
                "outcome line: outcome.status: expected one of"
                " pass, fail, error, timeout, crash, skipped, env_error, got 'no-such-status'"
            ),
        ),
        (line(0, status="pass", workers=1), "outcome line: outcome: unknown key 'workers'"),
        (
            line(0, status="pass", transport=["not", "a", "mapping"]),
            "outcome line: outcome.transport: expected an object, got ['not', 'a', 'mapping']",
        ),
        (
            line(0, status="pass", parts=[{"name": "t"}]),
            "outcome line: outcome.parts[0]: missing key 'status'",
        ),
        (
            json.dumps({"seq": -1, "outcome": {"status": "pass"}}),
            "outcome line: seq: expected a whole number, got -1",
        ),
        (
            json.dumps({"done": True, "protocol": protocol.PROTOCOL, "workers": 1}),
            "done line: unknown key 'workers'",
        ),
        (
            json.dumps({"done": True, "protocol": 1, "isolation": "zygote"}),
            (
                "done line: protocol: the env side speaks protocol 1, this host protocol"
                f" {protocol.PROTOCOL} (they come from different versions of the harness)"
            ),
        ),
    ],
)
def test_a_line_the_host_cannot_read_makes_the_rest_env_errors(
    fake: FakeEnv, bad: str, message: str
) -> None:
    # never read into something it may not mean: what was not reported by then is an
    # env error that names the key, not a crash
    fake.play([line(2, status="pass"), bad, line(1, status="pass"), DONE])
    written, _, _ = run(fake.info)
    assert [(o.seq, o.status) for o in written] == [
        (2, Status.PASS),
        (1, Status.PASS),
        (0, Status.ENV_ERROR),
    ]
    assert written[-1].message == BROKEN + message


def test_a_refused_batch_is_env_errors_with_the_reason(fake: FakeEnv) -> None:
    refused = protocol.Done(protocol.PROTOCOL, refused="batch: unknown key 'limits'")
    fake.play([protocol.done_line(refused).strip()], exit_code=2)
    written, _, combo = run(fake.info)
    assert {(o.status, o.message) for o in written} == {
        (Status.ENV_ERROR, "the env-side runner refused the batch: batch: unknown key 'limits'")
    }
    assert len(written) == 3
    assert combo.executor == {}


def test_a_runner_that_dies_leaves_crashes_with_its_last_words(fake: FakeEnv) -> None:
    stderr = "".join(f"line {i}\n" for i in range(100))
    fake.play([line(0, status="pass")], stderr=stderr, exit_code=137)
    written, _, combo = run(fake.info)
    assert [(o.seq, o.status) for o in written] == [
        (0, Status.PASS),
        (1, Status.CRASH),
        (2, Status.CRASH),
    ]
    for crash in written[1:]:
        assert crash.message == "the env-side runner exited with status 137 before running this"
        assert crash.output == "".join(f"line {i}\n" for i in range(60, 100))  # the last 40
    assert combo.executor == {}


def test_the_batch_file_and_the_process(fake: FakeEnv) -> None:
    fake.play([line(i, status="pass") for i in range(3)])
    options = RunOptions(jobs=1, env=(("HARNESS_TEST_VAR", "seaborn-data"),), hide=("/x",))
    written, _, _ = run(fake.info, options=options)
    assert [o.status for o in written] == [Status.PASS] * 3
    seen = fake.seen("env")
    assert seen["argv"] == ["-s", str(ENVSIDE), "run"]
    assert seen["var"] == "seaborn-data"  # the run's extra environment reaches the runner
    batch_file = Path(seen["batch"])
    assert batch_file.parent.parent == batches_root()
    assert not batch_file.parent.exists()  # removed once the runner is done
    batch = protocol.read_batch(json.dumps(fake.seen("batch")))
    # every batch directory is hidden from executions, this run's and any other's
    assert batch.options.hide == ("/x", str(batches_root()))
    assert [x.trusted for x in batch.executions] == [True, False, True]


def test_a_combo_without_an_env_records_env_errors_without_running(tmp_path: Path) -> None:
    broken = EnvInfo("broken", ok=False, stage="resolve", error="No solution found: numpy==99")
    written, seen, combo = run(broken, seqs=[5, 6, 7])
    assert written == seen
    assert [(o.combo, o.seq, o.status, o.message) for o in written] == [
        ("broken", seq, Status.ENV_ERROR, "resolve: No solution found: numpy==99")
        for seq in (5, 6, 7)
    ]
    assert [o.attempt for o in written] == [0, 0, 1]
    assert combo.executor == {}


def test_nothing_to_run_starts_nothing(tmp_path: Path) -> None:
    absent = EnvInfo("new", ok=True, path=str(tmp_path / "no-such-env"))
    written, _, _ = run(absent, [])
    assert written == []


# -- the real env side, under this interpreter -------------------------------------------


def test_the_real_env_side_grades_references_and_model_answers(tmp_path: Path) -> None:
    env = tmp_path / "env"
    (env / "bin").mkdir(parents=True)
    python = env / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    info = EnvInfo("here", ok=True, python="3.11", path=str(env), versions={"numpy": "0"})
    executions = pair(
        [P1],
        [
            REF1,
            MODEL1,
            Solution("p/1", MODEL_PREFIX + "n", "result = undefined_name"),
            Solution("p/1", MODEL_PREFIX + "o", "result = 1 + 2"),
        ],
    )
    written, _, combo = run(info, executions, options=RunOptions(jobs=2, timeout=30))
    got = {o.source: (o.status, o.exc_type) for o in written}
    assert got == {
        "reference": (Status.PASS, None),
        "model:m": (Status.FAIL, "AssertionError"),
        "model:n": (Status.ERROR, "NameError"),
        "model:o": (Status.PASS, None),
    }
    assert sorted(o.seq for o in written) == [0, 1, 2, 3]
    assert all(o.versions == {"numpy": "0"} and o.duration_s > 0 for o in written)
    assert combo.executor["protocol"] == protocol.PROTOCOL
