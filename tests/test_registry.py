"""The benchmarks' registry (harness/benchmarks/registry.py): the shipped folders, and a
benchmark of another package found by its entry point, built as a wheel, installed into
a virtual environment of its own and run through ``harness run`` in a real env."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import textwrap
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from harness.benchmarks import registry
from harness.benchmarks.base import Benchmark, Format
from harness.core.errors import HarnessError
from harness.core.problem import Problem
from harness.envs.build import uv_binary
from tests.conftest import ROOT

if TYPE_CHECKING:
    from collections.abc import Iterator

EXAMPLE = ROOT / "docs" / "examples" / "harness-drills"
PY = f"{sys.version_info.major}.{sys.version_info.minor}"


@pytest.fixture
def fresh() -> Iterator[None]:
    """The registry read again for each test (it is read once per process)."""
    registry.benchmarks.cache_clear()
    yield
    registry.benchmarks.cache_clear()


def entry(name: str, value: str) -> metadata.EntryPoint:
    return metadata.EntryPoint(name=name, value=value, group=registry.GROUP)


def test_the_shipped_benchmarks_are_the_folders(fresh: None) -> None:
    names = [b.name for b in registry.benchmarks()]
    assert names == ["bigcodebench", "cibench", "ds1000", "exeds", "gitchameleon", "ours"]
    assert [f.name for f in registry.formats()][-1] == "ds1000"  # the fallback, asked last
    assert [f.name for f in registry.formats() if f.fallback] == ["ds1000"]


def test_a_problem_knows_its_benchmark(fresh: None) -> None:
    problem = Problem("s/1", "1", "s", "numpy", "", "", "", metadata={"format": "bigcodebench"})
    found = registry.of(problem)
    assert found is not None
    assert found.title == "BigCodeBench"
    # without a format: a file of a benchmark's layout (by its suffix), else the fallback's
    plain = Problem("s/1", "1", "s", "numpy", "", "", "")
    assert getattr(registry.of(plain), "name", None) == "ds1000"
    laid_out = Problem("s/1", "1", "s", "numpy", "", "", "", source_file="p/numpy/a.toml")
    assert getattr(registry.of(laid_out), "name", None) == "ours"


def test_an_entry_point_adds_a_benchmark(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    module = type(sys)("fake_bench")
    fmt = Format("fake", lambda row: "fake" in row, lambda _row, _set: [], rank=1)
    module.BENCHMARK = Benchmark(name="fake", title="Fake", formats=(fmt,))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_bench", module)
    monkeypatch.setattr(
        metadata, "entry_points", lambda group: [entry("fake", "fake_bench:BENCHMARK")]
    )
    assert registry.named("fake") is module.BENCHMARK
    assert registry.detect({"fake": 1}) == "fake"  # its rank puts it first


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            "no_such_module_here:BENCHMARK",
            (
                "harness.benchmarks: entry point bad = no_such_module_here:BENCHMARK: cannot be "
                "loaded (ModuleNotFoundError: No module named 'no_such_module_here')"
            ),
        ),
        (
            "json:dumps",
            (
                "harness.benchmarks: entry point bad = json:dumps: is not a "
                "harness.benchmarks.base.Benchmark"
            ),
        ),
    ],
)
def test_a_bad_entry_point_is_one_line_naming_it(
    fresh: None, monkeypatch: pytest.MonkeyPatch, value: str, message: str
) -> None:
    monkeypatch.setattr(metadata, "entry_points", lambda group: [entry("bad", value)])
    with pytest.raises(HarnessError) as caught:
        registry.benchmarks()
    assert str(caught.value) == message


def test_a_name_taken_twice_is_refused(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    module = type(sys)("twin_bench")
    module.BENCHMARK = Benchmark(name="ds1000", title="Another")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "twin_bench", module)
    monkeypatch.setattr(
        metadata, "entry_points", lambda group: [entry("twin", "twin_bench:BENCHMARK")]
    )
    with pytest.raises(HarnessError, match="benchmark 'ds1000' is declared twice"):
        registry.benchmarks()


# -- a benchmark of its own package, end to end ----------------------------------------------


def _venv_with_this_harness(root: Path) -> Path:
    """A new venv that sees this process's packages (the harness's dependencies) through a
    ``.pth`` line, and this checkout's harness first; nothing of the example: that comes
    from its wheel."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    line = f"import site, sys; site.addsitedir({ours!r}); sys.path.insert(0, {str(ROOT)!r})"
    Path(site, "_parent.pth").write_text(line + "\n")
    return python


@pytest.mark.network
def test_a_benchmark_from_its_own_wheel_runs_through_harness_run(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [uv_binary(), "build", "--wheel", "--out-dir", str(wheels), str(EXAMPLE)],
        capture_output=True,
        check=True,
    )
    python = _venv_with_this_harness(tmp_path / "venv")
    (wheel,) = wheels.glob("harness_drills-*.whl")
    subprocess.run(
        [uv_binary(), "pip", "install", "--python", str(python), "--no-deps", str(wheel)],
        capture_output=True,
        check=True,
    )
    work = tmp_path / "work"
    work.mkdir()
    (work / "matrix.toml").write_text(
        textwrap.dedent(f"""
        [matrix]
        python = "{PY}"
        [combos.np2]
        numpy = "2.2.6"
        """)
    )
    (work / "model-answers.jsonl").write_text(
        '{"problem_id": "sum", "code": "result = x.sum()"}\n'
        '{"problem_id": "product", "code": "result = np.product(x)"}\n'
    )
    done = subprocess.run(
        [
            *(str(python), "-m", "harness", "run", "--problems", "drills", "--run-id", "r"),
            *("--answers", "model-answers.jsonl", "--env-dir", str(tmp_path / "envs")),
        ],
        capture_output=True,
        text=True,
        cwd=work,
        check=False,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [json.loads(line) for line in (work / "results/r/np2.jsonl").read_text().splitlines()]
    statuses = {(r["problem_id"], r["source"]): r["status"] for r in rows}
    assert statuses == {
        ("drills/sum", "reference"): "pass",
        ("drills/product", "reference"): "pass",
        ("drills/stack", "reference"): "pass",
        ("drills/sum", "model:model"): "pass",
        # np.product is gone in NumPy 2: the model's stale answer fails there
        ("drills/product", "model:model"): "error",
    }
