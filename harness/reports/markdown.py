"""``summary.md``: what a person reads first, and what GitHub shows as a job summary."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.analysis import upcoming
from harness.analysis.causes import site
from harness.analysis.drift import DriftClass
from harness.analysis.validity import headline as validity_headline
from harness.analysis.validity import limited_ranges
from harness.core.libraries import LIBRARIES
from harness.core.results import Status
from harness.matrix.releases import markdown as releases_markdown
from harness.reports import reach as reach_report
from harness.reports import repairs as repairs_report
from harness.reports import trend_chart
from harness.reports.glance import glance, headline, since
from harness.reports.idioms import COLUMNS, LEGEND
from harness.reports.timeline import half_life as timeline_half_life
from harness.reports.timeline import rows as timeline_rows

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from harness.analysis.drift import Trajectory
    from harness.analysis.history import Changes
    from harness.analysis.idioms import IdiomStory
    from harness.analysis.summary import Summary
    from harness.analysis.trends import Trends
    from harness.analysis.upcoming import Breakage
    from harness.analysis.vintage import Timeline
    from harness.core.findings import Finding
    from harness.reports.glance import Glance

_STATUSES = [s.value for s in Status]
_CLASSES = [c.value for c in DriftClass]
_MAX_CELL = 160
_MAX_WARNING_ROWS = 30
_MAX_VALIDITY_ROWS = 100
_TREND_COLUMNS = 7  # the markdown table shows the last week; summary.json keeps them all


def _cell(text: str, limit: int = _MAX_CELL) -> str:
    """One table cell: one line, pipes escaped, long text cut."""
    flat = " ".join(str(text).split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _changed(library: str, changed: Mapping[str, tuple[str, str]]) -> str:
    """The problem's own library first; the other changes only counted."""
    keys = {lib.key for lib in LIBRARIES} & set(changed)
    parts = [f"{library} {changed[library][0]}→{changed[library][1]}"] if library in keys else []
    others = len(keys - {library})
    if others:
        parts.append(f"+{others} other{'s' if others > 1 else ''}")
    return ", ".join(parts) or "none"


def _drift_row(t: Trajectory, finding: Finding | None) -> list[str]:
    bad = t.outcome(t.first_bad) if t.first_bad else None
    cause = t.diagnosis.cause.value if t.diagnosis else "–"
    symbol = f"`{t.diagnosis.symbol}`" if t.diagnosis and t.diagnosis.symbol else "–"
    responsible = (finding.library if finding else None) or "–"
    first_release = "–"
    if finding and finding.first_bad:
        first_release = f"{finding.library} {finding.first_bad}"
    warned = "–"
    if finding and finding.warning:
        warned = f"{finding.library} {finding.last_good} warned: {finding.warning}"
    elif t.warnings:
        warned = f"`{t.last_good}` warned: {t.warnings[0].message}"
    return [
        f"`{t.problem_id}`",
        t.library,
        t.klass.value,
        f"`{t.last_good}` → `{t.first_bad}`",
        (bad.first_line or bad.status.value) if bad else "–",
        cause,
        symbol,
        (site(bad) if bad else "") or "–",
        responsible,
        first_release,
        _cell(warned, 100),
        _changed(t.library, t.changed),
    ]


def render(summary: Summary) -> str:
    out = [f"# Run `{summary.run_id}`", ""]
    out.append(
        f"Baseline combo: `{summary.baseline}` · {len(summary.combos)} combos · "
        f"{summary.problems} problems · {summary.executions} executions · "
        f"sources: {', '.join(f'`{s}`' for s in summary.sources) or 'none'}"
    )
    out += ["", f"Era order: {' → '.join(f'`{c}`' for c in summary.order)}"]
    out += ["", *render_glance(glance(summary))]
    if summary.upcoming:
        out += ["", *render_upcoming(summary.upcoming)]
    out += ["", "## Environments", ""]
    present = {k for c in summary.combos for k in c.env.library_versions()}
    libs = [lib.key for lib in LIBRARIES if lib.key in present]
    rows = []
    for c in summary.combos:
        versions = c.env.library_versions()
        if c.env.ok:
            state = "reused" if c.env.reused else f"built in {c.env.build_s:.0f} s"
        else:
            state = f"**env_error** ({c.env.stage}): {c.env.error}"
        rows.append(
            [f"`{c.id}`", c.env.python or "–", *[versions.get(k, "–") for k in libs], state]
        )
    out += _table(["combo", "python", *libs, "environment"], rows)

    out += ["", "## Pass counts", ""]
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

    out += ["", "## Across combos", ""]
    classes = [k for k in _CLASSES if any(summary.classes(s).get(k) for s in summary.sources)]
    out += _table(
        ["source", *classes],
        [[s, *[str(summary.classes(s).get(k, 0)) for k in classes]] for s in summary.sources],
    )

    if summary.models:
        out += ["", *render_models(summary), ""]
    if summary.trends is not None and summary.trends.series:
        out += ["", *render_trends(summary.trends)]
    if summary.stories:
        out += ["", *render_idioms(summary.stories)]
    out += ["", "## Drifted problems (the reference passes in one era, fails in a later one)", ""]
    if summary.drift:
        header = [
            "problem",
            "library",
            "class",
            "pass → fail",
            "error",
            "cause",
            "symbol",
            "broke in",
            "responsible",
            "first bad release",
            "earlier warning",
            "changed",
        ]
        rows = [_drift_row(t, summary.finding(t)) for t in summary.drift]
        out += _table(header, rows)
    else:
        out.append(
            "None: every reference solution that passes somewhere passes in every later combo."
            + (
                " The old idioms' breaks are under “Where each idiom holds”."
                if summary.stories
                else ""
            )
        )

    if summary.repairs is not None:
        out += ["", *repairs_report.markdown(summary.repairs)]
    if summary.validity:
        out += ["", *render_validity(summary)]

    if summary.timeline is not None:
        out += ["", *render_timeline(summary.timeline)]
    if summary.reach:
        out += ["", reach_report.markdown(summary.reach, "##").rstrip()]

    out += ["", "## Will break: deprecation warnings from passing executions", ""]
    if summary.warnings:
        rows = [
            [
                g.library,
                g.category,
                g.message,
                str(len(g.executions)),
                ", ".join(sorted({f"`{c}`" for c, _, _ in g.executions})),
            ]
            for g in summary.warnings[:_MAX_WARNING_ROWS]
        ]
        out += _table(["library", "category", "message", "executions", "combos"], rows)
        if len(summary.warnings) > _MAX_WARNING_ROWS:
            out.append(f"\n… and {len(summary.warnings) - _MAX_WARNING_ROWS} more in summary.json.")
    else:
        out.append("No deprecation warnings were raised by passing executions.")
    if summary.changes:
        out += ["", *render_changes(summary.changes)]
    if summary.releases:
        out += ["", *releases_markdown(summary.releases)]
    return "\n".join(out) + "\n"


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
    """The first screen: how many problems, how many broke where, top causes, what is new."""
    out = ["## At a glance", "", headline(g), ""]
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
