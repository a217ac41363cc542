"""A repaired test is never looser than the original: the check, read statically.

A codemod may rename an assertion (``assertEquals`` → ``assertEqual``) or rewrite one
into an equivalent (``assertDictContainsSubset(s, d)`` → ``assertEqual(d, {**d, **s})``),
but a repair must not drop an assertion or widen a tolerance. :func:`loosened` compares
the assertions of two versions of a test module, each named by the method it stands for
(the aliases read as their methods), with the tolerances they are given (``places``,
``delta``, ``rtol``, ``atol``, ``decimal``), and says what the new one lost; the repair
is refused with that reason (``harness.labs.repair.plan``).
"""

from __future__ import annotations

import ast
from collections import Counter

from harness.labs.repair.python_api import SUBSET, UNITTEST_ALIASES

# a larger value is looser for these, a smaller one for the others
_LOOSER_WHEN_LARGER = frozenset({"delta", "rtol", "atol"})
_LOOSER_WHEN_SMALLER = frozenset({"places", "decimal"})
_TOLERANCES = _LOOSER_WHEN_LARGER | _LOOSER_WHEN_SMALLER
# what an assertion stands for, when a codemod rewrote it into another
_EQUIVALENT = {**UNITTEST_ALIASES, SUBSET: "assertEqual"}


def _kind(call: ast.Call) -> str | None:
    """The assertion ``call`` makes (``assertEqual``, ``assert_allclose``…), None if none."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if not isinstance(name, str):
        return None
    name = _EQUIVALENT.get(name, name)
    if name.startswith(("assert", "fail")) or name in ("raises", "warns", "approx"):
        return name
    return None


def assertions(source: str) -> tuple[Counter[str], list[tuple[str, str, object]]]:
    """The assertions of ``source`` by kind (``assert`` statements as ``assert``), and
    each tolerance given to one: (kind, keyword, its literal value or the text)."""
    tree = ast.parse(source)
    kinds: Counter[str] = Counter()
    tolerances: list[tuple[str, str, object]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            kinds["assert"] += 1
        elif isinstance(node, ast.Call) and (kind := _kind(node)) is not None:
            kinds[kind] += 1
            for kw in node.keywords:
                if kw.arg in _TOLERANCES:
                    value = kw.value
                    literal = value.value if isinstance(value, ast.Constant) else ast.unparse(value)
                    tolerances.append((kind, kw.arg, literal))
    return kinds, tolerances


def loosened(before: str, after: str) -> str:
    """What ``after`` (a repaired test) checks less than ``before``; "" when nothing.

    Fewer assertions of a kind, a tolerance dropped, or one made looser, each named.
    Source that does not parse cannot be compared and is refused.
    """
    try:
        old_kinds, old_tol = assertions(before)
        new_kinds, new_tol = assertions(after)
    except SyntaxError as exc:
        return f"the test does not parse: {exc.msg}"
    lost = [f"{n} fewer {kind}" for kind, n in (old_kinds - new_kinds).items()]
    remaining = list(new_tol)
    for kind, word, value in old_tol:
        same = [t for t in remaining if t[0] == kind and t[1] == word]
        match = next((t for t in same if t[2] == value), None)
        if match is not None:
            remaining.remove(match)
            continue
        tighter = next((t for t in same if _tighter_or_equal(word, t[2], value)), None)
        if tighter is None:
            lost.append(f"{kind}({word}={value!r}) loosened or dropped")
        else:
            remaining.remove(tighter)
    return "; ".join(lost)


def _tighter_or_equal(word: str, new: object, old: object) -> bool:
    if not isinstance(new, (int, float)) or not isinstance(old, (int, float)):
        return False
    if word in _LOOSER_WHEN_LARGER:
        return new <= old
    return new >= old
