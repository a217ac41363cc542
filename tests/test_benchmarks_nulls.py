"""Null answers (harness/benchmarks/nulls.py): built from the reference's shape, each one
a program that runs, none doing the reference's work."""

from __future__ import annotations

import textwrap
import warnings
from collections import Counter
from typing import Any

import pytest

from harness.benchmarks import nulls, registry
from harness.core.problem import Problem
from harness.problems import sets as problemsets
from tests.conftest import DS1000_DIR

DS1000 = DS1000_DIR / "ds1000.jsonl.gz"


@pytest.mark.parametrize(
    ("code", "provided", "expected"),
    [
        ("result = df.groupby('a').sum()\n", (), "df"),
        ("import numpy as np\nresult = np.sum(a)\n", (), "a"),
        ("result = np.sum(a)\n", ("np",), "a"),
        ("def g(df):\n    return df.x\nresult = g(data.copy())\n", (), "data"),
        ("x = 1\nresult = x + 1\n", (), None),  # assigned before it is read
        ("df = df.fillna(0)\nresult = df\n", (), "df"),  # read on the line it is assigned
        ("result = [v for v in items if v]\n", (), "items"),
        ("result = len(range(3))\n", (), None),  # builtins only
        ("result = (\n", (), None),  # does not parse
    ],
)
def test_first_input(code: str, provided: tuple[str, ...], expected: str | None) -> None:
    assert nulls.first_input(code, provided) == expected


def test_snippet_nulls_are_indented_as_the_reference() -> None:
    reference = "    y = x.sum()\n    result = y\n"
    found = nulls.snippet(reference)
    assert found["pass"] == "    pass\n"
    assert found["none"] == "    result = None\n"
    assert found["input"] == "    result = x\n"
    assert found["empty"].startswith(reference.rstrip() + "\n\n    def _harness_emptied")
    assert found["empty"].rstrip().endswith("    result = _harness_emptied(result)")


@pytest.mark.parametrize(
    "reference",
    ["plt.plot(x, y)\nplt.legend()\n", "df.drop(columns='a', inplace=True)\n"],
)
def test_a_snippet_that_makes_no_result_has_one_null(reference: str) -> None:
    assert nulls.snippet(reference) == {"pass": "pass\n"}


def test_snippet_that_returns_empties_what_it_returns() -> None:
    reference = "    y = sum(x)\n    return y\n"
    found = nulls.snippet(reference)
    body = "def f(x):\n" + found["empty"]
    namespace: dict[str, Any] = {}
    exec(compile(body, "<null>", "exec"), namespace)
    assert "return y" not in found["empty"]
    assert namespace["f"]([1, 2]) == 0  # type(3)() — an empty int


@pytest.mark.parametrize(
    ("value", "emptied"),
    [([1, 2], []), ("ab", ""), ((1,), ()), (5, 0), ({"a": 1}, {})],
)
def test_the_empty_null_empties_the_reference_result(value: object, emptied: object) -> None:
    namespace: dict[str, object] = {"value": value}
    exec(nulls.snippet("result = value\n")["empty"], namespace)
    assert namespace["result"] == emptied


@pytest.mark.parametrize("value", [0, "", [], False])
def test_the_empty_null_raises_where_the_result_is_already_empty(value: object) -> None:
    with pytest.raises(ValueError, match="already empty"):
        exec(nulls.snippet("result = value\n")["empty"], {"value": value})


FUNCTION = textwrap.dedent(
    '''
    import math

    def helper(v):
        return v * 2

    def task_func(values, scale=1):
        """Doubled, scaled."""
        out = [helper(v) * scale for v in values]
        return out
    '''
).lstrip()


def test_function_nulls_replace_the_body_and_keep_the_rest() -> None:
    found = nulls.function(FUNCTION, "task_func")
    assert set(found) == {"pass", "input", "empty"}  # an empty body returns None
    for name, code in found.items():
        namespace: dict[str, object] = {}
        exec(compile(code, f"<{name}>", "exec"), namespace)
        call = namespace["task_func"]
        assert callable(call)
        assert call([1, 2]) == {"pass": None, "input": [1, 2], "empty": []}[name]
    assert '"""Doubled, scaled."""' in found["pass"]  # its docstring stays
    assert "def helper(v):" in found["pass"]


def test_function_nulls_of_a_decorated_first_statement() -> None:
    code = "import functools\ndef solution():\n    @functools.cache\n    def f(x):\n        return x\n    return f\n"
    for text in nulls.function(code, "solution").values():
        compile(text, "<null>", "exec")


def test_function_nulls_without_the_function() -> None:
    assert nulls.function("x = 1\n", "task_func") == {}
    assert nulls.function("def (:\n", "task_func") == {}
    # another name: the last function defined
    assert "input" in nulls.function("def other(a):\n    return a + 1\n", "task_func")


def test_imported_names_also_in_strings() -> None:
    context = 'import pandas as pd\nfrom numpy import (sum, mean as m)\nexec_context = """\nimport torch\n"""\n'
    assert nulls.imported_names(context) == {"pd", "sum", "m", "torch"}


@pytest.mark.skipif(not DS1000.is_file(), reason=f"DS-1000 is not at {DS1000}")
def test_every_ds1000_problem_has_nulls_that_compile() -> None:
    problems = problemsets.load_problems(problemsets.resolve([str(DS1000)]))
    kinds: Counter[str] = Counter()
    alone: Counter[str] = Counter()
    for problem in problems:
        audit = registry.audit_of(problem)
        assert audit is not None
        found = audit.nulls(problem)
        kinds.update(found.keys())
        assert {"pass", "none", "empty"} <= set(found) or set(found) == {"pass"}
        if set(found) == {"pass"}:
            alone[problem.library] += 1
        for code in found.values():
            indented = next(
                line
                for line in code.splitlines()
                if line.strip() and not line.lstrip().startswith("#")
            ).startswith(" ")
            with warnings.catch_warnings():  # a reference's own invalid escapes
                warnings.simplefilter("ignore")  # DeprecationWarning before 3.12
                compile("def f():\n" + code if indented else code, "<null>", "exec")
    assert kinds["pass"] == 1000
    # every Matplotlib problem saves a figure and sets ``result = None``: drawing nothing
    # is its one null answer
    assert alone["matplotlib"] == 155
    assert kinds["none"] == kinds["empty"] > 700
    assert kinds["input"] > 500  # where the result is not the input variable itself


def test_the_ds1000_result_variable_is_the_programs() -> None:
    def problem(after: str, reference: str = "df = df.dropna()\n") -> Problem:
        context = f'exec_context = r"""\ndf = test_input\n[insert]\n{after}"""\n'
        return Problem("ds1000/1", "1", "ds1000", "pandas", "", reference, context)

    audit = registry.audit_of(problem(""))
    assert audit is not None
    assert audit.nulls(problem("", "result = df.dropna()\n"))["none"] == "result = None\n"
    assert audit.nulls(problem("")) == {"pass": "pass\n"}  # it makes no ``result``
    assert audit.nulls(problem("result = df\n"))["none"] == "df = None\n"
    assert audit.nulls(problem("plt.savefig('o.png')\nresult = None\n")) == {"pass": "pass\n"}
    assert audit.nulls(problem("result = len(df)\n")) == {"pass": "pass\n"}
