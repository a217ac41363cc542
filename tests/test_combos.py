from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.matrix.combos import ID_PATTERN, expand, make_id, select, slug


def test_expand_product_exclude_include() -> None:
    axes = {"numpy": ["1", "2"], "pandas": ["a", "b"]}
    combos = expand(
        axes,
        include=[{"numpy": "3", "pandas": "c"}, {"numpy": "1", "pandas": "a"}],
        exclude=[{"numpy": "2", "pandas": "b"}],
    )
    assert combos == [
        {"numpy": "1", "pandas": "a"},
        {"numpy": "1", "pandas": "b"},
        {"numpy": "2", "pandas": "a"},
        {"numpy": "3", "pandas": "c"},
    ]


def test_partial_exclude_rules_match_on_their_keys_only() -> None:
    axes = {"python": ["3.10", "3.12"], "numpy": ["1", "2"]}
    assert expand(axes, exclude=[{"python": "3.12"}]) == [
        {"python": "3.10", "numpy": "1"},
        {"python": "3.10", "numpy": "2"},
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1.26.4", "1-26-4"),
        ("Pandas_2", "pandas-2"),
        ("2.0.0rc1", "2-0-0rc1"),
        ("...", "x"),
        (">=2,<3", "2-3"),
    ],
)
def test_slug(text: str, expected: str) -> None:
    assert slug(text) == expected


def test_make_id_names_only_varying_keys() -> None:
    combo = {"python": "3.11", "numpy": "2.1.3", "pandas": "latest", "scikit-learn": "1.4.0"}
    assert (
        make_id("grid", combo, ["numpy", "pandas", "scikit-learn"])
        == "grid-np2-1-3-pd-latest-skl1-4-0"
    )
    assert make_id("grid", combo, []) == "grid"


@given(
    st.dictionaries(
        st.sampled_from(["python", "numpy", "pandas", "torch"]),
        st.text(min_size=1, max_size=12),
        min_size=1,
    )
)
def test_generated_ids_are_always_safe(combo: dict[str, str]) -> None:
    assert ID_PATTERN.match(make_id("Axis Name", combo, list(combo)))


@dataclass(frozen=True)
class C:
    id: str
    tags: tuple[str, ...] = ()


def test_select() -> None:
    combos = [
        C("ds1000-2022", ("torch",)),
        C("ds1000-2024", ("baseline",)),
        C("latest", ("latest",)),
    ]
    assert select(combos) == combos
    assert [c.id for c in select(combos, ["ds1000-*"])] == ["ds1000-2022", "ds1000-2024"]
    assert [c.id for c in select(combos, ["latest", "ds1000-2022"])] == ["ds1000-2022", "latest"]
    assert [c.id for c in select(combos, keyword="2024")] == ["ds1000-2024"]
    assert [c.id for c in select(combos, tags=["latest", "torch"])] == ["ds1000-2022", "latest"]
    assert select(combos, ["ds1000-*"], tags=["latest"]) == []
