"""What a model knows, dated from where its answers work (harness/analysis/knowledge.py),
on sources whose answer is known."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.analysis.knowledge import Knowledge, best_day, by_source, knowledge
from harness.analysis.ranges import Reach

D = dt.date
# four API changes of one library, each release's day
RELEASES = {"1.0": D(2020, 1, 1), "2.0": D(2021, 1, 1), "3.0": D(2022, 1, 1), "4.0": D(2023, 1, 1)}
SERIES = list(RELEASES)


def answer(problem: str, source: str, lowest: str, highest: str, pinned: str) -> Reach:
    """A range over SERIES: passes from ``lowest`` to ``highest``."""
    at, lo, hi = SERIES.index(pinned), SERIES.index(lowest), SERIES.index(highest)
    error = 0 if lo <= at <= hi else (hi - at if hi < at else lo - at)
    return Reach(
        problem,
        "lib",
        pinned,
        "3.11",
        lowest=lowest,
        highest=highest,
        below=SERIES[lo - 1] if lo > 0 else None,
        above=SERIES[hi + 1] if hi + 1 < len(SERIES) else None,
        oldest=SERIES[0],
        source=source,
        error=error,
        dates={v: d.isoformat() for v, d in RELEASES.items()},
    )


def fixed_release_model(release: str) -> list[Reach]:
    """A synthetic model whose knowledge is ``release``: for the problem of each change it
    answers with the idiom that works up to the change (the old one) when the change came
    after its release, else with the modern one (which works from the change on)."""
    known = SERIES.index(release)
    out = []
    for i, changed in enumerate(SERIES[1:], start=1):
        if i > known:  # the change is newer than what it knows: the old idiom
            out.append(answer(f"p{i}", "model:m", SERIES[0], SERIES[i - 1], changed))
        else:
            out.append(answer(f"p{i}", "model:m", changed, SERIES[-1], changed))
    return out


def test_a_model_that_knows_one_release_comes_out_at_that_release() -> None:
    for release in SERIES:
        found = knowledge("model:m", fixed_release_model(release), samples=200)
        after = SERIES[SERIES.index(release) + 1] if release != SERIES[-1] else None
        # between its release and the next change: the only days every answer works on
        assert found.date is not None
        assert RELEASES[release] <= found.date, (release, found.date)
        assert after is None or found.date < RELEASES[after], (release, found.date)
        assert found.support == 3  # every answer's code works on that day


def test_old_idioms_are_stale_and_modern_ones_are_not() -> None:
    old = [
        answer(f"p{i}", "idiom:old", SERIES[0], SERIES[i - 1], c)
        for i, c in enumerate(SERIES[1:], 1)
    ]
    modern = [answer(f"p{i}", "reference", c, SERIES[-1], c) for i, c in enumerate(SERIES[1:], 1)]
    stale = knowledge("idiom:old", [*old, *modern], samples=100)
    assert stale.errors == {-1: 3} and stale.stale == 1.0
    assert stale.date is not None and stale.date < RELEASES["2.0"]  # before every change
    assert [k.source for k in by_source([*old, *modern], samples=50)] == ["idiom:old"]


def test_an_answer_that_works_nowhere_is_not_dated() -> None:
    nowhere = Reach("p", "lib", "2.0", "3.11", source="model:m", note="fails at its own release")
    found = knowledge("model:m", [nowhere, *fixed_release_model("3.0")], samples=50)
    assert (found.answers, found.ranged) == (4, 3)
    assert Knowledge.from_dict(found.to_dict()) == found


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 400), st.integers(1, 400)).map(lambda t: (t[0], t[0] + t[1])),
        min_size=1,
        max_size=8,
    )
)
def test_the_best_day_is_inside_the_most_spans(raw: list[tuple[int, int]]) -> None:
    start = D(2020, 1, 1)
    spans = [(start + dt.timedelta(days=a), start + dt.timedelta(days=b)) for a, b in raw]
    day, count = best_day(spans)
    assert day is not None
    inside = sum(a <= day < b for a, b in spans)
    assert inside == count
    # no day holds more
    for probe in {d for span in spans for d in span}:
        assert sum(a <= probe < b for a, b in spans) <= count
