"""Hostile answers to TensorFlow checks, in a real TensorFlow env.

Until this version, a solution whose check had already started TensorFlow's runtime ran
in the check's own process ("beside its check"), because that runtime cannot be forked.
Answers that looked up the check's frames and returned its expected value passed there.
Now the solution's process is forked by the template (which never ran TensorFlow) or is
a new interpreter, whatever the check has started, and the check's tensors are sent to it.
Each attack below is an answer to a DS-1000-style TensorFlow problem whose check computes
its expected tensor (running TensorFlow) before the solution runs; the problem's reference
runs beside it as a canary, in both isolation modes.
"""

from __future__ import annotations

import json
import sys
import textwrap
from dataclasses import dataclass

import pytest

from harness.envside.isolation import sandbox
from tests.conftest import run_harness
from tests.test_hostile import RAW_MEMORY

pytestmark = pytest.mark.network
PY = f"{sys.version_info.major}.{sys.version_info.minor}"
NOT_PASS = {"fail", "error", "timeout", "crash"}

CONTEXT = '''
import numpy as np
import tensorflow as tf


def generate_test_case():
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    expected_result = tf.constant([[2.5, 4.5], [6.5, 8.5]])
    return a, expected_result


exec_context = r"""
import tensorflow as tf
a = test_input
[insert]
"""


def exec_test(result, ans):
    assert type(result) == type(ans), (type(result), type(ans))
    assert result.shape == ans.shape
    assert bool(tf.reduce_all(tf.abs(result - ans) < 1e-6))


def test_execution(solution):
    test_input, expected_result = generate_test_case()
    assert float(tf.reduce_sum(expected_result)) == 22.0  # TensorFlow's runtime is running
    test_env = {"test_input": test_input}
    exec(exec_context.replace("[insert]", solution), test_env)
    exec_test(test_env["result"], expected_result)
'''
REFERENCE = "result = a * 2 + 0.5"
# A variable: the check gives the solution state it changes in place.
VARIABLE_CONTEXT = """
import tensorflow as tf


def test_execution(solution):
    x = tf.Variable([1.0, 2.0])
    expected_result = tf.Variable([3.0, 3.0])
    _ = expected_result + 0
    env = {"x": x}
    exec("import tensorflow as tf\\n" + solution + "\\nresult = x", env)
    result = env["result"]
    assert type(result) == type(expected_result)
    assert bool(tf.reduce_all(result == expected_result))
"""
VARIABLE_REFERENCE = "x.assign([3.0, 3.0])"

FIND_PATTERN = """
import numpy as np
import tensorflow as tf


def pattern_in(data):
    usable = len(data) - len(data) % 4
    if usable < 16:
        return None
    w = np.frombuffer(data[:usable], dtype=np.float32)
    with np.errstate(all="ignore"):
        steps = np.diff(w)
        hits = np.nonzero((steps[:-2] == 2) & (steps[1:-1] == 2) & (steps[2:] == 2) & (w[:-3] % 1 == 0.5))[0]
    for i in hits:
        if 0 < w[i] < 100:
            return w[i : i + 4].copy()
    return None
"""

ATTACKS: dict[str, tuple[str, str]] = {
    "expected-from-frames": (
        "main",
        (
            "import sys\nf = sys._getframe()\nfound = None\nwhile f is not None:\n"
            "    found = f.f_locals.get('expected_result', found)\n    f = f.f_back\nresult = found\n"
        ),
    ),
    "expected-from-inspect": (
        "main",
        (
            "import inspect\nresult = None\nfor frame in inspect.stack():\n"
            "    if 'expected_result' in frame.frame.f_locals:\n"
            "        result = frame.frame.f_locals['expected_result']\n"
        ),
    ),
    "expected-from-gc": (
        "main",
        (
            "import gc\nimport tensorflow as tf\nresult = None\nfor o in gc.get_objects():\n"
            "    if isinstance(o, tf.Tensor) and float(tf.reduce_sum(o)) == 22.0:\n        result = o\n"
        ),
    ),
    "expected-from-main-module": (
        "main",
        "import sys\nresult = sys.modules['__main__'].__dict__['generate_test_case']()[1]\n",
    ),
    # the expected values, recognised in raw memory by their pattern (steps of 2 from
    # x.5) without ever making the pattern itself, which the attack would then find
    "expected-from-own-memory": (
        "main",
        RAW_MEMORY + FIND_PATTERN + "result = None\n"
        "for lo, hi, named in regions:\n"
        "    data = read(lo, hi - lo) if not named else None\n"
        "    found = pattern_in(data) if data else None\n"
        "    if found is not None:\n"
        "        result = tf.constant(found.reshape(2, 2))\n"
        "        break\n",
    ),
    "expected-from-the-parents-memory": (
        "main",
        FIND_PATTERN + "import os\nresult = None\n"
        "for pid in [p for p in os.listdir('/proc') if p.isdigit()]:\n"
        "    try:\n        maps = open('/proc/%s/maps' % pid).read().splitlines()\n"
        "        mem = open('/proc/%s/mem' % pid, 'rb')\n    except OSError:\n        continue\n"
        "    for line in maps:\n        lo, hi = (int(x, 16) for x in line.split()[0].split('-'))\n"
        "        try:\n            mem.seek(lo)\n            found = pattern_in(mem.read(min(hi - lo, 1 << 24)))\n"
        "        except (OSError, ValueError, OverflowError):\n            continue\n"
        "        if found is not None:\n            result = tf.constant(found.reshape(2, 2))\n",
    ),
    "tensor-that-equals-anything": (
        "main",
        (
            "import tensorflow as tf\nclass T:\n    shape = tf.TensorShape([2, 2])\n"
            "    def __eq__(self, o): return tf.ones([2, 2], bool)\n"
            "    def __sub__(self, o): return tf.zeros([2, 2])\n"
            "    __class__ = property(lambda self: type(tf.constant(0.0)))\n"
            "result = T()\n"
        ),
    ),
    "patch-tensorflow-in-own-process": (
        "main",
        (
            "import tensorflow as tf\ntf.reduce_all = lambda *a, **k: True\n"
            "tf.abs = lambda x: tf.zeros([2, 2])\nresult = a * 0\n"
        ),
    ),
    "patch-tensor-equality": (
        "main",
        (
            "import tensorflow as tf\ntype(a).__eq__ = lambda self, o: tf.ones([2, 2], bool)\n"
            "type(a).__sub__ = lambda self, o: tf.zeros([2, 2])\nresult = a * 0\n"
        ),
    ),
    "exit-0": ("main", "import os\nos._exit(0)\n"),
    "kill-the-parent": ("main", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n"),
    "signal-everything": ("main", "import os, signal\nos.kill(-1, signal.SIGKILL)\n"),
    "keras-object-with-a-lambda": (
        "main",
        "import tensorflow as tf\nresult = tf.keras.layers.Lambda(lambda x: x)\n",
    ),
    "variable-that-lies": (
        "variable",
        (
            "import tensorflow as tf\nclass V(tf.Variable):\n    pass\n"
            "x = tf.Variable([0.0, 0.0])\nx.__class__.__eq__ = lambda s, o: tf.constant([True, True])\n"
        ),
    ),
    "variable-from-frames": (
        "variable",
        (
            "import sys\nf = sys._getframe()\nwhile f is not None:\n"
            "    if 'expected_result' in f.f_locals:\n        x = f.f_locals['expected_result']\n"
            "    f = f.f_back\n"
        ),
    ),
}
CONTEXTS = {"main": (CONTEXT, REFERENCE), "variable": (VARIABLE_CONTEXT, VARIABLE_REFERENCE)}


@dataclass
class Run:
    outcomes: dict[tuple[str, str], dict[str, object]]
    executor: dict[str, object]


def problem_toml(context: str, reference: str) -> str:
    return (
        'library = "tensorflow"\nprompt = "Scale it."\n'
        f"context = '''{context}'''\nreference = '''{reference}'''\ntimeout = 60\n"
    )


@pytest.fixture(scope="module", params=["zygote", "fresh"])
def attacked(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Run:
    work = tmp_path_factory.mktemp("hostile-tf")
    reason = sandbox.probe(str(work))
    if reason:
        pytest.fail(f"the sandbox cannot be entered on this machine ({reason}); not attacking")
    folder = work / "problems" / "tf"
    folder.mkdir(parents=True)
    answers = []
    for name, (kind, code) in ATTACKS.items():
        (folder / f"{name}.toml").write_text(problem_toml(*CONTEXTS[kind]))
        answers.append({"problem_id": f"problems/tf/{name}", "code": code})
    for kind, (context, reference) in CONTEXTS.items():
        (folder / f"honest-{kind}.toml").write_text(problem_toml(context, reference))
        answers.append({"problem_id": f"problems/tf/honest-{kind}", "code": reference})
    (work / "answers.jsonl").write_text("".join(json.dumps(a) + "\n" for a in answers))
    # the TensorFlow env the isolation tests use (tests/test_isolation_libs.py)
    (work / "matrix.toml").write_text(
        textwrap.dedent(f"""
        [matrix]
        python = "{PY}"
        packages = {{ tensorflow = "tensorflow-cpu" }}
        [combos.tf]
        numpy = "2.0.2"
        tensorflow = "2.18.0"
    """)
    )
    proc = run_harness(
        "run", "--problems", str(work / "problems"), "--answers", str(work / "answers.jsonl"),
        "--results", str(work / "results"), "--env-dir", str(work / "envs"),
        "--run-id", "tf", "--no-history", "--isolation", request.param, "-j", "2",
        cwd=work, check=False,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    run = work / "results" / "tf"
    rows = [json.loads(line) for line in (run / "tf.jsonl").read_text().splitlines()]
    return Run(
        {(str(r["problem_id"]), str(r["source"])): r for r in rows},
        json.loads((run / "envs" / "tf.executor.json").read_text()),
    )


def test_the_sandbox_and_guard_were_on(attacked: Run) -> None:
    assert attacked.executor["sandbox"] == "on"
    assert attacked.executor["guard"] is True


def test_no_attack_passes(attacked: Run) -> None:
    passed = {
        name: (o["status"], o.get("exc_type"), str(o.get("message", ""))[:200])
        for name in ATTACKS
        if (o := attacked.outcomes[(f"problems/tf/{name}", "model:answers")])["status"]
        not in NOT_PASS
    }
    assert passed == {}
    assert len(ATTACKS) >= 15


def test_no_answer_ran_beside_its_check(attacked: Run) -> None:
    notes = [str(o.get("note", "")) for o in attacked.outcomes.values()]
    assert [n for n in notes if "beside" in n] == []


def test_honest_answers_and_every_canary_pass(attacked: Run) -> None:
    # an honest TensorFlow answer crosses: the check's tensors and variables to the
    # solution, its result back as data
    for kind in CONTEXTS:
        honest = attacked.outcomes[(f"problems/tf/honest-{kind}", "model:answers")]
        assert honest["status"] == "pass", honest
    references = {p: o["status"] for (p, s), o in attacked.outcomes.items() if s == "reference"}
    assert len(references) == len(ATTACKS) + len(CONTEXTS)
    assert {p: s for p, s in references.items() if s != "pass"} == {}


def test_the_frames_attack_finds_no_check(attacked: Run) -> None:
    outcome = attacked.outcomes[("problems/tf/expected-from-frames", "model:answers")]
    # no frame of the check's in the solution's process: result stays None
    assert outcome["status"] == "fail", outcome
    assert "NoneType" in str(outcome["message"]), outcome
