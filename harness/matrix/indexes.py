"""Which index serves a package: ``indexes``, ``sources`` and ``torch_backend``.

In ``[matrix]`` (every combo) or in one combo (which adds to, and overrides, the matrix's)::

    indexes = { pytorch-cpu = "https://download.pytorch.org/whl/cpu" }
    sources = { torch = "pytorch-cpu" }   # a package → the index it comes from
    torch_backend = "cpu"                 # or: uv's own choice of PyTorch index

An index named here is *explicit* (uv's word): only the packages ``sources`` sends to it
come from it, so that the PyTorch index's copies of numpy or pillow are never picked over
PyPI's. ``torch_backend`` is uv's PyTorch backend selection (``--torch-backend``): torch and
its companions from the PyTorch index of that backend, whoever asks for them. A source
applies to the packages a combo asks for itself (its libraries and extras), as uv's
sources do. :mod:`harness.envs.sources` turns these into uv's project file and options.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from packaging.utils import canonicalize_name

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from harness.matrix.checks import Checks

KEYS = ("indexes", "sources", "torch_backend")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
# uv's --torch-backend values: auto, cpu, xpu, cu118…cu132, rocm6.3…
_BACKEND = re.compile(r"^(auto|cpu|xpu|cu\d{3}|rocm\d+(\.\d+)*)$")


@dataclass(frozen=True)
class Source:
    """A package (its normalized name) taken from one named index."""

    package: str
    index: str
    url: str

    def to_dict(self) -> dict[str, str]:
        return {"package": self.package, "index": self.index, "url": self.url}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Source:
        return cls(str(data["package"]), str(data["index"]), str(data["url"]))


@dataclass(frozen=True)
class Sourcing:
    """Where a combo's packages come from, beside the main index."""

    sources: tuple[Source, ...] = ()
    torch_backend: str | None = None


def read(
    checks: Checks,
    table: Mapping[str, Any],
    keys: Sequence[str],
    where: str,
    inherited: tuple[Mapping[str, str], Sourcing] = ({}, Sourcing()),
) -> tuple[dict[str, str], Sourcing]:
    """The named indexes and the sourcing ``table`` declares over ``inherited`` (the
    matrix's, for a combo); every mistake is recorded in ``checks``."""
    indexes = {**inherited[0]}
    if "indexes" in table:
        indexes |= _indexes(checks, table["indexes"], (*keys, "indexes"), f"{where}.indexes")
    chosen = {s.package: s for s in inherited[1].sources}
    declared: dict[str, Source] = {}
    if "sources" in table:
        at = ((*keys, "sources"), f"{where}.sources")
        for package, name in (checks.attempt(checks.table, table["sources"], *at) or {}).items():
            source = checks.attempt(_source, checks, package, name, indexes, *at)
            if source is not None:
                declared[source.package] = source
    backend = inherited[1].torch_backend
    if "torch_backend" in table:
        at = ((*keys, "torch_backend"), f"{where}.torch_backend")
        backend = checks.attempt(_backend, checks, table["torch_backend"], *at) or backend
        if "torch" in declared:
            message = "torch_backend and sources.torch both say where torch comes from: keep one"
            checks.record(checks.fail(*at, message))
        chosen.pop("torch", None)  # the nearer table's word on torch wins
    elif "torch" in declared:
        backend = None
    chosen |= declared
    return indexes, Sourcing(tuple(sorted(chosen.values(), key=lambda s: s.package)), backend)


def _indexes(checks: Checks, value: Any, keys: Sequence[str], what: str) -> dict[str, str]:
    out = {}
    for name, url in (checks.attempt(checks.table, value, keys, what) or {}).items():
        if not _NAME.match(name):
            checks.record(
                checks.fail(
                    keys, f"{what}.{name}", "an index name is letters, digits, '-', '_' and '.'"
                )
            )
            continue
        found = checks.attempt(checks.url, url, (*keys, name), f"{what}.{name}")
        if found is not None:
            out[name] = found
    return out


def _source(
    checks: Checks,
    package: str,
    name: Any,
    indexes: Mapping[str, str],
    keys: Sequence[str],
    what: str,
) -> Source:
    at = (*keys, package)
    checks.project(package, at, f"{what}.{package}")
    index = checks.string(name, at, f"{what}.{package}")
    if index not in indexes:
        known = ", ".join(indexes) or "none: declare it in indexes"
        raise checks.fail(at, f"{what}.{package}", f"no index {index!r} (indexes: {known})")
    return Source(canonicalize_name(package), index, indexes[index])


def _backend(checks: Checks, value: Any, keys: Sequence[str], what: str) -> str:
    text = checks.string(value, keys, what)
    if not _BACKEND.match(text):
        message = f"{text!r} is not a PyTorch backend uv knows (auto, cpu, xpu, cu126, rocm6.3, …)"
        raise checks.fail(keys, what, message)
    return text
