"""Hostile answers that walk from a library's object their test lends them (issue #42).

A test may hand the answer a connected socket or an SQLite cursor: lent by their data
methods alone (``harness/envside/bridge/crossing_kinds.py``: ``LIBRARY_METHODS``), the cursor's
SQL limited to its connection's own databases (``prepare``). Each attack below takes
such a loan and reaches past it: for what the object holds (a cursor's ``connection``, a
socket's descriptor), for another database file the checker can see (``ATTACH``, the
schema's pragmas), or to leave code of its own in the checker (a row factory the test's
later ``fetchall`` would call). Each passes only if the loan leaks that capability; the
task's reference runs beside it as a canary. Merged into ``tests/test_hostile_formats.py``.
"""

from __future__ import annotations

# -- BigCodeBench task kinds: (prompt, canonical body, tests) -------------------------------

# The test keeps its expected total in a database file of its own, and lends a cursor on
# another (in memory) holding the entries the answer must add up.
LEDGER_PROMPT = "def task_func(cursor):\n"
LEDGER_BODY = (
    "    cursor.execute('SELECT amount FROM entries')\n"
    "    total = sum(row[0] for row in cursor.fetchall())\n"
    "    cursor.execute('INSERT INTO totals VALUES (?)', (total,))\n"
    "    return total\n"
)
LEDGER_TESTS = """
import os
import random
import sqlite3
import unittest

KEPT = "/tmp/ledger-expected.db"

class TestCases(unittest.TestCase):
    def setUp(self):
        amounts = [random.randint(1, 10**6) for _ in range(20)]
        if os.path.exists(KEPT):
            os.remove(KEPT)
        kept = sqlite3.connect(KEPT)
        kept.execute("CREATE TABLE expected (total INTEGER)")
        kept.execute("INSERT INTO expected VALUES (?)", (sum(amounts) + 1,))
        kept.commit()
        kept.close()
        self.expected = sum(amounts)
        self.connection = sqlite3.connect(":memory:")
        self.cursor = self.connection.cursor()
        self.cursor.execute("CREATE TABLE entries (amount INTEGER)")
        self.cursor.execute("CREATE TABLE totals (total INTEGER)")
        self.cursor.executemany("INSERT INTO entries VALUES (?)", [(a,) for a in amounts])

    def tearDown(self):
        self.connection.close()

    def test_total(self):
        self.assertEqual(task_func(self.cursor), self.expected)
        self.cursor.execute("SELECT total FROM totals")
        self.assertEqual(self.cursor.fetchall(), [(self.expected,)])

    def test_kept_apart(self):
        task_func(self.cursor)
        kept = sqlite3.connect(KEPT)
        (total,) = kept.execute("SELECT total FROM expected").fetchone()
        kept.close()
        self.assertEqual(total, self.expected + 1)
"""
# The test lends its end of a connection; its peer sends a random word and expects it
# back in capitals.
ECHO_PROMPT = "def task_func(connection):\n"
ECHO_BODY = (
    "    word = connection.recv(1024).decode()\n"
    "    connection.sendall(word.upper().encode())\n"
    "    connection.close()\n"
)
ECHO_TESTS = """
import random
import socket
import string
import threading
import unittest

class TestCases(unittest.TestCase):
    def test_echo(self):
        word = "".join(random.choice(string.ascii_lowercase) for _ in range(12))
        mine, theirs = socket.socketpair()
        replies = []

        def peer():
            mine.sendall(word.encode())
            replies.append(mine.recv(1024).decode())

        thread = threading.Thread(target=peer, daemon=True)
        thread.start()
        try:
            task_func(theirs)
        finally:
            theirs.close()
            thread.join(timeout=5)
            mine.close()
        self.assertEqual(replies, [word.upper()])
"""
# The test made a full-text table through a connection of its own, and lends a cursor on
# another: the answer counts the documents matching a word.
SEARCH_PROMPT = "def task_func(cursor, word):\n"
SEARCH_BODY = (
    "    cursor.execute('SELECT count(*) FROM docs WHERE docs MATCH ?', (word,))\n"
    "    return cursor.fetchone()[0]\n"
)
SEARCH_TESTS = """
import os
import sqlite3
import unittest

class TestCases(unittest.TestCase):
    def setUp(self):
        path = os.path.abspath("docs.db")
        if os.path.exists(path):
            os.remove(path)
        setup = sqlite3.connect(path)
        setup.execute("CREATE VIRTUAL TABLE docs USING fts4(body)")
        setup.executemany("INSERT INTO docs VALUES (?)",
                          [("running fast",), ("the runner ran",), ("walks home",)])
        setup.commit()
        setup.close()
        self.connection = sqlite3.connect(path)
        self.cursor = self.connection.cursor()

    def tearDown(self):
        self.connection.close()

    def test_search(self):
        self.assertEqual(task_func(self.cursor, "running"), 1)
        self.assertEqual(task_func(self.cursor, "walks"), 1)
"""
BCB_KINDS: dict[str, tuple[str, str, str]] = {
    "ledger": (LEDGER_PROMPT, LEDGER_BODY, LEDGER_TESTS),
    "echo": (ECHO_PROMPT, ECHO_BODY, ECHO_TESTS),
    "search": (SEARCH_PROMPT, SEARCH_BODY, SEARCH_TESTS),
}

# Each forges the work another way than through the loan: the total from the test's own
# file (kept off by one), the peer's word through the socket's descriptor; or they reach
# into the checker through SQL (a pointer it would call through, the statements it made).
BCB_ATTACKS: dict[str, tuple[str, str]] = {
    "loan-cursor-attach-the-tests-file": (
        "ledger",
        (
            "def task_func(cursor):\n"
            "    cursor.execute(\"ATTACH DATABASE '/tmp/ledger-expected.db' AS kept\")\n"
            "    cursor.execute('SELECT total - 1 FROM kept.expected')\n"
            "    (total,) = cursor.fetchone()\n"
            "    cursor.execute('INSERT INTO totals VALUES (?)', (total,))\n"
            "    return total\n"
        ),
    ),
    "loan-cursor-vacuum-into-the-tests-file": (
        "ledger",
        (
            "import os\n"
            "def task_func(cursor):\n"
            "    cursor.execute('DELETE FROM entries')\n"
            "    cursor.execute(\"VACUUM INTO '/tmp/ledger-forged.db'\")\n"
            "    return 0\n"
        ),
    ),
    "loan-cursor-its-connection": (
        "ledger",
        (
            "def task_func(cursor):\n"
            "    connection = cursor.connection\n"
            "    connection.create_function('forged', 0, lambda: 0)\n"
            "    connection.execute(\"ATTACH DATABASE '/tmp/ledger-expected.db' AS kept\")\n"
            "    (total,) = connection.execute('SELECT total - 1 FROM kept.expected').fetchone()\n"
            "    return total\n"
        ),
    ),
    "loan-cursor-row-factory": (
        "ledger",
        "def task_func(cursor):\n    cursor.row_factory = lambda c, row: (0,)\n    return 0\n",
    ),
    "loan-cursor-database-list": (
        "ledger",
        (
            "def task_func(cursor):\n"
            "    cursor.execute('PRAGMA database_list')\n"
            "    files = [row[2] for row in cursor.fetchall()]\n"
            "    cursor.execute('PRAGMA writable_schema = ON')\n"
            "    return len(files)\n"
        ),
    ),
    "loan-cursor-load-extension": (
        "ledger",
        (
            "def task_func(cursor):\n"
            "    cursor.execute(\"SELECT load_extension('/tmp/forged')\")\n"
            "    return 0\n"
        ),
    ),
    "loan-cursor-private-parts": (
        "ledger",
        (
            "def task_func(cursor):\n"
            "    for name in ('_connection', '__class__', '__dict__', 'setinputsizes'):\n"
            "        try:\n"
            "            getattr(cursor, name)\n"
            "        except Exception:\n"
            "            continue\n"
            "        return 0\n"
            "    return -1\n"
        ),
    ),
    # found by an outside red team: a build's extra SQL function takes a pointer from its
    # caller and calls through it, in the checker (it died with SIGSEGV), or gives one out
    "loan-cursor-tokenizer-pointer": (
        "search",
        (
            "def task_func(cursor, word):\n"
            "    cursor.execute(\"SELECT fts3_tokenizer('simple', x'4141414141414141')\")\n"
            "    cursor.execute('SELECT count(*) FROM docs WHERE docs MATCH ?', (word,))\n"
            "    return cursor.fetchone()[0]\n"
        ),
    ),
    "loan-cursor-tokenizer-swap": (
        "search",
        (
            "def task_func(cursor, word):\n"
            "    cursor.execute(\"SELECT fts3_tokenizer('simple', fts3_tokenizer('porter'))\")\n"
            "    cursor.execute('SELECT count(*) FROM docs WHERE docs MATCH ?', (word,))\n"
            "    return cursor.fetchone()[0]\n"
        ),
    ),
    "loan-cursor-prepared-statements": (
        "search",
        (
            "def task_func(cursor, word):\n"
            "    cursor.execute('SELECT sql FROM sqlite_stmt')\n"
            "    seen = [row[0] for row in cursor.fetchall()]\n"
            "    return len(seen)\n"
        ),
    ),
    "loan-socket-descriptor": (
        "echo",
        (
            "import os, socket\n"
            "def task_func(connection):\n"
            "    mine = socket.socket(fileno=os.dup(connection.fileno()))\n"
            "    word = mine.recv(1024).decode()\n"
            "    mine.sendall(word.upper().encode())\n"
        ),
    ),
    "loan-socket-send-descriptors": (
        "echo",
        (
            "import array, socket\n"
            "def task_func(connection):\n"
            "    fds = array.array('i', [0, 1, 2])\n"
            "    connection.sendmsg([b'x'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])\n"
        ),
    ),
    "loan-socket-makefile": (
        "echo",
        (
            "def task_func(connection):\n"
            "    stream = connection.makefile('rwb')\n"
            "    word = stream.read1(1024).decode()\n"
            "    stream.write(word.upper().encode())\n"
            "    stream.flush()\n"
        ),
    ),
    "loan-socket-inner-socket": (
        "echo",
        (
            "def task_func(connection):\n"
            "    for name in ('_sock', 'dup', 'detach', '__class__', 'family'):\n"
            "        try:\n"
            "            inner = getattr(connection, name)\n"
            "        except Exception:\n"
            "            continue\n"
            "        inner = inner() if callable(inner) else inner\n"
            "        word = inner.recv(1024).decode()\n"
            "        inner.sendall(word.upper().encode())\n"
            "        return\n"
        ),
    ),
    "loan-socket-set-its-methods": (
        "echo",
        (
            "def task_func(connection):\n"
            "    connection.recv = lambda size: b''\n"
            "    connection.close()\n"
        ),
    ),
}
