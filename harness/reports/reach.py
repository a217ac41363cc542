"""``reach.md``: how far each version-conditioned problem reaches, per library."""

from __future__ import annotations

import io
from collections import Counter
from typing import TYPE_CHECKING

from packaging.version import Version

from harness.analysis.drift import natural_key
from harness.analysis.ranges import CLASSES, share_untested

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.analysis.ranges import Reach


def _range(r: Reach) -> str:
    if not r.klass:
        return "–"
    low = f"{r.lowest}" + (f" (fails {r.below})" if r.below else " (the oldest that installs)")
    high = f"{r.highest}" + (f" (fails {r.above})" if r.above else "")
    return f"{low} … {high}"


def markdown(found: Sequence[Reach], level: str = "#") -> str:
    libraries = sorted({r.library for r in found})
    out = [f"{level} How far each problem reaches (harness reach)", ""]
    share = share_untested(found)
    classed = sum(1 for r in found if r.klass)
    out.append(
        f"{len(found)} problems; {classed} pass at their own release. "
        + (
            f"{share:.0%} of those pass on every release tried: they test no knowledge "
            "of any version."
            if share is not None
            else ""
        )
    )
    out += ["", "| library | problems | own release fails | " + " | ".join(CLASSES) + " |"]
    out.append("| --- | ---: | ---: | " + " | ".join("---:" for _ in CLASSES) + " |")
    for library in libraries:
        mine = [r for r in found if r.library == library]
        counts = Counter(r.klass for r in mine)
        out.append(
            f"| {library} | {len(mine)} | {counts['']} | "
            + " | ".join(str(counts[k]) for k in CLASSES)
            + " |"
        )
    out += ["", "| problem | library | pinned | Python | passes from … to | class | trials |"]
    out.append("| --- | --- | --- | --- | --- | --- | ---: |")
    for r in sorted(found, key=lambda r: (r.library, natural_key(r.problem_id))):
        klass = r.klass or f"– ({r.note[:80]})"
        out.append(
            f"| `{r.problem_id}` | {r.library} | {r.pinned} | {r.python} | {_range(r)} "
            f"| {klass} | {r.trials} |"
        )
    return "\n".join(out) + "\n"


def figure_svg(found: Sequence[Reach]) -> str:
    """Each problem's range on its library's release axis: a bar from the oldest to the
    newest release seen passing, a dot at its own release, a cross where it failed."""
    classed = [r for r in found if r.klass]
    if not classed:
        return ""
    from matplotlib.figure import Figure  # noqa: PLC0415 - only reports with ranges pay

    libraries = sorted({r.library for r in classed})
    rows = [len([r for r in classed if r.library == lib]) for lib in libraries]
    fig = Figure(figsize=(9, 0.9 + 0.16 * sum(rows) + 0.5 * len(libraries)), layout="constrained")
    axes = fig.subplots(len(libraries), 1, squeeze=False, height_ratios=rows)[:, 0]
    colours = dict(zip(CLASSES, ("#c0392b", "#e67e22", "#2e86c1", "#7f8c8d"), strict=True))
    for ax, library in zip(axes, libraries, strict=True):
        mine = sorted(
            (r for r in classed if r.library == library),
            key=lambda r: (Version(r.pinned), r.problem_id),
        )
        seen = {v for r in mine for v in (r.lowest, r.highest, r.below, r.above, r.pinned) if v}
        releases = sorted(seen, key=Version)
        x = {v: i for i, v in enumerate(releases)}
        for y, r in enumerate(mine):
            low, high = r.lowest or r.pinned, r.highest or r.pinned  # set when classed
            ax.plot([x[low], x[high]], [y, y], color=colours[r.klass], lw=3)
            ax.plot([x[r.pinned]], [y], "ko", ms=3)
            for bad in (r.below, r.above):
                if bad:
                    ax.plot([x[bad]], [y], "x", color="#c0392b", ms=4)
        ax.set_yticks(range(len(mine)), [r.problem_id.split("/")[-1] for r in mine], fontsize=6)
        ax.set_xticks(range(len(releases)), releases, rotation=90, fontsize=6)
        ax.set_title(f"{library}: releases where each reference passes", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    handles = [axes[0].plot([], [], color=c, lw=3, label=k)[0] for k, c in colours.items()]
    axes[0].legend(handles=handles, fontsize=6, loc="upper left", ncols=4)
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    text = buffer.getvalue()
    return text[text.index("<svg") :]
