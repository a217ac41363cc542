"""What every codemod shares: the transformer base class, name resolution, argument edits.

A codemod is one small LibCST transformer per API change (a subclass of
:class:`Transformer`), which rewrites only the nodes the change touches, so that the rest
of the source (formatting, comments) comes back byte for byte.

Names are resolved honestly: ``np.product`` is ``numpy.product`` only if ``np`` is bound
to numpy (``import numpy as np``), and ``product`` only if it was imported from numpy
(LibCST's QualifiedNameProvider follows imports and scopes), so a user's own ``product``
is left alone. One exception, for the snippets benchmarks run after their context's
imports (DS-1000's solutions, our problems' answers): a conventional alias (``np``,
``pd``, ``plt``, ``tf``, ``mpl``, DS-1000's ``sparse`` and ``integrate``) or a library's own name that the
source uses but binds nowhere is read as that library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.helpers import get_full_name_for_node
from libcst.metadata import (
    MetadataWrapper,
    ParentNodeProvider,
    QualifiedNameProvider,
    QualifiedNameSource,
    Scope,
    ScopeProvider,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from libcst.codemod import CodemodContext

    from harness.labs.repair.ruff import RuffFix

# unbound names a snippet uses as these libraries (its context imported them)
CONVENTIONAL = {
    "np": "numpy",
    "pd": "pandas",
    "plt": "matplotlib.pyplot",
    "mpl": "matplotlib",
    "tf": "tensorflow",
    "sparse": "scipy.sparse",  # DS-1000: from scipy import sparse
    "integrate": "scipy.integrate",  # DS-1000: from scipy import integrate
    "numpy": "numpy",
    "pandas": "pandas",
    "scipy": "scipy",
    "matplotlib": "matplotlib",
    "tensorflow": "tensorflow",
    "sklearn": "sklearn",
}
_ALIAS_OF = {"numpy": "np", "pandas": "pd", "matplotlib.pyplot": "plt", "tensorflow": "tf"}


class Transformer(cst.CSTTransformer):
    """Base of the codemods: subclasses rewrite one API change in ``leave_*`` methods.

    ``self.warn(reason)`` records a use the codemod found but left alone (it becomes a
    ``skipped`` reason); imports are added and removed through LibCST's
    ``AddImportsVisitor`` / ``RemoveImportsVisitor``, which run after the transform
    (``add_needed_import`` / ``remove_unused_import``), as in LibCST's codemod commands,
    whose matcher machinery (costly to set up, unused here) this base does without.
    """

    METADATA_DEPENDENCIES = (QualifiedNameProvider, ScopeProvider, ParentNodeProvider)

    name: ClassVar[str]
    description: ClassVar[str]
    library: ClassVar[str]
    reference: ClassVar[str]
    # fixes taken from ruff (run on the text before this transformer), when ruff has them
    ruff: ClassVar[RuffFix | None] = None
    # not an API repair but an adjustment of a context: applied only when asked by name
    opt_in: ClassVar[bool] = False
    # a setting of the problem's own process, never written into a solution
    context_only: ClassVar[bool] = False
    # text one of which a source must contain for the codemod to have anything to do
    # there (a cheap test before parsing and resolving names); empty: always run
    mentions: ClassVar[tuple[str, ...]] = ()
    # the first release of ``library`` with the new API, for a codemod that has a portable
    # form: a rewrite that means the same and runs on releases before it too (asked for
    # with ``portable=True`` when the code must still run there; the new API otherwise)
    introduced: ClassVar[str | None] = None

    portable: bool = False

    _bound: frozenset[str] = frozenset()
    _module_aliases: dict[str, str]
    _from_imported: set[str]
    _imported_names: set[tuple[str, str]]

    def __init__(self, context: CodemodContext, *, portable: bool = False) -> None:
        super().__init__()
        self.context = context
        self.portable = portable and self.introduced is not None

    @classmethod
    def transform(
        cls, tree: cst.Module, context: CodemodContext, *, portable: bool = False
    ) -> cst.Module:
        """``tree`` rewritten (in the portable form when asked and there is one), then
        the imports the rewrite asked for added and removed."""
        transformer = cls(context, portable=portable)
        tree = MetadataWrapper(tree, unsafe_skip_copy=True).visit(transformer)
        for helper in (AddImportsVisitor, RemoveImportsVisitor):
            if helper.CONTEXT_KEY in context.scratch:
                tree = helper(context).transform_module(tree)
        return tree

    def warn(self, reason: str) -> None:
        self.context.warnings.append(reason)

    def add_needed_import(
        self, module: str, obj: str | None = None, asname: str | None = None
    ) -> None:
        AddImportsVisitor.add_needed_import(self.context, module, obj, asname)

    def remove_unused_import(self, module: str, obj: str | None = None) -> None:
        RemoveImportsVisitor.remove_unused_import(self.context, module, obj)

    def remove_stale_imports(self, module: str, names: Iterable[str]) -> None:
        """Drop ``from module import name`` for each of ``names`` once nothing uses it.

        ruff adds ``from numpy import nan`` beside ``from numpy import NaN`` but keeps the
        latter, which fails on NumPy 2.
        """
        for name in names:
            if (module, name) in self._imported_names:
                self.remove_unused_import(module, name)

    def visit_Module(self, node: cst.Module) -> bool:
        scopes = {s for s in self.metadata.get(ScopeProvider, {}).values() if isinstance(s, Scope)}
        self._bound = frozenset(a.name for s in scopes for a in s.assignments)
        self._module_aliases = {}  # module → the top-level name bound to it
        self._from_imported = set()  # modules something is imported from by name
        self._imported_names = set()  # (module, name) of `from module import name`
        for statement in node.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        dotted = get_full_name_for_node(alias.name) or ""
                        if alias.asname is not None:
                            as_name = alias.asname.name
                            if isinstance(as_name, cst.Name):
                                self._module_aliases.setdefault(dotted, as_name.value)
                        else:
                            root = dotted.partition(".")[0]
                            self._module_aliases.setdefault(root, root)
                elif isinstance(small, cst.ImportFrom) and small.module is not None:
                    module = get_full_name_for_node(small.module) or ""
                    self._from_imported.add(module.partition(".")[0])
                    if not isinstance(small.names, cst.ImportStar):
                        self._imported_names.update((module, a.evaluated_name) for a in small.names)
        return True

    # -- names -------------------------------------------------------------------------

    def qualified(self, node: cst.CSTNode) -> set[str]:
        """What ``node`` (a name or attribute of the original tree) refers to, dotted."""
        found = self.get_metadata(QualifiedNameProvider, node, set())
        if found:
            return {q.name for q in found}
        dotted = get_full_name_for_node(node)
        if dotted is None:
            return set()
        root, dot, rest = dotted.partition(".")
        module = CONVENTIONAL.get(root)
        if module is not None and root not in self._bound:
            return {module + dot + rest}
        return set()

    def refers_to(self, node: cst.CSTNode, *names: str) -> bool:
        return bool(self.qualified(node) & set(names))

    def imported(self, node: cst.CSTNode) -> bool:
        """Whether ``node``'s root name comes from an import (a module or a library object)."""
        found = self.get_metadata(QualifiedNameProvider, node, set())
        return any(q.source is QualifiedNameSource.IMPORT for q in found)

    def is_bound(self, name: str) -> bool:
        return name in self._bound

    def module_ref(self, module: str) -> cst.BaseExpression | None:
        """An expression for ``module`` here: its alias, or the conventional one.

        The conventional alias is used unbound in a snippet (its context imports it);
        in a program that imports names from the library, ``import module as alias`` is
        added. ``None`` when the conventional alias is taken by something else.
        """
        alias = self._module_aliases.get(module)
        if alias is None:
            alias = _ALIAS_OF.get(module, module.partition(".")[0])
            if alias in self._bound:
                return None
            if module.partition(".")[0] in self._from_imported:
                asname = alias if alias != module else None
                self.add_needed_import(module, asname=asname)
        return cst.parse_expression(alias)

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.get_metadata(ParentNodeProvider, node, None)


# -- calls and arguments -------------------------------------------------------------


def method_name(call: cst.Call) -> str | None:
    """``append`` for ``x.append(...)``, ``None`` for calls of a plain name."""
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value
    return None


def callee_name(call: cst.Call) -> str | None:
    """The last name of the callee: ``read_csv`` for ``pd.read_csv(...)`` or ``read_csv(...)``."""
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value
    if isinstance(call.func, cst.Name):
        return call.func.value
    return None


def positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def has_star(call: cst.Call) -> bool:
    return any(a.star for a in call.args)


def keywords(call: cst.Call) -> set[str]:
    return {a.keyword.value for a in call.args if a.keyword is not None}


def without(args: Sequence[cst.Arg], *drop: cst.Arg) -> list[cst.Arg]:
    """``args`` less ``drop``, with the last remaining one ending as the last one did."""
    kept = [a for a in args if all(a is not d for d in drop)]
    if kept and args and kept[-1] is not args[-1]:
        kept[-1] = kept[-1].with_changes(comma=args[-1].comma)
    return kept


def appended(args: Sequence[cst.Arg], arg: cst.Arg) -> list[cst.Arg]:
    """``args`` and then ``arg``, keeping a trailing comma where there was one."""
    if not args:
        return [arg]
    last = args[-1]
    if isinstance(last.comma, cst.Comma):
        return [*args, arg.with_changes(comma=last.comma)]
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [*args[:-1], last.with_changes(comma=comma), arg]


def kwarg(name: str, value: cst.BaseExpression) -> cst.Arg:
    """``name=value`` in the house style of keyword arguments (no spaces)."""
    return cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )


def as_keyword(arg: cst.Arg, name: str) -> cst.Arg:
    """A positional argument turned into ``name=value``, its comma and spacing kept."""
    return kwarg(name, arg.value).with_changes(
        comma=arg.comma, whitespace_after_arg=arg.whitespace_after_arg
    )


def string_value(node: cst.BaseExpression) -> str | None:
    """The text of a plain string literal (no f-string, no implicit concatenation)."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def with_string(node: cst.SimpleString, text: str) -> cst.SimpleString:
    """``node`` holding ``text`` instead, in the same prefix and quotes."""
    return node.with_changes(value=f"{node.prefix}{node.quote}{text}{node.quote}")


def literal(node: cst.BaseExpression) -> object:
    """The value of a simple literal (``True``, ``None``, ``1``, ``-1``, ``"x"``), else ``...``."""
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    ):
        return -int(node.expression.value, 0)
    text = string_value(node)
    return text if text is not None else ...


class MovedNames(Transformer):
    """Names moved to another module: ``moves`` maps an old qualified name to the new one
    (or, ending in ".", an old prefix to a new one).

    ``from old import x`` becomes ``from new import x`` (``as`` the old local name if the
    name changed); ``alias.old.x`` becomes ``alias.new.x`` when ``alias`` is a common parent
    of both, else the new module is imported by name beside the old one (which goes
    once unused). ``notes`` holds old names with no replacement: a use of one is skipped
    with its note.
    """

    moves: ClassVar[dict[str, str]] = {}
    notes: ClassVar[dict[str, str]] = {}
    # `import old.module` gets an `import new.module` beside it (lazily loaded otherwise)
    import_new_modules: ClassVar[bool] = False

    _imported_modules: set[str]

    def visit_Module(self, node: cst.Module) -> bool:
        self._imported_modules = set()
        for statement in node.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Import):
                        self._imported_modules.update(
                            get_full_name_for_node(a.name) or "" for a in small.names
                        )
        return super().visit_Module(node)

    def target(self, qualified: str) -> str | None:
        for old, new in self.moves.items():
            if old.endswith("."):
                if qualified.startswith(old) and len(qualified) > len(old):
                    return new + qualified[len(old) :]
            elif qualified == old:
                return new
        return None

    def _note(self, qualified: set[str]) -> None:
        for q in qualified:
            if q in self.notes:
                self.warn(self.notes[q])

    def leave_ImportFrom(
        self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom
    ) -> cst.ImportFrom | cst.RemovalSentinel:
        if (
            updated_node.module is None
            or updated_node.relative
            or isinstance(updated_node.names, cst.ImportStar)
        ):
            return updated_node
        module = get_full_name_for_node(updated_node.module) or ""
        moved: list[tuple[cst.ImportAlias, str]] = []
        kept: list[cst.ImportAlias] = []
        for alias in updated_node.names:
            name = get_full_name_for_node(alias.name) or ""
            self._note({f"{module}.{name}"})
            new = self.target(f"{module}.{name}")
            if new is None:
                kept.append(alias)
            else:
                moved.append((alias, new))
        if not moved:
            return updated_node
        modules = {new.rpartition(".")[0] for _, new in moved}
        if not kept and len(modules) == 1:
            names = [_renamed_alias(alias, new) for alias, new in moved]
            return updated_node.with_changes(
                module=cst.parse_expression(modules.pop()),
                names=[*names[:-1], names[-1].with_changes(comma=updated_node.names[-1].comma)],
            )
        for alias, new in moved:
            old_local = alias.evaluated_alias or alias.evaluated_name
            new_module, _, new_name = new.rpartition(".")
            asname = old_local if old_local != new_name else None
            self.add_needed_import(new_module, new_name, asname=asname)
        if not kept:
            return cst.RemoveFromParent()
        last = updated_node.names[-1].comma
        return updated_node.with_changes(names=[*kept[:-1], kept[-1].with_changes(comma=last)])

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        if not updated_node.value.deep_equals(original_node.value):
            return updated_node  # rewritten below already
        qualified = self.qualified(original_node)
        self._note(qualified)
        new = next((t for q in sorted(qualified) if (t := self.target(q)) is not None), None)
        if new is None:
            return updated_node
        root = original_node.value
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name):
            return updated_node
        root_qualified = next(iter(sorted(self.qualified(root))), None)
        if root_qualified is None:
            return updated_node
        if new.startswith(root_qualified + "."):
            chain = root.value + new[len(root_qualified) :]
            old_module = _module_of(self.qualified(original_node))
            new_module = new.rpartition(".")[0]
            if self.import_new_modules and old_module in self._imported_modules:
                self.add_needed_import(new_module)
        else:
            parent, _, leaf = new.rpartition(".")[0].rpartition(".")
            if self.is_bound(leaf) and (parent, leaf) not in self._imported_names:
                self.warn(f"{new}: the name {leaf} is taken here; left alone")
                return updated_node
            self.add_needed_import(parent, leaf)
            old_parent, _, old_leaf = root_qualified.rpartition(".")
            if old_parent:
                self.remove_unused_import(old_parent, old_leaf)
            chain = leaf + new[len(parent) + len(leaf) + 1 :]
        return cst.parse_expression(chain).with_changes(
            lpar=updated_node.lpar, rpar=updated_node.rpar
        )


def _renamed_alias(alias: cst.ImportAlias, new: str) -> cst.ImportAlias:
    old_local = alias.evaluated_alias or alias.evaluated_name
    new_name = new.rpartition(".")[2]
    if new_name == alias.evaluated_name:
        return alias
    asname = None if old_local == new_name else cst.AsName(cst.Name(old_local))
    return alias.with_changes(name=cst.Name(new_name), asname=asname)


def _module_of(qualified: set[str]) -> str:
    return next(iter(sorted(qualified)), "").rpartition(".")[0]


def module_alias(statement: cst.CSTNode, module: str) -> str | None:
    """The name ``statement`` binds ``module`` to (``import pandas as pd`` → ``pd``),
    None when it imports no such module."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return None
    for small in statement.body:
        if isinstance(small, cst.Import):
            for alias in small.names:
                if get_full_name_for_node(alias.name) == module:
                    if alias.asname is None:
                        return module
                    if isinstance(alias.asname.name, cst.Name):
                        return alias.asname.name.value
    return None


class ContextSetting(Transformer):
    """A setting of the problem's process, inserted after the statement that imports
    ``module`` (as its local name binds it): ``guard``, formatted with ``{name}``, sets it
    on the releases that need it. Opt-in, for contexts only; a source importing names
    from the module but not the module itself gets a note instead."""

    opt_in = True
    context_only = True
    module: ClassVar[str]
    guard: ClassVar[str]
    done_when: ClassVar[tuple[str, ...]]  # all in a source: set already (or by hand)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if all(text in original_node.code for text in self.done_when):
            return updated_node
        body = list(updated_node.body)
        for i, statement in enumerate(body):
            name = module_alias(statement, self.module)
            if name is not None:
                setting = cst.parse_statement(self.guard.format(name=name))
                return updated_node.with_changes(body=[*body[: i + 1], setting, *body[i + 1 :]])
        if any(
            isinstance(s, cst.SimpleStatementLine)
            and any(
                isinstance(x, cst.ImportFrom)
                and x.module is not None
                and get_full_name_for_node(x.module) == self.module
                for x in s.body
            )
            for s in body
        ):
            self.warn(f"{self.module} is imported by name only: no module to set it on")
        return updated_node
