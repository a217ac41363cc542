"""Null answers: answers shaped as a benchmark's are that do none of the work. Tests that
pass one do not tell a right answer from a wrong one (``harness audit``).

Two shapes cover the benchmarks shipped, and a benchmark's ``audit.py`` picks one:

- :func:`snippet`: code that leaves its result in a variable (DS-1000's and our
  problems' ``result``), inserted into the problem's program where its inputs are set;
- :func:`function`: a module defining the function the tests call (BigCodeBench's
  ``task_func``, GitChameleon's named function).

Each gives name → code, in a fixed order: ``pass`` (nothing at all), ``none`` (the result
is None), ``input`` (the first input handed back unchanged) and ``empty`` (the
reference's result emptied: an empty value of its type). A null that cannot be built for
a problem (no input to return, no function of that name) is left out; a snippet whose
reference makes no ``result`` (it draws a figure, changes an object in place) has
``pass`` alone. A function's empty body is its ``pass``: it returns None. These are answers
like any other: graded as untrusted code, across the boundary.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import re
import textwrap
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Collection

# Appended to the reference by the ``empty`` null: its result, emptied. Where emptying
# leaves it as it was (the right answer is 0, False, an empty frame), the null is no null,
# and says so by raising: a failing null proves nothing either way, a passing one would
# blame the tests for an answer that is right.
_EMPTIED = """
def _harness_emptied(value):
    for make in (lambda: type(value)(), lambda: value[:0]):
        try:
            empty = make()
        except Exception:
            continue
        if type(empty) is type(value) and repr(empty) == repr(value):
            break
        return empty
    raise ValueError("harness audit: the reference's own result is already empty")
"""


def snippet(
    reference: str, result: str = "result", provided: Collection[str] = ()
) -> dict[str, str]:
    """The null answers of a snippet that leaves its result in ``result``, indented as
    the reference is (DS-1000 inserts some into a function's body, whose last line may
    return the result). ``provided``: names the problem's program gives the snippet that
    are not its input (modules it imported)."""
    code = [line for line in reference.splitlines() if line.strip() and not _comment(line)]
    if not code:
        return {}
    indent = code[0][: len(code[0]) - len(code[0].lstrip())]

    def indented(text: str) -> str:
        return textwrap.indent(text, indent) + "\n"

    body, returned = _split_return(reference, indent)
    if not returned and _assigns(_dedent(reference, indent), result) is False:
        # what it makes is not ``result`` (a figure drawn, an object changed in place):
        # doing nothing is its one null answer
        return {"pass": indented("pass")}
    nulls = {"pass": indented("pass"), "none": indented(f"{result} = None")}
    given = first_input(_dedent(reference, indent), provided)
    if given is not None and given != result:
        nulls["input"] = indented(f"{result} = {given}")
    emptied = returned or result
    ending = (
        f"return _harness_emptied({emptied})"
        if returned
        else f"{result} = _harness_emptied({result})"
    )
    nulls["empty"] = body.rstrip() + "\n" + indented(_EMPTIED + ending)
    return nulls


def nothing(reference: str) -> dict[str, str]:
    """The one null answer of a snippet whose result its program makes itself: nothing,
    indented as the reference is."""
    code = [line for line in reference.splitlines() if line.strip() and not _comment(line)]
    indent = code[0][: len(code[0]) - len(code[0].lstrip())] if code else ""
    return {"pass": indent + "pass\n"}


def _assigns(code: str, name: str) -> bool | None:
    """Whether ``code`` binds ``name`` or assigns into it (``df["a"] = …``, ``df.x = …``)
    anywhere; None where it does not parse."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if not isinstance(getattr(node, "ctx", None), ast.Store):
            continue
        target = node
        while isinstance(target, (ast.Subscript, ast.Attribute)):
            target = target.value
        if isinstance(target, ast.Name) and target.id == name:
            return True
    return False


def _comment(line: str) -> bool:
    return line.lstrip().startswith("#")


def _dedent(code: str, indent: str) -> str:
    """``code`` with ``indent`` taken off each line (comments may sit further left)."""
    return "\n".join(
        line[len(indent) :] if line.startswith(indent) else line.lstrip()
        for line in code.splitlines()
    )


def _split_return(reference: str, indent: str) -> tuple[str, str]:
    """A snippet that ends in ``return X`` (a function's body), as what comes before it
    and ``X``; else the snippet and ""."""
    code = _dedent(reference, indent)
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return reference, ""
    last = tree.body[-1] if tree.body else None
    if not isinstance(last, ast.Return) or last.value is None or last.end_lineno is None:
        return reference, ""
    value = ast.get_source_segment(code, last.value) or ""
    if last.end_lineno != last.lineno or not value:
        return reference, ""
    return "\n".join(reference.splitlines()[: last.lineno - 1]), value


def imported_names(code: str) -> set[str]:
    """The names ``import`` statements anywhere in ``code`` bind, also in code held in its
    strings (DS-1000's program imports its libraries in a string it runs)."""
    texts = [code]
    with contextlib.suppress(SyntaxError):  # strings as they run: our setups are reprs
        texts += [
            n.value
            for n in ast.walk(ast.parse(code))
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        ]
    names: set[str] = set()
    for match in (m for text in texts for m in _IMPORTS.finditer(text)):
        plain, alias, listed = match.group("plain"), match.group("alias"), match.group("listed")
        if alias:
            names.add(alias)
        elif plain:
            names.add(plain.split(".")[0])
        elif listed:
            for part in listed.strip("() ").split(","):
                words = part.split()
                if words:
                    names.add(words[-1])
    return names


_IMPORTS = re.compile(
    r"^[ \t]*(?:import[ \t]+(?P<plain>[\w.]+)(?:[ \t]+as[ \t]+(?P<alias>\w+))?"
    r"|from[ \t]+[\w.]+[ \t]+import[ \t]+(?P<listed>\([^)]*\)|[^\n#]+))",
    re.MULTILINE,
)


def function(reference: str, name: str) -> dict[str, str]:
    """The null answers of a module that defines the function ``name`` (else its last
    function): the reference with that function's body replaced, or its result emptied."""
    try:
        tree = ast.parse(reference)
    except SyntaxError:
        return {}
    defined = [
        node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    named = [node for node in defined if node.name == name] or defined
    if not named or named[-1].end_lineno is None:
        return {}
    target = named[-1]
    lines = reference.splitlines()
    body = target.body
    if len(body) > 1 and _is_docstring(body[0]):
        body = body[1:]  # keep its docstring: only what it does goes
    decorated = getattr(body[0], "decorator_list", [])
    start, end = min([body[0].lineno, *(d.lineno for d in decorated)]), target.end_lineno
    indent = lines[start - 1][: len(lines[start - 1]) - len(lines[start - 1].lstrip())]

    def with_body(statement: str) -> str:
        return "\n".join([*lines[: start - 1], indent + statement, *lines[end:]]) + "\n"

    nulls = {"pass": with_body("pass")}  # an empty body: it returns None
    parameters = [a.arg for a in (*target.args.posonlyargs, *target.args.args)]
    parameters = [p for p in parameters if p not in ("self", "cls")]
    if parameters:
        nulls["input"] = with_body(f"return {parameters[0]}")
    # the reference as it is, then the name rebound to a function that empties its result
    nulls["empty"] = (
        reference.rstrip()
        + "\n\n_harness_reference = "
        + target.name
        + "\n"
        + _EMPTIED
        + f"\n\ndef {target.name}(*args, **kwargs):\n"
        + "    return _harness_emptied(_harness_reference(*args, **kwargs))\n"
    )
    return nulls


def first_input(code: str, provided: Collection[str] = ()) -> str | None:
    """The first name ``code`` reads before it assigns it, that it neither imports nor
    defines and Python does not provide: the problem's input (``df`` in
    ``result = df.groupby("a").sum()``); None where there is none, or it does not parse."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    local: set[str] = {*dir(builtins), *provided}
    stored: dict[str, int] = {}
    read: list[tuple[int, int, str]] = []
    for node in _outside_definitions(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            local.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            local.add(node.name)
        elif isinstance(node, ast.comprehension):
            local.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                stored[node.id] = min(stored.get(node.id, node.lineno), node.lineno)
            else:
                read.append((node.lineno, node.col_offset, node.id))
    for line, _col, name in sorted(read):
        # read on the line that first assigns it: `df = df.fillna(0)` reads it first
        if name not in local and (name not in stored or stored[name] >= line):
            return name
    return None


def _outside_definitions(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` outside the bodies of its functions, lambdas and classes
    (their parameters and locals are theirs; their names and defaults are the module's)."""
    found: list[ast.AST] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        found.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.extend([*node.args.defaults, *(d for d in node.args.kw_defaults if d)])
            todo.extend(getattr(node, "decorator_list", ()))
        elif isinstance(node, ast.ClassDef):
            todo.extend([*node.bases, *node.decorator_list])
        else:
            todo.extend(ast.iter_child_nodes(node))
    return found


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )
