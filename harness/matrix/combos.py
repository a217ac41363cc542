"""Axis expansion and combo ids: the pure combinatorics behind ``[axes.*]`` tables.

Kept free of the spec's dataclasses so it can be tested as plain data: an axis is a
mapping of key → candidate values, a combination is a mapping of key → one value.
"""

from __future__ import annotations

import fnmatch
import itertools
import re
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

ID_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_ID_LENGTH = 80

# Short spellings keep generated ids readable: ``grid-py311-np2-1-3-pd2-2-3``.
_ABBREVIATIONS = {
    "python": "py",
    "numpy": "np",
    "pandas": "pd",
    "scipy": "sp",
    "scikit-learn": "skl",
    "matplotlib": "mpl",
    "torch": "torch",
    "tensorflow": "tf",
    "as_of": "asof",
}


def expand(
    axes: Mapping[str, Sequence[str]],
    include: Iterable[Mapping[str, str]] = (),
    exclude: Iterable[Mapping[str, str]] = (),
) -> list[dict[str, str]]:
    """Cartesian product of ``axes`` minus ``exclude`` matches, plus ``include`` entries.

    Order is stable (the product's order, then includes), and duplicates introduced
    by an include that the product already has are dropped.
    """
    keys = list(axes)
    rules = [dict(rule) for rule in exclude]
    out: list[dict[str, str]] = []
    for values in itertools.product(*(axes[k] for k in keys)):
        combo = dict(zip(keys, values, strict=True))
        if not any(all(combo.get(k) == v for k, v in rule.items()) for rule in rules):
            out.append(combo)
    for extra in include:
        entry = dict(extra)
        if entry not in out:
            out.append(entry)
    return out


def slug(text: str) -> str:
    """``text`` folded to ``[a-z0-9-]``: dots, plus signs and the like become dashes."""
    folded = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return folded or "x"


def make_id(prefix: str, combo: Mapping[str, str], varying: Iterable[str]) -> str:
    """An id naming only the keys that vary across the axis, so ids stay short."""
    parts = [prefix]
    for key in varying:
        if key in combo:
            short = _ABBREVIATIONS.get(key, key)
            value = combo[key].replace("python", "")
            parts.append(slug(f"{short}{value}" if value[:1].isdigit() else f"{short}-{value}"))
    return "-".join(slug(p) for p in parts)


class HasId(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def tags(self) -> tuple[str, ...]: ...


T = TypeVar("T", bound=HasId)


def select(
    combos: Sequence[T],
    names: Sequence[str] = (),
    keyword: str | None = None,
    tags: Sequence[str] = (),
) -> list[T]:
    """Combos matching any of ``names`` (ids or globs), containing ``keyword``, with any tag.

    Each filter given narrows the selection; none given selects everything.
    """
    chosen = list(combos)
    if names:
        chosen = [c for c in chosen if any(fnmatch.fnmatchcase(c.id, n) for n in names)]
    if keyword:
        chosen = [c for c in chosen if keyword in c.id]
    if tags:
        chosen = [c for c in chosen if set(tags) & set(c.tags)]
    return chosen
