"""``TomlFile``: read once, fail as one located line, and find the line of a dotted key."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from harness.core.errors import HarnessError, ProblemError, SpecError
from harness.core.tomlfile import TomlFile
from tests.conftest import Writer

MATRIX = textwrap.dedent("""
    # a comment [not.a.table]
    baseline = "old"

    [matrix]
    python = "3.11"
    timeout = 60

    [combos.old]
    numpy = "1.26.4"
    "pandas" = "1.5.3"

    [combos.new]   # the newest
    numpy = "2.2.6"

    [ axes . "grid" ]
    python = ["3.10", "3.13"]

    [[problems.cases]]
    name = "one"
""").lstrip("\n")


@pytest.fixture
def matrix(write: Writer) -> TomlFile:
    return TomlFile.load(write("matrix.toml", MATRIX), SpecError)


def test_load_keeps_path_text_and_data(write: Writer) -> None:
    path = write("m.toml", '[combos.a]\nnumpy = "1"\n')
    doc = TomlFile.load(path, SpecError)
    assert (doc.path, doc.display, doc.text) == (path, str(path), '[combos.a]\nnumpy = "1"\n')
    assert doc.data == {"combos": {"a": {"numpy": "1"}}}
    assert TomlFile.load(path, SpecError, "matrix.toml").display == "matrix.toml"


@pytest.mark.parametrize(
    ("keys", "line"),
    [
        (("baseline",), 2),  # a top-level key, before any table
        (("matrix",), 4),  # a table is found at its header
        (("matrix", "python"), 5),
        (("matrix", "timeout"), 6),
        (("combos", "old", "numpy"), 9),
        (("combos", "old", "pandas"), 10),  # a quoted key
        (("combos", "new", "numpy"), 13),  # the same key in another table
        (("combos", "new"), 12),  # a header with a comment after it
        (("axes", "grid", "python"), 16),  # spaces and quotes in a dotted header
        (("problems", "cases", "name"), 19),  # an array of tables
        (("combos", "old", "scipy"), 8),  # a key that is not there: its table
        (("combos", "gone", "numpy"), None),  # neither key nor table
        (("combos",), 8),  # a table only implied by [combos.old]: its first sub-table
        (("axes",), 15),
        (("nothing",), None),
        ((), None),
    ],
)
def test_line_of(matrix: TomlFile, keys: tuple[str, ...], line: int | None) -> None:
    assert matrix.line_of(*keys) == line


def test_comment_lines_are_not_tables(matrix: TomlFile) -> None:
    assert matrix.line_of("not", "a", "table") is None


def test_a_key_inside_a_multiline_string_is_not_the_key(write: Writer) -> None:
    text = '[problem]\nsetup = """\ntimeout = 5\n"""\ntimeout = -1\n'
    doc = TomlFile.load(write("p.toml", text), ProblemError)
    assert doc.data["problem"]["timeout"] == -1
    assert doc.line_of("problem", "timeout") == 5


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"a = 1\nb =\n", "{path}:2: invalid TOML: Invalid value"),
        (b"[x]\na = 1\na = 2\n", "{path}:3: invalid TOML: Cannot overwrite a value"),
        (b"[x]\n[x]\n", "{path}:2: invalid TOML: Cannot declare ('x',) twice"),
        (
            b"a = 1 b = 2\n",
            "{path}:1: invalid TOML: Expected newline or end of document after a statement",
        ),
        # no line to give: the message keeps where the parser stopped
        (b"a = [1,\n", "{path}: invalid TOML: Invalid value (at end of document)"),
        (
            b"\xff\xfe",
            "{path}: cannot read: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte",
        ),
    ],
)
def test_unreadable_files_are_one_located_line(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    with pytest.raises(SpecError) as caught:
        TomlFile.load(path, SpecError)
    assert str(caught.value) == message.format(path=path)
    assert "\n" not in str(caught.value)


def test_the_error_type_and_display_name_are_the_callers(tmp_path: Path) -> None:
    with pytest.raises(ProblemError) as caught:
        TomlFile.load(tmp_path / "missing.toml", ProblemError, "problems/missing.toml")
    assert str(caught.value) == "problems/missing.toml: file not found"
    assert (caught.value.file, caught.value.where, caught.value.line) == (
        "problems/missing.toml",
        None,
        None,
    )


def test_a_directory_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(HarnessError) as caught:
        TomlFile.load(tmp_path, SpecError)
    assert str(caught.value) == f"{tmp_path}: cannot read: [Errno 21] Is a directory: '{tmp_path}'"


def test_the_line_of_a_decode_error_is_kept_on_the_error(tmp_path: Path) -> None:
    path = tmp_path / "m.toml"
    path.write_text('[matrix]\npython = "3.11\n')
    with pytest.raises(SpecError) as caught:
        TomlFile.load(path, SpecError)
    assert caught.value.line == 2
    assert str(caught.value) == f"{path}:2: invalid TOML: Illegal character '\\n'"


def test_a_key_of_an_inline_table_is_at_the_line_naming_the_table(write: Writer) -> None:
    text = '[matrix]\npython = "3.11"\n\n[combos.a]\nsources = { torch = "cpu" }\n'
    doc = TomlFile.load(write("m.toml", text), SpecError)
    assert doc.line_of("combos", "a", "sources", "torch") == 5
    assert doc.line_of("matrix", "sources", "torch") is None  # no such key: no line
    assert doc.line_of("combos", "b", "sources", "torch") is None
