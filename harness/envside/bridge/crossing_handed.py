"""What the test hands the solution, and how it comes back: as the test's own.

In one process a test's objects are the objects the answer gets. Across the boundary
they are copies, so the check notes where each object it sends by value sits in a call's
arguments (``handed``) and the solution's process notes them as they arrived
(``receive``). What the answer sends back unchanged is the test's own object again
(``mock.assert_called_with(X)`` compares ``X`` with itself); what it changed in an object
a task configures (an axes it draws on, a model it fits) or in a list, dict or set it
fills is written back into the test's own (``write_back``), and a result that is that
object is the test's own too (``as_originals``). ``np.nan`` and ``math.nan`` come back as
the check's own constants.
"""

from __future__ import annotations

import hashlib
import math
import pickle
import sys
import types
from typing import Any, Dict, List, Optional, Tuple

from .crossing_lending import SCALARS, TEST_MODULES, Lent, lends
from .crossing_standins import SolutionStandIn

# Bound once, before any test or solution runs: a test that patches ``pickle.dumps`` for
# the code it tests must not reach the harness's own digests.
_pickle_dumps = pickle.dumps
_sha1 = hashlib.sha1

# -- the check's side: what it handed over, and what the answer did with it ----------------


def handed(args: Tuple[Any, ...], kwargs: Dict[str, Any], sent: Lent) -> List[List[Any]]:
    """Where in a call's arguments each object the check sends by value sits, with the
    number it is known by: ``[number, "a", 0]``, ``[number, "k", "df"]``, one level into
    lists, tuples and dicts (``[number, "a", 0, 2]``). An object the answer sends back
    unchanged comes back as the check's own (a mock sees the very arrays it was called
    with, as in one process)."""
    paths: List[List[Any]] = []
    places: List[Tuple[str, Any, Any]] = [("a", i, v) for i, v in enumerate(args)]
    places += [("k", k, v) for k, v in kwargs.items()]
    for where, key, value in places:
        if not _by_value(value):
            continue
        paths.append([sent.lend(value), where, key])
        if isinstance(value, (list, tuple)):
            inner: List[Tuple[Any, Any]] = list(enumerate(value[:100]))
        elif isinstance(value, dict):
            inner = [(k, v) for k, v in list(value.items())[:100] if isinstance(k, (str, int))]
        else:
            continue
        for index, item in inner:
            if _by_value(item):
                paths.append([sent.lend(item), where, key, index])
    return paths


def _by_value(value: Any) -> bool:
    return (
        not isinstance(value, SCALARS)
        and not isinstance(value, SolutionStandIn)
        and not lends(value)
    )


def configured(obj: Any) -> bool:
    """Whether the answer's changes to ``obj`` reach the check's own object by its state:
    an object a task configures (a figure's axes, a model it fits). Data has its own way
    back (``refilled``); an array or a frame stays as the check made it."""
    cls = type(obj)
    return (
        hasattr(obj, "__dict__")
        and not isinstance(obj, (type, types.ModuleType, types.FunctionType))
        and not hasattr(cls, "__len__")
        and not hasattr(cls, "__iter__")
        and cls.__module__ not in TEST_MODULES
    )


# The containers a test hands over and reads again (``task_func(my_list)`` then
# ``assertIn(12, my_list)``): the answer's changes to them are refilled into the test's own.
_REFILLED = (list, dict, set, bytearray)


def refilled(obj: Any) -> bool:
    return type(obj) in _REFILLED


def write_back(original: Any, changed: Any) -> bool:
    """Give the check's ``original`` the state the answer left its copy in (admitted as
    data): what one process would have shown the test."""
    if type(changed) is not type(original):
        return False
    if refilled(original):
        if isinstance(original, (dict, set)):
            original.clear()
            original.update(changed)
        else:
            original[:] = changed
        return True
    if not configured(original):
        return False
    state = vars(original)
    state.clear()
    state.update(vars(changed))
    return True


def as_originals(value: Any, originals: Dict[int, Any]) -> Any:
    """A returned value with the copies of the test's objects that were written back
    replaced by the test's objects themselves (``assertIs(result, input_dict)``): at the
    top, or one level into a returned tuple or list."""
    if not originals:
        return value
    if id(value) in originals:
        return originals[id(value)]
    if type(value) in (tuple, list) and any(id(v) in originals for v in value):
        return type(value)(originals.get(id(v), v) for v in value)
    return value


# Matplotlib's style (rcParams): what a style file may set, shared as one process shares


# -- the solution's side: what arrived, and whether the call changed it ---------------------

# The objects the check sent by value in the call being served: id → (number, object,
# digest of its pickle on arrival).
RECEIVED: Dict[int, Tuple[int, Any, bytes]] = {}


def _digest(obj: Any) -> bytes:
    try:
        return _sha1(_pickle_dumps(obj, protocol=4)).digest()
    except Exception:
        return b""  # cannot tell: never "unchanged"


def receive(args: Tuple[Any, ...], kwargs: Dict[str, Any], paths: Any) -> None:
    """Note the objects the check sent by value (``handed``), as they arrived."""
    RECEIVED.clear()
    for path in paths if isinstance(paths, list) else []:
        try:
            number, where, key = path[0], path[1], path[2]
            obj = args[key] if where == "a" else kwargs[key]
            if len(path) > 3:
                obj = obj[path[3]]
        except Exception:
            continue
        RECEIVED[id(obj)] = (number, obj, _digest(obj))


def changed_received() -> List[Tuple[int, Any]]:
    """The configured objects the check sent that the call changed, to be written back."""
    found = []
    for number, obj, digest in list(RECEIVED.values()):
        if (configured(obj) or refilled(obj)) and _digest(obj) != digest:
            found.append((number, obj))
    return found


def unchanged_number(obj: Any) -> Optional[int]:
    """The number the check sent ``obj`` by, if it goes back as it arrived (the check's own
    object again); else None."""
    entry = RECEIVED.get(id(obj))
    if entry is None or entry[1] is not obj or not entry[2] or _digest(obj) != entry[2]:
        return None
    return entry[0]


# ``np.nan`` and ``math.nan`` are one object each in a process, and containers compare
# their items by identity first: ``[np.nan] == [np.nan]`` holds where ``nan == nan`` does
# not. The answer's constant comes back as the check's own (a test's ``assertEqual(result,
# [np.nan, np.nan])``); any other NaN is a NaN.
def which_nan_constant(value: float) -> Optional[int]:
    numpy = sys.modules.get("numpy")
    if numpy is not None and value is getattr(numpy, "nan", None):
        return 0
    if value is math.nan:  # noqa: PLW0177 - the very object, not its value
        return 1
    return None


def nan_constant(which: int) -> float:
    numpy = sys.modules.get("numpy")
    if which == 0 and numpy is not None and type(getattr(numpy, "nan", None)) is float:
        return numpy.nan  # type: ignore[no-any-return]
    return math.nan if which == 1 else float("nan")
