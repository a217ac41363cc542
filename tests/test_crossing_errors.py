"""Exceptions across the boundary (harness/envside/crossing_errors.py): the solution's
exceptions come back as their class, never as an instruction to the test runner.

The module is standard library only; these tests run both sides in this process.
"""

from __future__ import annotations

import json
import unittest

import pytest

from harness.envside import crossing_errors


def test_exceptions_come_back_as_their_class_with_their_arguments() -> None:
    report = {"type": "KeyError", "message": "'x'", "traceback": "<solution>:3 in f"}
    rebuilt = crossing_errors.rebuild(report, ("x",))
    assert type(rebuilt) is KeyError
    assert str(rebuilt) == "'x'"
    assert crossing_errors.remote_frames(rebuilt) == "<solution>:3 in f"
    # a class whose constructor wants more than a message: rebuilt all the same, so that
    # ``assertRaises(json.JSONDecodeError)`` catches it
    json_error = crossing_errors.rebuild(
        {"type": "json.decoder.JSONDecodeError", "message": "m"}, None
    )
    assert type(json_error) is json.JSONDecodeError


@pytest.mark.parametrize(
    "qualified",
    [
        "unittest.case.SkipTest",
        "KeyboardInterrupt",
        "GeneratorExit",
        "_pytest.outcomes.Skipped",
        "__test__.Anything",
        "builtins.object",
        "os.system",
    ],
)
def test_no_exception_becomes_an_instruction_to_the_test_runner(qualified: str) -> None:
    rebuilt = crossing_errors.rebuild({"type": qualified, "message": "m"}, ("m",))
    assert isinstance(rebuilt, crossing_errors.RemoteError)
    assert rebuilt.qualified == qualified
    assert not isinstance(rebuilt, unittest.SkipTest)


def test_system_exit_is_rebuilt_for_assert_raises() -> None:
    assert type(crossing_errors.rebuild({"type": "SystemExit", "message": "0"}, (0,))) is SystemExit
