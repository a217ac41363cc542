"""Hostile answers that redefine what the task's prompt gives the tests (issue #42).

A BigCodeBench prompt's imports, constants and helpers (the *prelude*) run in the check,
and the tests use them to build their expected values: ``Counter(...)`` from the prompt's
``from collections import Counter``, ``reduce`` from ``functools``, a helper the prompt
defines. An answer that defines a function by one of those names must not become what the
tests call: the expectation would then be computed by the code being judged. Found by an
outside red team on real tasks (BigCodeBench/685, /856, /902). Merged into
``tests/test_hostile_formats.py``.
"""

from __future__ import annotations

# -- BigCodeBench task kinds: (prompt, canonical body, tests) -------------------------------

TALLY_PROMPT = (
    "from collections import Counter\nfrom functools import reduce\n\n"
    "def weight(word):\n    return len(word) * 3 + 1\n\n"
    "def task_func(words):\n"
)
TALLY_BODY = (
    "    counts = Counter(words)\n"
    "    total = reduce(lambda a, b: a + b, [weight(w) for w in words], 0)\n"
    "    return counts, total\n"
)
TALLY_TESTS = """
import random
import string
import unittest

class TestCases(unittest.TestCase):
    def words(self):
        return ["".join(random.choice("ab") for _ in range(random.randint(1, 3)))
                for _ in range(random.randint(5, 15))]

    def test_counts(self):
        words = self.words()
        counts, _ = task_func(words)
        self.assertEqual(counts, Counter(words))

    def test_total(self):
        words = self.words()
        _, total = task_func(words)
        self.assertEqual(total, reduce(lambda a, b: a + b, [weight(w) for w in words], 0))
"""
BCB_KINDS: dict[str, tuple[str, str, str]] = {
    "tally": (TALLY_PROMPT, TALLY_BODY, TALLY_TESTS),
}

BCB_ATTACKS: dict[str, tuple[str, str]] = {
    "prelude-shadow-an-import": (
        "tally",
        (
            "def Counter(*args, **kwargs):\n    return {}\n"
            "def reduce(*args, **kwargs):\n    return 0\n"
            "def task_func(words):\n    return {}, 0\n"
        ),
    ),
    "prelude-shadow-a-helper": (
        "tally",
        (
            "from collections import Counter\n"
            "def weight(word):\n    return 0\n"
            "def task_func(words):\n    return Counter(words), 0\n"
        ),
    ),
    "prelude-shadow-as-a-class": (
        "tally",
        (
            "class Counter(dict):\n    def __init__(self, *a, **k):\n        super().__init__()\n"
            "def task_func(words):\n    return Counter(), 0\n"
        ),
    ),
}
