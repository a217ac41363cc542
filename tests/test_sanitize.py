"""BigCodeBench's sanitising (harness/problems/sanitize.py): upstream's behaviour, case by
case, and the fast search for the longest piece that parses against upstream's own
search, which tries every pair of lines."""

from __future__ import annotations

import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.benchmarks.bigcodebench.sanitize import code_extract, sanitize


def upstream_code_extract(text: str) -> str:
    """BigCodeBench's ``code_extract``, as its source reads: every (i, j) pair, j > i."""
    lines = text.split("\n")
    best, longest = (0, 0), 0
    for i in range(len(lines)):
        for j in range(i + 1, len(lines)):
            chunk = "\n".join(lines[i : j + 1])
            try:
                ast.parse(chunk)
            except SyntaxError:
                continue
            length = sum(1 for line in lines[i : j + 1] if line.strip())
            if length > longest:
                longest, best = length, (i, j)
    return "\n".join(lines[best[0] : best[1] + 1])


LINES = st.sampled_from(
    [
        "",
        "   ",
        "x = 1",
        "def f(a):",
        "    return a",
        "    y = (",
        ")",
        "Here is the code:",
        "```python",
        "```",
        '"""',
        "import os",
        "print(f(2))",
        "  bad indent",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINES, max_size=12))
def test_the_longest_piece_that_parses_is_upstreams(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert code_extract(text) == upstream_code_extract(text)


def test_prose_and_fences_around_the_code_go() -> None:
    raw = (
        "Sure! Here it is:\n```python\nimport os\n\ndef task_func():\n    return 1\n```\nThat's it."
    )
    assert code_extract(raw) == "import os\n\ndef task_func():\n    return 1"


def test_one_line_or_nothing_that_parses_gives_the_first_line() -> None:
    assert code_extract("x = 1") == "x = 1"
    assert code_extract("not python at all\nneither is this") == "not python at all"


RAW = """Here is my solution.

```python
import numpy as np
from os import path

CONST = 3
UNUSED = 4

def helper(x):
    return x * CONST

@decorated
def also_needed():
    pass

def task_func(a):
    also_needed()
    return helper(np.sum(a))

def task_func(a):
    return 0

if __name__ == "__main__":
    task_func([1])

print(task_func([1, 2]))
```
"""


def test_sanitize_keeps_the_imports_and_what_the_entry_point_reaches() -> None:
    assert sanitize(RAW, "task_func") == (
        "import numpy as np\n"
        "from os import path\n"
        "CONST = 3\n"
        "def helper(x):\n"
        "    return x * CONST\n"
        "def task_func(a):\n"
        "    also_needed()\n"
        "    return helper(np.sum(a))"
    )


def test_an_assignment_is_named_as_upstreams_tree_walk_names_it() -> None:
    # ``x.y = z`` is "z" to upstream: its first identifier among the direct parts
    code = "import m\nz = 1\nm.y = z\ndef task_func():\n    return z\n"
    assert sanitize(code, "task_func") == "import m\nz = 1\ndef task_func():\n    return z"


def test_trailing_top_level_lines_naming_the_entry_point_go() -> None:
    code = "def task_func():\n    return 1\nresult = task_func()\n"
    # ``result`` is not reached from the entry point, and it names it at the end
    assert sanitize(code, "task_func") == "def task_func():\n    return 1"


def test_no_entry_point_keeps_only_the_imports() -> None:
    assert sanitize("import os\ndef other():\n    pass\n", "task_func") == "import os"
