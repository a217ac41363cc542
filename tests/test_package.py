"""The wheel is the product: built from the sdist, checked, installed into a fresh venv,
and used the way a new user would, from an empty folder and in a fresh git repository.

Needs PyPI (the wheel's dependencies; uv's cache makes it quick after the first time). The
main job runs on one combo of the embedded default (``latest``, whose env the suite's
other real runs share) with ``--limit``: the point is where the matrix and problems come
from, not how long a full run takes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from packaging.metadata import Metadata

from harness import __version__
from harness.core import defaults
from harness.envs.build import uv_binary
from tests.conftest import ROOT
from tests.workflows import caller_problems

pytestmark = pytest.mark.network
WHEEL = f"ds_matrix_harness-{__version__}-py3-none-any.whl"
SDIST = f"ds_matrix_harness-{__version__}.tar.gz"
ENVS = Path(os.environ.get("HARNESS_ENV_DIR", str(ROOT / ".harness" / "envs"))).absolute()


def _run(*args: str | Path, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    # nothing of the clone leaks in: no PYTHONPATH, no virtualenv of the suite's
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    proc = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode == 0, f"{args}: {proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``uv build``: the sdist, then the wheel built from it (so the sdist is complete)."""
    out = tmp_path_factory.mktemp("dist")
    _run(uv_binary(), "build", "--quiet", "--out-dir", out, ROOT, cwd=out)
    assert sorted(p.name for p in out.iterdir() if p.suffix != "") == sorted([SDIST, WHEEL])
    return out


@pytest.fixture(scope="module")
def harness(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``harness`` command of the wheel installed into a fresh venv."""
    venv = tmp_path_factory.mktemp("venv") / "v"
    uv = uv_binary()
    _run(uv, "venv", "--quiet", "--python", "3.11", venv, cwd=venv.parent)
    _run(
        uv,
        "pip",
        "install",
        "--quiet",
        "--python",
        venv / "bin" / "python",
        dist / WHEEL,
        cwd=venv.parent,
    )
    return venv / "bin" / "harness"


def test_the_wheel_ships_the_embedded_default_and_says_what_it_is(dist: Path) -> None:
    with zipfile.ZipFile(dist / WHEEL) as wheel:
        names = set(wheel.namelist())
        shipped = {
            "harness/default/matrix.toml": ROOT / "matrix.toml",
            f"harness/default/{defaults.CALLER}": ROOT / "docs" / "examples" / defaults.CALLER,
        }
        for name, source in shipped.items():
            assert wheel.read(name) == source.read_bytes(), name
        problems = {n for n in names if n.startswith("harness/default/problems/")}
        ours = {p for p in (ROOT / "problems").rglob("*") if p.is_file()}
        assert len(problems) == len(ours) and len(ours) > 80
        # what the env side and the checks read at run time, and the licence
        for needed in (
            "harness/py.typed",
            "harness/envside/allowlist.txt",
            "harness/data/init/matrix.toml",
            "harness/data/catalogue.toml",
            "harness/data/release_dates.toml",
            "harness/benchmarks/bigcodebench/fixes.toml",
            f"ds_matrix_harness-{__version__}.dist-info/licenses/LICENSE",
        ):
            assert needed in names, needed
        assert not any("__pycache__" in n or n.startswith("tests/") for n in names)
        metadata = Metadata.from_email(
            wheel.read(f"ds_matrix_harness-{__version__}.dist-info/METADATA"), validate=True
        )
    assert (str(metadata.version), metadata.license_expression) == (__version__, "MIT")
    assert metadata.requires_python is not None and str(metadata.requires_python) == ">=3.10"
    assert metadata.classifiers and "Typing :: Typed" in metadata.classifiers
    assert metadata.project_urls and set(metadata.project_urls) >= {"Repository", "Issues"}
    with tarfile.open(dist / SDIST) as sdist:
        inside = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    assert {"pyproject.toml", "matrix.toml", "LICENSE", "README.md", "noxfile.py"} <= inside
    assert "tests/test_package.py" in inside  # a contributor can run the tests from it


def test_harness_run_in_an_empty_folder_runs_the_embedded_default(
    harness: Path, tmp_path: Path
) -> None:
    assert _run(harness, "--version", cwd=tmp_path).stdout.startswith(f"harness {__version__} ")
    listed = _run(harness, "combos", cwd=tmp_path)
    assert [line.split()[0] for line in listed.stdout.splitlines()] == [
        "ds1000-2022",
        "ds1000-2024",
        "latest",
    ]
    assert "no matrix.toml here: using the embedded default" in listed.stderr
    where = _run(
        harness.parent / "python", "-c", "import harness; print(harness.__file__)", cwd=tmp_path
    )
    assert "site-packages" in where.stdout  # the wheel's code, not the clone's
    run = _run(
        harness,
        "run",
        "--combos",
        "latest",
        "--limit",
        "3",
        "--run-id",
        "first",
        "--env-dir",
        ENVS,
        "--no-history",
        cwd=tmp_path,
        timeout=1800,
    )
    assert run.stderr.count("no matrix.toml or problems/ here: using the embedded default") == 1
    summary = json.loads((tmp_path / "results" / "first" / "summary.json").read_text())
    assert summary["problems"] == 3
    outcomes = [
        json.loads(line)
        for line in (tmp_path / "results" / "first" / "latest.jsonl").read_text().splitlines()
    ]
    assert {o["source"] for o in outcomes} == {"reference", "idiom:old"}
    assert all(o["status"] == "pass" for o in outcomes if o["source"] == "reference")


def test_harness_init_github_in_a_fresh_repository_writes_what_validates(
    harness: Path, tmp_path: Path
) -> None:
    _run("git", "init", "--quiet", tmp_path, cwd=tmp_path)
    said = _run(harness, "init", "--github", cwd=tmp_path).stdout
    assert "wrote matrix.toml" in said and "wrote .github/workflows/harness.yml" in said
    workflow = (tmp_path / ".github" / "workflows" / "harness.yml").read_text()
    assert caller_problems(workflow, ROOT / ".github" / "workflows" / "harness.yml") == []
    _run(
        Path(sys.executable).parent / "check-jsonschema",
        "--builtin-schema",
        "vendor.github-workflows",
        tmp_path / ".github" / "workflows" / "harness.yml",
        cwd=tmp_path,
    )
    listed = _run(harness, "combos", cwd=tmp_path)  # the matrix it wrote is the one read
    assert [line.split()[0] for line in listed.stdout.splitlines()] == ["pinned", "latest"]
    assert listed.stderr == ""
    again = subprocess.run(
        [harness, "init"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert again.returncode == 2 and "already exists" in again.stderr
