"""``harness audit`` end to end, in a real uv env: problems made to be strong, weak,
flaky and slow are found to be so, and every probe is graded as an untrusted answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PY = f"{sys.version_info.major}.{sys.version_info.minor}"  # the env's Python is this one
WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta")


def _first_by_seed(seed: int, words: tuple[str, ...]) -> str:
    """The word a set of ``words`` yields first under hash seed ``seed``, in the env's Python."""
    program = f"print(next(iter(set({words!r}))))"
    done = subprocess.run(
        [sys.executable, "-c", program],
        env={"PYTHONHASHSEED": str(seed)},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def _problem(root: Path, name: str, reference: str, check: str, extra: str = "") -> None:
    (root / "numpy").mkdir(parents=True, exist_ok=True)
    fields = {
        "library": "numpy",
        "prompt": name,
        "setup": "import numpy as np\nx = np.arange(1, 7)\n",
        "reference": reference + "\n",
        "check": "import numpy as np\n" + check + "\n",
    }
    # JSON strings are TOML basic strings
    text = "".join(f"{k} = {json.dumps(v)}\n" for k, v in fields.items())
    (root / "numpy" / f"{name}.toml").write_text(text + extra + "\n")


@pytest.mark.network
def test_audit_finds_what_each_problem_was_made_to_be(tmp_path: Path) -> None:
    problems = tmp_path / "problems"
    _problem(
        problems,
        "strong",
        "result = np.cumsum(x) * 2",
        "np.testing.assert_array_equal(result, [2, 6, 12, 20, 30, 42])",
    )
    # any array of the input's length passes: the input itself, a wrong sum
    _problem(problems, "weak", "result = np.cumsum(x) * 2", "assert len(result) == 6")
    # the first element of a set of strings: hash seed 0 gives the word the check wants,
    # the repeats' seeds 1 and 2 another (found here for this Python)
    words = next(
        WORDS[i:] + WORDS[:i]
        for i in range(len(WORDS))
        if _first_by_seed(0, WORDS[i:] + WORDS[:i]) != _first_by_seed(1, WORDS[i:] + WORDS[:i])
    )
    wanted = _first_by_seed(0, words)
    _problem(
        problems,
        "hash-order",
        f"result = next(iter(set({words!r})))",
        f"assert result == {wanted!r}",
    )
    _problem(
        problems,
        "slow",
        "import time\ntime.sleep(0.6)\nresult = x.sum()",
        "assert result == 21",
        "timeout = 1.5",
    )
    (tmp_path / "matrix.toml").write_text(
        f'[matrix]\npython = "{PY}"\n[combos.np2]\nnumpy = "2.2.6"\n'
    )
    done = subprocess.run(
        [
            *(sys.executable, "-m", "harness", "audit", "--problems", str(problems)),
            *("--run-id", "a", "--env-dir", str(tmp_path / "envs"), "--repeats", "3", "-q"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    run = tmp_path / "results" / "a"
    found = json.loads((run / "audit.json").read_text())
    flags = {p["problem_id"].split("/")[-1]: set(p["flags"]) for p in found["problems"]}
    assert flags == {
        "strong": set(),
        "weak": {"weak"},
        "hash-order": {"flaky"},
        "slow": {"slow"},
    }
    by_name = {p["problem_id"].split("/")[-1]: p for p in found["problems"]}
    assert "null-input" in by_name["weak"]["nulls_passed"]
    assert by_name["strong"]["nulls_passed"] == []
    assert by_name["hash-order"]["verdicts"][0] == "pass"
    assert "fail" in by_name["hash-order"]["verdicts"][1:]
    assert by_name["strong"]["mutants"] >= 3
    # every survivor of the strong tests computes the reference's own values
    assert all(s["equivalent"] for s in by_name["strong"]["survivors"])
    # mutants and nulls are answers: graded apart from the check, never as references
    rows = [json.loads(line) for line in (run / "np2.jsonl").read_text().splitlines()]
    assert {r["source"] for r in rows if not r["source"].startswith("model:")} == {"reference"}
    assert sum(r["source"] == "reference" for r in rows) == 4
    probes = [r for r in rows if r["source"].startswith("model:")]
    assert len(probes) == len((run / "audit-probes.jsonl").read_text().splitlines())
    assert all(r["crossed"] for r in probes if r["status"] in ("pass", "fail"))
    assert "Test health" in (run / "report.html").read_text()
    assert "## Weak: wrong answers the tests accept" in (run / "audit.md").read_text()
    # assessed again from its files, the audit says the same
    again = subprocess.run(
        [sys.executable, "-m", "harness", "audit", "--report", str(run)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert again.returncode == 0, again.stderr[-3000:]
    reassessed = json.loads((run / "audit.json").read_text())
    assert reassessed["problems"] == found["problems"]
    assert reassessed["settings"]["repeats"] == 3


DIGEST_PROBLEMS = Path(__file__).parent / "data" / "audit-digest"


@pytest.mark.network
def test_the_digest_tells_equivalent_survivors_from_wrong_ones(tmp_path: Path) -> None:
    """The red team's audit (tests/data/audit-digest), in DS-1000's 2024 combo: a Series
    of strings does not hide the mutants a weak check passes; a mutant that changes only
    an intermediate is likely equivalent, not a wrong answer; a set of strings is the
    same value under every hash seed of the repeats."""
    root = Path(__file__).resolve().parents[1]
    envs = os.environ.get("HARNESS_ENV_DIR", str(root / ".harness" / "envs"))
    done = subprocess.run(
        [
            *(sys.executable, "-m", "harness", "audit", "--problems", str(DIGEST_PROBLEMS)),
            *("--combos", "ds1000-2024", "--mutants", "8", "--repeats", "3", "-j", "1"),
            *("--results", str(tmp_path / "results"), "--run-id", "d", "-q"),
        ],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "HARNESS_ENV_DIR": envs},
        check=False,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads((tmp_path / "results" / "d" / "audit.json").read_text())
    by_name = {p["problem_id"].split("/")[-1]: p for p in found["problems"]}
    assert {name: set(p["flags"]) for name, p in by_name.items()} == {
        "weak-strings": {"weak"},
        "strong-intermediate": set(),
        "set-result": set(),
    }
    weak = by_name["weak-strings"]["survivors"]
    assert weak and all(s["equivalent"] is False for s in weak)
    strong = by_name["strong-intermediate"]["survivors"]
    assert strong and all(s["equivalent"] is True for s in strong)
    assert not by_name["set-result"]["values_vary"]
    assert len(by_name["set-result"]["verdicts"]) == 3
    rows = (tmp_path / "results" / "d" / "ds1000-2024.jsonl").read_text().splitlines()
    copies = [json.loads(r) for r in rows if '"model:reference-copy' in r]
    assert copies and all(
        set(c["crossed"]) == {"result"} for c in copies if "set-result" in c["problem_id"]
    )
