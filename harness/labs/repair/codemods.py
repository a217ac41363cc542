"""The catalogue of codemods, and applying them to a piece of source.

Each codemod repairs one API change (its ``name`` is the ``codemod`` key of the
``[[api]]`` entries in ``harness/data/catalogue.toml`` it repairs). ``apply`` runs them
in order and reports which changed something and which left a use alone, and why;
source that does not parse comes back unchanged, with that as the reason. An indented
snippet (DS-1000's solutions that are the body of a function its prompt begins) is
parsed as the body of a function and comes back indented as it was.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst
from libcst.codemod import CodemodContext
from packaging.version import InvalidVersion, Version

from harness.labs.repair import (
    ml_api,
    numpy_api,
    pandas_api,
    pandas_calls,
    pandas_freq,
    python_api,
    scipy_api,
)
from harness.labs.repair.ruff import RuffError, apply_fix

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping

    from harness.labs.repair.base import Transformer


@dataclass(frozen=True)
class Codemod:
    """One API change's codemod: its transformer class, which carries the facts."""

    transformer: type[Transformer]

    @property
    def name(self) -> str:
        return self.transformer.name

    @property
    def description(self) -> str:
        return self.transformer.description

    @property
    def library(self) -> str:
        return self.transformer.library

    @property
    def reference(self) -> str:
        return self.transformer.reference

    @property
    def opt_in(self) -> bool:
        return self.transformer.opt_in

    @property
    def context_only(self) -> bool:
        return self.transformer.context_only

    @property
    def introduced(self) -> str | None:
        """The first release of its library with the new API, when it has a portable form."""
        return self.transformer.introduced

    def run(self, source: str, *, portable: bool = False) -> tuple[str, tuple[str, ...]]:
        """``source`` rewritten (in the portable form, if asked), and the reasons for the
        uses left alone."""
        mentions = self.transformer.mentions
        if mentions and not any(word in source for word in mentions):
            return source, ()
        reasons: list[str] = []
        fix = self.transformer.ruff
        if fix is not None and fix.mentioned(source):
            try:
                source = apply_fix(source, fix)
            except RuffError as exc:
                reasons.append(f"{exc}: ruff's {fix.rule} fixes not applied")
        context = CodemodContext()
        tree = self.transformer.transform(cst.parse_module(source), context, portable=portable)
        return tree.code, (*reasons, *context.warnings)


@dataclass(frozen=True)
class Rewrite:
    source: str
    applied: tuple[str, ...] = ()  # codemods that changed something, in order
    skipped: tuple[tuple[str, str], ...] = ()  # (codemod, why a use was left alone)

    @property
    def changed(self) -> bool:
        return bool(self.applied)


_ORDER: tuple[type[Transformer], ...] = (
    numpy_api.NanInfAliases,
    numpy_api.ProductToProd,
    numpy_api.AlltrueToAll,
    numpy_api.ScalarTypeAliases,
    numpy_api.BuiltinTypeAliases,
    numpy_api.RoundAsfarrayMsort,
    numpy_api.In1dToIsin,
    numpy_api.TrapzToTrapezoid,
    numpy_api.RowStackToVstack,
    numpy_api.Numpy2LegacyPrint,
    numpy_api.ArrayToElementItem,
    numpy_api.NonzeroZeroD,
    pandas_calls.PositionalToKeyword,
    pandas_api.AppendToConcat,
    pandas_api.ApplymapToMap,
    pandas_api.DelimWhitespaceToSep,
    pandas_api.FillnaMethodToFfill,
    pandas_api.ReplaceMethod,
    pandas_api.ChainedAssignment,
    pandas_api.ToDatetimePerValue,
    pandas_api.ReadJsonLiteral,
    pandas_freq.FreqAliases,
    pandas_calls.SetAxisInplace,
    pandas_calls.GroupbyNumericOnly,
    pandas_calls.PositionalGetitemToIloc,
    pandas_calls.Pandas3ObjectStrings,
    scipy_api.SparseDenseAttributes,
    scipy_api.MiscToDatasets,
    scipy_api.IntegrateRenames,
    scipy_api.QuadratureToQuad,
    scipy_api.Interp2dNote,
    scipy_api.ModeScalar,
    ml_api.GetFeatureNamesOut,
    ml_api.OneHotSparseOutput,
    ml_api.BoxplotTickLabels,
    ml_api.GetCmapToColormaps,
    ml_api.OptimizerLrKeyword,
    ml_api.OptimizerLrAttribute,
    ml_api.KerasMovedNames,
    ml_api.FitGenerator,
    python_api.UnittestAliases,
)
CODEMODS: dict[str, Codemod] = {t.name: Codemod(t) for t in _ORDER}
# what `apply` runs when no names are given: the API repairs, not the opt-in adjustments
DEFAULT: tuple[str, ...] = tuple(name for name, c in CODEMODS.items() if not c.opt_in)
# what may be written into a solution (a reference, an answer): not a context's settings
FOR_SOLUTIONS: frozenset[str] = frozenset(n for n, c in CODEMODS.items() if not c.context_only)


def apply(
    source: str,
    names: Iterable[str] | None = None,
    *,
    after: str = "",
    portable: Collection[str] = (),
) -> Rewrite:
    """``source`` with the codemods ``names`` applied (default: every non-opt-in one).

    ``after``: code that ``source`` runs after, in one module (a BigCodeBench task's
    solution, for its tests): the codemods read both, so that a call of the solution's
    own function is seen with its definition, but only ``source`` is rewritten.
    ``portable``: the codemods to run in their portable form (:func:`portable_for`).

    Raises KeyError for a name that is no codemod; never for the source.
    """
    wanted = DEFAULT if names is None else tuple(names)
    unknown = [n for n in wanted if n not in CODEMODS]
    if unknown:
        raise KeyError(f"no such codemod: {', '.join(unknown)}")
    chosen = [c for c in CODEMODS.values() if c.name in wanted]
    try:
        head = _head(source) if not after else _after(after)
    except Exception as exc:  # ParserSyntaxError, and whatever else the parser rejects
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        reason = f"source does not parse: {message}"
        return Rewrite(source, (), tuple((c.name, reason) for c in chosen))
    applied: list[str] = []
    skipped: list[tuple[str, str]] = []
    for codemod in chosen:
        try:
            new, reasons = codemod.run(head + source, portable=codemod.name in portable)
        except Exception as exc:  # a codemod's bug must not lose the others' work
            skipped.append((codemod.name, f"codemod failed: {type(exc).__name__}: {exc}"))
            continue
        kept = _strip_head(new, head)
        if kept is None:
            where = "the code it runs after" if after else "an indented snippet"
            skipped.append((codemod.name, f"it would add an import above {where}"))
            continue
        new = kept
        if new != source:
            applied.append(codemod.name)
            source = new
        skipped.extend((codemod.name, r) for r in dict.fromkeys(reasons))
    return Rewrite(source, tuple(applied), tuple(skipped))


def portable_for(names: Iterable[str], oldest: Mapping[str, str]) -> tuple[str, ...]:
    """Those of the codemods ``names`` to run in their portable form: the ones that have
    one and whose new API came after ``oldest``'s release of their library (the oldest
    release the rewritten code must still run on, by library key); a library not in
    ``oldest`` is taken as new enough."""
    out = []
    for name in names:
        codemod = CODEMODS.get(name)
        if codemod is None or codemod.introduced is None:
            continue
        floor, new = _release(oldest.get(codemod.library, "")), _release(codemod.introduced)
        if floor is not None and new is not None and floor < new:
            out.append(name)
    return tuple(out)


def _release(version: str) -> tuple[int, ...] | None:
    try:
        return Version(version).release
    except InvalidVersion:
        return None


# where the code a source runs after ends, in the module the codemods read
_AFTER = "# -- harness: the rewritten source begins here --\n"


def _after(code: str) -> str:
    cst.parse_module(code)  # it must parse on its own
    return code.rstrip("\n") + "\n\n\n" + _AFTER


def _strip_head(new: str, head: str) -> str | None:
    """``new`` less the ``head`` it was read with; None when the codemod wrote into an
    indented snippet's head, or took an import out of the code the source runs after.
    An import the codemod added there (the top of the module) is the source's own: it
    goes first in the source."""
    if not head.endswith(_AFTER):
        return new[len(head) :] if new.startswith(head) else None
    if new.count(_AFTER) != 1:
        return None
    before, rest = new.split(_AFTER)
    had, has = _imports(head[: -len(_AFTER)]), _imports(before)
    if not set(had) <= set(has):
        return None
    added = [line for line in has if line not in had]
    return "".join(line + "\n" for line in added) + rest


def _imports(code: str) -> list[str]:
    return [line for line in code.splitlines() if line.startswith(("import ", "from "))]


# DS-1000's solutions to "complete this function" problems are its indented body
_BODY = "def _snippet_body():\n"


def _head(source: str) -> str:
    """What ``source`` needs before it to parse: nothing, or a ``def`` if it is a body."""
    try:
        cst.parse_module(source)
    except Exception as exc:
        if not source[:1].isspace():
            raise
        try:
            cst.parse_module(_BODY + source)
        except Exception:
            raise exc from None  # its line numbers are the source's own
        return _BODY
    return ""


def diff(before: str, after: str, path: str) -> str:
    """A unified diff of ``before`` → ``after`` for ``path`` ("" when they are equal)."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{path}",
        tofile=f"b/{path}",
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
