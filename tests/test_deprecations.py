"""Which deprecated APIs a model reaches for, and the knowledge date they give
(harness/analysis/deprecations.py), on answers whose answer is known."""

from __future__ import annotations

import datetime as dt

from harness.analysis.dating import LOWER, UNDATED
from harness.analysis.deprecations import ApiUse, ModelApis, measure, models
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
    solutions = [solution("ds1000/1", code)]
    outcomes = [
        outcome(
            "ds1000/1",
            Status.PASS,
            versions={"pandas": "1.5.3"},
            warnings=(
                CapturedWarning(
                    "FutureWarning",
                    "The frame.append method is deprecated",
                    "pandas.core.frame",
                    "<solution>",  # pandas points at the answer's call
                ),
            ),
        ),
        outcome(
            "ds1000/1",
            Status.ERROR,
            versions={"pandas": "2.2.3"},
            message="'DataFrame' object has no attribute 'append'",
        ),
    ]
    found = measure("m", solutions, outcomes, CATALOGUE, DATES)
    (append,) = [a for a in found.apis if a.old.startswith("DataFrame.append")]
    assert (append.uses, append.warned, append.failed, append.knows, append.environment) == (
        ("ds1000/1",),
        ("ds1000/1",),
        ("ds1000/1",),
        (),
        (),
    )
    assert found.stale_answers == ("ds1000/1",)
    # DataFrame.append has no dated new API: the answer carries no evidence of a date
    assert found.dating.kind == UNDATED and found.dating.informative == 0
    assert ApiUse.from_dict(append.to_dict()) == append
    assert ModelApis.from_dict(found.to_dict()) == found


FIND_COMMON_TYPE = "np.find_common_type is deprecated.  Please use `np.result_type`"


def test_a_warning_raised_inside_a_library_is_not_the_answers() -> None:
    """pandas calls numpy.find_common_type for the answer under NumPy 1.25+: numpy's
    warning points inside pandas (or, where the run did not record where it points, was
    issued inside numpy). The answer never names it: no profile, no date counts it."""
    code = "df['state'] = np.where(df['a'] <= 50, df['b'], df[['b', 'c']].max(axis=1))\n"
    recorded = CapturedWarning(
        "DeprecationWarning", FIND_COMMON_TYPE, "numpy.core.numerictypes", "pandas.core.dtypes.cast"
    )
    before = CapturedWarning("DeprecationWarning", FIND_COMMON_TYPE, "numpy.core.numerictypes")
    solutions = [solution("ds1000/110", code), solution("ds1000/111", code)]
    outcomes = [
        outcome("ds1000/110", Status.PASS, versions={"numpy": "1.26.4"}, warnings=(recorded,)),
        outcome("ds1000/111", Status.PASS, versions={"numpy": "1.26.4"}, warnings=(before,)),
    ]
    found = measure("m", solutions, outcomes, CATALOGUE, DATES)
    assert found.stale_answers == ()
    (common,) = [a for a in found.apis if a.old == "numpy.find_common_type"]
    assert (common.uses, common.warned, common.stale) == ((), (), ())
    assert common.environment == ("ds1000/110", "ds1000/111")  # kept apart, not counted
    assert found.dating.informative == 0
    # the same call in the answer's own code is the answer's, warned or not
    own = CapturedWarning(
        "DeprecationWarning", FIND_COMMON_TYPE, "numpy.core.numerictypes", "<solution>"
    )
    calls = [solution("ds1000/112", "t = np.find_common_type([np.int64], [])\n")]
    ran = [outcome("ds1000/112", Status.PASS, versions={"numpy": "1.26.4"}, warnings=(own,))]
    (mine,) = measure("m", calls, ran, CATALOGUE, DATES).apis
    assert (mine.uses, mine.warned, mine.environment) == (("ds1000/112",), ("ds1000/112",), ())


RAGGED = (
    "Creating an ndarray from ragged nested sequences (which is a list-or-tuple of lists-or-"
    "tuples-or ndarrays with different lengths or shapes) is deprecated. If you meant to do "
    "this, you must specify 'dtype=object' when creating the ndarray."
)


def test_a_warning_counts_for_the_api_it_names_only() -> None:
    """A warning from the answer's own code counts for the catalogue's API only when it
    names that API: numpy's ragged-array warning says ``dtype=object``, not ``np.object``;
    pandas 3's ``inplace`` of set_index is not set_axis's; matplotlib's itertools ``copy``
    is not numpy.array(copy=)."""
    solutions = [solution("ds1000/5", "a = np.array([[1], [1, 2]])\n")]
    warned = (
        CapturedWarning("numpy.VisibleDeprecationWarning", RAGGED, "<solution>"),
        CapturedWarning(
            "pandas.errors.Pandas4Warning",
            "The inplace keyword in DataFrame.set_index is deprecated",
            "pandas.core.generic",
            "<solution>",
        ),
        CapturedWarning(
            "DeprecationWarning",
            "Pickle, copy, and deepcopy support will be removed from itertools in Python 3.14.",
            "<unknown>",
            "<solution>",
        ),
    )
    outcomes = [outcome("ds1000/5", Status.PASS, versions={"numpy": "1.21.6"}, warnings=warned)]
    assert measure("m", solutions, outcomes, CATALOGUE, DATES).apis == ()
    # numpy's own words about its alias name it: counted, where it points at the answer
    alias = CapturedWarning(
        "DeprecationWarning",
        "`np.object` is a deprecated alias for the builtin `object`.",
        "numpy",
        "<solution>",
    )
    outcomes = [outcome("ds1000/5", Status.PASS, versions={"numpy": "1.21.6"}, warnings=(alias,))]
    found = measure("m", solutions, outcomes, CATALOGUE, DATES)
    assert [a.old for a in found.apis if a.warned] == [
        "numpy.float / numpy.int / numpy.object / numpy.complex / numpy.str aliases"
    ]


def test_a_warning_issued_by_the_answers_own_code_counts_where_none_was_recorded() -> None:
    # a run that did not record where warnings point: one issued by the answer's code is
    # the answer's (here it warned itself, naming pandas' old method)
    issued = CapturedWarning("FutureWarning", "DataFrame.swapaxes is deprecated", "<solution>")
    solutions = [solution("ds1000/6", "t = df.T\n")]
    outcomes = [outcome("ds1000/6", Status.PASS, versions={"pandas": "2.1.0"}, warnings=(issued,))]
    found = measure("m", solutions, outcomes, CATALOGUE, DATES)
    assert [(a.old, a.warned) for a in found.apis] == [
        ("DataFrame.swapaxes / Series.swapaxes", ("ds1000/6",))
    ]


def test_a_new_api_used_dates_the_knowledge_from_its_release_on() -> None:
    solutions = [
        solution("ds1000/1", "idx = pd.date_range('2020', periods=3, freq='ME')\n"),  # 2.2.0
        solution("ds1000/2", "s = scipy.integrate.simpson(y, x=x)\n"),  # scipy 1.6.0
    ]
    found = measure("m", solutions, [], CATALOGUE, DATES)
    assert found.newest.startswith("pandas 2.2.0")
    assert found.newest_day == day_of(DATES, "pandas", "2.2.0")
    # a lower bound: nothing newer was met, so nothing bounds it above
    assert found.dating.kind == LOWER
    assert found.dating.low == found.newest_day == found.dating.ceiling
    assert (found.dating.informative, found.dating.answers, found.dating.low_answers) == (2, 2, 1)
    assert found.stale_answers == ()


def test_each_problem_set_says_what_it_can_tell() -> None:
    # DS-1000's answers meet scikit-learn 1.0's change only; ours meet pandas 2.2's
    solutions = [
        solution("ds1000/1", "names = vec.get_feature_names_out()\n"),
        solution("ds1000/2", "names = vec.get_feature_names()\n"),
        solution("ds1000/3", "x = 1\n"),
        solution("problems/pandas/freq", "s = s.resample('ME').sum()\n"),
    ]
    found = measure("m", solutions, [], CATALOGUE, DATES)
    sklearn = day_of(DATES, "scikit-learn", "1.0")
    pandas = day_of(DATES, "pandas", "2.2.0")
    ds1000, ours = found.sets["ds1000"], found.sets["problems"]
    assert (ds1000.answers, ds1000.informative, ds1000.changes, ds1000.shown) == (3, 2, 1, 1)
    assert (ds1000.low, ds1000.ceiling) == (sklearn, sklearn)
    assert (ours.answers, ours.informative, ours.low) == (1, 1, pandas)
    assert found.dating.low == pandas and found.dating.informative == 3


def test_every_model_of_the_answers() -> None:
    solutions = [solution("p1", "x = 1\n", "b"), solution("p1", "y = np.product(a)\n", "a")]
    assert [m.model for m in models(solutions, [], CATALOGUE, DATES)] == ["a", "b"]
    assert models(solutions, [], CATALOGUE, DATES)[1].apis == ()


def test_dates_are_real_days() -> None:
    assert day_of(DATES, "pandas", "2.0.0") == dt.date(2023, 4, 3)
