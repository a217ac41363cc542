"""What the check lends and sends the solution (harness/envside/bridge/crossing_lending.py): what
is lent, what is copied, and what the solution may do with what it was lent.

The module is standard library only; these tests run both sides in this process.
"""

from __future__ import annotations

import builtins
import inspect
import io
import pickle
import sqlite3
import sys
import urllib.error
from typing import Any
from unittest import mock

import pytest

from harness.envside.bridge import crossing_borrowing, crossing_kinds, crossing_lending


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


@pytest.mark.parametrize(
    "value",
    [
        sys._getframe(),
        sys._getframe().f_code,
        sys,
        {"builtins": builtins},
        [1, {"frame": sys._getframe()}],
        # a library's object that will not pickle: its public methods would be the
        # answer's to call in the checker (a connection's ``load_extension``)
        [sqlite3.connect(":memory:")],
    ],
    ids=["frame", "code", "module", "dict-holding-a-module", "list-holding-a-frame", "sqlite"],
)
def test_what_will_not_pickle_and_is_no_kind_is_refused_never_lent_whole(value: Any) -> None:
    lent = crossing_lending.Lent()
    lent.lend(mock.MagicMock(), crossing_kinds.MOCK)  # lent before: kept
    with pytest.raises(crossing_lending.NotLendableError, match="lends only mock"):
        crossing_lending.dumps_to_solution([mock.MagicMock(), value], lent)
    assert list(lent.objects) == [1]  # what was lent for the value that never went is taken back


def test_the_solution_names_only_objects_it_was_lent() -> None:
    lent = crossing_lending.Lent()
    thing = object()
    number = lent.lend(thing)
    assert lent.lend(thing) == number
    assert lent.get(number) is thing
    for bad in (number + 1, "1", None, True):
        with pytest.raises(KeyError):
            lent.get(bad)


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
