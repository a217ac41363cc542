from __future__ import annotations

from dataclasses import replace

import pytest

from harness.analysis.causes import Cause, Diagnosis, diagnose, site
from harness.core.results import Outcome, Part, Status
from harness.envside.protocol import OUTPUT_FORMAT

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


# -- Python itself, and what BigCodeBench's driver adds (harness/benchmarks/bigcodebench/load.py) ----

UNITTEST_TB = "/py/lib/python3.13/unittest/case.py:12 in run\n<tests>:40 in test_round"


@pytest.mark.parametrize(
    ("exc_type", "message", "traceback", "expected"),
    [
        # removed in 3.12; the task's own class is named, the driver says what it derives from
        (
            "AttributeError",
            (
                "'TestCases' object has no attribute 'assertAlmostEquals'"
                " [harness: TestCases derives from unittest.TestCase]"
            ),
            UNITTEST_TB,
            Diagnosis(Cause.REMOVED_API, "unittest.TestCase.assertAlmostEquals", "python"),
        ),
        (
            "ModuleNotFoundError",
            "No module named 'imp'",
            "",
            Diagnosis(Cause.REMOVED_API, "imp", "python"),
        ),
        (
            "ImportError",
            "cannot import name 'Iterable' from 'collections' (/py/lib/collections/__init__.py)",
            "",
            Diagnosis(Cause.REMOVED_API, "collections.Iterable", "python"),
        ),
        (
            "AttributeError",
            "module 'configparser' has no attribute 'SafeConfigParser'",
            "",
            Diagnosis(Cause.REMOVED_API, "configparser.SafeConfigParser", "python"),
        ),
    ],
)
def test_python_itself_is_named(
    exc_type: str, message: str, traceback: str, expected: Diagnosis
) -> None:
    # the problem's own library (numpy, the first in its libs) is not what failed
    assert diagnose(outcome(Status.ERROR, exc_type, message, traceback, "numpy")) == expected


def test_a_task_class_without_the_drivers_word_is_not_laid_on_python() -> None:
    found = diagnose(
        outcome(Status.ERROR, "AttributeError", "'Grid' object has no attribute 'size'")
    )
    assert found == Diagnosis(Cause.REMOVED_API, "pandas.Grid.size", "pandas")


def with_parts(first: Outcome, *parts: Part) -> Outcome:
    return replace(first, parts=parts)


def test_any_unit_test_that_wanted_the_network_makes_it_need_the_network() -> None:
    first_error = outcome(Status.ERROR, "KeyError", "'title'", library="python")
    tests = with_parts(
        first_error,
        Part("TestCases.test_keys", "error", "'title'", "KeyError"),
        Part(
            "TestCases.test_page",
            "error",
            "HTTPSConnectionPool(host='en.wikipedia.org', port=443): Max retries exceeded",
            "requests.exceptions.ConnectionError",
        ),
    )
    assert diagnose(tests) == Diagnosis(Cause.NEEDS_NETWORK)
    assert diagnose(first_error) == Diagnosis(Cause.CHANGED_BEHAVIOUR, library="python")


def test_a_failed_check_after_reaching_for_the_network_needs_the_network() -> None:
    message = (
        "{'8.8.8.8': None} != {'8.8.8.8': 'dns.google'}"
        " [harness: reached for the network: socket.gethostbyaddr('8.8.8.8')]"
    )
    found = diagnose(outcome(Status.FAIL, "AssertionError", message, library="python"))
    assert found == Diagnosis(Cause.NEEDS_NETWORK)


def test_a_program_this_machine_lacks_is_its_own_cause() -> None:
    message = (
        "tesseract is not installed or it's not in your PATH."
        " [harness: no program 'tesseract' on this machine]"
    )
    found = diagnose(
        outcome(Status.ERROR, "pytesseract.pytesseract.TesseractNotFoundError", message)
    )
    assert found == Diagnosis(Cause.NEEDS_TOOL, "tesseract")


@pytest.mark.parametrize(
    ("exc", "message", "symbol"),
    [
        # NLTK's message, its resource's name in terminal colours (BigCodeBench #177)
        (
            "LookupError",
            "\n*****\n  Resource \x1b[93mpunkt\x1b[0m not found.\n  Please use the NLTK Downloader",
            "punkt",
        ),
        ("LookupError", "Resource stopwords not found.", "stopwords"),
        # NLTK 3.9 on quotes the name (BigCodeBench #177 in the newer combos)
        ("LookupError", "\n*****\n  Resource 'punkt_tab' not found.\n  Please use", "punkt_tab"),
        ("textblob.exceptions.MissingCorpusError", "Looks like you are missing some data", ""),
    ],
)
def test_a_librarys_missing_data_is_its_own_cause(exc: str, message: str, symbol: str) -> None:
    found = diagnose(outcome(Status.ERROR, exc, message))
    assert found is not None
    assert found.cause is Cause.NEEDS_DATA
    assert found.symbol in (symbol, "MissingCorpusError")


@pytest.mark.parametrize(
    ("status", "frames", "where"),
    [
        # BigCodeBench #1026: the solution's call into Matplotlib
        (
            Status.ERROR,
            (
                "case.py:606 in _callTestMethod\n<tests>:8 in test_means\n<solution>:43 in task_func\n"
                "site-packages/matplotlib/axes/_axes.py:3900 in boxplot"
            ),
            "solution",
        ),
        # the test's own code: a removed unittest method, an expected value built anew
        (Status.ERROR, "case.py:606 in _callTestMethod\n<tests>:20 in test_case_2", "test"),
        (Status.ERROR, "<setup>:3 in <module>\nsite-packages/pandas/x.py:1 in f", "test"),
        (Status.ERROR, "<program>:59 in <module>\n<program>:56 in test_execution", ""),
        (Status.ERROR, "", ""),
        (Status.FAIL, "<tests>:8 in test_x", "assertion"),
    ],
)
def test_where_a_failure_happened(status: Status, frames: str, where: str) -> None:
    outcome = Outcome("r", "c", "p/1", "reference", status, "pandas", traceback=frames)
    assert site(outcome) == where


def test_a_changed_repr_is_output_format_drift_not_a_changed_result() -> None:
    """A CIBench step whose printed output changed and whose values did not (NumPy 2's
    scalar repr) is its own cause; one wrong value among them is a changed result."""
    same = f"{OUTPUT_FORMAT}: output 'np.float64(0.5)' is not the expected '0.5'"
    failed = replace(
        outcome(Status.FAIL, "AssertionError", "1 of 2 failed (step 2 (num)): …"),
        parts=(Part("step 1 (num)", "pass"), Part("step 2 (num)", "fail", same)),
    )
    found = diagnose(failed)
    assert found is not None
    assert found.cause is Cause.OUTPUT_FORMAT
    # NumPy's scalars print so, whatever the session's library: bisection tries NumPy first
    assert found.library == "numpy"
    other = f"{OUTPUT_FORMAT}: output 'Timestamp(2024)' is not the expected '2024'"
    found = diagnose(replace(failed, parts=(Part("step 2 (num)", "fail", other),)))
    assert found is not None and found.library != "numpy"
    wrong = replace(
        failed,
        parts=(*failed.parts, Part("step 3 (num)", "fail", "output '2' is not the expected '3'")),
    )
    found = diagnose(wrong)
    assert found is not None
    assert found.cause is Cause.CHANGED_BEHAVIOUR
