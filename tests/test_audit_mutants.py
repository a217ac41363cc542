"""Single-point mutants of a reference (harness/audit/mutants.py).

Each operator on a small snippet gives the exact mutant code and description expected;
the places an operator must leave alone have no mutant of it; then the choice as a
whole: code that does not parse has none, the limit holds, the seed makes it
reproducible and different seeds choose differently, mutants are distinct, differ from
the reference and compile, one operator does not take the whole budget, and the diff
reads as a unified diff. Hypothesis then generates small expressions, whose every
mutant must compile, differ, and use no name the original does not.
"""

from __future__ import annotations

import ast
import textwrap
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.audit.mutants import OPERATORS, Mutant, mutants


def _d(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _all(code: str) -> tuple[Mutant, ...]:
    """Every mutant of ``code`` (the snippets here have far fewer than 200 sites)."""
    return mutants(code, limit=200)


# (operator, reference, description, mutant)
CASES: list[tuple[str, str, str, str]] = [
    # -- comparison --------------------------------------------------------------------
    ("comparison", "ok = a < b\n", "line 1: `<` → `>=`", "ok = a >= b\n"),
    ("comparison", "ok = a >= b\n", "line 1: `>=` → `<`", "ok = a < b\n"),
    ("comparison", "ok = a > b\n", "line 1: `>` → `<=`", "ok = a <= b\n"),
    ("comparison", "ok = a <= b\n", "line 1: `<=` → `>`", "ok = a > b\n"),
    ("comparison", "ok = a == b\n", "line 1: `==` → `!=`", "ok = a != b\n"),
    ("comparison", "ok = a != b\n", "line 1: `!=` → `==`", "ok = a == b\n"),
    ("comparison", "ok = a is None\n", "line 1: `is` → `is not`", "ok = a is not None\n"),
    ("comparison", "ok = a is not None\n", "line 1: `is not` → `is`", "ok = a is None\n"),
    ("comparison", "ok = a in b\n", "line 1: `in` → `not in`", "ok = a not in b\n"),
    ("comparison", "ok = a not in b\n", "line 1: `not in` → `in`", "ok = a in b\n"),
    # the spacing around the operator is kept, and each link of a chain is a site
    ("comparison", "ok = a<b\n", "line 1: `<` → `>=`", "ok = a>=b\n"),
    ("comparison", "ok = 0 < x <= 9\n", "line 1: `<=` → `>`", "ok = 0 < x > 9\n"),
    (
        "comparison",
        "x = 1\nif x == 2:\n    y = 3\n",
        "line 2: `==` → `!=`",
        "x = 1\nif x != 2:\n    y = 3\n",
    ),
    # -- arithmetic --------------------------------------------------------------------
    ("arithmetic", "y = a + b\n", "line 1: `+` → `-`", "y = a - b\n"),
    ("arithmetic", "y = a - b\n", "line 1: `-` → `+`", "y = a + b\n"),
    ("arithmetic", "y = a * b\n", "line 1: `*` → `/`", "y = a / b\n"),
    ("arithmetic", "y = a / b\n", "line 1: `/` → `*`", "y = a * b\n"),
    ("arithmetic", "y = a // b\n", "line 1: `//` → `/`", "y = a / b\n"),
    ("arithmetic", "y = a % b\n", "line 1: `%` → `//`", "y = a // b\n"),
    ("arithmetic", "y = a ** b\n", "line 1: `**` → `*`", "y = a * b\n"),
    ("arithmetic", "y += a\n", "line 1: `+=` → `-=`", "y -= a\n"),
    ("arithmetic", "y -= a\n", "line 1: `-=` → `+=`", "y += a\n"),
    ("arithmetic", "y *= a\n", "line 1: `*=` → `/=`", "y /= a\n"),
    ("arithmetic", "y /= a\n", "line 1: `/=` → `*=`", "y *= a\n"),
    ("arithmetic", "y = -x\n", "line 1: `-x` → `x`", "y = x\n"),
    ("arithmetic", "y = a * -(b + c)\n", "line 1: `-(b + c)` → `(b + c)`", "y = a * (b + c)\n"),
    # the operation's own parentheses stay; a glued keyword gets parentheses, not `returnx`
    ("arithmetic", "y = (-x).abs()\n", "line 1: `(-x)` → `(x)`", "y = (x).abs()\n"),
    (
        "arithmetic",
        "def f(x):\n    return-x\n",
        "line 2: `-x` → `(x)`",
        "def f(x):\n    return(x)\n",
    ),
    # -- boolean -----------------------------------------------------------------------
    ("boolean", "ok = a and b\n", "line 1: `and` → `or`", "ok = a or b\n"),
    ("boolean", "ok = a or b\n", "line 1: `or` → `and`", "ok = a and b\n"),
    ("boolean", "ok = not a\n", "line 1: `not a` → `a`", "ok = a\n"),
    ("boolean", "ok = a and not-b\n", "line 1: `not-b` → `-b`", "ok = a and -b\n"),
    ("boolean", "ok = True\n", "line 1: `True` → `False`", "ok = False\n"),
    ("boolean", "f(a, copy=False)\n", "line 1: `False` → `True`", "f(a, copy=True)\n"),
    # -- constant ----------------------------------------------------------------------
    ("constant", "n = 0\n", "line 1: `0` → `1`", "n = 1\n"),
    ("constant", "n = 5\n", "line 1: `5` → `6`", "n = 6\n"),
    ("constant", "n = 0x10\n", "line 1: `0x10` → `17`", "n = 17\n"),
    ("constant", "n = 1_000\n", "line 1: `1_000` → `1001`", "n = 1001\n"),
    ("constant", "x = 0.0\n", "line 1: `0.0` → `1.0`", "x = 1.0\n"),
    ("constant", "x = 2.5\n", "line 1: `2.5` → `5.0`", "x = 5.0\n"),
    ("constant", "x = 1e-3\n", "line 1: `1e-3` → `0.002`", "x = 0.002\n"),
    ("constant", "s = 'a'\n", "line 1: `'a'` → `'a_'`", "s = 'a_'\n"),
    ("constant", 's = "a"\n', 'line 1: `"a"` → `"a_"`', 's = "a_"\n'),
    ("constant", "s = r'\\d+'\n", "line 1: `r'\\d+'` → `r'\\d+_'`", "s = r'\\d+_'\n"),
    ("constant", "s = b'x'\n", "line 1: `b'x'` → `b'x_'`", "s = b'x_'\n"),
    ("constant", 's = """ab"""\n', 'line 1: `"""ab"""` → `"""ab_"""`', 's = """ab_"""\n'),
    # a column name is a string like any other: a wrong one is a real fault
    ("constant", "v = df['col']\n", "line 1: `'col'` → `'col_'`", "v = df['col_']\n"),
    # -- keyword -----------------------------------------------------------------------
    (
        "keyword",
        "d = f(a, how='left')\n",
        "line 1: dropped keyword `how='left'`",
        "d = f(a)\n",
    ),
    (
        "keyword",
        "d = f(a, how='left', on='k')\n",
        "line 1: dropped keyword `how='left'`",
        "d = f(a, on='k')\n",
    ),
    (
        "keyword",
        "d = f(a, how='left', on='k')\n",
        "line 1: dropped keyword `on='k'`",
        "d = f(a, how='left')\n",
    ),
    ("keyword", "d = f(how = 'left')\n", "line 1: dropped keyword `how = 'left'`", "d = f()\n"),
    (
        "keyword",
        "d = f(\n    a,\n    how='left',\n)\n",
        "line 3: dropped keyword `how='left'`",
        "d = f(\n    a,\n)\n",
    ),
    # -- statement ---------------------------------------------------------------------
    (
        "statement",
        "df = df.dropna()\n",
        "line 1: dropped statement `df = df.dropna()`",
        "pass\n",
    ),
    ("statement", "a = 1; b = 2\n", "line 1: dropped statement `a = 1`", "pass; b = 2\n"),
    ("statement", "a = 1; b = 2\n", "line 1: dropped statement `b = 2`", "a = 1; pass\n"),
    ("statement", "x: int = 1\n", "line 1: dropped statement `x: int = 1`", "pass\n"),
    ("statement", "y += 1  # why\n", "line 1: dropped statement `y += 1`", "pass  # why\n"),
    ("statement", "del x\n", "line 1: dropped statement `del x`", "pass\n"),
    ("statement", "plt.show()\n", "line 1: dropped statement `plt.show()`", "pass\n"),
    (
        "statement",
        "def f(x):\n    return x\n",
        "line 2: dropped statement `return x`",
        "def f(x):\n    pass\n",
    ),
    (
        "statement",
        "if a: b = 1\n",
        "line 1: dropped statement `b = 1`",
        "if a: pass\n",
    ),
    # -- arguments ---------------------------------------------------------------------
    ("arguments", "d = f(a, b)\n", "line 1: swapped arguments `a` ↔ `b`", "d = f(b, a)\n"),
    ("arguments", "d = f(a, b, c)\n", "line 1: swapped arguments `a` ↔ `b`", "d = f(b, a, c)\n"),
    ("arguments", "d = f(a, b, c)\n", "line 1: swapped arguments `b` ↔ `c`", "d = f(a, c, b)\n"),
    (
        "arguments",
        "d = np.where(m > 0,\n             x, y)\n",
        "line 1: swapped arguments `m > 0` ↔ `x`",
        "d = np.where(x,\n             m > 0, y)\n",
    ),
    # -- an indented fragment (a function body): indentation kept, lines its own ----------
    (
        "constant",
        "    x = 1\n    return x\n",
        "line 1: `1` → `2`",
        "    x = 2\n    return x\n",
    ),
    (
        "statement",
        "    x = 1\n    return x\n",
        "line 2: dropped statement `return x`",
        "    x = 1\n    pass\n",
    ),
]


@pytest.mark.parametrize(("operator", "code", "description", "expected"), CASES)
def test_each_operator_gives_the_expected_mutant(
    operator: str, code: str, description: str, expected: str
) -> None:
    found = {m.description: m for m in _all(code)}
    assert description in found, sorted(found)
    mutant = found[description]
    assert mutant.operator == operator
    assert mutant.code == expected
    assert mutant.line == int(description.split(":", maxsplit=1)[0].removeprefix("line "))


def test_descriptions_are_one_line_and_short() -> None:
    long_call = "result = df.groupby(['a', 'b'])\\\n    .agg({'c': 'sum', 'd': 'mean', 'e': 'max', 'f': 'min'})\n"
    (dropped,) = [m for m in _all(long_call) if m.operator == "statement"]
    quoted = dropped.description.removeprefix("line 1: dropped statement ")
    assert "\n" not in dropped.description
    assert len(quoted) == 60 + 2  # the text, cut to 60 characters, in backticks
    assert quoted.startswith("`result = df.groupby(['a', 'b'])\\ .agg(")
    assert quoted.endswith("…`")


# (reference, operator that must have no mutant of it there)
NO_SITE: list[tuple[str, str]] = [
    ('"""A docstring."""\nx = y\n', "constant"),
    ('def f():\n    """A docstring."""\n    return g()\n', "constant"),
    ('"""A docstring."""\n', "statement"),
    ("...\n", "statement"),
    ("df\n", "statement"),  # a bare name, as a notebook shows a value: no effect
    ("s = ''\n", "constant"),
    ("s = f'{x}'\n", "constant"),
    ("x: 'Frame' = y\n", "constant"),  # annotations barely run
    ("def f(x: Literal[1]) -> Literal[2]:\n    return g(x)\n", "constant"),
    ("import numpy as np\nfrom a import b\n", "statement"),
    ("def f():\n    global x\n    return\n", "statement"),
    ("x: int\n", "statement"),
    ("d = f(a, *rest, **kw)\n", "keyword"),
    ("d = f(a, a)\n", "arguments"),
    ("d = f(*a, b)\n", "arguments"),
    ("d = f(a, key=b)\n", "arguments"),
    ("y = a @ b\n", "arithmetic"),
    ("y = +a\n", "arithmetic"),
    ("ok = a & b\n", "boolean"),
]


@pytest.mark.parametrize(("code", "operator"), NO_SITE)
def test_what_an_operator_leaves_alone(code: str, operator: str) -> None:
    assert [m.description for m in _all(code) if m.operator == operator] == []


@pytest.mark.parametrize(
    "code",
    [
        "def (:\n",
        "x = = 1\n",
        "x = 1\n  y = 2\n",  # an indented line after an unindented one
        "    x = 1\n  y = 2\n",  # a fragment that dedents below its first line
        "print 'python 2'\n",
        "",  # parses, but has nothing to change
        "import numpy as np\n",
    ],
)
def test_code_without_mutants_gives_none(code: str) -> None:
    assert mutants(code) == ()
    assert mutants(code, seed=3, limit=50) == ()


# a reference with many sites of every operator
MANY = _d("""
    import numpy as np

    def g(df, cols, n=3):
        total = 0
        for i in range(1, n):
            if i % 2 == 0 and not df.empty:
                total += df[cols[i]].sum() * 2.5
            elif i > n - 1 or df.shape[0] < 10:
                total -= np.clip(df['a'], 0, i).mean()
        df = df.merge(df, how='left', on='key', sort=True)
        return df.sort_values(by=cols, ascending=False), -total

    result = g(df.copy(), ['a', 'b'], 5)
""")


@pytest.mark.parametrize("limit", [0, 1, 3, 5, 12])
def test_the_limit_is_respected(limit: int) -> None:
    chosen = mutants(MANY, limit=limit)
    assert len(chosen) == limit  # MANY has far more sites than any of these


def test_a_negative_limit_gives_none() -> None:
    assert mutants(MANY, limit=-1) == ()


def test_fewer_sites_than_the_limit_give_every_mutant() -> None:
    assert len(mutants("y = a + 1\n", limit=10)) == 3  # `+`, `1`, the statement


@pytest.mark.parametrize("seed", [0, 1, 7, 2026])
def test_the_seed_makes_the_choice_reproducible(seed: int) -> None:
    assert mutants(MANY, seed=seed) == mutants(MANY, seed=seed)
    # a larger limit extends the choice a smaller one made
    assert mutants(MANY, seed=seed, limit=8)[:3] == mutants(MANY, seed=seed, limit=3)


def test_different_seeds_choose_differently() -> None:
    choices = {tuple(m.code for m in mutants(MANY, seed=seed)) for seed in range(10)}
    assert len(choices) >= 8


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("code", [MANY, *{c for _, c, _, _ in CASES}])
def test_mutants_are_distinct_compile_and_change_the_code(code: str, seed: int) -> None:
    chosen = mutants(code, seed=seed, limit=200)
    codes = [m.code for m in chosen]
    assert len(set(codes)) == len(codes)
    assert code not in codes
    assert {m.operator for m in chosen} <= set(OPERATORS)
    fragment = code.startswith(" ")
    for m in chosen:
        # an indented fragment compiles as the function body it is
        compile("def _():\n" + m.code if fragment else m.code, "<test>", "exec")


# ten comparisons, one keyword argument, one constant (and the three statements)
SKEWED = _d("""
    ok = (a < b, a > b, a <= b, a >= b, a == b, a != b, a is b, a is not b, a in b, a not in b)
    d = f(a, how=b)
    n = 1
""")


@pytest.mark.parametrize("seed", range(20))
def test_one_operator_does_not_take_the_whole_budget(seed: int) -> None:
    chosen = mutants(SKEWED, seed=seed, limit=3)
    assert len(chosen) == 3
    # round-robin: with four operators to go round, three mutants are three operators
    # (and the ten comparisons are at most one of them)
    assert len({m.operator for m in chosen}) == 3


def test_the_diff_is_a_unified_diff_without_trailing_whitespace() -> None:
    code = "a = 1\n\nb = a < 2\n"
    (mutant,) = [m for m in _all(code) if m.operator == "comparison"]
    assert mutant.diff(code) == (
        "--- reference\n+++ mutant\n@@ -1,3 +1,3 @@\n a = 1\n\n-b = a < 2\n+b = a >= 2\n"
    )
    assert mutant.diff(mutant.code) == ""


# -- generated expressions -----------------------------------------------------------------

_LEAVES = st.one_of(
    st.sampled_from(["a", "b", "x", "True", "False", "None"]),
    st.integers(0, 20).map(str),
    st.sampled_from(["0.0", "0.5", "2.5", "1e3"]),
    st.sampled_from(["'k'", '"k"', "''"]),
)
_BINARY = ["+", "-", "*", "/", "//", "%", "**", "<", ">", "<=", ">=", "==", "!="]
_WORDS = ["and", "or", "is", "is not", "in", "not in"]


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    space = st.sampled_from(["", " "])
    symbol = st.tuples(children, space, st.sampled_from(_BINARY), space, children).map(
        lambda t: f"({''.join(t)})"
    )
    word = st.tuples(children, st.sampled_from(_WORDS), children).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})"
    )
    # a minus without parentheses, so that `not` can be glued to it (`not-a`), as it is
    # to a parenthesis or a string
    minus = children.map(lambda child: f"-{child}")
    negation = st.tuples(st.sampled_from(["not ", "not"]), st.one_of(children, minus)).map(
        lambda t: f"({t[0]}{t[1]})" if t[0] == "not " or t[1][0] in "-('\"" else f"(not {t[1]})"
    )
    return st.one_of(symbol, word, minus, negation)


_EXPRESSIONS = st.recursive(_LEAVES, _combine, max_leaves=8)


def _compile(code: str) -> None:
    # ``a is 0`` is fine syntax that compile() warns about, and pytest makes warnings errors
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        compile(code, "<generated>", "exec")


def _names(code: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Name)}


@settings(max_examples=60, deadline=None)
@given(expression=_EXPRESSIONS, seed=st.integers(0, 3))
def test_generated_expressions_give_compiling_changed_mutants(expression: str, seed: int) -> None:
    code = f"result = {expression}\nreturned = f({expression}, x, key=x)\n"
    _compile(code)
    names = _names(code)
    for m in mutants(code, seed=seed, limit=200):
        assert m.code != code
        _compile(m.code)
        # no operator makes up a name (``not-a`` → ``nota`` would)
        assert _names(m.code) <= names, m.description
