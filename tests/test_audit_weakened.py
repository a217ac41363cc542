"""A planted weakened test, found and bisected by ``harness audit --bisect`` in real uv envs.

A fixture library is built here as wheels of four releases and served as a PEP 503 index
in a directory; its ``assert_same`` compares exactly in 1.0.0 and 1.1.0, and from 1.2.0
on only the lengths. A problem whose check is ``assert_same`` kills, under 1.0.0, the
mutant that starts its range one step late; under 1.3.0 that mutant passes. The audit
reports it as weakened from the combo pinning 1.0.0 to the one pinning 1.3.0, and
bisection over the index's releases puts the change in 1.2.0. NumPy comes from PyPI.
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import textwrap
import zipfile
from typing import TYPE_CHECKING

import pytest
from packaging.version import Version

if TYPE_CHECKING:
    from pathlib import Path

PY = f"{sys.version_info.major}.{sys.version_info.minor}"  # the envs' Python is this one
DIST = "harness-fixture-weak"
MODULE = "fixture_weak"
RELEASES = ("1.0.0", "1.1.0", "1.2.0", "1.3.0")
WEAKENED_IN = "1.2.0"  # the planted release: from here on, a same-length list passes
EXACT = """\
def assert_same(result, expected):
    assert list(result) == list(expected), f"{result!r} != {expected!r}"
"""
LENGTHS_ONLY = """\
def assert_same(result, expected):
    assert len(result) == len(expected), f"{len(result)} != {len(expected)} values"
"""
# The mutants of this reference: a constant one higher (start, stop or step), two
# arguments swapped, the statement dropped. Only a later start keeps six values.
REFERENCE = "result = np.arange(3, 21, 3).tolist()\n"
LATER_START = "result = np.arange(4, 21, 3).tolist()\n"
CHECK = f"import {MODULE}\n{MODULE}.assert_same(result, [3, 6, 9, 12, 15, 18])\n"


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _wheel(folder: Path, version: str) -> Path:
    """A pure wheel of the fixture library at ``version`` (a zip: the module, METADATA,
    WHEEL and RECORD), byte for byte the same on every run."""
    stem = f"{DIST.replace('-', '_')}-{version}"  # a wheel's name for the distribution
    info = f"{stem}.dist-info"
    weakened = Version(version) >= Version(WEAKENED_IN)
    source = f'__version__ = "{version}"\n\n' + (LENGTHS_ONLY if weakened else EXACT)
    files = {
        f"{MODULE}/__init__.py": source.encode(),
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {DIST}\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = [f"{name},sha256={_digest(data)},{len(data)}" for name, data in files.items()]
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,", ""]).encode()
    path = folder / f"{stem}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            wheel.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), data)
    return path


def _index(root: Path) -> str:
    """The fixture's releases as a PEP 503 index in ``root``: its project page links each
    wheel, beside it, with its hash. Returns the index's ``file://`` URL."""
    page = root / DIST
    page.mkdir(parents=True)
    links = []
    for version in RELEASES:
        wheel = _wheel(page, version)
        sha = hashlib.sha256(wheel.read_bytes()).hexdigest()
        links.append(f'<a href="{wheel.name}#sha256={sha}">{wheel.name}</a><br/>')
    html = "<!DOCTYPE html>\n<html><body>\n" + "\n".join(links) + "\n</body></html>\n"
    (page / "index.html").write_text(html)
    return root.as_uri()


@pytest.mark.network
def test_a_release_that_weakens_an_assertion_is_found_and_bisected(tmp_path: Path) -> None:
    index = _index(tmp_path / "simple")
    problem = tmp_path / "problems" / "fixture" / "arange-step.toml"
    problem.parent.mkdir(parents=True)
    fields = {
        "library": DIST,
        "prompt": "The multiples of 3 below 21, as a list.",
        "setup": "import numpy as np\n",
        "reference": REFERENCE,
        "check": CHECK,
    }
    problem.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in fields.items()))
    combos = "".join(
        textwrap.dedent(f"""\
            [combos.{name}]
            numpy = "2.2.6"
            extras = ["{DIST}=={version}"]
            extra_index_url = "{index}"
            """)
        for name, version in (("weak-old", RELEASES[0]), ("weak-new", RELEASES[-1]))
    )
    (tmp_path / "matrix.toml").write_text(f'[matrix]\npython = "{PY}"\n' + combos)
    done = subprocess.run(
        [
            *(sys.executable, "-m", "harness", "audit", "--problems", str(tmp_path / "problems")),
            *("--matrix", str(tmp_path / "matrix.toml"), "--bisect", "--mutants", "10"),
            *("--seed", "0", "--run-id", "a", "--env-dir", str(tmp_path / "envs"), "-q"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    run = tmp_path / "results" / "a"
    found = json.loads((run / "audit.json").read_text())
    problem_id = "problems/fixture/arange-step"
    code_of = {
        p["name"]: p["code"]
        for p in map(json.loads, (run / "audit-probes.jsonl").read_text().splitlines())
    }
    assert sum(name.startswith("mutant-") for name in code_of) == 6  # every site
    # the reference passes in both combos; in weak-old every mutant is killed
    health = {h["combo"]: h for h in found["problems"]}
    assert set(health) == {"weak-old", "weak-new"}
    assert all(h["problem_id"] == problem_id and h["reference"] == "pass" for h in health.values())
    old, new = health["weak-old"], health["weak-new"]
    assert (old["mutants"], old["killed"], old["survivors"], old["flags"]) == (6, 6, [], [])
    assert old["nulls"] and not old["nulls_passed"]
    # in weak-new the later start passes, a wrong answer the weakened check accepts
    (survivor,) = new["survivors"]
    assert code_of[survivor["name"]] == LATER_START
    assert survivor["equivalent"] is False and "weak" in new["flags"]
    assert found["counts"]["weakened"] == 1
    (weakened,) = found["weakened"]
    assert weakened["problem_id"] == problem_id
    assert weakened["mutant"] == survivor["name"]
    assert weakened["library"] == DIST
    assert (weakened["killed_in"], weakened["survived_in"]) == ("weak-old", "weak-new")
    assert weakened["versions"] == [RELEASES[0], RELEASES[-1]]
    finding = weakened["finding"]
    assert (finding["last_good"], finding["first_bad"]) == ("1.1.0", WEAKENED_IN)
    assert finding["library"] == DIST
    assert finding["candidates"] == len(RELEASES)  # every release the index lists
    audit_md = (run / "audit.md").read_text()
    weakened_md = audit_md.split("## Weakened", 1)[1]
    assert f"**{problem_id}** {weakened['mutant']}" in weakened_md
    assert f"first release that passes it {DIST} {WEAKENED_IN} (last that fails it 1.1.0)" in (
        weakened_md
    )
