"""The meaning check's composite context, run for real: what it lets through and what not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from harness.envs.build import EnvBuilder
from harness.labs.repair.meaning import comparable, meaning_context
from harness.matrix.spec import Combo, LibrarySpec, VersionKind

if TYPE_CHECKING:
    from harness.envs.build import EnvInfo

ORIGINAL = """
import numpy as np
import pandas as pd

def generate_test_case(test_case_id):
    df = pd.DataFrame({"a": np.random.rand(4), "b": [1.0, np.nan, 3.0, 4.0]})
    return df, df.fillna(method="ffill")

def exec_test(result, ans):
    pd.testing.assert_frame_equal(result, ans, check_dtype=False)
    return 1

def test_execution(solution):
    for i in range(2):
        test_input, expected = generate_test_case(i + 1)
        env = {"df": test_input}
        exec(solution, env)
        assert exec_test(env["result"], expected)
"""
REPAIRED = ORIGINAL.replace('df.fillna(method="ffill")', "df.ffill()")
REFERENCE = 'result = df.fillna(method="ffill")'


PY = f"{sys.version_info.major}.{sys.version_info.minor}"


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> EnvInfo:
    combo = Combo("meaning", PY, (LibrarySpec("pandas", "pandas", "2.2.3", VersionKind.PIN),))
    info, _ = EnvBuilder(tmp_path_factory.mktemp("envs")).build(combo)
    assert info.ok, info.error
    return info


def check(env: EnvInfo, tmp_path: Path, repaired: str, solution: str) -> str:
    """Run ``solution`` in the composite of ORIGINAL and ``repaired``: its last error line,
    "" when it passes."""
    script = tmp_path / "check.py"
    script.write_text(
        meaning_context(ORIGINAL, repaired) + f"\ntest_execution({solution!r})\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [str(Path(env.path) / "bin" / "python"), "-W", "ignore", str(script)],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stderr.strip().splitlines()[-1] if done.returncode else ""


@pytest.mark.network
def test_the_same_problem_passes_even_with_unseeded_random_inputs(
    env: EnvInfo, tmp_path: Path
) -> None:
    assert comparable(ORIGINAL, REPAIRED)
    assert check(env, tmp_path, REPAIRED, "result = df.ffill()") == ""
    assert check(env, tmp_path, REPAIRED, REFERENCE) == ""  # the original reference too


@pytest.mark.network
def test_another_test_input_is_a_change(env: EnvInfo, tmp_path: Path) -> None:
    changed = REPAIRED.replace("[1.0, np.nan, 3.0, 4.0]", "[1.0, np.nan, 3.0, 5.0]")
    assert check(env, tmp_path, changed, "result = df.ffill()") == (
        "AssertionError: harness meaning check: test case 1: "
        "the repaired context builds another test input"
    )


@pytest.mark.network
def test_another_expected_result_is_a_change(env: EnvInfo, tmp_path: Path) -> None:
    changed = REPAIRED.replace("df.ffill()", "df.bfill()")
    assert check(env, tmp_path, changed, "result = df.bfill()") == (
        "AssertionError: harness meaning check: test case 1: "
        "the expected results differ by the problem's own comparison (AssertionError)"
    )


@pytest.mark.network
def test_the_problems_own_comparison_decides_on_unequal_values(
    env: EnvInfo, tmp_path: Path
) -> None:
    # the expected frame's dtype changes (float → object): not identical, but the
    # problem's exec_test ignores dtypes, so its meaning is kept
    changed = REPAIRED.replace("df.ffill()", "df.ffill().astype(object)")
    assert check(env, tmp_path, changed, "result = df.ffill()") == ""


@pytest.mark.network
def test_a_value_that_equals_nothing_by_identity_is_compared_by_its_fields(
    env: EnvInfo, tmp_path: Path
) -> None:
    # objects without __eq__ (an estimator, a figure) are compared by their attributes
    boxed = ORIGINAL.replace(
        "def generate_test_case",
        "class Box:\n    def __init__(self, v):\n        self.v = v\n\ndef generate_test_case",
    ).replace("return df, df.fillna", "return (Box(1), df), df.fillna")
    boxed = boxed.replace('env = {"df": test_input}', 'env = {"df": test_input[1]}')
    ok = boxed.replace('df.fillna(method="ffill")', "df.ffill()")
    namespace_free = meaning_context(boxed, ok)
    assert "Box" in namespace_free
    script = tmp_path / "boxed.py"
    script.write_text(namespace_free + "\ntest_execution('result = df.ffill()')\n", "utf-8")
    python = str(Path(env.path) / "bin" / "python")
    assert subprocess.run([python, "-W", "ignore", str(script)], check=False).returncode == 0
    changed = ok.replace("Box(1)", "Box(2)")
    script.write_text(
        meaning_context(boxed, changed) + "\ntest_execution('result = df.ffill()')\n", "utf-8"
    )
    done = subprocess.run(
        [python, "-W", "ignore", str(script)], capture_output=True, text=True, check=False
    )
    assert "builds another test input" in done.stderr


def test_contexts_of_another_shape_are_not_comparable() -> None:
    assert not comparable("def test_execution(s):\n    pass\n", REPAIRED)
    assert not comparable(ORIGINAL, "def test_execution(s):\n    pass\n")
