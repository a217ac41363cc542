"""scikit-learn, matplotlib and TensorFlow/Keras codemods."""

from __future__ import annotations

import re
from typing import ClassVar

import libcst as cst
from libcst.helpers import get_full_name_for_node

from harness.labs.repair.base import (
    MovedNames,
    Transformer,
    appended,
    as_keyword,
    has_star,
    keyword,
    keywords,
    kwarg,
    literal,
    method_name,
    positional,
    string_value,
    without,
)

_TF = "https://github.com/tensorflow/tensorflow/releases"


class GetFeatureNamesOut(Transformer):
    """``vectorizer.get_feature_names()`` → ``vectorizer.get_feature_names_out()``.

    The name is scikit-learn's own; a function of an imported module of that name is
    left alone. The new method returns an array of str where the old one returned a list.
    """

    name = "sklearn-get-feature-names-out"
    description = "get_feature_names() → get_feature_names_out()"
    library = "scikit-learn"
    reference = "scikit-learn 1.0 deprecated get_feature_names for get_feature_names_out; 1.2 removed it: https://scikit-learn.org/stable/whats_new/v1.2.html"
    mentions = ("get_feature_names",)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if method_name(updated_node) != "get_feature_names":
            return updated_node
        assert isinstance(original_node.func, cst.Attribute)
        assert isinstance(updated_node.func, cst.Attribute)
        if self.imported(original_node.func.value):
            return updated_node
        return updated_node.with_changes(
            func=updated_node.func.with_changes(attr=cst.Name("get_feature_names_out"))
        )


class GetCmapToColormaps(Transformer):
    """``cm.get_cmap(name)`` / ``matplotlib.cm.get_cmap(name)`` → ``matplotlib.colormaps[name]``,
    and ``plt.cm.get_cmap(name)`` → ``plt.get_cmap(name)`` (pyplot's survived).

    ``get_cmap(name, lut)`` → ``colormaps[name].resampled(lut)``; a name that is no string
    literal (it may be a Colormap) or none → ``colormaps.get_cmap(x)``. ``matplotlib``
    is the module's own alias of it, ``plt``'s ``get_cmap`` when only pyplot is imported,
    else ``import matplotlib`` is added. ``colormaps`` is matplotlib ≥ 3.5,
    ``.resampled`` and ``colormaps.get_cmap`` ≥ 3.6.
    """

    name = "matplotlib-get-cmap-to-colormaps"
    description = "cm.get_cmap(name) → matplotlib.colormaps[name]; plt.cm.get_cmap → plt.get_cmap"
    library = "matplotlib"
    reference = "Matplotlib 3.7.0 deprecated matplotlib.cm.get_cmap for matplotlib.colormaps[name]; removed in 3.9.0 (restored, deprecated, in 3.9.1): https://matplotlib.org/stable/api/prev_api_changes/api_changes_3.9.0.html"
    mentions = ("get_cmap",)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        qualified = self.qualified(original_node.func)
        if not qualified & {"matplotlib.cm.get_cmap", "matplotlib.pyplot.cm.get_cmap"}:
            return updated_node
        func = updated_node.func
        if "matplotlib.pyplot.cm.get_cmap" in qualified and (
            isinstance(func, cst.Attribute) and isinstance(func.value, cst.Attribute)
        ):
            return updated_node.with_changes(func=func.with_changes(value=func.value.value))
        if has_star(updated_node) or not keywords(updated_node) <= {"name", "lut"}:
            self.warn("get_cmap with other arguments: left alone")
            return updated_node
        args = positional(updated_node)
        name = args[0] if args else keyword(updated_node, "name")
        lut = args[1] if len(args) > 1 else keyword(updated_node, "lut")
        matplotlib = self._matplotlib()
        if matplotlib is None:
            pyplot = self._module_aliases.get("matplotlib.pyplot")
            if pyplot is None:
                self.warn("get_cmap: the name matplotlib is taken here; left alone")
                return updated_node
            return updated_node.with_changes(
                func=cst.Attribute(cst.Name(pyplot), cst.Name("get_cmap"))
            )
        colormaps = cst.Attribute(matplotlib, cst.Name("colormaps"))
        new: cst.BaseExpression
        if name is not None and string_value(name.value) is not None:
            new = cst.Subscript(colormaps, [cst.SubscriptElement(cst.Index(name.value))])
        else:
            arg = [cst.Arg(name.value)] if name is not None else []
            new = cst.Call(cst.Attribute(colormaps, cst.Name("get_cmap")), arg)
        if lut is not None:
            new = cst.Call(cst.Attribute(new, cst.Name("resampled")), [cst.Arg(lut.value)])
        return new

    def _matplotlib(self) -> cst.BaseExpression | None:
        alias = self._module_aliases.get("matplotlib")
        if alias is not None:
            return cst.Name(alias)
        if "matplotlib.pyplot" in self._module_aliases or self.is_bound("matplotlib"):
            return None  # plt.get_cmap then
        self.add_needed_import("matplotlib")
        return cst.Name("matplotlib")


# -- TensorFlow / Keras --------------------------------------------------------------

_OPTIMIZERS = frozenset(
    {"SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "Nadam", "Ftrl"}
)
_OPTIMIZER_MODULES = frozenset(
    {
        "tensorflow.keras.optimizers",
        "tensorflow.keras.optimizers.legacy",
        "tensorflow.optimizers",
        "keras.optimizers",
        "keras.optimizers.legacy",
    }
)


class OptimizerLrKeyword(Transformer):
    """``tf.keras.optimizers.Adam(lr=0.01)`` → ``Adam(learning_rate=0.01)``, for Keras'
    optimizers only (``torch.optim.SGD(lr=...)`` is right as it is). ``decay=`` has no
    drop-in replacement (a learning-rate schedule): reported."""

    name = "tensorflow-optimizer-lr-keyword"
    description = "tf.keras.optimizers.X(lr=...) → X(learning_rate=...)"
    library = "tensorflow"
    reference = f"TensorFlow 2.11.0 release notes: the new Keras optimizers take learning_rate only (lr was a deprecated alias): {_TF}/tag/v2.11.0"
    mentions = ("lr", "decay")

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if not any(
            module in _OPTIMIZER_MODULES and name in _OPTIMIZERS
            for module, _, name in (q.rpartition(".") for q in self.qualified(original_node.func))
        ):
            return updated_node
        if keyword(updated_node, "decay") is not None:
            self.warn(
                "optimizer(decay=...) has no drop-in replacement: use a tf.keras.optimizers.schedules schedule"
            )
        lr = keyword(updated_node, "lr")
        if lr is None or "learning_rate" in keywords(updated_node):
            return updated_node
        new = lr.with_changes(keyword=cst.Name("learning_rate"))
        return updated_node.with_changes(args=[new if a is lr else a for a in updated_node.args])


_OPTIMIZER_NAME = re.compile(r"^(?:opt\w*|optimizer)$")
_TENSORFLOW = re.compile(r"\b(?:tf|tensorflow|keras)\b")


class OptimizerLrAttribute(Transformer):
    """``opt.lr`` / ``model.optimizer.lr`` → ``.learning_rate``.

    Taken as a Keras optimizer only in a source that mentions TensorFlow or Keras, on a
    receiver named ``opt...``/``optimizer`` or ``<x>.optimizer``.
    """

    name = "tensorflow-optimizer-lr-attribute"
    description = "optimizer.lr → optimizer.learning_rate"
    library = "tensorflow"
    reference = f"TensorFlow 2.16.1 release notes (Keras 3): optimizers have learning_rate, no lr alias: {_TF}/tag/v2.16.1"
    mentions = (".lr",)

    _keras: bool = False

    def visit_Module(self, node: cst.Module) -> bool:
        self._keras = bool(_TENSORFLOW.search(node.code))
        return super().visit_Module(node)

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        if not self._keras or original_node.attr.value != "lr":
            return updated_node
        receiver = original_node.value
        named = isinstance(receiver, cst.Name) and _OPTIMIZER_NAME.match(receiver.value)
        owned = isinstance(receiver, cst.Attribute) and receiver.attr.value == "optimizer"
        if not (named or owned):
            return updated_node
        return updated_node.with_changes(attr=cst.Name("learning_rate"))

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        """``tf.keras.backend.set_value(opt.lr, x)`` → ``opt.learning_rate.assign(x)``:
        Keras 3's backend has no ``set_value`` for a variable; a variable's ``assign``
        works in Keras 2 and 3 alike."""
        func = get_full_name_for_node(original_node.func) or ""
        if not self._keras or not (func.endswith("backend.set_value") or func == "K.set_value"):
            return updated_node
        args = positional(updated_node)
        if len(args) != 2 or len(updated_node.args) != 2:
            return updated_node
        target = args[0].value
        if not (isinstance(target, cst.Attribute) and target.attr.value == "learning_rate"):
            return updated_node
        original_target = positional(original_node)[0].value
        if isinstance(original_target, cst.Attribute) and original_target.attr.value != "lr":
            return updated_node  # set_value(opt.learning_rate, x) works as it is
        assign = cst.Attribute(target, cst.Name("assign"))
        return cst.Call(assign, [args[1].with_changes(comma=cst.MaybeSentinel.DEFAULT)])


class KerasMovedNames(MovedNames):
    """``tf.keras.layers.experimental.preprocessing.X`` → ``tf.keras.layers.X`` and
    ``tf.keras.experimental.CosineDecay`` → ``tf.keras.optimizers.schedules.CosineDecay``
    (through ``tf.``, ``keras.`` or a ``from ... import``)."""

    name = "tensorflow-keras-moved-names"
    description = "tf.keras.layers.experimental.preprocessing.X / tf.keras.experimental.CosineDecay → their stable homes"
    library = "tensorflow"
    reference = f"TensorFlow 2.16.1 release notes (Keras 3): the experimental aliases are gone: {_TF}/tag/v2.16.1"
    mentions = ("experimental",)
    moves: ClassVar[dict[str, str]] = {
        "tensorflow.keras.layers.experimental.preprocessing.": "tensorflow.keras.layers.",
        "keras.layers.experimental.preprocessing.": "keras.layers.",
        **{
            f"{keras}.experimental.{schedule}": f"{keras}.optimizers.schedules.{schedule}"
            for keras in ("tensorflow.keras", "keras")
            for schedule in ("CosineDecay", "CosineDecayRestarts")
        },
    }


class FitGenerator(Transformer):
    """``model.fit_generator(gen, 10, 2)`` → ``model.fit(gen, steps_per_epoch=10, epochs=2)``;
    ``evaluate_generator`` / ``predict_generator`` alike, with ``verbose=0``, their old
    default, unless given. Arguments after the generator are named (``fit``'s second
    parameter is ``y``). ``workers``/``use_multiprocessing``/``max_queue_size`` are kept:
    ``fit`` takes them up to TensorFlow 2.15.
    """

    name = "tensorflow-fit-generator"
    description = (
        "Model.fit_generator / evaluate_generator / predict_generator → fit / evaluate / predict"
    )
    library = "tensorflow"
    reference = f"TensorFlow 2.1.0 deprecated Model.fit_generator and co. (fit takes generators); Keras 3 (TensorFlow 2.16.1) removed them: {_TF}/tag/v2.16.1"

    mentions = ("_generator",)
    _COMMON = ("callbacks", "max_queue_size", "workers", "use_multiprocessing", "verbose")
    _PARAMETERS: ClassVar[dict[str, tuple[str, ...]]] = {
        "fit_generator": (
            "steps_per_epoch",
            "epochs",
            "verbose",
            "callbacks",
            "validation_data",
            "validation_steps",
            "validation_freq",
            "class_weight",
            "max_queue_size",
            "workers",
            "use_multiprocessing",
            "shuffle",
            "initial_epoch",
        ),
        "evaluate_generator": ("steps", *_COMMON),
        "predict_generator": ("steps", *_COMMON),
    }

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        old = method_name(updated_node)
        if old not in self._PARAMETERS or has_star(updated_node):
            return updated_node
        parameters = self._PARAMETERS[old]
        extra = positional(updated_node)[1:]
        if len(extra) > len(parameters):
            return updated_node
        names = dict(zip(map(id, extra), parameters, strict=False))
        args = [
            as_keyword(a, names[id(a)])
            if id(a) in names
            else as_keyword(a, "x")
            if a.keyword is not None and a.keyword.value == "generator"
            else a
            for a in updated_node.args
        ]
        verbose = "verbose" in keywords(updated_node) or "verbose" in names.values()
        if old != "fit_generator" and not verbose:
            args = appended(args, kwarg("verbose", cst.Integer("0")))
        assert isinstance(updated_node.func, cst.Attribute)
        new = old.removesuffix("_generator")
        return updated_node.with_changes(
            func=updated_node.func.with_changes(attr=cst.Name(new)), args=args
        )


class _RenamedKeyword(Transformer):
    """A keyword argument renamed in the calls whose callee ends ``callees``: ``old`` →
    ``new``, unless the call gives ``new`` already (then it is left alone, with a note)."""

    callees: ClassVar[tuple[str, ...]]
    old: ClassVar[str]
    new: ClassVar[str]

    def wanted(self, original: cst.Call) -> bool:
        return (method_name(original) or getattr(original.func, "value", "")) in self.callees

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        found = keyword(updated_node, self.old)
        if found is None or not self.wanted(original_node):
            return updated_node
        if self.new in keywords(updated_node):
            self.warn(f"both {self.old}= and {self.new}= given: left alone")
            return updated_node
        renamed = found.with_changes(keyword=cst.Name(self.new))
        return updated_node.with_changes(
            args=[renamed if a is found else a for a in updated_node.args]
        )


class OneHotSparseOutput(_RenamedKeyword):
    """``OneHotEncoder(sparse=False)`` → ``OneHotEncoder(sparse_output=False)``: renamed in
    scikit-learn 1.2, the old name removed in 1.4. The same value means the same thing."""

    name = "sklearn-onehot-sparse-output"
    description = "OneHotEncoder(sparse=) → OneHotEncoder(sparse_output=)"
    library = "scikit-learn"
    reference = "scikit-learn 1.2 release notes: OneHotEncoder's sparse renamed sparse_output (sparse removed in 1.4): https://scikit-learn.org/stable/whats_new/v1.2.html"
    mentions = ("sparse",)
    callees = ("OneHotEncoder",)
    old, new = "sparse", "sparse_output"

    def wanted(self, original: cst.Call) -> bool:
        return any(q.endswith(".OneHotEncoder") for q in self.qualified(original.func)) or (
            isinstance(original.func, cst.Name) and original.func.value == "OneHotEncoder"
        )


class BoxplotTickLabels(_RenamedKeyword):
    """``ax.boxplot(data, labels=names)`` → ``ax.boxplot(data, tick_labels=names)``:
    renamed in Matplotlib 3.9, the old name removed in 3.11.

    ``tick_labels`` is not understood before 3.9. The portable form, for code that must
    run on both, names the ticks after drawing: ``ax.boxplot(data)`` then
    ``ax.set_xticklabels(names)`` (``set_yticklabels`` with ``vert=False``;
    ``plt.gca()`` for ``plt.boxplot``), which draws the same figure, pixel for pixel,
    with the same tick texts, from Matplotlib 3.5 to 3.11 (the formatter is a
    ``FuncFormatter`` where ``labels=`` made a ``FixedFormatter``). Only for a call that
    is a whole statement or an assignment's value, whose ``vert`` is a literal and that
    does not turn ``manage_ticks`` off; any other gets ``tick_labels``, and a note.
    """

    name = "matplotlib-boxplot-tick-labels"
    description = "boxplot(labels=) → boxplot(tick_labels=)"
    library = "matplotlib"
    reference = "Matplotlib 3.9.0 API changes: boxplot's labels renamed tick_labels (removed in 3.11): https://matplotlib.org/stable/api/prev_api_changes/api_changes_3.9.0.html"
    mentions = ("boxplot",)
    callees = ("boxplot",)
    old, new = "labels", "tick_labels"
    introduced = "3.9.0"

    # statement lines (of the original tree) → the line that names their ticks
    _after: dict[cst.SimpleStatementLine, cst.SimpleStatementLine]

    def visit_Module(self, node: cst.Module) -> bool:
        self._after = {}
        return super().visit_Module(node)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if self.portable and self.wanted(original_node):
            found = keyword(updated_node, self.old)
            line = self._line(original_node)
            if found is not None and line is not None:
                ticks = self._ticks(original_node, found)
                if ticks is not None:
                    self._after[line] = ticks
                    return updated_node.with_changes(args=without(updated_node.args, found))
            if found is not None:
                self.warn(
                    "boxplot(labels=) inside an expression, or with vert/manage_ticks:"
                    " tick_labels, no portable form"
                )
        return super().leave_Call(original_node, updated_node)

    def _line(self, call: cst.Call) -> cst.SimpleStatementLine | None:
        """The statement line ``call`` is the whole of (or the assigned value of)."""
        small = self.parent(call)
        if not isinstance(small, (cst.Expr, cst.Assign)):
            return None
        line = self.parent(small)
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
            return line
        return None

    def _ticks(self, call: cst.Call, labels: cst.Arg) -> cst.SimpleStatementLine | None:
        """``<axes>.set_xticklabels(<labels>)`` for the boxplot ``call``; None when the
        ticks are not its to name (or not on a known axis)."""
        vert = keyword(call, "vert")
        manage = keyword(call, "manage_ticks")
        vertical = True if vert is None else literal(vert.value)
        if vertical not in (True, False) or "orientation" in keywords(call) or has_star(call):
            return None
        if manage is not None and literal(manage.value) is not True:
            return None
        if not isinstance(call.func, cst.Attribute):
            return None
        code = cst.Module([]).code_for_node
        receiver = code(call.func.value)
        if self.refers_to(call.func.value, "matplotlib.pyplot"):
            receiver += ".gca()"
        axis = "x" if vertical else "y"
        line = cst.parse_statement(f"{receiver}.set_{axis}ticklabels({code(labels.value)})\n")
        return line if isinstance(line, cst.SimpleStatementLine) else None

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        ticks = self._after.get(original_node)
        if ticks is None:
            return updated_node
        return cst.FlattenSentinel([updated_node, ticks])
