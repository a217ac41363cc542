"""pandas codemods: the 2.0 removals, the 2.1/2.2 deprecations that 3.0 removes.

A codemod on a method (``.append``, ``.fillna``) cannot know the receiver's type; each
says what it takes as evidence that the call is pandas', and leaves the rest alone.
"""

from __future__ import annotations

import re
from typing import ClassVar

import libcst as cst

from harness.labs.repair.base import (
    Transformer,
    appended,
    callee_name,
    has_star,
    keyword,
    keywords,
    literal,
    method_name,
    positional,
    without,
)

PANDAS2 = "https://pandas.pydata.org/docs/whatsnew/v2.0.0.html"
REMOVALS = f"pandas 2.0.0 release notes, Removal of prior version deprecations/changes: {PANDAS2}"

# receivers named like one DataFrame / one Series (not `dfs`, `df_list`)
FRAME_NAME = re.compile(r"^(?:df|frame|table)(?:\d+|_\w+)?$")
SERIES_NAME = re.compile(r"^(?:s|ser|series)(?:\d+|_\w+)?$")
COLLECTION_NAME = re.compile(r"_(?:list|dict|map|set|names|cols|columns)$")


def named(node: cst.BaseExpression, pattern: re.Pattern[str]) -> bool:
    return (
        isinstance(node, cst.Name)
        and bool(pattern.match(node.value))
        and not COLLECTION_NAME.search(node.value)
    )


def _element(value: cst.BaseExpression, *, last: bool = False) -> cst.Element:
    if last:
        return cst.Element(value)
    return cst.Element(value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))


class AppendToConcat(Transformer):
    """``a.append(b, ignore_index=True)`` → ``pd.concat([a, b], ignore_index=True)``.

    ``.append`` is every list's method too, so a call is taken as pandas' only with
    evidence: a keyword only ``DataFrame.append`` has (``ignore_index``, ``sort``,
    ``verify_integrity``), or an appended ``pd.DataFrame(...)`` / ``pd.Series(...)``.
    ``lst.append(1)`` and ``frames.append(df)`` stay, and so does a call that is a whole
    statement (``frames.append(pd.DataFrame(x))``): DataFrame.append returned a new
    frame and never changed its receiver, so only a list's append stands alone. A dict (a row) becomes
    ``pd.DataFrame([row])``, a list of dicts ``pd.DataFrame(rows)``, a list of frames is
    spliced into the list given to ``concat``. A ``pd.Series(...)`` is a row of a
    DataFrame or the tail of a Series: the receiver's name (``df``, ``s``) or
    ``index=df.columns`` tells; when nothing does the call is skipped. A frame's
    reduction renamed to a label (``df.sum().rename("X")``, a total row) appended to a
    frame (``df``, ``df[mask]``, ``df[lambda x: ...]``) becomes the row
    ``other.to_frame().T.rename_axis(df.index.names)``, as DataFrame.append made it.
    """

    name = "pandas-append-to-concat"
    description = "DataFrame.append / Series.append → pd.concat([a, b], ...)"
    library = "pandas"
    reference = f"pandas 1.4.0 deprecated DataFrame.append and Series.append; 2.0.0 removed them ({REMOVALS})"

    _KEYWORDS = frozenset({"ignore_index", "verify_integrity", "sort"})
    mentions = (".append",)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if method_name(updated_node) != "append" or has_star(updated_node):
            return updated_node
        args = positional(updated_node)
        given = keywords(updated_node)
        if len(args) != 1 or not given <= self._KEYWORDS:
            return updated_node
        original_other = positional(original_node)[0].value
        constructor = self._constructor(original_other)
        total_row = _total_row(original_other) and _frame_like(original_node.func)
        if not given and constructor is None and not total_row:
            return updated_node  # a list's append, as far as anyone can tell
        if isinstance(self.parent(original_node), cst.Expr):
            return updated_node  # a statement: DataFrame.append never changed its receiver
        pd = self.module_ref("pandas")
        if pd is None or not isinstance(updated_node.func, cst.Attribute):
            self.warn("append: the name pd is taken and pandas is not imported")
            return updated_node
        receiver = updated_node.func.value
        other = args[0].value
        if total_row:
            # DataFrame.append(series): the series as one row, named by its name, under
            # the frame's index names (the receiver is evaluated again: it has no effects)
            row = cst.Attribute(cst.Call(cst.Attribute(other, cst.Name("to_frame"))), cst.Name("T"))
            names = cst.Attribute(cst.Attribute(receiver, cst.Name("index")), cst.Name("names"))
            other = cst.Call(cst.Attribute(row, cst.Name("rename_axis")), [cst.Arg(names)])
        items = self._items(updated_node, pd, receiver, other, original_other, constructor)
        if items is None:
            return updated_node
        first = args[0].with_changes(value=items)
        return updated_node.with_changes(
            func=cst.Attribute(pd, cst.Name("concat")),
            args=[first if a is args[0] else a for a in updated_node.args],
        )

    def _constructor(self, node: cst.BaseExpression) -> str | None:
        if isinstance(node, cst.Call):
            for kind in ("DataFrame", "Series"):
                if self.refers_to(node.func, f"pandas.{kind}"):
                    return kind
        return None

    def _items(
        self,
        call: cst.Call,
        pd: cst.BaseExpression,
        receiver: cst.BaseExpression,
        other: cst.BaseExpression,
        original_other: cst.BaseExpression,
        constructor: str | None,
    ) -> cst.BaseExpression | None:
        def frame(rows: cst.BaseExpression) -> cst.Call:
            return cst.Call(cst.Attribute(pd, cst.Name("DataFrame")), [cst.Arg(rows)])

        if isinstance(other, cst.Dict):
            other = frame(cst.List([_element(other, last=True)]))
        elif isinstance(other, cst.List) and all(
            isinstance(e.value, cst.Dict) for e in other.elements
        ):
            other = frame(other)
        elif isinstance(other, cst.List):  # frames
            return other.with_changes(elements=[_element(receiver), *other.elements])
        elif constructor == "Series" and isinstance(original_other, cst.Call):
            index = keyword(original_other, "index")
            row = named(receiver, FRAME_NAME) or (
                index is not None
                and isinstance(index.value, cst.Attribute)
                and index.value.attr.value == "columns"
            )
            tail = named(receiver, SERIES_NAME)
            ignore_index = keyword(call, "ignore_index")
            unnamed = keyword(original_other, "name") is None
            if row and not tail:
                other = frame(cst.List([_element(other, last=True)]))
            elif not tail and (row or ignore_index is not None or not unnamed):
                # a DataFrame takes an unnamed Series only with ignore_index: with it,
                # or with a named Series, the receiver could be either
                self.warn(
                    "append(pd.Series(...)): cannot tell a DataFrame's row from a Series' tail"
                )
                return None
        return cst.List([_element(receiver), _element(other, last=True)])


# reductions of a DataFrame: a Series indexed by its columns
REDUCTIONS = frozenset(
    {"sum", "mean", "median", "min", "max", "std", "var", "count", "prod", "nunique", "first"}
)


def _total_row(node: cst.BaseExpression) -> bool:
    """``<frame>.<reduction>(...).rename(<label>)``: a Series meant as a row."""
    if not (
        isinstance(node, cst.Call)
        and method_name(node) == "rename"
        and len(node.args) == 1
        and node.args[0].keyword is None
        and isinstance(node.args[0].value, (cst.SimpleString, cst.Integer))
        and isinstance(node.func, cst.Attribute)
    ):
        return False
    inner = node.func.value
    return isinstance(inner, cst.Call) and method_name(inner) in REDUCTIONS


def _frame_like(func: cst.BaseExpression) -> bool:
    """The receiver of ``func`` (``<receiver>.append``) is a DataFrame by its look: a
    frame's name, or such a name filtered by a mask, a function or a list of columns."""
    if not isinstance(func, cst.Attribute):
        return False
    receiver = func.value
    if isinstance(receiver, cst.Subscript):
        if len(receiver.slice) != 1 or not isinstance(receiver.slice[0].slice, cst.Index):
            return False
        key = receiver.slice[0].slice.value
        if not isinstance(key, (cst.Lambda, cst.Comparison, cst.List, cst.UnaryOperation)):
            return False  # df["col"] is a column
        receiver = receiver.value
    return named(receiver, FRAME_NAME)


class ApplymapToMap(Transformer):
    """``df.applymap(f)`` → ``df.map(f)`` (``Styler.applymap`` → ``Styler.map`` alike).

    ``applymap`` is pandas' own name; a call on a literal or on an imported module is
    left alone. ``DataFrame.map`` is new in pandas 2.1. The portable form, for code that
    must still run before it, maps each column: ``df.apply(lambda col: col.map(f))``
    (``na_action=`` goes to ``Series.map``; ``subset=``, a Styler's, stays on ``apply``).
    It is what ``DataFrame.map`` does (an ``apply`` of each column's map) and gives its
    result on every pandas from 1.3 to 3, empty frames, duplicate labels and extension
    dtypes included; before 2.1 it differs from that release's ``applymap`` only on a
    categorical column, which ``applymap`` made ``object`` and ``map`` keeps categorical
    (as ``applymap`` itself does from 2.1). A call with other arguments (passed on to
    ``f``) gets ``map``, and a note.
    """

    name = "pandas-applymap-to-map"
    description = "DataFrame.applymap → DataFrame.map (pandas ≥ 2.1)"
    library = "pandas"
    reference = "pandas 2.1.0 release notes: DataFrame.applymap deprecated, renamed DataFrame.map: https://pandas.pydata.org/docs/whatsnew/v2.1.0.html"
    mentions = ("applymap",)
    introduced = "2.1.0"

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if method_name(updated_node) != "applymap" or not isinstance(
            original_node.func, cst.Attribute
        ):
            return updated_node
        receiver = original_node.func.value
        if isinstance(receiver, (cst.BaseString, cst.BaseNumber, cst.BaseList, cst.BaseDict)):
            return updated_node
        if self.imported(receiver) and not any(
            q.startswith("pandas") for q in self.qualified(receiver)
        ):
            return updated_node  # some other library's applymap function
        assert isinstance(updated_node.func, cst.Attribute)
        if self.portable:
            portable = _each_column(updated_node)
            if portable is not None:
                return portable
            self.warn("applymap(f, ...) with arguments for f: DataFrame.map, no portable form")
        return updated_node.with_changes(func=updated_node.func.with_changes(attr=cst.Name("map")))


def _each_column(call: cst.Call) -> cst.Call | None:
    """``x.applymap(f[, na_action=a][, subset=s])`` as ``x.apply(lambda col: col.map(f[,
    na_action=a])[, subset=s])``; None for other arguments. The lambda's parameter is a
    name ``f`` never uses, so that it hides nothing ``f`` sees."""
    func = positional(call)
    if len(func) != 1 or has_star(call) or keywords(call) - {"na_action", "subset"}:
        return None
    used = {n.value for n in _descendants(call) if isinstance(n, cst.Name)}
    var = next((n for n in ("col", "column", "_col", "col_") if n not in used), None)
    if var is None:
        return None
    inner = [cst.Arg(func[0].value)]
    if (na_action := keyword(call, "na_action")) is not None:
        inner = appended(inner, na_action.with_changes(comma=cst.MaybeSentinel.DEFAULT))
    mapped = cst.Call(cst.Attribute(cst.Name(var), cst.Name("map")), inner)
    args = [cst.Arg(cst.Lambda(cst.Parameters([cst.Param(cst.Name(var))]), mapped))]
    if (subset := keyword(call, "subset")) is not None:
        args = appended(args, subset)
    # the call's own layout: what stood after its last argument (a line break) stays
    last = call.args[-1]
    args[-1] = args[-1].with_changes(
        comma=last.comma, whitespace_after_arg=last.whitespace_after_arg
    )
    assert isinstance(call.func, cst.Attribute)
    return call.with_changes(func=call.func.with_changes(attr=cst.Name("apply")), args=args)


class DelimWhitespaceToSep(Transformer):
    name = "pandas-delim-whitespace-to-sep"
    description = r'read_csv(delim_whitespace=True) → read_csv(sep=r"\s+")'
    library = "pandas"
    reference = "pandas 2.2.0 release notes: the delim_whitespace keyword of read_csv / read_table is deprecated, use sep=r'\\s+': https://pandas.pydata.org/docs/whatsnew/v2.2.0.html"
    mentions = ("delim_whitespace",)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        arg = keyword(updated_node, "delim_whitespace")
        if arg is None or not self.refers_to(
            original_node.func, "pandas.read_csv", "pandas.read_table", "pandas.read_fwf"
        ):
            return updated_node
        value = literal(arg.value)
        if value is False:
            return updated_node.with_changes(args=without(updated_node.args, arg))
        if value is not True:
            self.warn("delim_whitespace= not a literal True/False: left alone")
            return updated_node
        if keywords(updated_node) & {"sep", "delimiter"} or len(positional(updated_node)) > 1:
            self.warn("delim_whitespace=True beside a separator: left alone")
            return updated_node
        sep = arg.with_changes(keyword=cst.Name("sep"), value=cst.SimpleString(r'r"\s+"'))
        return updated_node.with_changes(args=[sep if a is arg else a for a in updated_node.args])


class FillnaMethodToFfill(Transformer):
    """``fillna(method="ffill"|"pad")`` → ``ffill()``, ``"bfill"|"backfill"`` → ``bfill()``,
    keeping ``axis``, ``limit`` and ``inplace``.

    ``replace(to_replace, method=...)`` is another change: ``pandas-replace-method``.
    """

    name = "pandas-fillna-method-to-ffill"
    description = 'fillna(method="ffill"/"bfill") → ffill() / bfill()'
    library = "pandas"
    reference = "pandas 2.1.0 release notes: the method keyword of fillna and replace is deprecated, use ffill / bfill: https://pandas.pydata.org/docs/whatsnew/v2.1.0.html"

    _METHODS: ClassVar[dict[str, str]] = {
        "ffill": "ffill",
        "pad": "ffill",
        "bfill": "bfill",
        "backfill": "bfill",
    }
    _KEPT = frozenset({"method", "value", "axis", "limit", "inplace"})
    mentions = ("method",)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        name = method_name(updated_node)
        method = keyword(updated_node, "method")
        if method is None or name not in ("fillna", "replace"):
            return updated_node
        if name == "replace":
            return updated_node  # pandas-replace-method
        new = self._METHODS.get(str(literal(method.value)))
        if new is None:
            self.warn("fillna(method=...) with a method that is not a literal: left alone")
            return updated_node
        if (
            keywords(updated_node) - self._KEPT
            or positional(updated_node)
            or has_star(updated_node)
        ):
            self.warn("fillna(method=...) with arguments ffill/bfill do not take: left alone")
            return updated_node
        value = keyword(updated_node, "value")
        if value is not None and literal(value.value) is not None:
            self.warn("fillna(value=..., method=...): left alone")
            return updated_node
        drop = [a for a in (method, value) if a is not None]
        assert isinstance(updated_node.func, cst.Attribute)
        return updated_node.with_changes(
            func=updated_node.func.with_changes(attr=cst.Name(new)),
            args=without(updated_node.args, *drop),
        )


def inplace_statement(node: cst.Expr, method: str) -> tuple[cst.Call, cst.Arg] | None:
    """The call ``obj.<method>(..., inplace=True)`` that statement ``node`` is, and its
    ``inplace`` argument; None for any other statement."""
    call = node.value
    if not isinstance(call, cst.Call) or method_name(call) != method:
        return None
    arg = keyword(call, "inplace")
    if arg is None or literal(arg.value) is not True:
        return None
    return call, arg


class ReplaceMethod(Transformer):
    """``s.replace(to_replace=v, method="ffill")`` → ``s.groupby(s.ne(v).cumsum()).transform(lambda g: g.iloc[0])``.

    ``replace`` with a ``method`` fills each value equal to ``v`` from the nearest value
    before it (``bfill``: after it) that is not ``v``, a NaN included, and leaves the
    ``v`` with no such neighbour as they are. The idiom people reach for,
    ``s.mask(s == v).ffill()``, differs on all three: it fills from across NaN, fills the
    NaN themselves, and leaves NaN (and a float dtype) where nothing came before. Numbering
    the runs that each start at a value other than ``v`` and taking each run's first value
    is the same operation, exactly, on every pandas (checked against pandas 2.0.3's own
    on 6,000 random Series; an empty one comes back float64). ``inplace=True`` on a statement
    becomes an assignment (under copy-on-write, pandas 3, the chained ``inplace`` on
    ``df["A"]`` would change nothing). Only a literal ``v`` (or a list of them), a
    receiver that can be evaluated again (a name, attribute or subscript), and no
    ``limit``/``value``.
    """

    name = "pandas-replace-method"
    description = 'replace(v, method="ffill"/"bfill") → groupby over the runs, first/last of each'
    library = "pandas"
    reference = "pandas 2.1.0 deprecated the method keyword of replace (removed in 3.0.0): https://pandas.pydata.org/docs/whatsnew/v2.1.0.html"
    mentions = ("method",)

    _FIRST: ClassVar[dict[str, bool]] = {
        "ffill": True,
        "pad": True,
        "bfill": False,
        "backfill": False,
    }

    def leave_Expr(self, original_node: cst.Expr, updated_node: cst.Expr) -> cst.BaseSmallStatement:
        found = inplace_statement(original_node, "replace")
        if found is None:
            return updated_node
        call, _ = found
        new = updated_node.value
        if isinstance(new, cst.Call) and keyword(new, "method") is not None:
            return updated_node  # left alone by leave_Call, which said why
        assert isinstance(call.func, cst.Attribute)
        target = call.func.value  # a name, attribute or subscript: leave_Call checked
        assert isinstance(target, (cst.Name, cst.Attribute, cst.Subscript))
        return cst.Assign(
            targets=[cst.AssignTarget(target.deep_clone())],
            value=new,
            semicolon=updated_node.semicolon,
        )

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        method = keyword(original_node, "method")
        if method is None or method_name(original_node) != "replace":
            return updated_node
        first = self._FIRST.get(str(literal(method.value)))
        if first is None:
            self.warn("replace(method=...) with a method that is not a literal: left alone")
            return updated_node
        given = positional(original_node)
        target = keyword(original_node, "to_replace")
        if target is None and len(given) == 1:
            target = given[0]
        elif target is None or given:
            self.warn("replace(method=...) without one to_replace: left alone")
            return updated_node
        if keywords(original_node) - {"to_replace", "method", "inplace"} or has_star(original_node):
            self.warn("replace(method=...) with value= or limit=: left alone")
            return updated_node
        values = target.value
        items = values.elements if isinstance(values, (cst.List, cst.Tuple)) else None
        literals = [literal(values)] if items is None else [literal(e.value) for e in items]
        if any(v is ... or v is None for v in literals):
            self.warn(
                "replace(to_replace, method=...) with a value that is not a literal: left alone"
            )
            return updated_node
        inplace = keyword(original_node, "inplace")
        how = None if inplace is None else literal(inplace.value)
        statement = isinstance(self.parent(original_node), cst.Expr)
        if how not in (None, False) and not (how is True and statement):
            self.warn("replace(method=..., inplace=...) inside an expression: left alone")
            return updated_node
        assert isinstance(original_node.func, cst.Attribute)
        receiver = original_node.func.value
        if not isinstance(receiver, (cst.Name, cst.Attribute, cst.Subscript)) or any(
            isinstance(n, cst.Call) for n in _descendants(receiver)
        ):
            self.warn("replace(method=...) on an expression it would evaluate again: left alone")
            return updated_node
        code = cst.Module([]).code_for_node
        s, v = code(receiver), code(values)
        # the values kept: each starts a run that the values replaced belong to
        keep = f"(~{s}.isin({v}))" if items is not None else f"{s}.ne({v})"
        if first:
            text = f"{s}.groupby({keep}.cumsum()).transform(lambda g: g.iloc[0])"
        else:
            text = f"{s}.groupby({keep}[::-1].cumsum()[::-1]).transform(lambda g: g.iloc[-1])"
        return cst.parse_expression(text)


def _descendants(node: cst.CSTNode) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []
    todo = list(node.children)
    while todo:
        child = todo.pop()
        out.append(child)
        todo.extend(child.children)
    return out


class ChainedAssignment(Transformer):
    """``df["A"].iloc[i] = v`` → ``df.iloc[i, df.columns.get_loc("A")] = v``, and
    ``df["A"].loc[k] = v`` → ``df.loc[k, "A"] = v``.

    Under copy-on-write (pandas 3) ``df["A"]`` is a new object and setting into it never
    reaches ``df``: the chained assignment silently does nothing (a
    ``ChainedAssignmentError`` warning). One indexer on the frame does the same on every
    pandas. Only a single column key and a single row key (no slices, no lists) on a
    receiver that can be evaluated again.
    """

    name = "pandas-chained-assignment"
    description = 'df["A"].iloc[i] = v → df.iloc[i, df.columns.get_loc("A")] = v'
    library = "pandas"
    reference = "pandas 3.0.0 release notes, copy-on-write: chained assignment never updates the original: https://pandas.pydata.org/docs/whatsnew/v3.0.0.html"
    mentions = ("loc[",)

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign:
        if len(updated_node.targets) != 1:
            return updated_node
        new = self._target(updated_node.targets[0].target)
        if new is None:
            return updated_node
        return updated_node.with_changes(targets=[updated_node.targets[0].with_changes(target=new)])

    def leave_AugAssign(
        self, original_node: cst.AugAssign, updated_node: cst.AugAssign
    ) -> cst.AugAssign:
        new = self._target(updated_node.target)
        return updated_node if new is None else updated_node.with_changes(target=new)

    def _target(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        # <frame>[<column>].iloc[<row>] / .loc[<row>]
        if not (
            isinstance(node, cst.Subscript)
            and isinstance(node.value, cst.Attribute)
            and node.value.attr.value in ("iloc", "loc")
            and isinstance(node.value.value, cst.Subscript)
        ):
            return None
        column = node.value.value
        row, col = _single_key(node), _single_key(column)
        if row is None or col is None:
            return None
        frame = column.value
        if not isinstance(frame, (cst.Name, cst.Attribute)):
            self.warn("chained assignment on a frame that is not a name: left alone")
            return None
        code = cst.Module([]).code_for_node
        f, c, r = code(frame), code(col), code(row)
        if node.value.attr.value == "iloc":
            return cst.parse_expression(f"{f}.iloc[{r}, {f}.columns.get_loc({c})]")
        return cst.parse_expression(f"{f}.loc[{r}, {c}]")


def _single_key(node: cst.Subscript) -> cst.BaseExpression | None:
    """The one key of ``x[key]``: not a slice, a list or a tuple."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    key = node.slice[0].slice.value
    if isinstance(key, (cst.List, cst.Tuple, cst.Set)):
        return None
    return key


class ToDatetimePerValue(Transformer):
    """``pd.to_datetime(s)`` → ``s.map(pd.to_datetime)``: each value parsed on its own.

    Before pandas 2 ``to_datetime`` parsed every string on its own; pandas 2 infers one
    format from the first value and requires it of all (PDEP-4), so
    ``[" 2016-05-19 13:50:00", "2016-05-19 21:25:00"]`` fails on the second. pandas 2's
    ``format="mixed"`` is the old behaviour but pandas 1 rejects it; mapping the scalar
    ``to_datetime`` over the values is the old behaviour on every pandas. Opt-in: chosen
    only by the failure's message (the catalogue's ``error`` key), since most
    ``to_datetime`` calls are fine; only a one-argument call on a Series-looking
    expression (not a literal).
    """

    name = "pandas-to-datetime-per-value"
    description = "pd.to_datetime(s) → s.map(pd.to_datetime): parse each value on its own"
    library = "pandas"
    reference = "pandas 2.0.0 release notes, PDEP-4 (consistent datetime parsing: one format inferred from the first value): https://pandas.pydata.org/docs/whatsnew/v2.0.0.html"
    opt_in = True
    mentions = ("to_datetime",)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if not self.refers_to(original_node.func, "pandas.to_datetime"):
            return updated_node
        if len(updated_node.args) != 1 or positional(updated_node) != list(updated_node.args):
            self.warn("to_datetime(...) with more than its data: left alone")
            return updated_node
        data = updated_node.args[0].value
        if not isinstance(data, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)):
            self.warn("to_datetime(<literal>): not a Series, left alone")
            return updated_node
        return cst.Call(
            func=cst.Attribute(data, cst.Name("map")),
            args=[cst.Arg(updated_node.func.deep_clone())],
        )


class ReadJsonLiteral(Transformer):
    """``pd.read_json(text)`` → ``pd.read_json(io.StringIO(text))``.

    pandas 2.1 deprecated passing the JSON itself to ``read_json`` and pandas 3.0 reads
    a string as a path only ("No such file or directory: '[{...'"). A ``StringIO`` of
    the text is read as before by every pandas. Opt-in, chosen by the failure's message:
    whether the argument is a path or the JSON shows only when it runs.
    """

    name = "pandas-read-json-literal"
    description = "pd.read_json(<JSON text>) → pd.read_json(io.StringIO(<JSON text>))"
    library = "pandas"
    reference = "pandas 2.1.0 release notes, deprecations: passing literal json strings to read_json (removed in 3.0): https://pandas.pydata.org/docs/whatsnew/v2.1.0.html"
    opt_in = True
    mentions = ("read_json",)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if not self.refers_to(original_node.func, "pandas.read_json"):
            return updated_node
        args = positional(updated_node)
        if not args or has_star(updated_node):
            return updated_node
        value = args[0].value
        if isinstance(value, cst.Call) and callee_name(value) == "StringIO":
            return updated_node  # done already
        if self.is_bound("io") and "io" not in self._module_aliases:
            self.warn("io is taken here: StringIO cannot be named; left alone")
            return updated_node
        self.add_needed_import("io")
        wrapped = cst.Call(cst.Attribute(cst.Name("io"), cst.Name("StringIO")), [cst.Arg(value)])
        first = args[0].with_changes(value=wrapped)
        return updated_node.with_changes(
            args=[first if a is args[0] else a for a in updated_node.args]
        )
