"""What one process would share, carried with each call (harness/envside/bridge/crossing_context.py).

The module is standard library only; these tests run both sides in this process.
"""

from __future__ import annotations

import warnings

from harness.envside.bridge import crossing_context


def test_warnings_are_raised_again_under_the_tests_filters() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        crossing_context.reemit(
            [["RuntimeWarning", "large", "<solution>", 3], ["no.such.Warning", "x", "f", 1]]
        )
    assert [(w.category, str(w.message)) for w in caught] == [
        (RuntimeWarning, "large"),
        (UserWarning, "x"),  # a category the check cannot name
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore")
        crossing_context.reemit([["RuntimeWarning", "large", "<solution>", 3]])
    assert caught == []
