"""The guard changes no honest outcome: a DS-1000 sample, guarded and unprotected.

The references and the four published models' answers of a sample of DS-1000 — the
Matplotlib problems whose figures carry colorbars (Matplotlib 3.11 pickles them with a
private reconstructor), other figures, NumPy and pandas — run twice in one environment
with the newest releases: as shipped (sandbox and guard) and with neither. Every
execution must end with the same status both ways. The whole of DS-1000, in every combo
of the embedded matrix, is in docs/benchmarks/sandbox-and-guard.md ("The guard changes no honest outcome").
"""

from __future__ import annotations

import json
import textwrap

import pytest

from tests.conftest import DS1000_DIR, DS1000_FILE, needs_ds1000, run_harness

pytestmark = [pytest.mark.network, needs_ds1000()]

COLORBARS = ["536", "537", "586", "627", "636"]
FIGURES = ["511", "512", "516", "520", "529", "540", "549", "560", "575", "590", "600", "610"]
NUMPY = ["291", "295", "300", "320", "340", "360", "380", "400", "420", "440"]
PANDAS = ["0", "10", "20", "40", "60", "80", "100", "150", "200", "250"]
SAMPLE = COLORBARS + FIGURES + NUMPY + PANDAS
MODELS = ["codex002", "gpt-3.5-turbo-0613", "gpt-4-0613", "gpt-4-turbo-2024-04-09"]


@pytest.fixture(scope="module")
def statuses(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[tuple[str, str], str]]:
    work = tmp_path_factory.mktemp("equivalence")
    # the newest releases as of the allowlist's last measurement (the `latest` combo, on
    # its Python: NumPy 2.5 has no wheels for older ones)
    (work / "matrix.toml").write_text(
        textwrap.dedent("""
        [matrix]
        python = "3.13"
        [combos.newest]
        numpy = "2.5.5"
        pandas = "3.1.1"
        matplotlib = "3.11.2"
        extras = ["seaborn==0.13.2"]
        """)
    )
    args = ["run", "--matrix", str(work / "matrix.toml"), "--problems", str(DS1000_FILE)]
    args += [a for p in SAMPLE for a in ("--problem-id", f"ds1000/{p}")]
    for model in MODELS:
        args += ["--answers", str(DS1000_DIR / "answers" / f"{model}-answers.jsonl")]
    args += ["--results", str(work / "results"), "--no-history", "--quiet", "-j", "2"]
    found = {}
    unprotected = ["--no-sandbox", "--allow-unsandboxed-answers", "--no-guard"]
    for name, extra in {"guarded": [], "unprotected": unprotected}.items():
        run_harness(*args, "--run-id", name, *extra, cwd=work)
        rows = (work / "results" / name / "newest.jsonl").read_text().splitlines()
        found[name] = {
            (r["problem_id"], r["source"]): f"{r['status']} {r.get('note', '')}".strip()
            for r in map(json.loads, rows)
        }
    return found


def test_every_execution_ends_the_same_guarded_and_unprotected(
    statuses: dict[str, dict[tuple[str, str], str]],
) -> None:
    guarded, unprotected = statuses["guarded"], statuses["unprotected"]
    assert len(guarded) == len(SAMPLE) * (1 + len(MODELS))
    differ = {
        key: (unprotected[key], guarded[key])
        for key in unprotected
        if unprotected[key].split()[0] != guarded[key].split()[0]
    }
    assert differ == {}


def test_colorbar_figures_come_back_whole(statuses: dict[str, dict[tuple[str, str], str]]) -> None:
    # the five problems where the name-based guard refused honest answers in Matplotlib 3.11
    for problem in COLORBARS:
        for source in ["reference", *(f"model:{m}" for m in MODELS)]:
            outcome = statuses["guarded"][(f"ds1000/{problem}", source)]
            assert "refused" not in outcome, (problem, source, outcome)
            assert "could not" not in outcome, (problem, source, outcome)


def test_the_sample_is_not_trivial(statuses: dict[str, dict[tuple[str, str], str]]) -> None:
    guarded = list(statuses["guarded"].values())
    assert sum(s.startswith("pass") for s in guarded) > 100
    assert sum(not s.startswith("pass") for s in guarded) > 20  # wrong answers stay wrong
