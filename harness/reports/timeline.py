"""The timeline of a run whose combos carry dates: each model's API vintage, the
references' decay, and their curves as pictures.

A run has a timeline when at least two of its combos were resolved as the index was on
a date (``[timeline.*]`` tables, or combos with ``as_of``). The curves are drawn with
Matplotlib: its SVG goes inline into ``report.html``, which stays one self-contained,
offline file, and the same figure is written as ``timeline.png`` and ``timeline.svg``
beside it.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from harness.core.problem import MODEL_PREFIX

if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Iterable
    from pathlib import Path

    from harness.analysis.vintage import (
        Decay,
        Timeline,
    )


def figure_svg(timeline: Timeline, png: Path | None = None, svg: Path | None = None) -> str:
    """The curves as SVG text (written to ``svg`` and as PNG to ``png`` when given)."""
    # imported here: a second of start-up that only a run with a timeline pays
    from matplotlib import dates as mdates  # noqa: PLC0415
    from matplotlib.figure import Figure  # noqa: PLC0415

    def date2num(day: dt.date) -> float:
        return float(mdates.date2num(day))  # type: ignore[no-untyped-call]

    fig = Figure(figsize=(8, 4.2), layout="constrained")
    ax = fig.add_subplot()
    days = [date2num(d) for d in timeline.days]
    locator = mdates.AutoDateLocator()  # type: ignore[no-untyped-call]
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]

    def rates(curve: Iterable[Any]) -> list[float]:
        return [100 * p.rate if p.rate is not None else float("nan") for p in curve]

    ax.plot(days, rates(timeline.references.curve), "k-", lw=2.5, label="references pass")
    for v in timeline.models:
        (line,) = ax.plot(
            days, rates(v.curve), marker="o", ms=3, label=v.source.removeprefix(MODEL_PREFIX)
        )
        if v.best is not None:
            ax.axvline(date2num(v.best), color=line.get_color(), ls=":", lw=1)
            if v.low is not None and v.high is not None and v.low != v.high:
                low, high = (date2num(d) for d in (v.low, v.high))
                ax.axvspan(low, high, color=line.get_color(), alpha=0.08)
    ax.set_ylabel("% passing (answers: where the reference holds)")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title("Pass rate by the libraries' date; dotted: each model's vintage")
    if png is not None:
        fig.savefig(png, dpi=120)
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    text = buffer.getvalue()
    if svg is not None:
        svg.write_text(text, encoding="utf-8")
    return text[text.index("<svg") :]  # without the XML prologue, to sit inside HTML


def half_life(d: Decay) -> str:
    if d.half_life_days is None:
        return "none within the timeline (nothing decays)" if d.anchor else "–"
    years = d.half_life_days / 365.25
    return f"{years:.1f} years" + (" (extrapolated)" if d.extrapolated else "")


def rows(timeline: Timeline) -> list[list[str]]:
    """The estimates' table: model, vintage, 95% interval, curve shape, best share."""
    out = []
    for v in timeline.models:
        top = max((p.rate for p in v.curve if p.rate is not None), default=None)
        out.append(
            [
                v.source.removeprefix(MODEL_PREFIX),
                v.best.isoformat() if v.best else "– (" + ", ".join(v.shape) + ")",
                f"{v.low.isoformat()} … {v.high.isoformat()}" if v.low and v.high else "–",
                ", ".join(v.shape),
                f"{100 * top:.1f}%" if top is not None else "–",
            ]
        )
    return out
