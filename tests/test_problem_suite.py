"""The embedded problem suite in problems/: it loads, and it is what its README promises."""

from __future__ import annotations

import re
from collections import Counter

from harness.analysis.staleness import load_catalogue
from harness.problems.sets import load_problems
from tests.conftest import ROOT

SUITE = load_problems([ROOT / "problems"])
LIBRARIES = ("numpy", "pandas", "scipy", "scikit-learn", "matplotlib", "torch", "tensorflow")


def test_at_least_80_problems_and_8_per_library() -> None:
    assert len(SUITE) >= 80
    counts = Counter(p.library for p in SUITE)
    for lib in LIBRARIES:
        assert counts[lib] >= 8, (lib, counts)
    assert all(p.id.startswith("problems/") for p in SUITE)


def test_every_problem_is_built_around_a_change() -> None:
    for p in SUITE:
        assert p.change is not None, p.id
        assert "old" in p.idioms, p.id
        assert p.change.notes.startswith("https://"), p.id
        assert p.idioms["old"].strip() != p.reference_code.strip(), p.id
        # the prompt names, as code, no API that tells the idioms apart
        old, new = api_names(p.idioms["old"]), api_names(p.reference_code)
        for name in (old - new) | (new - old):
            as_code = rf"\.{re.escape(name)}\b|\b{re.escape(name)}(?:\(|\s*=)|`{re.escape(name)}`"
            assert not re.search(as_code, p.prompt), (p.id, name)


def api_names(code: str) -> set[str]:
    """Attributes and keyword arguments a piece of code uses (``.applymap(``, ``sparse=``)."""
    attributes = set(re.findall(r"\.([A-Za-z_]\w{4,})", code))
    keywords = set(re.findall(r"[(,]\s*([A-Za-z_]\w{3,})\s*=(?!=)", code))
    found = attributes | keywords
    return found - {"result", "values", "shape", "dtype"}


def test_catalogue_loads() -> None:
    catalogue = load_catalogue()
    assert len(catalogue) >= 60
    # the seven libraries, and Python's standard library (unittest's aliases removed in 3.12)
    assert {e.library for e in catalogue} == {*LIBRARIES, "python"}
