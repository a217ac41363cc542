"""Generated attacks on the checker's side of the guard, in a real environment.

Not hand-picked: every public callable of the allowed libraries is called by a pickle
with a string, a dict and a list that would run code if evaluated (tests/guard_generated.py
runs inside the env). None may be admitted unless the allowlist lists it with ``call``,
and none that is listed may even try to evaluate code, import, open a file, start a
process, open a socket or use ctypes: an audit hook of the test's own, installed before
admission's, sees every attempt. The numbers go into RELIABILITY.md.

CI builds the data-science libraries without torch and TensorFlow (gigabytes); the slow
variant runs the same in the embedded matrix's newest environment, which has them all.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness.envs.build import EnvBuilder
from harness.matrix.spec import Combo, LibrarySpec, VersionKind
from tests.conftest import ROOT

if TYPE_CHECKING:
    from harness.envs.build import EnvInfo

PY = f"{sys.version_info.major}.{sys.version_info.minor}"
SCRIPT = ROOT / "tests" / "guard_generated.py"
ENVSIDE = ROOT / "harness" / "envside"
LIGHT = ["numpy", "pandas", "scipy", "sklearn", "statsmodels", "patsy", "matplotlib", "seaborn"]
HEAVY = [*LIGHT, "torch", "tensorflow", "keras", "xgboost", "gensim"]


def attack(python: Path, libraries: list[str]) -> dict[str, Any]:
    proc = subprocess.run(
        [str(python), "-s", str(SCRIPT), str(ENVSIDE), *libraries],
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return report


def check(report: dict[str, Any], libraries: list[str]) -> None:
    print(json.dumps({k: v for k, v in report.items() if k != "reached"}, indent=1))
    assert report["admitted_unlisted"] == []
    assert report["reached"] == []
    assert report["pwned"] is False
    # the attack was real: every library yielded callables, and listed ones were called
    assert all(report["libraries"][lib]["callables"] > 0 for lib in libraries), report
    assert report["tried"] > 10_000
    assert report["listed_called"] > 0
    assert report["built"] > 0


@pytest.mark.network
def test_generated_pickles_in_the_data_science_libraries(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    pins = {
        "numpy": "2.2.6",
        "pandas": "2.2.3",
        "scipy": "1.15.3",
        "scikit-learn": "1.6.1",
        "matplotlib": "3.10.3",
    }
    libraries = tuple(LibrarySpec(k, k, v, VersionKind.PIN) for k, v in pins.items())
    combo = Combo("generated", PY, libraries, extras=("statsmodels", "seaborn"))
    info: EnvInfo
    info, _ = EnvBuilder(tmp_path_factory.mktemp("envs")).build(combo)
    assert info.ok, info.error
    check(attack(info.python_exe, LIGHT), LIGHT)


@pytest.mark.slow
def test_generated_pickles_in_the_newest_environment_with_torch_and_tensorflow() -> None:
    env = _embedded_env("latest")
    check(attack(env, HEAVY), HEAVY)


def _embedded_env(combo: str) -> Path:
    found = sorted((ROOT / ".harness" / "envs" / "locks").glob(f"{combo}-*.txt"))
    if not found:
        pytest.fail(f"build the embedded matrix first: harness run --combos {combo}")
    for env in (ROOT / ".harness" / "envs").iterdir():
        python = env / "bin" / "python"
        lock = env / "harness.lock.txt"
        if python.exists() and lock.is_file() and lock.read_text() == found[-1].read_text():
            return python
    pytest.fail(f"no built environment for {combo} in .harness/envs")
    raise AssertionError  # unreachable: pytest.fail raises
