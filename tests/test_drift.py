from __future__ import annotations

from typing import Any

import pytest

from harness.analysis.causes import Cause, Diagnosis
from harness.analysis.drift import (
    API_DRIFT,
    DRIFTING,
    DriftClass,
    classify,
    era_order,
    related_warnings,
    trajectories,
    will_break,
)
from harness.core.results import CapturedWarning, Outcome, Part, Status
from harness.envside.protocol import OUTPUT_FORMAT

P, F, E, T, S, X = (
    Status.PASS,
    Status.FAIL,
    Status.ERROR,
    Status.TIMEOUT,
    Status.SKIPPED,
    Status.ENV_ERROR,
)


def o(combo: str, status: Status, attempt: int = 0, **fields: Any) -> Outcome:
    return Outcome(
        "r", combo, "p/1", "reference", status, library="pandas", attempt=attempt, **fields
    )


def steps(*statuses: Status) -> list[tuple[str, list[Outcome]]]:
    return [(f"c{i}", [o(f"c{i}", s)]) for i, s in enumerate(statuses)]


@pytest.mark.parametrize(
    ("statuses", "klass", "last_good", "first_bad"),
    [
        ((P, P, P), DriftClass.STABLE_PASS, None, None),
        ((F, E, T), DriftClass.STABLE_FAIL, None, None),
        ((P, P, E), DriftClass.DRIFTED, "c1", "c2"),
        ((P, F, F), DriftClass.DRIFTED, "c0", "c1"),
        ((E, P, P), DriftClass.FIXED, None, None),
        ((P, E, P), DriftClass.VERSION_SENSITIVE, "c0", "c1"),
        ((E, P, E), DriftClass.VERSION_SENSITIVE, "c1", "c2"),
        ((P, S, E), DriftClass.DRIFTED, "c0", "c2"),  # skipped combos are not in the sequence
        ((X, X), DriftClass.ENV_ERROR, None, None),
        ((S, S), DriftClass.NOT_APPLICABLE, None, None),
        ((P, X, P), DriftClass.STABLE_PASS, None, None),
    ],
)
def test_classes(
    statuses: tuple[Status, ...], klass: DriftClass, last_good: str | None, first_bad: str | None
) -> None:
    t = classify("p/1", "reference", steps(*statuses))
    assert (t.klass, t.last_good, t.first_bad) == (klass, last_good, first_bad)


def test_flaky_when_attempts_disagree() -> None:
    t = classify("p/1", "reference", [("c0", [o("c0", P, 0), o("c0", F, 1)]), ("c1", [o("c1", P)])])
    assert t.klass is DriftClass.FLAKY


def test_network_failures_are_never_drift() -> None:
    bad = o(
        "c1",
        E,
        exc_type="urllib.error.URLError",
        message="<urlopen error [Errno -2] Name or service not known>",
    )
    t = classify("p/1", "reference", [("c0", [o("c0", P)]), ("c1", [bad])])
    assert t.klass is DriftClass.NEEDS_NETWORK


def test_a_missing_program_is_never_drift() -> None:
    bad = o(
        "c1",
        E,
        exc_type="pytesseract.pytesseract.TesseractNotFoundError",
        message="tesseract is not installed [harness: no program 'tesseract' on this machine]",
    )
    t = classify("p/1", "reference", [("c0", [o("c0", P)]), ("c1", [bad])])
    assert (t.klass, t.diagnosis) == (DriftClass.NEEDS_TOOL, None)


def test_missing_library_data_is_never_drift() -> None:
    bad = o("c1", E, exc_type="LookupError", message="Resource stopwords not found.")
    t = classify("p/1", "reference", [("c0", [o("c0", P)]), ("c1", [bad])])
    assert (t.klass, t.diagnosis) == (DriftClass.NEEDS_DATA, None)


def stepped(combo: str, *messages: str) -> Outcome:
    """A CIBench-like outcome graded per step: a step passes when its message is ""."""
    parts = tuple(Part(f"step {i}", "fail" if m else "pass", m) for i, m in enumerate(messages))
    status = F if any(messages) else P
    return o(combo, status, exc_type="AssertionError" if any(messages) else "", parts=parts)


REPR = f"{OUTPUT_FORMAT}: output 'np.float64(-2.0)' is not the expected '-2.0'"
WRONG = "output '3' is not the expected '2'"


@pytest.mark.parametrize(
    ("runs", "klass"),
    [
        # the printed output changed, its values did not: its own class, not an API's drift
        ((("",), (REPR,)), DriftClass.FORMAT_DRIFT),
        ((("", ""), ("", REPR), (REPR, REPR)), DriftClass.FORMAT_DRIFT),
        # one step's value changed too: that is drift of an API, whatever else it printed
        ((("", ""), (REPR, WRONG)), DriftClass.DRIFTED),
        ((("",), (REPR,), (WRONG,)), DriftClass.DRIFTED),
        ((("",), (WRONG,)), DriftClass.DRIFTED),
        # back and forth on the repr alone is still a changed repr
        ((("",), (REPR,), ("",)), DriftClass.FORMAT_DRIFT),
        # what failed before it first passed is not its drift: its pass → fail is a repr
        (((WRONG,), ("",), (REPR,)), DriftClass.FORMAT_DRIFT),
        (((WRONG,), ("",), (WRONG,)), DriftClass.VERSION_SENSITIVE),
        # a repr that was fixed later is a fix, not drift
        (((REPR,), ("",)), DriftClass.FIXED),
    ],
)
def test_output_format_drift_is_its_own_class(
    runs: tuple[tuple[str, ...], ...], klass: DriftClass
) -> None:
    t = classify(
        "p/1", "reference", [(f"c{i}", [stepped(f"c{i}", *m)]) for i, m in enumerate(runs)]
    )
    assert t.klass is klass
    assert (t.klass in API_DRIFT) is (klass is not DriftClass.FORMAT_DRIFT and klass in DRIFTING)
    if klass is DriftClass.FORMAT_DRIFT:
        assert t.diagnosis is not None and t.diagnosis.cause is Cause.OUTPUT_FORMAT


def test_drift_carries_cause_and_the_warning_that_announced_it() -> None:
    warned = o(
        "c0",
        P,
        warnings=(
            CapturedWarning(
                "FutureWarning", "The frame.append method is deprecated", "pandas.core.frame"
            ),
            CapturedWarning(
                "DeprecationWarning", "np.find_common_type is deprecated", "numpy.core.numerictypes"
            ),
        ),
        versions={"pandas": "1.5.3"},
    )
    broken = o(
        "c1",
        E,
        exc_type="AttributeError",
        message="'DataFrame' object has no attribute 'append'",
        traceback="/e/site-packages/pandas/core/generic.py:1 in __getattr__",
        versions={"pandas": "2.0.0"},
    )
    t = classify("p/1", "reference", [("c0", [warned]), ("c1", [broken])])
    assert t.diagnosis == Diagnosis(Cause.REMOVED_API, "pandas.DataFrame.append", "pandas")
    assert [w.message for w in t.warnings] == ["The frame.append method is deprecated"]
    assert t.changed == {"pandas": ("1.5.3", "2.0.0")}


def test_a_drift_belongs_to_the_library_its_failure_concerns() -> None:
    # a task listing numpy first, whose test used unittest's assertAlmostEquals (3.12)
    broken = o(
        "c1",
        E,
        exc_type="AttributeError",
        message="'TestCases' object has no attribute 'assertAlmostEquals'"
        " [harness: TestCases derives from unittest.TestCase]",
    )
    t = classify("p/1", "reference", [("c0", [o("c0", P)]), ("c1", [broken])])
    assert (t.library, t.diagnosis) == (
        "python",
        Diagnosis(Cause.REMOVED_API, "unittest.TestCase.assertAlmostEquals", "python"),
    )
    # a failure that points nowhere stays the problem's own
    vague = classify("p/1", "reference", [("c0", [o("c0", P)]), ("c1", [o("c1", F)])])
    assert vague.library == "pandas"


@pytest.mark.parametrize(
    ("symbol", "library", "expected"),
    [
        ("pandas.DataFrame.set_axis(inplace=)", "pandas", ["set_axis 'inplace' is deprecated"]),
        ("numpy.product", "numpy", ["`product` is deprecated"]),
        ("", "numpy", ["`product` is deprecated", "np.find_common_type is deprecated"]),
        ("", "scipy", []),
        ("sklearn.Thing.fit", "scikit-learn", []),
    ],
)
def test_related_warnings(symbol: str, library: str, expected: list[str]) -> None:
    warnings = [
        CapturedWarning("FutureWarning", "set_axis 'inplace' is deprecated", "pandas.core.frame"),
        CapturedWarning("DeprecationWarning", "`product` is deprecated", "numpy.core.fromnumeric"),
        CapturedWarning(
            "DeprecationWarning", "np.find_common_type is deprecated", "numpy.core.numerictypes"
        ),
    ]
    found = related_warnings(warnings, Diagnosis(Cause.REMOVED_API, symbol, library))
    assert [w.message for w in found] == expected


def test_era_order_follows_versions_not_matrix_order() -> None:
    versions = {
        "latest": {"python": "3.13.0", "numpy": "2.5.5", "pandas": "3.1.1"},
        "y2022": {"python": "3.10.13", "numpy": "1.21.6", "pandas": "1.3.5"},
        "y2024": {"python": "3.10.13", "numpy": "1.26.4", "pandas": "1.5.3"},
        "broken": {},
    }
    assert era_order(["latest", "y2022", "broken", "y2024"], versions) == [
        "y2022",
        "broken",
        "y2024",
        "latest",
    ]
    # incomparable combos keep their matrix order
    grid = {"a": {"numpy": "2.0", "pandas": "1.0"}, "b": {"numpy": "1.0", "pandas": "2.0"}}
    assert era_order(["a", "b"], grid) == ["a", "b"]


def test_trajectories_and_will_break() -> None:
    outcomes = [
        o("c1", P, warnings=(CapturedWarning("FutureWarning", "soon", "pandas.core.frame"),)),
        o(
            "c0",
            P,
            warnings=(
                CapturedWarning("FutureWarning", "soon", "pandas.core.frame"),
                CapturedWarning("DeprecationWarning", "invalid escape sequence '\\s'", "<python>"),
            ),
        ),
        o(
            "c2",
            E,
            warnings=(
                CapturedWarning("FutureWarning", "ignored: not a pass", "pandas.core.frame"),
            ),
        ),
    ]
    (t,) = trajectories(outcomes, ["c0", "c1", "c2"])
    assert [c for c, _ in t.steps] == ["c0", "c1", "c2"]
    assert t.klass is DriftClass.DRIFTED
    (group,) = will_break(outcomes)
    assert (group.library, group.category, group.message) == ("pandas", "FutureWarning", "soon")
    assert group.executions == (("c0", "p/1", "reference"), ("c1", "p/1", "reference"))
