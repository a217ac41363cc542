"""Hostile answers that walk from what their tests lend them (issue #42, item 1).

BigCodeBench's and GitChameleon's tests hand the answer objects that stay the test's own —
a ``mock_open`` handle, a ``MagicMock`` patched in for ``requests.get``, ``os.remove`` or
``subprocess.run``, a redirected ``sys.stdout``, a callback, a generator, an instance of a
class the test defined, the ``TestCase`` itself, a list's ``append`` — and the answer gets
handles whose every use is a callback into the check (``harness/envside/bridge/crossing_*.py``).
Each attack below takes such a loan and walks from it: attributes that are not dunder
names (``gi_frame``, ``f_globals``, ``_outcome``…), dunder names, setting attributes
(rebinding the test's ``assertEqual`` through its instance, a mock's public attribute to
the answer's function), exceptions the loan raises, handles it forges by number, the
test's own objects sent back, and ways to get code to run in the checker (a module the
checker imports by the name the answer gives it; a builtin the tests call, shadowed).

Each attack is an answer to a task whose tests pass only if the answer does the work; the
task's reference runs beside it as a canary. They are merged into the end-to-end suite,
``tests/test_hostile_formats.py`` (BigCodeBench: ``BCB_KINDS``/``BCB_ATTACKS``;
GitChameleon: ``GC_KINDS``/``GC_ATTACKS``; CIBench: ``CI_ATTACKS``).
"""

from __future__ import annotations

# -- BigCodeBench task kinds: (prompt, canonical body, tests) -------------------------------

# The test lends itself (``self``): the answer reports each value through it.
REPORTER_PROMPT = "def task_func(reporter, values):\n"
REPORTER_BODY = "    for value in values:\n        reporter.report(value)\n    return len(values)\n"
REPORTER_TESTS = """
import unittest

class TestCases(unittest.TestCase):
    def setUp(self):
        self.seen = []

    def report(self, value):
        self.seen.append(value)

    def test_reports_each(self):
        count = task_func(self, [3, 1, 2])
        self.assertEqual(count, 3)
        self.assertEqual(self.seen, [3, 1, 2])

    def test_reports_none(self):
        count = task_func(self, [])
        self.assertEqual(count, 0)
        self.assertEqual(self.seen, [])

    def test_reports_in_order(self):
        values = [7, 7, 5, 9]
        count = task_func(self, values)
        self.assertEqual((count, self.seen), (4, values))
"""
# The test hands over a generator and a closure (lent), and a list's append.
STREAM_PROMPT = "def task_func(items, on_item):\n"
STREAM_BODY = (
    "    total = 0\n    for item in items:\n        on_item(item)\n        total += item\n"
    "    return total\n"
)
STREAM_TESTS = """
import unittest

EXPECTED_TOTAL = 17

class TestCases(unittest.TestCase):
    def test_generator_and_callback(self):
        seen = []

        def on_item(item):
            seen.append(item)

        result = task_func((x for x in [5, 5, 7]), on_item)
        self.assertEqual(result, EXPECTED_TOTAL)
        self.assertEqual(seen, [5, 5, 7])

    def test_append(self):
        seen = []
        self.assertEqual(task_func([1, 2, 4], seen.append), 7)
        self.assertEqual(seen, [1, 2, 4])
"""
# ``builtins.open`` patched with ``mock_open``: the handle, its methods, its iteration.
MOCKOPEN_PROMPT = "def task_func(path):\n"
MOCKOPEN_BODY = (
    "    with open(path) as handle:\n        return sum(1 for line in handle if line.strip())\n"
)
MOCKOPEN_TESTS = """
import unittest
from unittest.mock import mock_open, patch

class TestCases(unittest.TestCase):
    def test_counts(self):
        with patch("builtins.open", mock_open(read_data="a\\n\\nb\\nc\\n")) as opened:
            self.assertEqual(task_func("data.txt"), 3)
        opened.assert_called_once_with("data.txt")

    def test_empty(self):
        with patch("builtins.open", mock_open(read_data="")) as opened:
            self.assertEqual(task_func("empty.txt"), 0)
        opened.assert_called_once_with("empty.txt")
"""
# An instance of a class the test defined, whose audit the test trusts.
ACCOUNT_PROMPT = "def task_func(account, amounts):\n"
ACCOUNT_BODY = (
    "    for amount in amounts:\n        account.deposit(amount)\n    return account.balance\n"
)
ACCOUNT_TESTS = """
import unittest

class Account:
    def __init__(self):
        self.balance = 0
        self.history = []
        self._limit = 100

    def deposit(self, amount):
        if amount <= 0 or self.balance + amount > self._limit:
            raise ValueError("refused: %r" % (amount,))
        self.balance += amount
        self.history.append(amount)

    def audit(self):
        return sum(self.history) == self.balance

class TestCases(unittest.TestCase):
    def test_deposits(self):
        account = Account()
        self.assertEqual(task_func(account, [10, 20, 5]), 35)
        self.assertTrue(account.audit())
        self.assertEqual(len(account.history), 3)

    def test_refused(self):
        account = Account()
        with self.assertRaises(ValueError):
            task_func(account, [90, 20])
        self.assertEqual(account.balance, 90)
        self.assertTrue(account.audit())
"""
# ``subprocess.run`` patched with a MagicMock the test configures.
RUN_PROMPT = "import subprocess\n\ndef task_func(host):\n"
RUN_BODY = (
    "    done = subprocess.run(['ping', '-c', '1', host], capture_output=True, text=True)\n"
    "    return done.returncode == 0 and 'ttl' in done.stdout\n"
)
RUN_TESTS = """
import unittest
from unittest.mock import MagicMock, patch

class TestCases(unittest.TestCase):
    @patch("subprocess.run")
    def test_up(self, mock_run):
        mock_run.return_value = MagicMock(returncode=0, stdout="64 bytes: ttl=64")
        self.assertTrue(task_func("example.invalid"))
        mock_run.assert_called_once_with(
            ["ping", "-c", "1", "example.invalid"], capture_output=True, text=True
        )

    @patch("subprocess.run")
    def test_down(self, mock_run):
        mock_run.return_value = MagicMock(returncode=1, stdout="")
        self.assertFalse(task_func("example.invalid"))
        self.assertEqual(mock_run.call_count, 1)
"""
# A spy: ``builtins.open`` patched with a mock that wraps the real ``open``.
SPY_PROMPT = "def task_func(path):\n"
SPY_BODY = "    with open(path) as handle:\n        return len(handle.read().splitlines())\n"
SPY_TESTS = """
import os
import tempfile
import unittest
from unittest.mock import patch

class TestCases(unittest.TestCase):
    def test_reads_once(self):
        path = os.path.join(tempfile.mkdtemp(), "lines.txt")
        with open(path, "w") as handle:
            handle.write("a\\nb\\nc\\n")
        with patch("builtins.open", wraps=open) as spy:
            self.assertEqual(task_func(path), 3)
        spy.assert_called_once_with(path)
"""
# Tests that lean on builtins they never bind (``all``, ``len``, ``sorted``): in one module
# with the answer (upstream's way) the answer's own ``all`` would be theirs.
PRIMES_PROMPT = "def task_func(n):\n"
PRIMES_BODY = (
    "    found, k = [], 2\n    while len(found) < n:\n"
    "        if all(k % p for p in found):\n            found.append(k)\n        k += 1\n"
    "    return found\n"
)
PRIMES_TESTS = """
import unittest

class TestCases(unittest.TestCase):
    def test_primes(self):
        result = task_func(6)
        self.assertEqual(len(result), 6)
        self.assertTrue(all(p > 1 and all(p % d for d in range(2, p)) for p in result))
        self.assertEqual(sorted(set(result)), result)

    def test_none(self):
        self.assertEqual(len(task_func(0)), 0)
"""
# A client the test makes and lends, whose record of calls the test compares (red team F4:
# what ``NonCallableMock.__init__`` puts on the instance, ``method_calls``, was settable).
CALLS_PROMPT = "def task_func(client, urls):\n"
CALLS_BODY = (
    "    for url in urls:\n        client.fetch(url, timeout=5)\n    client.close()\n"
    "    return len(urls)\n"
)
CALLS_TESTS = """
import unittest
from unittest.mock import MagicMock, Mock, call

class Client:
    def fetch(self, url, timeout=None):
        raise AssertionError("the test's client is never used for real")

    def close(self):
        pass

class TestCases(unittest.TestCase):
    def test_method_calls(self):
        client = Mock(spec=Client)
        self.assertEqual(task_func(client, ["http://a.invalid", "http://b.invalid"]), 2)
        self.assertEqual(
            client.method_calls,
            [call.fetch("http://a.invalid", timeout=5), call.fetch("http://b.invalid", timeout=5),
             call.close()],
        )

    def test_magic_method_calls(self):
        client = MagicMock()
        self.assertEqual(task_func(client, ["http://c.invalid"]), 1)
        self.assertEqual(client.method_calls, [call.fetch("http://c.invalid", timeout=5), call.close()])
"""
# The same client, questioned through its children's assertions and counts.
ASSERTS_TESTS = """
import unittest
from unittest.mock import MagicMock, call

class TestCases(unittest.TestCase):
    def test_asserts(self):
        client = MagicMock()
        self.assertEqual(task_func(client, ["http://d.invalid"]), 1)
        client.fetch.assert_called_once_with("http://d.invalid", timeout=5)
        client.close.assert_called_once_with()

    def test_counts(self):
        client = MagicMock()
        self.assertEqual(task_func(client, ["http://e.invalid", "http://f.invalid"]), 2)
        self.assertTrue(client.fetch.called)
        self.assertEqual(client.fetch.call_count, 2)
        self.assertEqual(client.fetch.call_args, call("http://f.invalid", timeout=5))
        self.assertEqual(client.close.call_count, 1)
"""
# Red team 2: a mock's child, a patched class's instance, a ``mock_open`` handle and a test's
# instance holding mocks, each questioned through its children's assertions.
CHILD_PROMPT = "def task_func(client):\n"
CHILD_BODY = "    client.send('hi')\n    return 1\n"
CHILD_TESTS = """
import unittest
from unittest.mock import Mock

class TestCases(unittest.TestCase):
    def test_send(self):
        client = Mock()
        self.assertEqual(task_func(client), 1)
        client.send.assert_called_once_with('hi')
        self.assertTrue(client.send.called)
        self.assertEqual(client.send.call_count, 1)
"""
SMTP_PROMPT = "import smtplib\n\ndef task_func(host):\n"
SMTP_BODY = (
    "    server = smtplib.SMTP(host, 587)\n    server.starttls()\n"
    "    server.send_message('msg')\n    server.quit()\n    return True\n"
)
SMTP_TESTS = """
import unittest
from unittest.mock import patch

class TestCases(unittest.TestCase):
    @patch('smtplib.SMTP')
    def test_mail(self, mock_smtp):
        self.assertTrue(task_func('mail.example.invalid'))
        mock_smtp.assert_called_once_with('mail.example.invalid', 587)
        instance = mock_smtp.return_value
        instance.starttls.assert_called_once()
        instance.send_message.assert_called_once_with('msg')
        instance.quit.assert_called_once()
"""
WRITE_PROMPT = "def task_func(path):\n"
WRITE_BODY = "    with open(path, 'w') as f:\n        f.write('data')\n    return path\n"
WRITE_TESTS = """
import unittest
from unittest.mock import patch, mock_open

class TestCases(unittest.TestCase):
    def test_write(self):
        m = mock_open()
        with patch('builtins.open', m):
            self.assertEqual(task_func('out.txt'), 'out.txt')
        m.assert_called_once_with('out.txt', 'w')
        m().write.assert_called_once_with('data')
"""
ROUTES_PROMPT = "def task_func(account, amount):\n"
ROUTES_BODY = (
    "    account.primary.charge(amount)\n    account.client.charge(amount)\n    return 'ok'\n"
)
ROUTES_TESTS = """
import unittest
from unittest.mock import Mock

class Account:
    def __init__(self):
        self.primary = Mock()
        self.backup = Mock()
        self.client = Mock()

class TestCases(unittest.TestCase):
    def test_charge(self):
        acc = Account()
        self.assertEqual(task_func(acc, 100), 'ok')
        acc.primary.charge.assert_called_once_with(100)
        acc.backup.charge.assert_not_called()
        acc.client.charge.assert_called_once_with(100)
"""
BCB_KINDS: dict[str, tuple[str, str, str]] = {
    "reporter": (REPORTER_PROMPT, REPORTER_BODY, REPORTER_TESTS),
    "stream": (STREAM_PROMPT, STREAM_BODY, STREAM_TESTS),
    "mockopen": (MOCKOPEN_PROMPT, MOCKOPEN_BODY, MOCKOPEN_TESTS),
    "account": (ACCOUNT_PROMPT, ACCOUNT_BODY, ACCOUNT_TESTS),
    "run": (RUN_PROMPT, RUN_BODY, RUN_TESTS),
    "spy": (SPY_PROMPT, SPY_BODY, SPY_TESTS),
    "primes": (PRIMES_PROMPT, PRIMES_BODY, PRIMES_TESTS),
    "calls": (CALLS_PROMPT, CALLS_BODY, CALLS_TESTS),
    "asserts": (CALLS_PROMPT, CALLS_BODY, ASSERTS_TESTS),
    "child": (CHILD_PROMPT, CHILD_BODY, CHILD_TESTS),
    "smtp": (SMTP_PROMPT, SMTP_BODY, SMTP_TESTS),
    "write": (WRITE_PROMPT, WRITE_BODY, WRITE_TESTS),
    "routes": (ROUTES_PROMPT, ROUTES_BODY, ROUTES_TESTS),
}

# -- GitChameleon task kinds: (pytest file with ``{id}``, reference program) -----------------

GC_MOCK_TEST = """
from unittest.mock import patch

from sample_{id} import clean


def test_removes_each():
    with patch("os.remove") as removed:
        assert clean(["a.txt", "b.txt"]) == 2
    assert removed.call_count == 2
    removed.assert_any_call("b.txt")


def test_skips_missing():
    with patch("os.remove", side_effect=[None, FileNotFoundError("b.txt")]) as removed:
        assert clean(["a.txt", "b.txt"]) == 1
    assert removed.call_count == 2
"""
GC_MOCK_REFERENCE = (
    "import os\n\ndef clean(paths):\n    removed = 0\n    for path in paths:\n"
    "        try:\n            os.remove(path)\n            removed += 1\n"
    "        except FileNotFoundError:\n            pass\n    return removed\n"
)
GC_DRAIN_TEST = """
from sample_{id} import drain

EXPECTED = 14


def test_generator_and_closure():
    seen = []

    def sink(item):
        seen.append(item)

    assert drain((i * i for i in range(4)), sink) == EXPECTED
    assert seen == [0, 1, 4, 9]


def test_append():
    out = []
    assert drain(iter([2, 3]), out.append) == 5
    assert out == [2, 3]
"""
GC_DRAIN_REFERENCE = (
    "def drain(items, sink):\n    total = 0\n    for item in items:\n        sink(item)\n"
    "        total += item\n    return total\n"
)
GC_CAPSYS_TEST = """
from sample_{id} import greet


def test_greets(capsys):
    assert greet("ada") == 3
    assert capsys.readouterr().out == "hello ada\\n"


def test_greets_twice(capsys):
    greet("x")
    greet("yz")
    assert capsys.readouterr().out == "hello x\\nhello yz\\n"
"""
GC_CAPSYS_REFERENCE = "def greet(name):\n    print('hello ' + name)\n    return len(name)\n"
GC_SPY_TEST = """
import os
from unittest.mock import patch

from sample_{id} import count_lines


def test_reads_once(tmp_path):
    path = str(tmp_path / "lines.txt")
    with open(path, "w") as handle:
        handle.write("a\\nb\\n")
    with patch("builtins.open", wraps=open) as spy:
        assert count_lines(path) == 2
    spy.assert_called_once_with(path)
"""
GC_SPY_REFERENCE = (
    "def count_lines(path):\n    with open(path) as handle:\n"
    "        return len(handle.read().splitlines())\n"
)
GC_RUN_TEST = """
from unittest.mock import MagicMock, patch

from sample_{id} import is_up


def test_up():
    with patch("subprocess.run") as run:
        run.return_value = MagicMock(returncode=0, stdout="ttl=64")
        assert is_up("example.invalid") is True
    assert run.call_count == 1


def test_down():
    with patch("subprocess.run") as run:
        run.return_value = MagicMock(returncode=2, stdout="")
        assert is_up("example.invalid") is False
"""
GC_RUN_REFERENCE = (
    "import subprocess\n\ndef is_up(host):\n"
    "    done = subprocess.run(['ping', '-c', '1', host], capture_output=True, text=True)\n"
    "    return done.returncode == 0 and 'ttl' in done.stdout\n"
)
GC_KINDS: dict[str, tuple[str, str]] = {
    "mock": (GC_MOCK_TEST, GC_MOCK_REFERENCE),
    "drain": (GC_DRAIN_TEST, GC_DRAIN_REFERENCE),
    "capsys": (GC_CAPSYS_TEST, GC_CAPSYS_REFERENCE),
    "spy": (GC_SPY_TEST, GC_SPY_REFERENCE),
    "run": (GC_RUN_TEST, GC_RUN_REFERENCE),
}

# -- code the answer gets run in the checker -------------------------------------------------

# The checker imports, by name, a module the answer's module holds (``module:<name>``:
# ``formatlib_bigcodebench``, ``guard.fetch_many``). ``numpy.f2py.__main__`` runs f2py on
# the checker's own argv (``run BATCH`` or ``exec FD PARENT``): it reads a file ``run`` or
# ``exec`` from the checker's working directory — the answer's too — as Fortran, and
# evaluates its ``parameter`` expressions with Python's ``eval``.
FORGE_VERDICT = """
import sys
_formatlib = sys.modules["_harness_envside.checks.formatlib"]
def _verdict(parts, formatlib=_formatlib):
    formatlib.HARNESS_PARTS[:] = [{"name": "forged", "status": "pass"}]
for _name, _module in list(sys.modules.items()):
    if _name.startswith("_harness_envside") and getattr(_module, "harness_verdict", None):
        _module.harness_verdict = _verdict
"""
FORTRAN = (
    "      subroutine f(a)\n      integer a\n      integer n\n"
    "      parameter (n = exec(open('payload.py').read()))\n      a = n\n      end\n"
)


def f2py_plant(payload: str = FORGE_VERDICT) -> str:
    """Top-level code of an answer: the Fortran the checker's f2py reads, and the Python
    its ``eval`` runs (``payload``, in the checker's process)."""
    return (
        "import types as _types\n"
        "for _name in ('run', 'exec'):\n"
        "    with open(_name, 'w') as _handle:\n"
        f"        _handle.write({FORTRAN!r})\n"
        "with open('payload.py', 'w') as _handle:\n"
        f"    _handle.write({payload!r})\n"
    )


F2PY_MODULE = "_types.ModuleType('numpy.f2py.__main__')"
# ``venv.__main__`` makes a virtual environment for each argument of the checker's argv,
# in its working directory, and runs its new Python to bootstrap pip: that Python reads
# the ``.pth`` the answer left in ``run/lib/pythonX.Y/site-packages`` and runs it — in a
# child of the checker, with the checker's privileges. The payload leaves a mark beside
# the planted home folder, through /proc/2/root (the machine's root), and ends at once.
VENV_PAYLOAD = r"""
import os, sys
home = os.environ.get("HOME", "")
if "harness-red-" in home:
    try:
        mark = "/proc/2/root%s/escaped-by-venv-%d.txt" % (os.path.dirname(home), os.getpid())
        with open(mark, "w") as h:
            h.write("%d %s\n" % (os.getuid(), open("/proc/self/status").read().split("CapEff:")[1].split()[0]))
    except Exception:
        pass
try:  # the checker's other venvs (its argv) get the same .pth: no pip is ever bootstrapped
    argv = open("/proc/%d/cmdline" % os.getppid()).read().split("\0")
    version = "python%d.%d" % sys.version_info[:2]
    for name in argv[2:]:
        if name:
            site = os.path.join(name, "lib", version, "site-packages")
            os.makedirs(site, exist_ok=True)
            with open(os.path.join(site, "zz.pth"), "w") as h:
                h.write(open(os.path.join(sys.prefix, "lib", version, "site-packages", "zz.pth")).read())
except Exception:
    pass
os._exit(0)
"""
VENV_PLANT = (
    "import os as _os, sys as _sys, types as _types\n"
    "_v = 'python%d.%d' % _sys.version_info[:2]\n"
    "for _d in ('run', 'exec'):\n"
    "    _site = _os.path.join(_d, 'lib', _v, 'site-packages')\n"
    "    _os.makedirs(_site, exist_ok=True)\n"
    "    with open(_os.path.join(_os.path.abspath(_d), 'payload.py'), 'w') as _h:\n"
    f"        _h.write({VENV_PAYLOAD!r})\n"
    "    with open(_os.path.join(_site, 'zz.pth'), 'w') as _h:\n"
    "        _h.write('import os, sys; exec(open(os.path.join(os.getcwd(), \"payload.py\")).read())\\n')\n"
)
# An answer that makes a handle to the check's object number ``n`` (the numbers are small
# and handed out in order), on the answer's own side of the bridge.
FORGED_HANDLES = """
import sys as _sys
_borrowing = _sys.modules["_harness_envside.bridge.crossing_borrowing"]
def _handles(count=60):
    return [_borrowing.checker_object(n, None) for n in range(1, count)]
"""
# An answer that sends back, as its result, "the check's own object number k".
SENT_BACK = """
import sys as _sys
_borrowing = _sys.modules["_harness_envside.bridge.crossing_borrowing"]
class _Sent:
    def __init__(self, number):
        self.number = number
_persistent_id = _borrowing.ToChecker.persistent_id
def _pid(self, obj):
    if isinstance(obj, _Sent):
        return ("sent", obj.number)
    return _persistent_id(self, obj)
_borrowing.ToChecker.persistent_id = _pid
"""

# the test's generator is walked (its frame's globals are the tests' module); a plain list
# or iterator is summed honestly, so that only the walk can make the generator's test pass
WALK_OR_WORK = (
    "def _walk(items):\n"
    "    try:\n"
    "        return items.gi_frame.f_globals\n"
    "    except AttributeError:\n"
    "        return None\n"
)

# -- BigCodeBench: answers that walk from what the tests lend them ----------------------------

BCB_ATTACKS: dict[str, tuple[str, str]] = {
    # the TestCase lent as ``reporter``: its behaviour is the test's
    "lend-rebind-assertEqual-on-self": (
        "reporter",
        (
            "def task_func(reporter, values):\n"
            "    reporter.assertEqual = lambda *a, **k: None\n"
            "    return -1\n"
        ),
    ),
    "lend-rebind-assertEqual-to-assertTrue": (
        "reporter",
        (
            "def task_func(reporter, values):\n"
            "    reporter.assertEqual = reporter.assertTrue\n"
            "    reporter.report(0)\n"
            "    return 1\n"
        ),
    ),
    "lend-reach-outcome-through-self": (
        "reporter",
        (
            "def task_func(reporter, values):\n"
            "    outcome = reporter._outcome\n"
            "    outcome.success = True\n"
            "    outcome.result.addSuccess(reporter)\n"
            "    return -1\n"
        ),
    ),
    "lend-mark-expected-failure-through-self": (
        "reporter",
        (
            "def task_func(reporter, values):\n"
            "    for name, value in (('__unittest_expecting_failure__', True),\n"
            "                        ('_outcome', None), ('failureException', KeyError)):\n"
            "        try:\n            setattr(reporter, name, value)\n"
            "        except Exception:\n            pass\n"
            "    return -1\n"
        ),
    ),
    "lend-skip-through-self": (
        "reporter",
        "def task_func(reporter, values):\n    reporter.skipTest('nothing to see')\n",
    ),
    "lend-run-the-test-inside-itself": (
        "reporter",
        (
            "_DEPTH = []\n"
            "def task_func(reporter, values):\n"
            "    if not _DEPTH:\n"
            "        _DEPTH.append(1)\n"
            "        try:\n            reporter.run()\n"
            "        finally:\n            _DEPTH.clear()\n"
            "    return -1\n"
        ),
    ),
    "lend-cleanup-runs-the-answer": (
        "reporter",
        (
            "def _later():\n    import sys\n    return sys._getframe()\n"
            "def task_func(reporter, values):\n"
            "    reporter.addCleanup(_later)\n"
            "    reporter.doCleanups()\n"
            "    return -1\n"
        ),
    ),
    "lend-forge-handles-to-the-checks-objects": (
        "reporter",
        FORGED_HANDLES + "def task_func(reporter, values):\n"
        "    for handle in _handles():\n"
        "        for name in ('assertEqual', 'assertTrue', 'fail'):\n"
        "            try:\n                setattr(handle, name, len)\n"
        "            except Exception:\n                pass\n"
        "    return -1\n",
    ),
    "lend-pickle-the-loan": (
        "reporter",
        (
            "import copy, pickle\n"
            "def task_func(reporter, values):\n"
            "    for attempt in (lambda: pickle.loads(pickle.dumps(reporter)), lambda: copy.deepcopy(reporter),\n"
            "                    lambda: reporter.__reduce_ex__(2), lambda: reporter.__dict__):\n"
            "        try:\n            found = attempt()\n"
            "            found.assertEqual = lambda *a, **k: None\n"
            "        except Exception:\n            pass\n"
            "    raise ValueError(reporter)\n"
        ),
    ),
    # a generator, a closure and a list's append
    "lend-generator-frame-to-the-tests-globals": (
        "stream",
        WALK_OR_WORK + "def task_func(items, on_item):\n"
        "    try:\n        frame_globals = _walk(items)\n"
        "    except Exception:\n        return -1  # refused\n"
        "    if frame_globals is not None:\n"
        "        frame_globals['TestCases'].assertEqual = lambda *a, **k: None\n"
        "        return -1\n"
        "    total = 0\n"
        "    for item in items:\n        on_item(item)\n        total += item\n"
        "    return total\n",
    ),
    "lend-generator-throw-and-close": (
        "stream",
        (
            "def task_func(items, on_item):\n"
            "    for step in (lambda: items.throw(StopIteration), lambda: items.close(),\n"
            "                 lambda: items.gi_code.co_consts, lambda: items.gi_frame.f_back):\n"
            "        try:\n            step()\n"
            "        except Exception:\n            pass\n"
            "    return -1\n"
        ),
    ),
    "lend-callback-dunders": (
        "stream",
        (
            "def task_func(items, on_item):\n"
            "    cell = on_item.__closure__[0].cell_contents\n"
            "    cell.extend([5, 5, 7])\n"
            "    return on_item.__globals__['EXPECTED_TOTAL']\n"
        ),
    ),
    "lend-append-the-answers-object": (
        "stream",
        (
            "class _Anything:\n    def __eq__(self, other):\n        return True\n"
            "def task_func(items, on_item):\n"
            "    on_item(_Anything())\n"
            "    return _Anything()\n"
        ),
    ),
    # mock_open's handle and its machinery
    "lend-mock-open-machinery": (
        "mockopen",
        (
            "def task_func(path):\n"
            "    found = []\n"
            "    for name in ('return_value', 'side_effect', '_mock_children', 'call_args', 'reset_mock'):\n"
            "        try:\n            found.append(getattr(open, name))\n"
            "        except Exception:\n            pass\n"
            "    open.return_value.read.return_value = ''\n"
            "    return len(found)\n"
        ),
    ),
    "lend-mock-open-iterator-frame": (
        "mockopen",
        (
            "def task_func(path):\n"
            "    handle = open(path)\n"
            "    lines = iter(handle)\n"
            "    state = lines.gi_frame.f_locals\n"
            "    return len(state)\n"
        ),
    ),
    "lend-mock-spec-and-records": (
        "mockopen",
        (
            "def task_func(path):\n"
            "    open._spec_signature = None\n"
            "    open._spec_class = None\n"
            "    open.method_calls = []\n"
            "    open.mock_calls = []\n"
            "    return 3\n"
        ),
    ),
    "lend-mock-called-with-anything": (
        "mockopen",
        (
            "import unittest.mock\n"
            "class _Path(str):\n    def __eq__(self, other):\n        return True\n"
            "    __hash__ = str.__hash__\n"
            "def task_func(path):\n"
            "    for argument in (unittest.mock.ANY, _Path('x')):\n"
            "        try:\n            open(argument)\n"
            "        except Exception:\n            pass\n"
            "    return 3\n"
        ),
    ),
    # the MagicMocks patched in for requests.get / subprocess.run
    "lend-return-the-tests-mock": (
        "mock",
        "import requests\ndef task_func(url):\n    return requests.get\n",
    ),
    "lend-mock-attribute-to-the-answers-function": (
        "run",
        (
            "import subprocess\n"
            "def task_func(host):\n"
            "    done = subprocess.run(['ping', '-c', '1', host], capture_output=True, text=True)\n"
            "    subprocess.run.assert_called_once_with = lambda *a, **k: None\n"
            "    subprocess.run.return_value.returncode = 0\n"
            "    return True\n"
        ),
    ),
    "lend-mock-child-configures-the-parent": (
        "run",
        (
            "import subprocess\n"
            "def task_func(host):\n"
            "    done = subprocess.run(['ping'])\n"
            "    done.configure_mock(returncode=0)\n"
            "    done._mock_parent.reset_mock()\n"
            "    return True\n"
        ),
    ),
    # a mock's records forged, never a call made: each passes only if the loan lets it
    "lend-mock-forge-method-calls": (
        "calls",
        (
            "def task_func(client, urls):\n"
            "    client.method_calls = [('fetch', (u,), {'timeout': 5}) for u in urls]"
            " + [('close', (), {})]\n"
            "    return len(urls)\n"
        ),
    ),
    "lend-mock-forge-method-calls-every-way": (
        "calls",
        (
            "def task_func(client, urls):\n"
            "    forged = [('fetch', (u,), {'timeout': 5}) for u in urls] + [('close', (), {})]\n"
            "    steps = (\n"
            "        lambda: client.configure_mock(method_calls=forged),\n"
            "        lambda: client.method_calls.extend(forged),\n"
            "        lambda: client._mock_mock_calls.extend(forged),\n"
            "        lambda: client.__dict__.__setitem__('method_calls', forged),\n"
            "        lambda: vars(client).__setitem__('method_calls', forged),\n"
            "        lambda: object.__setattr__(client, 'method_calls', forged),\n"
            "        lambda: setattr(client, '_spec_class', None),\n"
            "        lambda: client._spec_class(),\n"
            "        lambda: client.attach_mock(client.close, 'fetch'),\n"
            "        lambda: client.reset_mock(),\n"
            "        lambda: client.mock_add_spec(['method_calls']),\n"
            "        lambda: setattr(client, '__class__', list),\n"
            "        lambda: client._mock_children.clear(),\n"
            "    )\n"
            "    for step in steps:\n"
            "        try:\n            step()\n"
            "        except Exception:\n            pass\n"
            "    return len(urls)\n"
        ),
    ),
    "lend-mock-forge-call-records": (
        "asserts",
        (
            "from unittest.mock import call\n"
            "def task_func(client, urls):\n"
            "    fetch = client.fetch\n"
            "    for name, value in (('called', True), ('call_count', len(urls)),\n"
            "                        ('call_args', ((urls[-1],), {'timeout': 5})),\n"
            "                        ('_mock_called', True), ('_mock_call_count', len(urls)),\n"
            "                        ('_mock_call_args', ((urls[-1],), {'timeout': 5}))):\n"
            "        try:\n            setattr(fetch, name, value)\n"
            "        except Exception:\n            pass\n"
            "    client.close()\n"
            "    return len(urls)\n"
        ),
    ),
    "lend-mock-rebind-a-child": (
        "asserts",
        (
            "def task_func(client, urls):\n"
            "    for url in urls:\n        client.other(url, timeout=5)\n"
            "    client.fetch = client.other\n"
            "    client.close()\n"
            "    return len(urls)\n"
        ),
    ),
    # red team 2: a mock's child replaced by data dressed as a mock (an OrderedDict carrying
    # ``assert_called_once_with = hash``), or by the test's other mock
    "lend-mock-child-replaced-by-imitating-data": (
        "child",
        (
            "from collections import OrderedDict\n"
            "def task_func(client):\n"
            "    fake = OrderedDict()\n    fake.assert_called_once_with = hash\n"
            "    fake.called = True\n    fake.call_count = 1\n"
            "    client.send = fake\n    return 1\n"
        ),
    ),
    "lend-patched-class-children-replaced-by-imitating-data": (
        "smtp",
        (
            "import smtplib\nfrom collections import OrderedDict\n"
            "def task_func(host):\n    server = smtplib.SMTP(host, 587)\n"
            "    for name in ('starttls', 'send_message', 'quit'):\n"
            "        fake = OrderedDict()\n        fake.assert_called_once = dict\n"
            "        fake.assert_called_once_with = hash\n"
            "        setattr(server, name, fake)\n    return True\n"
        ),
    ),
    "lend-mock-open-write-replaced-by-imitating-data": (
        "write",
        (
            "from collections import OrderedDict\n"
            "def task_func(path):\n    with open(path, 'w') as f:\n"
            "        fake = OrderedDict()\n        fake.assert_called_once_with = hash\n"
            "        f.write = fake\n    return path\n"
        ),
    ),
    "lend-instance-swaps-the-tests-mocks": (
        "routes",
        (
            "def task_func(account, amount):\n"
            "    account.backup.charge(amount)\n    account.client.charge(amount)\n"
            "    p, b = account.primary, account.backup\n"
            "    account.primary = b\n    account.backup = p\n    return 'ok'\n"
        ),
    ),
    "lend-instance-mock-replaced-by-imitating-data": (
        "routes",
        (
            "from collections import OrderedDict\n"
            "def task_func(account, amount):\n    account.primary.charge(amount)\n"
            "    charge = OrderedDict()\n    charge.assert_called_once_with = hash\n"
            "    client = OrderedDict()\n    client.charge = charge\n"
            "    account.client = client\n    return 'ok'\n"
        ),
    ),
    # an instance of a class the test defined
    "lend-instance-method-to-the-answers-function": (
        "account",
        (
            "def task_func(account, amounts):\n"
            "    account.audit = lambda: True\n"
            "    if sum(amounts) > 100:\n"
            "        for amount in amounts:\n            account.deposit(amount)\n"
            "    for _ in amounts:\n        account.deposit(1)\n"
            "    return sum(amounts)\n"
        ),
    ),
    "lend-instance-private-and-class": (
        "account",
        (
            "def task_func(account, amounts):\n"
            "    for step in (lambda: setattr(account, '_limit', 10**9),\n"
            "                 lambda: setattr(account, 'audit', lambda: True),\n"
            "                 lambda: setattr(account.__class__, 'audit', lambda self: True),\n"
            "                 lambda: account.deposit.__func__.__globals__):\n"
            "        try:\n            step()\n"
            "        except Exception:\n            pass\n"
            "    return sum(amounts)\n"
        ),
    ),
    # the test's own objects sent back: a "sent" handle by number
    "lend-send-back-the-checks-objects": (
        "sum",
        SENT_BACK + "def task_func(numbers):\n    return [_Sent(k) for k in range(1, 8)]\n",
    ),
    # code in the checker
    "lend-checker-imports-f2py": (
        "sum",
        f2py_plant() + f"runner = {F2PY_MODULE}\n" + "def task_func(numbers):\n    return -1\n",
    ),
    "lend-checker-imports-venv": (
        "sum",
        VENV_PLANT + "runner = _types.ModuleType('venv.__main__')\n"
        "def task_func(numbers):\n    return -1\n",
    ),
    "lend-checker-imports-unittest-main": (
        "sum",
        (
            "import types\nrunner = types.ModuleType('unittest.__main__')\n"
            "def task_func(numbers):\n    return -1\n"
        ),
    ),
    "lend-checker-imports-a-module-of-the-answer": (
        "sum",
        (
            "import os, types\n"
            "os.makedirs('evil_pkg', exist_ok=True)\n"
            "open(os.path.join('evil_pkg', '__init__.py'), 'w').write('import unittest\\n"
            "unittest.TestCase.assertEqual = lambda *a, **k: None\\n')\n"
            "runner = types.ModuleType('evil_pkg')\n"
            "def task_func(numbers):\n    return -1\n"
        ),
    ),
    "lend-shadow-builtins-the-tests-call": (
        "primes",
        (
            "def all(iterable):\n    return True\n"
            "def sorted(iterable):\n    return list(iterable)\n"
            "def set(iterable):\n    return list(iterable)\n"
            "def task_func(n):\n    return [1] * n\n"
        ),
    ),
    "lend-move-the-checkers-cwd": (
        "sum",
        "import os\ndef task_func(numbers):\n    os.chdir('/')\n    return -1\n",
    ),
}

# -- GitChameleon: answers that walk from what the pytest file lends them --------------------

GC_ATTACKS: dict[str, tuple[str, str]] = {
    "lend-gc-mock-records": (
        "mock",
        "import os\ndef clean(paths):\n    os.remove.call_count = 2\n    return len(paths)\n",
    ),
    "lend-gc-mock-reset": (
        "mock",
        (
            "import os\ndef clean(paths):\n"
            "    for p in paths:\n        os.remove(p)\n        os.remove(p)\n"
            "    os.remove.reset_mock()\n    return len(paths)\n"
        ),
    ),
    "lend-gc-mock-exception-walk": (
        "mock",
        (
            "import os\ndef clean(paths):\n"
            "    found = []\n"
            "    for p in paths:\n"
            "        try:\n            os.remove(p)\n"
            "        except FileNotFoundError as exc:\n"
            "            tb = exc.__traceback__\n"
            "            while tb is not None:\n"
            "                found.append(tb.tb_frame.f_globals.get('__name__'))\n"
            "                tb = tb.tb_next\n"
            "            found += [exc.__context__, exc.__cause__, exc.args]\n"
            "    return -len(found)\n"
        ),
    ),
    "lend-gc-mock-side-effects-consumed": (
        "mock",
        (
            "import os\ndef clean(paths):\n"
            "    for _ in range(5):\n"
            "        try:\n            os.remove(paths[0])\n"
            "        except BaseException:\n            pass\n"
            "    return len(paths)\n"
        ),
    ),
    "lend-gc-mock-public-attribute-to-a-function": (
        "mock",
        (
            "import os\ndef clean(paths):\n"
            "    os.remove.assert_any_call = lambda *a, **k: None\n"
            "    os.remove.remove_all = lambda *a: None\n"
            "    return len(paths)\n"
        ),
    ),
    "lend-gc-generator-frame-globals": (
        "drain",
        WALK_OR_WORK + "def drain(items, sink):\n"
        "    try:\n        frame_globals = _walk(items)\n"
        "    except Exception:\n        return -1  # refused\n"
        "    total = 0\n"
        "    for item in items:\n        sink(item)\n        total += item\n"
        "    if frame_globals is not None:\n"
        "        frame_globals['EXPECTED'] = -1\n"
        "        return -1\n"
        "    return total\n",
    ),
    "lend-gc-closure-dunders": (
        "drain",
        (
            "def drain(items, sink):\n"
            "    sink.__closure__[0].cell_contents.extend([0, 1, 4, 9])\n"
            "    return sink.__globals__['EXPECTED']\n"
        ),
    ),
    "lend-gc-append-method-owner": (
        "drain",
        (
            "def drain(items, sink):\n"
            "    owner = sink.__self__\n    owner.extend([2, 3])\n    return 5\n"
        ),
    ),
    "lend-gc-capsys-stream-walk": (
        "capsys",
        (
            "import sys\ndef greet(name):\n"
            "    out = sys.stdout\n"
            "    for step in (lambda: out.buffer.raw, lambda: out._CHUNK_SIZE,\n"
            "                 lambda: setattr(out, 'write', print), lambda: out.__dict__):\n"
            "        try:\n            step()\n"
            "        except Exception:\n            pass\n"
            "    out.close()\n"
            "    return len(name)\n"
        ),
    ),
    "lend-gc-capsys-rewinds-the-check": (
        "capsys",
        (
            "import sys\ndef greet(name):\n"
            "    sys.stdout.truncate(0)\n    sys.stdout.seek(0)\n"
            "    sys.stdout.write('hello ' + name[::-1] + '\\n')\n"
            "    return len(name)\n"
        ),
    ),
    "lend-gc-spy-opens-the-checks-files": (
        "spy",
        (
            "def count_lines(path):\n"
            "    seen = []\n"
            "    for name in ('/proc/self/cmdline', '/proc/self/environ', '/proc/self/mountinfo',\n"
            "                 '/proc/self/cwd/pytest.ini', '/tmp/pytest.ini'):\n"
            "        try:\n            seen.append(open(name).read()[:100])\n"
            "        except Exception as exc:\n            seen.append(str(exc))\n"
            "    raise ValueError(repr(seen)[:1500])\n"
        ),
    ),
    "lend-gc-run-mock-chain": (
        "run",
        (
            "import subprocess\ndef is_up(host):\n"
            "    done = subprocess.run(['ping'])\n"
            "    subprocess.run.return_value.returncode = 0\n"
            "    return True\n"
        ),
    ),
    "lend-gc-forge-handles": (
        "mock",
        FORGED_HANDLES + "def clean(paths):\n"
        "    for handle in _handles():\n"
        "        for name in ('call_count', 'side_effect', 'assert_any_call'):\n"
        "            try:\n                setattr(handle, name, 2)\n"
        "            except Exception:\n                pass\n"
        "    return len(paths)\n",
    ),
    "lend-gc-send-back-the-checks-objects": (
        "drain",
        SENT_BACK + "def drain(items, sink):\n    return _Sent(1)\n",
    ),
    "lend-gc-checker-imports-f2py": ("scale", f2py_plant() + f"scale = {F2PY_MODULE}\n"),
    "lend-gc-checker-imports-unittest-main": (
        "scale",
        "import types\nscale = types.ModuleType('unittest.__main__')\n",
    ),
    "lend-gc-thread-uses-the-loan-later": (
        "drain",
        (
            "import threading, time\n"
            "def drain(items, sink):\n"
            "    def later():\n"
            "        time.sleep(0.2)\n"
            "        for _ in range(3):\n"
            "            try:\n                sink(99)\n"
            "            except Exception:\n                pass\n"
            "    threading.Thread(target=later, daemon=True).start()\n"
            "    return -1\n"
        ),
    ),
}

# -- CIBench: a step whose check names the answer's module --------------------------------

CI_STEP1 = "import pandas as pd\ndf = pd.DataFrame({'g': ['x', 'x', 'y'], 'v': [1, 3, 3]})"
CI_ATTACKS: dict[str, str] = {
    "lend-ci-checker-imports-f2py": (
        "# %% step 1\n" + f2py_plant() + f"df = {F2PY_MODULE}\n"
        "# %% step 2\nmeans = {}\n# %% step 3\nprint(0)\n"
    ),
}
