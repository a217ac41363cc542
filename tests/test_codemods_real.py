"""Every codemod, run for real in the newest release: the old idiom fails there, the
codemod rewrites it, the rewrite passes.

The old idioms are our problems' own (``[idioms] old``) and, for the codemods no problem
of ours needs, a few problems written here. A codemod that adjusts a problem's context
(``context_only``) is run the other way round: the same old code fails with the original
setup and passes with the rewritten one. Two codemods cannot be run so, and say why in
``NOT_RUN``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from harness.app import run as app_run
from harness.benchmarks.ours.load import compact_context
from harness.core.problem import IDIOM_PREFIX, Problem, Solution, imported_modules
from harness.execute.job import Job
from harness.execute.progress import QuietReporter
from harness.execute.rundir import RunDir
from harness.execute.runner import RunOptions
from harness.labs.repair.codemods import CODEMODS, DEFAULT, apply
from harness.matrix import spec
from harness.problems.sets import load_problems
from tests.conftest import ROOT

if TYPE_CHECKING:
    from pathlib import Path


pytestmark = pytest.mark.network

NOT_RUN = {
    "scipy-misc-to-datasets": "scipy.datasets downloads its files on first use: no network here",
    "scipy-interp2d": "reports interp2d's uses, rewrites nothing (no drop-in replacement)",
}

# (codemod, setup, old code, check): old APIs no problem of ours is built around
EXTRA = [
    (
        "numpy-alltrue-to-all",
        "import numpy as np\na = np.array([1, 2, 3])",
        "result = bool(np.alltrue(a > 0)) and not bool(np.sometrue(a > 5))",
        "assert result is True",
    ),
    (
        "numpy-scalar-type-aliases",
        "import numpy as np",
        "result = np.array([1, 2], dtype=np.float_)",
        "import numpy as np\nassert result.dtype == np.float64",
    ),
    (
        "numpy-round-asfarray-msort",
        "import numpy as np",
        "result = np.round_(np.asfarray([1.234, 2.345]), 1)",
        "assert [float(x) for x in result] == [1.2, 2.3]",
    ),
    (
        "pandas-set-axis-inplace",
        "import pandas as pd\ndf = pd.DataFrame({'a': [1], 'b': [2]})",
        "df.set_axis(['x', 'y'], axis=1, inplace=True)\nresult = df",
        "assert list(result.columns) == ['x', 'y']",
    ),
    (
        "pandas-positional-getitem-to-iloc",
        "import pandas as pd\ndf = pd.DataFrame({'a': [1, 5], 'b': [7, 2]})",
        "result = df.max()[0]",
        "assert result == 5",
    ),
    (
        "pandas-replace-method",
        "import pandas as pd\ndf = pd.DataFrame({'A': [0, 1, 0, 0, 2, 0]})",
        "df['A'].replace(to_replace=0, method='ffill', inplace=True)\nresult = df",
        "assert result['A'].tolist() == [0, 1, 1, 1, 2, 2]",
    ),
    (
        "pandas-chained-assignment",
        "import pandas as pd\ndf = pd.DataFrame({'A': [1, 2]})",
        "df['A'].iloc[0] = 5\nresult = df",
        "assert result['A'].tolist() == [5, 2]",
    ),
    (
        "pandas-to-datetime-per-value",
        "import pandas as pd\ns = pd.Series([' 2016-05-19 13:50:00', '2016-05-19 21:25:00'])",
        "result = pd.to_datetime(s)",
        "assert [str(t) for t in result] == ['2016-05-19 13:50:00', '2016-05-19 21:25:00']",
    ),
    (
        "numpy-array-to-element-item",
        "import numpy as np\nm = np.zeros((2, 2))",
        "m[0, 1] = np.full((1, 1), 0.5)\nresult = m",
        "assert result[0, 1] == 0.5",
    ),
    (
        "numpy-nonzero-0d",  # BigCodeBench/39: one p-value against the threshold
        "import numpy as np",
        "result = np.where(np.float64(0.01) < 0.05)[0].tolist()",
        "assert result == [0]",
    ),
    (
        "unittest-removed-aliases",  # BigCodeBench/227, 352, 394: Python 3.13 here
        "import unittest\nt = unittest.TestCase()",
        (
            "t.assertEquals(1, 1)\nt.assertAlmostEquals(0.5, 0.5001, places=3)\n"
            "t.assertDictContainsSubset({'a': 1}, {'a': 1, 'b': 2})\nresult = True"
        ),
        "assert result is True",
    ),
    (
        "scipy-mode-scalar",  # BigCodeBench/736
        "import numpy as np",
        "from scipy import stats\nresult = stats.mode(np.array([1, 2, 2, 3]))[0][0]",
        "assert result == 2",
    ),
    (
        "sklearn-onehot-sparse-output",  # BigCodeBench/686
        "import numpy as np\nfrom sklearn.preprocessing import OneHotEncoder",
        "result = OneHotEncoder(sparse=False).fit_transform(np.array([[1], [2]]))",
        "assert result.tolist() == [[1.0, 0.0], [0.0, 1.0]]",
    ),
    (
        "matplotlib-boxplot-tick-labels",  # BigCodeBench/1026
        "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt",
        (
            "fig, ax = plt.subplots()\nax.boxplot([[1, 2], [3, 4]], labels=['a', 'b'])\n"
            "result = [t.get_text() for t in ax.get_xticklabels()]"
        ),
        "assert result == ['a', 'b']",
    ),
    (
        "pandas-read-json-literal",  # BigCodeBench/501
        "import pandas as pd",
        'result = pd.read_json(\'[{"Name": "John", "Age": 30}]\')',
        "assert result.to_dict('records') == [{'Name': 'John', 'Age': 30}]",
    ),
    (
        "matplotlib-get-cmap-to-colormaps",
        "import matplotlib\nmatplotlib.use('Agg')",
        "from matplotlib import cm\nresult = cm.get_cmap('viridis').name",
        "assert result == 'viridis'",
    ),
]

# (codemod, setup, old code, check): the codemod rewrites the setup, not the code
CONTEXT = [
    (
        "pandas3-object-strings",
        "import pandas as pd\ndf = pd.DataFrame({'name': ['a', 'b']})",
        "df.loc[0, 'name'] = 1\nresult = df",
        "assert result['name'].tolist() == [1, 'b']",
    ),
    (
        "numpy2-legacy-print",
        "import numpy as np",
        "result = [np.float64(1.5)]",
        "assert repr(result) == '[1.5]'",
    ),
]


def _problem(pid: str, library: str, setup: str, check: str) -> Problem:
    """A problem in our compact form (setup, then the solution, then the check)."""
    context = compact_context(setup + "\n", check + "\n")
    return Problem(
        f"codemods/{pid}",
        pid,
        "codemods",
        library,
        "",
        "",
        context,
        requires=imported_modules(context),
    )


def _cases() -> tuple[list[Problem], list[Solution], dict[str, list[tuple[str, str]]]]:
    """The problems, the solutions to run (old and rewritten), and per codemod the
    (problem id, source) pairs that must fail (old) and pass (rewritten)."""
    problems: list[Problem] = []
    solutions: list[Solution] = []
    runs: dict[str, list[tuple[str, str]]] = {}
    for p in load_problems([ROOT / "problems"]):
        old = p.idioms.get("old")
        if old is None:
            continue
        rewrite = apply(old, DEFAULT)
        if not rewrite.applied:
            continue
        problems.append(p)
        solutions += [
            Solution(p.id, IDIOM_PREFIX + "old", old),
            Solution(p.id, IDIOM_PREFIX + "rewritten", rewrite.source),
        ]
        for name in rewrite.applied:
            runs.setdefault(name, []).append((p.id, "old"))
    for name, setup, old, check in EXTRA:
        library = CODEMODS[name].library
        problem = _problem(name, library, setup, check)
        problems.append(problem)
        rewrite = apply(old, [name])
        assert rewrite.applied == (name,), rewrite
        solutions += [
            Solution(problem.id, IDIOM_PREFIX + "old", old),
            Solution(problem.id, IDIOM_PREFIX + "rewritten", rewrite.source),
        ]
        runs.setdefault(name, []).append((problem.id, "old"))
    for name, setup, old, check in CONTEXT:
        library = CODEMODS[name].library
        rewrite = apply(setup + "\n", [name])
        assert rewrite.applied == (name,), rewrite
        before = _problem(name, library, setup, check)
        after = _problem(name + "-rewritten", library, rewrite.source, check)
        problems += [before, after]
        solutions += [
            Solution(before.id, IDIOM_PREFIX + "old", old),
            Solution(after.id, IDIOM_PREFIX + "rewritten", old),
        ]
        runs.setdefault(name, []).append((before.id, "context"))
    return problems, solutions, runs


def test_every_codemod_is_run_or_says_why_not() -> None:
    _, _, runs = _cases()
    assert set(runs) | set(NOT_RUN) == set(CODEMODS)
    assert not set(runs) & set(NOT_RUN)


def test_old_idioms_fail_in_the_newest_release_and_their_rewrites_pass(tmp_path: Path) -> None:
    matrix = spec.load(ROOT / "matrix.toml")
    (latest,) = [c for c in matrix.combos if c.id == "latest"]
    env_root = os.environ.get("HARNESS_ENV_DIR", str(ROOT / ".harness" / "envs"))
    problems, solutions, runs = _cases()
    job = Job(
        spec=matrix,
        combos=[latest],
        problems=problems,
        solutions=solutions,
        run_dir=RunDir(tmp_path / "run"),
        env_root=(ROOT / env_root).absolute(),
        options=RunOptions(jobs=2, timeout=matrix.timeout),
    )
    app_run.run(job, QuietReporter())
    status = {(o.problem_id, o.source): o for o in job.run_dir.read_all()}
    wrong = []
    for name, where in sorted(runs.items()):
        for pid, how in where:
            after_id = pid + "-rewritten" if how == "context" else pid
            old = status[(pid, IDIOM_PREFIX + "old")]
            new = status[(after_id, IDIOM_PREFIX + "rewritten")]
            if old.status.value == "pass":
                wrong.append(f"{name}: {pid}: the old code passes in {latest.id}")
            if new.status.value != "pass":
                wrong.append(f"{name}: {after_id}: rewritten {new.status.value}: {new.first_line}")
    assert wrong == [], "\n".join(wrong)


# (codemod, setup, old code, check): the portable forms, for code that must run before
# the new API too
PORTABLE = [
    (
        "pandas-applymap-to-map",  # BigCodeBench/35 and its kin
        "import pandas as pd\ndf = pd.DataFrame({'a': [1, 5], 'b': ['x', 'y']})",
        "result = df.applymap(lambda x: x if x in (1, 'y') else 0)",
        "assert result.to_dict('list') == {'a': [1, 0], 'b': [0, 'y']}",
    ),
    (
        "pandas-freq-aliases",  # BigCodeBench/941-945: a default, a comparison, callers
        "import pandas as pd",
        (
            "def f(start, periods, freq='M'):\n"
            "    index = pd.date_range(start, periods=periods, freq=freq)\n"
            "    return list(index.strftime('%Y-%m-%d')), 12 if freq == 'M' else 4\n"
            "result = [f('2021-01-01', 3), f('2021-01-01', 2, 'Q'), f('2021-01-01', 2, 'A')]"
        ),
        (
            "assert result == [(['2021-01-31', '2021-02-28', '2021-03-31'], 12),"
            " (['2021-03-31', '2021-06-30'], 4), (['2021-12-31', '2022-12-31'], 4)], result"
        ),
    ),
    (
        "matplotlib-boxplot-tick-labels",  # BigCodeBench/1026
        "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt",
        (
            "fig, ax = plt.subplots()\nax.boxplot([[1, 2], [3, 4]], labels=['a', 'b'])\n"
            "fig.canvas.draw()\nresult = [t.get_text() for t in ax.get_xticklabels()]"
        ),
        "assert result == ['a', 'b'], result",
    ),
]


@pytest.mark.slow
def test_portable_forms_pass_in_the_oldest_and_the_newest_release(tmp_path: Path) -> None:
    """In the matrix's oldest combo (pandas 1.3, Matplotlib 3.5) the new API's rewrite
    fails and the portable one passes; in the newest the old code fails and the portable
    rewrite passes too."""
    matrix = spec.load(ROOT / "matrix.toml")
    combos = [c for c in matrix.combos if c.id in ("ds1000-2022", "latest")]
    env_root = os.environ.get("HARNESS_ENV_DIR", str(ROOT / ".harness" / "envs"))
    problems, solutions = [], []
    for name, setup, old, check in PORTABLE:
        problem = _problem(name + "-portable", CODEMODS[name].library, setup, check)
        portable, new = apply(old, [name], portable={name}), apply(old, [name])
        assert portable.applied == new.applied == (name,)
        assert portable.source != new.source
        problems.append(problem)
        solutions += [
            Solution(problem.id, IDIOM_PREFIX + "old", old),
            Solution(problem.id, IDIOM_PREFIX + "new", new.source),
            Solution(problem.id, IDIOM_PREFIX + "portable", portable.source),
        ]
    job = Job(
        spec=matrix,
        combos=combos,
        problems=problems,
        solutions=solutions,
        run_dir=RunDir(tmp_path / "run"),
        env_root=(ROOT / env_root).absolute(),
        options=RunOptions(jobs=2, timeout=matrix.timeout),
    )
    app_run.run(job, QuietReporter())
    status = {
        (o.problem_id, o.source.removeprefix(IDIOM_PREFIX), o.combo): o.status.value
        for o in job.run_dir.read_all()
    }
    expected: dict[tuple[str, str, str], str] = {}
    for problem in problems:
        expected |= {
            (problem.id, "old", "ds1000-2022"): "pass",
            (problem.id, "new", "ds1000-2022"): "fail",
            (problem.id, "portable", "ds1000-2022"): "pass",
            (problem.id, "new", "latest"): "pass",
            (problem.id, "portable", "latest"): "pass",
        }
    found = {k: ("fail" if v in ("fail", "error") else v) for k, v in status.items()}
    assert {k: found.get(k) for k in expected} == expected
    assert all(found[(p.id, "old", "latest")] == "fail" for p in problems)
