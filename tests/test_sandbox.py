"""The unpickler that reads values back from untrusted solutions.

These pickles are written by hand, opcode by opcode, the way a hostile solution would
write them; the data-science round trips (DataFrames, figures, tensors) are exercised
inside real envs by tests/test_hostile.py and the DS-1000 runs.
"""

from __future__ import annotations

import collections
import datetime as dt
import decimal
import functools
import itertools
import pickle
from pathlib import Path

import pytest

from harness.envside.sandbox import hideable
from harness.envside.transport import SafeUnpickler, _words, safe_loads


def global_(module: str, name: str) -> bytes:
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def getattr_(target: bytes, name: str) -> bytes:
    return global_("builtins", "getattr") + b"(" + target + b"S'" + name.encode() + b"'\ntR"


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param(global_("os", "system") + b".", id="module outside the libraries"),
        pytest.param(global_("builtins", "eval") + b".", id="builtin eval"),
        pytest.param(global_("uuid", "os") + b".", id="a module through an allowed one"),
        pytest.param(global_("uuid", "os.rmdir") + b".", id="dotted path through a module"),
        pytest.param(global_("collections", "_sys") + b".", id="private module alias"),
        pytest.param(global_("functools", "reduce") + b".", id="function living in _functools"),
        pytest.param(global_("decimal", "setcontext") + b".", id="global setting"),
        pytest.param(global_("datetime", "sys") + b".", id="sys via datetime"),
        pytest.param(
            getattr_(global_("collections", "OrderedDict"), "__subclasses__") + b".",
            id="dunder attribute",
        ),
        pytest.param(
            getattr_(global_("collections", "OrderedDict"), "__init_subclass__") + b".",
            id="another dunder",
        ),
        pytest.param(
            getattr_(global_("functools", "partial"), "__call__") + b".", id="dunder call"
        ),
        pytest.param(
            getattr_(global_("array", "array"), "fromfile") + b".", id="I/O method by name"
        ),
    ],
)
def test_hostile_pickles_are_refused(payload: bytes) -> None:
    with pytest.raises(pickle.UnpicklingError, match="not allowed in a returned value"):
        safe_loads(payload)


def test_refusal_names_what_was_refused() -> None:
    with pytest.raises(pickle.UnpicklingError, match=r"^uuid\.os\.rmdir is not allowed"):
        safe_loads(global_("uuid", "os.rmdir") + b".")


@pytest.mark.parametrize(
    "value",
    [
        collections.OrderedDict(a=1),
        collections.Counter("abca"),
        collections.deque([1, 2]),
        dt.datetime(2024, 1, 2, 3, 4, tzinfo=dt.timezone.utc),
        dt.timedelta(days=3),
        decimal.Decimal("1.25"),
        functools.partial(int, base=2),
        {"nested": [1, (2, 3), {4}, frozenset({5}), b"x", bytearray(b"y"), 1j, None]},
        range(3),
        slice(1, 5, 2),
    ],
    ids=type,
)
def test_plain_values_round_trip(value: object) -> None:
    for protocol in (4, 5):
        got = safe_loads(pickle.dumps(value, protocol=protocol))
        if isinstance(value, functools.partial):
            assert isinstance(got, functools.partial) and got("101") == 5
        else:
            assert got == value


def test_iterators_round_trip() -> None:
    # Matplotlib's figures hold an itertools.count (their artists' ids)
    counter = safe_loads(pickle.dumps(itertools.count(3), protocol=4))
    assert next(counter) == 3


def test_private_classmethod_reconstructors_are_allowed() -> None:
    # zoneinfo and matplotlib pickle ``getattr(cls, "_unpickle")``: a private name, but no
    # dunder, no I/O word, and the result lives in an allowed library.
    payload = (
        getattr_(global_("datetime", "datetime"), "fromisoformat")
        + b"(S'2024-01-02T00:00+00:00'\ntR."
    )
    assert safe_loads(payload) == dt.datetime(2024, 1, 2, tzinfo=dt.timezone.utc)


def test_classes_may_carry_setting_words_but_functions_may_not() -> None:
    assert SafeUnpickler.__name__  # the class under test, for readers grepping
    # ``collections.abc.Set`` is a class: constructing it changes no global state.
    assert safe_loads(global_("collections.abc", "Set") + b".") is collections.abc.Set
    with pytest.raises(pickle.UnpicklingError):
        safe_loads(global_("decimal", "setcontext") + b".")


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("_load_from_bytes", {"load", "from", "bytes"}),
        ("QuadContourSet", {"quad", "contour", "set"}),
        ("CapStyle", {"cap", "style"}),
        ("HDFStore", {"hdf", "store"}),
        ("setcontext", {"setcontext", "set"}),
    ],
)
def test_words(name: str, words: set[str]) -> None:
    assert _words(name) == words


def test_hideable_covers_outer_directories_only(tmp_path: Path) -> None:
    runs = tmp_path / "batches"
    (runs / "mine").mkdir(parents=True)
    (runs / "mine" / "batch.json").write_text("{}")
    (tmp_path / "secret.txt").write_text("x")
    work = tmp_path / "work"
    work.mkdir()
    directories, files = hideable(
        [
            str(runs / "mine"),
            str(runs),
            str(tmp_path / "secret.txt"),
            str(runs / "mine" / "batch.json"),
        ],
        [str(work)],
    )
    assert directories == [str(runs.resolve())]
    assert files == [str((tmp_path / "secret.txt").resolve())]


def test_hideable_never_covers_what_the_execution_needs(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "problem.toml").write_text("")
    directories, files = hideable(
        [str(tmp_path), str(tmp_path / "problem.toml"), str(tmp_path / "missing")],
        [str(tmp_path / "work")],
    )
    assert directories == []
    assert files == [str((tmp_path / "problem.toml").resolve())]
