"""Calls across the boundary (harness/envside/crossing.py): what is lent, what is copied,
what the solution may do with what it was lent, and how its exceptions come back.

The module is standard library only; these tests run its two sides in this process, and
one real run (a task whose tests patch an object only the check can name) goes through
``harness run``.
"""

from __future__ import annotations

import inspect
import io
import json
import math
import operator
import pickle
import sys
import textwrap
import unittest
import urllib.error
import warnings
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from harness.envside import crossing
from tests.conftest import run_harness


class Local:
    """A class of a test's own (its module is not importable by name in the solution's
    process): its instances are lent."""


def test_mocks_streams_and_the_tests_own_functions_are_lent() -> None:
    def helper() -> int:
        return 1

    assert crossing.lends(mock.MagicMock())
    assert crossing.lends(io.StringIO())
    assert crossing.lends(helper)  # a closure of a test: pickle cannot find it
    assert crossing.lends(lambda: 1)
    assert crossing.lends([].append)  # bound to an object of the check's
    assert crossing.lends(x for x in [1])


def test_data_and_library_functions_are_copied() -> None:
    for value in (1, "a", [1, 2], {"a": (1, 2.5)}, None, b"x", pickle.dumps, dict.fromkeys, len):
        assert not crossing.lends(value), value


def test_a_value_that_will_not_pickle_is_lent_whole() -> None:
    lent = crossing.Lent()

    class Unpicklable:
        def __reduce__(self) -> str:
            raise TypeError("no")

    data = crossing.dumps_to_solution([1, Unpicklable()], lent)
    assert len(lent.objects) == 1
    assert b"checker" in data


def test_the_solution_names_only_objects_it_was_lent() -> None:
    lent = crossing.Lent()
    thing = object()
    number = lent.lend(thing)
    assert lent.lend(thing) == number
    assert lent.get(number) is thing
    for bad in (number + 1, "1", None, True):
        with pytest.raises(KeyError):
            lent.get(bad)


@pytest.mark.parametrize(
    "name",
    [
        "assert_called_with",
        "assert_not_called",
        "reset_mock",
        "return_value",
        "side_effect",
        "called",
        "call_count",
        "call_args_list",
        "mock_calls",
        "configure_mock",
        "_mock_children",
        "_mock_return_value",
        "__class__",
        "__dict__",
    ],
)
def test_a_mocks_machinery_is_out_of_reach(name: str) -> None:
    target = mock.MagicMock()
    for operation in ("getattr", "setattr"):
        with pytest.raises(AttributeError):
            crossing.perform(target, operation, name, (0,), {})


def test_special_attributes_of_what_was_lent_are_out_of_reach() -> None:
    def helper() -> int:
        return 1

    for name in ("__globals__", "__code__", "__closure__", "__self__", "__dict__"):
        with pytest.raises(AttributeError):
            crossing.perform(helper, "getattr", name, (), {})


def test_the_mocked_api_is_reachable() -> None:
    target = mock.MagicMock()
    # a private name of the mocked API is the API's (turtle reads Turtle._screen)
    assert isinstance(crossing.perform(target, "getattr", "_screen", (), {}), mock.MagicMock)
    target.status_code = 200
    target.json.return_value = {"a": 1}
    assert crossing.perform(target, "getattr", "status_code", (), {}) == 200
    json_method = crossing.perform(target, "getattr", "json", (), {})
    assert crossing.perform(json_method, "call", None, (), {}) == {"a": 1}
    json_method.assert_called_once_with()
    crossing.perform(target, "setattr", "timeout", (5,), {})
    assert target.timeout == 5
    with pytest.raises(TypeError):
        crossing.perform(target, "delete_everything", None, (), {})


def test_exceptions_come_back_as_their_class_with_their_arguments() -> None:
    report = {"type": "KeyError", "message": "'x'", "traceback": "<solution>:3 in f"}
    rebuilt = crossing.rebuild(report, ("x",))
    assert type(rebuilt) is KeyError
    assert str(rebuilt) == "'x'"
    assert crossing.remote_frames(rebuilt) == "<solution>:3 in f"
    # a class whose constructor wants more than a message: rebuilt all the same, so that
    # ``assertRaises(json.JSONDecodeError)`` catches it
    json_error = crossing.rebuild({"type": "json.decoder.JSONDecodeError", "message": "m"}, None)
    assert type(json_error) is json.JSONDecodeError


@pytest.mark.parametrize(
    "qualified",
    [
        "unittest.case.SkipTest",
        "KeyboardInterrupt",
        "GeneratorExit",
        "_pytest.outcomes.Skipped",
        "__test__.Anything",
        "builtins.object",
        "os.system",
    ],
)
def test_no_exception_becomes_an_instruction_to_the_test_runner(qualified: str) -> None:
    rebuilt = crossing.rebuild({"type": qualified, "message": "m"}, ("m",))
    assert isinstance(rebuilt, crossing.RemoteError)
    assert rebuilt.qualified == qualified
    assert not isinstance(rebuilt, unittest.SkipTest)


def test_system_exit_is_rebuilt_for_assert_raises() -> None:
    assert type(crossing.rebuild({"type": "SystemExit", "message": "0"}, (0,))) is SystemExit


def test_active_patches_are_carried_and_instances_cannot_cross() -> None:
    crossing.TRACKER.install()
    with mock.patch("json.dumps") as patched:
        found = crossing.patches({})
        assert found == [[["module", "json"], "dumps", patched]]
    with mock.patch.object(crossing.Lent, "lend"):
        assert crossing.patches({})[0][0] == ["class", "harness.envside.crossing", "Lent"]
    assert crossing.patches({}) == []
    holder = Local()
    holder.value = 1  # type: ignore[attr-defined]
    with (
        mock.patch.object(holder, "value", 2),
        pytest.raises(
            crossing.CannotCrossError,
            match=r"^the test patches value of a Local, which only the check's process can name$",
        ),
    ):
        crossing.patches({})


def test_the_solutions_module_is_patched_by_its_own_name() -> None:
    crossing.TRACKER.install()
    stand_in = type(sys)("__test__")
    stand_in.randint = 1  # type: ignore[attr-defined]
    sys.modules["__test__"] = stand_in
    try:
        with mock.patch("__test__.randint", 4):
            assert crossing.patches({"__test__": "__test__"}) == [
                [["solution", "__test__"], "randint", 4]
            ]
    finally:
        del sys.modules["__test__"]


def test_a_stand_in_answers_no_comparison() -> None:
    stand_in = crossing.stand_in("object", 1, None)
    assert stand_in != 0
    assert stand_in != stand_in.__class__
    assert operator.eq(stand_in, stand_in)
    assert hash(stand_in) == id(stand_in)
    with pytest.raises(AttributeError):
        stand_in.equals  # type: ignore[attr-defined]  # noqa: B018 - not the check's to call
    with pytest.raises(AttributeError):
        stand_in.x = 1


# -- a task whose tests share what cannot cross: graded in the answer's process, and said --

TESTS = """
import unittest
from unittest.mock import patch

class Holder:
    value = 1

class TestCases(unittest.TestCase):
    def test_patched_instance(self):
        holder = Holder()
        with patch.object(holder, "value", 2):
            self.assertEqual(task_func(3), 6)
"""


@pytest.mark.network
def test_a_task_that_cannot_cross_is_graded_in_process_and_says_so(tmp_path: Path) -> None:
    task = {
        "task_id": "BigCodeBench/in-process",
        "complete_prompt": "",
        "code_prompt": "def task_func(x):\n",
        "canonical_solution": "    return x * 2\n",
        "test": TESTS,
        "entry_point": "task_func",
        "libs": "[]",
    }
    (tmp_path / "tasks.jsonl").write_text(json.dumps(task) + "\n")
    answer = {"task_id": task["task_id"], "solution": "def task_func(x):\n    return x * 2\n"}
    (tmp_path / "answers.jsonl").write_text(json.dumps(answer) + "\n")
    (tmp_path / "matrix.toml").write_text(
        textwrap.dedent(f"""
        [matrix]
        python = "{sys.version_info.major}.{sys.version_info.minor}"
        [combos.np]
        numpy = "2.2.6"
    """)
    )
    run_harness(
        "run", "--problems", str(tmp_path / "tasks.jsonl"),
        "--answers", str(tmp_path / "answers.jsonl"), "--results", str(tmp_path / "results"),
        "--env-dir", str(tmp_path / "envs"), "--run-id", "r", "--no-history", "-j", "1",
        cwd=tmp_path,
    )  # fmt: skip
    run = tmp_path / "results" / "r"
    rows = {
        json.loads(line)["source"]: json.loads(line)
        for line in (run / "np.jsonl").read_text().splitlines()
    }
    assert rows["reference"]["status"] == "pass"
    assert "graded" not in rows["reference"]
    answered = rows["model:answers"]
    assert (answered["status"], answered["graded"]) == ("pass", "in-process")
    assert (
        "graded in the solution's process: the test patches value of a Holder" in answered["note"]
    )
    summary = json.loads((run / "summary.json").read_text())
    assert summary["combos"][0]["graded_in_process"] == {"model:answers": 1}
    assert "Graded in the answer's own process" in (run / "summary.md").read_text()


# -- what one process would share, carried both ways: a real run --------------------------

SHARED = {
    # a mock records the very arrays it was called with
    "same-objects": (
        "def task_func(model, X):\n",
        "    model.fit(X)\n    return X.shape\n",
        """
import unittest
from unittest.mock import MagicMock
import numpy as np

class TestCases(unittest.TestCase):
    def test_fit_called_with_the_array(self):
        model, X = MagicMock(), np.arange(6.0).reshape(2, 3)
        self.assertEqual(task_func(model, X), (2, 3))
        model.fit.assert_called_once_with(X)
""",
    ),
    # the axes the test handed over is drawn on, as in one process
    "configured-object": (
        "def task_func(ax):\n",
        "    ax.set_title('drawn')\n    ax.plot([1, 2, 3])\n",
        """
import unittest
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

class TestCases(unittest.TestCase):
    def test_draws_on_the_axes(self):
        fig, ax = plt.subplots()
        self.assertIsNone(task_func(ax))
        self.assertEqual(ax.get_title(), 'drawn')
        self.assertEqual(len(ax.get_lines()), 1)
""",
    ),
    # a style the answer chose is the test's style too
    "style": (
        "import matplotlib.pyplot as plt\n\ndef task_func():\n",
        "    plt.style.use('ggplot')\n",
        """
import unittest
import matplotlib.pyplot as plt

class TestCases(unittest.TestCase):
    def test_style(self):
        plt.style.use('default')
        task_func()
        self.assertEqual(plt.rcParams['axes.facecolor'], '#E5E5E5')
""",
    ),
    # a server the test starts on localhost is the answer's localhost too
    "localhost": (
        "import urllib.request\n\ndef task_func(port):\n",
        (
            "    with urllib.request.urlopen('http://127.0.0.1:%d/' % port, timeout=10) as r:\n"
            "        return r.read().decode()\n"
        ),
        """
import http.server
import threading
import unittest

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"served")

    def log_message(self, *args):
        pass

class TestCases(unittest.TestCase):
    def test_fetch(self):
        server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            self.assertEqual(task_func(server.server_address[1]), "served")
        finally:
            server.shutdown()
""",
    ),
    # a warning the answer raises is one the test's catch_warnings records
    "warnings": (
        "import warnings\n\ndef task_func(n):\n",
        "    if n > 10:\n        warnings.warn('large', RuntimeWarning)\n    return n\n",
        """
import unittest
import warnings

class TestCases(unittest.TestCase):
    def test_warns(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.assertEqual(task_func(11), 11)
        self.assertEqual([str(w.message) for w in caught], ["large"])
        self.assertIs(caught[0].category, RuntimeWarning)

    def test_assert_warns(self):
        with self.assertWarns(RuntimeWarning):
            task_func(20)
""",
    ),
    # an exception the test's mock raises is the one the answer catches
    "raised-by-a-mock": (
        "import urllib.error\nimport urllib.request\n\ndef task_func(url):\n",
        (
            "    try:\n        urllib.request.urlopen(url)\n    except urllib.error.HTTPError as e:\n"
            "        return e.code\n    return 0\n"
        ),
        """
import unittest
import urllib.error
from unittest.mock import patch

class TestCases(unittest.TestCase):
    @patch("urllib.request.urlopen")
    def test_http_error(self, urlopen):
        urlopen.side_effect = urllib.error.HTTPError("http://x", 404, "Not Found", {}, None)
        self.assertEqual(task_func("http://x"), 404)
""",
    ),
    # the test's functions are functions there (a name, a signature)
    "functions-handed-over": (
        "import inspect\n\ndef task_func(functions):\n",
        "    return [(f.__name__, len(inspect.getfullargspec(f).args)) for f in functions]\n",
        """
import unittest

class TestCases(unittest.TestCase):
    def test_names_and_arguments(self):
        def f(x): pass
        def g(x, y=2): pass
        self.assertEqual(task_func([f, g, lambda a, b, c: a]), [("f", 1), ("g", 2), ("<lambda>", 3)])
""",
    ),
    # a generator is a generator to the test, consumed item by item
    "generator": (
        "def task_func(n):\n",
        "    for i in range(n):\n        yield i * i\n",
        """
import types
import unittest

class TestCases(unittest.TestCase):
    def test_generator(self):
        result = task_func(4)
        self.assertIsInstance(result, types.GeneratorType)
        self.assertEqual(list(result), [0, 1, 4, 9])
""",
    ),
    # the answer's threads may call the test's mock at once
    "threads-and-a-mock": (
        "import subprocess\nimport threading\n\ndef task_func(files):\n",
        (
            "    codes = []\n    def run(f):\n        codes.append(subprocess.Popen(f).poll())\n"
            "    threads = [threading.Thread(target=run, args=(f,)) for f in files]\n"
            "    for t in threads:\n        t.start()\n    for t in threads:\n        t.join()\n"
            "    return codes\n"
        ),
        """
import unittest
from unittest.mock import patch

class TestCases(unittest.TestCase):
    @patch("subprocess.Popen")
    def test_threads(self, popen):
        popen.return_value.poll.return_value = 0
        self.assertEqual(task_func(["a", "b", "c", "d"]), [0, 0, 0, 0])
        self.assertEqual(popen.call_count, 4)
""",
    ),
    # a list or dict the test hands over and reads again holds what the answer put there
    "changed-in-place": (
        "def task_func(items, table):\n",
        "    items.append(12)\n    table['total'] = sum(items)\n    return table\n",
        """
import unittest

class TestCases(unittest.TestCase):
    def test_in_place(self):
        items, table = [1, 2], {'name': 'x'}
        result = task_func(items, table)
        self.assertIs(result, table)
        self.assertEqual(items, [1, 2, 12])
        self.assertEqual(table, {'name': 'x', 'total': 15})
""",
    ),
    # upstream runs answer and tests in one module: what the tests import, the answer sees
    "the-tests-imports": (
        "def task_func(rows):\n",
        "    return json.dumps(rows)\n",
        """
import json
import unittest

class TestCases(unittest.TestCase):
    def test_dumps(self):
        self.assertEqual(task_func([1, 2]), "[1, 2]")
""",
    ),
}


@pytest.mark.network
def test_what_one_process_shares_crosses_both_ways(tmp_path: Path) -> None:
    rows, answers = [], []
    for name, (prompt, body, tests) in SHARED.items():
        task = {"task_id": f"BigCodeBench/{name}", "complete_prompt": "", "code_prompt": prompt,
                "canonical_solution": body, "test": tests, "entry_point": "task_func", "libs": "[]"}  # fmt: skip
        rows.append(task)
        answers.append({"task_id": task["task_id"], "solution": prompt + body})
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "answers.jsonl").write_text("".join(json.dumps(a) + "\n" for a in answers))
    (tmp_path / "matrix.toml").write_text(
        textwrap.dedent(f"""
        [matrix]
        python = "{sys.version_info.major}.{sys.version_info.minor}"
        [combos.np2]
        numpy = "2.2.6"
        matplotlib = "3.10.3"
    """)
    )
    run_harness(
        "run", "--problems", str(tmp_path / "tasks.jsonl"),
        "--answers", str(tmp_path / "answers.jsonl"), "--results", str(tmp_path / "results"),
        "--env-dir", str(tmp_path / "envs"), "--run-id", "r", "--no-history", "-j", "2",
        cwd=tmp_path,
    )  # fmt: skip
    lines = (tmp_path / "results" / "r" / "np2.jsonl").read_text().splitlines()
    outcomes = {
        (json.loads(x)["problem_id"], json.loads(x)["source"]): json.loads(x) for x in lines
    }
    for name in SHARED:
        for source in ("reference", "model:answers"):
            outcome = outcomes[(f"tasks/BigCodeBench/{name}", source)]
            assert outcome["status"] == "pass", (name, source, outcome.get("message"))
            assert "graded" not in outcome


# -- the pieces, one by one --------------------------------------------------------------


def test_a_stand_in_has_the_special_methods_its_object_has() -> None:
    stream = crossing.checker_object(1, crossing._describe(io.BytesIO(b"x")))
    assert not hasattr(stream, "__fspath__")  # PIL's Image.open tries a path first
    assert hasattr(stream, "__iter__")
    assert not callable(stream)
    function = crossing.checker_object(2, crossing._describe(lambda a, b=2: a))
    assert callable(function)
    assert function.__name__ == "<lambda>"
    assert str(inspect.signature(function)) == "(a, b=2)"


def test_an_exception_that_will_not_pickle_whole_crosses_by_its_state() -> None:
    error = urllib.error.HTTPError("http://x", 404, "Not Found", {}, None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        pickle.loads(pickle.dumps(error))  # Python's own pickling of it fails
    lent = crossing.Lent()
    rebuilt = crossing.loads_from_checker(crossing.dumps_to_solution(error, lent), crossing.Lent())
    assert type(rebuilt) is urllib.error.HTTPError
    assert rebuilt.code == 404


def test_objects_a_task_configures_take_the_answers_state_data_does_not() -> None:
    class Model:
        def __init__(self) -> None:
            self.fitted = False

    original, changed = Model(), Model()
    changed.fitted = True
    assert crossing.configured(original)
    assert crossing.write_back(original, changed)
    assert original.fitted is True
    for data in ([1], {"a": 1}, (1,), "text"):
        assert not crossing.configured(data)
    assert not crossing.write_back(original, [1])  # never across types


def test_what_was_sent_comes_back_as_the_same_object_unchanged_and_as_a_copy_changed() -> None:
    lent, sent, kept = crossing.Lent(), crossing.Lent(), crossing.Lent()
    values, other = [1, 2], {"k": [3]}
    handed = crossing.handed((values, other), {}, sent)
    received = crossing.loads_from_checker(
        crossing.dumps_to_solution(((values, other), {}), lent), kept
    )
    crossing.receive(received[0], received[1], handed)
    received[0][1]["k"].append(4)  # the answer changes its copy of one of them

    def back(pid: tuple[str, int]) -> object:
        assert pid[0] == "sent"
        return sent.get(pid[1])

    data = crossing.dumps_to_checker((received[0][0], received[0][1]), kept)

    class Back(pickle.Unpickler):
        def persistent_load(self, pid: tuple[str, int]) -> object:
            return back(pid)

    returned = Back(io.BytesIO(data)).load()
    assert returned[0] is values  # unchanged: the test's own list
    assert returned[1] is not other  # changed: a copy, as the answer left it
    assert returned[1] == {"k": [3, 4]}
    crossing.RECEIVED.clear()


def test_warnings_are_raised_again_under_the_tests_filters() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        crossing.reemit(
            [["RuntimeWarning", "large", "<solution>", 3], ["no.such.Warning", "x", "f", 1]]
        )
    assert [(w.category, str(w.message)) for w in caught] == [
        (RuntimeWarning, "large"),
        (UserWarning, "x"),  # a category the check cannot name
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore")
        crossing.reemit([["RuntimeWarning", "large", "<solution>", 3]])
    assert caught == []


def test_a_tests_function_sent_as_code_keeps_its_name_signature_and_annotations() -> None:
    namespace: dict[str, Any] = {}
    source = "def f(x: int, y: 'str' = 'a') -> None:\n    return None\n"
    exec(compile(source, "<test>", "exec", dont_inherit=True), namespace)
    f = namespace["f"]
    buffer = io.BytesIO()
    crossing.ToSolution(buffer, crossing.Lent(), code=True).dump([f])
    (copy,) = crossing.loads_from_checker(buffer.getvalue(), crossing.Lent())
    assert copy is not f and copy.__name__ == "f"
    assert copy.__annotations__ == {"x": int, "y": "str", "return": None}
    assert str(inspect.signature(copy)) == str(inspect.signature(f))


def test_numpys_and_maths_nan_come_back_as_the_checks_own() -> None:
    # containers compare items by identity first: [np.nan] == [np.nan] in one process
    np = pytest.importorskip("numpy")
    lent = crossing.Lent()
    buffer = io.BytesIO()
    crossing.ToChecker(buffer, lent).dump([np.nan, math.nan, float("nan"), 1.5])

    def persistent(pid: object) -> object:
        assert isinstance(pid, tuple) and pid[0] == "nan"
        return crossing.nan_constant(pid[1])

    unpickler = pickle.Unpickler(io.BytesIO(buffer.getvalue()))
    unpickler.persistent_load = persistent  # type: ignore[method-assign]
    got = unpickler.load()
    assert got[0] is np.nan and got[1] is math.nan  # noqa: PLW0177 - the very objects
    assert math.isnan(got[2]) and got[2] is not np.nan and got[2] is not math.nan  # noqa: PLW0177
    assert got == [np.nan, math.nan, got[2], 1.5]
