"""The checker's side of the value transport: default-deny admission of pickles
(harness/envside/bridge/admission.py).

These run under the host's interpreter with standard-library values; the pickles of the
refusal tests are written opcode by opcode, as a hostile solution can (it controls every
byte it sends). The data-science values are covered in real environments by
tests/test_guard_generated.py, tests/test_hostile.py and the DS-1000 equivalence run.
"""

from __future__ import annotations

import collections
import contextlib
import datetime as dt
import decimal
import gc
import inspect
import pickle
import re
import struct
import sys
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.envside.allowlist import Allowlist, shipped_allowlist
from harness.envside.bridge import admission
from harness.envside.bridge.admission import Admission, RefusedError, UnreadableError, Usage

PLAIN = [
    0,
    -5,
    2**70,
    -(2**200),
    3.5,
    float("inf"),
    "héllo",
    "x" * 300,
    b"\x00" * 70000,
    [1, [2, [3, (4, 5, 6, 7)]]],
    {"a": {1, 2}, "b": frozenset({3}), (1, 2): None},
    (),
    (True, False),
    bytearray(b"yz"),
    1j,
    collections.OrderedDict(a=1, b=2),
    collections.Counter("abca"),
    collections.deque([1, 2]),
    collections.defaultdict(list, {"k": [1]}),
    dt.datetime(2024, 1, 2, 3, 4, tzinfo=dt.timezone.utc),
    dt.date(2020, 2, 29),
    dt.timedelta(days=3),
    decimal.Decimal("1.25"),
    range(3),
    slice(1, 5, 2),
]


def dumps(value: object) -> bytes:
    return pickle.dumps(value, protocol=4)


def measured(*values: object) -> Allowlist:
    """The allowlist these values need, measured as `harness guard allowlist` does."""
    usage = Usage()
    for value in values:
        admission.admit(dumps(value), Allowlist(), usage)
    lines = [f"{g}" for g in usage.to_json()["globals"]]
    lines += [f"event {e}" for e in usage.to_json()["events"]]
    return Allowlist.parse("\n".join(lines))


ALLOWED = measured(*PLAIN)


def op(name: str) -> bytes:
    return getattr(pickle, name)  # type: ignore[no-any-return]


def text(value: str) -> bytes:
    data = value.encode()
    return op("SHORT_BINUNICODE") + bytes([len(data)]) + data


def global_(module: str, name: str) -> bytes:
    return text(module) + text(name) + op("STACK_GLOBAL")


def program(*parts: bytes) -> bytes:
    return op("PROTO") + b"\x04" + b"".join(parts) + op("STOP")


def call(target: bytes, *args: bytes) -> bytes:
    return target + op("MARK") + b"".join(args) + op("TUPLE") + op("REDUCE")


@pytest.mark.parametrize("value", PLAIN, ids=lambda v: type(v).__name__)
def test_plain_values_come_back_equal(value: object) -> None:
    got = admission.admit(dumps(value), ALLOWED)
    assert got == value
    assert type(got) is type(value)


def test_what_values_use_is_measured_not_guessed() -> None:
    usage = Usage()
    admission.admit(dumps(collections.OrderedDict(a=1)), Allowlist(), usage)
    # a class called to make it, then given its items
    assert usage.to_json()["globals"] == ["collections:OrderedDict build call ref"]


def test_shared_and_recursive_structure_survives() -> None:
    inner = [1, 2]
    loop: list[Any] = [inner, inner]
    loop.append(loop)
    got = admission.admit(dumps(loop), ALLOWED)
    assert got[0] is got[1]
    assert got[2] is got


def refusal(data: bytes, allowlist: Allowlist = ALLOWED) -> str:
    with pytest.raises(RefusedError) as caught:
        admission.admit(data, allowlist)
    return str(caught.value)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        pytest.param(
            program(call(global_("posix", "system"), text("touch pwned"))),
            "posix:system is not in the allowlist",
            id="a function outside the list",
        ),
        pytest.param(
            program(global_("builtins", "eval")),
            "builtins:eval is not in the allowlist",
            id="named, not even called",
        ),
        pytest.param(
            program(global_("collections", "OrderedDict.__init_subclass__")),
            "collections:OrderedDict.__init_subclass__ is not in the allowlist",
            id="a dotted path past a listed class",
        ),
        pytest.param(
            program(call(global_("functools", "partial"), global_("builtins", "complex"))),
            "functools:partial is not in the allowlist",
            id="functools.partial",
        ),
        pytest.param(
            program(text("builtins") + text("getattr") + op("STACK_GLOBAL")),
            "builtins:getattr is not in the allowlist",
            id="getattr",
        ),
        pytest.param(
            program(b"cbuiltins\neval\n"),
            "opcode GLOBAL is not admitted",
            id="protocol-0 GLOBAL",
        ),
        pytest.param(
            program(op("MARK") + b"ibuiltins\ncomplex\n"),
            "opcode INST is not admitted",
            id="INST",
        ),
        pytest.param(
            program(op("MARK") + global_("builtins", "complex") + op("OBJ")),
            "opcode OBJ is not admitted",
            id="OBJ",
        ),
        pytest.param(program(op("EXT1") + b"\x01"), "opcode EXT1 is not admitted", id="EXT1"),
        pytest.param(
            program(text("x") + op("BINPERSID")), "opcode BINPERSID is not admitted", id="PERSID"
        ),
        pytest.param(
            op("PROTO") + b"\x05" + op("NONE") + op("STOP"),
            "protocol 5 is not the one values are sent in",
            id="protocol 5",
        ),
        pytest.param(
            program(op("NONE") + op("NONE")),
            "STOP leaves the machine in an unfinished state",
            id="two values",
        ),
        pytest.param(
            program(op("NONE")) + b"trailing",
            "STOP leaves the machine in an unfinished state",
            id="trailing bytes",
        ),
        pytest.param(
            program(op("LONG4") + struct.pack("<i", 1 << 30)),
            "LONG4 has an implausible size",
            id="a gigantic integer",
        ),
    ],
)
def test_refused(data: bytes, reason: str) -> None:
    assert reason in refusal(data)


def test_only_listed_globals_may_be_called() -> None:
    # range is listed with "call" (values use it); slice is only named in this list
    listed = Allowlist.parse("builtins:range call\nbuiltins:slice\n")
    assert admission.admit(
        program(call(global_("builtins", "range"), op("BININT1") + b"\x03")), listed
    ) == range(3)
    assert "builtins:slice may not be called" in refusal(
        program(call(global_("builtins", "slice"), op("BININT1") + b"\x03")), listed
    )


def test_an_object_the_pickle_built_may_not_be_called() -> None:
    # complex(1) is built, then used as the callable of a second REDUCE
    built = call(global_("builtins", "complex"), op("BININT1") + b"\x01")
    reason = refusal(program(call(built, op("BININT1") + b"\x02")))
    assert "may only call a listed global, not an object of type builtins.complex" in reason


def test_new_objects_only_of_listed_classes() -> None:
    listed = Allowlist.parse("collections:OrderedDict\n")  # named, not creatable
    data = program(global_("collections", "OrderedDict") + op("EMPTY_TUPLE") + op("NEWOBJ"))
    assert "NEWOBJ may only create a listed class" in refusal(data, listed)


def test_state_only_for_classes_listed_with_build() -> None:
    listed = Allowlist.parse("collections:deque call\n")
    data = program(call(global_("collections", "deque")) + op("EMPTY_DICT") + op("BUILD"))
    assert "collections:deque may not receive state" in refusal(data, listed)


def test_items_only_for_containers_listed_with_build() -> None:
    listed = Allowlist.parse("collections:OrderedDict call\n")
    data = program(
        call(global_("collections", "OrderedDict"))
        + op("MARK") + text("k") + text("v") + op("SETITEMS")
    )  # fmt: skip
    assert "may not receive items from a returned value (SETITEMS)" in refusal(data, listed)


class Frame:
    """A stand-in for a library class whose method a check calls (``df.equals``)."""

    def equals(self, other: object) -> bool:
        return self is other


def test_a_callable_attribute_may_not_hide_a_method() -> None:
    # state {"equals": bool} would make `result.equals(expected)` true for anything
    name = f"{__name__}:Frame"
    listed = Allowlist.parse(f"{name} call build\nbuiltins:bool\n")
    data = program(
        call(global_(__name__, "Frame"))
        + op("EMPTY_DICT") + text("equals") + global_("builtins", "bool") + op("SETITEM")
        + op("BUILD")
    )  # fmt: skip
    assert f"{name}.equals is hidden by a callable attribute" in refusal(data, listed)
    allowed = Allowlist.parse(f"{name} call build shadow=equals\nbuiltins:bool\n")
    assert admission.admit(data, allowed).equals(1) is True  # where honest values need it


def test_data_attributes_may_share_a_method_name() -> None:
    listed = Allowlist.parse(f"{__name__}:Frame call build\n")
    data = program(
        call(global_(__name__, "Frame"))
        + op("EMPTY_DICT") + text("equals") + op("NONE") + op("SETITEM") + op("BUILD")
    )  # fmt: skip
    assert admission.admit(data, listed).__dict__ == {"equals": None}


def test_getattr_reaches_only_listed_attributes_of_listed_globals() -> None:
    listed = Allowlist.parse(
        "builtins:getattr call\ndatetime:datetime\ndatetime:datetime.fromisoformat call\n"
    )
    getter = global_("builtins", "getattr")
    good = call(
        call(getter, global_("datetime", "datetime"), text("fromisoformat")), text("2024-01-02")
    )
    assert admission.admit(program(good), listed) == dt.datetime.fromisoformat("2024-01-02")
    bad = call(getter, global_("datetime", "datetime"), text("now"))
    assert "datetime:datetime.now is not in the allowlist" in refusal(program(bad), listed)
    dunder = call(getter, global_("datetime", "datetime"), text("__subclasses__"))
    assert "getattr takes an object and a listed name" in refusal(program(dunder), listed)


def test_a_bound_method_is_a_value_never_a_callable() -> None:
    listed = Allowlist.parse(
        "builtins:getattr call\ncollections:OrderedDict call build\ncollections:OrderedDict.clear\n"
    )
    bound = call(
        global_("builtins", "getattr"), call(global_("collections", "OrderedDict")), text("clear")
    )
    assert callable(admission.admit(program(bound), listed))
    assert "may only call a listed global" in refusal(program(call(bound)), listed)


# -- defence in depth: the audit hook ------------------------------------------------------


@pytest.mark.parametrize(
    ("listed", "payload", "event"),
    [
        ("builtins:eval call", call(global_("builtins", "eval"), text("1 + 1")), "compile"),
        ("builtins:exec call", call(global_("builtins", "exec"), text("x = 1")), "compile"),
        (
            "builtins:open call",
            call(global_("builtins", "open"), text("/etc/hostname")),
            "open",
        ),
        (
            "importlib:import_module call",
            call(global_("importlib", "import_module"), text("antigravity")),
            "(import|open|os.listdir|os.stat)",
        ),
        ("posix:system call", call(global_("posix", "system"), text("true")), "os.system"),
        ("posix:listdir call", call(global_("posix", "listdir"), text("/")), "os.listdir"),
    ],
)
def test_even_a_wrong_allowlist_cannot_run_code_or_touch_files(
    listed: str, payload: bytes, event: str
) -> None:
    # The allowlist is data a maintainer edits; were it to list something that evaluates
    # code or opens files, the audit hook still stops it: default-deny on events too.
    assert re.search(
        f"event {event} was raised", refusal(program(payload), Allowlist.parse(listed))
    )
    assert "antigravity" not in sys.modules


def swallow(code: str) -> str:
    """A 'library function' that tries something and hides the failure."""
    try:
        eval(code)
    except Exception:
        return "recovered"
    return "ran"


def test_a_refused_event_is_final_even_if_the_library_catches_it() -> None:
    listed = Allowlist.parse(f"{__name__}:swallow call")
    assert "event compile was raised" in refusal(
        program(call(global_(__name__, "swallow"), text("1"))), listed
    )


def test_events_of_other_threads_are_not_the_values_doing() -> None:
    started, stop = threading.Event(), threading.Event()

    def busy() -> None:
        started.set()
        while not stop.is_set():
            compile("1", "<other thread>", "eval")

    thread = threading.Thread(target=busy, daemon=True)
    thread.start()
    started.wait()
    try:
        for _ in range(50):
            assert admission.admit(dumps(PLAIN), ALLOWED) == PLAIN
    finally:
        stop.set()
        thread.join()


def test_the_hook_costs_nothing_outside_admission() -> None:
    admission.admit(dumps(1), ALLOWED)  # installs it
    assert admission._ACTIVE == [None]
    compile("1", "<after>", "eval")  # not refused: nothing is being admitted


# -- limits ------------------------------------------------------------------------------------


def test_nesting_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(admission, "MAX_DEPTH", 50)
    deep = op("MARK") * 60 + op("NONE") + op("TUPLE") * 60
    assert "nests too deeply" in refusal(program(deep))


def test_the_number_of_objects_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(admission, "MAX_OBJECTS", 1000)
    many = op("EMPTY_LIST") + op("MARK") + op("EMPTY_DICT") * 2000 + op("APPENDS")
    assert "builds more than 1000 objects" in refusal(program(many))


def test_size_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(admission, "MAX_BYTES", 100)
    assert "larger than 100 bytes" in refusal(dumps("x" * 200))


@pytest.mark.parametrize(
    "data",
    [b"", program(op("BINUNICODE") + struct.pack("<I", 10) + b"abc"), dumps([1, 2, 3])[:-3]],
    ids=["empty", "short string", "cut off"],
)
def test_malformed_data_is_unreadable_not_a_crash(data: bytes) -> None:
    with pytest.raises((UnreadableError, RefusedError)):
        admission.admit(data, ALLOWED)


# -- generated opcode streams ---------------------------------------------------------------

OPCODES = sorted(
    {v for k, v in vars(pickle).items() if k.isupper() and isinstance(v, bytes) and len(v) == 1}
)
SIDE_EFFECT = "__import__('sys').modules.__setitem__('harness_pwned', 1)"
PIECES = st.one_of(
    st.sampled_from(OPCODES),
    st.sampled_from(
        [
            global_("builtins", "eval"),
            global_("builtins", "complex"),
            global_("collections", "OrderedDict"),
            text(SIDE_EFFECT),
            text("x"),
            op("BININT1") + b"\x05",
            op("EMPTY_DICT"),
            op("MARK"),
            op("TUPLE"),
            op("REDUCE"),
            op("BUILD"),
        ]
    ),
    st.binary(max_size=6),
)
# A wrong allowlist on purpose: eval is "listed", so only the audit hook stands between a
# generated stream and code execution.
PERMISSIVE = ALLOWED.merged(Allowlist.parse("builtins:eval call"))


@settings(max_examples=400, derandomize=True, deadline=None)
@given(st.lists(PIECES, max_size=40))
def test_generated_streams_are_data_or_refused(pieces: list[bytes]) -> None:
    data = op("PROTO") + b"\x04" + b"".join(pieces) + op("STOP")
    with contextlib.suppress(RefusedError, UnreadableError, MemoryError):
        admission.admit(data, PERMISSIVE)
    assert "harness_pwned" not in sys.modules


def test_the_generated_streams_do_reach_eval() -> None:
    # the generator above can write a call of eval: the test would catch a hook that failed
    data = program(call(global_("builtins", "eval"), text(SIDE_EFFECT)))
    assert "event compile was raised" in refusal(data, PERMISSIVE)
    assert "harness_pwned" not in sys.modules


def test_warming_looks_up_what_is_loaded_and_imports_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(admission, "_FOUND", {})  # nothing looked up yet in this process
    allowlist = Allowlist.parse(
        "datetime:timedelta call build\n"
        "collections:OrderedDict call build\n"
        "harness_never_imported.module:Thing call build\n"
        "datetime:no_such_name call\n"
    )
    admission.warm(allowlist)
    assert ("datetime", "timedelta") in admission._FOUND
    assert admission.resolve(("datetime", "timedelta")) is dt.timedelta
    assert allowlist.buildable[collections.OrderedDict] is True
    assert dt.timedelta in admission._METHODS
    assert "harness_never_imported.module" not in sys.modules
    assert ("datetime", "no_such_name") not in admission._FOUND
    # what was warmed admits as before
    assert Admission(dumps(dt.timedelta(2)), allowlist).load() == dt.timedelta(2)


GC_PROBE_SEEN: list[bool] = []


class GcProbe:
    """Notes, as it is rebuilt, whether the cycle collector runs."""

    def __init__(self) -> None:
        self.state = 1

    def __setstate__(self, state: object) -> None:
        GC_PROBE_SEEN.append(gc.isenabled())


@pytest.mark.parametrize("collecting", [True, False])
def test_admission_pauses_the_cycle_collector_and_leaves_it_as_it_was(collecting: bool) -> None:
    seen = GC_PROBE_SEEN
    seen.clear()
    allowlist = Allowlist.parse(f"{__name__}:GcProbe call build\n")
    was = gc.isenabled()
    try:
        (gc.enable if collecting else gc.disable)()
        admission.admit(pickle.dumps(GcProbe(), protocol=4), allowlist)
        assert seen == [False]  # paused while the value was built
        assert gc.isenabled() is collecting
        with pytest.raises(RefusedError):
            admission.admit(pickle.dumps(print, protocol=4), allowlist)
        assert gc.isenabled() is collecting
    finally:
        (gc.enable if was else gc.disable)()


def test_admission_records_what_it_used() -> None:
    usage = Usage()
    Admission(dumps(dt.timedelta(1)), Allowlist(), usage).load()
    assert usage.to_json() == {
        "globals": ["datetime:timedelta call ref"],
        "events": [],
        "shadows": [],
        "refusable": [],
    }


class Bag(dict[str, str]):
    """A dict subclass, as scipy's dok_matrix (1.7 to 1.11) pickles: copyreg._reconstructor."""


def test_a_class_derived_from_a_builtin_is_rebuilt_on_that_base_only() -> None:
    reconstructor = global_("copyreg", "_reconstructor")
    state = op("EMPTY_DICT") + text("k") + text("v") + op("SETITEM")
    listed = Allowlist.parse(
        f"copyreg:_reconstructor call\n{__name__}:Bag build\nbuiltins:dict\n"
        "builtins:list\nbuiltins:object\ncollections:deque\n"
    )
    good = call(reconstructor, global_(__name__, "Bag"), global_("builtins", "dict"), state)
    assert admission.admit(program(good), listed) == Bag(k="v")
    wrong_base = call(reconstructor, global_(__name__, "Bag"), global_("builtins", "list"), state)
    assert "only rebuilds a class on its built-in base" in refusal(program(wrong_base), listed)
    not_buildable = call(
        reconstructor, global_("collections", "deque"), global_("builtins", "object"), op("NONE")
    )
    assert "collections:deque may not be rebuilt" in refusal(program(not_buildable), listed)


class Shape:
    """A listed base whose subclasses, made by a factory, no attribute holds (as NumPy's
    ``dtype[int64]`` before NumPy 1.25, or Matplotlib 3.5's ``AxesSubplot``)."""


class Unlisted:
    pass


def made(name: str, *bases: type) -> type:
    cls = type(name, bases, {"__module__": __name__})
    cls.__qualname__ = name
    return cls


SQUARE = made("Shape[square]", Shape)
SUBPLOT = made("ShapeSubplot", Unlisted, Shape)
IMPOSTOR = made("Shape[round]")
STRAY = made("UnlistedSubplot", Unlisted)
HIDDEN = made("Hidden")
IMPOSTOR_BASE = made("Shape", Unlisted)  # says it is Shape, is not


@pytest.mark.parametrize(
    ("cls", "lines", "admitted"),
    [
        (SQUARE, "Shape[square] build\n{m}:Shape", True),
        (SUBPLOT, "ShapeSubplot build\n{m}:Shape", True),
        (SQUARE, "Shape[square]\n{m}:Shape", False),  # named, not buildable
        (SQUARE, "Shape[square] build", False),  # no listed base
        (IMPOSTOR, "Shape[round] build\n{m}:Shape", False),  # not a subclass of it
        (STRAY, "UnlistedSubplot build\n{m}:Unlisted", True),
        (STRAY, "UnlistedSubplot build", False),
        (made("Sub", IMPOSTOR_BASE), "Sub build\n{m}:Shape", False),  # a base impostor
        (made("Sub", HIDDEN), "Sub build\n{m}:Hidden", False),  # a base no name reaches
    ],
)
def test_classes_no_attribute_holds_are_named_by_their_bases(
    cls: type, lines: str, admitted: bool
) -> None:
    listed = Allowlist.parse(f"{__name__}:{lines.format(m=__name__)}\n")
    assert admission.may_build(listed, cls) is admitted


def test_a_signature_is_data_under_the_shipped_allowlist() -> None:
    # matplotlib sets ``pyplot.show.__signature__`` when it starts a backend: with ``show``
    # patched by the test, that signature crosses to the check's mock
    def f(a: int, b: str = "x", *rest: float, key: object = None, **more: bytes) -> None:
        return None

    signature = inspect.signature(f)
    assert admission.admit(dumps(signature), shipped_allowlist()) == signature
