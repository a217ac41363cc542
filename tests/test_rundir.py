"""harness.execute.rundir: the typed run manifest and the readers and writers of a run directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.core.errors import RunFileError
from harness.core.findings import Finding
from harness.core.problem import Solution
from harness.core.results import Outcome, OutcomeWriter, Status, write_json
from harness.envs.build import EnvInfo
from harness.execute.rundir import RecordedOptions, RunDir, RunInputs, RunManifest, RunRequest
from harness.matrix.releases import NewRelease, ReleaseNews, ResolvedRelease

# -- run.json --------------------------------------------------------------------------------

# A manifest as `harness run` writes it (the shape of a real run's run.json).
WRITTEN: dict[str, Any] = {
    "schema": 1,
    "run_id": "killed",
    "started": "2026-11-30T16:23:46.896906+00:00",
    "finished": None,
    "matrix": "matrix.toml",
    "baseline": "np",
    "combos": ["np", "np-old"],
    "inputs": {
        "problems": ["problems"],
        "answers": ["slow-answers.jsonl"],
        "shard": None,
        "command": {
            "allow_unsandboxed_answers": False,
            "answers": ["slow-answers.jsonl"],
            "bisect": False,
            "compare_upstream": False,
            "combos": [],
            "fresh_for": [],
            "guard": True,
            "guard_allowlist": None,
            "guard_record": False,
            "idioms": True,
            "isolation": "zygote",
            "keyword": None,
            "library": [],
            "limit": None,
            "matrix": "matrix.toml",
            "measured_admission": True,
            "memory_mb": 6144,
            "nightly": False,
            "no_reference": False,
            "own_envs": False,
            "problem_id": [],
            "problems": [],
            "repeat": 1,
            "sandbox": True,
            "shard": None,
            "shard_durations": None,
            "tag": [],
            "timeout": 10.0,
        },
    },
    "options": {
        "jobs": 2,
        "timeout": 10.0,
        "memory_mb": 6144,
        "isolation": "fresh",
        "fresh_for": ["torch"],
        "sandbox": True,
        "unsandboxed_answers": False,
        "guard": False,
        "measured_admission": True,
        "hide": ["/data/problems", "/data/results"],
        "allowlist_extra": "",
    },
}


def test_a_written_manifest_reads_back_to_the_same_json() -> None:
    manifest = RunManifest.from_dict(WRITTEN)
    assert manifest.to_dict() == WRITTEN
    assert manifest.combos == ("np", "np-old")
    assert manifest.inputs.command == RunRequest(answers=("slow-answers.jsonl",), timeout=10.0)
    assert manifest.options == RecordedOptions(
        jobs=2,
        timeout=10.0,
        memory_mb=6144,
        isolation="fresh",
        fresh_for=("torch",),
        guard=False,
        hide=("/data/problems", "/data/results"),
    )
    assert manifest.resumable


def test_a_hand_written_manifest_takes_defaults() -> None:
    manifest = RunManifest.from_dict({"run_id": "r1", "baseline": "old", "combos": ["old"]})
    assert manifest == RunManifest("r1", baseline="old", combos=("old",))
    assert manifest.inputs == RunInputs()
    assert not manifest.resumable  # it does not say how it was started


def test_options_recorded_by_an_older_version_take_the_defaults() -> None:
    older = {**WRITTEN, "options": {"jobs": 2, "memory_mb": 6144, "timeout": 10.0}}
    options = RunManifest.from_dict(older).options
    assert options == RecordedOptions(jobs=2, timeout=10.0, memory_mb=6144)
    assert (options.isolation, options.sandbox, options.guard, options.hide) == (
        "zygote",
        True,
        True,
        (),
    )


def test_an_older_command_lacks_newer_options() -> None:
    recorded = {k: v for k, v in WRITTEN["inputs"]["command"].items() if k != "guard_record"}
    assert RunRequest.from_dict(recorded).guard_record is False
    recorded = {k: v for k, v in recorded.items() if k != "measured_admission"}
    assert RunRequest.from_dict(recorded).measured_admission is True
    # a run from before --allow-unsandboxed-answers let no model answer out of the sandbox
    recorded = {k: v for k, v in recorded.items() if k != "allow_unsandboxed_answers"}
    assert RunRequest.from_dict(recorded).allow_unsandboxed_answers is False
    written = RunManifest.from_dict(WRITTEN).options
    assert written is not None and written.unsandboxed_answers is False
    options = {k: v for k, v in WRITTEN["options"].items() if k != "unsandboxed_answers"}
    assert RunManifest.from_dict({**WRITTEN, "options": options}).options == written


texts = st.text(max_size=8)
names = st.lists(texts, max_size=3).map(tuple)
requests = st.builds(
    RunRequest,
    matrix=texts,
    combos=names,
    keyword=st.none() | texts,
    tag=names,
    problems=names,
    answers=names,
    no_reference=st.booleans(),
    idioms=st.booleans(),
    library=names,
    problem_id=names,
    limit=st.none() | st.integers(0, 10**6),
    shard=st.none() | texts,
    timeout=st.none() | st.floats(0, 1e6, allow_nan=False),
    memory_mb=st.integers(0, 10**6),
    isolation=st.sampled_from(["zygote", "fresh"]),
    fresh_for=names,
    repeat=st.integers(1, 50),
    sandbox=st.booleans(),
    allow_unsandboxed_answers=st.booleans(),
    guard=st.booleans(),
    bisect=st.booleans(),
    guard_allowlist=st.none() | texts,
    guard_record=st.booleans(),
)
manifests = st.builds(
    RunManifest,
    run_id=texts,
    schema=st.integers(0, 9),
    started=st.none() | texts,
    finished=st.none() | texts,
    matrix=st.none() | texts,
    baseline=st.none() | texts,
    combos=names,
    inputs=st.builds(
        RunInputs,
        problems=names,
        answers=names,
        shard=st.none() | texts,
        command=st.none() | requests,
    ),
    options=st.none()
    | st.builds(
        RecordedOptions,
        jobs=st.integers(1, 64),
        timeout=st.none() | st.floats(0, 1e6, allow_nan=False),
        memory_mb=st.none() | st.integers(0, 10**6),
        sandbox=st.booleans(),
        unsandboxed_answers=st.booleans(),
    ),
)


@given(manifests)
def test_manifests_round_trip_through_json(manifest: RunManifest) -> None:
    assert RunManifest.from_dict(json.loads(json.dumps(manifest.to_dict()))) == manifest


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"run_id": 7}, "run.json: run_id: expected a string, got 7"),
        ({"combos": "np"}, 'run.json: combos: expected a list of strings, got "np"'),
        ({"combos": ["np", 1]}, 'run.json: combos: expected a list of strings, got ["np", 1]'),
        ({"schema": "1"}, 'run.json: schema: expected an integer, got "1"'),
        ({"schema": True}, "run.json: schema: expected an integer, got true"),
        ({"finished": 0}, "run.json: finished: expected a string, got 0"),
        ({"inputs": []}, "run.json: inputs: expected an object, got []"),
        ({"options": {"jobs": None}}, "run.json: options.jobs: expected an integer, got null"),
        (
            {"options": {"jobs": 1, "timeout": "1"}},
            'run.json: options.timeout: expected a number, got "1"',
        ),
        (
            {"inputs": {"command": {"repeat": 1.5}}},
            "run.json: inputs.command.repeat: expected an integer, got 1.5",
        ),
        (
            {"inputs": {"command": {"sandbox": "yes"}}},
            'run.json: inputs.command.sandbox: expected true or false, got "yes"',
        ),
        (
            {"inputs": {"command": {"tag": "a" * 80}}},  # a long value is cut
            f'run.json: inputs.command.tag: expected a list of strings, got "{"a" * 58}…',
        ),
    ],
)
def test_a_bad_manifest_is_one_line_naming_file_and_key(
    change: dict[str, Any], message: str
) -> None:
    with pytest.raises(RunFileError) as caught:
        RunManifest.from_dict({**WRITTEN, **change})
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "r/run.json: expected an object, got []"),
        ({}, "r/run.json: run_id: missing"),
    ],
)
def test_not_a_manifest(data: object, message: str) -> None:
    with pytest.raises(RunFileError) as caught:
        RunManifest.from_dict(data, Path("r/run.json"))
    assert str(caught.value) == message


# -- a run directory ------------------------------------------------------------------------


def make_run(tmp_path: Path) -> RunDir:
    run = RunDir(tmp_path / "r1")
    run.write_manifest(RunManifest("r1", baseline="b", combos=("b", "a")))
    for combo in ("a", "b", "c"):
        with OutcomeWriter(run.outcomes(combo)) as writer:
            writer.write(Outcome("r1", combo, "p/1", "reference", Status.PASS))
    run.write_env("a", EnvInfo("a", ok=True, python="3.11.7", versions={"numpy": "2.1.3"}))
    return run


def test_the_manifest_and_the_combos(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    assert run.read_manifest() == RunManifest("r1", baseline="b", combos=("b", "a"))
    assert run.known_combos(run.read_manifest()) == ["b", "a", "c"]
    assert run.known_combos() == ["a", "b", "c"]  # no manifest: the order they were written
    assert [o.combo for o in run.read_all()] == ["a", "b", "c"]
    assert RunDir(tmp_path / "nothing").read_manifest() is None


def test_envs_and_locks(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    assert run.read_envs(["a", "b"]) == {
        "a": EnvInfo("a", ok=True, python="3.11.7", versions={"numpy": "2.1.3"})
    }
    assert run.read_lock("a") == ""
    run.write_lock("a", "numpy==2.1.3\n")
    assert run.read_lock("a") == "numpy==2.1.3\n"
    run.write_executor("a", {"sandbox": "on"})
    assert json.loads(run.executor_info("a").read_text()) == {"sandbox": "on"}


def test_answers_analysis_releases_and_summary(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    answers = [
        Solution("p/1", "model:gpt", "x = 1"),
        Solution("p/1", "reference", "x = 2"),  # not a model's: not kept
        Solution("p/2", "model:gpt", "x = 3"),
    ]
    run.write_answers(answers)
    assert run.read_answers() == [answers[0], answers[2]]

    assert run.read_analysis() == {}
    finding = Finding(
        "p/1", "reference", "old", "new", "numpy", first_bad="2.0.0", moved={"a": "1"}
    )
    run.write_analysis([finding])
    assert run.read_analysis() == {("p/1", "reference"): finding}

    assert run.read_releases() is None
    news = ReleaseNews(
        (NewRelease("numpy", "2.3.0rc1", pre=True, uploaded=""),),
        (ResolvedRelease("latest", "numpy", "latest", "2.2.6"),),
    )
    write_json(run.releases, news.to_dict())
    assert run.read_releases() == news

    assert run.read_summary() is None
    write_json(run.summary_json, {"run_id": "r1"})
    assert run.read_summary() == {"run_id": "r1"}


def test_an_unreadable_file_is_one_line(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    run.manifest.write_text("{not json")
    with pytest.raises(RunFileError) as caught:
        run.read_manifest()
    assert str(caught.value) == (
        f"{run.manifest}: invalid JSON: Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)"
    )
    write_json(run.analysis, [{"problem_id": "p/1"}])
    with pytest.raises(RunFileError, match=r"analysis.json: \[0\]: not a finding: 'source'$"):
        run.read_analysis()
