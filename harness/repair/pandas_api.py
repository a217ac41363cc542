"""pandas codemods: the 2.0 removals, the 2.1/2.2 deprecations that 3.0 removes.

A codemod on a method (``.append``, ``.fillna``) cannot know the receiver's type; each
says what it takes as evidence that the call is pandas', and leaves the rest alone.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar

import libcst as cst

from harness.repair.base import (
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
    string_value,
    with_string,
    without,
)

if TYPE_CHECKING:
    from collections.abc import Callable

_PANDAS2 = "https://pandas.pydata.org/docs/whatsnew/v2.0.0.html"
_REMOVALS = f"pandas 2.0.0 release notes, Removal of prior version deprecations/changes: {_PANDAS2}"

# receivers named like one DataFrame / one Series (not `dfs`, `df_list`)
_FRAME_NAME = re.compile(r"^(?:df|frame|table)(?:\d+|_\w+)?$")
_SERIES_NAME = re.compile(r"^(?:s|ser|series)(?:\d+|_\w+)?$")
_COLLECTION_NAME = re.compile(r"_(?:list|dict|map|set|names|cols|columns)$")


def _named(node: cst.BaseExpression, pattern: re.Pattern[str]) -> bool:
    return (
        isinstance(node, cst.Name)
        and bool(pattern.match(node.value))
        and not _COLLECTION_NAME.search(node.value)
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
    reference = f"pandas 1.4.0 deprecated DataFrame.append and Series.append; 2.0.0 removed them ({_REMOVALS})"

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
            row = _named(receiver, _FRAME_NAME) or (
                index is not None
                and isinstance(index.value, cst.Attribute)
                and index.value.attr.value == "columns"
            )
            tail = _named(receiver, _SERIES_NAME)
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
_REDUCTIONS = frozenset(
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
    return isinstance(inner, cst.Call) and method_name(inner) in _REDUCTIONS


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
    return _named(receiver, _FRAME_NAME)


class ApplymapToMap(Transformer):
    """``df.applymap(f)`` → ``df.map(f)`` (``Styler.applymap`` → ``Styler.map`` alike).

    ``applymap`` is pandas' own name; a call on a literal or on an imported module is
    left alone. ``DataFrame.map`` is new in pandas 2.1: older pandas needs the old name
    back (a version-conditioned result).
    """

    name = "pandas-applymap-to-map"
    description = "DataFrame.applymap → DataFrame.map (pandas ≥ 2.1)"
    library = "pandas"
    reference = "pandas 2.1.0 release notes: DataFrame.applymap deprecated, renamed DataFrame.map: https://pandas.pydata.org/docs/whatsnew/v2.1.0.html"
    mentions = ("applymap",)

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
        return updated_node.with_changes(func=updated_node.func.with_changes(attr=cst.Name("map")))


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


def _inplace_statement(node: cst.Expr, method: str) -> tuple[cst.Call, cst.Arg] | None:
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
        found = _inplace_statement(original_node, "replace")
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


# -- frequency aliases ---------------------------------------------------------------

# pandas 2.2 renamed these everywhere (offsets and periods)
_UNIT_ALIASES = {
    "H": "h",
    "BH": "bh",
    "CBH": "cbh",
    "T": "min",
    "S": "s",
    "L": "ms",
    "U": "us",
    "N": "ns",
}
# and these only for offsets: for periods "M" stays "M" and "ME" is invalid
_END_ALIASES = {
    "M": "ME",
    "BM": "BME",
    "CBM": "CBME",
    "SM": "SME",
    "Q": "QE",
    "BQ": "BQE",
    "A": "YE",
    "Y": "YE",
    "BA": "BYE",
    "BY": "BYE",
    "AS": "YS",
    "BAS": "BYS",
}
_CURRENT_ALIASES = frozenset(
    {"D", "B", "C", "W", "MS", "BMS", "CBMS", "SMS", "QS", "BQS", "YS", "BYS"}
    | set(_UNIT_ALIASES.values())
    | set(_END_ALIASES.values())
)
_PIECE = re.compile(r"([+-]?\d*)([A-Za-z]+)")
_ANCHOR = re.compile(r"-[A-Z]{3}$")  # "W-SUN", "Q-DEC"


def new_frequency(text: str, *, offsets: bool) -> str | None:
    """``text`` in current aliases ("5T" → "5min"), or ``None`` if it is no frequency."""
    anchor = _ANCHOR.search(text)
    body = text[: anchor.start()] if anchor else text
    pieces = _PIECE.findall(body)
    if not pieces or "".join(m + a for m, a in pieces) != body or (anchor and len(pieces) > 1):
        return None
    out = []
    for multiple, alias in pieces:
        if alias in _UNIT_ALIASES:
            alias = _UNIT_ALIASES[alias]  # noqa: PLW2901
        elif alias in _END_ALIASES:
            alias = _END_ALIASES[alias] if offsets else alias  # noqa: PLW2901
        elif alias not in _CURRENT_ALIASES:
            return None
        out.append(multiple + alias)
    return "".join(out) + (anchor.group() if anchor else "")


class FreqAliases(Transformer):
    """Frequency strings given to ``freq=``, ``resample``, ``date_range``, ``asfreq``,
    ``Grouper(freq=)``...: ``"T"`` → ``"min"``, ``"H"`` → ``"h"``, ``"S"`` → ``"s"``,
    ``"L"`` → ``"ms"``, ``"U"`` → ``"us"``, ``"N"`` → ``"ns"``, multiples too (``"5T"`` →
    ``"5min"``); and for offsets (``date_range``, ``bdate_range``, ``resample``,
    ``Grouper``) the period ends: ``"M"`` → ``"ME"``, ``"Q"`` → ``"QE"``, ``"Y"``/``"A"`` →
    ``"YE"``, ``"BM"`` → ``"BME"``... Where the string could be a period's frequency
    (``asfreq``, ``to_period``, ``period_range``, any other ``freq=``) only the first
    kind is renamed: ``"ME"`` is no period frequency.

    Version-conditioned: ``"ME"``, ``"QE"``, ``"YE"`` are invalid before pandas 2.2, so in
    older pandas the result needs the old alias back (the unit aliases ``"h"``,
    ``"min"``, ``"s"`` are understood by old pandas too). Only string literals that are
    whole frequencies are touched: ``df["T"]`` or ``title="T"`` never are.
    """

    name = "pandas-freq-aliases"
    description = "frequency aliases 'T'/'H'/'S'/'L'/'U'/'N'/'M'/'Q'/'Y'/'A' → 'min'/'h'/'s'/'ms'/'us'/'ns'/'ME'/'QE'/'YE'"
    library = "pandas"
    reference = "pandas 2.2.0 release notes: deprecated frequency aliases H, T, S, L, U, N (lower case now) and M, Q, Y, A for offsets (ME, QE, YE): https://pandas.pydata.org/docs/whatsnew/v2.2.0.html"

    # callee → (index of the frequency among positional arguments, or None; offsets only?)
    _CALLS: ClassVar[dict[str, tuple[int | None, bool]]] = {
        "date_range": (3, True),
        "bdate_range": (3, True),
        "resample": (0, True),
        "Grouper": (None, True),
        "asfreq": (0, False),
        "to_period": (0, False),
        "period_range": (3, False),
        "timedelta_range": (3, False),
        "round": (0, False),
        "floor": (0, False),
        "ceil": (0, False),
        "rolling": (0, False),
    }
    _KEYWORDS = frozenset({"freq", "rule", "window"})
    mentions = ("freq", "rule", "window", *_CALLS)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        index, offsets = self._CALLS.get(callee_name(updated_node) or "", (None, False))
        known = callee_name(updated_node) in self._CALLS
        args = list(updated_node.args)
        changed = False
        for i, arg in enumerate(args):
            if arg.keyword is not None:
                name = arg.keyword.value
                wanted = name == "freq" or (known and name in self._KEYWORDS)
            else:
                wanted = known and not arg.star and i == index
            if not wanted or not isinstance(arg.value, cst.SimpleString):
                continue
            text = string_value(arg.value)
            new = new_frequency(text, offsets=offsets) if text is not None else None
            if new is not None and new != text:
                args[i] = arg.with_changes(value=with_string(arg.value, new))
                changed = True
        return updated_node.with_changes(args=args) if changed else updated_node


class SetAxisInplace(Transformer):
    """``df.set_axis(labels, axis=1, inplace=True)`` (a statement) → ``df = df.set_axis(labels, axis=1)``;
    ``inplace=False`` is dropped. ``inplace=True`` inside an expression is skipped."""

    name = "pandas-set-axis-inplace"
    description = "set_axis(..., inplace=True) → obj = obj.set_axis(...)"
    library = "pandas"
    reference = (
        f"pandas 1.5.0 deprecated the inplace keyword of set_axis; 2.0.0 removed it ({_REMOVALS})"
    )
    mentions = ("set_axis",)

    def leave_Expr(self, original_node: cst.Expr, updated_node: cst.Expr) -> cst.BaseSmallStatement:
        found = _inplace_statement(updated_node, "set_axis")
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


# -- positional arguments made keyword-only ------------------------------------------


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
    reference = f"pandas 2.0.0 release notes: disallow passing non-keyword arguments to drop, set_axis, str.split, pivot, concat, read_csv, dropna, sort_index... ({_REMOVALS})"

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
    reference = f"pandas 2.0.0 release notes: numeric_only defaults to False in groupby reductions; non-numeric columns raise ({_PANDAS2})"

    _REDUCTIONS = frozenset({"mean", "median", "sum", "prod"})
    mentions = ("groupby",)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if (
            method_name(updated_node) not in self._REDUCTIONS
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
            and method_name(value) in _REDUCTIONS - {"first"}
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
        if _named(node, _FRAME_NAME):
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
