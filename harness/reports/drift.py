"""The drifted problems' table as both renderers show it: its columns, and the cell of the
library versions that moved between a drift's last passing combo and its first failing
one. The rows are ``harness.analysis.drift.DriftRow``s, computed once by the summary."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.libraries import LIBRARIES

if TYPE_CHECKING:
    from harness.analysis.drift import DriftRow

COLUMNS = (
    "problem",
    "library",
    "class",
    "pass → fail",
    "error",
    "cause",
    "symbol",
    "broke in",
    "responsible",
    "first bad release",
    "earlier warning",
    "changed",
)

# The heading of the drifts whose every failure is a changed printed output (format drift).
FORMAT_TITLE = "Output-format drift: the printed output changed, its values did not"


def changed(row: DriftRow) -> str:
    """The problem's own library first; the other changes only counted."""
    keys = {lib.key for lib in LIBRARIES} & set(row.changed)
    own = row.library
    parts = [f"{own} {row.changed[own][0]}→{row.changed[own][1]}"] if own in keys else []
    others = len(keys - {own})
    if others:
        parts.append(f"+{others} other{'s' if others > 1 else ''}")
    return ", ".join(parts) or "none"


def first_bad_release(row: DriftRow) -> str:
    """``pandas 2.0.0``: the release a bisection found, or "–"."""
    f = row.finding
    return f"{f.library} {f.first_bad}" if f and f.first_bad else "–"
