"""The dataset cache: what problems need, fetching it (from a loopback server), using it offline."""

from __future__ import annotations

import functools
import json
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from harness.problems import runtime_data
from harness.problems import sets as problemsets
from tests.conftest import DS1000_FILE, ROOT, needs_ds1000, run_harness

DATA = ROOT / "tests" / "data"


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    """Serves tests/data/datasets/seaborn over HTTP on loopback, as a stand-in for seaborn-data."""

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(DATA / "datasets" / "seaborn"))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@needs_ds1000()
def test_what_ds1000_needs() -> None:
    needs = runtime_data.needed(problemsets.load_jsonl(DS1000_FILE))
    assert list(needs.seaborn) == ["exercise", "penguins", "planets", "tips"]
    assert list(needs.sklearn) == ["fetch_california_housing"]


def test_fetch_seaborn_from_a_mirror(tmp_path: Path, server: str) -> None:
    results = runtime_data.fetch_seaborn(["tiny", "missing"], tmp_path, server)
    assert [(r.name, r.ok) for r in results] == [("tiny", True), ("missing", False)]
    assert results[1].detail.endswith("/missing.csv: File not found")
    assert (tmp_path / "seaborn" / "tiny.csv").read_text().startswith("day,total")
    again = runtime_data.fetch_seaborn(["tiny"], tmp_path, server)
    assert again[0].detail == "already cached"
    assert runtime_data.environment(tmp_path) == {"SEABORN_DATA": str(tmp_path / "seaborn")}


def test_fetch_data_command(tmp_path: Path, server: str) -> None:
    proc = run_harness(
        "fetch-data",
        *("--problems", str(DATA / "netproblems"), "--data-dir", str(tmp_path)),
        *("--seaborn-url", server),
        cwd=ROOT,
    )
    assert proc.stdout.splitlines() == ["ok     tiny: 39 bytes", f"1/1 datasets in {tmp_path}"]


@pytest.mark.network
def test_runs_use_the_cache_offline(tmp_path: Path, server: str) -> None:
    runtime_data.fetch_seaborn(["tiny"], tmp_path / "data", server)
    (tmp_path / "matrix.toml").write_text(
        '[combos.sns]\npython = "3.11"\nnumpy = "1.26.4"\nextras = ["seaborn==0.13.2", "pandas==2.2.3"]\n'
    )
    args = [
        "run",
        "--problems",
        str(DATA / "netproblems"),
        "--results",
        str(tmp_path / "results"),
        "--env-dir",
        str(tmp_path / "envs"),
        "--no-history",
        "-q",
    ]
    env = {"HARNESS_DATA_DIR": str(tmp_path / "data")}
    for run_id, data_env in (
        ("cached", env),
        ("uncached", {**env, "HARNESS_DATA_DIR": str(tmp_path / "none")}),
    ):
        run_harness(*args, "--run-id", run_id, cwd=tmp_path, env=data_env)
    (cached,) = [
        json.loads(x)
        for x in (tmp_path / "results" / "cached" / "sns.jsonl").read_text().splitlines()
    ]
    (uncached,) = [
        json.loads(x)
        for x in (tmp_path / "results" / "uncached" / "sns.jsonl").read_text().splitlines()
    ]
    assert cached["status"] == "pass", cached
    assert uncached["status"] == "error"  # offline: the download fails (online: 'tiny' is unknown)
