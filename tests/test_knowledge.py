"""What a model knows, dated from where its answers work (harness/analysis/knowledge.py),
on sources whose answer is known."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from harness.analysis.dating import LOWER, UNDATED
from harness.analysis.knowledge import Knowledge, by_source, knowledge
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


def test_a_model_that_knows_one_release_is_dated_no_earlier_than_that_release() -> None:
    for release in SERIES:
        found = knowledge("model:m", fixed_release_model(release)).dating
        if release == SERIES[0]:
            # it shows no change: nothing dates it
            assert found.kind == UNDATED and found.informative == 3
            continue
        # the newest change its answers need is its release's; the one newer change they
        # miss is too little to bound it above (one change of three, a chance of 1/3)
        assert (found.kind, found.low) == (LOWER, RELEASES[release])
        assert found.ceiling == RELEASES[SERIES[-1]]
        assert found.low_change == f"lib {release}"


def test_many_answers_to_few_changes_cannot_bound_it_above() -> None:
    # the same three problems answered again and again: still three changes met
    many = [
        replace(r, problem_id=f"{r.problem_id}-{n}")
        for n in range(50)
        for r in fixed_release_model("2.0")
    ]
    found = knowledge("model:m", many).dating
    assert (found.kind, found.low, found.changes) == (LOWER, RELEASES["2.0"], 3)
    assert found.informative == 150


def test_old_idioms_are_stale_and_modern_ones_are_not() -> None:
    old = [
        answer(f"p{i}", "idiom:old", SERIES[0], SERIES[i - 1], c)
        for i, c in enumerate(SERIES[1:], 1)
    ]
    modern = [answer(f"p{i}", "reference", c, SERIES[-1], c) for i, c in enumerate(SERIES[1:], 1)]
    stale = knowledge("idiom:old", [*old, *modern])
    assert stale.errors == {-1: 3} and stale.stale == 1.0
    # it never needs a newer release: undated, though every change was met
    assert stale.dating.kind == UNDATED and stale.dating.changes == 3
    assert [k.source for k in by_source([*old, *modern])] == ["idiom:old"]


def test_an_answer_that_works_nowhere_is_not_dated() -> None:
    nowhere = Reach("p", "lib", "2.0", "3.11", source="model:m", note="fails at its own release")
    found = knowledge("model:m", [nowhere, *fixed_release_model("3.0")])
    assert (found.answers, found.ranged) == (4, 3)
    assert (found.dating.answers, found.dating.informative) == (4, 3)
    assert Knowledge.from_dict(found.to_dict()) == found
