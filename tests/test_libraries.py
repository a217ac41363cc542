"""Library facts: every name a library goes by, and the distributions that install it."""

from __future__ import annotations

import pytest

from harness.core.libraries import BY_KEY, LIBRARIES, canonical, installs, lookup, same_library


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Sklearn", "scikit-learn"),
        ("scikit_learn", "scikit-learn"),
        ("Pytorch", "torch"),
        ("tf", "tensorflow"),
        ("tensorflow-cpu", "tensorflow"),
        ("np", "numpy"),
    ],
)
def test_every_spelling_finds_the_library(name: str, key: str) -> None:
    assert canonical(name) == key
    assert lookup(name) is BY_KEY[key]


def test_other_packages_keep_their_name() -> None:
    assert lookup("Seaborn") is None
    assert canonical(" Seaborn ") == "seaborn"


def test_distributions_default_first() -> None:
    assert BY_KEY["tensorflow"].distributions == ("tensorflow-cpu", "tensorflow")
    assert BY_KEY["scikit-learn"].distributions == ("scikit-learn",)
    assert all(lib.distributions[0] == lib.package for lib in LIBRARIES)


@pytest.mark.parametrize(
    ("distribution", "key"),
    [
        ("tensorflow-cpu", "tensorflow"),
        ("tensorflow", "tensorflow"),
        ("TensorFlow_CPU", "tensorflow"),
        ("scikit-learn", "scikit-learn"),
        ("sklearn", None),  # a module, not a distribution
        ("tf", None),
        ("pillow", None),
    ],
)
def test_the_library_a_distribution_installs(distribution: str, key: str | None) -> None:
    lib = installs(distribution)
    assert (lib.key if lib else None) == key


def test_a_lock_may_list_a_library_under_any_of_its_distributions() -> None:
    assert same_library("tensorflow-cpu") == ("tensorflow-cpu", "tensorflow")
    assert same_library("tensorflow") == ("tensorflow", "tensorflow-cpu")
    # an extra's other builds: a lock that installed headless OpenCV still pins cv2's library
    assert "opencv-python-headless" in same_library("opencv-python")
    assert same_library("pyyaml") == ("pyyaml",)
    assert same_library("numpy") == ("numpy",)
    assert same_library("pillow") == ("pillow",)
