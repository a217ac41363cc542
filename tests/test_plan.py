"""harness.app.run's stages, without building environments: from a request to a job,
resuming, the manifest a run keeps, and the job that bisects a finished run."""

from __future__ import annotations

import json
from dataclasses import fields, replace
from pathlib import Path

import pytest

from harness import cli
from harness.app import plan as planning
from harness.app.bisect import bisect_job, bisect_target
from harness.core.errors import HarnessError, RunFileError, UsageError
from harness.core.problem import Solution
from harness.execute import job as job_module
from harness.execute.job import Job, _write_manifest, mark_finished, require_sandbox
from harness.execute.rundir import RunDir, RunInputs, RunManifest, RunRequest, resume
from harness.execute.runner import RunOptions, SandboxState, make_batch
from harness.matrix import spec
from harness.problems import sets as problemsets
from harness.problems.answers import load_solutions
from tests.conftest import Writer

MATRIX = """
[matrix]
python = "3.11"
timeout = 30
[combos.new]
numpy = "2.2.6"
[combos.old]
numpy = "1.26.4"
"""
PROBLEM = """
library = "numpy"
prompt = "Give {n}."
setup = "import numpy as np"
reference = "result = {n}"
check = "assert result == {n}"
[idioms]
old = "result = np.int64({n})"
"""


@pytest.fixture
def inputs(write: Writer, tmp_path: Path) -> RunRequest:
    """A request for a two-combo matrix, three problems and one model's answers."""
    write("matrix.toml", MATRIX)
    for n in range(3):
        write(f"set/numpy/p{n}.toml", PROBLEM.format(n=n))
    write("gpt-answers.jsonl", '{"problem_id": "set/numpy/p1", "code": "result = 1"}\n')
    return RunRequest(
        matrix=str(tmp_path / "matrix.toml"),
        problems=(str(tmp_path / "set"),),
        answers=(str(tmp_path / "gpt-answers.jsonl"),),
        idioms=False,  # references and answers only (harness run --no-idioms)
    )


def plan(request: RunRequest, tmp_path: Path, **given: object) -> Job:
    options = {"results": tmp_path / "results", "env_root": tmp_path / "envs", "run_id": "r1"}
    return planning.plan(request, **{**options, **given})  # type: ignore[arg-type]


def test_a_request_is_what_harness_run_was_given() -> None:
    parser = cli._parser()
    defaults = vars(parser.parse_args(["run"]))
    assert {f.name for f in fields(RunRequest)} <= set(defaults)  # named as the options
    assert RunRequest.from_dict(defaults) == RunRequest()  # with the same defaults
    given = vars(parser.parse_args(["run", "--combos", "a,b", "--no-guard", "--timeout", "3"]))
    assert RunRequest.from_dict(given) == RunRequest(combos=("a,b",), guard=False, timeout=3.0)
    given = vars(parser.parse_args(["run", "--allow-unsandboxed-answers"]))
    assert RunRequest.from_dict(given) == RunRequest(allow_unsandboxed_answers=True)


# -- plan ------------------------------------------------------------------------------------


def test_a_request_becomes_a_job(inputs: RunRequest, tmp_path: Path) -> None:
    job = plan(inputs, tmp_path, jobs=3)
    assert [c.id for c in job.combos] == ["new", "old"]
    assert [p.id for p in job.problems] == ["set/numpy/p0", "set/numpy/p1", "set/numpy/p2"]
    assert [(s.problem_id, s.source) for s in job.solutions] == [
        ("set/numpy/p0", "reference"),
        ("set/numpy/p1", "reference"),
        ("set/numpy/p2", "reference"),
        ("set/numpy/p1", "model:gpt"),
    ]
    assert job.run_dir == RunDir(tmp_path / "results" / "r1")
    assert job.options.jobs == 3
    assert job.options.timeout == 30  # the matrix's
    assert job.options.memory_mb == RunOptions().memory_mb
    assert job.options.hide == (str(tmp_path / "set"), str(tmp_path / "results"))
    assert job.inputs == RunInputs(inputs.problems, inputs.answers, None, inputs)
    assert not job.resume


def test_what_the_request_chooses(inputs: RunRequest, tmp_path: Path) -> None:
    request = replace(
        inputs,
        combos=("o*",),
        problem_id=("set/numpy/p2",),
        no_reference=True,
        idioms=True,
        answers=(),
        timeout=5.0,
        memory_mb=0,
        fresh_for=("numpy,scipy",),
    )
    job = plan(request, tmp_path)
    assert [c.id for c in job.combos] == ["old"]
    assert job.solutions == [Solution("set/numpy/p2", "idiom:old", "result = np.int64(2)")]
    assert (job.options.timeout, job.options.memory_mb) == (5.0, None)
    assert job.options.fresh_for == ("numpy", "scipy")


def test_shards_split_the_problems(inputs: RunRequest, tmp_path: Path) -> None:
    first = plan(replace(inputs, shard="1/2"), tmp_path)
    second = plan(replace(inputs, shard="2/2"), tmp_path)
    ids = sorted(p.id for job in (first, second) for p in job.problems)
    assert ids == ["set/numpy/p0", "set/numpy/p1", "set/numpy/p2"]
    assert first.inputs.shard == "1/2"


@pytest.mark.parametrize(
    ("change", "given", "message"),
    [
        ({"combos": ("nope",)}, {}, "no combo matches the selection (combos: new, old)"),
        ({}, {"jobs": 0}, "--jobs and --repeat must be at least 1"),
        ({"repeat": 0}, {}, "--jobs and --repeat must be at least 1"),
        ({"shard": "x"}, {}, "--shard 'x' is not I/N, e.g. 2/4"),
        ({"shard": "3/2"}, {}, "--shard '3/2': I must be between 1 and N"),
        (
            {"library": ("pandas",)},
            {},
            "no problems selected (check --library, --problem-id, --limit, --shard)",
        ),
        ({}, {"run_id": "a b"}, "--run-id 'a b': use lowercase letters, digits, '-' and '_'"),
        (
            {},
            {"run_id": "Nightly"},
            "--run-id 'Nightly': use lowercase letters, digits, '-' and '_'",
        ),
        (
            {"guard_allowlist": "/nonexistent"},
            {},
            "--guard-allowlist /nonexistent: No such file or directory",
        ),
    ],
)
def test_a_bad_request_is_refused_before_any_work(
    inputs: RunRequest,
    tmp_path: Path,
    change: dict[str, object],
    given: dict[str, object],
    message: str,
) -> None:
    with pytest.raises(UsageError) as caught:
        plan(replace(inputs, **change), tmp_path, **given)  # type: ignore[arg-type]
    assert str(caught.value) == f"harness: {message}"
    assert not (tmp_path / "results").exists()


def test_answers_may_name_their_model(inputs: RunRequest, tmp_path: Path) -> None:
    problems = problemsets.load(inputs.problems)
    solutions = load_solutions(problems, problems, [f"me={inputs.answers[0]}"], reference=False)
    assert [s.source for s in solutions] == ["model:me"]


# -- no model answer runs unsandboxed unless the request says so -----------------------------


def test_the_option_reaches_the_batch_and_the_manifest(inputs: RunRequest, tmp_path: Path) -> None:
    assert plan(inputs, tmp_path).options.unsandboxed_answers is False
    job = plan(replace(inputs, allow_unsandboxed_answers=True), tmp_path)
    assert job.options.unsandboxed_answers is True
    assert make_batch([], job.options).options.unsandboxed_answers is True
    _write_manifest(job)
    written = job.run_dir.read_manifest()
    assert written is not None and written.options is not None
    assert written.options.unsandboxed_answers is True
    assert written.inputs.command is not None
    assert written.inputs.command.allow_unsandboxed_answers is True
    # what re-runs the run's executions (bisection, repair) lets them out as the run did
    assert bisect_job(str(job.run_dir.root), None, [], [], tmp_path).options.unsandboxed_answers


def test_no_sandbox_with_model_answers_needs_the_explicit_option(
    inputs: RunRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--no-sandbox`` is not the user saying model answers may run unsandboxed (it is
    for trusted code): a run with answers needs ``--allow-unsandboxed-answers`` too."""
    monkeypatch.setattr(job_module, "ask_sandbox", _never_asked)
    with pytest.raises(UsageError) as caught:
        require_sandbox(plan(replace(inputs, sandbox=False), tmp_path))
    assert str(caught.value) == (
        "harness: --no-sandbox would run model answers unsandboxed: add "
        "--allow-unsandboxed-answers to run them so, or drop --no-sandbox"
    )
    allowed = replace(inputs, sandbox=False, allow_unsandboxed_answers=True)
    assert require_sandbox(plan(allowed, tmp_path)) is None
    # references alone are trusted: --no-sandbox is enough for them
    assert require_sandbox(plan(replace(inputs, sandbox=False, answers=()), tmp_path)) is None


def _never_asked(*_args: object) -> SandboxState:
    raise AssertionError("the env side was asked")


def test_a_refused_sandbox_stops_a_run_with_answers_in_one_line(
    inputs: RunRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[object] = []
    refused = SandboxState("[Errno 1] unshare: Operation not permitted", "run as root", "none")

    def ask(python: str, options: RunOptions) -> SandboxState:
        asked.append(options)
        return refused

    monkeypatch.setattr(job_module, "ask_sandbox", ask)
    job = plan(inputs, tmp_path)
    with pytest.raises(HarnessError) as caught:
        require_sandbox(job)
    (line,) = caught.value.lines()
    assert line == (
        "sandbox: refused on this machine ([Errno 1] unshare: Operation not permitted), and "
        "model answers run only in it; fix: run as root, or pass --allow-unsandboxed-answers "
        "to run them unsandboxed"
    )
    assert asked == [job.options]  # asked how the run's own batches would run
    monkeypatch.setattr(job_module, "ask_sandbox", lambda *_a: replace(refused, sandbox="on"))
    assert require_sandbox(job) == replace(refused, sandbox="on")
    monkeypatch.setattr(job_module, "ask_sandbox", _never_asked)
    assert require_sandbox(plan(replace(inputs, allow_unsandboxed_answers=True), tmp_path)) is None
    assert require_sandbox(plan(replace(inputs, answers=()), tmp_path)) is None
    assert not (tmp_path / "results").exists()


# -- resume ----------------------------------------------------------------------------------


def manifest(
    results: Path, run_id: str, started: str, *, finished: str | None = None, matrix: str = "m"
) -> RunRequest:
    request = RunRequest(matrix=matrix, repeat=2)
    RunDir(results / run_id).write_manifest(
        RunManifest(run_id, started=started, finished=finished, inputs=RunInputs(command=request))
    )
    return request


def test_resume_picks_the_unfinished_run_started_last(tmp_path: Path) -> None:
    manifest(tmp_path, "older", "2026-01-01T00:00:00")
    newer = manifest(tmp_path, "newer", "2026-02-01T00:00:00", matrix="other.toml")
    manifest(tmp_path, "finished", "2026-03-01T00:00:00", finished="2026-03-01T01:00:00")
    RunDir(tmp_path / "no-command").write_manifest(RunManifest("no-command", started="2026-04"))
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "run.json").write_text("{not json")  # no candidate
    assert resume(tmp_path, None) == ("newer", newer)
    # named, any run that says how it was started
    assert resume(tmp_path, "finished")[0] == "finished"


@pytest.mark.parametrize(
    ("run_id", "message"),
    [
        (None, "harness: --resume: every run in {root} has finished; nothing to resume"),
        ("nope", "harness: --resume: no run 'nope' in {root}"),
        ("no-command", "harness: --resume: {root}/no-command/run.json does not say how the run was started"),
        ("broken", "{root}/broken/run.json: invalid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    ],
)  # fmt: skip
def test_a_bad_resume_target_is_one_line(tmp_path: Path, run_id: str | None, message: str) -> None:
    manifest(tmp_path, "done", "2026-01-01", finished="2026-01-02")
    RunDir(tmp_path / "no-command").write_manifest(RunManifest("no-command"))
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "run.json").write_text("{not json")
    with pytest.raises(HarnessError) as caught:
        resume(tmp_path, run_id)
    assert str(caught.value) == message.format(root=tmp_path)


# -- the manifest a run keeps -----------------------------------------------------------------


def test_the_manifest_is_kept_across_a_resumed_run(inputs: RunRequest, tmp_path: Path) -> None:
    first = plan(replace(inputs, combos=("old",)), tmp_path)
    _write_manifest(first)
    written = first.run_dir.read_manifest()
    assert written is not None
    assert written.resumable and written.combos == ("old",)
    assert written.matrix == inputs.matrix and written.baseline == "new"
    assert written.inputs.command == replace(inputs, combos=("old",))
    again = replace(plan(inputs, tmp_path), resume=True)
    _write_manifest(again)
    mark_finished(again)
    final = again.run_dir.read_manifest()
    assert final is not None
    assert final.started == written.started  # started once
    assert final.combos == ("old", "new")  # in the order they were started
    assert final.finished and not final.resumable
    assert json.loads(again.run_dir.manifest.read_text())["inputs"]["command"]["combos"] == []


# -- bisecting a finished run -----------------------------------------------------------------


def test_the_bisect_job_takes_the_runs_inputs(inputs: RunRequest, tmp_path: Path) -> None:
    job = plan(inputs, tmp_path)
    _write_manifest(job)
    found = bisect_job(str(job.run_dir.root), inputs.matrix, [], [], tmp_path)
    assert found.run_dir == job.run_dir and found.combos == ()
    assert found.spec == spec.load(inputs.matrix)
    assert [(s.problem_id, s.source) for s in found.solutions][-1] == ("set/numpy/p1", "model:gpt")
    assert len(found.problems) == 3


def test_the_bisect_job_replays_the_runs_limits_and_hidden_paths(
    inputs: RunRequest, tmp_path: Path
) -> None:
    # a BigCodeBench run: 240 s per task, its own memory cap and isolation, and what it hid
    request = replace(inputs, timeout=240, memory_mb=2048, isolation="fresh", guard=False)
    job = plan(request, tmp_path, jobs=2)
    _write_manifest(job)
    found = bisect_job(str(job.run_dir.root), None, [], [], tmp_path)
    assert found.options.timeout == 240
    assert (found.options.memory_mb, found.options.isolation) == (2048, "fresh")
    assert not found.options.guard and found.options.sandbox
    assert (
        found.options.hide
        == job.options.hide
        == (
            str(tmp_path / "set"),
            str(tmp_path / "results"),
        )
    )
    assert found.options.jobs == 2  # as many at once as the run
    assert found.spec.path == Path(inputs.matrix)  # the run's own matrix


def test_the_bisect_job_needs_a_run(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"^harness: nowhere: not a results directory"):
        bisect_job("nowhere", "matrix.toml", [], [], tmp_path)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "run.json").write_text("[]")
    with pytest.raises(RunFileError, match=r"run\.json: expected an object, got \[\]$"):
        bisect_job(str(tmp_path / "bad"), "matrix.toml", [], [], tmp_path)


def test_the_target_of_a_bisection(inputs: RunRequest, tmp_path: Path) -> None:
    args = (inputs.matrix, None, "set/numpy/p2", "idiom:old", inputs.problems, inputs.answers)
    matrix, combo, execution, options = bisect_target(*args)
    assert options.timeout == matrix.timeout == 30  # the matrix's, as a run of it has
    assert options.hide == (str(Path(inputs.problems[0]).absolute()),)
    assert combo.id == matrix.baseline == "new"
    assert (execution.problem.id, execution.solution.code) == (
        "set/numpy/p2",
        "result = np.int64(2)",
    )


@pytest.mark.parametrize(
    ("combo", "problem", "source", "message"),
    [
        ("nope", "set/numpy/p1", "reference", "--combo 'nope': no such combo in {matrix}"),
        (None, "nope", "reference", "--problem 'nope': no such problem"),
        (None, "set/numpy/p1", "model:x", "--source 'model:x': no such solution for set/numpy/p1"),
    ],
)
def test_a_bad_bisection_target(
    inputs: RunRequest, combo: str | None, problem: str, source: str, message: str
) -> None:
    with pytest.raises(UsageError) as caught:
        bisect_target(inputs.matrix, combo, problem, source, inputs.problems)
    assert str(caught.value) == "harness: " + message.format(matrix=inputs.matrix)
