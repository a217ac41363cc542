"""Single-point mutants of a reference solution: wrong answers that look like the right one.

A problem's tests are worth their verdicts only if they fail a wrong answer as surely as
they pass the right one. Mutation testing asks exactly that of them: put one small fault
into the reference (a flipped comparison, a dropped keyword argument, a skipped
statement) and run the tests on it; tests that still pass such a mutant cannot tell it
from the reference.

A mutant changes exactly one node of the reference's LibCST tree, so everything else
(layout, comments) comes back byte for byte and its diff shows the one change. The
operators (:data:`OPERATORS`):

* ``comparison``: ``<`` ↔ ``>=``, ``>`` ↔ ``<=``, ``==`` ↔ ``!=``, ``is`` ↔ ``is not``,
  ``in`` ↔ ``not in``, for each operator of a (possibly chained) comparison;
* ``arithmetic``: ``+`` ↔ ``-``, ``*`` ↔ ``/``, ``//`` → ``/``, ``%`` → ``//``,
  ``**`` → ``*``, ``+=`` ↔ ``-=``, ``*=`` ↔ ``/=``, and ``-x`` → ``x``;
* ``boolean``: ``and`` ↔ ``or``, ``not x`` → ``x``, ``True`` ↔ ``False``;
* ``constant``: an integer plus one, a float doubled (``0.0`` → ``1.0``), a non-empty
  string with ``_`` appended inside its quotes (a wrong column name is a real fault);
* ``keyword``: one keyword argument of a call dropped;
* ``statement``: one simple statement (an expression, an assignment, a ``return`` with a
  value, a ``del``) replaced by ``pass``;
* ``arguments``: two adjacent positional arguments of a call swapped.

Equivalent mutants (changes no run can observe) are avoided where they are cheap to
see: docstrings and other bare literals or names, which do nothing, and annotations,
which barely do anything, have no sites. The rest (``x * 1`` → ``x / 1``) are left to
whoever reads a surviving mutant.

:func:`mutants` spreads its choice over the operators, seeded, and builds only the
mutants it looks at: the sites are found in one pass over the tree (positions resolved
once), and a mutant's code is generated and compiled only when the choice reaches its
site, since the audit runs over thousands of problems.

A reference that is an indented fragment, a function body that its benchmark inserts
into a ``def`` (72 of DS-1000's 1,000 references), is read as that body: its mutants keep
its indentation, and their lines count from the fragment's first line.
"""

from __future__ import annotations

import contextlib
import difflib
import math
import random
import warnings
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, cast

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

if TYPE_CHECKING:
    from collections.abc import Mapping

    from libcst.metadata import CodeRange

OPERATORS: tuple[str, ...] = (
    "comparison",
    "arithmetic",
    "boolean",
    "constant",
    "keyword",
    "statement",
    "arguments",
)

# a description quotes at most this many characters of a node's source
_QUOTE = 60
# An indented fragment is parsed as the body of this function: a ``def`` rather than an
# ``if`` so that the fragment's own ``return`` compiles.
_FRAGMENT = "def _():\n"


@dataclass(frozen=True)
class Mutant:
    """One single-point mutant of a reference.

    ``operator`` is one of :data:`OPERATORS`; ``description`` says in one line what
    changed, quoting the original source (``line 3: `<` → `>=```); ``code`` is the whole
    mutated source; ``line`` is the 1-based line of the changed node in the original.
    """

    operator: str
    description: str
    code: str
    line: int

    def diff(self, original: str) -> str:
        """The unified diff from ``original`` (the reference) to this mutant, for reading.

        Headed ``reference`` and ``mutant``; no line carries trailing whitespace (a blank
        context line is empty, not a lone space); ``""`` when the two are the same.
        """
        lines = difflib.unified_diff(
            original.splitlines(),
            self.code.splitlines(),
            fromfile="reference",
            tofile="mutant",
            lineterm="",
        )
        return "".join(line.rstrip() + "\n" for line in lines)


class _Spaced(Protocol):
    """An operator node: every comparison, binary, boolean and augmented operator has
    both fields, though LibCST's base classes do not declare them."""

    @property
    def whitespace_before(self) -> cst.BaseParenthesizableWhitespace: ...

    @property
    def whitespace_after(self) -> cst.BaseParenthesizableWhitespace: ...


class _MakeOperator(Protocol):
    """An operator node's class, called with the whitespace of the operator it replaces."""

    def __call__(
        self,
        *,
        whitespace_before: cst.BaseParenthesizableWhitespace = ...,
        whitespace_after: cst.BaseParenthesizableWhitespace = ...,
    ) -> cst.CSTNode: ...


# each operator class to what replaces it (``is not`` and ``not in`` take the default
# single space between their words)
_COMPARISON: dict[type[cst.CSTNode], _MakeOperator] = {
    cst.LessThan: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.LessThan,
    cst.GreaterThan: cst.LessThanEqual,
    cst.LessThanEqual: cst.GreaterThan,
    cst.Equal: cst.NotEqual,
    cst.NotEqual: cst.Equal,
    cst.Is: cst.IsNot,
    cst.IsNot: cst.Is,
    cst.In: cst.NotIn,
    cst.NotIn: cst.In,
}
_ARITHMETIC: dict[type[cst.CSTNode], _MakeOperator] = {
    cst.Add: cst.Subtract,
    cst.Subtract: cst.Add,
    cst.Multiply: cst.Divide,
    cst.Divide: cst.Multiply,
    cst.FloorDivide: cst.Divide,
    cst.Modulo: cst.FloorDivide,
    cst.Power: cst.Multiply,
    cst.AddAssign: cst.SubtractAssign,
    cst.SubtractAssign: cst.AddAssign,
    cst.MultiplyAssign: cst.DivideAssign,
    cst.DivideAssign: cst.MultiplyAssign,
}
_BOOLEAN: dict[type[cst.CSTNode], _MakeOperator] = {cst.And: cst.Or, cst.Or: cst.And}

# Expression statements that do nothing (docstrings, a bare ``...``, a name shown the way
# a notebook shows it): replacing one by ``pass``, or changing its literal, is a mutant
# no test can kill.
_INERT = (
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.Ellipsis,
    cst.Name,
)
# the simple statements whose loss changes what the code does; imports are left alone
# (their loss is a NameError, not a wrong answer), as are ``global`` and ``nonlocal``
_STATEMENTS = (cst.Expr, cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Return, cst.Del)


@dataclass(frozen=True)
class _Site:
    """One place one operator can change: ``old`` (a node of the parsed tree) → ``new``."""

    operator: str
    line: int
    column: int
    old: cst.CSTNode
    new: cst.CSTNode
    description: str


class _Finder(cst.CSTVisitor):
    """Collects every site of every operator in one pass over the tree.

    It dispatches in ``on_visit`` rather than through ``visit_<Node>`` methods: one
    generic hook reads as the table of operators it is (and needs no exemption from
    the naming rules, as LibCST's CamelCase hooks would).
    """

    def __init__(
        self, module: cst.Module, positions: Mapping[cst.CSTNode, CodeRange], offset: int
    ) -> None:
        super().__init__()
        self.module = module
        self.positions = positions
        # lines added before the reference to parse it (an indented fragment's ``def``)
        self.offset = offset
        # the parsed text's lines, to see what precedes a unary operator that goes away
        self.lines = module.code.split("\n")
        self.sites: list[_Site] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Annotation):
            return False
        if isinstance(node, cst.Expr) and isinstance(node.value, _INERT):
            return False
        # LibCST validates a node as it is built: a mutation it refuses is no site
        with contextlib.suppress(cst.CSTValidationError):
            self._find(node)
        return True

    def _find(self, node: cst.CSTNode) -> None:
        if isinstance(node, _STATEMENTS):
            self._statement(node)
        if isinstance(node, cst.ComparisonTarget):
            self._swap("comparison", node.operator, _COMPARISON)
        elif isinstance(node, (cst.BinaryOperation, cst.AugAssign)):
            self._swap("arithmetic", node.operator, _ARITHMETIC)
        elif isinstance(node, cst.BooleanOperation):
            self._swap("boolean", node.operator, _BOOLEAN)
        elif isinstance(node, cst.UnaryOperation):
            if isinstance(node.operator, cst.Minus):
                self._unwrap("arithmetic", node)
            elif isinstance(node.operator, cst.Not):
                self._unwrap("boolean", node)
        elif isinstance(node, cst.Name) and node.value in {"True", "False"}:
            flipped = node.with_changes(value="False" if node.value == "True" else "True")
            self._add("boolean", node, node, flipped, f"`{node.value}` → `{flipped.value}`")
        elif isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
            self._constant(node)
        elif isinstance(node, cst.Call):
            self._keywords(node)
            self._arguments(node)

    def _add(
        self, operator: str, anchor: cst.CSTNode, old: cst.CSTNode, new: cst.CSTNode, what: str
    ) -> None:
        start = self.positions[anchor].start
        line = start.line - self.offset
        self.sites.append(_Site(operator, line, start.column, old, new, f"line {line}: {what}"))

    def _quote(self, node: cst.CSTNode) -> str:
        """The node's source on one line, at most ``_QUOTE`` characters, in backticks."""
        text = " ".join(self.module.code_for_node(node).split())
        if len(text) > _QUOTE:
            text = text[: _QUOTE - 1] + "…"
        return f"`{text}`"

    def _swap(
        self, operator: str, old: cst.CSTNode, table: dict[type[cst.CSTNode], _MakeOperator]
    ) -> None:
        make = table.get(type(old))
        if make is None:
            return
        spaced = cast("_Spaced", old)
        new = make(
            whitespace_before=spaced.whitespace_before, whitespace_after=spaced.whitespace_after
        )
        self._add(operator, old, old, new, f"{self._quote(old)} → {self._quote(new)}")

    def _unwrap(self, operator: str, node: cst.UnaryOperation) -> None:
        inner = node.expression
        # the operation's own parentheses go around its operand, outermost first
        lpar = [*node.lpar, *inner.lpar]
        rpar = [*inner.rpar, *node.rpar]
        if not lpar and self._glued(node):
            # ``return-x`` would become ``returnx``, and ``not-x`` ``notx``: other names
            lpar, rpar = [cst.LeftParen()], [cst.RightParen()]
        new = inner.with_changes(lpar=lpar, rpar=rpar)
        self._add(operator, node, node, new, f"{self._quote(node)} → {self._quote(new)}")

    def _glued(self, node: cst.CSTNode) -> bool:
        """Whether a name or number ends right where ``node`` starts."""
        start = self.positions[node].start
        if start.column == 0 or start.line > len(self.lines):
            return False
        before = self.lines[start.line - 1][start.column - 1 : start.column]
        return before.isalnum() or before == "_"

    def _constant(self, node: cst.Integer | cst.Float | cst.SimpleString) -> None:
        new = _changed_literal(node)
        if new is not None:
            changed = node.with_changes(value=new)
            self._add("constant", node, node, changed, f"`{node.value}` → `{new}`")

    def _keywords(self, call: cst.Call) -> None:
        args = list(call.args)
        for i, arg in enumerate(args):
            if arg.keyword is None:
                continue
            rest = args[:i] + args[i + 1 :]
            if i == len(args) - 1 and rest:
                # the new last argument ends as the dropped one did: no dangling ``, ``
                rest[-1] = rest[-1].with_changes(comma=arg.comma)
            shown = self._quote(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT))
            self._add(
                "keyword", arg, call, call.with_changes(args=rest), f"dropped keyword {shown}"
            )

    def _arguments(self, call: cst.Call) -> None:
        args = list(call.args)
        for i in range(len(args) - 1):
            a, b = args[i], args[i + 1]
            if a.keyword is not None or b.keyword is not None or a.star or b.star:
                continue
            code = self.module.code_for_node
            if code(a.value) == code(b.value):
                continue
            # the values trade places; commas and spacing stay where they were
            swapped = [*args[:i], a.with_changes(value=b.value), b.with_changes(value=a.value)]
            new = call.with_changes(args=[*swapped, *args[i + 2 :]])
            what = f"swapped arguments {self._quote(a.value)} ↔ {self._quote(b.value)}"
            self._add("arguments", a, call, new, what)

    def _statement(self, node: cst.BaseSmallStatement) -> None:
        if isinstance(node, (cst.Return, cst.AnnAssign)) and node.value is None:
            return
        # the semicolon stays, so ``a = 1; b = 2`` becomes ``pass; b = 2``
        shown = self._quote(node.with_changes(semicolon=cst.MaybeSentinel.DEFAULT))
        self._add(
            "statement",
            node,
            node,
            cst.Pass(semicolon=node.semicolon),
            f"dropped statement {shown}",
        )


def _changed_literal(node: cst.Integer | cst.Float | cst.SimpleString) -> str | None:
    """The constant operator's new literal for ``node``, or None where it has none."""
    if isinstance(node, cst.Integer):
        try:
            return str(int(node.value, 0) + 1)
        except ValueError:
            return None
    if isinstance(node, cst.Float):
        try:
            value = float(node.value)
        except ValueError:
            return None
        # doubling zero changes nothing
        changed = value * 2 if value else 1.0
        # 1e308 doubled is inf, which is a name in source, not a literal
        return repr(changed) if math.isfinite(changed) else None
    if not node.raw_value:
        return None
    return f"{node.prefix}{node.quote}{node.raw_value}_{node.quote}"


@dataclass(frozen=True)
class _Parsed:
    """A reference's tree, as parsed: ``prefix`` is what was put before it to parse it."""

    module: cst.Module
    prefix: str
    sites: tuple[_Site, ...]


def _read(text: str) -> cst.Module | None:
    try:
        return cst.parse_module(text)
    except Exception:
        # LibCST raises more than ParserSyntaxError on odd input (RecursionError on deep
        # nesting, for one); code it cannot read simply has no mutants
        return None


def _parse(code: str) -> _Parsed | None:
    prefix = ""
    module = _read(code)
    if module is None:
        # an indented fragment does not parse on its own, but does as a function's body
        prefix = _FRAGMENT
        module = _read(prefix + code)
    if module is None:
        return None
    # The tree was parsed just now and is nobody else's, so the wrapper need not copy it;
    # the positions are then keyed by the nodes deep_replace will look for (by identity).
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    finder = _Finder(module, wrapper.resolve(PositionProvider), prefix.count("\n"))
    module.visit(finder)
    # A node's sites are found when it is visited, before its children's, which may come
    # earlier in the source (``f(g(x=1), y=2)``'s ``y=2`` is found before ``x=1``).
    sites = sorted(finder.sites, key=lambda site: (site.line, site.column))
    return _Parsed(module, prefix, tuple(sites))


def _build(parsed: _Parsed, site: _Site) -> Mutant | None:
    """The mutant at ``site``, or None if LibCST cannot build it or it does not compile."""
    try:
        tree = parsed.module.deep_replace(site.old, site.new)
    except (cst.CSTValidationError, RecursionError):
        # LibCST validates the new node's parents as it rebuilds them, and refuses, say,
        # ``return`` glued to its value; ``_glued`` avoids that one, this catches the rest
        return None
    if not isinstance(tree, cst.Module):
        return None
    text = tree.code
    try:
        # A mutant may say what compile() warns about (``x is not 1``); warnings are
        # the reference's business, and tests that turn them into errors must not
        # lose mutants to them. dont_inherit: this module's own __future__ imports
        # are not the reference's.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError):
        return None
    return Mutant(site.operator, site.description, text[len(parsed.prefix) :], site.line)


def mutants(code: str, *, seed: int = 0, limit: int = 5) -> tuple[Mutant, ...]:
    """At most `limit` distinct mutants of `code`, chosen reproducibly by `seed`.

    Every mutant compiles and differs from ``code`` and from the others; code that does
    not parse has none. The choice goes round the operators in a seeded order, taking
    the next of each one's sites in a seeded shuffle, so that an operator with many
    sites cannot take the whole budget; a site whose mutant is rejected gives its turn
    to the next site of the same operator. A larger ``limit`` extends the tuple a
    smaller one gives for the same seed.
    """
    if limit <= 0:
        return ()
    parsed = _parse(code)
    if parsed is None:
        return ()
    # reproducible by seed, not secret: the standard generator is the right one
    rng = random.Random(seed)  # noqa: S311
    queues: list[deque[_Site]] = []
    for operator in OPERATORS:
        # sites are in source order, so the shuffle depends only on the seed and the code
        pool = [site for site in parsed.sites if site.operator == operator]
        rng.shuffle(pool)
        if pool:
            queues.append(deque(pool))
    rng.shuffle(queues)
    seen = {code}
    chosen: list[Mutant] = []
    while queues and len(chosen) < limit:
        for queue in queues:
            while queue:
                mutant = _build(parsed, queue.popleft())
                if mutant is not None and mutant.code not in seen:
                    seen.add(mutant.code)
                    chosen.append(mutant)
                    break
            if len(chosen) == limit:
                break
        queues = [queue for queue in queues if queue]
    return tuple(chosen)
