"""BigCodeBench's sanitising of a raw completion, as its ``bigcodebench.sanitize`` does it.

Upstream parses with tree-sitter; this does the same steps on Python's own syntax tree,
which sees the same code once the first step has kept only what parses:

1. **the longest piece that parses**: of every run of two or more consecutive lines, the
   one with the most non-blank lines that is valid Python (the first such run where
   several tie), or the first line when none is;
2. **what the entry point needs**: the imports, then the top-level classes, functions and
   simple assignments the entry point reaches through the names it uses (each name's
   first definition only; decorated definitions, other statements and ``if __name__``
   blocks are dropped, as upstream's tree walk drops them);
3. **no call of the entry point at the end**: top-level lines after the last indented one
   that name the entry point go (a ``print(task_func(...))`` left by the model).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

# What upstream keeps of a module's top level, by the kind of statement.
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, MemoryError, ValueError):  # ValueError: a NUL byte
        return False
    return True


def code_extract(text: str) -> str:
    """The longest run of two or more consecutive lines of ``text`` that parses, by its
    count of non-blank lines; the earliest of equal ones; the first line if none parses.

    Upstream tries every (start, end) pair in order and keeps a pair only when it beats
    the best so far. For a fixed start a longer run never has fewer non-blank lines, so
    the best run from a start is found from the longest end down, and a start whose lines
    to the end cannot beat the best is skipped: the same pair, in far fewer parses."""
    lines = text.split("\n")
    filled = [1 if line.strip() else 0 for line in lines]
    suffix = [0] * (len(lines) + 1)
    for i in range(len(lines) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + filled[i]
    best, best_count = (0, 0), 0
    for start in range(len(lines)):
        if suffix[start] <= best_count:
            continue
        found = None
        for end in range(len(lines) - 1, start, -1):
            count = suffix[start] - suffix[end + 1]
            if count <= best_count:
                break
            if _parses("\n".join(lines[start : end + 1])):
                found = end
                break
        if found is None:
            continue
        # Upstream met the shortest such run first: the one that ends at its last
        # non-blank line (blank lines after it change neither the count nor whether
        # it parses), and is two lines long at least.
        last = max(i for i in range(start, found + 1) if filled[i])
        best, best_count = (start, max(start + 1, last)), suffix[start] - suffix[found + 1]
    return "\n".join(lines[best[0] : best[1] + 1])


def _names(node: ast.AST) -> Iterator[str]:
    """Every identifier in ``node``, as a tree-sitter walk sees them: names, attribute
    names, parameters, keywords, the names of definitions and imports."""
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            yield child.id
        elif isinstance(child, ast.Attribute):
            yield child.attr
        elif isinstance(child, (ast.arg, ast.keyword)) and child.arg:
            yield child.arg
        elif isinstance(child, _DEFINITIONS):
            yield child.name
        elif isinstance(child, ast.alias):
            yield from (child.asname or child.name).split(".")
        elif isinstance(child, (ast.Global, ast.Nonlocal)):
            yield from child.names
        elif isinstance(child, ast.ExceptHandler) and child.name:
            yield child.name


def _assigned_name(node: ast.Assign | ast.AnnAssign) -> str | None:
    """The name tree-sitter's walk gives an assignment: the first identifier among its
    direct parts (the target, else the value: ``x.y = z`` is named ``z``)."""
    parts: list[ast.expr] = (
        [*node.targets, node.value] if isinstance(node, ast.Assign) else [node.target]
    )
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        parts.append(node.value)
    return next((p.id for p in parts if isinstance(p, ast.Name)), None)


def _segment(code: str, node: ast.stmt) -> str:
    return ast.get_source_segment(code, node) or ""


def _reachable(entrypoint: str, deps: dict[str | None, set[str]]) -> set[str]:
    queue, seen = [entrypoint], {entrypoint}
    while queue:
        for name in sorted(deps.get(queue.pop(0), set())):
            if name not in seen:
                seen.add(name)
                queue.append(name)
    return seen


def sanitize(code: str, entrypoint: str) -> str:
    """``code`` as BigCodeBench's ``sanitize(code, entrypoint)`` leaves it."""
    code = code_extract(code.strip())
    try:
        tree = ast.parse(code)
    except SyntaxError:  # only the single first line can fail here
        return code
    imports: list[str] = []
    definitions: list[tuple[str | None, ast.stmt]] = []
    seen: set[str | None] = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(_segment(code, node))
            continue
        if isinstance(node, _DEFINITIONS):
            if node.decorator_list:
                continue  # tree-sitter's decorated_definition: not a definition to it
            name: str | None = node.name
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            name = _assigned_name(node)
        else:
            continue
        if name not in seen:
            definitions.append((name, node))
            seen.add(name)
    deps = {name: set(_names(node)) for name, node in definitions}
    reachable = _reachable(entrypoint, deps)
    kept = [*imports, *(_segment(code, n) for name, n in definitions if name in reachable)]
    sanitized = "\n".join(kept)
    lines = sanitized.splitlines()
    trailing = []
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith(" "):
            break
        if entrypoint in lines[i]:
            trailing.append(i)
    return "\n".join(lines[: trailing[-1]]) if trailing else sanitized
