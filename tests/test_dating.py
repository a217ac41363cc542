"""Dates that know their limits (harness/analysis/dating.py): on synthetic models of known
cut-off, the statement — an interval, or a labelled bound — holds at the stated rate."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.analysis.dating import (
    INTERVAL,
    LEVEL,
    LOWER,
    UNDATED,
    Dating,
    Evidence,
    chance_none_shown,
    date,
)

START = dt.date(2015, 1, 1)
YEARS = 10  # the changes come out over ten years
TOLERANCE = 0.02  # ~3 standard errors of a rate near 0.95 over ~1,000 statements


@dataclass(frozen=True)
class Model:
    """A synthetic model: it knows its libraries as of ``cutoff``."""

    cutoff: dt.date
    evidence: tuple[Evidence, ...]
    answers: int


def synthetic(rng: random.Random, answers: int, *, spread: float = 0.3) -> Model:
    """A model of random cut-off meeting a random catalogue: each answer meets one or two
    changes (some changes far more often than others); it shows a change only when the
    change came out by its cut-off, and then at that change's own rate (around the model's
    rate, ``spread`` apart)."""
    days = [
        START + dt.timedelta(days=rng.randrange(365 * YEARS)) for _ in range(rng.randint(3, 30))
    ]
    changes = [(day, f"lib {i}") for i, day in enumerate(days)]
    weights = [rng.expovariate(1.0) for _ in changes]
    cutoff = START + dt.timedelta(days=rng.randrange(365 * YEARS))
    rate = rng.uniform(0.05, 0.6)
    rates = {c: min(1.0, max(0.0, rng.gauss(rate, spread))) for c in changes}
    evidence = []
    for a in range(answers):
        for day, name in {*rng.choices(changes, weights, k=rng.choice((1, 1, 2)))}:
            shows = day <= cutoff and rng.random() < rates[(day, name)]
            evidence.append(Evidence(f"p/{a}", name, day, shows))
    return Model(cutoff, tuple(evidence), answers)


def holds(found: Dating, truth: dt.date) -> bool:
    """Whether the statement made holds of ``truth`` (an undated one states nothing)."""
    if found.low is not None and truth < found.low:
        return False
    return found.high is None or truth < found.high


def coverage(
    models: list[Model], *, level: float = LEVEL, every_answer: bool = False
) -> tuple[float, float, int]:
    """Of the statements made about ``models``: the share holding, the share of intervals
    holding, and how many intervals. ``every_answer``: each answer its own unit (the
    reading this module does not make), to show what the test catches."""
    stated = held = intervals = intervals_held = 0
    for m in models:
        evidence = m.evidence
        if every_answer:
            evidence = tuple(
                Evidence(e.problem, f"{e.change}/{e.problem}", e.day, e.shows) for e in evidence
            )
        found = date(evidence, m.answers, level)
        if found.kind == UNDATED:
            continue
        stated += 1
        held += holds(found, m.cutoff)
        if found.kind == INTERVAL:
            intervals += 1
            intervals_held += holds(found, m.cutoff)
    return held / stated, intervals_held / max(intervals, 1), intervals


def test_statements_on_models_with_little_evidence_hold_at_the_stated_rate() -> None:
    rng = random.Random(20261206)
    models = [synthetic(rng, rng.randint(1, 12)) for _ in range(3000)]
    held, _, _ = coverage(models)
    assert held >= LEVEL - TOLERANCE, held
    # the same test catches a statement made at a looser level than it says
    loose, _, _ = coverage(models, level=0.5)
    assert loose < LEVEL - TOLERANCE, loose


def test_intervals_hold_at_the_stated_rate() -> None:
    rng = random.Random(7)
    models = [synthetic(rng, rng.randint(1, 60)) for _ in range(3000)]
    held, intervals_held, intervals = coverage(models)
    assert intervals >= 250, intervals  # enough intervals to tell
    assert held >= LEVEL - TOLERANCE, held
    assert intervals_held >= LEVEL - TOLERANCE, intervals_held
    # counting every answer (a change met often weighs more) misses the stated rate when
    # changes differ in how often a model that knows them shows them
    _, every, _ = coverage(models, every_answer=True)
    assert every < LEVEL - TOLERANCE, every


def test_more_answers_narrow_the_interval() -> None:
    def widths(answers: int) -> list[int]:
        rng = random.Random(answers)
        out = []
        for _ in range(600):
            found = date(synthetic(rng, answers, spread=0.0).evidence, answers)
            if found.low is not None and found.high is not None:
                out.append((found.high - found.low).days)
        return sorted(out)

    few, many = widths(15), widths(200)
    assert len(many) > 2 * len(few)  # bounded on both sides more often
    assert many[len(many) // 2] < few[len(few) // 2]  # and narrower


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40))
def test_the_lower_bound_never_passes_the_cut_off(seed: int, answers: int) -> None:
    model = synthetic(random.Random(seed), answers)
    found = date(model.evidence, answers)
    assert found.low is None or found.low <= model.cutoff
    assert found.kind in (INTERVAL, LOWER, UNDATED)
    if found.high is not None:
        assert found.low is not None and found.low < found.high <= (found.ceiling or found.high)
    assert Dating.from_dict(found.to_dict()) == found


def test_a_benchmark_that_asks_for_nothing_newer_gives_a_bound_not_an_interval() -> None:
    # every change met came out by 2022; the model knows 2024: it shows the newest it met
    # as often as it shows the others, so nothing bounds it above
    d = dt.date
    changes = [(d(2019, 5, 1), "lib 1.0"), (d(2021, 3, 1), "lib 2.0"), (d(2022, 6, 1), "lib 3.0")]
    evidence = [
        Evidence(f"p/{i}", name, day, shows=i % 2 == 0)
        for i, (day, name) in enumerate(changes * 10)
    ]
    found = date(evidence, 40)
    assert found.kind == LOWER
    assert (found.low, found.ceiling, found.high) == (d(2022, 6, 1), d(2022, 6, 1), None)
    assert (found.informative, found.answers, found.changes, found.shown) == (30, 40, 3, 3)


def test_an_interval_needs_changes_met_and_missed_after_the_lower_bound() -> None:
    d = dt.date
    shown = [Evidence(f"p/{i}", f"old {i}", d(2018, 1, 1 + i), True) for i in range(6)]
    missed = [Evidence(f"q/{i}", f"new {i}", d(2023, 1, 1 + i), False) for i in range(12)]
    # six changes shown, then twelve newer ones met and none shown: C(6,6)/C(6+m,6) < 5%
    # from m = 2 on (1/28)
    found = date([*shown, *missed], 18)
    assert found.kind == INTERVAL
    assert (found.low, found.high) == (d(2018, 1, 6), d(2023, 1, 2))
    assert found.high_change == "new 1" and found.after == 12
    # with only one newer change missed the chance is 1/7: a bound, no interval
    assert date([*shown, *missed[:1]], 7).kind == LOWER


def test_the_chance_that_no_late_change_is_shown() -> None:
    assert chance_none_shown(6, 6, 1) == 1 / 7
    assert chance_none_shown(10, 0, 5) == 1.0
    assert chance_none_shown(2, 3, 1) == 0.0
    # brute force: every way of choosing k shown among n + m
    from itertools import combinations  # noqa: PLC0415

    n, k, m = 5, 2, 3
    ways = list(combinations(range(n + m), k))
    assert chance_none_shown(n, k, m) == sum(max(w) < n for w in ways) / len(ways)


def test_nothing_shown_dates_nothing() -> None:
    evidence = [Evidence("p/1", "lib 2.0", dt.date(2021, 1, 1), False)]
    found = date(evidence, 3)
    assert found.kind == UNDATED
    assert (found.informative, found.ceiling_change) == (1, "lib 2.0")
    assert date([], 5) == Dating(answers=5)
