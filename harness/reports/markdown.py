"""``summary.md``: what a person reads first, and what GitHub shows as a job summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.libraries import LIBRARIES
from harness.results import Status

if TYPE_CHECKING:
    from harness.reports.summary import Summary

_STATUSES = [s.value for s in Status]
_MAX_CELL = 160


def _cell(text: str) -> str:
    """One table cell: one line, pipes escaped, long text cut."""
    flat = " ".join(str(text).split()).replace("|", "\\|")
    return flat if len(flat) <= _MAX_CELL else flat[: _MAX_CELL - 1] + "…"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _changed(library: str, changed: dict[str, tuple[str, str]] | Any) -> str:
    """The problem's own library first; the other changes only counted."""
    keys = {lib.key for lib in LIBRARIES} & set(changed)
    parts = [f"{library} {changed[library][0]}→{changed[library][1]}"] if library in keys else []
    others = len(keys - {library})
    if others:
        parts.append(f"+{others} other{'s' if others > 1 else ''}")
    return ", ".join(parts) or "none"


def render(summary: Summary) -> str:
    out = [f"# Run `{summary.run_id}`", ""]
    out.append(
        f"Baseline combo: `{summary.baseline}` · {len(summary.combos)} combos · "
        f"{summary.problems} problems · {summary.executions} executions · "
        f"sources: {', '.join(f'`{s}`' for s in summary.sources) or 'none'}"
    )
    out += ["", "## Environments", ""]
    libs = [
        lib.key
        for lib in LIBRARIES
        if any(lib.key in c.env.library_versions() for c in summary.combos)
    ]
    rows = []
    for c in summary.combos:
        versions = c.env.library_versions()
        if c.env.ok:
            state = "reused" if c.env.reused else f"built in {c.env.build_s:.0f} s"
        else:
            state = f"**env_error** ({c.env.stage}): {c.env.error.strip().splitlines()[0] if c.env.error.strip() else ''}"
        rows.append(
            [f"`{c.id}`", c.env.python or "–", *[versions.get(k, "–") for k in libs], state]
        )
    out += _table(["combo", "python", *libs, "environment"], rows)

    out += ["", "## Pass counts", ""]
    present = [
        s for s in _STATUSES if any(n.get(s) for c in summary.combos for n in c.counts.values())
    ]
    rows = []
    for c in summary.combos:
        for source, counts in c.counts.items():
            rate = c.pass_rate(source)
            rows.append(
                [
                    f"`{c.id}`",
                    source,
                    *[str(counts.get(s, 0)) for s in present],
                    f"{rate:.1%}" if rate is not None else "–",
                ]
            )
    out += _table(["combo", "source", *present, "pass rate"], rows) if rows else ["No executions."]

    out += ["", f"## Drifted problems (pass in `{summary.baseline}`, fail elsewhere)", ""]
    if summary.drift:
        rows = [
            [
                f"`{d.problem_id}`",
                d.library,
                d.source,
                f"`{d.combo}`",
                d.status.value,
                d.line,
                _changed(d.library, d.changed),
            ]
            for d in summary.drift
        ]
        out += _table(["problem", "library", "source", "combo", "status", "error", "changed"], rows)
    else:
        out.append("None: every solution that passes in the baseline passes everywhere it ran.")
    return "\n".join(out) + "\n"
