from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.benchmarks.ds1000.answers import postprocess
from harness.core.errors import ProblemError
from harness.core.problem import Problem
from harness.problems.answers import load_answers, model_name, read_answers

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
            "a.jsonl:1: line 1: code must be a string or a list of strings",
        ),
        (
            [{"problem_id": 0, "code": []}],
            "a.jsonl:1: line 1: code must be a string or a list of strings",
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


# -- upstream's own answer files, as they are (harness/problems/shapes.py) -----------------


def gitchameleon_problem(native: str) -> Problem:
    return Problem(
        f"gitchameleon/{native}",
        native,
        "gitchameleon",
        "scipy",
        "",
        "",
        CONTEXT,
        metadata={"format": "gitchameleon"},
    )


def bigcodebench_problem(native: str) -> Problem:
    return Problem(
        f"bigcodebench/{native}",
        native,
        "bigcodebench",
        "pandas",
        "",
        "",
        CONTEXT,
        metadata={
            "format": "bigcodebench",
            "entry_point": "task_func",
            "complete_prompt": "import os\ndef task_func():\n",
            "code_prompt": "import os\ndef task_func():",
        },
    )


def test_gitchameleon_generations_keep_the_code_of_the_first_python_fence(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "gpt-gen.jsonl",
        [
            {
                "example_id": "0",
                "answer": "Use the new API:\n```python\nimport scipy\nx = 1\n```\nIt works since 1.8.",
            },
            {"example_id": "1", "answer": "import scipy\ny = 2\n", "solution": "ignored"},
        ],
    )
    read = read_answers(path, [gitchameleon_problem("0"), gitchameleon_problem("1")])
    assert [s.code for s in read.solutions] == ["\nimport scipy\nx = 1\n", "import scipy\ny = 2\n"]
    assert read.description == (
        "gpt-gen.jsonl: GitChameleon generations (example_id + answer), 2 answers "
        "(1 from a ```python block, 1 as is)"
    )


def test_gitchameleon_agent_results_give_their_output(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "agent.jsonl", [{"example_id": 0, "output": "```python\nz = 3\n```"}]
    )
    read = read_answers(path, [gitchameleon_problem("0")])
    assert [s.code for s in read.solutions] == ["\nz = 3\n"]
    assert read.description.startswith(
        "agent.jsonl: GitChameleon agent results (example_id + output)"
    )


@pytest.mark.parametrize(
    ("name", "row", "code", "how"),
    [
        # a solution is the program as is: a fence inside a string is the program's own
        (
            "s.jsonl",
            {"task_id": "BigCodeBench/0", "solution": "def task_func():\n    return '```'\n"},
            "def task_func():\n    return '```'\n",
            "as is",
        ),
        (
            "s.jsonl",
            {"task_id": "BigCodeBench/0", "completion": "    return 1\n"},
            "import os\ndef task_func():\n    return 1\n",
            "after the prompt",
        ),
        (
            "s.jsonl",
            {
                "task_id": "BigCodeBench/0",
                "raw_solution": "Here:\n```python\nimport os\ndef task_func():\n    return 2\nprint(task_func())\n```",
            },
            "import os\ndef task_func():\n    return 2",
            "sanitised as BigCodeBench does",
        ),
        (
            "m-sanitized-calibrated.jsonl",
            {"task_id": "BigCodeBench/0", "solution": "    return 3\n"},
            "import os\ndef task_func():\n    pass\n    return 3\n",
            "calibrated",
        ),
    ],
)
def test_bigcodebench_samples_as_its_evaluator_reads_them(
    tmp_path: Path, name: str, row: dict[str, str], code: str, how: str
) -> None:
    read = read_answers(
        write_lines(tmp_path / name, [row]), [bigcodebench_problem("BigCodeBench/0")]
    )
    assert [s.code for s in read.solutions] == [code]
    assert read.description.endswith(f"1 answers (1 {how})")


def test_a_line_without_its_shapes_code_field_says_which_shape_it_was_read_as(
    tmp_path: Path,
) -> None:
    path = write_lines(
        tmp_path / "g.jsonl",
        [{"example_id": "0", "answer": "x = 1"}, {"example_id": "1", "note": "no code"}],
    )
    with pytest.raises(ProblemError) as info:
        read_answers(path, [gitchameleon_problem("0"), gitchameleon_problem("1")])
    assert str(info.value).endswith(
        "g.jsonl:2: line 2: no answer or solution or output "
        "(a line of GitChameleon generations, by its keys)"
    )


def test_a_file_of_one_models_answers_to_several_benchmarks_reads_each_line_by_its_keys(
    tmp_path: Path,
) -> None:
    path = write_lines(
        tmp_path / "mixed.jsonl",
        [
            {"task_id": "BigCodeBench/0", "solution": "def task_func():\n    return 1\n"},
            {"example_id": "0", "answer": "```python\nx = 1\n```"},
        ],
    )
    read = read_answers(path, [bigcodebench_problem("BigCodeBench/0"), gitchameleon_problem("0")])
    assert [s.code for s in read.solutions] == ["def task_func():\n    return 1\n", "\nx = 1\n"]
    assert read.description == (
        "mixed.jsonl: BigCodeBench samples (task_id + solution) and GitChameleon generations "
        "(example_id + answer), 2 answers (1 as is, 1 from a ```python block)"
    )


def test_answers_to_problems_the_sets_dropped_are_skipped_and_said(tmp_path: Path) -> None:
    # a published generation file written for an older release of its dataset: the
    # answers that match run, the others are named in the file's one line
    path = write_lines(
        tmp_path / "a.jsonl",
        [
            {"problem_id": 7, "code": "result = 7"},
            {"problem_id": 0, "code": "result = 0"},
            {"problem_id": "gone/3", "code": "result = 3"},
        ],
    )
    read = read_answers(path, [problem("0")])
    assert [(s.problem_id, s.code) for s in read.solutions] == [("ds1000/0", "result = 0")]
    assert read.description.endswith(
        "1 answers (1 as is); 2 skipped, naming problems the problem sets do not hold: "
        "'7' (line 1), 'gone/3' (line 3)"
    )
