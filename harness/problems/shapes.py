"""The shape of a line of an answers file, told by its keys: each benchmark declares how
its upstream writes model answers (``Benchmark.shapes``); a user points ``--answers`` at
what those tools wrote, unconverted. A file made by one upstream has one shape; a file of
one model's answers to several benchmarks may mix them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.benchmarks import registry
from harness.benchmarks.base import Read, Shape, ShapeError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["Read", "Shape", "ShapeError", "shape_of"]


def shape_of(row: Mapping[str, Any]) -> Shape:
    """The shape of one line: the first that claims it, else the first it fits, else
    the fallback's (which names the field the line lacks)."""
    shapes = registry.shapes()
    return next(
        (s for s in shapes if s.claims(row)),
        next((s for s in shapes if s.fits(row)), next(s for s in shapes if s.fallback)),
    )
