"""Which combos a command runs: the matrix file's combos chosen by id or glob, substring
and tag, and the nightly lanes when they are asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.core import defaults
from harness.core.errors import UsageError
from harness.core.text import split
from harness.matrix import spec
from harness.matrix.combos import select

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.matrix.spec import Combo, MatrixSpec


def select_combos(
    matrix: str | None,
    ids: Sequence[str] = (),
    keyword: str | None = None,
    tags: Sequence[str] = (),
    *,
    nightly: bool = False,
) -> tuple[MatrixSpec, list[Combo]]:
    """The matrix file ``matrix`` (None: the default, :func:`harness.core.defaults.matrix`) and its combos chosen by id or glob, substring and tag.

    The nightly lanes (``[nightly.lanes]``) are chosen only by name, or with ``nightly``:
    then the selection starts from what ``[nightly]`` declares, the combos it names and
    every lane."""
    loaded = spec.load(defaults.matrix(matrix))
    names = split(ids)
    pool: Sequence[Combo] = loaded.combos
    if nightly and not names:
        declared = loaded.nightly.combos
        pool = [*(select(loaded.combos, declared) if declared else loaded.combos), *loaded.lanes]
    elif names:
        pool = [*loaded.combos, *loaded.lanes]
    chosen = select(pool, names, keyword, tags)
    if not chosen:
        known = ", ".join(c.id for c in loaded.combos)
        if loaded.lanes:
            known += "; lanes: " + ", ".join(c.id for c in loaded.lanes)
        raise UsageError(f"no combo matches the selection (combos: {known})")
    return loaded, chosen


def describe(matrix: MatrixSpec, combos: Sequence[Combo]) -> list[dict[str, Any]]:
    """``harness combos --json``: each combo as it round-trips (``Combo.to_dict``), and
    whether it is the matrix's baseline."""
    return [{**c.to_dict(), "baseline": c.id == matrix.baseline} for c in combos]
