"""``agreement.md``: our verdicts against upstream's, per model, and every disagreement
with both reasons (``harness run --compare-upstream``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.analysis.agreement import Agreement


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:240] or "–"


def markdown(found: Sequence[Agreement], missing: Sequence[str] = ()) -> str:
    """The agreement tables; ``missing``: answers files with no upstream verdicts beside."""
    out = ["# Agreement with upstream's verdicts", ""]
    if not found and not missing:
        return "\n".join([*out, "No answers were compared.", ""])
    out += [
        (
            "| model | compared | same verdict | both pass | both fail | we pass, upstream fails "
            "| we fail, upstream passes | not run here | no upstream verdict |"
        ),
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for a in found:
        ours_only = sum(d.ours == "pass" for d in a.disagreements)
        rate = "–" if a.rate is None else f"{a.rate:.1%}"
        out.append(
            f"| `{a.model}` | {a.compared} | {rate} | {a.both_pass} | {a.both_fail} | "
            f"{ours_only} | {len(a.disagreements) - ours_only} | {a.not_run} | {a.ungraded} |"
        )
    out += ["", *(f"No upstream verdicts beside `{m}`." for m in missing)]
    for a in found:
        if not a.disagreements:
            continue
        out += [
            "",
            f"## `{a.model}`: {len(a.disagreements)} disagreements (upstream's: `{a.verdicts}`)",
            "",
            "| problem | combo | ours | our reason | upstream | upstream's reason |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        out += [
            f"| `{d.problem_id}` | `{d.combo}` | {d.ours} | {_cell(d.our_reason)} | "
            f"{d.theirs} | {_cell(d.their_reason)} |"
            for d in a.disagreements
        ]
    return "\n".join([*out, ""])
