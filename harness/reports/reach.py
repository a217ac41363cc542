"""``reach.md``: how far each version-conditioned problem reaches, per library."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from harness.drift import natural_key
from harness.reach import CLASSES, share_untested

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.reach import Reach


def _range(r: Reach) -> str:
    if not r.klass:
        return "–"
    low = f"{r.lowest}" + (f" (fails {r.below})" if r.below else " (the oldest tried)")
    high = f"{r.highest}" + (f" (fails {r.above})" if r.above else "")
    return f"{low} … {high}"


def markdown(found: Sequence[Reach]) -> str:
    libraries = sorted({r.library for r in found})
    out = ["# How far each problem reaches", ""]
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
