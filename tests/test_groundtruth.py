"""Bisection against real API changes whose releases are known exactly.

Each problem in tests/data/groundtruth uses an API that a release removed; bisecting
that library's releases (real environments, one per step) must name that release.
Each release below was checked by hand with both neighbours installed.
"""

from __future__ import annotations

import pytest

from harness.core.problem import REFERENCE, Solution
from harness.envs.build import EnvBuilder
from harness.execute.runner import Execution, RunOptions
from harness.labs import bisection
from harness.labs import lab as lab_mod
from harness.matrix.package_index import Index
from harness.problems import sets as problemsets
from tests.conftest import ROOT

pytestmark = pytest.mark.network
SUITE = problemsets.load_problems([ROOT / "tests" / "data" / "groundtruth"])

# problem, package, good, bad, python, other pins, expected first bad release
GROUND_TRUTH = [
    ("pandas/frame-append", "pandas", "1.5.3", "2.1.4", "3.11", {"numpy": "1.26.4"}, "2.0.0"),
    ("numpy/float-alias", "numpy", "1.23.5", "1.26.4", "3.11", {}, "1.24.0"),
    # removed in 3.9.0, back (deprecated) in 3.9.1, removed again in 3.11.0
    (
        "matplotlib/cm-get-cmap",
        "matplotlib",
        "3.7.5",
        "3.9.0",
        "3.11",
        {"numpy": "1.26.4"},
        "3.9.0",
    ),
    pytest.param(
        "matplotlib/cm-get-cmap",
        "matplotlib",
        "3.9.2",
        "3.11.0",
        "3.11",
        {"numpy": "1.26.4"},
        "3.11.0",
        marks=pytest.mark.slow,
    ),
    pytest.param(
        "pandas/series-iteritems",
        "pandas",
        "1.4.4",
        "2.2.3",
        "3.10",
        {"numpy": "1.26.4"},
        "2.0.0",
        marks=pytest.mark.slow,
    ),
    pytest.param(
        "numpy/product", "numpy", "1.25.2", "2.2.6", "3.11", {}, "2.0.0", marks=pytest.mark.slow
    ),
    pytest.param(
        "scipy/interp2d",
        "scipy",
        "1.12.0",
        "1.15.3",
        "3.11",
        {"numpy": "1.26.4"},
        "1.14.0",
        marks=pytest.mark.slow,
    ),
    pytest.param(
        "scikit-learn/get-feature-names",
        "scikit-learn",
        "1.0.2",
        "1.4.2",
        "3.10",
        {"numpy": "1.26.4", "scipy": "1.11.4"},
        "1.2.0",
        marks=pytest.mark.slow,
    ),
]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> lab_mod.Lab:
    return lab_mod.Lab(EnvBuilder(tmp_path_factory.mktemp("envs")), RunOptions(jobs=1))


@pytest.mark.parametrize(
    ("problem_id", "package", "good", "bad", "python", "others", "first_bad"), GROUND_TRUTH
)
def test_bisection_finds_the_release(
    lab: lab_mod.Lab,
    problem_id: str,
    package: str,
    good: str,
    bad: str,
    python: str,
    others: dict[str, str],
    first_bad: str,
) -> None:
    problem = next(p for p in SUITE if p.native_id == problem_id)
    execution = Execution(problem, Solution(problem.id, REFERENCE, problem.reference_code))
    releases = bisection.release_lister(Index())
    (finding,) = lab_mod.drive(
        lab, [bisection.bisect_library(execution, package, good, bad, python, others, releases)]
    )
    assert finding.first_bad == first_bad, finding
    assert (
        finding.last_good is not None and finding.last_good < first_bad
    ) or finding.last_good == good
    candidates = finding.candidates
    # O(log n) environments: both ends, then one per halving
    assert finding.trials <= 2 + max(1, (candidates - 1).bit_length()) + 1, finding


def test_bisection_in_both_directions(lab: lab_mod.Lab) -> None:
    problem = next(p for p in SUITE if p.native_id == "matplotlib/cm-get-cmap")
    execution = Execution(problem, Solution(problem.id, REFERENCE, problem.reference_code))
    releases = bisection.release_lister(Index())
    (finding,) = lab_mod.drive(
        lab,
        [
            bisection.bisect_library(
                execution, "matplotlib", "3.9.0", "3.9.2", "3.11", {"numpy": "1.26.4"}, releases
            )
        ],
    )
    # cm.get_cmap came back in 3.9.1 (later yanked for 3.9.1.post1, but still a release
    # users installed, and one an exact pin installs): fails first, then passes
    assert (finding.last_good, finding.first_bad) == ("3.9.0", "3.9.1"), finding
    assert finding.how == "bisection (fails first, then passes)"
