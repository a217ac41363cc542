"""Calls across the boundary (harness/envside/bridge/crossing_*.py), end to end: real runs through
``harness run`` of tasks whose tests call the answer. A task whose tests patch an object
only the check can name is graded in the answer's process, and says so; what one process
would share crosses both ways. The pieces are tested one by one beside their modules
(tests/test_crossing_<module>.py).
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import run_harness

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
    # a connection the test opened, used by its data methods (BigCodeBench/1038's shape)
    "lent-socket": (
        "import json\ndef task_func(client_socket):\n",
        (
            "    client_socket.send(json.dumps({'message': 'Hello'}).encode())\n"
            "    client_socket.close()\n"
        ),
        """
import socket
import threading
import unittest

class TestCases(unittest.TestCase):
    def test_reply(self):
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        replies = []

        def client():
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                sock.connect(server.getsockname())
                replies.append(sock.recv(1024).decode())

        thread = threading.Thread(target=client)
        thread.start()
        connection, _ = server.accept()
        task_func(connection)
        thread.join()
        server.close()
        self.assertIn("Hello", replies[0])
""",
    ),
    # a database cursor the test made, used by its SQL (BigCodeBench/1131's shape)
    "lent-cursor": (
        "def task_func(cursor):\n",
        (
            "    cursor.execute('SELECT id FROM users')\n    ids = [row[0] for row in cursor.fetchall()]\n"
            "    for i in ids:\n        cursor.execute(f'UPDATE users SET name = upper(name) WHERE id = {i}')\n"
            "    return len(ids)\n"
        ),
        """
import sqlite3
import unittest

class TestCases(unittest.TestCase):
    def test_update(self):
        connection = sqlite3.connect(":memory:")
        cursor = connection.cursor()
        cursor.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
        cursor.executemany("INSERT INTO users (name) VALUES (?)", [("a",), ("b",)])
        self.assertEqual(task_func(cursor), 2)
        cursor.execute("SELECT name FROM users ORDER BY id")
        self.assertEqual(cursor.fetchall(), [("A",), ("B",)])
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
