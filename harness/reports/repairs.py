"""The Repairs section: the verification table of a run's repairs as Markdown (summary.md,
repairs/verification.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.analysis.repairs import VERDICTS

if TYPE_CHECKING:
    from harness.analysis.repairs import RepairTable, Row


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _statuses_cell(row: Row, order: tuple[str, ...]) -> str:
    shown = [
        f"`{c}` {row.original.get(c, '–')} → {row.repaired.get(c, '–')}"
        for c in order
        if c in row.original or c in row.repaired
    ]
    return "<br>".join(shown)


def markdown(table: RepairTable, heading: str = "##") -> list[str]:
    """The table as the Repairs section of summary.md (and verification.md)."""
    counts = table.counts()
    out = [f"{heading} Repairs", ""]
    if not table.rows:
        return [*out, "No drifted problem to repair.", *_models(table)]
    out.append(
        " · ".join(f"{counts[v]} {v}" for v in VERDICTS if counts.get(v))
        + " (of the drifted references; `harness repair`, diffs in `repairs/diffs/`)"
    )
    out += [
        "",
        "| problem | verdict | codemods | original → repaired | meaning | answers | why |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in table.rows:
        answers = f"{r.answers_kept} kept" + (
            f", changed: {'; '.join(r.answers_changed)}" if r.answers_changed else ""
        )
        cells = [
            f"`{r.problem_id}`",
            r.verdict,
            ", ".join(
                [*(f"hand fix of `{f}`" for f in r.hand_fixed), *(f"`{c}`" for c in r.codemods)]
            )
            or "–",
            _statuses_cell(r, table.order) or "–",
            r.meaning or "–",
            answers,
            r.reason or "–",
        ]
        out.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return [*out, *_models(table)]


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def _models(table: RepairTable) -> list[str]:
    """Stale model answers: those a codemod makes pass again are only API-stale."""
    if not table.models:
        return []
    out = [
        "",
        (
            "Stale model answers, rewritten by the same codemods and run where they first "
            "failed: those that pass again are API-stale."
        ),
        "",
        "| model | stale rate | API-stale rate | stale | rewritten | API-stale | missed most |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for m in table.models:
        cells = [
            f"`{m.model}`",
            f"{_pct(m.stale_rate)} ({m.stale}/{m.candidates})",
            f"{_pct(m.api_stale_rate)} ({m.api_stale}/{m.candidates})",
            str(m.stale),
            str(m.rewritten),
            str(m.api_stale),
            ", ".join(f"`{name}` ×{n}" for name, n in m.missed[:3]) or "–",
        ]
        out.append("| " + " | ".join(cells) + " |")
    return out
