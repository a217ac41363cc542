"""Do the codemods' portable forms mean what the old and the new API mean, here?

Run with a combo's own interpreter (it imports pandas and Matplotlib, nothing of ours):

    for py in "$HARNESS_ENV_DIR"/*/bin/python; do "$py" benchmarks/portable_forms.py; done

It prints the library versions and every case where the portable form differs from the
API this release has (``DataFrame.map`` where it exists, else ``applymap``; the frequency
alias this release reads; ``boxplot``'s own labels keyword), and nothing else.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from typing import Any

import matplotlib as mpl

mpl.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd  # type: ignore[import-untyped]
from pandas.tseries.frequencies import to_offset  # type: ignore[import-untyped]

warnings.simplefilter("ignore")


def frames() -> dict[str, pd.DataFrame]:
    return {
        "ints": pd.DataFrame({"a": [1, 2, 3], "b": [4, 5, 6]}),
        "mixed": pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"], "c": [1.5, np.nan, 2.0]}),
        "empty rows": pd.DataFrame(
            {"a": pd.Series([], dtype=int), "b": pd.Series([], dtype=object)}
        ),
        "empty": pd.DataFrame(),
        "columns only": pd.DataFrame(columns=["a", "b"]),
        "duplicate index": pd.DataFrame({"a": [1, 2, 3]}, index=[0, 0, 1]),
        "duplicate columns": pd.DataFrame([[1, 2], [3, 4]], columns=["a", "a"]),
        "datetimes": pd.DataFrame({"d": pd.date_range("2020", periods=3)}),
        "categorical": pd.DataFrame({"c": pd.Categorical(["a", "b", "a"])}),
        "nullable": pd.DataFrame({"i": pd.array([1, None, 3], dtype="Int64")}),
        "string": pd.DataFrame({"s": pd.array(["a", None, "c"], dtype="string")}),
        "bool": pd.DataFrame({"b": [True, False, True]}),
        "multiindex": pd.DataFrame(
            [[1, 2]], columns=pd.MultiIndex.from_tuples([("x", "a"), ("x", "b")])
        ),
        "named axes": pd.DataFrame({"a": [1, 2]}).rename_axis("row").rename_axis("col", axis=1),
    }


FUNCTIONS: dict[str, Any] = {
    "repr": repr,
    "type": lambda x: type(x).__name__,
    "is number": lambda x: isinstance(x, (int, float)),
    "zero": lambda _: 0,
    "str": str,
    "double": lambda x: x if isinstance(x, str) else x * 2,
}


def _result(call: Any, *args: Any) -> Any:
    try:
        return call(*args)
    except Exception as exc:
        return ("error", type(exc).__name__)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return bool(a == b)
    return bool(
        a.equals(b)
        and list(map(str, a.dtypes)) == list(map(str, b.dtypes))
        and a.index.equals(b.index)
        and a.columns.equals(b.columns)
    )


def applymap() -> list[str]:
    """``df.apply(lambda col: col.map(f))`` against this release's own elementwise map."""
    differ = []
    for fname, f in FUNCTIONS.items():
        for name, df in frames().items():
            own = df.map if hasattr(pd.DataFrame, "map") else df.applymap
            portable = _result(df.apply, lambda col, f=f: col.map(f))
            if not _same(_result(own, f), portable):
                differ.append(f"applymap: {fname} on {name}")
    return differ


OFFSETS = {
    ("M", "ME"): pd.offsets.MonthEnd(),
    ("2M", "2ME"): pd.offsets.MonthEnd(2),
    ("Q", "QE"): pd.offsets.QuarterEnd(startingMonth=12),
    ("Q-MAR", "QE-MAR"): pd.offsets.QuarterEnd(startingMonth=3),
    ("A", "YE"): pd.offsets.YearEnd(),
    ("Y", "YE"): pd.offsets.YearEnd(),
    ("A-JUN", "YE-JUN"): pd.offsets.YearEnd(month=6),
    ("BM", "BME"): pd.offsets.BusinessMonthEnd(),
    ("SM", "SME"): pd.offsets.SemiMonthEnd(),
    ("BQ", "BQE"): pd.offsets.BQuarterEnd(startingMonth=12),
    ("BA", "BYE"): pd.offsets.BYearEnd(),
    ("CBM", "CBME"): pd.offsets.CustomBusinessMonthEnd(),
}


def frequencies() -> list[str]:
    """Each offset equals the alias this release reads (old or new), both ways, and
    gives the same dates."""
    differ = []
    for aliases, offset in OFFSETS.items():
        read = [a for a in aliases if not isinstance(_result(lambda a=a: to_offset(a)), tuple)]
        if not read:
            differ.append(f"freq: this release reads neither of {aliases}")
        for alias in read:
            dates = pd.date_range("2021-01-01", periods=4, freq=alias)
            same = pd.date_range("2021-01-01", periods=4, freq=offset).equals(dates)
            if not (to_offset(alias) == offset and offset == alias and alias == offset and same):
                differ.append(f"freq: {alias} != {offset!r}")
    return differ


def _figure(portable: bool, extra: dict[str, Any]) -> tuple[str, list[str], list[str]]:
    fig, ax = plt.subplots()
    data = [np.array([1.0, 2, 3, 4]), np.array([5.0, 6, 7, 9])]
    if portable:
        ax.boxplot(data, **extra)
        (ax.set_yticklabels if extra.get("vert") is False else ax.set_xticklabels)(["g1", "g2"])
    else:
        major, minor = (int(n) for n in mpl.__version__.split(".")[:2])
        keyword = "tick_labels" if (major, minor) >= (3, 9) else "labels"
        labelled: dict[str, Any] = {**extra, keyword: ["g1", "g2"]}
        ax.boxplot(data, **labelled)
    png = io.BytesIO()
    fig.savefig(png, format="png")
    plt.close(fig)
    texts = (
        [t.get_text() for t in ax.get_xticklabels()],
        [t.get_text() for t in ax.get_yticklabels()],
    )
    return hashlib.sha256(png.getvalue()).hexdigest(), *texts


def boxplots() -> list[str]:
    """``boxplot`` then ``set_xticklabels``: the same PNG and tick texts as the keyword."""
    cases: dict[str, dict[str, Any]] = {
        "plain": {},
        "positions": {"positions": [2, 5]},
        "horizontal": {"vert": False},
        "patches": {"widths": 0.3, "patch_artist": True},
    }
    return [f"boxplot: {n}" for n, e in cases.items() if _figure(True, e) != _figure(False, e)]


if __name__ == "__main__":
    differ = applymap() + frequencies() + boxplots()
    print(f"pandas {pd.__version__}, matplotlib {mpl.__version__}: {len(differ)} differ")
    for line in differ:
        print("  " + line)
