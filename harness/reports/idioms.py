"""How the reports show where each idiom holds: the columns both renderers share, and the
legend that says what a red cell means."""

from __future__ import annotations

# The columns both renderers share (each adds its own last one).
COLUMNS = (
    "problem",
    "library",
    "change",
    "old idiom: pass → fail",
    "cause",
    "changed (metadata)",
    "first bad release (bisected)",
    "as the change says",
    "modern idiom passes from",
)


LEGEND = (
    "Each problem of ours runs twice per combo: its reference (the modern idiom) and "
    "`idiom:old`. A red `idiom:old` cell after green ones is drift: the API change the "
    "problem names broke the old idiom there. A red `reference` cell before its first green "
    "one is not drift: the modern API did not exist yet in that release (e.g. red in the "
    "2022 column for the modern idiom)."
)
