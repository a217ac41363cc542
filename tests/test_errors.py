"""User-facing errors: one line, ``file[:line]: where: what``, exit status 2."""

from __future__ import annotations

import pytest

from harness.core.errors import (
    HarnessError,
    ProblemError,
    SpecError,
    SpecErrorGroup,
    UsageError,
)


@pytest.mark.parametrize(
    ("file", "where", "problem", "line", "message"),
    [
        ("matrix.toml", "combo 'a'.numpy", "'1.2x' is not a valid version", 7,
         "matrix.toml:7: combo 'a'.numpy: '1.2x' is not a valid version"),
        ("matrix.toml", None, "file not found", None, "matrix.toml: file not found"),
        ("matrix.toml", "", "empty where", None, "matrix.toml: empty where"),
        ("m.toml", "x", "line 0 is no line", 0, "m.toml: x: line 0 is no line"),
        # whatever a resolver printed is folded into the one line
        ("m.toml", "combo 'b'", "No solution found:\n  ╰─▶ because\n\tnumpy==99", 3,
         "m.toml:3: combo 'b': No solution found: ╰─▶ because numpy==99"),
        ("a.jsonl", "line 4", "  padded  ", 4, "a.jsonl:4: line 4: padded"),
    ],
)  # fmt: skip
def test_render(file: str, where: str | None, problem: str, line: int | None, message: str) -> None:
    error = HarnessError(file, where, problem, line=line)
    assert str(error) == error.render() == message
    assert (error.file, error.where, error.problem, error.line) == (file, where, problem, line)


@pytest.mark.parametrize("kind", [HarnessError, SpecError, ProblemError])
def test_every_kind_exits_with_status_2(kind: type[HarnessError]) -> None:
    error = kind("f", None, "bad")
    assert error.exit_code == 2
    assert isinstance(error, HarnessError)
    assert str(error) == "f: bad"


def test_a_usage_error_is_the_command_s() -> None:
    error = UsageError("--resume takes no --combos")
    assert str(error) == "harness: --resume takes no --combos"
    assert (error.file, error.where, error.line, error.exit_code) == ("harness", None, None, 2)


def test_a_group_of_spec_errors_is_a_line_each() -> None:
    first = SpecError("m.toml", "matrix.timeout", "expected a positive number", line=2)
    second = SpecError("m.toml", "combo 'a'.numpy", "'1.2x' is not a valid version", line=5)
    group = SpecErrorGroup([first, second])
    assert isinstance(group, SpecError) and group.exit_code == 2
    assert group.lines() == (
        "m.toml:2: matrix.timeout: expected a positive number",
        "m.toml:5: combo 'a'.numpy: '1.2x' is not a valid version",
    )
    assert str(group) == "\n".join(group.lines())
    assert group.errors == (first, second) and first.lines() == (str(first),)
