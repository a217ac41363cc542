"""Repairs of code broken by library API changes: LibCST codemods, one per change.

    from harness.labs.repair import apply, diff
    rewrite = apply(code)                      # every API repair
    rewrite = apply(context, ["numpy2-legacy-print"])
    print(diff(code, rewrite.source, "answer.py"), rewrite.applied, rewrite.skipped)

Each codemod rewrites only what its change touches (formatting and comments stay) and
is named by the catalogue entries (``harness/data/catalogue.toml``) of the APIs it
repairs; see ``harness.labs.repair.codemods``. ``harness repair`` (``harness.app.repair``)
proposes, verifies and writes the repairs of a run's drifted problems.

The codemods are loaded on first use: LibCST takes half a second to import, and the
reports read ``harness.labs.repair.table`` on every run.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.labs.repair.codemods import (
        CODEMODS,
        DEFAULT,
        FOR_SOLUTIONS,
        Codemod,
        Rewrite,
        apply,
        diff,
    )

__all__ = ["CODEMODS", "DEFAULT", "FOR_SOLUTIONS", "Codemod", "Rewrite", "apply", "diff"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("harness.labs.repair.codemods"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
