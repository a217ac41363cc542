"""CIBench as published: the experiments read from their own files (``cibench_notebooks``,
``cibench_published``), upstream's step scores (``benchmarks/cibench/envside/scores``), expected
outputs derived in an environment (``execute/expected``), and a real run.

The published copy is read from ``../shared/data/cibench`` (``CIBENCH_DIR``); tests that
need it skip where it is absent. It is never copied into the repository.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import os
import sys
import zipfile
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from harness.analysis.drift import DriftClass, DriftRow
from harness.analysis.summary import Summary
from harness.app import bisect as app_bisect
from harness.benchmarks.cibench import notebooks as cibench_notebooks
from harness.core.errors import ProblemError
from harness.core.results import write_json
from harness.envs.build import EnvInfo
from harness.envside.checks import formatlib
from harness.execute import expected
from harness.execute.job import Job
from harness.execute.rundir import RunDir
from harness.matrix.spec import load as load_matrix
from harness.problems import downloads
from harness.problems import sets as problemsets
from harness.problems.answers import load_solutions
from harness.reports import markdown
from tests.conftest import ROOT, run_harness
from tests.envside import benchmark_side

CIBENCH_DIR = Path(os.environ.get("CIBENCH_DIR", ROOT.parent / "shared" / "data" / "cibench"))
ARCHIVE = CIBENCH_DIR / "cibench-dataset.tar.gz"
needs_data = pytest.mark.skipif(
    not ARCHIVE.is_file(), reason=f"the published CIBench copy is not at {ARCHIVE}"
)

# Experiments that read no file and import only NumPy, SciPy and Matplotlib.
NO_FILES = (
    "cibench_generation/scipy/experiment02",  # num steps
    "cibench_generation/matplotlib/experiment03",  # vis steps
)

cibench_cells = benchmark_side("cibench.cells")
cibench_scores = benchmark_side("cibench.scores")


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Downloads and staged data in a cache of the test session's own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    if not ARCHIVE.is_file():
        pytest.skip(f"the published CIBench copy is not at {ARCHIVE}")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "cache"))
        return problemsets.load_problems([ARCHIVE])


# -- every experiment loads ------------------------------------------------------------------


@needs_data
def test_a_session_reading_a_workbook_requires_openpyxl(published: list[Any]) -> None:
    """pandas reads .xlsx with openpyxl, which the session never imports: an env without it
    (a bisection's trial env holds the problem's packages only) could not run it."""
    by_id = {p.id: p for p in published}
    assert "openpyxl" in by_id["cibench_template/pandas/pandas_exp04"].requires
    assert "openpyxl" not in by_id["cibench_template/pandas/pandas_exp01"].requires


@needs_data
def test_all_234_experiments_load(published: list[Any]) -> None:
    sessions = [p for p in published if not p.metadata["oracle"]]
    assert len(sessions) == 234
    assert len(published) == 2 * 234  # each end to end and with the oracle
    per_set = Counter(p.set_name for p in sessions)
    assert per_set == {"cibench_generation": 161, "cibench_template": 73}
    per_module = Counter(p.native_id.split("/")[0] for p in sessions)
    assert per_module == {
        "matplotlib": 40,
        "pandas": 47,
        "opencv": 40,
        "scipy": 32,
        "seaborn": 32,
        "pytorch": 16,
        "nltk": 10,
        "tensorflow": 6,
        "sklearn": 6,
        "lightgbm": 5,
    }
    kinds = Counter(k for p in sessions for k in p.metadata["step_types"])
    assert kinds == {"vis": 625, "exec": 348, "num": 263, "text": 96}


@needs_data
def test_sessions_that_need_a_missing_file_are_unavailable(published: list[Any]) -> None:
    sessions = [p for p in published if not p.metadata["oracle"]]
    unavailable = {p.id: p.metadata["unavailable"] for p in sessions if p.metadata["unavailable"]}
    assert len(unavailable) == 84  # every .csv and 13 large binaries are not in the copy
    assert unavailable["cibench_template/scipy/scipy_exp01"] == (
        "needs data/scipy_dataset01.csv, which the published copy does not hold"
    )
    staged = {
        p.id: p.metadata["cibench"]["data"] for p in sessions if not p.metadata["unavailable"]
    }
    assert sum(1 for data in staged.values() if data) == 54  # read a file the copy holds
    relative, source = staged["cibench_template/opencv/opencv_exp01"][0]
    assert relative == "data/opencv_dataset01.jpg"
    assert Path(source).is_file()
    assert Path(source).is_relative_to(downloads.cache_dir().parent)


@needs_data
def test_an_experiment_as_steps(published: list[Any]) -> None:
    by_id = {p.id: p for p in published}
    session = by_id["cibench_generation/scipy/experiment02"]
    oracle = by_id["cibench_generation/scipy/experiment02/oracle"]
    assert session.library == "scipy"
    assert session.metadata["expected"] == "derived, not published"
    assert session.metadata["step_types"] == ["num", "num", "num"]
    assert session.prompt.startswith("Step 1: Define a quadratic function with a sine")
    assert session.reference_code.startswith("# %% step 1\nimport numpy as np\n")
    assert "_ORACLE = False" in session.code_context
    assert "_ORACLE = True" in oracle.code_context
    # a front matter counting more steps than the file has: paired in order, as upstream's zip
    odd = by_id["cibench_generation/matplotlib/experiment03"]
    assert odd.metadata["note"] == "step_types has 6 entries for 5 steps: paired in order"


@needs_data
def test_one_experiment_file_and_the_unpacked_folder(tmp_path: Path) -> None:
    folder = downloads.extract(ARCHIVE)
    one = folder / "cibench_dataset" / "cibench_generation" / "scipy" / "experiment02.md"
    assert [p.id for p in problemsets.load_problems([one])] == [
        "cibench_generation/scipy/experiment02",
        "cibench_generation/scipy/experiment02/oracle",
    ]
    task_set = folder / "cibench_dataset" / "cibench_template"
    assert len(problemsets.load_problems([task_set])) == 2 * 73


# -- the official zip's layout: executed notebooks ---------------------------------------------


def _png(color: tuple[int, int, int]) -> str:
    from PIL import Image  # noqa: PLC0415 - Matplotlib's dependency, imported where used

    buffer = io.BytesIO()
    Image.new("RGB", (16, 16), color).save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


def _notebook(figure: str) -> dict[str, Any]:
    def markdown(text: str) -> dict[str, Any]:
        return {"cell_type": "markdown", "metadata": {}, "source": [text]}

    def code(source: str, *outputs: dict[str, Any]) -> dict[str, Any]:
        return {"cell_type": "code", "metadata": {}, "source": [source], "outputs": list(outputs)}

    return {
        "metadata": {"step_types": ["exec", "num", "vis"], "modules": ["numpy", "numpy", "x & y"]},
        "cells": [
            markdown("File Path: `data/values.txt`\n\nRead the values."),
            code("values = [1, 2, 3, 4]"),
            markdown("Print their mean."),
            code(
                "print(sum(values) / 4)\nsum(values)",
                {"output_type": "stream", "name": "stdout", "text": ["2.5\n"]},
                {"output_type": "execute_result", "data": {"text/plain": ["10"]}},
            ),
            markdown("Plot them."),
            code("plot(values)", {"output_type": "display_data", "data": {"image/png": figure}}),
        ],
    }


def test_a_notebook_of_the_official_zip_gives_its_expected_outputs(tmp_path: Path) -> None:
    folder = tmp_path / "cibench_dataset" / "cibench_template" / "demo"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "values.txt").write_text("1 2 3 4\n")
    figure = _png((200, 10, 10))
    (folder / "demo_exp01.ipynb").write_text(json.dumps(_notebook(figure)))
    session, oracle = problemsets.load_problems([tmp_path])
    assert session.id == "cibench_template/demo/demo_exp01"
    assert oracle.id == "cibench_template/demo/demo_exp01/oracle"
    assert session.metadata["expected"] == "published"
    assert not expected.needs_derivation(session)
    spec = session.metadata["cibench"]["spec"]
    assert [s["type"] for s in spec] == ["exec", "num", "vis"]
    assert spec[1]["text"] == "2.5\n10\n"
    assert spec[2]["figure"] == figure
    assert spec[2]["modules"] == ["x", "y"]
    assert session.metadata["cibench"]["data"][0][0] == "data/values.txt"


def test_the_official_zip_itself(tmp_path: Path) -> None:
    archive = tmp_path / "cibench_dataset.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        name = "cibench_dataset/cibench_generation/demo/experiment01.ipynb"
        bundle.writestr(name, json.dumps(_notebook(_png((0, 0, 0)))))
    loaded = problemsets.load_problems([archive])
    assert [p.id for p in loaded] == [
        "cibench_generation/demo/experiment01",
        "cibench_generation/demo/experiment01/oracle",
    ]
    # its data file is not in this zip: the session says so instead of failing
    assert loaded[0].metadata["unavailable"] == (
        "needs data/values.txt, which the published copy does not hold"
    )


def test_the_named_set_says_where_the_zip_is() -> None:
    with pytest.raises(ProblemError) as caught:
        problemsets.resolve(["cibench"])
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("cibench: get the official cibench_dataset.zip")
    assert "--problems /path/to/cibench_dataset.zip" in message
    assert "https://github.com/open-compass/opencompass/releases/download/0.2.4.rc1/" in message


FRONT = "---\njupyter:\n  title: t\n  step_types:\n    - {kind}\n  modules:\n    - numpy\n---\n"


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("no front matter\n", "line 1", "no front matter: expected '---'"),
        ("---\njupyter:\n  title: t\n", "line 1", "front matter never closed with '---'"),
        ("---\n  [oops\n---\n", "line 2", "cannot read front matter: '[oops'"),
        (FRONT.format(kind="exec"), None, "no ```python block: an experiment needs steps"),
        (
            FRONT.format(kind="plot") + "Do.\n```python\nx = 1\n```\n",
            "step_types",
            "'plot' is not one of exec, num, text, vis",
        ),
    ],
)
def test_bad_experiment_files(tmp_path: Path, text: str, where: str | None, message: str) -> None:
    path = tmp_path / "cibench_template" / "numpy" / "numpy_exp01.md"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    with pytest.raises(ProblemError) as caught:
        problemsets.load_problems([path])
    assert str(caught.value) == str(ProblemError(str(path), where, message))


# -- upstream's scores -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "target", "expected_match"),
    [
        ("866\n", "866", True),  # a num step of the copy: data.isna().sum().sum()
        ("-1.31\n", "-1.31\n", True),
        ("0.5", "[0.5, 0.25]", True),  # upstream: ``out in target``
        ("np.float64(0.5)", "0.5", False),  # NumPy 2's repr: the text differs
        ("0.50", "0.5", False),  # no numeric tolerance upstream
        ("", "0.5", False),  # nothing printed matches nothing
    ],
)
def test_num_as_upstream(output: str, target: str, expected_match: bool) -> None:
    assert cibench_scores.num_matches(output, target) is expected_match


@pytest.mark.parametrize(
    ("output", "target", "same"),
    [
        ("np.float64(0.5)\n", "0.5", True),  # NumPy 2's scalar repr
        ("[np.int64(1), np.int64(2)]", "[1, 2]", True),
        ("0.50", "0.5", True),
        ("np.float64(0.6)", "0.5", False),  # another value
        ("1 2", "1 2 3", False),
        ("float64", "64", False),  # a name's digits are not a number
        ("text", "text", False),  # no number: nothing to say it is the same value
    ],
)
def test_same_values_in_another_format(output: str, target: str, same: bool) -> None:
    assert cibench_scores.same_values(output, target) is same


@pytest.mark.parametrize(
    ("output", "target", "score"),
    [
        ("The cat sat on the mat", "the cat sat on the mat", 1.0),
        ("the cat", "the cat sat on the mat", 0.5),  # P 1, R 1/3: F = 2·(1/3)/(4/3)
        ("The mean is 3.5.", "mean: 3.5", 0.75),  # the mean is 3 5 / mean 3 5: P 3/5, R 1
        ("nothing alike", "the cat sat on the mat", 0.0),
        ("", "the cat", 0.0),
    ],
)
def test_text_as_upstream_rouge1(output: str, target: str, score: float) -> None:
    assert cibench_scores.rouge1(output, target) == pytest.approx(score)


def _figure(draw: str, size: tuple[float, float] = (6, 4)) -> bytes:
    import matplotlib as mpl  # noqa: PLC0415 - the libraries of the figures, where used

    mpl.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415
    import numpy as np  # noqa: PLC0415

    x = np.linspace(0, 4 * np.pi, 50)
    figure = plt.figure(figsize=size)
    {
        "sine": lambda: plt.plot(x, np.sin(x), color="red"),
        "sine, 2% taller": lambda: plt.plot(x, 1.02 * np.sin(x), color="red"),
        "bars": lambda: plt.bar(range(5), [3, 1, 4, 1, 5]),
    }[draw]()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("draw", "size", "low", "high"),
    [
        ("sine", (6, 4), 1.0, 1.0),  # the same figure
        ("sine, 2% taller", (6, 4), 0.95, 0.999),  # close: passes
        ("sine", (8, 5), 0.95, 0.99),  # the same plot at another size, resized as upstream does
        ("bars", (6, 4), 0.0, 0.89),  # another figure: fails
    ],
)
def test_vis_is_structural_similarity(
    draw: str, size: tuple[float, float], low: float, high: float
) -> None:
    score = cibench_scores.ssim(_figure(draw, size), _figure("sine"))
    assert low <= score <= high
    assert (score >= cibench_scores.VIS_THRESHOLD) is (draw != "bars")


def test_the_numpy_ssim_is_scikit_images() -> None:
    metrics = pytest.importorskip("skimage.metrics")
    import numpy as np  # noqa: PLC0415

    rng = np.random.default_rng(0)
    first = rng.integers(0, 255, (40, 50, 3), dtype=np.uint8)
    second = np.clip(first + rng.integers(-30, 30, first.shape), 0, 255).astype(np.uint8)
    assert cibench_scores._ssim_numpy(first, second) == pytest.approx(
        metrics.structural_similarity(first, second, channel_axis=-1), abs=1e-9
    )


def test_a_cells_figures_and_addresses() -> None:
    namespace: dict[str, Any] = {}

    def cell(code: str) -> str:
        return formatlib.harness_run_cell(code, namespace)

    cell(cibench_cells.SEED)
    text, figure = cibench_cells.run_step(
        cell, "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.figure()\nobject()"
    )
    assert text == "<object object>\n"  # its address changes from run to run: dropped
    assert figure is not None and base64.b64decode(figure).startswith(b"\x89PNG")
    assert cibench_cells.run_step(cell, "x = 1") == ("", None)  # the figures were closed


# -- expected outputs derived in an environment --------------------------------------------------


NUMBERS = """---
jupyter:
  title: Numbers
  step_types:
    - num
    - text
  modules:
    - numpy
    - numpy
---

Draw five numbers.
```python
import numpy as np

values = np.random.rand(5)
print(round(float(values.sum()), 6))
```

Describe them.
```python
print("five numbers, mean", round(float(values.mean()), 3))
```
"""


@needs_data
def test_expected_outputs_are_derived_once_and_cached(published: list[Any], tmp_path: Path) -> None:
    path = tmp_path / "cibench_template" / "numpy" / "numpy_exp01.md"
    path.parent.mkdir(parents=True)
    path.write_text(NUMBERS)
    chosen = [p for p in published if p.metadata["task"] == NO_FILES[1]]
    chosen += problemsets.load_problems([path])
    # this interpreter's venv as the baseline env: it has NumPy and Matplotlib
    info = EnvInfo(combo="here", ok=True, path=str(Path(sys.executable).parent.parent))
    first = expected.derive(chosen, info, cache=tmp_path / "cache")
    assert sorted(first.derived) == [NO_FILES[1], "cibench_template/numpy/numpy_exp01"]
    assert first.skipped == () and first.cached == 0
    by_id = {p.id: p for p in first.problems}
    spec = by_id["cibench_template/numpy/numpy_exp01"].metadata["cibench"]["spec"]
    # seeded: NumPy's first five numbers after seed 0
    assert [s["text"] for s in spec] == ["2.835304\n", "five numbers, mean 0.567\n"]
    vis = by_id[NO_FILES[1] + "/oracle"].metadata["cibench"]["spec"]
    assert all(base64.b64decode(s["figure"]).startswith(b"\x89PNG") for s in vis)
    assert by_id[NO_FILES[1]].metadata["expected"] == "derived, not published"
    again = expected.derive(chosen, info, cache=tmp_path / "cache")
    assert again.cached == 2
    assert [p.code_context for p in again.problems] == [p.code_context for p in first.problems]


def test_a_session_reads_its_data_files_from_its_directory(tmp_path: Path) -> None:
    """The data files are staged in the cache (here under /tmp, which the sandbox covers)
    and copied into the session's directory, where the reference finds them."""
    path = tmp_path / "cibench_template" / "numpy" / "numpy_exp01.md"
    (path.parent / "data").mkdir(parents=True)
    (path.parent / "data" / "values.txt").write_text("1 2 3 4\n")
    path.write_text(
        FRONT.format(kind="num")
        + "File Path: `data/values.txt`\n\nSum them.\n```python\n"
        + "print(sum(int(v) for v in open('data/values.txt').read().split()))\n```\n"
    )
    loaded = problemsets.load_problems([path])
    assert loaded[0].metadata["unavailable"] == ""
    info = EnvInfo(combo="here", ok=True, path=str(Path(sys.executable).parent.parent))
    derivation = expected.derive(loaded, info, cache=tmp_path / "cache")
    assert derivation.skipped == ()
    assert derivation.problems[0].metadata["cibench"]["spec"][0]["text"] == "10\n"


def test_bisection_reads_back_what_the_run_derived(tmp_path: Path) -> None:
    path = tmp_path / "cibench_template" / "numpy" / "numpy_exp01.md"
    path.parent.mkdir(parents=True)
    path.write_text(NUMBERS)
    loaded = problemsets.load_problems([path])
    run = RunDir(tmp_path / "run")
    run.root.mkdir()
    assert expected.as_recorded(loaded, run) is loaded  # the run derived nothing
    info = EnvInfo(combo="here", ok=True, path=str(Path(sys.executable).parent.parent))
    run.expected().write_text(json.dumps({"env_info": info.to_dict()}))
    again = expected.as_recorded(loaded, run)
    assert again[0].metadata["cibench"]["spec"][0]["text"] == "2.835304\n"


def test_the_reports_say_where_expected_outputs_came_from(tmp_path: Path) -> None:
    record = expected.Derivation((), ("a/b",), (("a/c", "step 1: URLError: no network"),))
    path = tmp_path / "expected.json"
    path.write_text(json.dumps(record.to_dict("ds1000-2024")))
    line = expected.described(path)
    assert line == (
        "CIBench: the expected outputs of 1 session(s) are derived, not published (their "
        "references run once in `ds1000-2024`); 1 session(s) whose reference does not run "
        "there are skipped."
    )
    assert expected.described(tmp_path / "absent.json") == ""
    summary = Summary("r", "ds1000-2024", (), (), (), 0, 0, {}, expected=line)
    assert Summary.from_dict(summary.to_dict()).expected == line
    assert line in markdown.render(summary)


def test_a_reference_that_cannot_run_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "cibench_template" / "numpy" / "numpy_exp01.md"
    path.parent.mkdir(parents=True)
    path.write_text(
        FRONT.format(kind="num") + "Fetch.\n```python\nimport no_such_module_here\n```\n"
    )
    loaded = problemsets.load_problems([path])
    info = EnvInfo(combo="here", ok=True, path=str(Path(sys.executable).parent.parent))
    derivation = expected.derive(loaded, info, cache=tmp_path / "cache")
    assert derivation.skipped == (
        (
            "cibench_template/numpy/numpy_exp01",
            "step 1: ModuleNotFoundError: No module named 'no_such_module_here'",
        ),
    )
    assert all(
        p.metadata["unavailable"].startswith("its reference does not run in the baseline: step 1")
        for p in derivation.problems
    )


# -- a real run --------------------------------------------------------------------------------

ENVS = Path(os.environ.get("HARNESS_ENV_DIR", "/work/envs"))


@pytest.mark.slow
@needs_data
def test_a_real_run_of_published_sessions(tmp_path: Path) -> None:
    """The references pass against the outputs derived from them (so derivation is
    deterministic); an answer with a wrong number and a different figure fails those steps
    alone; a session that needs a missing file is skipped, with why."""
    answers = tmp_path / "m.jsonl"
    folder = downloads.extract(ARCHIVE) / "cibench_dataset" / "cibench_generation"
    steps = [
        s.reference for s in cibench_notebooks.read(folder / "scipy" / "experiment02.md", "x").steps
    ]
    steps[1] = steps[1].replace("round(result.x[0], 2)", "round(result.x[0], 1)")
    vis = [
        s.reference
        for s in cibench_notebooks.read(folder / "matplotlib" / "experiment03.md", "x").steps
    ]
    vis[0] = vis[0].replace("plt.plot(x, y, color='red')", "plt.bar(range(5), [3, 1, 4, 1, 5])")
    answers.write_text(
        json.dumps({"task_id": NO_FILES[0], "steps": steps})
        + "\n"
        + json.dumps({"task_id": NO_FILES[1], "steps": vis})
        + "\n"
    )
    ids = [*NO_FILES, "cibench_template/scipy/scipy_exp01"]
    command = ["run", "--combos", "ds1000-2024", "--problems", str(ARCHIVE)]
    for task in ids:
        command += ["--problem-id", task, "--problem-id", task + "/oracle"]
    command += ["--answers", str(answers), "--results", str(tmp_path / "r"), "--run-id", "c"]
    run_harness(*command, "--no-history", cwd=ROOT, env={"HARNESS_ENV_DIR": str(ENVS)})
    run = tmp_path / "r" / "c"
    rows = [json.loads(line) for line in (run / "ds1000-2024.jsonl").read_text().splitlines()]
    got = {(r["problem_id"], r["source"]): r for r in rows}
    for task in NO_FILES:
        assert got[(task, "reference")]["status"] == "pass"
        assert got[(task + "/oracle", "reference")]["status"] == "pass"
    num = got[(NO_FILES[0], "model:m")]
    assert [p["status"] for p in num["parts"]] == ["pass", "fail", "pass"]
    figure = got[(NO_FILES[1], "model:m")]
    assert [p["status"] for p in figure["parts"]][:2] == ["fail", "pass"]
    assert figure["parts"][0]["message"].startswith("ssim 0.")
    assert figure["parts"][0]["message"].endswith("[expected output derived, not published]")
    skipped = got[("cibench_template/scipy/scipy_exp01", "reference")]
    assert skipped["status"] == "skipped"
    assert skipped["message"] == (
        "needs data/scipy_dataset01.csv, which the published copy does not hold"
    )
    record = json.loads((run / "expected.json").read_text())
    assert record["expected"] == "derived, not published"
    assert sorted(record["derived"]) == sorted(NO_FILES)
    assert (
        "CIBench: the expected outputs of 2 session(s) are derived, not published "
        "(their references run once in `ds1000-2024`)"
    ) in (run / "summary.md").read_text()


DRIFTING = {
    # NumPy 2 prints its scalars as np.float64(1.0): the value is the same
    "numpy_exp01": "import numpy as np\n\nnp.float64(0.5) * 2",
    # NumPy 2 removed np.float_: a broken API
    "numpy_exp02": "import numpy as np\n\nprint(np.float_(0.5) * 2)",
}


@pytest.mark.slow
def test_output_format_drift_is_told_from_api_drift(tmp_path: Path) -> None:
    """Across ds1000-2024 (NumPy 1.26) and latest (NumPy 2): a session whose printed output
    changed and whose value did not is format drift (cause output-format), counted and
    shown apart; one whose API was removed drifts with cause removed-api."""
    for name, code in DRIFTING.items():
        path = tmp_path / "cibench_template" / "numpy" / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(FRONT.format(kind="num") + f"Double it.\n```python\n{code}\n```\n")
    command = [
        "run",
        "--combos",
        "ds1000-2024,latest",
        "--problems",
        str(tmp_path / "cibench_template"),
    ]
    command += ["--results", str(tmp_path / "r"), "--run-id", "d", "--no-history"]
    run_harness(*command, cwd=ROOT, env={"HARNESS_ENV_DIR": str(ENVS)})
    summary = json.loads((tmp_path / "r" / "d" / "summary.json").read_text())
    drifted = {
        row["problem_id"]: (row["class"], row["cause"])
        for row in summary["drift"]
        if row["source"] == "reference" and not row["problem_id"].endswith("/oracle")
    }
    assert drifted == {
        "cibench_template/numpy/numpy_exp01": ("format-drift", "output-format"),
        "cibench_template/numpy/numpy_exp02": ("drifted", "removed-api"),
    }
    markdown = (tmp_path / "r" / "d" / "summary.md").read_text()
    api, _, format_drift = markdown.partition("## Output-format drift")
    assert "numpy_exp02" in api and "numpy_exp01" not in api.split("## Drifted problems")[1]
    assert "numpy_exp01" in format_drift


def test_the_run_s_bisection_grades_against_what_it_derived(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``harness run --bisect`` and ``harness bisect --run``: the trials of a drifted
    session carry the expected outputs the run derived, not the empty ones it loaded."""
    path = tmp_path / "cibench_template" / "numpy" / "numpy_exp01.md"
    path.parent.mkdir(parents=True)
    path.write_text(NUMBERS)
    loaded = problemsets.load_problems([path])
    run = RunDir(tmp_path / "run")
    info = EnvInfo(combo="here", ok=True, path=str(Path(sys.executable).parent.parent))
    for combo in ("old", "new"):
        write_json(run.env_info(combo), EnvInfo(combo, ok=True).to_dict())
    run.expected().write_text(json.dumps({"env_info": info.to_dict()}))
    solutions = load_solutions(loaded, loaded, [], idioms=False)
    spec = load_matrix(ROOT / "matrix.toml")
    job = Job(spec, (), loaded, solutions, run, tmp_path / "envs")
    row = DriftRow(loaded[0].id, "reference", "numpy", DriftClass.DRIFTED, "old", "new")
    summary = dataclasses.replace(Summary.from_dict({"baseline": "old"}), drift=(row,))
    seen: list[Any] = []

    def analyse_drift(_lab: object, drifts: list[Any], *_rest: object) -> list[Any]:
        seen.extend(drifts)
        return []

    monkeypatch.setattr("harness.labs.bisection.analyse_drift", analyse_drift)
    monkeypatch.setattr(RunDir, "read_envs", lambda _self, _ids: {"old": 1, "new": 2})
    quiet = SimpleNamespace(log=lambda _message: None)
    app_bisect.analyse(job, summary, SimpleNamespace(index=None), quiet)  # type: ignore[arg-type]
    [(execution, good, bad, _)] = seen
    assert (good, bad) == ("old", "new")
    assert execution.problem.metadata["cibench"]["spec"][0]["text"] == "2.835304\n"
    assert loaded[0].metadata["cibench"]["spec"][0].get("text", "") != "2.835304\n"
