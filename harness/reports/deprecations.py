"""Which deprecated or removed APIs each model reaches for, with the evidence per API and
the knowledge date they give: a Markdown section and a chart."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.analysis.deprecations import ModelApis

SHOWN = 12  # APIs per model in the tables and the chart


def _ids(ids: Sequence[str], limit: int = 4) -> str:
    shown = ", ".join(f"`{i}`" for i in ids[:limit])
    return shown + (f" +{len(ids) - limit}" if len(ids) > limit else "") if ids else "–"


def _day(m: ModelApis) -> str:
    if m.date is None:
        return "–"
    interval = f" (95%: {m.low} … {m.high})" if m.low and m.high else ""
    return f"{m.date.isoformat()}{interval}"


def sentence(m: ModelApis) -> str:
    """What the model's answers say of its APIs, in one sentence."""
    if not m.answers:
        return f"`{m.model}`: no answers."
    stale = len(m.stale_answers)
    worst = [a for a in m.apis if a.stale][:2]
    named = " and ".join(f"`{a.old.split(' / ')[0]}`" for a in worst)
    most = f", most often {named}" if named else ""
    newest = f"; the newest API change it knows is {m.newest}" if m.newest else ""
    dated = f"; the APIs date its knowledge to {_day(m)}" if m.date else ""
    return (
        f"`{m.model}`: {stale} of its {m.answers} answers ({stale / m.answers:.0%}) reach for "
        f"a deprecated or removed API{most}{newest}{dated}."
    )


def markdown(found: Sequence[ModelApis], heading: str = "##") -> list[str]:
    """The section of summary.md: per model, the knowledge date the APIs give, the newest
    API change it knows, and the deprecated or removed APIs it reaches for."""
    if not found:
        return []
    out = [
        f"{heading} Deprecated APIs the models reach for",
        "",
        (
            "Every answer, joined with the catalogue of API changes: its code uses the old API "
            "(**uses**), an execution warned about it (**warned**), it failed where the API was "
            "already removed (**failed**), or its code uses a recent new API (**knows**). The "
            "knowledge date is the day the most of these are right on: a new API is known from "
            "the release that introduced it, an old one used as if before the release that "
            "removed it."
        ),
        "",
        "| model | answers | reaching for an old API | newest API change it knows | knowledge date from the APIs |",
        "| --- | ---: | ---: | --- | --- |",
    ]
    for m in found:
        share = (
            f"{len(m.stale_answers)} ({len(m.stale_answers) / m.answers:.0%})" if m.answers else "0"
        )
        out.append(f"| `{m.model}` | {m.answers} | {share} | {m.newest or '–'} | {_day(m)} |")
    for m in found:
        if not m.apis:
            continue
        out += [
            "",
            f"{heading}# `{m.model}`",
            "",
            "| library | old → new | deprecated | removed | uses | warned | failed | knows | problems |",
            "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- |",
        ]
        for a in m.apis[:SHOWN]:
            cells = [
                a.library,
                f"{a.old} → {a.new}".replace("|", "\\|")[:110],
                a.deprecated or "–",
                a.removed or "–",
                str(len(a.uses)),
                str(len(a.warned)),
                str(len(a.failed)),
                str(len(a.knows)),
                _ids(a.stale or a.knows),
            ]
            out.append("| " + " | ".join(cells) + " |")
        if len(m.apis) > SHOWN:
            out.append(f"\n{len(m.apis) - SHOWN} more in `deprecations.json`.")
    return out


def figure_svg(found: Sequence[ModelApis]) -> str:
    """Per model, the old APIs its answers reach for most (answers, by evidence), as SVG."""
    shown = [m for m in found if any(a.stale for a in m.apis)]
    if not shown:
        return ""
    import matplotlib as mpl  # noqa: PLC0415 - Matplotlib loads in a second: only here

    mpl.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, axes = plt.subplots(
        1, len(shown), figsize=(4.2 * len(shown), 3.2), squeeze=False, sharex=False
    )
    for ax, m in zip(axes[0], shown, strict=True):
        apis = [a for a in m.apis if a.stale][:8][::-1]
        names = [f"{a.library}: {a.old.split(' / ')[0][:28]}" for a in apis]
        ax.barh(names, [len(a.stale) for a in apis], color="#c0392b")
        ax.barh(names, [len(a.failed) for a in apis], color="#7b241c", label="failed")
        ax.set_title(f"{m.model}", fontsize=9)
        ax.set_xlabel("answers reaching for the old API", fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0][0].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]
