"""The one JSONL reader: rows with their line numbers, and one-line errors."""

from __future__ import annotations

import gzip
from typing import TYPE_CHECKING

import pytest

from harness.core.errors import ProblemError
from harness.core.jsonl import line_error, read_rows

if TYPE_CHECKING:
    from pathlib import Path


def test_rows_come_with_their_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"a": 1}\n{"b": [2]}\n', encoding="utf-8")
    assert list(read_rows(path)) == [(1, {"a": 1}), (2, {"b": [2]})]


def test_blank_lines_are_skipped_but_counted(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('\n{"a": 1}\n   \n\r\n{"a": 2}', encoding="utf-8")
    assert list(read_rows(path)) == [(2, {"a": 1}), (5, {"a": 2})]


def test_gzip_by_suffix(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write('{"a": 1}\n\n{"a": 2}\n')
    assert list(read_rows(path)) == [(1, {"a": 1}), (3, {"a": 2})]


def test_a_line_separator_inside_a_string_stays_in_its_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"a": "x\u2028y"}\n{"a": 2}\n', encoding="utf-8")
    assert list(read_rows(path)) == [(1, {"a": "x\u2028y"}), (2, {"a": 2})]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": 1}\n{"a": \n', "r.jsonl:2: line 2: invalid JSON: "),
        ('{"a": 1}\n\n[1, 2]\n', "r.jsonl:3: line 3: expected a JSON object"),
        ('"text"\n', "r.jsonl:1: line 1: expected a JSON object"),
        ("", "r.jsonl: empty: no JSON rows"),
        ("\n  \n", "r.jsonl: empty: no JSON rows"),
    ],
)
def test_mistakes_name_the_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProblemError) as info:
        list(read_rows(path, "r.jsonl"))
    rendered = str(info.value)
    assert "\n" not in rendered
    assert rendered.startswith(message) if message.endswith(": ") else rendered == message


def test_a_file_that_cannot_be_read_fails_before_any_row(tmp_path: Path) -> None:
    with pytest.raises(ProblemError, match=r"^missing.jsonl: file not found$"):
        read_rows(tmp_path / "missing.jsonl", "missing.jsonl")
    truncated = tmp_path / "t.jsonl.gz"
    truncated.write_bytes(gzip.compress(b'{"a": 1}\n' * 100)[:-12])
    with pytest.raises(ProblemError, match=r"^t.jsonl.gz: cannot read: "):
        read_rows(truncated, "t.jsonl.gz")
    latin = tmp_path / "l.jsonl"
    latin.write_bytes(b'{"a": "\xe9"}\n')
    with pytest.raises(ProblemError, match=r"^l.jsonl: cannot read: 'utf-8' codec"):
        read_rows(latin, "l.jsonl")


def test_line_error_names_the_key_or_the_line() -> None:
    assert str(line_error("f.jsonl", 4, "missing")) == "f.jsonl:4: line 4: missing"
    assert str(line_error("f.jsonl", 4, "missing", "task_id")) == "f.jsonl:4: task_id: missing"
