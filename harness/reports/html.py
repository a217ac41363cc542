"""``report.html``: one self-contained page per run — no scripts, fonts or images fetched.

First the run at a glance (problems, where model answers ran unsandboxed, failures per
combo, top causes, news since the last run); then where each idiom of ours holds, a heatmap
of problems by combos per source (colour = status, hover = details), the models' pass rates
and staleness, the drifted problems (cause, first bad release) and the deprecation warnings.
Every number is in summary.json too; ``data-*`` attributes let tests read them back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.analysis import upcoming
from harness.analysis.drift import natural_key
from harness.analysis.glance import glance
from harness.analysis.idioms import OLD
from harness.analysis.repairs import VERDICTS
from harness.analysis.validity import headline as validity_headline
from harness.analysis.validity import limited_ranges
from harness.core.libraries import LIBRARIES
from harness.core.problem import REFERENCE
from harness.reports import audit as audit_report
from harness.reports import deprecations as deprecations_report
from harness.reports import drift as drift_table
from harness.reports import knowledge as knowledge_report
from harness.reports import trend_chart
from harness.reports.glance import headline, since, unsandboxed
from harness.reports.idioms import COLUMNS, LEGEND
from harness.reports.page import COLOURS, CSS, e, pct, table
from harness.reports.timeline import half_life as timeline_half_life
from harness.reports.timeline import rows as timeline_rows

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from harness.analysis.drift import DriftRow
    from harness.analysis.idioms import IdiomStory
    from harness.analysis.repairs import RepairTable
    from harness.analysis.summary import Summary
    from harness.analysis.trends import Trends
    from harness.analysis.upcoming import Breakage
    from harness.analysis.vintage import Timeline
    from harness.core.results import Outcome

_CELL_H, _LABEL_W = 12, 150


def heatmap(
    source: str,
    outcomes: Sequence[Outcome],
    order: Sequence[str],
    problems: Sequence[str],
    library_of: Mapping[str, str],
) -> str:
    """One row per combo, one column per problem, for one solution source."""
    by_key = {(o.combo, o.problem_id): o for o in outcomes if o.source == source and o.attempt == 0}
    # wide cells for a few problems, 3 px each for a thousand
    cell_w = max(3, min(14, 1100 // max(1, len(problems))))
    width = _LABEL_W + cell_w * len(problems)
    height = _CELL_H * len(order) + 16
    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
            f'aria-label="{e(source)} statuses" data-source="{e(source)}">'
        )
    ]
    for row, combo in enumerate(order):
        y = row * _CELL_H
        parts.append(f'<text x="0" y="{y + 10}" font-size="11">{e(combo)}</text>')
        for col, problem in enumerate(problems):
            o = by_key.get((combo, problem))
            status = o.status.value if o else "missing"
            tip = f"{problem} · {combo} · {status}" + (
                f" · {o.first_line}" if o and o.first_line else ""
            )
            parts.append(
                f'<rect x="{_LABEL_W + col * cell_w}" y="{y}" width="{cell_w}" height="{_CELL_H - 2}" '
                f'fill="{COLOURS[status]}"><title>{e(tip[:300])}</title></rect>'
            )
    # library boundaries under the grid
    y = _CELL_H * len(order) + 12
    last = None
    for col, problem in enumerate(problems):
        library = library_of.get(problem, "")
        if library != last:
            parts.append(
                f'<text x="{_LABEL_W + col * cell_w}" y="{y}" font-size="10" fill="#69737d">{e(library)}</text>'
            )
            last = library
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class Charts:
    """The pictures the page shows inline, as SVG text ("" for none)."""

    timeline: str = ""
    trends: str = ""
    reach: str = ""
    knowledge: str = ""  # each model's signed version errors
    apis: str = ""  # the old APIs each model reaches for


def render(
    summary: Summary,
    outcomes: Sequence[Outcome],
    charts: Charts | None = None,
    tests: Mapping[str, str] | None = None,
) -> str:
    """The page: its sections one after the other; ``outcomes`` fill the heatmaps;
    ``tests``: each problem's tests as an audit found them (``harness audit``)."""
    pictures = charts or Charts()
    trends = summary.trends
    sections = [
        _head(summary),
        render_glance(summary),
        render_upcoming(summary.upcoming) if summary.upcoming else [],
        render_environments(summary),
        render_pass_rates(summary),
        render_models(summary) if summary.models else [],
        render_knowledge(summary, pictures) if summary.knowledge or summary.apis else [],
        render_idioms(summary.stories) if summary.stories else [],
        render_heatmaps(summary, outcomes),
        render_drift(summary, tests or {}),
        audit_report.html_section(tests) if tests else [],
        render_repairs(summary.repairs) if summary.repairs is not None else [],
        render_validity(summary) if summary.validity else [],
        render_timeline(summary.timeline, pictures.timeline) if summary.timeline else [],
        render_trends(trends, pictures.trends) if trends is not None and trends.series else [],
        render_reach(summary, pictures.reach) if summary.reach else [],
        render_answers_changing(summary.answers_changing),
        render_warnings(summary),
        ["</body></html>"],
    ]
    return "\n".join(line for section in sections for line in section)


def _head(summary: Summary) -> list[str]:
    return [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>Run {e(summary.run_id)}</title><style>{CSS}</style></head><body>",
        f"<h1>Run <code>{e(summary.run_id)}</code></h1>",
        f'<p>Baseline <code>{e(summary.baseline)}</code> · <span data-count="combos">{len(summary.combos)}</span> combos · '
        f'<span data-count="problems">{summary.problems}</span> problems · '
        f'<span data-count="executions">{summary.executions}</span> executions · era order: '
        + " → ".join(f"<code>{e(c)}</code>" for c in summary.order)
        + "</p>",
        *([f"<p data-expected='derived'>{_md(summary.expected)}</p>"] if summary.expected else []),
    ]


def render_environments(summary: Summary) -> list[str]:
    present = {k for c in summary.combos for k in c.versions}
    libs = [lib.key for lib in LIBRARIES if lib.key in present]
    rows = [
        [
            f"<code>{e(c.id)}</code>",
            e(c.python or "–"),
            *[e(c.versions.get(k, "–")) for k in libs],
            "ok" if c.ok else f"<b>env_error</b> ({e(c.stage)}): {e(c.error[:200])}",
        ]
        for c in summary.combos
    ]
    return ["<h2>Environments</h2>", table(["combo", "python", *libs, "environment"], rows)]


def render_pass_rates(summary: Summary) -> list[str]:
    rows = [
        [
            f"<code>{e(c.id)}</code>",
            e(source),
            f'#<span data-pass="{e(c.id)}|{e(source)}">{counts.get("pass", 0)}</span>',
            f"#{sum(counts.values())}",
            f"#{pct(c.pass_rate(source))}",
        ]
        for c in summary.combos
        for source, counts in c.counts.items()
    ]
    return [
        "<h2>Pass rates</h2>",
        table(["combo", "source", "pass", "executions", "pass rate"], rows),
    ]


def render_models(summary: Summary) -> list[str]:
    """Per model: pass rate per combo, staleness, vintage; then pass rates by library."""
    order = list(summary.order)
    rows = [
        [
            f"<code>{e(m.model)}</code>",
            *[f"#{pct(m.pass_rate.get(c))}" for c in order],
            f"#{pct(m.stale_rate)} <span class='muted'>({len(m.stale)}/{m.candidates})</span>",
            f"#{len(m.problem_drift)}",
            *[f"#{pct(m.warning_rate.get(c))}" for c in order[-1:]],
            f"<code>{e(m.vintage or '–')}</code>",
            f"#{m.answers_with_static}",
        ]
        for m in (report.staleness for report in summary.models)
    ]
    header = ["model", *[f"pass in {c}" for c in order], "stale rate", "problem drift"]
    header += [f"warning rate ({order[-1]})" if order else "warning rate", "vintage"]
    out = ["<h2>Models</h2>", table([*header, "answers using old APIs"], rows)]
    for report in summary.models:
        by_lib = report.per_library
        if not by_lib:
            continue
        lib_names = sorted({lib for rates in by_lib.values() for lib in rates})
        rows = [
            [
                f"<code>{e(c)}</code>",
                *[f"#{pct(by_lib.get(c, {}).get(lib))}" for lib in lib_names],
            ]
            for c in order
        ]
        out += [
            f"<h3>{e(report.staleness.model)} by library</h3>",
            table(["combo", *lib_names], rows),
        ]
    return out


def render_knowledge(summary: Summary, pictures: Charts) -> list[str]:
    """What each model knows, in a sentence per model and two pictures: where its ranged
    answers work against the release asked for (left of 0: stale), and the deprecated or
    removed APIs it reaches for."""
    out = ["<h2>What each model knows</h2>"]
    said = [knowledge_report.sentence(k) for k in summary.knowledge]
    said += [deprecations_report.sentence(m) for m in summary.apis]
    out += [f"<p>{_md(line)}</p>" for line in said]
    rows = deprecations_report.evidence_rows(summary.apis)
    if rows:
        out += [f"<p class='muted'>{e(deprecations_report.EVIDENCE_NOTE)}</p>"]
        out += [table(deprecations_report.EVIDENCE_COLUMNS, [[e(c) for c in r] for r in rows])]
    out += [f"<p class='muted'>{_md(line)}</p>" for line in deprecations_report.left(summary.apis)]
    for chart, note in (
        (pictures.knowledge, knowledge_report.CHART_NOTE),
        (pictures.apis, deprecations_report.CHART_NOTE),
    ):
        if chart:
            out += [f"<p class='muted'>{e(note)}</p>", f'<div class="chart">{chart}</div>']
    return out


def render_heatmaps(summary: Summary, outcomes: Sequence[Outcome]) -> list[str]:
    """One heatmap per solution source: problems (by library) × combos in era order."""
    lib_rank = {lib.key: i for i, lib in enumerate(LIBRARIES)}
    first: dict[str, str] = {}
    for o in outcomes:
        first.setdefault(o.problem_id, o.library)
    problems = sorted(first, key=lambda p: (lib_rank.get(first[p], 99), natural_key(p)))
    legend = "".join(
        f"<span><i style='background:{col}'></i>{e(s)}</span>"
        for s, col in COLOURS.items()
        if s != "missing"
    )
    out = ["<h2>Statuses: problems × combos</h2>", f"<p class='legend'>{legend}</p>"]
    out += [
        f"<h3>{e(source)}</h3>{_HEAT_NOTES.get(source, '') if summary.stories else ''}"
        f"<div class='heat'>{heatmap(source, outcomes, summary.order, problems, first)}</div>"
        for source in summary.sources
    ]
    return out


def _drift_row(row: DriftRow) -> list[str]:
    f = row.finding
    warned = (f.warning if f else "") or (row.warnings[0] if row.warnings else "–")
    return [
        f"<code>{e(row.problem_id)}</code>",
        e(row.library),
        e(row.klass.value),
        f"<code>{e(row.last_good)}</code> → <code>{e(row.first_bad)}</code>",
        e((row.error or "–")[:160]),
        e(row.cause.value if row.cause else "–"),
        f"<code>{e(row.symbol)}</code>" if row.symbol else "–",
        e(row.site or "–"),
        e((f.library if f else None) or "–"),
        e(drift_table.first_bad_release(row)),
        e(warned[:140]),
        e(drift_table.changed(row)),
    ]


def render_drift(summary: Summary, tests: Mapping[str, str]) -> list[str]:
    """The drifted references, then apart those whose printed output alone changed; where
    the run is an audit, what it found of each one's tests."""
    out, tested = [], [*drift_table.COLUMNS, *(["tests"] if tests else [])]
    for rows, key, title in (
        (summary.api_drift, "drifted", "Drifted problems"),
        (summary.format_drift, "format-drift", drift_table.FORMAT_TITLE),
    ):
        if rows or key == "drifted":
            count = f'<span data-count="{key}">{len(rows)}</span>'
            out += [f'<h2>{e(title)} <span class="muted">({count})</span></h2>']
            cells = [
                [*_drift_row(r), *([e(tests.get(r.problem_id, "–"))] if tests else [])]
                for r in rows
            ]
            out += [table(tested, cells) if rows else "<p>None.</p>"]
    return out


def render_answers_changing(changing: Mapping[str, int]) -> list[str]:
    """Per model source: problems whose answer passes in one combo and fails in another."""
    if not changing:
        return []
    rows = [[f"<code>{e(src)}</code>", f"#{n}"] for src, n in sorted(changing.items())]
    return [
        "<h2>Model answers whose outcome changes between combos</h2>",
        table(["source", "problems"], rows),
    ]


def render_warnings(summary: Summary) -> list[str]:
    count = f'<span data-count="warnings">{len(summary.warnings)}</span>'
    rows = [
        [
            e(g.library),
            e(g.category),
            e(g.message[:200]),
            _md(deprecations_report.points_at(g.origin)),
            f"#{len(g.executions)}",
            e(", ".join(sorted({c for c, _, _ in g.executions}))),
        ]
        for g in summary.warnings[:60]
    ]
    return [
        f'<h2>Deprecation warnings from passing executions <span class="muted">({count})</span></h2>',
        f"<p class='muted'>{e(deprecations_report.ENVIRONMENT_NOTE)}</p>",
        table(["library", "category", "message", "points at", "executions", "combos"], rows)
        if rows
        else "<p>None.</p>",
    ]


_HEAT_NOTES = {
    REFERENCE: "<p class='muted'>The modern idioms: a red cell left of a problem's first green "
    "one means the API did not exist yet in that release — not drift.</p>",
    OLD: "<p class='muted'>The old idioms: a red cell right of green ones is drift — the API "
    "change the problem names broke it there.</p>",
}


def render_repairs(repairs: RepairTable) -> list[str]:
    """``harness repair``'s verdicts: verified, version-conditioned, needs a human (why)."""
    counts = repairs.counts()
    shown = " · ".join(f"{counts[v]} {e(v)}" for v in VERDICTS if counts.get(v))
    out = [f'<h2>Repairs <span class="muted">({shown or "none"})</span></h2>']
    rows = [
        [
            f"<code>{e(r.problem_id)}</code>",
            e(r.verdict),
            ", ".join(f"<code>{e(c)}</code>" for c in r.codemods) or "–",
            "<br>".join(
                f"<code>{e(c)}</code> {e(r.original.get(c, '–'))} → {e(r.repaired.get(c, '–'))}"
                for c in repairs.order
                if c in r.original or c in r.repaired
            ),
            e(r.meaning or "–"),
            f"#{r.answers_kept}",
            e("; ".join(r.answers_changed) or "–"),
            e(r.reason or "–"),
        ]
        for r in repairs.rows
    ]
    header = ["problem", "verdict", "codemods", "original → repaired", "meaning"]
    header += ["answers kept", "answers changed", "why"]
    out.append(table(header, rows) if rows else "<p>No drifted problem to repair.</p>")
    if repairs.models:
        rows = [
            [
                f"<code>{e(m.model)}</code>",
                f"{pct(m.stale_rate)} ({m.stale}/{m.candidates})",
                f"{pct(m.api_stale_rate)} ({m.api_stale}/{m.candidates})",
                f"#{m.rewritten}",
            ]
            for m in repairs.models
        ]
        out.append(table(["model", "stale rate", "API-stale rate", "rewritten"], rows))
    return out


def render_upcoming(found: Sequence[Breakage]) -> list[str]:
    out = ["<h2>What will break next: references that fail only in the nightly lanes</h2>"]
    for group in upcoming.grouped(found):
        out.append(f"<p>{e(upcoming.sentence(group))}:</p>")
        rows = [[f"<code>{e(b.problem_id)}</code>", e(b.error), e(b.warning or "–")] for b in group]
        out.append(table(["problem", "error in the lane", "warning today"], rows))
    return out


def render_reach(summary: Summary, svg: str) -> list[str]:
    """Each problem's range on its library's release axis (``harness reach``)."""
    rows = [
        [
            f"<code>{e(r.problem_id)}</code>",
            e(r.library),
            e(r.pinned),
            e(f"{r.lowest} … {r.highest}" if r.klass else "–"),
            e(r.klass or r.note[:120]),
        ]
        for r in summary.reach
    ]
    out = [
        "<h2>How far each problem reaches over its library's releases</h2>",
        table(["problem", "library", "written for", "passes from … to", "class"], rows),
    ]
    if svg:
        out.append(f'<div class="reach">{svg}</div>')
    return out


def render_trends(t: Trends, svg: str) -> list[str]:
    header = ["series", *(e(trend_chart.night_label(t, i)) for i in range(len(t.nights)))]
    rows = [
        [e(trend_chart.label(s)), *(e(trend_chart.cell(v)) for v in s.values)] for s in t.series
    ]
    out = [f"<h2>Trends over the last {len(t.nights)} nights</h2>", table(header, rows)]
    if svg:
        out.append(f'<div class="trends">{svg}</div>')
    return out


def render_timeline(t: Timeline, svg: str) -> list[str]:
    refs = t.references
    return [
        "<h2>API vintage: when each model's answers fit the libraries best</h2>",
        (
            f"<p>{len(t.days)} dates from {t.days[0].isoformat()} to {t.days[-1].isoformat()}, "
            "each combo resolved as the index was that day. A model's share counts only the "
            "problems whose reference passes at every date (the same problems each time); "
            "its vintage is the date of its "
            "highest share, with a 95% bootstrap interval over problems.</p>"
        ),
        table(
            ["model", "vintage", "95% interval", "curve", "best share"],
            [[e(c) for c in row] for row in timeline_rows(t)],
        ),
        (
            f"<p>Half-life of the references passing on "
            f"{e(refs.anchor.isoformat() if refs.anchor else '–')}: "
            f"{e(timeline_half_life(refs))}.</p>"
        ),
        f'<div class="timeline">{svg}</div>',
    ]


def render_validity(summary: Summary) -> list[str]:
    """Where each reference passes: the releases of the library that bounds it."""
    limited = limited_ranges(summary.validity)
    count = f'<span data-count="limited">{len(limited)}</span>'
    note = e(validity_headline(summary.validity))
    out = [
        f'<h2>Validity ranges <span class="muted">({count} hold in part of the matrix)</span></h2>',
        f"<p>{note} Every range is in <code>validity.json</code>.</p>",
    ]
    rows = [
        [
            f"<code>{e(v.problem_id)}</code>",
            e(v.klass),
            " ".join(
                f"<code>{e(c)}</code> {'✓' if s == 'pass' else '✗'}" for c, s in v.combos.items()
            ),
            e(v.text()),
        ]
        for v in limited
    ]
    if rows:
        out.append(table(["problem", "class", "combos", "valid range"], rows))
    return out


def _md(text: str) -> str:
    """Escaped text, its `code` spans as <code>."""
    parts = e(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def render_glance(summary: Summary) -> list[str]:
    """The first screen: problems, where answers ran unsandboxed, what broke where, causes, news."""
    g = glance(summary)
    out = ["<h2>At a glance</h2>", f"<p data-glance='headline'>{_md(headline(g))}</p>"]
    out += [f"<p data-glance='unsandboxed'>{_md(w)}</p>" for w in [unsandboxed(g)] if w]
    rows = []
    for combo in g.order:
        cells = [f"<code>{e(combo)}</code>"]
        for source in g.sources:
            b = g.cell(combo, source)
            if b is None or not b.env_ok:
                cells.append("env_error" if b is not None else "–")
            elif b.ran:
                cells.append(
                    f'#<span data-broken="{e(combo)}|{e(source)}">{b.failed}</span> / {b.ran}'
                )
            else:
                cells.append("–")
        rows.append(cells)
    out.append("<p>Broke where (failing / ran, combos in era order):</p>")
    out.append(table(["combo", *[f"{s} failing" for s in g.sources]], rows))
    causes = "".join(
        f'<li data-cause="{e(c.cause)}">{e(c.cause)}: {c.total} '
        f"<span class='muted'>({e(', '.join(f'{s} {n}' for s, n in c.by_source))})</span></li>"
        for c in g.causes
    )
    out.append(
        "<p>Top causes of pass → fail steps:</p><ol>" + causes + "</ol>"
        if causes
        else "<p>Top causes of pass → fail steps: none.</p>"
    )
    out.append(f"<p data-glance='since'>{_md(since(g.changes))}</p>")
    if g.changes and g.changes.new_failures:
        out.append(
            "<ul>"
            + "".join(
                f"<li>new failure: <code>{e(i.combo)}</code> <code>{e(i.problem_id)}</code> "
                f"{e(i.source)}: {e(i.before)} → {e(i.after)}</li>"
                for i in g.changes.new_failures[:5]
            )
            + "</ul>"
        )
    return out


def render_idioms(stories: Sequence[IdiomStory]) -> list[str]:
    """Per problem of ours: where the old idiom breaks, where the modern one starts."""
    rows = []
    for s in stories:
        note = s.note
        rows.append(
            [
                f'<code data-story="{e(s.problem_id)}">{e(s.problem_id)}</code>',
                e(s.library),
                _md(f"{note.kind}: `{note.old_api}` → `{note.new_api}`") if note else "–",
                _md(f"`{s.old_last_good}` → `{s.old_first_bad}` ({s.library} {s.old_bad_version})")
                if s.old_breaks
                else e(s.old_class or "did not run"),
                e(s.cause or "–"),
                e(f"{s.library} {note.changed}" if note and note.changed else "–"),
                e(s.first_bad_release or "–"),
                {True: "yes", False: "<b>no</b>", None: "–"}[s.agrees],
                _md(f"`{s.modern_first_pass}` ({s.library} {s.modern_first_version})")
                if s.modern_first_pass
                else e(s.modern_class or "–"),
                _md(s.explanation),
            ]
        )
    breaks = sum(1 for s in stories if s.old_breaks)
    return [
        (
            f'<h2>Where each idiom holds <span class="muted">(<span data-count="old-breaks">'
            f"{breaks}</span> of {len(stories)} old idioms break)</span></h2>"
        ),
        f"<p>{_md(LEGEND)}</p>",
        table(
            [
                *COLUMNS,
                "what the red cells mean",
            ],
            rows,
        ),
    ]
