"""NumPy codemods: the NumPy 2 removals (NEP 52) and the 1.24 removal of builtin aliases.

Where ruff's NPY001 / NPY201 rules carry a fix, the fix is ruff's (``ruff`` class
attribute); the LibCST part does what ruff only reports or gets wrong.
"""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from harness.labs.repair.base import (
    ContextSetting,
    Transformer,
    appended,
    keywords,
    kwarg,
    positional,
)
from harness.labs.repair.ruff import RuffFix

_NUMPY2 = "https://numpy.org/doc/stable/release/2.0.0-notes.html"
_NEP52 = f"NumPy 2.0.0 release notes, NEP 52 (Python API cleanup): {_NUMPY2}"


class _RenamedNumpy(Transformer):
    """Call sites of ``numpy.<old>`` renamed to ``numpy.<new>`` (``np.x``, ``numpy.x``, ``x``)."""

    renames: ClassVar[dict[str, str]] = {}

    def renamed(self, original: cst.Call, updated: cst.Call) -> cst.Call | None:
        """``updated`` calling the new name, if it calls an old one; imports arranged."""
        for old, new in self.renames.items():
            if not self.refers_to(original.func, f"numpy.{old}"):
                continue
            func = updated.func
            if isinstance(func, cst.Attribute):
                return updated.with_changes(func=func.with_changes(attr=cst.Name(new)))
            if isinstance(func, cst.Name):  # from numpy import old
                self.add_needed_import("numpy", new)
                self.remove_unused_import("numpy", func.value)
                return updated.with_changes(func=cst.Name(new))
        return None


class NanInfAliases(Transformer):
    """``np.NaN``/``np.NAN`` → ``np.nan``; ``np.Inf``/``Infinity``/``PINF``/``infty`` → ``np.inf``;
    ``np.NINF`` → ``-np.inf``.

    ruff fixes all but ``NINF``: its fix drops the parentheses ``-np.inf`` needs where a
    tighter operator binds it (ruff 0.17 turns ``np.NINF ** 2`` into ``-np.inf ** 2``,
    which is ``-inf``, not ``inf``), so ``NINF`` is rewritten here.
    """

    name = "numpy-nan-inf-aliases"
    description = "np.NaN / np.NAN / np.Inf / np.PINF / np.NINF / np.infty → np.nan / np.inf"
    library = "numpy"
    reference = _NEP52
    ruff = RuffFix("NPY201", frozenset({"NaN", "NAN", "Inf", "Infinity", "PINF", "infty"}))
    mentions = ("NaN", "NAN", "Inf", "PINF", "NINF", "infty")

    def visit_Module(self, node: cst.Module) -> bool:
        visit = super().visit_Module(node)
        self.remove_stale_imports("numpy", (*self.ruff.symbols, "NINF") if self.ruff else ())
        return visit

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        if self.refers_to(original_node, "numpy.NINF"):
            return self._negative_inf(original_node, updated_node.value)
        return updated_node

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        if self.refers_to(original_node, "numpy.NINF") and not self._in_import(original_node):
            numpy = self.module_ref("numpy")
            if numpy is None:
                self.add_needed_import("numpy", "inf")
                return self._wrap(original_node, cst.UnaryOperation(cst.Minus(), cst.Name("inf")))
            return self._negative_inf(original_node, numpy)
        return updated_node

    def _negative_inf(self, original: cst.CSTNode, numpy: cst.BaseExpression) -> cst.BaseExpression:
        value = cst.UnaryOperation(cst.Minus(), cst.Attribute(numpy, cst.Name("inf")))
        return self._wrap(original, value)

    def _wrap(self, original: cst.CSTNode, value: cst.UnaryOperation) -> cst.BaseExpression:
        parent = self.parent(original)
        tight = (
            isinstance(parent, cst.UnaryOperation)  # --np.inf is right but reads as a typo
            or (isinstance(parent, (cst.Attribute, cst.Subscript)) and parent.value is original)
            or (isinstance(parent, cst.Call) and parent.func is original)
            or (
                isinstance(parent, cst.BinaryOperation)
                and isinstance(parent.operator, cst.Power)
                and parent.left is original
            )
        )
        if tight:
            return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return value

    def _in_import(self, node: cst.CSTNode) -> bool:
        parent = self.parent(node)
        return isinstance(parent, (cst.ImportAlias, cst.ImportFrom))


class _RuffOnly(Transformer):
    """A change ruff fixes whole; the LibCST pass only drops the old name's stale import."""

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        cls.mentions = tuple(sorted(cls.ruff.symbols)) if cls.ruff else ()

    def visit_Module(self, node: cst.Module) -> bool:
        visit = super().visit_Module(node)
        self.remove_stale_imports("numpy", self.ruff.symbols if self.ruff else ())
        return visit


class ProductToProd(_RuffOnly):
    name = "numpy-product-to-prod"
    description = "np.product / np.cumproduct → np.prod / np.cumprod"
    library = "numpy"
    reference = f"NumPy 1.25.0 deprecated them; removed in 2.0.0 ({_NEP52})"
    ruff = RuffFix("NPY201", frozenset({"product", "cumproduct"}))


class AlltrueToAll(_RuffOnly):
    name = "numpy-alltrue-to-all"
    description = "np.alltrue / np.sometrue → np.all / np.any"
    library = "numpy"
    reference = f"NumPy 1.25.0 deprecated them; removed in 2.0.0 ({_NEP52})"
    ruff = RuffFix("NPY201", frozenset({"alltrue", "sometrue"}))


class ScalarTypeAliases(_RuffOnly):
    name = "numpy-scalar-type-aliases"
    description = "np.float_ / np.complex_ / np.unicode_ / np.string_ → np.float64 / np.complex128 / np.str_ / np.bytes_"
    library = "numpy"
    reference = _NEP52
    ruff = RuffFix("NPY201", frozenset({"float_", "complex_", "unicode_", "string_"}))


class BuiltinTypeAliases(_RuffOnly):
    """``np.bool`` is not among them: NumPy 2.0 brought it back as ``np.bool_``, and
    ``isinstance(x, bool)`` is not ``isinstance(x, np.bool)`` there."""

    name = "numpy-builtin-type-aliases"
    description = "np.float / np.int / np.object / np.complex / np.str → the builtin type"
    library = "numpy"
    reference = "NumPy 1.20.0 deprecated the aliases of builtin types; 1.24.0 removed them: https://numpy.org/doc/stable/release/1.24.0-notes.html"
    ruff = RuffFix("NPY001", frozenset({"float", "int", "object", "complex", "str"}))


class TrapzToTrapezoid(_RuffOnly):
    """``np.trapezoid`` is new in NumPy 2.0: in older NumPy the rewrite needs the old name
    back (a version-conditioned result)."""

    name = "numpy-trapz-to-trapezoid"
    description = "np.trapz → np.trapezoid (NumPy ≥ 2.0)"
    library = "numpy"
    reference = f"NumPy 2.0.0 deprecated np.trapz for np.trapezoid: {_NUMPY2}"
    ruff = RuffFix("NPY201", frozenset({"trapz"}))


class RowStackToVstack(_RuffOnly):
    name = "numpy-row-stack-to-vstack"
    description = "np.row_stack → np.vstack"
    library = "numpy"
    reference = f"NumPy 2.0.0 deprecated np.row_stack, an alias of np.vstack: {_NUMPY2}"
    ruff = RuffFix("NPY201", frozenset({"row_stack"}))


class RoundAsfarrayMsort(_RenamedNumpy):
    """``np.round_`` → ``np.round`` (ruff); ``np.asfarray(a)`` → ``np.asarray(a, dtype=float)``
    and ``np.msort(a)`` → ``np.sort(a, axis=0)``, which ruff only reports.

    ``asfarray(a, dtype)`` is left alone: it equals ``asarray`` only for an inexact dtype.
    """

    name = "numpy-round-asfarray-msort"
    description = (
        "np.round_ / np.asfarray / np.msort → np.round / np.asarray(dtype=float) / np.sort(axis=0)"
    )
    library = "numpy"
    reference = _NEP52
    ruff = RuffFix("NPY201", frozenset({"round_"}))
    renames: ClassVar[dict[str, str]] = {"asfarray": "asarray", "msort": "sort"}
    mentions = ("round_", "asfarray", "msort")

    def visit_Module(self, node: cst.Module) -> bool:
        visit = super().visit_Module(node)
        self.remove_stale_imports("numpy", ("round_",))
        return visit

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if (
            len(positional(updated_node)) != 1
            or keywords(updated_node)
            or len(updated_node.args) != 1
        ):
            if self.refers_to(original_node.func, "numpy.asfarray", "numpy.msort"):
                self.warn("asfarray/msort with more than one argument: left alone")
            return updated_node
        new = self.renamed(original_node, updated_node)
        if new is None:
            return updated_node
        if self.refers_to(original_node.func, "numpy.asfarray"):
            extra = kwarg("dtype", cst.Name("float"))
        else:
            extra = kwarg("axis", cst.Integer("0"))
        return new.with_changes(args=appended(new.args, extra))


class In1dToIsin(_RenamedNumpy):
    """``np.in1d(a, b, ...)`` → ``np.isin(a, b, ...).ravel()``.

    ``in1d`` always returned a flat array; ``isin`` keeps ``a``'s shape, so ``.ravel()``
    keeps the result the same for any ``a`` (ruff reports this one without a fix).
    """

    name = "numpy-in1d-to-isin"
    description = "np.in1d(a, b) → np.isin(a, b).ravel()"
    library = "numpy"
    reference = f"NumPy 2.0.0 deprecated np.in1d for np.isin: {_NUMPY2}"
    renames: ClassVar[dict[str, str]] = {"in1d": "isin"}
    mentions = ("in1d",)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        new = self.renamed(original_node, updated_node)
        if new is None:
            return updated_node
        return cst.Call(func=cst.Attribute(new, cst.Name("ravel")))


class Numpy2LegacyPrint(ContextSetting):
    """After a context's ``import numpy``: print scalars as NumPy 1 did, on NumPy 2.

    NumPy 2 prints ``np.float64(1.0)`` where NumPy 1 printed ``1.0`` (NEP 51), which
    changes what a context prints and compares as text. ``legacy="1.25"`` is invalid
    before NumPy 2 (a warning there), hence the version guard. For contexts (problem
    setup code), not answers: applied only when asked for by name.
    """

    name = "numpy2-legacy-print"
    description = (
        'insert np.set_printoptions(legacy="1.25") after the numpy import, on NumPy ≥ 2 only'
    )
    library = "numpy"
    reference = "NumPy 2.0.0 release notes, NEP 51 (representation of NumPy scalars changed): https://numpy.org/neps/nep-0051-scalar-representation.html"
    mentions = ("numpy",)
    module = "numpy"
    guard = (
        'if int({name}.__version__.split(".")[0]) >= 2:  # print scalars as NumPy 1 did\n'
        '    {name}.set_printoptions(legacy="1.25")\n'
    )
    done_when = ("set_printoptions", "legacy")


class ArrayToElementItem(Transformer):
    """``a[i, j] = f(x)`` where ``f(x)`` is a one-element array → ``a[i, j] = f(x).item()``.

    Setting one element from an array of one element but more than zero dimensions
    (``cosine_similarity(...)`` returns a 1×1 matrix) was deprecated in NumPy 1.25
    ("Conversion of an array with ndim > 0 to a scalar") and fails in NumPy 2; the
    deprecation message names ``.item()`` as the fix. The rewrite is the same value
    wherever the old code worked. Opt-in: the codemod cannot see that the right-hand
    side is an array, so it is chosen only by the failure's message (the catalogue's
    ``error`` key), and only for a target indexed by scalars (no slice) set from a call.
    """

    name = "numpy-array-to-element-item"
    description = "a[i, j] = <one-element array> → a[i, j] = <…>.item()"
    library = "numpy"
    reference = "NumPy 1.25.0 release notes, deprecations: conversion of an array with ndim > 0 to a scalar (use a.item()): https://numpy.org/doc/stable/release/1.25.0-notes.html"
    opt_in = True

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign:
        if len(updated_node.targets) != 1 or not isinstance(updated_node.value, cst.Call):
            return updated_node
        target = updated_node.targets[0].target
        if not isinstance(target, cst.Subscript) or not all(
            isinstance(s.slice, cst.Index)
            and not isinstance(s.slice.value, (cst.List, cst.Tuple, cst.Slice))
            for s in target.slice
        ):
            return updated_node
        call = updated_node.value
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "item":
            return updated_node  # done already
        return updated_node.with_changes(value=cst.Call(func=cst.Attribute(call, cst.Name("item"))))


class NonzeroZeroD(Transformer):
    """``np.where(cond)`` / ``np.nonzero(x)`` → the same of ``np.atleast_1d(...)``.

    ``nonzero`` of a 0-d array (``np.where(p_value < ALPHA)`` on one p-value) had been
    treated as of a one-element array; NumPy 1.17 deprecated it and NumPy 2.1 made it an
    error. ``np.atleast_1d`` is what the old behaviour did, and it returns an array of
    one dimension or more unchanged, so the result is the same wherever the old code
    worked. Opt-in: whether the argument is 0-d shows only when it runs, so the codemod
    is chosen by the failure's message alone. ``np.where`` with three arguments does not
    call ``nonzero`` and is left alone.
    """

    name = "numpy-nonzero-0d"
    description = "np.where(c) / np.nonzero(x) of a 0-d array → of np.atleast_1d(…)"
    library = "numpy"
    reference = "NumPy 2.1.0 release notes, expired deprecations: nonzero of 0-d arrays (deprecated in 1.17) raises: https://numpy.org/doc/stable/release/2.1.0-notes.html"
    opt_in = True
    mentions = ("where", "nonzero")

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if not self.refers_to(original_node.func, "numpy.where", "numpy.nonzero"):
            return updated_node
        args = positional(updated_node)
        if len(updated_node.args) != 1 or len(args) != 1:
            return updated_node
        value = args[0].value
        if isinstance(value, cst.Call) and self.refers_to(value.func, "numpy.atleast_1d"):
            return updated_node  # done already
        numpy = self.module_ref("numpy")
        if numpy is None:
            self.warn("np is taken here: atleast_1d cannot be named; left alone")
            return updated_node
        wrapped = cst.Call(cst.Attribute(numpy, cst.Name("atleast_1d")), [cst.Arg(value)])
        return updated_node.with_changes(args=[args[0].with_changes(value=wrapped)])
