from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.core.errors import ProblemError
from harness.core.problem import Problem
from harness.problems.answers import load_answers, model_name, postprocess

CONTEXT = "def test_execution(solution):\n    pass\n"


def problem(native: str, set_name: str = "ds1000") -> Problem:
    return Problem(f"{set_name}/{native}", native, set_name, "pandas", "", "", CONTEXT)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("result = 1\n", "result = 1\n"),
        (["result = 1\n"], "result = 1\n"),
        ("result = 1\n</code>\nEND SOLUTION", "result = 1\n"),
        ("```python\nresult = 1\n```\nSome prose after", "\nresult = 1\n"),
        ("<code>\nresult = 1\n", "\nresult = 1\n"),
        ("result = 1\nEND SOLUTION\nmore", "result = 1"),
        ("```python\na = 1\n``````python\nb = 2\n```", "\na = 1\n"),
        (["first", "second"], "first"),
        ("x = '</code>'", "x = '"),  # upstream's clean-up is textual; we keep it faithful
    ],
)
def test_postprocess_is_ds1000s(raw: str | list[str], clean: str) -> None:
    assert postprocess(raw) == clean


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("gpt-4-0613-answers.jsonl", "gpt-4-0613"),
        ("codex002-answers.jsonl", "codex002"),
        ("my model.jsonl", "my-model"),
        ("answers.jsonl.gz", "answers"),
    ],
)
def test_model_name_from_file(name: str, model: str) -> None:
    assert model_name(Path(name)) == model


def write_lines(path: Path, rows: list[object]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def test_answers_match_native_or_full_ids(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "m-answers.jsonl",
        [
            {"code": "result = 0", "metadata": {"problem_id": 0}},
            {"code": ["result = 1</code>"], "problem_id": "ds1000/1"},
            {"code": "result = 2", "problem_id": 2},
        ],
    )
    problems = [problem("0"), problem("1"), problem("2")]
    solutions = load_answers(path, problems, selected={"ds1000/0", "ds1000/1"})
    assert [(s.problem_id, s.source, s.code) for s in solutions] == [
        ("ds1000/0", "model:m", "result = 0"),
        ("ds1000/1", "model:m", "result = 1"),
    ]
    named = load_answers(path, problems, model="gpt")
    assert {s.source for s in named} == {"model:gpt"}


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (["{not json"], "a.jsonl:1: line 1: invalid JSON: "),
        (["[1, 2]"], "a.jsonl:1: line 1: expected a JSON object"),
        ([{"code": "x"}], "a.jsonl:1: line 1: no problem_id (or metadata.problem_id)"),
        (
            [{"problem_id": 0, "code": 3}],
            "a.jsonl:1: line 1: code (or answer, solution, steps) must be a string or a list of strings",
        ),
        (
            [{"problem_id": 0, "code": []}],
            "a.jsonl:1: line 1: code (or answer, solution, steps) must be a string or a list of strings",
        ),
        ([{"problem_id": 7, "code": "x"}], "a.jsonl:1: line 1: no problem '7' in the problem sets"),
        (
            [{"problem_id": 0, "code": "x"}, "", {"problem_id": "ds1000/0", "code": "y"}],
            "a.jsonl:3: line 3: second answer to ds1000/0 (first on line 1)",
        ),
    ],
)
def test_bad_answers_files(tmp_path: Path, rows: list[object], message: str) -> None:
    path = write_lines(tmp_path / "a.jsonl", rows)
    with pytest.raises(ProblemError) as info:
        load_answers(path, [problem("0")])
    text = str(info.value).replace(str(tmp_path) + "/", "")
    assert text.startswith(message) if message.endswith(": ") else text == message


def test_ambiguous_native_id(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "a.jsonl", [{"problem_id": 0, "code": "x"}])
    with pytest.raises(
        ProblemError, match=r"problem_id '0' is ambiguous \(in ds1000, other\): use the full id"
    ):
        load_answers(path, [problem("0"), problem("0", "other")])
