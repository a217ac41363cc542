from __future__ import annotations

import sys
from pathlib import Path

import pytest

import harness
from harness.analysis.drift import trajectories
from harness.analysis.staleness import CATALOGUE, load_catalogue, measure, per_library, static_uses
from harness.core.errors import ProblemError
from harness.core.problem import Solution
from harness.core.results import CapturedWarning, Outcome, Status

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ORDER = ["old", "new"]


def o(combo: str, problem: str, source: str, status: Status, **fields: object) -> Outcome:
    extra = (
        {"exc_type": "AttributeError", "message": "module 'numpy' has no attribute 'product'"}
        if status is Status.ERROR
        else {}
    )
    return Outcome("r", combo, problem, source, status, library="numpy", **{**extra, **fields})  # type: ignore[arg-type]


def test_staleness_separates_model_staleness_from_problem_drift() -> None:
    m = "model:m"
    # numpy's warning points at the answer's call: the answer's own
    warned = (
        CapturedWarning(
            "DeprecationWarning", "`product` is deprecated", "numpy.core.fromnumeric", "<solution>"
        ),
    )
    # pandas calls a deprecated numpy function for the answer: the environment's
    inside = (
        CapturedWarning(
            "DeprecationWarning",
            "np.find_common_type is deprecated",
            "numpy.core.numerictypes",
            "pandas.core.dtypes.cast",
        ),
        # a run that did not record where it points: told by its issuer, a library
        CapturedWarning("FutureWarning", "frame.append is deprecated", "pandas.core.frame"),
    )
    outcomes = [
        # p1: the model's answer uses a removed API; the problem still holds in "new" → stale
        o("old", "p1", "reference", Status.PASS),
        o("new", "p1", "reference", Status.PASS),
        o("old", "p1", m, Status.PASS, warnings=warned),
        o("new", "p1", m, Status.ERROR),
        # p2: the problem itself broke in "new" → problem drift, not charged to the model
        o("old", "p2", "reference", Status.PASS),
        o("new", "p2", "reference", Status.ERROR),
        o("old", "p2", m, Status.PASS),
        o("new", "p2", m, Status.ERROR),
        # p3: passes everywhere
        o("old", "p3", "reference", Status.PASS),
        o("new", "p3", "reference", Status.PASS),
        o("old", "p3", m, Status.PASS, warnings=inside),
        o("new", "p3", m, Status.PASS, warnings=inside),
        # p4: the model fails everywhere
        o("old", "p4", "reference", Status.PASS),
        o("new", "p4", "reference", Status.PASS),
        o("old", "p4", m, Status.FAIL),
        o("new", "p4", m, Status.FAIL),
    ]
    solutions = [
        Solution("p1", m, "result = np.product(a)"),
        Solution("p3", m, "result = np.prod(a)"),
    ]
    (s,) = measure(outcomes, trajectories(outcomes, ORDER), ORDER, solutions, load_catalogue())
    assert s.model == "m"
    assert s.stale == (("p1", "old", "new"),)
    assert s.problem_drift == (("p2", "old", "new"),)
    assert s.candidates == 3  # p1, p2, p3 pass in "old" and meet "new"
    assert s.stale_rate == pytest.approx(1 / 3)
    assert s.pass_rate == {"old": 0.75, "new": 0.25}
    assert s.fit == {"old": 2 / 3, "new": 1 / 3}  # on p1, p3, p4: p2 does not hold in "new"
    assert s.vintage == "old"
    # only p1's own code warned: p3's warnings came from inside the libraries
    assert s.warning_rate == {"old": 1 / 3, "new": 0.0}
    assert s.static == {"numpy: numpy.product / numpy.cumproduct": 1}
    assert s.answers_with_static == 1
    assert per_library(outcomes, m, "old") == {"numpy": 0.75}


@pytest.mark.parametrize(
    ("code", "uses"),
    [
        ("result = df.append(other)", ["DataFrame.append / Series.append"]),
        ("items.append(3)", []),
        ("result = df.applymap(len)  # not df.map", ["DataFrame.applymap"]),
        ("# df.applymap(len)\nresult = df.map(len)", []),
        (
            "x = np.float(3)",
            ["numpy.float / numpy.int / numpy.object / numpy.complex / numpy.str aliases"],
        ),
        ("x = np.float64(3); y = np.bool(1)", []),
        ("enc = OneHotEncoder(sparse=False)", ["OneHotEncoder(sparse=)"]),
        ("enc = OneHotEncoder(sparse_output=False)", []),
        ("m = SGD(lr=0.1)", ["optimizers(lr=...)"]),
        ("m = SGD(learning_rate=0.1)", []),
        # on the syntax tree: a '#' in a string is no comment, a docstring is no code
        (
            "df['#1'].iloc[0] = df['#1'].iloc[-1]",
            ["chained assignment: df[col].iloc[i] = v, df[col].loc[k] = v"],
        ),
        ('def f(df):\n    """Not df.applymap(len) any more."""\n    return df.map(len)\n', []),
        # a fragment indented as a function's body, read as one
        (
            "    x = np.float(3)\n    return x\n",
            ["numpy.float / numpy.int / numpy.object / numpy.complex / numpy.str aliases"],
        ),
        ("    df = df.applymap(len)\n    # df.map\n", ["DataFrame.applymap"]),
    ],
)
def test_static_uses(code: str, uses: list[str]) -> None:
    assert [e.old for e in static_uses(code, load_catalogue())] == uses


def test_bad_catalogue(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[[api]]\nlibrary = "numpy"\nold = "x"\nnew = "y"\npattern = "(("\n')
    with pytest.raises(ProblemError, match=r"c.toml: api\[0\].pattern: invalid regular expression"):
        load_catalogue(path)


def test_the_catalogue_ships_with_the_package() -> None:
    """An installed harness (not only a checkout) must find its catalogue."""
    package = Path(harness.__file__).resolve().parent
    assert CATALOGUE.is_relative_to(package)
    pyproject = tomllib.loads((package.parent / "pyproject.toml").read_text(encoding="utf-8"))
    # the wheel holds every file of the package (tests/test_package.py opens it)
    assert pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["harness"]
    assert CATALOGUE.is_file()
