"""The API-vintage estimator and the references' decay (harness/analysis/vintage.py), on
synthetic outcomes whose answer is known: a peak, a plateau, a flat curve, problem
drift that must not be charged to the model, and a half-life."""

from __future__ import annotations

import datetime as dt

import pytest

from harness.analysis.vintage import (
    DECAY,
    FLAT,
    NO_DATA,
    PLATEAU,
    RISE,
    best_index,
    decay,
    shape,
    vintage,
)

DAYS = [dt.date(2020 + i // 2, 1 + 6 * (i % 2), 1) for i in range(8)]  # 2020-01 … 2023-07


def table(rows: dict[str, str]) -> dict[str, dict[dt.date, bool | None]]:
    """'1' pass, '0' fail, '.' could not run, one character per date."""
    value = {"1": True, "0": False, ".": None}
    return {p: {d: value[c] for d, c in zip(DAYS, row, strict=True)} for p, row in rows.items()}


ALL_HOLD = table({f"p{i}": "11111111" for i in range(40)})


@pytest.mark.parametrize(
    ("rates", "index", "words"),
    [
        ([0.1, 0.5, 0.9, 0.4], 2, (RISE, DECAY)),
        ([0.1, 0.9, 0.9, 0.9, 0.2], 2, (RISE, PLATEAU, DECAY)),  # the middle of a tie
        ([0.9, 0.9, 0.2], 0, (PLATEAU, DECAY)),  # two tied: the earlier middle
        ([0.5, 0.5, 0.5], None, (FLAT,)),
        ([None, 0.3, None], 1, (FLAT,)),  # one known point: it is the best, but says nothing
        ([None, None], None, (NO_DATA,)),
        ([0.2, None, 0.6], 2, (RISE,)),
    ],
)
def test_best_index_and_shape(
    rates: list[float | None], index: int | None, words: tuple[str, ...]
) -> None:
    assert best_index(rates) == index
    assert shape(rates) == words


def test_a_model_that_learned_the_2021_apis_peaks_in_2021() -> None:
    # 40 problems: every answer passes in 2021-01 and 2021-07; 30 pass a year either side,
    # 10 two years away
    rows = {}
    for i in range(40):
        near = i < 30
        rows[f"p{i}"] = "0" + ("1" if near else "0") + "11" + ("1" if near else "0") + "000"
    v = vintage("m", table(rows), ALL_HOLD, DAYS, samples=300)
    assert [p.passed for p in v.curve] == [0, 30, 40, 40, 30, 0, 0, 0]
    assert all(p.counted == 40 for p in v.curve)
    assert v.best == dt.date(2021, 1, 1)  # two tied: the earlier middle
    assert v.shape == (RISE, PLATEAU, DECAY)
    assert v.low is not None and v.high is not None
    assert v.low <= v.best <= v.high
    assert dt.date(2020, 7, 1) <= v.low and v.high <= dt.date(2021, 7, 1)


def test_problem_drift_is_never_charged_to_the_model() -> None:
    # the answers fail in 2023 only where the reference fails too: no decay for the model
    answers = table({f"p{i}": "11111100" if i < 20 else "11111111" for i in range(40)})
    references = table({f"p{i}": "11111100" if i < 20 else "11111111" for i in range(40)})
    v = vintage("m", answers, references, DAYS, samples=50)
    assert [p.counted for p in v.curve] == [40] * 6 + [20, 20]
    assert v.shape == (FLAT,)
    assert (v.best, v.low, v.high) == (None, None, None)


def test_answers_that_could_not_run_are_not_counted() -> None:
    answers = table({"a": "....1111", "b": "....0111"})
    v = vintage("m", answers, table({"a": "11111111", "b": "11111111"}), DAYS, samples=50)
    assert [p.counted for p in v.curve] == [0, 0, 0, 0, 2, 2, 2, 2]
    assert v.best == dt.date(2023, 1, 1)  # the middle of the 3-date plateau
    assert v.shape == (RISE, PLATEAU)


def test_the_bootstrap_is_reproducible() -> None:
    rows = {f"p{i}": format(i * 37 % 256, "08b") for i in range(60)}
    one = vintage("m", table(rows), ALL_HOLD, DAYS, samples=200, seed=3)
    two = vintage("m", table(rows), ALL_HOLD, DAYS, samples=200, seed=3)
    assert one == two


def test_decay_and_half_life_crossed_within_the_timeline() -> None:
    # 2020-01 is the references' best (10 of 10); four fail from 2021-01, six from 2022-01
    rows = {
        f"p{i}": "11" + ("0" if i < 4 else "1") * 2 + ("0" if i < 6 else "1") * 4 for i in range(10)
    }
    d = decay(table(rows), DAYS)
    assert d.anchor == dt.date(2020, 1, 1)
    assert [round(p.rate or 0, 2) for p in d.surviving] == [1, 1, 0.6, 0.6, 0.4, 0.4, 0.4, 0.4]
    # 0.6 on 2021-07-01 → 0.4 on 2022-01-01: the half is crossed halfway
    start, a, b = dt.date(2020, 1, 1), dt.date(2021, 7, 1), dt.date(2022, 1, 1)
    assert d.half_life_days == pytest.approx((a - start).days + 0.5 * (b - a).days)
    assert d.extrapolated is False


def test_a_half_life_beyond_the_timeline_is_extrapolated() -> None:
    rows = {f"p{i}": "11111111" if i >= 2 else "11110000" for i in range(20)}
    d = decay(table(rows), DAYS)
    assert d.extrapolated is True
    assert d.half_life_days is not None and d.half_life_days > (DAYS[-1] - DAYS[0]).days


def test_no_decay_has_no_half_life() -> None:
    d = decay(ALL_HOLD, DAYS)
    assert (d.half_life_days, d.extrapolated) == (None, False)
    assert [p.rate for p in d.curve] == [1.0] * 8
