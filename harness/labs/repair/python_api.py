"""Python's own codemods: the ``unittest`` aliases that Python 3.12 removed.

The aliases had warned since Python 3.2 (``assertEquals`` and the ``fail*`` names) or
3.3 (``assertDictContainsSubset``); 3.12 removed them, so a test that calls one fails
with ``AttributeError`` on the test case. Each alias becomes the method it stood for,
which takes the same arguments and checks the same thing: the rewrite keeps every
assertion and its tolerance. ``assertDictContainsSubset`` had no replacement method; its
check (every key of the subset is in the dictionary, with an equal value) is written as
``assertEqual(dictionary, {**dictionary, **subset})``, which fails exactly when it did.
"""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from harness.labs.repair.base import Transformer, keyword, positional

# removed in Python 3.12 (gh-89325): alias → the method it stood for
UNITTEST_ALIASES: dict[str, str] = {
    "assertEquals": "assertEqual",
    "failUnlessEqual": "assertEqual",
    "assertNotEquals": "assertNotEqual",
    "failIfEqual": "assertNotEqual",
    "assertAlmostEquals": "assertAlmostEqual",
    "failUnlessAlmostEqual": "assertAlmostEqual",
    "assertNotAlmostEquals": "assertNotAlmostEqual",
    "failIfAlmostEqual": "assertNotAlmostEqual",
    "failUnless": "assertTrue",
    "assert_": "assertTrue",
    "failIf": "assertFalse",
    "failUnlessRaises": "assertRaises",
    "assertRaisesRegexp": "assertRaisesRegex",
    "assertRegexpMatches": "assertRegex",
    "assertNotRegexpMatches": "assertNotRegex",
}
SUBSET = "assertDictContainsSubset"


class UnittestAliases(Transformer):
    """``self.assertEquals(a, b)`` → ``self.assertEqual(a, b)``, and every other alias of
    ``unittest.TestCase`` that Python 3.12 removed, to the method it named; and
    ``self.assertDictContainsSubset(subset, d)`` → ``self.assertEqual(d, {**d, **subset})``.

    Only method calls are rewritten (``x.assertEquals(...)``: the names are
    ``TestCase``'s own), never a function or attribute of the same name defined here.
    An ``assertDictContainsSubset`` whose dictionary is not a plain name or attribute
    (it would be evaluated twice) or whose arguments are starred is left alone, with
    the reason.
    """

    name = "unittest-removed-aliases"
    description = "unittest aliases removed in Python 3.12 (assertEquals, assertAlmostEquals, assertRegexpMatches, assertDictContainsSubset…) → their methods"
    library = "python"
    reference = "What's New in Python 3.12, Removed: unittest's deprecated aliases (gh-89325), assertDictContainsSubset deprecated since 3.2: https://docs.python.org/3/whatsnew/3.12.html#unittest"
    mentions: ClassVar[tuple[str, ...]] = (*UNITTEST_ALIASES, SUBSET)

    _defined: frozenset[str] = frozenset()

    def visit_Module(self, node: cst.Module) -> bool:
        # a class of the source's own that defines one of the names keeps its calls
        self._defined = frozenset(
            f.name.value
            for c in node.body
            if isinstance(c, cst.ClassDef)
            for f in c.body.body
            if isinstance(f, cst.FunctionDef)
        )
        return super().visit_Module(node)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        func = updated_node.func
        if not isinstance(func, cst.Attribute):
            return updated_node
        name = func.attr.value
        if name in self._defined:
            return updated_node
        if name in UNITTEST_ALIASES:
            return updated_node.with_changes(
                func=func.with_changes(attr=cst.Name(UNITTEST_ALIASES[name]))
            )
        if name == SUBSET:
            return self._subset(updated_node, func)
        return updated_node

    def _subset(self, call: cst.Call, func: cst.Attribute) -> cst.BaseExpression:
        args = positional(call)
        if any(a.star for a in call.args) or (
            len(args) < 2 and keyword(call, "dictionary") is None
        ):
            self.warn(f"{SUBSET} with starred or missing arguments: left alone")
            return call
        subset = keyword(call, "subset") or args[0]
        dictionary = keyword(call, "dictionary") or args[1]
        if not isinstance(dictionary.value, (cst.Name, cst.Attribute, cst.Dict)):
            self.warn(f"{SUBSET}: its dictionary would be evaluated twice; left alone")
            return call
        merged = cst.Dict(
            [
                cst.StarredDictElement(dictionary.value),
                cst.StarredDictElement(subset.value),
            ]
        )
        msg = keyword(call, "msg") or (args[2] if len(args) > 2 else None)
        new_args = [
            cst.Arg(dictionary.value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Arg(merged),
        ]
        if msg is not None:
            new_args[-1] = new_args[-1].with_changes(
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            )
            new_args.append(msg.with_changes(comma=cst.MaybeSentinel.DEFAULT))
        return call.with_changes(
            func=func.with_changes(attr=cst.Name("assertEqual")), args=new_args
        )
