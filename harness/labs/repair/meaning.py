"""Does a repaired context still pose the same problem? Value by value, in the baseline.

A DS-1000-style context builds each test case with ``generate_test_case(i)`` → (test
input, expected result) and compares a solution's result with ``exec_test(result,
expected)``. The meaning check runs a context made of both: the repaired context is the
module's own code, and its ``generate_test_case`` is wrapped so that every test case the
check asks for is built twice — by the original context (in a namespace of its own) and
by the repaired one, from the same random state — and then compared:

* the test inputs, structurally (type, shape, dtype, values; NaN equal to NaN);
* the expected results: structurally equal, or else equal by the problem's own
  comparison, ``exec_test(repaired, original)`` (a falsy return or an exception is a
  difference).

Any difference fails the execution with a one-line ``AssertionError`` naming the test
case and what differs. The solution run in this context is the original reference: a
pass says the inputs and expectations are the original ones *and* that the original
reference still satisfies the repaired check.

Contexts of another shape (no ``generate_test_case`` in both) get no composite: the
caller falls back to running the original reference in the repaired context.
"""

from __future__ import annotations

import re

# A solution's or context's text reaches the composite only through repr(), so that
# nothing in it can end or escape the string it is kept in.
_WRAPPER = '''
def _harness_same(a, b, depth=0):
    """Structural equality of two test inputs (NaN equals NaN; types must agree)."""
    import sys

    if a is b:
        return True
    # a class the context defines is defined twice here, once by each context
    if type(a).__qualname__ != type(b).__qualname__ or depth > 20:
        return False
    if isinstance(a, float):
        return a == b or (a != a and b != b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_harness_same(x, y, depth + 1) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_harness_same(a[k], b[k], depth + 1) for k in a)
    module = type(a).__module__ or ""
    if module.startswith("pandas"):
        return bool(a.equals(b))
    if module.startswith("scipy.sparse"):
        return a.shape == b.shape and (a != b).nnz == 0
    np = sys.modules.get("numpy")
    if np is not None and isinstance(a, np.ndarray):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        try:
            return bool(np.array_equal(a, b, equal_nan=True))
        except TypeError:  # object or string arrays: NaN cannot be told apart
            return bool(np.array_equal(a, b))
    if type(a).__eq__ is object.__eq__:
        if hasattr(a, "__dict__") and hasattr(b, "__dict__"):
            return _harness_same(vars(a), vars(b), depth + 1)
        return repr(a) == repr(b)
    try:
        equal = a == b
        if isinstance(equal, bool):
            return equal
        return bool(np.asarray(equal).all()) if np is not None else bool(equal)
    except Exception:
        return repr(a) == repr(b)


def _harness_random_states():
    """The global random states a test case may draw from, to replay them."""
    import random
    import sys

    states = [(random.setstate, random.getstate())]
    np = sys.modules.get("numpy")
    if np is not None:
        states.append((np.random.set_state, np.random.get_state()))
    torch = sys.modules.get("torch")
    if torch is not None:
        states.append((torch.random.set_rng_state, torch.random.get_rng_state()))
    return states


_harness_original = {"__name__": "_harness_original_context"}
exec(compile(_HARNESS_CONTEXTS[0], "<original context>", "exec"), _harness_original)
_harness_repaired_case = generate_test_case


def generate_test_case(test_case_id):
    states = _harness_random_states()
    original = _harness_original["generate_test_case"](test_case_id)
    for restore, state in states:
        restore(state)
    repaired = _harness_repaired_case(test_case_id)
    where = f"harness meaning check: test case {test_case_id}"
    if not _harness_same(original[0], repaired[0]):
        raise AssertionError(f"{where}: the repaired context builds another test input")
    try:
        # identical values need no comparison (and the figure problems' exec_test reads
        # files that only a solution's run writes)
        same = _harness_same(original[1], repaired[1]) or exec_test(repaired[1], original[1])
    except Exception as exc:
        same = False
        why = f" ({type(exc).__name__})"
    else:
        why = ""
    if not same:
        raise AssertionError(
            f"{where}: the expected results differ by the problem's own comparison{why}"
        )
    return repaired
'''

_DEFINES = re.compile(r"^def generate_test_case\(", re.MULTILINE)


def comparable(original: str, repaired: str) -> bool:
    """True when both contexts build their test cases with ``generate_test_case`` (a
    version-conditioned context holds its texts as strings, and defines it when run)."""
    return bool(_DEFINES.search(original)) and "def generate_test_case(" in repaired


def meaning_context(original: str, repaired: str) -> str:
    """The composite context that compares ``repaired``'s test cases with ``original``'s."""
    return (
        "# harness repair's meaning check: the repaired context, its test cases compared\n"
        "# value by value with the original context's\n"
        f"_HARNESS_CONTEXTS = ({original!r}, {repaired!r})\n"
        'exec(compile(_HARNESS_CONTEXTS[1], "<context>", "exec"), globals())\n' + _WRAPPER
    )
