"""What each model knows of its libraries' versions, in words, a table and pictures:
the signed version errors of its answers and its version-knowledge date (``reach.md``,
``report.html``)."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from harness.analysis.knowledge import Knowledge
    from harness.analysis.ranges import Reach


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _day(k: Knowledge) -> str:
    if k.date is None:
        return "–"
    interval = f" (95%: {k.low} … {k.high})" if k.low and k.high else ""
    return f"{k.date.isoformat()}{interval}"


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
    when = f"; its code works best on {k.date.isoformat()}" if k.date else ""
    return f"`{k.model}`: {lean}{when}."


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
            "ones, in releases. The **version-knowledge date** is the day the most answers' "
            "code works on (95% bootstrap interval over the answers)."
        ),
        "",
        *(f"- {sentence(k)}" for k in known),
        "",
        "| source | answers | with a range | stale | ahead | errors (releases: answers) | version-knowledge date |",
        "| --- | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for k in known:
        errors = ", ".join(f"{e:+d}: {n}" for e, n in sorted(k.errors.items())) or "–"
        out.append(
            f"| `{k.model}` | {k.answers} | {k.ranged} | {_pct(k.stale)} | {_pct(k.ahead)} "
            f"| {errors} | {_day(k)} |"
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
