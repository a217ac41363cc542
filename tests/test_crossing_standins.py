"""The solution's objects as the check sees them (harness/envside/crossing_standins.py).

The module is standard library only; these tests run both sides in this process.
"""

from __future__ import annotations

import operator

import pytest

from harness.envside import crossing_standins


def test_a_stand_in_answers_no_comparison() -> None:
    stand_in = crossing_standins.stand_in("object", 1, None)
    assert stand_in != 0
    assert stand_in != stand_in.__class__
    assert operator.eq(stand_in, stand_in)
    assert hash(stand_in) == id(stand_in)
    with pytest.raises(AttributeError):
        stand_in.equals  # type: ignore[attr-defined]  # noqa: B018 - not the check's to call
    with pytest.raises(AttributeError):
        stand_in.x = 1
