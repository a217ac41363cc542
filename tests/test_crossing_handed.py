"""What the test hands the solution comes back as the test's own
(harness/envside/bridge/crossing_handed.py).

The module is standard library only; these tests run both sides in this process.
"""

from __future__ import annotations

import io
import math
import pickle

import pytest

from harness.envside.bridge import crossing_borrowing, crossing_handed, crossing_lending


def test_objects_a_task_configures_take_the_answers_state_data_does_not() -> None:
    class Model:
        def __init__(self) -> None:
            self.fitted = False

    original, changed = Model(), Model()
    changed.fitted = True
    assert crossing_handed.configured(original)
    assert crossing_handed.write_back(original, changed)
    assert original.fitted is True
    for data in ([1], {"a": 1}, (1,), "text"):
        assert not crossing_handed.configured(data)
    assert not crossing_handed.write_back(original, [1])  # never across types


def test_what_was_sent_comes_back_as_the_same_object_unchanged_and_as_a_copy_changed() -> None:
    lent, sent, kept = crossing_lending.Lent(), crossing_lending.Lent(), crossing_lending.Lent()
    values, other = [1, 2], {"k": [3]}
    handed = crossing_handed.handed((values, other), {}, sent)
    received = crossing_borrowing.loads_from_checker(
        crossing_lending.dumps_to_solution(((values, other), {}), lent), kept
    )
    crossing_handed.receive(received[0], received[1], handed)
    received[0][1]["k"].append(4)  # the answer changes its copy of one of them

    def back(pid: tuple[str, int]) -> object:
        assert pid[0] == "sent"
        return sent.get(pid[1])

    data = crossing_borrowing.dumps_to_checker((received[0][0], received[0][1]), kept)

    class Back(pickle.Unpickler):
        def persistent_load(self, pid: tuple[str, int]) -> object:
            return back(pid)

    returned = Back(io.BytesIO(data)).load()
    assert returned[0] is values  # unchanged: the test's own list
    assert returned[1] is not other  # changed: a copy, as the answer left it
    assert returned[1] == {"k": [3, 4]}
    crossing_handed.RECEIVED.clear()


def test_numpys_and_maths_nan_come_back_as_the_checks_own() -> None:
    # containers compare items by identity first: [np.nan] == [np.nan] in one process
    np = pytest.importorskip("numpy")
    lent = crossing_lending.Lent()
    buffer = io.BytesIO()
    crossing_borrowing.ToChecker(buffer, lent).dump([np.nan, math.nan, float("nan"), 1.5])

    def persistent(pid: object) -> object:
        assert isinstance(pid, tuple) and pid[0] == "nan"
        return crossing_handed.nan_constant(pid[1])

    unpickler = pickle.Unpickler(io.BytesIO(buffer.getvalue()))
    unpickler.persistent_load = persistent  # type: ignore[method-assign]
    got = unpickler.load()
    assert got[0] is np.nan and got[1] is math.nan  # noqa: PLW0177 - the very objects
    assert math.isnan(got[2]) and got[2] is not np.nan and got[2] is not math.nan  # noqa: PLW0177
    assert got == [np.nan, math.nan, got[2], 1.5]
