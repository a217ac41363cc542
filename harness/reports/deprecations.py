"""Which deprecated or removed APIs each model reaches for, with the evidence per API and
the knowledge date they give: a Markdown section and a chart."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from harness.reports.knowledge import dated, informative, spanned

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.analysis.deprecations import ModelApis

SHOWN = 12  # APIs per model in the tables and the chart
CHART_NOTE = (
    "The old APIs each model's answers reach for most, in their own code: answers whose code "
    "uses it, whose run warned about it pointing at the answer's code, or that failed where "
    "it was already removed (dark)."
)


def _ids(ids: Sequence[str], limit: int = 4) -> str:
    shown = ", ".join(f"`{i}`" for i in ids[:limit])
    return shown + (f" +{len(ids) - limit}" if len(ids) > limit else "") if ids else "–"


def points_at(origin: str) -> str:
    """Whose code a warning points at, in words."""
    named = {"<solution>": "the solution's code", "<context>": "the problem's code"}
    if not origin:
        return "not recorded"
    return named.get(origin, f"inside `{origin}`" if not origin.startswith("<") else origin)


def sentence(m: ModelApis) -> str:
    """What the model's answers say of its APIs, in one sentence."""
    if not m.answers:
        return f"`{m.model}`: no answers."
    stale = len(m.stale_answers)
    worst = [a for a in m.apis if a.stale][:2]
    named = " and ".join(f"`{a.old.split(' / ')[0]}`" for a in worst)
    most = f", most often {named}" if named else ""
    newest = f"; the newest API change it knows is {m.newest}" if m.newest else ""
    return (
        f"`{m.model}`: {stale} of its {m.answers} answers ({stale / m.answers:.0%}) reach for "
        f"a deprecated or removed API in their own code{most}{newest}; its knowledge date: "
        f"{dated(m.dating, detail=True)}."
    )


def environment(m: ModelApis) -> str:
    """The warnings about old APIs its runs raised from inside a library, not counted."""
    apis = [a for a in m.apis if a.environment]
    if not apis:
        return ""
    answers = len({p for a in apis for p in a.environment})
    named = ", ".join(f"`{a.old.split(' / ')[0]}` ({len(a.environment)})" for a in apis[:4])
    more = f" and {len(apis) - 4} more" if len(apis) > 4 else ""
    return (
        f"`{m.model}`: not counted, the runs of {answers} answers warned about an old API "
        f"from inside a library, not from the answer's code: {named}{more} (the "
        "environment's, under the combo's warnings)."
    )


INTRO = (
    "Every answer, joined with the catalogue of API changes, on its own code: its code uses "
    "the old API (**uses**, the catalogue's patterns on its syntax tree), an execution warned "
    "about it pointing at the answer's code (**warned**), it failed where the API was already "
    "removed (**failed**), or its code uses a recent new API (**knows**). A warning raised "
    "from inside a library about what the library calls (**environment**) is not the "
    "model's: it is under the combo's warnings. The knowledge date: no earlier than the "
    "newest API change an answer knows; bounded above only where the answers that meet "
    "newer changes keep the old API beyond chance (an exact test, each change counted "
    "once); otherwise a labelled lower bound, up to the newest change the answers meet, "
    "past which they cannot date. An answer is informative when it meets a change whose "
    "new API is dated."
)
EVIDENCE_NOTE = (
    "Where the evidence lives: per model and problem set, the answers that meet an API "
    "change whose new API is dated, the changes they meet (and show), the releases those "
    "span, and what they date. A set whose problems invite no newer API cannot date a "
    "model past its newest change."
)
EVIDENCE_COLUMNS = (
    "model",
    "problem set",
    "answers",
    "informative",
    "changes met (shown)",
    "releases they span",
    "knowledge date",
)
ENVIRONMENT_NOTE = (
    "A warning that points inside a library (about what the library itself calls) is the "
    "environment's: it breaks there whatever answer runs, and counts against no model. "
    "Where a run did not record where a warning points, it is told by who issued it."
)


def evidence_rows(found: Sequence[ModelApis]) -> list[list[str]]:
    """Per model and problem set, :data:`EVIDENCE_COLUMNS` as plain text."""
    return [
        [
            m.model,
            name or "–",
            str(d.answers),
            str(d.informative),
            f"{d.changes} ({d.shown})",
            spanned(d),
            dated(d, detail=True),
        ]
        for m in found
        for name, d in m.sets.items()
    ]


def left(found: Sequence[ModelApis]) -> list[str]:
    """What was not counted against each model: :func:`environment`, where any."""
    return [line for m in found if (line := environment(m))]


def markdown(found: Sequence[ModelApis], heading: str = "##") -> list[str]:
    """The section of summary.md: per model, the knowledge date the APIs give (and per
    problem set, where the evidence lives), the newest API change it knows, and the
    deprecated or removed APIs it reaches for."""
    if not found:
        return []
    out = [
        f"{heading} Deprecated APIs the models reach for",
        "",
        INTRO,
        "",
        "| model | answers | reaching for an old API | newest API change it knows | knowledge date | informative answers |",
        "| --- | ---: | ---: | --- | --- | ---: |",
    ]
    for m in found:
        share = (
            f"{len(m.stale_answers)} ({len(m.stale_answers) / m.answers:.0%})" if m.answers else "0"
        )
        out.append(
            f"| `{m.model}` | {m.answers} | {share} | {m.newest or '–'} | {dated(m.dating)} "
            f"| {informative(m.dating)} |"
        )
    out += ["", f"{heading}# Where the evidence lives", "", EVIDENCE_NOTE, ""]
    out += [
        "| " + " | ".join(EVIDENCE_COLUMNS) + " |",
        "| --- | --- | ---: | ---: | ---: | --- | --- |",
    ]
    out += [f"| `{r[0]}` | " + " | ".join(r[1:]) + " |" for r in evidence_rows(found)]
    out += ["", *(f"- {line}" for line in left(found))] if left(found) else []
    for m in found:
        out += _apis_table(m, heading)
    return out


def _apis_table(m: ModelApis, heading: str) -> list[str]:
    """One model's old APIs, with the evidence of each (most stale answers first)."""
    if not m.apis:
        return []
    out = [
        "",
        f"{heading}# `{m.model}`",
        "",
        "| library | old → new | deprecated | removed | uses | warned | failed | knows | environment | problems |",
        "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
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
            str(len(a.environment)),
            _ids(a.stale or a.knows or a.environment),
        ]
        out.append("| " + " | ".join(cells) + " |")
    if len(m.apis) > SHOWN:
        out.append(f"\n{len(m.apis) - SHOWN} more in `deprecations.json`.")
    return out


def figure_svg(found: Sequence[ModelApis]) -> str:
    """Per model, the old APIs its answers reach for most (answers, by evidence), as SVG."""
    shown = [m for m in found if any(a.stale for a in m.apis)]
    if not shown:
        return ""  # the environment's warnings are no model's: not charted
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
