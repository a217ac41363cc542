"""``audit.json`` and ``audit.md``: what ``harness audit`` found of each problem's tests
(:mod:`harness.audit.health`), rendered; and the one cell per problem report.html shows."""

from __future__ import annotations

import statistics
from collections import Counter
from typing import TYPE_CHECKING, Any

from harness.audit.health import HEADROOM, Flag, counts, flagged
from harness.reports.page import e, table

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from harness.audit.health import Health, Weakened

# How many problems each section of audit.md lists (audit.json holds them all).
SHOWN = 40

MEANING = {
    Flag.WEAK: "a null answer passes, or a mutant computing other values than the reference's",
    Flag.FLAKY: "the reference's verdict changes between runs (seeds, hash seeds, order)",
    Flag.NONDETERMINISTIC: "the reference's values change between runs: unseeded inputs, "
    "so answers' verdicts may be weather",
    Flag.SLOW: f"the time limit is less than {HEADROOM:g}× the reference's time here",
    Flag.UNSAFE: "answers graded in their own process, beside their tests",
    Flag.NETWORK: "reached for the network, which the sandbox (and upstream's CI) may lack",
    Flag.DATA: "needed data downloaded ahead",
    Flag.REFERENCE_FAILS: "the reference fails here, so its probes prove nothing",
    Flag.WEAKENED: "a mutant killed in one combo survives in a later one",
}


def to_json(
    healths: Sequence[Health], found: Sequence[Weakened], settings: Mapping[str, Any]
) -> dict[str, Any]:
    return {
        "settings": dict(settings),
        "counts": counts(healths, found),
        "scores": score_summary(healths),
        "cells": cells(healths),
        "flagged": flagged(healths, found),
        "problems": [h.to_dict() for h in healths],
        "weakened": [w.to_dict() for w in found],
    }


def score_summary(healths: Sequence[Health]) -> dict[str, Any]:
    """The distribution of mutation scores where the reference passes."""
    scores = [h.score for h in healths if h.score is not None and h.reference == "pass"]
    buckets = Counter(_bucket(s) for s in scores)
    return {
        "scored": len(scores),
        "median": round(statistics.median(scores), 3) if scores else None,
        "mean": round(statistics.fmean(scores), 3) if scores else None,
        "buckets": {b: buckets.get(b, 0) for b in _BUCKETS},
    }


_BUCKETS = ("1", "0.8–1", "0.5–0.8", "<0.5")


def _bucket(score: float) -> str:
    if score >= 1:
        return "1"
    if score >= 0.8:
        return "0.8–1"
    return "0.5–0.8" if score >= 0.5 else "<0.5"


# The flags the nightly issue reports when a problem newly carries one.
NEWS = (Flag.WEAK, Flag.FLAKY, Flag.NONDETERMINISTIC, Flag.WEAKENED, Flag.SLOW, Flag.UNSAFE)


def news(now: Mapping[str, Sequence[str]], before: Mapping[str, Sequence[str]] | None) -> list[str]:
    """The nightly issue's section: problems newly flagged since the audit ``before``
    (every flagged one when there is none), flag by flag; [] when none is new."""
    lines = []
    for flag in NEWS:
        new = sorted(set(now.get(str(flag), ())) - set((before or {}).get(str(flag), ())))
        if new:
            shown = ", ".join(f"`{p}`" for p in new[:20]) + (
                f" and {len(new) - 20} more" if len(new) > 20 else ""
            )
            lines.append(f"- {flag} ({MEANING[flag]}): {shown}")
    if not lines:
        return []
    since = "since the last audit" if before is not None else "in the first audit"
    return [f"### Test health: newly flagged {since}", "", *lines, ""]


def cells(healths: Sequence[Health]) -> dict[str, str]:
    """Each audited problem's :func:`cell`."""
    by_problem: dict[str, list[Health]] = {}
    for h in healths:
        by_problem.setdefault(h.problem_id, []).append(h)
    return {problem: cell(found) for problem, found in by_problem.items()}


def cell(healths: Sequence[Health]) -> str:
    """One problem's audit in one short text (report.html's tests column): its flags
    over the combos and its lowest mutation score; "" when it was not audited."""
    if not healths:
        return ""
    flags = sorted({str(f) for h in healths for f in h.flags})
    scores = [h.score for h in healths if h.score is not None and h.reference == "pass"]
    score = f"score {min(scores):.2f}" if scores else ""
    return ", ".join([*flags, score] if score else flags) or "ok"


def html_section(tests: Mapping[str, str]) -> list[str]:
    """report.html's section: the audited problems whose tests were flagged (``tests``:
    :func:`cells`), with audit.md named for the evidence."""
    flagged = sorted((p, t) for p, t in tests.items() if t != "ok")
    count = f'<span data-count="tests-flagged">{len(flagged)}</span> of {len(tests)} audited'
    rows = [[f"<code>{e(p)}</code>", e(t)] for p, t in flagged[:300]]
    return [
        f'<h2>Test health <span class="muted">({count}; see audit.md)</span></h2>',
        table(["problem", "tests"], rows) if rows else "<p>None flagged.</p>",
    ]


def markdown(healths: Sequence[Health], found: Sequence[Weakened]) -> str:
    counted = counts(healths, found)
    problems = len({h.problem_id for h in healths})
    combos = sorted({h.combo for h in healths})
    lines = [
        "# Test health audit",
        "",
        f"{problems} problems in {len(combos)} combos ({', '.join(combos)}).",
        "",
        "| flag | problems | meaning |",
        "|---|---:|---|",
        *(f"| {f} | {counted[str(f)]} | {MEANING[f]} |" for f in Flag),
        "",
        *_scores(healths),
        *_weak(healths),
        *_equivalents(healths),
        *_listed(healths, Flag.FLAKY, lambda h: "verdicts " + ", ".join(h.verdicts)),
        *_listed(healths, Flag.NONDETERMINISTIC, lambda h: "verdicts " + ", ".join(h.verdicts)),
        *_listed(
            healths,
            Flag.SLOW,
            lambda h: f"{h.duration_s:.2f} s of a {h.limit_s:g} s limit ({h.headroom or 0:.1f}×)",
        ),
        *_listed(healths, Flag.UNSAFE, lambda h: h.graded_why or "graded in-process"),
        *_listed(healths, Flag.NETWORK, lambda h: h.needs_evidence),
        *_listed(healths, Flag.DATA, lambda h: h.needs_evidence),
        *_weakened(found),
    ]
    return "\n".join(lines).rstrip() + "\n"


def _scores(healths: Sequence[Health]) -> list[str]:
    summary = score_summary(healths)
    if not summary["scored"]:
        return []
    row = " | ".join(str(summary["buckets"][b]) for b in _BUCKETS)
    return [
        "## Mutation scores",
        "",
        (
            f"Over {summary['scored']} (problem, combo) pairs whose reference passes: median "
            f"{summary['median']}, mean {summary['mean']}."
        ),
        "",
        "| " + " | ".join(_BUCKETS) + " |",
        "|" + "---:|" * len(_BUCKETS),
        f"| {row} |",
        "",
    ]


def _weak(healths: Sequence[Health]) -> list[str]:
    weak = [h for h in healths if Flag.WEAK in h.flags]
    if not weak:
        return []
    lines = ["## Weak: wrong answers the tests accept", ""]
    for h in weak[:SHOWN]:
        said = []
        if h.nulls_passed:
            said.append("passes " + ", ".join(h.nulls_passed))
        if h.mutants:
            said.append(f"mutation score {h.killed}/{h.mutants}")
        lines.append(f"- **{h.problem_id}** in `{h.combo}`: " + "; ".join(said))
        for s in h.wrongly_accepted:
            lines += [f"  - {s.name} ({s.operator}), {s.description}", "", "    ```diff"]
            lines += ["    " + line for line in s.diff.splitlines()]
            lines += ["    ```", ""]
    if len(weak) > SHOWN:
        lines.append(f"- … and {len(weak) - SHOWN} more in audit.json")
    return [*lines, ""]


def _equivalents(healths: Sequence[Health]) -> list[str]:
    alike = [(h, s) for h in healths for s in h.survivors if s.equivalent]
    unknown = [(h, s) for h in healths for s in h.survivors if s.equivalent is None]
    if not alike and not unknown:
        return []
    lines = [
        "## Survivors the tests may rightly pass",
        "",
        (
            f"{len(alike)} surviving mutants sent the check the reference copy's own values "
            f"(likely equivalent: equal digests of what the check reads); {len(unknown)} "
            "could not be compared."
        ),
        "",
    ]
    lines += [f"- {h.problem_id} `{h.combo}` {s.name}: {s.description}" for h, s in alike[:SHOWN]]
    why = Counter(s.uncompared or "not said" for _, s in unknown)
    if why:
        lines += ["", "Why survivors could not be compared:", ""]
        lines += [f"- {n} × {reason}" for reason, n in why.most_common(SHOWN)]
    return [*lines, ""]


def _listed(healths: Sequence[Health], flag: Flag, say: Any) -> list[str]:
    flagged = [h for h in healths if flag in h.flags]
    if not flagged:
        return []
    lines = [f"## {str(flag).capitalize()}", "", MEANING[flag] + ".", ""]
    lines += [f"- **{h.problem_id}** in `{h.combo}`: {say(h)}" for h in flagged[:SHOWN]]
    if len(flagged) > SHOWN:
        lines.append(f"- … and {len(flagged) - SHOWN} more in audit.json")
    return [*lines, ""]


def _weakened(found: Sequence[Weakened]) -> list[str]:
    if not found:
        return []
    lines = ["## Weakened", "", MEANING[Flag.WEAKENED] + ".", ""]
    for w in found:
        f = w.finding
        where = (
            f"; bisected: first release that passes it {w.library} {f.first_bad} "
            f"(last that fails it {f.last_good})"
            if f is not None and f.first_bad
            else (f"; bisection: {f.how}" if f is not None else "")
        )
        lines += [
            (
                f"- **{w.problem_id}** {w.mutant} ({w.description}): killed in `{w.killed_in}` "
                f"({w.library} {w.versions[0]}), survives in `{w.survived_in}` "
                f"({w.library} {w.versions[1]}){where}"
            ),
            "",
            "  ```diff",
            *("  " + line for line in w.diff.splitlines()),
            "  ```",
            "",
        ]
    return lines
