"""Properties of ``drift.era_order``, checked with hypothesis.

``era_order`` is a topological sort of "strictly older" (no shared library newer, one
shared library older) that falls back to matrix order where the relation says nothing
or, over combos that share different libraries, even contradicts itself. What holds:

* the result is a permutation of the input, whatever the versions;
* where "older" has no cycle, every combo comes after every combo strictly older than
  it, for any input order; over one library the result is exactly a stable sort by
  version (ties, such as ``1.2`` and ``1.2.0``, keep matrix order);
* combos that nothing orders keep matrix order; without a cycle, sorting twice changes
  nothing;
* versions that do not parse, and a library at one version everywhere, change nothing.

The oracle below restates "strictly older" from its definition, not from the module.
"""

from __future__ import annotations

import graphlib
import itertools
from collections.abc import Mapping

from hypothesis import assume, example, given
from hypothesis import strategies as st
from packaging.version import Version

from harness.analysis.drift import era_order

Versions = dict[str, dict[str, str]]
KEYS = ("python", "numpy", "pandas")

# Few distinct numbers so that ties and incomparable pairs are common; ".0" spellings
# of one version compare equal, which the order must treat as a tie.
_release = st.tuples(st.integers(1, 3), st.integers(0, 2)).flatmap(
    lambda t: st.sampled_from([f"{t[0]}.{t[1]}", f"{t[0]}.{t[1]}.0"])
)


def _ids(n: int) -> list[str]:
    return [f"c{i}" for i in range(n)]


@st.composite
def same_libraries(draw: st.DrawFn, min_size: int = 0) -> tuple[list[str], Versions]:
    """Combos that all pin the same libraries: "older" is then the product order."""
    keys = draw(st.lists(st.sampled_from(KEYS), min_size=1, unique=True))
    combos = _ids(draw(st.integers(min_size, 7)))
    versions = {c: {k: draw(_release) for k in keys} for c in combos}
    return combos, versions


@st.composite
def any_libraries(draw: st.DrawFn) -> tuple[list[str], Versions]:
    """Combos pinning any subset of libraries, some with no versions at all (no env)."""
    combos = _ids(draw(st.integers(0, 7)))
    versions = {}
    for c in combos:
        if draw(st.booleans()):
            versions[c] = draw(st.dictionaries(st.sampled_from(KEYS), _release, max_size=3))
    return combos, versions


def strictly_older(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    """``a`` is older than ``b``: on the libraries both pin, none newer and one older."""
    shared = [k for k in a if k in b]
    return (
        bool(a)
        and bool(b)
        and all(Version(a[k]) <= Version(b[k]) for k in shared)
        and any(Version(a[k]) < Version(b[k]) for k in shared)
    )


def older_pairs(combos: list[str], versions: Versions) -> list[tuple[str, str]]:
    return [
        (a, b)
        for a, b in itertools.permutations(combos, 2)
        if strictly_older(versions.get(a, {}), versions.get(b, {}))
    ]


def acyclic(combos: list[str], versions: Versions) -> bool:
    graph: dict[str, set[str]] = {c: set() for c in combos}
    for a, b in older_pairs(combos, versions):
        graph[b].add(a)
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError:
        return False
    return True


def respects_age(order: list[str], versions: Versions) -> bool:
    position = {c: i for i, c in enumerate(order)}
    return all(position[a] < position[b] for a, b in older_pairs(order, versions))


# Each is older than the one before it, on the one library they share: a cycle.
CYCLE = (
    ["c0", "c1", "c2"],
    {
        "c0": {"numpy": "1.0", "pandas": "2.0"},
        "c1": {"pandas": "1.0", "python": "2.0"},
        "c2": {"python": "1.0", "numpy": "2.0"},
    },
)


@given(any_libraries())
@example(CYCLE)
def test_a_permutation_of_the_input_whatever_the_versions(
    case: tuple[list[str], Versions],
) -> None:
    combos, versions = case
    order = era_order(combos, versions)
    assert sorted(order) == sorted(combos)
    assert len(order) == len(combos)


def test_the_cycle_is_one() -> None:
    assert not acyclic(*CYCLE)
    # no combo is free of an older one: matrix order picks the first, then age goes on
    assert era_order(*CYCLE) == ["c0", "c2", "c1"]


@given(any_libraries())
def test_older_combos_come_first_when_age_has_no_cycle(case: tuple[list[str], Versions]) -> None:
    combos, versions = case
    assume(acyclic(combos, versions))
    assert respects_age(era_order(combos, versions), versions)


@given(same_libraries(), st.data())
def test_older_combos_come_first_in_any_matrix_order(
    case: tuple[list[str], Versions], data: st.DataObject
) -> None:
    combos, versions = case
    shuffled = data.draw(st.permutations(combos))
    assert respects_age(era_order(shuffled, versions), versions)


@given(st.lists(_release, max_size=8), st.sampled_from(KEYS))
def test_one_library_is_a_stable_sort_by_version(releases: list[str], key: str) -> None:
    combos = _ids(len(releases))
    versions = {c: {key: r} for c, r in zip(combos, releases, strict=True)}
    assert era_order(combos, versions) == sorted(combos, key=lambda c: Version(versions[c][key]))


@given(st.lists(_release, min_size=1, max_size=8, unique_by=Version), st.permutations(range(8)))
def test_a_chain_sorts_the_same_from_any_matrix_order(
    releases: list[str], permutation: list[int]
) -> None:
    combos = _ids(len(releases))
    versions = {c: {"numpy": r} for c, r in zip(combos, releases, strict=True)}
    shuffled = [combos[i] for i in permutation if i < len(combos)]
    assert era_order(shuffled, versions) == era_order(combos, versions)


@given(st.integers(0, 8), _release)
def test_combos_nothing_orders_keep_matrix_order(n: int, release: str) -> None:
    combos = _ids(n)
    assert era_order(combos, {}) == combos  # no env anywhere
    assert era_order(combos, {c: {"numpy": release} for c in combos}) == combos  # all equal
    assert era_order(combos[::-1], {}) == combos[::-1]


@given(any_libraries())
def test_sorting_twice_changes_nothing_when_age_has_no_cycle(
    case: tuple[list[str], Versions],
) -> None:
    combos, versions = case
    assume(acyclic(combos, versions))
    once = era_order(combos, versions)
    assert era_order(once, versions) == once


@given(any_libraries(), st.data())
def test_unparsable_versions_are_ignored(
    case: tuple[list[str], Versions], data: st.DataObject
) -> None:
    combos, versions = case
    marked = data.draw(st.sets(st.sampled_from(combos))) if combos else set()
    garbled = {
        c: {**versions.get(c, {}), "torch": "nightly-build"} if c in marked else versions[c]
        for c in combos
        if c in versions or c in marked
    }
    assert era_order(combos, garbled) == era_order(combos, versions)


@given(any_libraries(), _release)
def test_a_library_at_one_version_everywhere_changes_nothing(
    case: tuple[list[str], Versions], release: str
) -> None:
    combos, versions = case
    held = {c: {**versions.get(c, {}), "scipy": release} for c in combos}
    assert era_order(combos, held) == era_order(combos, versions)
