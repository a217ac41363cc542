"""The digest of what an answer sends its check (harness/envside/bridge/digest.py and the
guard's labels in harness/envside/bridge/guard.py): equal values hash alike however
they were built, different values differ, and nothing the digest meets makes it raise.

The red team's findings, each a case here: a Series of strings lost the whole digest
(F1); intermediates, dict and set order, pickle memo sharing, pandas' blocks, RangeIndex,
C or Fortran order, -0.0 and NaNs made equal values differ (F2, F3); values fetched
from the answer's module were not counted (F6); library classes were left out (F5); each
value's pickle was copied to be hashed (F7). The library cases run in an environment of
``HARNESS_ENV_DIR`` that holds NumPy, pandas, SciPy and scikit-learn (skipped without).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from harness.envs.build import EnvBuilder
from harness.envside.allowlist import shipped_allowlist
from harness.envside.bridge import guard
from harness.envside.bridge.digest import FIGURES, MAX_LABELS, value_digest
from harness.envside.scheduling.execution import _crossed
from harness.matrix.spec import Combo, LibrarySpec, VersionKind
from tests.conftest import ROOT
from tests.guard_digest_grade import grade


def digest(value: Any) -> bytes:
    return value_digest(value, pickle.dumps(value, protocol=4))


# -- plain Python values, in this interpreter ----------------------------------------------


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ({1, 9}, {9, 1}),  # set insertion history
        (frozenset(["x", "y"]), frozenset(["y", "x"])),
        (0.0, -0.0),
        ([float("nan")], [float("inf") * 0]),  # NaN's sign
        (complex(-0.0, 1), complex(0.0, 1)),
    ],
)
def test_equal_values_hash_alike(one: Any, other: Any) -> None:
    assert digest(one) == digest(other)


def test_shared_and_equal_objects_hash_alike() -> None:
    # pickle's memo writes a shared object once and refers to it after: not the digest
    shared = "ab".upper()
    apart = ["ab".upper(), "AB".lower().upper()]
    assert pickle.dumps([shared, shared]) != pickle.dumps(apart)
    assert digest([shared, shared]) == digest(apart)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (1, 1.0),  # of another type: never alike
        (1, True),
        ("1", b"1"),
        ([1, 2], (1, 2)),
        ({"a": 1}, {"a": 2}),
        ({"a": 1}, {"b": 1}),
        ({1, 2}, {1, 3}),
        ([[1], 2], [1, [2]]),
        (0.0, 5e-324),
        (2**70, 2**70 + 1),
        (-1, 255),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}),  # list(d), json.dumps(d) read the order
        ({"x": {"a": 1, "b": 2}}, {"x": {"b": 2, "a": 1}}),
    ],
)
def test_different_values_hash_apart(one: Any, other: Any) -> None:
    assert digest(one) != digest(other)


def test_an_object_referred_to_again_is_hashed_once() -> None:
    # red team 2: [x] * n is small as a pickle (x stored once) but each reference was
    # walked again; now each reference counts one visit and x is hashed once
    inner = [list(range(1000))] * 1
    shared = inner * 150_000  # 150,000 references to one list of 1,000 integers
    started = time.perf_counter()
    found = digest(shared)
    assert time.perf_counter() - started < 10
    assert found == digest([list(range(1000)) for _ in range(3)] * 50_000)
    assert found != digest([list(range(1000))] * 149_999 + [list(range(1001))])
    # past the visit cap, the pickle as sent
    many = inner * 300_000
    expected = hashlib.sha256(b"pickle\0" + b"as sent").digest()
    assert value_digest(many, b"as sent") == expected


def test_what_the_walk_does_not_know_is_hashed_by_its_pickle() -> None:
    # nested: pickled again; at the top, the pickle as sent
    import decimal  # noqa: PLC0415

    assert digest([decimal.Decimal("1.0")]) != digest([decimal.Decimal("1.00")])
    sent = pickle.dumps(decimal.Decimal(1), protocol=4)
    assert value_digest(decimal.Decimal(1), sent) != value_digest(decimal.Decimal(1), sent + b".")


def test_the_digest_never_raises_and_falls_back_to_the_pickle_sent() -> None:
    class Unpicklable:
        def __reduce__(self) -> Any:
            raise RuntimeError("no")

    deep: list[Any] = []
    for _ in range(100):
        deep = [deep]
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    for value in ([Unpicklable()], deep, cyclic):
        expected = hashlib.sha256(b"pickle\0" + b"as sent").digest()
        assert value_digest(value, b"as sent") == expected


def test_hashing_a_value_does_not_copy_its_pickle() -> None:
    blob = b"\0" * (32 << 20)
    tracemalloc.start()
    try:
        value_digest(object(), blob)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < (4 << 20)


def _set_digests(seed: str) -> dict[str, list[str]]:
    program = (
        "import json, pickle, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from harness.envside.bridge.digest import value_digest\n"
        "values = {'frozenset': frozenset(['apple', 'pear', 'plum', 'fig', 'kiwi']),\n"
        "          'set in a dict': {'k': set(['x', 'yy', 'zzz', 'ww', 'v'])},\n"
        "          'set of tuples': {('a', 1), ('b', 2), ('c', 3)}}\n"
        "found = {k: [value_digest(v, pickle.dumps(v, protocol=4)).hex(),\n"
        "             pickle.dumps(v, protocol=4).hex()] for k, v in values.items()}\n"
        "print(json.dumps(found))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        env={**os.environ, "PYTHONHASHSEED": seed},
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, list[str]] = json.loads(done.stdout)
    return found


def test_sets_hash_alike_under_every_hash_seed() -> None:
    seeds = [_set_digests(seed) for seed in ("0", "1", "2", "3")]
    for name in seeds[0]:
        # their pickles follow the seed's order (what made the audit call them
        # nondeterministic); their digests do not
        assert len({s[name][1] for s in seeds}) > 1, name
        assert len({s[name][0] for s in seeds}) == 1, name


def test_a_dict_built_in_a_sets_order_hashes_in_that_order() -> None:
    # a dict's order is what list(d), json.dumps(d) and DataFrame(d).columns read, so
    # one filled in a set's order follows it (red team 2: no longer in no order)
    words = ["x", "yy", "zzz"]
    assert digest({w: len(w) for w in words}) != digest({w: len(w) for w in words[::-1]})
    assert digest({w: len(w) for w in words}) == digest(dict(zip(words, [1, 2, 3], strict=True)))


# -- the guard's labels ---------------------------------------------------------------------


def test_each_name_has_its_own_digest_and_throwaways_do_not_touch_the_result() -> None:
    direct, _ = grade("result = 2 + 2")
    through, _ = grade("tmp = 4\nresult = tmp")
    looped, _ = grade("result = 0\nfor i in [1, 3]:\n    result += i")
    assert set(direct) == {"result"}
    assert set(through) == {"tmp", "result"}
    assert direct["result"] == through["result"] == looped["result"]
    assert looped["i"] != direct["result"]


def test_a_label_sent_again_counts_each_time() -> None:
    # DS-1000 runs the answer once per test case: ``result`` crosses once per run
    apart = guard.Guard("result = 1", close_fds=[], sandboxed=False, limits={})
    apart._digest("result", 1, pickle.dumps(1), set())
    once = apart.digests()["result"]
    apart._digest("result", 2, pickle.dumps(2), set())
    twice = apart.digests()["result"]
    again = guard.Guard("result = 1", close_fds=[], sandboxed=False, limits={})
    again._digest("result", 1, pickle.dumps(1), set())
    again._digest("result", 3, pickle.dumps(3), set())
    assert once != twice != again.digests()["result"]


def test_a_figure_is_not_counted_and_says_so_under_its_own_label() -> None:
    apart = guard.Guard("result = 1", close_fds=[], sandboxed=False, limits={})
    apart._digest("result", 1, pickle.dumps(1), set())
    apart._digest("ax", [1], pickle.dumps([1]), {"builtins", "matplotlib"})
    apart.crossed.uncounted(FIGURES, "a figure crossed")
    found = apart.digests()
    assert not found["result"].startswith("?")  # the result keeps its digest
    assert found["ax"] == "?it holds matplotlib objects"
    assert found[FIGURES] == "?a figure crossed"
    # once undigested, a label stays so
    apart._digest("ax", 2, pickle.dumps(2), set())
    assert apart.digests()["ax"] == "?it holds matplotlib objects"


def test_labels_are_capped() -> None:
    apart = guard.Guard("result = 1", close_fds=[], sandboxed=False, limits={})
    for n in range(MAX_LABELS + 5):
        apart._digest(f"v{n}", n, pickle.dumps(n), set())
    found = apart.digests()
    assert len(found) == MAX_LABELS + 1
    assert found["<more>"].startswith("?more than")


def _fetched(value: Any) -> tuple[Any, dict[str, str]]:
    """The check fetches ``THRESHOLD`` from the answer's module, as BigCodeBench's and
    GitChameleon's tests read a module's value (the answer's process faked)."""
    apart = guard.Guard(
        "THRESHOLD = 0", close_fds=[], sandboxed=False, limits={}, allowlist=shipped_allowlist()
    )
    replies = iter(
        [
            ({"kind": "module", "names": {"THRESHOLD": ["value"]}}, []),
            (
                {"kind": "fetched", "names": {"THRESHOLD": ["value"]}},
                [pickle.dumps(value, protocol=4)],
            ),
        ]
    )
    apart._ask = lambda request: next(replies)  # type: ignore[method-assign]
    apart.load_module("__test__", f"THRESHOLD = {value!r}")
    got = apart.fetch_many("__test__", ["THRESHOLD"])
    return got["THRESHOLD"], _crossed(apart, "")


def test_values_the_check_fetches_are_counted() -> None:
    low, low_digests = _fetched(0.5)
    high, high_digests = _fetched(99.0)
    assert (low, high) == (0.5, 99.0)
    assert set(low_digests) == {"__test__:THRESHOLD"}
    assert low_digests != high_digests
    assert _fetched(0.5)[1] == low_digests


def test_an_answer_graded_in_its_own_process_has_no_digests() -> None:
    apart = guard.Guard("result = 1", close_fds=[], sandboxed=False, limits={})
    apart.engaged = True
    apart._digest("result", 1, pickle.dumps(1), set())
    assert _crossed(apart, "in-process") == {}
    assert _crossed(apart, "") == apart.digests()
    assert _crossed(None, "") == {}


# -- library values, in an environment that has the libraries -------------------------------


def _library_pythons() -> list[Path]:
    """Envs' Pythons with NumPy, pandas, SciPy and Matplotlib built (the combos'), one per
    pandas release (pandas 1, 2 and 3 store strings three ways), at most four."""
    root = Path(os.environ.get("HARNESS_ENV_DIR", ROOT / ".harness" / "envs"))
    wanted = ("numpy", "pandas", "scipy", "matplotlib")
    found: dict[str, Path] = {}
    for env in sorted(root.glob("*/lib/python3*/site-packages")) if root.is_dir() else []:
        pandas = sorted(env.glob("pandas-*.dist-info"))
        if pandas and all((env / name).is_dir() for name in wanted):
            release = pandas[0].name.split("-")[1].rsplit(".", 1)[0]
            found.setdefault(release, env.parents[2] / "bin" / "python")
    return [found[r] for r in sorted(found)][-4:]


LIBRARY_PYTHONS = _library_pythons()
# where no env has the libraries yet (a fresh clone), one is built (tests marked network)
with_libraries = pytest.mark.parametrize(
    "python",
    LIBRARY_PYTHONS or [pytest.param("build", marks=pytest.mark.network)],
    ids=str,
)

_PRELUDE = "import numpy as np, pandas as pd, scipy.sparse as sp\n"
# (one answer, another): the check sees equal values
_ALIKE = {
    "-0.0": ("result = np.array([0.0, 1.0])", "result = np.array([-0.0, 1.0])"),
    "NaN sign": ("result = np.array([np.nan])", "result = np.array([np.inf]) * 0"),
    "C or Fortran order": (
        "result = np.arange(6.).reshape(2, 3)",
        "result = np.asfortranarray(np.arange(6.).reshape(2, 3))",
    ),
    "a view": ("result = np.arange(6)[::2].copy()", "result = np.arange(6)[::2]"),
    "frame blocks": (
        "result = pd.DataFrame({'a': [1, 2], 'b': [3, 4]})",
        "result = pd.DataFrame({'a': [1, 2]})\nresult['b'] = [3, 4]",
    ),
    "frame consolidated by reading": (
        "result = pd.DataFrame({'a': [1, 2]})\nresult['b'] = [3, 4]",
        "result = pd.DataFrame({'a': [1, 2]})\nresult['b'] = [3, 4]\n_ = result.values\ndel _",
    ),
    "RangeIndex": (
        "result = pd.Series([1, 2])",
        "result = pd.Series([1, 2], index=pd.Index([0, 1]))",
    ),
    "strings": (
        "result = pd.Series(['ann', 'bob'])",
        "result = pd.Series(['an', 'bo']) + pd.Series(['n', 'b'])",
    ),
    "categorical": (
        "result = pd.Categorical(['a', 'b'])",
        "result = pd.Series(['a', 'b']).astype('category').array",
    ),
    "csr sorted indices read": (
        "result = sp.csr_matrix(np.eye(3))",
        "result = sp.csr_matrix(np.eye(3))\n_ok = result.has_sorted_indices\ndel _ok",
    ),
    "numpy scalar": ("result = np.float64(1.5)", "result = np.float64(3.0) / 2"),
    "shared array": (
        "a = np.arange(5.)\nresult = [a] * 3",
        "result = [np.arange(5.), np.arange(5.), np.arange(5.)]",
    ),
    "coo entry order": (
        "result = sp.coo_matrix(([1., 2.], ([0, 1], [1, 0])), shape=(2, 2))",
        "result = sp.coo_matrix(([2., 1.], ([1, 0], [0, 1])), shape=(2, 2))",
    ),
    "same MultiIndex": (
        "result = pd.Series([1, 2], index=pd.MultiIndex.from_tuples([('a', 1), ('b', 2)]))",
        "result = pd.Series([1, 2], index=pd.MultiIndex.from_arrays([['a', 'b'], [1, 2]]))",
    ),
}
# the check may see different values
_APART = {
    "strings": ("result = pd.Series(['ann', 'bob'])", "result = pd.Series(['ann', 'bo'])"),
    "string index": ("result = pd.Index(['a', 'b'])", "result = pd.Index(['a', 'c'])"),
    "categories": (
        "result = pd.Categorical(['a', 'b'])",
        "result = pd.Categorical(['a', 'b'], categories=['b', 'a'])",
    ),
    "frame values": (
        "result = pd.DataFrame({'a': [1, 2]})",
        "result = pd.DataFrame({'a': [1, 3]})",
    ),
    "columns": ("result = pd.DataFrame({'a': [1, 2]})", "result = pd.DataFrame({'b': [1, 2]})"),
    "index": ("result = pd.Series([1, 2])", "result = pd.Series([1, 2], index=[1, 2])"),
    "index freq": (
        "result = pd.Series([1, 2], index=pd.date_range('2024-01-01', periods=2))",
        "result = pd.Series([1, 2], index=pd.DatetimeIndex(['2024-01-01', '2024-01-02']))",
    ),
    "series name": ("result = pd.Series([1], name='a')", "result = pd.Series([1], name='b')"),
    "dtype": ("result = np.array([1, 2])", "result = np.array([1.0, 2.0])"),
    "shape": ("result = np.arange(6).reshape(2, 3)", "result = np.arange(6).reshape(3, 2)"),
    "sparse entries": (
        "result = sp.csr_matrix(np.eye(3))",
        "result = sp.csr_matrix(np.eye(3) * 2)",
    ),
    "sparse format": ("result = sp.csr_matrix(np.eye(3))", "result = sp.csc_matrix(np.eye(3))"),
    "structured field names": (
        "result = np.array([(1, 2.0)], dtype=[('a', '<i8'), ('b', '<f8')])",
        "result = np.array([(1, 2.0)], dtype=[('x', '<i8'), ('y', '<f8')])",
    ),
    "structured field types": (
        "result = np.array([(1, 2.0)], dtype=[('a', '<i8'), ('b', '<f8')])",
        (
            "result = np.zeros(1, dtype=[('a', '<f8'), ('b', '<i8')])\n"
            "result.view('u1')[:] = np.array([(1, 2.0)], dtype=[('a', '<i8'), ('b', '<f8')])"
            ".view('u1')"
        ),
    ),
    "structured offsets": (
        (
            "result = np.zeros(1, dtype={'names': ['a'], 'formats': ['<i4'], 'offsets': [0],"
            " 'itemsize': 8})"
        ),
        (
            "result = np.zeros(1, dtype={'names': ['a'], 'formats': ['<i4'], 'offsets': [4],"
            " 'itemsize': 8})"
        ),
    ),
    "np.void": (
        "result = np.array([(1, 2.0)], dtype=[('a', '<i8'), ('b', '<f8')])[0]",
        "result = np.array([(1, 2.0)], dtype=[('x', '<i8'), ('y', '<f8')])[0]",
    ),
    "coo duplicates": (
        "result = sp.coo_matrix(([1.0, 2.0], ([0, 0], [0, 0])), shape=(2, 2))",
        "result = sp.coo_matrix(([3.0], ([0], [0])), shape=(2, 2))",
    ),
    "csr duplicates": (
        "result = sp.csr_matrix(([1.0, 2.0], [0, 0], [0, 2, 2]), shape=(2, 2))",
        "result = sp.csr_matrix(([3.0], [0], [0, 1, 1]), shape=(2, 2))",
    ),
    "dict order": (
        "result = {'a': np.arange(2), 'b': 1}",
        "result = {'b': 1, 'a': np.arange(2)}",
    ),
    "MultiIndex unused level": (
        (
            "mi = pd.MultiIndex.from_tuples([('a', 1), ('b', 2)])\n"
            "result = pd.Series([1], index=mi[:1])"
        ),
        "result = pd.Series([1], index=pd.MultiIndex.from_tuples([('a', 1)]))",
    ),
    "one array shared or two": (
        "a = np.arange(5.)\nresult = [a] * 3",
        "result = [np.arange(5.)] * 2 + [np.arange(1., 6.)]",
    ),
    "library classes": (
        "from sklearn.ensemble import RandomForestClassifier as model_cls\nresult = 1",
        "from sklearn.ensemble import RandomForestRegressor as model_cls\nresult = 1",
    ),
}


def _built_python() -> Path:
    """The Python of an env with the libraries (pandas 2), built where none was found."""
    root = Path(os.environ.get("HARNESS_ENV_DIR", ROOT / ".harness" / "envs")).absolute()
    pins = {"numpy": "1.26.4", "pandas": "2.2.3", "scipy": "1.13.1", "matplotlib": "3.9.2"}
    libraries = tuple(LibrarySpec(k, k, v, VersionKind.PIN) for k, v in pins.items())
    info, _ = EnvBuilder(root).build(Combo("digest", "3.11", libraries))
    assert info.ok, info.error
    return info.python_exe


def _in_library_env(
    python: Path | str, cases: dict[str, tuple[str, str]]
) -> dict[str, list[dict[str, str]]]:
    python = _built_python() if python == "build" else Path(python)
    if not any((python.parents[1] / "lib").glob("python3*/site-packages/sklearn")):
        cases = {k: v for k, v in cases.items() if "sklearn" not in v[0]}
    given = {name: [_PRELUDE + one, _PRELUDE + other] for name, (one, other) in cases.items()}
    done = subprocess.run(
        [str(python), "-m", "tests.guard_digest_grade"],
        input=json.dumps(given),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found: dict[str, list[dict[str, str]]] = json.loads(done.stdout.splitlines()[-1])
    return found


@with_libraries
def test_library_values_equal_to_the_check_hash_alike(python: Path | str) -> None:
    found = _in_library_env(python, _ALIKE)
    for name, (one, other) in found.items():
        assert not one["result"].startswith("?"), (name, one)
        assert one["result"] == other["result"], name


@with_libraries
def test_library_values_that_differ_hash_apart(python: Path | str) -> None:
    found = _in_library_env(python, _APART)
    for name, (one, other) in found.items():
        label = "model_cls" if name == "library classes" else "result"
        assert not one[label].startswith("?"), (name, one)
        assert one[label] != other[label], name
    if "library classes" in found:  # the result itself, equal in both, stays equal
        one, other = found["library classes"]
        assert one["result"] == other["result"]


@with_libraries
def test_an_array_referred_to_again_is_hashed_once(python: Path | str) -> None:
    # red team 2: [arr] * n pickles arr once; the walk hashed it at every reference
    python = _built_python() if python == "build" else Path(python)
    code = (
        "import pickle, time, numpy as np\n"
        "from harness.envside.bridge.digest import value_digest\n"
        "value = [np.ones(1_000_000)] * 2000\n"
        "blob = pickle.dumps(value, protocol=4)\n"
        "started = time.perf_counter()\n"
        "found = value_digest(value, blob)\n"
        "print(time.perf_counter() - started)\n"
        "assert found == value_digest([np.ones(1_000_000), np.ones(1_000_000)] * 1000, blob)\n"
    )
    done = subprocess.run(
        [str(python), "-c", code],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert float(done.stdout.split()[-1]) < 5


@with_libraries
def test_a_series_of_strings_is_digested_and_leaves_the_rest_alone(python: Path | str) -> None:
    # F1: a throwaway Series of strings (object dtype, no ``flat``) lost the whole
    # execution's digest; pyplot loaded, it broke the answer's report too
    cases = {
        "throwaway": (
            "names = df['name']\nresult = int(df['v'].sum())",
            "result = int(df['v'].sum())",
        ),
        "with pyplot": (
            "import matplotlib.pyplot as plt\nresult = df['name'].str.slice(0, 2)",
            "result = df['name'].str[:2]",
        ),
    }
    frame = "df = pd.DataFrame({'name': ['ann', 'bob'], 'v': [1, 2]})\n"
    found = _in_library_env(python, {k: (frame + a, frame + b) for k, (a, b) in cases.items()})
    throwaway, plain = found["throwaway"]
    assert not throwaway["names"].startswith("?")
    assert throwaway["result"] == plain["result"]
    drawn, sliced = found["with pyplot"]
    assert not drawn["result"].startswith("?")
    assert drawn["result"] == sliced["result"]


@with_libraries
def test_what_holds_a_figure_is_told_from_what_admission_built(python: Path | str) -> None:
    code = (
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([1, 2])\n"
        "lines = {'main': ax.get_lines()}\nresult = 3"
    )
    (found, _) = _in_library_env(python, {"figure": (code, code)})["figure"]
    assert not found["result"].startswith("?")
    for label in ("fig", "ax", "lines", FIGURES):
        assert found[label].startswith("?"), (label, found)


def test_the_answers_own_functions_and_classes_never_cross() -> None:
    # so counting what crosses by its pickle counts library code only (by its name)
    code = "import abc\nclass Mine(abc.ABC):\n    pass\ndef helper():\n    return 1\nresult = 2\n"
    found, seen = grade(code, {"__name__": "solution"})
    assert set(found) == {"result"}
    assert "Mine" not in seen and "helper" not in seen
