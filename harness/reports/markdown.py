"""``summary.md``: what a person reads first, and what GitHub shows as a job summary."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.analysis import upcoming
from harness.analysis.drift import DriftClass
from harness.analysis.glance import glance
from harness.analysis.validity import headline as validity_headline
from harness.analysis.validity import limited_ranges
from harness.core.libraries import LIBRARIES
from harness.core.results import Status
from harness.matrix.releases import markdown as releases_markdown
from harness.reports import deprecations as deprecations_report
from harness.reports import drift as drift_table
from harness.reports import knowledge as knowledge_report
from harness.reports import reach as reach_report
from harness.reports import repairs as repairs_report
from harness.reports import trend_chart
from harness.reports.glance import headline, since, unsandboxed
from harness.reports.idioms import COLUMNS, LEGEND
from harness.reports.timeline import half_life as timeline_half_life
from harness.reports.timeline import rows as timeline_rows

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.analysis.changes import Changes
    from harness.analysis.drift import DriftRow
    from harness.analysis.glance import Glance
    from harness.analysis.idioms import IdiomStory
    from harness.analysis.summary import Summary
    from harness.analysis.trends import Trends
    from harness.analysis.upcoming import Breakage
    from harness.analysis.vintage import Timeline

_STATUSES = [s.value for s in Status]
_CLASSES = [c.value for c in DriftClass]
_MAX_CELL = 160
_MAX_WARNING_ROWS = 30
_MAX_VALIDITY_ROWS = 100
_FORMAT_NOTE = (
    "Each failing step's output holds the expected values in another repr (e.g. NumPy 2's "
    "`np.float64(-2.0)` for `-2.0`): the grader compares text, so the step fails, "
    "but no API broke."
)
_TREND_COLUMNS = 7  # the markdown table shows the last week; summary.json keeps them all


def _cell(text: str, limit: int = _MAX_CELL) -> str:
    """One table cell: one line, pipes escaped, long text cut."""
    flat = " ".join(str(text).split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _drift_row(row: DriftRow) -> list[str]:
    f = row.finding
    warned = "–"
    if f and f.warning:
        warned = f"{f.library} {f.last_good} warned: {f.warning}"
    elif row.warnings:
        warned = f"`{row.last_good}` warned: {row.warnings[0]}"
    return [
        f"`{row.problem_id}`",
        row.library,
        row.klass.value,
        f"`{row.last_good}` → `{row.first_bad}`",
        row.error or "–",
        row.cause.value if row.cause else "–",
        f"`{row.symbol}`" if row.symbol else "–",
        row.site or "–",
        (f.library if f else None) or "–",
        drift_table.first_bad_release(row),
        _cell(warned, 100),
        drift_table.changed(row),
    ]


def render(summary: Summary) -> str:
    """``summary.md``: its sections one after the other, a blank line between them."""
    trends = summary.trends
    sections = [
        _title(summary),
        render_glance(glance(summary)),
        render_upcoming(summary.upcoming) if summary.upcoming else [],
        render_environments(summary),
        render_counts(summary),
        render_classes(summary),
        [*render_models(summary), ""] if summary.models else [],
        render_trends(trends) if trends is not None and trends.series else [],
        render_idioms(summary.stories) if summary.stories else [],
        render_drift(summary),
        repairs_report.markdown(summary.repairs) if summary.repairs is not None else [],
        render_validity(summary) if summary.validity else [],
        render_timeline(summary.timeline) if summary.timeline is not None else [],
        [reach_report.markdown(summary.reach, "##").rstrip()] if summary.reach else [],
        render_knowledge(summary) if summary.knowledge else [],
        deprecations_report.markdown(summary.apis) if summary.apis else [],
        render_warnings(summary),
        render_changes(summary.changes) if summary.changes else [],
        releases_markdown(summary.releases) if summary.releases else [],
    ]
    out: list[str] = []
    for section in sections:
        if section:
            out += ["", *section] if out else section
    return "\n".join(out) + "\n"


def render_knowledge(summary: Summary) -> list[str]:
    """What each model knows of its libraries' versions, from its ranged answers."""
    text = knowledge_report.markdown(summary.knowledge, summary.reach, per_answer=False).strip()
    return [text, "", *(f"- {knowledge_report.sentence(k)}" for k in summary.knowledge)]


def _title(summary: Summary) -> list[str]:
    return [
        f"# Run `{summary.run_id}`",
        "",
        (
            f"Baseline combo: `{summary.baseline}` · {len(summary.combos)} combos · "
            f"{summary.problems} problems · {summary.executions} executions · "
            f"sources: {', '.join(f'`{s}`' for s in summary.sources) or 'none'}"
        ),
        "",
        f"Era order: {' → '.join(f'`{c}`' for c in summary.order)}",
        *(["", summary.expected] if summary.expected else []),
    ]


def render_environments(summary: Summary) -> list[str]:
    present = {k for c in summary.combos for k in c.versions}
    libs = [lib.key for lib in LIBRARIES if lib.key in present]
    rows = []
    for c in summary.combos:
        if c.ok:
            state = "reused" if c.reused else f"built in {c.build_s:.0f} s"
        else:
            state = f"**env_error** ({c.stage}): {c.error}"
        rows.append([f"`{c.id}`", c.python or "–", *[c.versions.get(k, "–") for k in libs], state])
    return ["## Environments", "", *_table(["combo", "python", *libs, "environment"], rows)]


def render_counts(summary: Summary) -> list[str]:
    """Pass counts per combo and source, and the answers graded in their own process."""
    statuses = [
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
                    *[str(counts.get(s, 0)) for s in statuses],
                    f"{rate:.1%}" if rate is not None else "–",
                ]
            )
    out = ["## Pass counts", ""]
    out += _table(["combo", "source", *statuses, "pass rate"], rows) if rows else ["No executions."]
    graded = [
        f"{n} of `{source}` in `{c.id}`"
        for c in summary.combos
        for source, n in sorted(c.in_process.items())
    ]
    if graded:
        out += [
            "",
            "Graded in the answer's own process, its tests beside it (they share something "
            "with it that cannot cross to the checker; RELIABILITY.md): " + "; ".join(graded) + ".",
        ]
    return out


def render_classes(summary: Summary) -> list[str]:
    """How many (problem, source)s of each source fell in each drift class."""
    counts = summary.classes
    classes = [k for k in _CLASSES if any(counts.get(s, {}).get(k) for s in summary.sources)]
    rows = [[s, *[str(counts.get(s, {}).get(k, 0)) for k in classes]] for s in summary.sources]
    return ["## Across combos", "", *_table(["source", *classes], rows)]


def render_drift(summary: Summary) -> list[str]:
    out = ["## Drifted problems (the reference passes in one era, fails in a later one)", ""]
    rows = [_drift_row(r) for r in summary.api_drift]
    if rows:
        out += _table(list(drift_table.COLUMNS), rows)
    else:
        idioms = (
            " The old idioms' breaks are under “Where each idiom holds”." if summary.stories else ""
        )
        none = "None: every reference solution that passes somewhere passes in every later combo."
        if summary.format_drift:
            none = "None whose API broke: the drifts below changed only their printed output."
        out.append(none + idioms)
    if summary.format_drift:
        out += ["", f"## {drift_table.FORMAT_TITLE}", "", _FORMAT_NOTE, ""]
        out += _table(list(drift_table.COLUMNS), [_drift_row(r) for r in summary.format_drift])
    return out


def render_warnings(summary: Summary) -> list[str]:
    """Deprecation warnings raised by passing executions: what will break."""
    out = ["## Will break: deprecation warnings from passing executions", ""]
    if not summary.warnings:
        return [*out, "No deprecation warnings were raised by passing executions."]
    out += [deprecations_report.ENVIRONMENT_NOTE, ""]
    rows = [
        [
            g.library,
            g.category,
            g.message,
            deprecations_report.points_at(g.origin),
            str(len(g.executions)),
            ", ".join(sorted({f"`{c}`" for c, _, _ in g.executions})),
        ]
        for g in summary.warnings[:_MAX_WARNING_ROWS]
    ]
    out += _table(["library", "category", "message", "points at", "executions", "combos"], rows)
    if len(summary.warnings) > _MAX_WARNING_ROWS:
        out.append(f"\n… and {len(summary.warnings) - _MAX_WARNING_ROWS} more in summary.json.")
    return out


def render_upcoming(found: Sequence[Breakage]) -> list[str]:
    """Breakage before it ships: references that hold today and fail in a lane."""
    out = ["## What will break next: references that fail only in the nightly lanes", ""]
    for group in upcoming.grouped(found):
        out.append(f"- {upcoming.sentence(group)}:")
        for b in group:
            warned = f"; today it already warns: {_cell(b.warning, 160)}" if b.warning else ""
            out.append(f"  - `{b.problem_id}` — {_cell(b.error, 160)}{warned}")
    return out


def render_trends(t: Trends) -> list[str]:
    """The small table of the last nights: one row per series, one column per night."""
    shown = range(max(0, len(t.nights) - _TREND_COLUMNS), len(t.nights))
    out = [f"## Trends over the last {len(t.nights)} nights", ""]
    header = ["series", *(f"`{trend_chart.night_label(t, i)}`" for i in shown)]
    rows = [
        [trend_chart.label(s), *(trend_chart.cell(s.values[i]) for i in shown)] for s in t.series
    ]
    out += _table(header, rows)
    if t.first_seen:
        out += ["", "References failing tonight, and the first night of that streak:", ""]
        out += _table(
            ["combo", "problem", "failing since"],
            [
                [f"`{f.combo}`", f"`{f.problem_id}`", f"`{f.night}` {f.started[:10]}".strip()]
                for f in t.first_seen[:_MAX_WARNING_ROWS]
            ],
        )
    return out


def render_timeline(t: Timeline) -> list[str]:
    first, last = t.days[0].isoformat(), t.days[-1].isoformat()
    refs = t.references
    out = [
        "## API vintage: when each model's answers fit the libraries best",
        "",
        (
            f"{len(t.days)} dates from {first} to {last}, each combo resolved as the index "
            "was that day. A model's share at a date counts only the problems whose reference "
            "passes at every date (the same problems each time); its vintage is the date of its highest share (the middle of a "
            "tie), with a 95% bootstrap interval over problems. Curves: `timeline.png`; "
            "numbers: `timeline.json`."
        ),
        "",
    ]
    out += _table(
        ["model", "vintage", "95% interval", "curve", "best share"], timeline_rows(t)
    ) or ["No model answers in this run."]
    share = ", ".join(
        f"{p.day.isoformat()} {100 * p.rate:.0f}%" for p in refs.curve if p.rate is not None
    )
    out += [
        "",
        (
            f"References passing: {share}. Of those passing on "
            f"{refs.anchor.isoformat() if refs.anchor else '–'}, the half-life: "
            f"{timeline_half_life(refs)}."
        ),
    ]
    return out


def render_validity(summary: Summary) -> list[str]:
    """Where each reference holds: the releases of the library that bounds it."""
    out = ["## Validity ranges (where each reference passes)", ""]
    out.append(validity_headline(summary.validity) + " Every range is in `validity.json`.")
    limited = limited_ranges(summary.validity)
    if limited:
        rows = [
            [
                f"`{v.problem_id}`",
                v.klass,
                " ".join(f"{c}:{'✓' if s == 'pass' else '✗'}" for c, s in v.combos.items()),
                v.text(),
            ]
            for v in limited[:_MAX_VALIDITY_ROWS]
        ]
        out += ["", *_table(["problem", "class", "combos", "valid range"], rows)]
        if len(limited) > _MAX_VALIDITY_ROWS:
            out.append(f"\n… and {len(limited) - _MAX_VALIDITY_ROWS} more in validity.json.")
    return out


def render_glance(g: Glance) -> list[str]:
    """The first screen: problems, where answers ran unsandboxed, what broke where, causes, news."""
    out = ["## At a glance", "", headline(g), ""]
    if g.unsandboxed:
        out += [f"**{unsandboxed(g)}**", ""]
    header = ["combo", *[f"{s} failing" for s in g.sources]]
    rows = []
    for combo in g.order:
        cells = []
        for source in g.sources:
            b = g.cell(combo, source)
            if b is None or not b.env_ok:
                cells.append("env_error" if b is not None else "–")
            else:
                cells.append(f"{b.failed} / {b.ran}" if b.ran else "–")
        rows.append([f"`{combo}`", *cells])
    out += ["Broke where (failing / ran, combos in era order):", ""]
    out += _table(header, rows) if rows else ["No combos."]
    out.append("")
    if g.causes:
        causes = "; ".join(
            f"{c.cause} {c.total} ({', '.join(f'{s} {n}' for s, n in c.by_source)})"
            for c in g.causes
        )
        out.append(f"Top causes of pass → fail steps: {causes}.")
    else:
        out.append("Top causes of pass → fail steps: none (nothing passes, then fails).")
    out += ["", since(g.changes)]
    if g.changes and g.changes.new_failures:
        out += [
            f"- new failure: `{i.combo}` `{i.problem_id}` {i.source}: {i.before} → {i.after}"
            for i in g.changes.new_failures[:5]
        ]
        if len(g.changes.new_failures) > 5:
            out.append(f"- … {len(g.changes.new_failures) - 5} more below")
    return out


def _idiom_row(s: IdiomStory) -> list[str]:
    note = s.note
    change = f"{note.kind}: `{note.old_api}` → `{note.new_api}`" if note else "–"
    said = f"{s.library} {note.changed}" if note and note.changed else "–"
    if s.old_breaks:
        breaks = (
            f"`{s.old_last_good}` → `{s.old_first_bad}` ({s.library} {s.old_bad_version or '?'})"
        )
    else:
        breaks = s.old_class or "did not run"
    agree = {True: "yes", False: "**no**", None: "–"}[s.agrees]
    if s.modern_first_pass:
        first = f"`{s.modern_first_pass}` ({s.library} {s.modern_first_version or '?'})"
    else:
        first = s.modern_class or "–"
    return [
        f"`{s.problem_id}`",
        s.library,
        change,
        breaks,
        s.cause or "–",
        said,
        s.first_bad_release or "–",
        agree,
        first,
        ", ".join(f"`{c}`" for c in s.modern_red_before) or "–",
    ]


def render_idioms(stories: Sequence[IdiomStory]) -> list[str]:
    """Per problem of ours: where the old idiom breaks, where the modern one starts."""
    breaks = [s for s in stories if s.old_breaks]
    out = ["## Where each idiom holds (problems of ours)", "", LEGEND, ""]
    out += _table(
        [
            *COLUMNS,
            "modern red before (not drift)",
        ],
        [_idiom_row(s) for s in stories],
    )
    out += ["", f"In words ({len(breaks)} old idioms break, {len(stories)} problems):", ""]
    out += [f"- `{s.problem_id}`: {_cell(s.explanation, 400)}" for s in stories]
    return out


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def render_models(summary: Summary) -> list[str]:
    """Per model: pass rate per combo, staleness, vintage; then pass rates by library."""
    order = list(summary.order)
    last = order[-1] if order else ""
    out = ["## Models", ""]
    rows = [
        [
            f"`{m.model}`",
            *[_pct(m.pass_rate.get(c)) for c in order],
            f"{_pct(m.stale_rate)} ({len(m.stale)}/{m.candidates})",
            str(len(m.problem_drift)),
            _pct(m.warning_rate.get(last)),
            f"`{m.vintage}`" if m.vintage else "–",
            str(m.answers_with_static),
        ]
        for m in (report.staleness for report in summary.models)
    ]
    out += _table(
        [
            "model",
            *[f"pass in `{c}`" for c in order],
            "stale rate",
            "problem drift",
            f"warning rate (`{last}`)",
            "vintage",
            "answers using old APIs",
        ],
        rows,
    )
    for m in summary.models:
        by_lib = m.per_library
        libs = sorted({lib for rates in by_lib.values() for lib in rates})
        if not libs:
            continue
        out += ["", f"`{m.staleness.model}` by library:", ""]
        out += _table(
            ["combo", *libs],
            [[f"`{c}`", *[_pct(by_lib.get(c, {}).get(lib)) for lib in libs]] for c in order],
        )
    return out


def render_changes(changes: Changes) -> list[str]:
    """The "since the previous run" section, from :func:`harness.analysis.history.diff`."""
    out = [f"## Since the previous run (`{changes.previous}`)", ""]
    for title, items in (("New failures", changes.new_failures), ("New fixes", changes.new_fixes)):
        out.append(f"**{title}** ({len(items)})" + (":" if items else ""))
        out += [
            f"- `{i.combo}` `{i.problem_id}` {i.source}: {i.before} → {i.after}"
            + (f" ({_cell(i.error, 120)})" if i.error else "")
            for i in items[:50]
        ]
        out.append("")
    warnings = changes.new_warnings
    out.append(f"**New warnings** ({len(warnings)})" + (":" if warnings else ""))
    out += [f"- {w.library}: {_cell(w.message, 140)}" for w in warnings[:30]]
    out.append("")
    releases = changes.releases
    out.append(f"**Library versions that changed** ({len(releases)})" + (":" if releases else ""))
    out += [f"- `{r.combo}` {r.library}: {r.before} → {r.after}" for r in releases]
    return out
