"""The trends across nights, drawn and tabled: pass, stale and holding rates per night."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.analysis.trends import Series, Trends

# how the kinds of series are named in tables and legends
LABELS = {
    "holds": "references holding",
    "pass": "pass rate",
    "stale": "stale rate",
}


def label(s: Series) -> str:
    return f"{s.subject} · {LABELS.get(s.kind, s.kind)} · {s.combo}"


def night_label(trends: Trends, i: int) -> str:
    """A night's column title: its start date when every night has its own, else its
    run id (several runs of one day)."""
    days = [s[:10] for s in trends.started]
    if len(days) == len(trends.nights) and all(days) and len(set(days)) == len(days):
        return days[i]
    return trends.nights[i]


def cell(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def figure_svg(trends: Trends) -> str:
    """The series as SVG text, for report.html: references holding and models' pass rates
    on the left, models' stale rates on the right; one point per night."""
    if len(trends.nights) < 2 or not trends.series:
        return ""  # one night is a table, not a trend
    # imported here: a second of start-up only reports with trends pay
    from matplotlib.figure import Figure  # noqa: PLC0415

    fig = Figure(figsize=(9, 3.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    x = list(range(len(trends.nights)))
    for s in trends.series:
        ax = right if s.kind == "stale" else left
        y = [100 * v if v is not None else float("nan") for v in s.values]
        style = "-" if s.kind == "holds" else "--"
        ax.plot(x, y, style, marker="o", ms=3, label=f"{s.subject} · {s.combo}")
    ticks = [night_label(trends, i) for i in x]
    for ax, title in ((left, "% passing (solid: references)"), (right, "% stale (models)")):
        ax.set_xticks(x, ticks, rotation=30, ha="right", fontsize=7)
        ax.set_ylim(0, 100 if ax is left else None)
        ax.grid(alpha=0.3)
        ax.set_title(title, fontsize=9)
        if ax.get_lines():
            ax.legend(fontsize=6, loc="best")
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    text = buffer.getvalue()
    return text[text.index("<svg") :]
