"""SciPy codemods: sparse matrices' ``.A``/``.H``, ``scipy.misc``'s datasets, the
integrators ``quadrature``/``romberg``; ``interp2d`` is only reported."""

from __future__ import annotations

import re
from typing import ClassVar

import libcst as cst

from harness.labs.repair.base import (
    MovedNames,
    Transformer,
    as_keyword,
    has_star,
    keywords,
    method_name,
    positional,
)

_SCIPY = "https://docs.scipy.org/doc/scipy/release"

# names that say "sparse matrix": the formats, "sparse", "mat"/"matrix", a lone m or M
_SPARSE_NAME = re.compile(
    r"sparse|csr|csc|coo|lil|dok|dia|bsr|^sp_|_sp$|^m$|^mat|matrix|mtx", re.IGNORECASE
)
# methods that return a sparse matrix when called on one; the to<format>() ones on anything
_TO_SPARSE = frozenset({"tocsr", "tocsc", "tocoo", "tolil", "todok", "todia", "tobsr", "asformat"})
_KEEPS_SPARSE = frozenset({"transpose", "copy", "astype", "multiply", "dot", "conj", "getH"})


class SparseDenseAttributes(Transformer):
    """A sparse matrix's ``m.A`` → ``m.toarray()`` and ``m.H`` → ``m.conj().T``.

    ``.A`` is a column of a DataFrame just as often (``df.A``), so the receiver must look
    like a sparse matrix: a call into ``scipy.sparse`` (``sparse.csr_matrix(x).A``), a
    ``.tocsr()``-like conversion, a name assigned from one of those earlier in the
    source, or a name that says so (containing ``sparse``, ``csr``, ``coo``..., ``mat``,
    ``matrix``, or the lone ``m``/``M`` of DS-1000's and our problems); ``.T`` of any of
    these too. ``df.A``, ``D.A`` and ``row.A`` stay.
    """

    name = "scipy-sparse-dense-attributes"
    description = "sparse matrix .A / .H → .toarray() / .conj().T"
    library = "scipy"
    reference = f"SciPy 1.11.0 deprecated the .A and .H attributes of sparse matrices; 1.14.0 removed them: {_SCIPY}/1.14.0-notes.html"

    _sparse_names: set[str]
    mentions = (".A", ".H")

    def visit_Module(self, node: cst.Module) -> bool:
        self._sparse_names = set()
        return super().visit_Module(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._sparse(node.value):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self._sparse_names.add(target.target.value)

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        attr = original_node.attr.value
        if attr not in ("A", "H") or not self._sparse(original_node.value):
            return updated_node
        parent = self.parent(original_node)
        if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del)):
            return updated_node  # setting an attribute A of something
        if attr == "A":
            new: cst.BaseExpression = cst.Call(
                cst.Attribute(updated_node.value, cst.Name("toarray"))
            )
        else:
            conj = cst.Call(cst.Attribute(updated_node.value, cst.Name("conj")))
            new = cst.Attribute(conj, cst.Name("T"))
        return new.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)

    def _sparse(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self._sparse_names or bool(_SPARSE_NAME.search(node.value))
        if isinstance(node, cst.Attribute):
            return node.attr.value == "T" and self._sparse(node.value)
        if isinstance(node, cst.Call):
            if any(q.startswith("scipy.sparse.") for q in self.qualified(node.func)):
                return True
            method = method_name(node)
            if method in _TO_SPARSE:
                return True
            if method in _KEEPS_SPARSE and isinstance(node.func, cst.Attribute):
                return self._sparse(node.func.value)
        return False


class MiscToDatasets(MovedNames):
    """``scipy.misc.face`` / ``ascent`` / ``electrocardiogram`` → ``scipy.datasets.*``
    (``misc.face()``, ``scipy.misc.face()`` and ``from scipy.misc import face`` alike).

    ``scipy.datasets`` fetches the files on first use (with pooch, over the network)
    where ``scipy.misc`` shipped them. ``scipy.misc.derivative`` has no drop-in
    replacement (``scipy.differentiate.derivative`` has another interface): skipped.
    """

    name = "scipy-misc-to-datasets"
    description = "scipy.misc.face / ascent / electrocardiogram → scipy.datasets.*"
    library = "scipy"
    reference = f"SciPy 1.10.0 deprecated scipy.misc, its datasets moved to scipy.datasets: {_SCIPY}/1.10.0-notes.html"
    moves: ClassVar[dict[str, str]] = {
        f"scipy.misc.{name}": f"scipy.datasets.{name}"
        for name in ("face", "ascent", "electrocardiogram")
    }
    notes: ClassVar[dict[str, str]] = {
        "scipy.misc.derivative": "scipy.misc.derivative has no drop-in replacement (scipy.differentiate.derivative differs)",
        "scipy.misc.central_diff_weights": "scipy.misc.central_diff_weights has no drop-in replacement",
    }
    import_new_modules = True
    mentions = ("misc",)


class IntegrateRenames(MovedNames):
    """``integrate.trapz`` / ``cumtrapz`` / ``simps`` → ``trapezoid`` /
    ``cumulative_trapezoid`` / ``simpson``, called or passed as a function
    (``df.rolling("25s").apply(integrate.trapz)``). The new names exist since SciPy 1.6.
    ``simps(..., even=...)``: ``even`` is gone from ``simpson`` (1.14), so such a call is
    left alone with a note.
    """

    name = "scipy-integrate-renames"
    description = "integrate.trapz / cumtrapz / simps → trapezoid / cumulative_trapezoid / simpson"
    library = "scipy"
    reference = f"SciPy 1.12.0 deprecated trapz, cumtrapz and simps; 1.14.0 removed them: {_SCIPY}/1.14.0-notes.html"
    moves: ClassVar[dict[str, str]] = {
        "scipy.integrate.trapz": "scipy.integrate.trapezoid",
        "scipy.integrate.cumtrapz": "scipy.integrate.cumulative_trapezoid",
        "scipy.integrate.simps": "scipy.integrate.simpson",
    }
    mentions = ("trapz", "simps")

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if "even" in keywords(original_node) and self.refers_to(
            original_node.func, "scipy.integrate.simps"
        ):
            self.warn("simps(even=...): simpson has no even= since SciPy 1.14; left alone")
            return original_node
        return updated_node


class QuadratureToQuad(Transformer):
    """``integrate.quadrature(f, a, b)`` → ``integrate.quad(f, a, b)`` (both return the
    value and an error estimate); ``integrate.romberg(f, a, b)`` → ``integrate.quad(f, a, b)[0]``
    (romberg returned the value alone). ``tol``/``rtol`` become ``epsabs``/``epsrel``
    (the same defaults); a call with arguments quad has no counterpart for (``maxiter``,
    ``vec_func``, ``show``, ``divmax``...) is skipped.
    """

    name = "scipy-quadrature-to-quad"
    description = "scipy.integrate.quadrature / romberg → scipy.integrate.quad"
    library = "scipy"
    reference = f"SciPy 1.12.0 deprecated integrate.quadrature and integrate.romberg for integrate.quad: {_SCIPY}/1.12.0-notes.html"

    _RENAMED = frozenset({"args", "tol", "rtol"})
    mentions = ("quadrature", "romberg")

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        old = next(
            (
                n
                for n in ("quadrature", "romberg")
                if self.refers_to(original_node.func, f"scipy.integrate.{n}")
            ),
            None,
        )
        if old is None:
            return updated_node
        if (
            has_star(updated_node)
            or len(positional(updated_node)) > 4
            or not keywords(updated_node) <= self._RENAMED
        ):
            self.warn(f"integrate.{old} with arguments quad has no counterpart for: left alone")
            return updated_node
        renames = {"tol": "epsabs", "rtol": "epsrel"}
        args = [
            as_keyword(a, renames[a.keyword.value])
            if a.keyword is not None and a.keyword.value in renames
            else a
            for a in updated_node.args
        ]
        func = updated_node.func
        if isinstance(func, cst.Attribute):
            func = func.with_changes(attr=cst.Name("quad"))
        elif isinstance(func, cst.Name):  # from scipy.integrate import quadrature
            self.add_needed_import("scipy.integrate", "quad")
            self.remove_unused_import("scipy.integrate", func.value)
            func = cst.Name("quad")
        call = updated_node.with_changes(func=func, args=args)
        if old == "romberg":
            return cst.Subscript(call, [cst.SubscriptElement(cst.Index(cst.Integer("0")))])
        return call


class Interp2dNote(Transformer):
    """``scipy.interpolate.interp2d`` is only reported: ``RegularGridInterpolator`` and
    ``RectBivariateSpline`` differ in argument order, grid sorting and the kinds of
    spline (interp2d's ``kind="cubic"`` is no RegularGridInterpolator method), so no
    rewrite keeps results the same in general."""

    name = "scipy-interp2d"
    description = "scipy.interpolate.interp2d: reported, not rewritten (no drop-in replacement)"
    library = "scipy"
    reference = f"SciPy 1.10.0 deprecated interpolate.interp2d; 1.14.0 removed it: {_SCIPY}/1.14.0-notes.html"
    mentions = ("interp2d",)

    def visit_Call(self, node: cst.Call) -> None:
        if self.refers_to(node.func, "scipy.interpolate.interp2d"):
            self.warn(
                "no drop-in replacement: interp2d → RegularGridInterpolator or "
                "RectBivariateSpline needs the grid's axes swapped and sorted by hand"
            )


class ModeScalar(Transformer):
    """``stats.mode(x)[0][0]`` / ``mode(x).mode[0]`` → ``np.atleast_1d(…)[0]``.

    SciPy 1.11 made ``keepdims=False`` the default of ``scipy.stats.mode``: the mode of a
    one-dimensional sample is a scalar, no longer an array of one, and indexing it fails
    ("invalid index to scalar variable"). ``keepdims=True`` is not understood before
    SciPy 1.9; ``np.atleast_1d`` of the result is the array of one in every release, so
    the rewrite holds in all of them. Opt-in, chosen by the failure's message: for a
    sample of more than one dimension ``[0]`` meant a row, which the codemod cannot see.
    """

    name = "scipy-mode-scalar"
    description = "stats.mode(x)[0][0] / mode(x).mode[0] → np.atleast_1d(stats.mode(x)[0])[0]"
    library = "scipy"
    reference = "SciPy 1.11.0 release notes, expired deprecations: scipy.stats.mode's keepdims defaults to False: https://docs.scipy.org/doc/scipy/release/1.11.0-notes.html"
    opt_in = True
    mentions = ("mode",)

    def _mode_part(self, node: cst.BaseExpression) -> bool:
        """``mode(x).mode``, ``mode(x).count``, ``mode(x)[0]`` or ``mode(x)[1]``."""
        if isinstance(node, cst.Attribute) and node.attr.value in ("mode", "count"):
            inner = node.value
        elif isinstance(node, cst.Subscript) and len(node.slice) == 1:
            index = node.slice[0].slice
            if not (isinstance(index, cst.Index) and isinstance(index.value, cst.Integer)):
                return False
            inner = node.value
        else:
            return False
        return isinstance(inner, cst.Call) and self.refers_to(inner.func, "scipy.stats.mode")

    def leave_Subscript(
        self, original_node: cst.Subscript, updated_node: cst.Subscript
    ) -> cst.BaseExpression:
        if not self._mode_part(original_node.value):
            return updated_node
        numpy = self.module_ref("numpy")
        if numpy is None:
            self.warn("np is taken here: atleast_1d cannot be named; left alone")
            return updated_node
        if "numpy" not in self._module_aliases:
            self.add_needed_import("numpy", asname="np")
        wrapped = cst.Call(
            cst.Attribute(numpy, cst.Name("atleast_1d")), [cst.Arg(updated_node.value)]
        )
        return updated_node.with_changes(value=wrapped)
