"""Isolation where it is hard: library state (figures, RNGs, TF/Keras globals) in a real env.

Each case runs two executions one after the other: the first changes a piece of
library state, the second checks it sees a pristine library, in both isolation modes.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from harness.envs.build import EnvBuilder
from harness.matrix.spec import Combo, LibrarySpec, VersionKind
from tests import test_envside

if TYPE_CHECKING:
    from harness.envs.build import EnvInfo

pytestmark = pytest.mark.network
PY = f"{sys.version_info.major}.{sys.version_info.minor}"
PASS_CONTEXT = textwrap.dedent("""
    import numpy
    import matplotlib.pyplot
    import tensorflow
    def test_execution(solution):
        exec(solution, {})
""")


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> EnvInfo:
    combo = Combo(
        "libs",
        PY,
        (
            LibrarySpec("numpy", "numpy", "2.0.2", VersionKind.PIN),
            LibrarySpec("matplotlib", "matplotlib", "3.9.2", VersionKind.PIN),
            LibrarySpec("tensorflow", "tensorflow-cpu", "2.18.0", VersionKind.PIN),
        ),
    )
    info, _ = EnvBuilder(tmp_path_factory.mktemp("envs")).build(combo)
    assert info.ok, info.error
    return info


LEAKS = [
    (
        "open figures",
        "import matplotlib.pyplot as plt; plt.figure(); plt.plot([1, 2])",
        "import matplotlib.pyplot as plt; assert plt.get_fignums() == []",
    ),
    (
        "rcParams",
        "import matplotlib as mpl; mpl.rcParams['lines.linewidth'] = 9",
        "import matplotlib as mpl; assert mpl.rcParams['lines.linewidth'] == 1.5",
    ),
    (
        "numpy global seed",
        "import numpy as np; np.random.seed(7)",
        "import numpy as np; assert np.random.rand() != np.random.RandomState(7).rand()",
    ),
    (
        "numpy print options",
        "import numpy as np; np.set_printoptions(precision=1)",
        "import numpy as np; assert np.get_printoptions()['precision'] == 8",
    ),
    (
        "TF eager mode switched off",
        "import tensorflow as tf; tf.compat.v1.disable_eager_execution()",
        "import tensorflow as tf; assert tf.executing_eagerly()",
    ),
    (
        "TF global seed",
        "import tensorflow as tf; tf.random.set_seed(7)",
        "from tensorflow.python.framework import random_seed; assert random_seed.get_seed(None) == (None, None)",
    ),
    (
        "Keras layer names",
        "import tensorflow as tf; tf.keras.layers.Dense(2); tf.keras.layers.Dense(2)",
        "import tensorflow as tf; assert tf.keras.layers.Dense(2).name == 'dense'",
    ),
    (
        "Keras float type",
        "import tensorflow as tf; tf.keras.backend.set_floatx('float64')",
        "import tensorflow as tf; assert tf.keras.backend.floatx() == 'float32'",
    ),
]


@pytest.mark.parametrize("isolation", ["zygote", "fresh"])
@pytest.mark.parametrize(("kind", "change", "check"), LEAKS, ids=[leak[0] for leak in LEAKS])
def test_library_state_does_not_leak(
    env: EnvInfo,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    isolation: str,
    kind: str,
    change: str,
    check: str,
) -> None:
    monkeypatch.setattr(test_envside, "ISOLATION", isolation)
    outcomes, info = test_envside.run_batch_info(
        tmp_path,
        [change, check],
        context=PASS_CONTEXT,
        python=str(env.python_exe),
        jobs=1,
        timeout=60,
    )
    assert [o["status"] for o in outcomes] == ["pass", "pass"], outcomes
    if isolation == "zygote":
        assert {"numpy", "matplotlib.pyplot", "tensorflow"} <= set(info["preloaded"])
        assert info["fresh_only"] == {}


def test_forked_numpy_streams_differ(
    env: EnvInfo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(test_envside, "ISOLATION", "zygote")
    draw = "import numpy as np; seen = np.random.rand()"
    outcomes = test_envside.run_batch(
        tmp_path,
        [draw] * 3,
        context=test_envside.REPORT_CONTEXT,
        python=str(env.python_exe),
        jobs=1,
    )
    assert len(set(test_envside.reported(outcomes))) == 3


def test_configured_fresh_library_is_not_forked(
    env: EnvInfo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(test_envside, "ISOLATION", "zygote")
    # a new interpreter's command line is the env side's ``exec`` (a zygote's fork keeps
    # the zygote's, ``run``)
    pid_check = "assert open('/proc/self/cmdline', 'rb').read().split(b'\\0')[3] == b'exec'"
    outcomes, info = test_envside.run_batch_info(
        tmp_path,
        [pid_check],
        context=PASS_CONTEXT,
        python=str(env.python_exe),
        fresh_for=["tensorflow"],
        requires=["tensorflow"],
    )
    assert outcomes[0]["status"] == "pass"
    assert info["fresh_only"] == {"tensorflow": "configured to run in a fresh interpreter"}
    assert "tensorflow" not in info["preloaded"]


FIGURE_CONTEXT = textwrap.dedent("""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    def test_execution(solution):
        exec(solution, {"plt": plt})
        labels = [t.get_text() for t in plt.gca().get_yticklabels()]
        assert labels and all(label.endswith("%") for label in labels), labels
""")


@pytest.mark.parametrize("isolation", ["zygote", "fresh"])
def test_a_figure_with_a_lambda_comes_back_from_an_untrusted_solution(
    env: EnvInfo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolation: str
) -> None:
    # A FuncFormatter around a lambda cannot be pickled; the guard sends the figure back
    # with the ticks and labels the solution drew (as DS-1000's ds1000/595 needs).
    monkeypatch.setattr(test_envside, "ISOLATION", isolation)
    solution = (
        "plt.plot([0, 1], [0.1, 0.9])\n"
        "plt.gca().yaxis.set_major_formatter(plt.FuncFormatter(lambda y, _: f'{y:.0%}'))"
    )
    (outcome,) = test_envside.run_batch(
        tmp_path, [solution], context=FIGURE_CONTEXT, python=str(env.python_exe), trusted=False
    )
    assert (outcome["status"], outcome.get("note", "")) == ("pass", ""), outcome


# The check seeds NumPy's global generator and runs the solution three times; a process
# forked for each run would start from the check's state, and so must the one that serves
# all three (resident.Resident): its first draw after each seed is the seeded one. A figure
# the first run leaves open is not there in the second (the checker closed its own).
RESEEDED_CONTEXT = textwrap.dedent("""
    import numpy as np
    import matplotlib.pyplot as plt
    def test_execution(solution):
        for seed in range(3):
            np.random.seed(seed)
            env = {"np": np, "plt": plt}
            exec(solution, env)
            assert env["result"] == (np.random.RandomState(seed).rand(), 1), env["result"]
            plt.close("all")
""")


@pytest.mark.parametrize("isolation", ["zygote", "fresh"])
def test_each_run_of_an_untrusted_solution_starts_from_the_checks_random_state(
    env: EnvInfo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolation: str
) -> None:
    monkeypatch.setattr(test_envside, "ISOLATION", isolation)
    solution = "plt.figure()\nresult = (np.random.rand(), len(plt.get_fignums()))"
    (outcome,) = test_envside.run_batch(
        tmp_path, [solution], context=RESEEDED_CONTEXT, python=str(env.python_exe), trusted=False
    )
    assert (outcome["status"], outcome.get("note", "")) == ("pass", ""), outcome
