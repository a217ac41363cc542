"""The timeline of a run whose combos carry dates: each model's API vintage, the
references' decay, and their curves as pictures.

A run has a timeline when at least two of its combos were resolved as the index was on
a date (``[timeline.*]`` tables, or combos with ``as_of``). The curves are drawn with
Matplotlib: its SVG goes inline into ``report.html``, which stays one self-contained,
offline file, and the same figure is written as ``timeline.png`` and ``timeline.svg``
beside it.
"""

from __future__ import annotations

import datetime as dt
import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.problem import MODEL_PREFIX, REFERENCE
from harness.results import Status
from harness.vintage import Decay, Vintage, decay, vintage

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from pathlib import Path

    from harness.envs import EnvInfo
    from harness.results import Outcome

SAMPLES = 1000
JSON, PNG, SVG = "timeline.json", "timeline.png", "timeline.svg"  # in the run directory
# statuses that say nothing about the code: it could not run there
_NOT_RUN = frozenset({Status.SKIPPED, Status.ENV_ERROR})


@dataclass(frozen=True)
class Timeline:
    days: tuple[dt.date, ...]
    combos: tuple[str, ...]  # the combo of each date
    references: Decay
    models: tuple[Vintage, ...]

    def to_dict(self) -> dict[str, Any]:
        def points(curve: Iterable[Any]) -> list[dict[str, Any]]:
            return [
                {
                    "date": p.day.isoformat(),
                    "passed": p.passed,
                    "counted": p.counted,
                    "rate": p.rate,
                }
                for p in curve
            ]

        def day(value: dt.date | None) -> str | None:
            return value.isoformat() if value else None

        return {
            "dates": [d.isoformat() for d in self.days],
            "combos": list(self.combos),
            "references": {
                "curve": points(self.references.curve),
                "anchor": day(self.references.anchor),
                "surviving": points(self.references.surviving),
                "half_life_days": self.references.half_life_days,
                "half_life_extrapolated": self.references.extrapolated,
            },
            "models": [
                {
                    "model": v.source.removeprefix(MODEL_PREFIX),
                    "vintage": day(v.best),
                    "low": day(v.low),
                    "high": day(v.high),
                    "shape": list(v.shape),
                    "curve": points(v.curve),
                }
                for v in self.models
            ],
        }


def dated_combos(envs: Mapping[str, EnvInfo]) -> dict[str, dt.date]:
    """The run's combos that carry a date, in date order (one combo per date: the first)."""
    by_day: dict[dt.date, str] = {}
    for combo, env in envs.items():
        if env.as_of:
            by_day.setdefault(dt.date.fromisoformat(env.as_of), combo)
    return {combo: day for day, combo in sorted(by_day.items())}


def build(
    outcomes: Sequence[Outcome],
    envs: Mapping[str, EnvInfo],
    *,
    samples: int = SAMPLES,
    seed: int = 0,
) -> Timeline | None:
    """The run's timeline; None when fewer than two of its combos carry a date."""
    dated = dated_combos(envs)
    if len(dated) < 2:
        return None
    days = tuple(dated.values())
    tables: dict[str, dict[str, dict[dt.date, bool | None]]] = {}
    for o in outcomes:
        day = dated.get(o.combo)
        if day is None:
            continue
        passed = None if o.status in _NOT_RUN else o.status is Status.PASS
        tables.setdefault(o.source, {}).setdefault(o.problem_id, {})[day] = passed
    references = tables.get(REFERENCE, {})
    # The models are compared on the same problems at every date: those whose reference
    # passes at every date it ran. Counting at each date the problems that hold there
    # would move the denominator with the problems' own drift (801 to 862 of DS-1000's),
    # and that movement, not the answers, would pick the best date.
    steady = {
        problem: by_day
        for problem, by_day in references.items()
        if any(v is not None for v in by_day.values())
        and all(v is not False for v in by_day.values())
    }
    models = tuple(
        vintage(
            source,
            {p: a for p, a in table.items() if p in steady},
            steady,
            days,
            samples=samples,
            seed=seed,
        )
        for source, table in sorted(tables.items())
        if source.startswith(MODEL_PREFIX)
    )
    return Timeline(days, tuple(dated), decay(references, days), models)


def figure_svg(timeline: Timeline, png: Path | None = None, svg: Path | None = None) -> str:
    """The curves as SVG text (written to ``svg`` and as PNG to ``png`` when given)."""
    # imported here: a second of start-up that only a run with a timeline pays
    from matplotlib import dates as mdates  # noqa: PLC0415
    from matplotlib.figure import Figure  # noqa: PLC0415

    def date2num(day: dt.date) -> float:
        return float(mdates.date2num(day))  # type: ignore[no-untyped-call]

    fig = Figure(figsize=(8, 4.2), layout="constrained")
    ax = fig.add_subplot()
    days = [date2num(d) for d in timeline.days]
    locator = mdates.AutoDateLocator()  # type: ignore[no-untyped-call]
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]

    def rates(curve: Iterable[Any]) -> list[float]:
        return [100 * p.rate if p.rate is not None else float("nan") for p in curve]

    ax.plot(days, rates(timeline.references.curve), "k-", lw=2.5, label="references pass")
    for v in timeline.models:
        (line,) = ax.plot(
            days, rates(v.curve), marker="o", ms=3, label=v.source.removeprefix(MODEL_PREFIX)
        )
        if v.best is not None:
            ax.axvline(date2num(v.best), color=line.get_color(), ls=":", lw=1)
            if v.low is not None and v.high is not None and v.low != v.high:
                low, high = (date2num(d) for d in (v.low, v.high))
                ax.axvspan(low, high, color=line.get_color(), alpha=0.08)
    ax.set_ylabel("% passing (answers: where the reference holds)")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title("Pass rate by the libraries' date; dotted: each model's vintage")
    if png is not None:
        fig.savefig(png, dpi=120)
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    text = buffer.getvalue()
    if svg is not None:
        svg.write_text(text, encoding="utf-8")
    return text[text.index("<svg") :]  # without the XML prologue, to sit inside HTML


def half_life(d: Decay) -> str:
    if d.half_life_days is None:
        return "none within the timeline (nothing decays)" if d.anchor else "–"
    years = d.half_life_days / 365.25
    return f"{years:.1f} years" + (" (extrapolated)" if d.extrapolated else "")


def rows(timeline: Timeline) -> list[list[str]]:
    """The estimates' table: model, vintage, 95% interval, curve shape, best share."""
    out = []
    for v in timeline.models:
        top = max((p.rate for p in v.curve if p.rate is not None), default=None)
        out.append(
            [
                v.source.removeprefix(MODEL_PREFIX),
                v.best.isoformat() if v.best else "– (" + ", ".join(v.shape) + ")",
                f"{v.low.isoformat()} … {v.high.isoformat()}" if v.low and v.high else "–",
                ", ".join(v.shape),
                f"{100 * top:.1f}%" if top is not None else "–",
            ]
        )
    return out
