"""The check's objects in the solution's process (harness/envside/bridge/crossing_borrowing.py).

The module is standard library only; these tests run both sides in this process.
"""

from __future__ import annotations

import inspect
import io

from harness.envside.bridge import crossing_borrowing, crossing_lending


def test_a_stand_in_has_the_special_methods_its_object_has() -> None:
    stream = crossing_borrowing.checker_object(1, crossing_lending.describe(io.BytesIO(b"x")))
    assert not hasattr(stream, "__fspath__")  # PIL's Image.open tries a path first
    assert hasattr(stream, "__iter__")
    assert not callable(stream)
    function = crossing_borrowing.checker_object(2, crossing_lending.describe(lambda a, b=2: a))
    assert callable(function)
    assert function.__name__ == "<lambda>"
    assert str(inspect.signature(function)) == "(a, b=2)"
