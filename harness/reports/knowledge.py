"""What each model knows of its libraries' versions, in words, a table and pictures:
the signed version errors of its answers and its version-knowledge date (``reach.md``,
``report.html``)."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from harness.analysis.dating import INTERVAL, LOWER

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from harness.analysis.dating import Dating
    from harness.analysis.knowledge import Knowledge
    from harness.analysis.ranges import Reach


CHART_NOTE = (
    "Signed version error of each answer, in releases: red left of 0 is written for older "
    "releases than the problem asks (stale), blue right of 0 for newer ones, green works "
    "where asked."
)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _answers(n: int) -> str:
    return f"{n} answer{'s' if n != 1 else ''}"


def informative(d: Dating) -> str:
    """``37 of 1000``: the answers that carry evidence, of those looked at."""
    return f"{d.informative} of {d.answers}"


def dated(d: Dating, *, detail: bool = False) -> str:
    """A knowledge date as the answers can tell it: an interval where the evidence bounds
    it on both sides, else a labelled bound, else "not dated"; the number of informative
    answers beside it. ``detail``: with the changes each end rests on."""
    carried = f"{informative(d)} answers informative"

    def change(name: str, answers: int = 0) -> str:
        shown = f", shown by {_answers(answers)}" if answers else ""
        return f" ({name}{shown})" if detail and name else ""

    if d.kind == INTERVAL:
        return (
            f"{d.low}{change(d.low_change, d.low_answers)} … before {d.high}"
            f"{change(d.high_change)} ({d.level:.0%} interval; {carried})"
        )
    if d.kind == LOWER:
        return (
            f"no earlier than {d.low}{change(d.low_change, d.low_answers)}: a lower bound, "
            f"these answers cannot date later than {d.ceiling}{change(d.ceiling_change)} "
            f"({carried})"
        )
    if d.informative:
        return f"not dated: no answer uses a dated new API ({carried})"
    return f"not dated: no answer meets a dated API change ({carried})"


def spanned(d: Dating) -> str:
    """The releases the informative answers met, oldest … newest (their days)."""
    if d.oldest is None or d.ceiling is None:
        return "–"
    if d.oldest_change == d.ceiling_change:
        return f"{d.oldest_change} ({d.oldest})"
    return f"{d.oldest_change} ({d.oldest}) … {d.ceiling_change} ({d.ceiling})"


def _by(k: Knowledge, side: Callable[[int], bool]) -> str:
    """`` (by a median of 2 releases)``: how far the answers on one side miss."""
    misses = sorted(abs(e) for e, n in k.errors.items() if side(e) for _ in range(n))
    if not misses:
        return ""
    median = misses[len(misses) // 2]
    return f" (by a median of {median} release{'s' if median != 1 else ''})"


def sentence(k: Knowledge) -> str:
    """How stale the source is and in which direction, in one sentence."""
    if not k.ranged:
        return f"`{k.model}`: none of its {k.answers} answers works on any release tried."
    stale, ahead = k.stale or 0.0, k.ahead or 0.0
    if stale > ahead:
        lean = f"{stale:.0%} of its answers are written for older releases than asked"
        lean += _by(k, lambda e: e < 0)
    elif ahead > stale:
        lean = f"{ahead:.0%} of its answers are written for newer releases than asked"
        lean += _by(k, lambda e: e > 0)
    else:
        lean = "its answers work at the releases asked for"
    return f"`{k.model}`: {lean}; its version-knowledge date: {dated(k.dating, detail=True)}."


def markdown(known: Sequence[Knowledge], found: Sequence[Reach], *, per_answer: bool = True) -> str:
    """The section of ``reach.md`` on the models' answers (empty when none was ranged);
    ``per_answer``: with the table of every answer's range (summary.md leaves it to
    reach.md)."""
    if not known:
        return ""
    out = [
        "",
        "## What the models know",
        "",
        (
            "Each answer was run over its library's releases (the problem's other pins held): "
            "its **signed version error** is 0 when it works at the release the problem asks "
            "for, negative when it is written for older releases (stale), positive for newer "
            "ones, in releases. The **version-knowledge date**: no earlier than the newest "
            "release whose change an answer needs (it fails before it), and bounded above "
            "only where answers that stop working at newer releases show, beyond chance, "
            "that the model did not know them; else a lower bound, labelled, up to the "
            "newest release the answers meet (past it they cannot tell)."
        ),
        "",
        *(f"- {sentence(k)}" for k in known),
        "",
        "| source | answers | with a range | stale | ahead | errors (releases: answers) | version-knowledge date | informative answers |",
        "| --- | ---: | ---: | ---: | ---: | --- | --- | ---: |",
    ]
    for k in known:
        errors = ", ".join(f"{e:+d}: {n}" for e, n in sorted(k.errors.items())) or "–"
        out.append(
            f"| `{k.model}` | {k.answers} | {k.ranged} | {_pct(k.stale)} | {_pct(k.ahead)} "
            f"| {errors} | {dated(k.dating)} | {informative(k.dating)} |"
        )
    if not per_answer:
        return "\n".join([*out, ""])
    out += [
        "",
        "| problem | source | asked | works on | error | note |",
        "| --- | --- | --- | --- | ---: | --- |",
    ]
    for r in sorted(
        (r for r in found if r.source != "reference"), key=lambda r: (r.source, r.problem_id)
    ):
        works = f"{r.lowest} … {r.highest}" if r.ranged else "nowhere tried"
        error = "–" if r.error is None else f"{r.error:+d}"
        out.append(
            f"| `{r.problem_id}` | `{r.source}` | {r.library} {r.pinned} | {works} | {error} "
            f"| {r.note.replace('|', '/')[:120] or '–'} |"
        )
    return "\n".join([*out, ""])


def figure_svg(known: Sequence[Knowledge]) -> str:
    """One histogram of signed version errors per source, side by side (SVG text)."""
    import matplotlib as mpl  # noqa: PLC0415 - Matplotlib loads in a second: only here

    mpl.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    shown = [k for k in known if k.errors]
    if not shown:
        return ""
    fig, axes = plt.subplots(1, len(shown), figsize=(3.2 * len(shown), 2.6), squeeze=False)
    for ax, k in zip(axes[0], shown, strict=True):
        errors = sorted(k.errors)
        colors = ["#c0392b" if e < 0 else "#2e86c1" if e > 0 else "#27ae60" for e in errors]
        ax.bar(errors, [k.errors[e] for e in errors], color=colors)
        ax.axvline(0, color="#555", linewidth=0.8)
        ax.set_title(f"{k.model}: {_pct(k.stale)} stale", fontsize=9)
        ax.set_xlabel("signed version error (releases)", fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0][0].set_ylabel("answers", fontsize=8)
    fig.tight_layout()
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]
