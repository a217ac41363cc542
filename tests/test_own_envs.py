"""When a problem's own Python has no wheel for its pins: the nearest Python that has."""

from __future__ import annotations

from harness.matrix import own_envs
from harness.matrix.spec import Combo, LibrarySpec, VersionKind

NUMPY_1_21_0 = {"3.7", "3.8", "3.9"}  # the Pythons numpy 1.21.0 published wheels for


def combo(python: str) -> Combo:
    numpy = LibrarySpec("numpy", "numpy", "1.21.0", VersionKind.PIN)
    return Combo(
        f"gc-py{python.replace('.', '-')}-numpy-1-21-0-c3b0fa3e",
        python,
        (numpy,),
        extras=("pytest", "scipy==1.7.3"),
        description="a problem's own env",
    )


def has_wheel(package: str, version: str, python: str) -> bool:
    if package == "numpy":
        return python in NUMPY_1_21_0
    return package == "scipy" and python in {"3.9", "3.10"}


def test_every_exact_pin_counts_and_nothing_else() -> None:
    assert own_envs.pins(combo("3.10")) == [("numpy", "1.21.0"), ("scipy", "1.7.3")]


def test_the_nearest_python_with_a_wheel_for_every_pin() -> None:
    pythons = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]
    assert own_envs.nearest_python(combo("3.10"), pythons, has_wheel) == "3.9"
    # its own Python has them all: it stays
    assert own_envs.nearest_python(combo("3.9"), pythons, has_wheel) is None
    # none has them all (scipy 1.7.3 here only for 3.9 and 3.10): it stays, an env_error
    assert own_envs.nearest_python(combo("3.10"), ["3.8", "3.11"], has_wheel) is None


def test_equally_near_pythons_take_the_older() -> None:
    def everywhere_but_311(package: str, version: str, python: str) -> bool:
        return python != "3.11"

    got = own_envs.nearest_python(combo("3.11"), ["3.10", "3.12"], everywhere_but_311)
    assert got == "3.10"


def test_a_moved_combo_says_so_in_its_id_and_description() -> None:
    moved = own_envs.moved(combo("3.10"), "3.9")
    assert moved.id == "gc-py3-9-numpy-1-21-0-c3b0fa3e"
    assert moved.python == "3.9"
    assert moved.description == ("a problem's own env (on Python 3.9: a pin has no wheel for 3.10)")
