from __future__ import annotations

import pytest

from harness.causes import Cause, Diagnosis, diagnose
from harness.results import Outcome, Status

PANDAS_TB = "<program>:10 in generate_ans\n/env/lib/python3.13/site-packages/pandas/core/generic.py:6434 in __getattr__"
NUMPY_TB = (
    "<string>:1 in <module>\n/env/lib/python3.13/site-packages/numpy/__init__.py:414 in __getattr__"
)


def outcome(
    status: Status,
    exc_type: str | None = None,
    message: str = "",
    traceback: str = "",
    library: str = "pandas",
) -> Outcome:
    return Outcome(
        "r",
        "c",
        "p",
        "reference",
        status,
        library=library,
        exc_type=exc_type,
        message=message,
        traceback=traceback,
    )


# Messages as real libraries print them (numpy 2, pandas 3, scipy 1.14, sklearn 1.2, mpl 3.9).
@pytest.mark.parametrize(
    ("exc_type", "message", "traceback", "library", "expected"),
    [
        (
            "AttributeError",
            "module 'numpy' has no attribute 'NAN'",
            NUMPY_TB,
            "numpy",
            Diagnosis(Cause.REMOVED_API, "numpy.NAN", "numpy"),
        ),
        (
            "AttributeError",
            "'DataFrame' object has no attribute 'append'",
            PANDAS_TB,
            "pandas",
            Diagnosis(Cause.REMOVED_API, "pandas.DataFrame.append", "pandas"),
        ),
        (
            "AttributeError",
            "'numpy.ndarray' object has no attribute 'ptp'",
            "<string>:1 in <module>",
            "numpy",
            Diagnosis(Cause.REMOVED_API, "numpy.ndarray.ptp", "numpy"),
        ),
        (
            "AttributeError",
            "'OneHotEncoder' object has no attribute 'get_feature_names'",
            "/e/site-packages/sklearn/utils/_available_if.py:31 in __get__",
            "scikit-learn",
            Diagnosis(Cause.REMOVED_API, "sklearn.OneHotEncoder.get_feature_names", "scikit-learn"),
        ),
        (
            "AttributeError",
            "module 'matplotlib.cm' has no attribute 'get_cmap'",
            "",
            "matplotlib",
            Diagnosis(Cause.REMOVED_API, "matplotlib.cm.get_cmap", "matplotlib"),
        ),
        (
            "ImportError",
            "cannot import name 'interp2d' from 'scipy.interpolate' (/e/x.py)",
            "",
            "scipy",
            Diagnosis(Cause.REMOVED_API, "scipy.interpolate.interp2d", "scipy"),
        ),
        (
            "ModuleNotFoundError",
            "No module named 'sklearn.externals.joblib'",
            "",
            "scikit-learn",
            Diagnosis(Cause.REMOVED_API, "sklearn.externals.joblib", "scikit-learn"),
        ),
        (
            "NotImplementedError",
            "`interp2d` has been removed in SciPy 1.14.0.  For legacy code, ...",
            "/e/site-packages/scipy/interpolate/_interpolate.py:136 in __init__",
            "scipy",
            Diagnosis(Cause.REMOVED_API, "scipy.interpolate.interp2d", "scipy"),
        ),
        (
            "AttributeError",
            "'csr_matrix' object has no attribute 'A'",
            "<string>:4 in <module>",
            "scipy",
            Diagnosis(Cause.REMOVED_API, "scipy.csr_matrix.A", "scipy"),
        ),
        (
            "TypeError",
            "NDFrame.replace() got an unexpected keyword argument 'method'",
            "",
            "pandas",
            Diagnosis(Cause.CHANGED_SIGNATURE, "pandas.NDFrame.replace(method=)", "pandas"),
        ),
        (
            "TypeError",
            "read_csv() got an unexpected keyword argument 'delim_whitespace'",
            "",
            "pandas",
            Diagnosis(Cause.CHANGED_SIGNATURE, "pandas.read_csv(delim_whitespace=)", "pandas"),
        ),
        (
            "TypeError",
            "DataFrame.drop() takes from 1 to 2 positional arguments but 3 were given",
            "",
            "pandas",
            Diagnosis(Cause.CHANGED_SIGNATURE, "pandas.DataFrame.drop", "pandas"),
        ),
        (
            "TypeError",
            "Invalid value '1' for dtype 'str'. Value should be a string",
            PANDAS_TB,
            "pandas",
            Diagnosis(Cause.CHANGED_BEHAVIOUR, "", "pandas"),
        ),
        ("KeyError", "0", "", "pandas", Diagnosis(Cause.CHANGED_BEHAVIOUR, "", "pandas")),
        ("AssertionError", "", "", "numpy", Diagnosis(Cause.CHANGED_BEHAVIOUR, "", "numpy")),
        (
            "AttributeError",
            "'list' object has no attribute 'shape'",
            "<string>:3 in <module>",
            "numpy",
            Diagnosis(Cause.CHANGED_BEHAVIOUR, "", "numpy"),
        ),
        (
            "urllib.error.URLError",
            "<urlopen error [Errno -2] Name or service not known>",
            "",
            "matplotlib",
            Diagnosis(Cause.NEEDS_NETWORK),
        ),
        (
            "OSError",
            "HTTP Error: Temporary failure in name resolution",
            "",
            "scikit-learn",
            Diagnosis(Cause.NEEDS_NETWORK),
        ),
        (
            "FutureWarning",
            "Downcasting behavior in `replace` is deprecated",
            PANDAS_TB,
            "pandas",
            Diagnosis(Cause.WARNING_AS_ERROR, "", "pandas"),
        ),
    ],
)
def test_causes_from_real_messages(
    exc_type: str, message: str, traceback: str, library: str, expected: Diagnosis
) -> None:
    status = Status.FAIL if exc_type == "AssertionError" else Status.ERROR
    assert diagnose(outcome(status, exc_type, message, traceback, library)) == expected


def test_timeouts_crashes_and_non_failures() -> None:
    assert diagnose(outcome(Status.TIMEOUT)) == Diagnosis(Cause.TIMEOUT)
    assert diagnose(outcome(Status.CRASH, "SIGSEGV")) == Diagnosis(Cause.CRASH, "SIGSEGV")
    for status in (Status.PASS, Status.SKIPPED, Status.ENV_ERROR):
        assert diagnose(outcome(status)) is None
