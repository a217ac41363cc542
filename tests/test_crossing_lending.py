"""What the check lends and sends the solution (harness/envside/crossing_lending.py): what
is lent, what is copied, and what the solution may do with what it was lent.

The module is standard library only; these tests run both sides in this process.
"""

from __future__ import annotations

import inspect
import io
import pickle
import urllib.error
from typing import Any
from unittest import mock

import pytest

from harness.envside import crossing_borrowing, crossing_lending


def test_mocks_streams_and_the_tests_own_functions_are_lent() -> None:
    def helper() -> int:
        return 1

    assert crossing_lending.lends(mock.MagicMock())
    assert crossing_lending.lends(io.StringIO())
    assert crossing_lending.lends(helper)  # a closure of a test: pickle cannot find it
    assert crossing_lending.lends(lambda: 1)
    assert crossing_lending.lends([].append)  # bound to an object of the check's
    assert crossing_lending.lends(x for x in [1])


def test_data_and_library_functions_are_copied() -> None:
    for value in (1, "a", [1, 2], {"a": (1, 2.5)}, None, b"x", pickle.dumps, dict.fromkeys, len):
        assert not crossing_lending.lends(value), value


def test_a_value_that_will_not_pickle_is_lent_whole() -> None:
    lent = crossing_lending.Lent()

    class Unpicklable:
        def __reduce__(self) -> str:
            raise TypeError("no")

    data = crossing_lending.dumps_to_solution([1, Unpicklable()], lent)
    assert len(lent.objects) == 1
    assert b"checker" in data


def test_the_solution_names_only_objects_it_was_lent() -> None:
    lent = crossing_lending.Lent()
    thing = object()
    number = lent.lend(thing)
    assert lent.lend(thing) == number
    assert lent.get(number) is thing
    for bad in (number + 1, "1", None, True):
        with pytest.raises(KeyError):
            lent.get(bad)


@pytest.mark.parametrize(
    "name",
    [
        "assert_called_with",
        "assert_not_called",
        "reset_mock",
        "return_value",
        "side_effect",
        "called",
        "call_count",
        "call_args_list",
        "mock_calls",
        "configure_mock",
        "_mock_children",
        "_mock_return_value",
        "__class__",
        "__dict__",
    ],
)
def test_a_mocks_machinery_is_out_of_reach(name: str) -> None:
    target = mock.MagicMock()
    for operation in ("getattr", "setattr"):
        with pytest.raises(AttributeError):
            crossing_lending.perform(target, operation, name, (0,), {})


def test_special_attributes_of_what_was_lent_are_out_of_reach() -> None:
    def helper() -> int:
        return 1

    for name in ("__globals__", "__code__", "__closure__", "__self__", "__dict__"):
        with pytest.raises(AttributeError):
            crossing_lending.perform(helper, "getattr", name, (), {})


def test_the_mocked_api_is_reachable() -> None:
    target = mock.MagicMock()
    # a private name of the mocked API is the API's (turtle reads Turtle._screen)
    assert isinstance(
        crossing_lending.perform(target, "getattr", "_screen", (), {}), mock.MagicMock
    )
    target.status_code = 200
    target.json.return_value = {"a": 1}
    assert crossing_lending.perform(target, "getattr", "status_code", (), {}) == 200
    json_method = crossing_lending.perform(target, "getattr", "json", (), {})
    assert crossing_lending.perform(json_method, "call", None, (), {}) == {"a": 1}
    json_method.assert_called_once_with()
    crossing_lending.perform(target, "setattr", "timeout", (5,), {})
    assert target.timeout == 5
    with pytest.raises(TypeError):
        crossing_lending.perform(target, "delete_everything", None, (), {})


def test_an_exception_that_will_not_pickle_whole_crosses_by_its_state() -> None:
    error = urllib.error.HTTPError("http://x", 404, "Not Found", {}, None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        pickle.loads(pickle.dumps(error))  # Python's own pickling of it fails
    lent = crossing_lending.Lent()
    rebuilt = crossing_borrowing.loads_from_checker(
        crossing_lending.dumps_to_solution(error, lent), crossing_lending.Lent()
    )
    assert type(rebuilt) is urllib.error.HTTPError
    assert rebuilt.code == 404


def test_a_tests_function_sent_as_code_keeps_its_name_signature_and_annotations() -> None:
    namespace: dict[str, Any] = {}
    source = "def f(x: int, y: 'str' = 'a') -> None:\n    return None\n"
    exec(compile(source, "<test>", "exec", dont_inherit=True), namespace)
    f = namespace["f"]
    buffer = io.BytesIO()
    crossing_lending.ToSolution(buffer, crossing_lending.Lent(), code=True).dump([f])
    (copy,) = crossing_borrowing.loads_from_checker(buffer.getvalue(), crossing_lending.Lent())
    assert copy is not f and copy.__name__ == "f"
    assert copy.__annotations__ == {"x": int, "y": "str", "return": None}
    assert str(inspect.signature(copy)) == str(inspect.signature(f))


class _Managed:
    def __enter__(self) -> str:
        return "entered"

    def __exit__(self, *exc: object) -> bool:
        return exc == (None, None, None)


def test_a_lent_context_manager_is_entered_and_left_as_the_with_statement_does() -> None:
    # mock_open's handle leaves through a side effect of three arguments (Python 3.13 gives
    # it one): called as ``with`` calls it, never with the handle itself in front
    handle = mock.mock_open(read_data="x")()
    handle.__exit__.side_effect = lambda exctype, excinst, exctb: exctb is None
    assert crossing_lending.perform(handle, "enter", None, (), {}) is handle
    assert crossing_lending.perform(handle, "exit", None, (), {}) is True
    managed = _Managed()
    assert crossing_lending.perform(managed, "enter", None, (), {}) == "entered"
    assert crossing_lending.perform(managed, "exit", None, (), {}) is True
