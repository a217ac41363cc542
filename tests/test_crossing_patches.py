"""The patches a test has active, carried to the solution's process
(harness/envside/bridge/crossing_patches.py).

The module is standard library only; these tests run both sides in this process.
"""

from __future__ import annotations

import sys
from unittest import mock

import pytest

from harness.envside.bridge import crossing_lending, crossing_patches


class Local:
    """A class of a test's own (its module is not importable by name in the solution's
    process): only the check's process can name its instances."""


def test_active_patches_are_carried_and_instances_cannot_cross() -> None:
    crossing_patches.TRACKER.install()
    with mock.patch("json.dumps") as patched:
        found = crossing_patches.patches({})
        assert found == [[["module", "json"], "dumps", patched]]
    with mock.patch.object(crossing_lending.Lent, "lend"):
        assert crossing_patches.patches({})[0][0] == [
            "class",
            "harness.envside.bridge.crossing_lending",
            "Lent",
        ]
    assert crossing_patches.patches({}) == []
    holder = Local()
    holder.value = 1  # type: ignore[attr-defined]
    with (
        mock.patch.object(holder, "value", 2),
        pytest.raises(
            crossing_patches.CannotCrossError,
            match=r"^the test patches value of a Local, which only the check's process can name$",
        ),
    ):
        crossing_patches.patches({})


def test_the_solutions_module_is_patched_by_its_own_name() -> None:
    crossing_patches.TRACKER.install()
    stand_in = type(sys)("__test__")
    stand_in.randint = 1  # type: ignore[attr-defined]
    sys.modules["__test__"] = stand_in
    try:
        with mock.patch("__test__.randint", 4):
            assert crossing_patches.patches({"__test__": "__test__"}) == [
                [["solution", "__test__"], "randint", 4]
            ]
    finally:
        del sys.modules["__test__"]
