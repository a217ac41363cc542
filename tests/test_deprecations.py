"""Which deprecated APIs a model reaches for, and the knowledge date they give
(harness/analysis/deprecations.py), on answers whose answer is known."""

from __future__ import annotations

import datetime as dt

from harness.analysis.deprecations import ApiUse, measure, models
from harness.analysis.staleness import load_catalogue
from harness.core.problem import Solution
from harness.core.results import CapturedWarning, Outcome, Status
from harness.matrix.release_dates import day_of, load

CATALOGUE = load_catalogue()
DATES = load()


def solution(problem: str, code: str, model: str = "m") -> Solution:
    return Solution(problem, f"model:{model}", code)


def outcome(
    problem: str,
    status: Status,
    *,
    versions: dict[str, str],
    message: str = "",
    warnings: tuple[CapturedWarning, ...] = (),
) -> Outcome:
    return Outcome(
        "r",
        "c",
        problem,
        "model:m",
        status,
        message=message,
        versions=versions,
        warnings=warnings,
        exc_type="AttributeError" if status is Status.ERROR else None,
    )


def test_every_release_the_catalogue_names_has_its_day() -> None:
    missing = [
        f"{e.library} {v}"
        for e in CATALOGUE
        for v in (e.deprecated, e.removed, e.introduced)
        if v and day_of(DATES, e.library, v) is None
    ]
    assert missing == [], "run `python -m harness.matrix.release_dates`"


def test_an_old_api_used_warned_about_and_failing_where_removed() -> None:
    code = "result = df.append(other)\n"
    solutions = [solution("p1", code)]
    outcomes = [
        outcome(
            "p1",
            Status.PASS,
            versions={"pandas": "1.5.3"},
            warnings=(
                CapturedWarning(
                    "FutureWarning", "The frame.append method is deprecated", "pandas.core.frame"
                ),
            ),
        ),
        outcome(
            "p1",
            Status.ERROR,
            versions={"pandas": "2.2.3"},
            message="'DataFrame' object has no attribute 'append'",
        ),
    ]
    found = measure("m", solutions, outcomes, CATALOGUE, DATES, samples=50)
    (append,) = [a for a in found.apis if a.old.startswith("DataFrame.append")]
    assert (append.uses, append.warned, append.failed, append.knows) == (
        ("p1",),
        ("p1",),
        ("p1",),
        (),
    )
    assert found.stale_answers == ("p1",)
    # written as if before pandas 2.0.0 removed it
    assert found.date is not None and found.date < day_of(DATES, "pandas", "2.0.0")  # type: ignore[operator]
    assert ApiUse.from_dict(append.to_dict()) == append


def test_a_new_api_used_dates_the_knowledge_from_its_release_on() -> None:
    solutions = [
        solution("p1", "idx = pd.date_range('2020', periods=3, freq='ME')\n"),  # pandas 2.2.0
        solution("p2", "s = scipy.integrate.simpson(y, x=x)\n"),  # scipy 1.6.0
    ]
    found = measure("m", solutions, [], CATALOGUE, DATES, samples=50)
    assert found.newest.startswith("pandas 2.2.0")
    assert found.newest_day == day_of(DATES, "pandas", "2.2.0")
    assert found.date is not None and found.newest_day is not None
    assert found.date >= found.newest_day
    assert found.stale_answers == ()


def test_a_model_that_knows_a_fixed_day_comes_out_after_what_it_uses_and_before_what_it_misses() -> (
    None
):
    # it uses pandas 2.2's aliases, and still numpy.product (removed in NumPy 2.0.0)
    solutions = [
        solution("p1", "x = df.resample('ME').sum()\n"),
        solution("p2", "y = np.product(a)\n"),
    ]
    found = measure("m", solutions, [], CATALOGUE, DATES, samples=200)
    assert found.date is not None
    assert day_of(DATES, "pandas", "2.2.0") <= found.date < day_of(DATES, "numpy", "2.0.0")  # type: ignore[operator]
    assert (
        found.low is not None and found.high is not None and found.low <= found.date <= found.high
    )


def test_every_model_of_the_answers() -> None:
    solutions = [solution("p1", "x = 1\n", "b"), solution("p1", "y = np.product(a)\n", "a")]
    assert [m.model for m in models(solutions, [], CATALOGUE, DATES, samples=10)] == ["a", "b"]
    assert models(solutions, [], CATALOGUE, DATES, samples=10)[1].apis == ()


def test_dates_are_real_days() -> None:
    assert day_of(DATES, "pandas", "2.0.0") == dt.date(2023, 4, 3)
