"""pandas codemods: calls whose signature changed — keywords that 2.0 made required or
removed (``inplace`` of ``set_axis``, positional arguments), ``numeric_only`` in groupby
reductions, positional ``__getitem__`` on a Series, and pandas 3's string dtype."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import libcst as cst

from harness.labs.repair.base import (
    ContextSetting,
    Transformer,
    appended,
    as_keyword,
    callee_name,
    has_star,
    keyword,
    keywords,
    kwarg,
    literal,
    method_name,
    positional,
    without,
)
from harness.labs.repair.pandas_api import (
    FRAME_NAME,
    PANDAS2,
    REDUCTIONS,
    REMOVALS,
    inplace_statement,
    named,
)

if TYPE_CHECKING:
    from collections.abc import Callable


class SetAxisInplace(Transformer):
    """``df.set_axis(labels, axis=1, inplace=True)`` (a statement) → ``df = df.set_axis(labels, axis=1)``;
    ``inplace=False`` is dropped. ``inplace=True`` inside an expression is skipped."""

    name = "pandas-set-axis-inplace"
    description = "set_axis(..., inplace=True) → obj = obj.set_axis(...)"
    library = "pandas"
    reference = (
        f"pandas 1.5.0 deprecated the inplace keyword of set_axis; 2.0.0 removed it ({REMOVALS})"
    )
    mentions = ("set_axis",)

    def leave_Expr(self, original_node: cst.Expr, updated_node: cst.Expr) -> cst.BaseSmallStatement:
        found = inplace_statement(updated_node, "set_axis")
        if found is None:
            return updated_node
        call, arg = found
        assert isinstance(call.func, cst.Attribute)
        target = call.func.value
        if not isinstance(target, (cst.Name, cst.Attribute, cst.Subscript)):
            self.warn("set_axis(inplace=True) on an expression that cannot be assigned: left alone")
            return updated_node
        return cst.Assign(
            targets=[cst.AssignTarget(target.deep_clone())],
            value=call.with_changes(args=without(call.args, arg)),
            semicolon=updated_node.semicolon,
        )

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        arg = keyword(updated_node, "inplace")
        if method_name(updated_node) != "set_axis" or arg is None:
            return updated_node
        value = literal(arg.value)
        if value is False:
            return updated_node.with_changes(args=without(updated_node.args, arg))
        if value is not True or not isinstance(self.parent(original_node), cst.Expr):
            self.warn("set_axis(inplace=...) inside an expression, or not a literal: left alone")
        return updated_node


def _axis(value: object) -> bool:
    return value in (0, 1, "index", "columns", "rows")


def _boolean(value: object) -> bool:
    return isinstance(value, bool)


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _string(value: object) -> bool:
    return isinstance(value, str)


def _anything(value: object) -> bool:
    del value
    return True


class PositionalToKeyword(Transformer):
    """Arguments pandas 2.0 made keyword-only, passed by position: given their names.

    ``df.drop("a", 1)`` → ``df.drop("a", axis=1)``, ``s.str.split(",", 1)`` →
    ``s.str.split(",", n=1)``, ``df.set_axis(labels, 1)`` → ``axis=1``,
    ``df.pivot("a", "b", "c")`` → ``index=``, ``columns=``, ``values=``,
    ``pd.concat(frames, 1)`` → ``axis=1``, ``pd.read_csv(path, ";")`` → ``sep=``,
    ``df.dropna(1)`` / ``df.sort_index(1)`` → ``axis=1``.
    A method call is rewritten only if the value looks like the parameter (an axis is
    ``0``, ``1``, ``"index"`` or ``"columns"``), so ``spark_df.drop("a", "b")`` or a
    Python ``"a,b".split(",", 1)`` stay.
    """

    name = "pandas-positional-to-keyword"
    description = (
        "drop('a', 1) / str.split(',', 1) / set_axis(x, 1) / pivot(a, b, c) → keyword arguments"
    )
    library = "pandas"
    reference = f"pandas 2.0.0 release notes: disallow passing non-keyword arguments to drop, set_axis, str.split, pivot, concat, read_csv, dropna, sort_index... ({REMOVALS})"

    # method → (positional arguments still allowed, the parameters that follow them)
    _SIGNATURES: ClassVar[
        dict[str, tuple[int, tuple[tuple[str, Callable[[object], bool]], ...]]]
    ] = {
        "drop": (1, (("axis", _axis),)),
        "set_axis": (1, (("axis", _axis), ("inplace", _boolean))),
        "split": (1, (("n", _integer), ("expand", _boolean))),
        "rsplit": (1, (("n", _integer), ("expand", _boolean))),
        "pivot": (0, (("index", _anything), ("columns", _anything), ("values", _anything))),
        "concat": (1, (("axis", _axis),)),
        "read_csv": (1, (("sep", _string),)),
        "read_table": (1, (("sep", _string),)),
        "dropna": (0, (("axis", _axis),)),
        "sort_index": (0, (("axis", _axis),)),
    }
    mentions = tuple(_SIGNATURES)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        name = callee_name(updated_node)
        if (
            name not in self._SIGNATURES
            or has_star(updated_node)
            or not self._applies(name, original_node)
        ):
            return updated_node
        allowed, parameters = self._SIGNATURES[name]
        args = positional(updated_node)
        extra = args[allowed:]
        if not extra or len(extra) > len(parameters):
            return updated_node
        named = dict(zip(extra, parameters, strict=False))
        if any(p in keywords(updated_node) for p, _ in named.values()):
            return updated_node
        if not all(check(literal(a.value)) for a, (_, check) in named.items()):
            return updated_node
        return updated_node.with_changes(
            args=[as_keyword(a, named[a][0]) if a in named else a for a in updated_node.args]
        )

    def _applies(self, name: str, call: cst.Call) -> bool:
        func = call.func
        if name in ("concat", "read_csv", "read_table"):
            return self.refers_to(func, f"pandas.{name}")
        if not isinstance(func, cst.Attribute):
            return False
        if name in ("split", "rsplit"):  # pandas' .str accessor, not Python's str.split
            return isinstance(func.value, cst.Attribute) and func.value.attr.value == "str"
        if name == "pivot":  # not PySpark's groupBy(...).pivot(column, values)
            value = func.value
            return not (
                isinstance(value, cst.Call) and method_name(value) in ("groupBy", "groupby")
            )
        return True


class GroupbyNumericOnly(Transformer):
    """``df.groupby(k).mean()`` → ``df.groupby(k).mean(numeric_only=True)``.

    pandas 1.x dropped non-numeric columns from these reductions; 2.0 raises on them
    (or, for ``sum``, concatenates strings). ``numeric_only=True`` keeps the 1.x result in
    every version. Only ``mean``, ``median``, ``sum`` and ``prod``, whose groupby
    versions took ``numeric_only`` in pandas 1.x too (``std``, ``var``, ``sem`` only from
    1.5), called on ``groupby(...)`` itself or on a list of its columns (one column is a
    SeriesGroupBy, which rejects ``numeric_only=True`` on text), without ``numeric_only``.
    """

    name = "pandas-groupby-numeric-only"
    description = "groupby(...).mean() / .median() / .sum() / .prod() → (numeric_only=True)"
    library = "pandas"
    reference = f"pandas 2.0.0 release notes: numeric_only defaults to False in groupby reductions; non-numeric columns raise ({PANDAS2})"

    REDUCTIONS = frozenset({"mean", "median", "sum", "prod"})
    mentions = ("groupby",)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if (
            method_name(updated_node) not in self.REDUCTIONS
            or "numeric_only" in keywords(updated_node)
            or positional(updated_node)
            or has_star(updated_node)
        ):
            return updated_node
        assert isinstance(original_node.func, cst.Attribute)
        if not _grouped_frame(original_node.func.value):
            return updated_node
        return updated_node.with_changes(
            args=appended(updated_node.args, kwarg("numeric_only", cst.Name("True")))
        )


def _grouped_frame(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Call):
        return method_name(node) == "groupby"
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        return (
            isinstance(index, cst.Index)
            and isinstance(index.value, cst.List)
            and _grouped_frame(node.value)
        )
    return False


class PositionalGetitemToIloc(Transformer):
    """``df.max()[0]`` → ``df.max().iloc[0]``: a frame's reduction is a Series indexed
    by the column labels, and pandas 3 no longer reads an integer key of a Series on a
    non-integer index as a position (``KeyError: 0``).

    Only a reduction of a frame by its look (a frame's name, ``df[[...]]``, or a
    ``groupby`` in the chain; no ``axis=`` argument, which could index it by the rows)
    subscripted by an integer literal: ``arr.max(axis=0)[0]`` is NumPy's and stays, and
    so does any other ``s[0]``, which may mean the label 0.
    """

    name = "pandas-positional-getitem-to-iloc"
    description = "frame reduction [i] → .iloc[i] (an integer key as a position)"
    library = "pandas"
    reference = "pandas 3.0.0 release notes: Series.__getitem__ no longer treats an integer key as a position on a non-integer index (deprecated in 2.1.0): https://pandas.pydata.org/docs/whatsnew/v3.0.0.html"
    mentions = ("()[",)

    def leave_Subscript(
        self, original_node: cst.Subscript, updated_node: cst.Subscript
    ) -> cst.BaseExpression:
        value = original_node.value
        if not (
            isinstance(value, cst.Call)
            and method_name(value) in REDUCTIONS - {"first"}
            and not any(a.keyword is not None and a.keyword.value == "axis" for a in value.args)
            and not positional(value)
            and len(original_node.slice) == 1
            and isinstance(original_node.slice[0].slice, cst.Index)
            and _integer_literal(original_node.slice[0].slice.value)
            and isinstance(value.func, cst.Attribute)
            and _frame_chain(value.func.value)
        ):
            return updated_node
        return updated_node.with_changes(value=cst.Attribute(updated_node.value, cst.Name("iloc")))


def _integer_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, cst.Integer)


def _frame_chain(node: cst.BaseExpression) -> bool:
    """A frame by its look: its name, ``<frame>[[cols]]``, or a chain through ``groupby``."""
    while True:
        if named(node, FRAME_NAME):
            return True
        if isinstance(node, cst.Call):
            if method_name(node) == "groupby":
                return True
            if not isinstance(node.func, cst.Attribute):
                return False
            node = node.func.value
        elif isinstance(node, cst.Subscript):
            keys = [s.slice for s in node.slice]
            if not (len(keys) == 1 and isinstance(keys[0], cst.Index)):
                return False
            if not isinstance(keys[0].value, cst.List):
                return False  # df["a"] is a column: its reduction is a scalar
            node = node.value
        else:
            return False


class Pandas3ObjectStrings(ContextSetting):
    """After a context's ``import pandas``: infer strings as ``object``, as before
    pandas 3, on pandas 3 only.

    pandas 3 infers the ``str`` dtype for strings (PDEP-14): a column of names no longer
    has dtype ``object``, takes no integers (``Invalid value '1' for dtype 'str'``), and
    compares differently. The option ``future.infer_string`` keeps the old inference
    (deprecated: pandas 4 removes it, so the run's "will break" list names it). A
    setting of the problem's process, for contexts only; chosen by the failure's
    message (the catalogue's ``error`` key), never by trying.
    """

    name = "pandas3-object-strings"
    description = (
        'insert pd.set_option("future.infer_string", False) after the pandas import, '
        "on pandas ≥ 3 only"
    )
    library = "pandas"
    reference = "pandas 3.0.0 release notes, PDEP-14 (dedicated string data type by default; future.infer_string opts out until pandas 4): https://pandas.pydata.org/docs/whatsnew/v3.0.0.html"
    mentions = ("pandas",)
    module = "pandas"
    guard = (
        'if int({name}.__version__.split(".")[0]) >= 3:  # strings as object, as before pandas 3\n'
        '    {name}.set_option("future.infer_string", False)\n'
    )
    done_when = ("future.infer_string",)
