"""Hand-written fixes of BigCodeBench tasks: reviewed edits, kept as data, applied by
``harness repair`` beside the codemods.

Where a value, a dtype or a behaviour changed (no API to rewrite), BigCodeBench's
maintainers fix a task by hand, release after release (upstream's ``tools/fix_v0*.py``:
per-task edits of the solution or the test). Ours are the same edits, written as data in
``fixes.toml`` beside this module, one ``[[fix]]`` table each::

    [[fix]]
    task = "BigCodeBench/50"
    field = "canonical_solution"        # code_prompt | canonical_solution | test | prose
    old = '''exact text, found once in the field'''
    new = '''its replacement'''
    why = "what changed, and why the new text yields what the test expects"
    broke_in = "pandas 3.0.0"           # the release that broke the task
    notes = "https://…"                 # that release's notes

A task reviewed and left as it is gets an ``[[unfixed]]`` table (``task``, ``why``): why no
fix keeps its meaning, which its verdict and the changelog then give as its reason.

A fix is an exact edit: its ``old`` text must be in the field exactly once, or the fix is
refused with one line naming the file, the task and the field (the task changed since
the fix was reviewed, and a human must look again). A fix of the ``test`` field may not
change a number the test holds (an expected value, a tolerance, an input) besides the
assertion and tolerance checks every repaired test passes (``strength``): a test is
changed only where its own code uses a removed API. Then the fixed task is verified by
the same trials as a codemod's repair (``verify``).
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from harness.benchmarks.base import Fix, FixError
from harness.benchmarks.bigcodebench import load as bigcodebench
from harness.core.errors import ProblemError
from harness.core.problem import imported_modules
from harness.core.tomlfile import TomlFile

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from harness.core.problem import Problem

FIXES = Path(__file__).resolve().parent / "fixes.toml"
CODE_FIELDS = ("code_prompt", "canonical_solution", "test")
PROSE_FIELDS = ("complete_prompt", "instruct_prompt", "doc_struct")
FIELDS = CODE_FIELDS + PROSE_FIELDS
_KEYS = ("task", "field", "old", "new", "why", "broke_in", "notes")


def _header_lines(text: str) -> list[int]:
    return [n for n, line in enumerate(text.splitlines(), 1) if line.strip() == "[[fix]]"]


def load(path: Path = FIXES) -> list[Fix]:
    """The fixes of ``path``, each checked: every key given, a known field, ``old`` and
    ``new`` different, a fix of the test keeping its numbers."""
    doc = TomlFile.load(path, ProblemError)
    lines = _header_lines(doc.text)
    items = doc.data.get("fix", [])
    unknown = sorted(set(doc.data) - {"fix", "unfixed"})
    if unknown:
        raise ProblemError(doc.display, unknown[0], "unknown key ([[fix]] and [[unfixed]] tables)")
    if not isinstance(items, list):
        raise ProblemError(doc.display, "fix", "expected [[fix]] tables")
    fixes = []
    for i, item in enumerate(items):
        line = lines[i] if i < len(lines) else None
        where = f"fix[{i}]"
        if not isinstance(item, dict):
            raise ProblemError(doc.display, where, "expected a table", line=line)
        for key in _KEYS:
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise ProblemError(doc.display, f"{where}.{key}", "missing or empty", line=line)
        extra = sorted(set(item) - set(_KEYS))
        if extra:
            raise ProblemError(doc.display, f"{where}.{extra[0]}", "unknown key", line=line)
        task, field = item["task"], item["field"]
        if field not in FIELDS:
            raise ProblemError(
                doc.display, f"{task} {field}", f"not a field a fix edits ({', '.join(FIELDS)})"
            )
        if item["old"] == item["new"]:
            raise ProblemError(doc.display, f"{task} {field}", "old and new are the same text")
        fix = Fix(**{k: item[k] for k in _KEYS}, file=doc.display, line=line)
        if field == "test":
            changed = numbers_changed(fix.old, fix.new)
            if changed:
                raise FixError(
                    doc.display, f"{task} test", f"the fix changes the test's numbers: {changed}"
                )
        fixes.append(fix)
    return fixes


def load_unfixed(path: Path = FIXES) -> dict[str, str]:
    """The tasks reviewed and left as they are (``[[unfixed]]``: ``task``, ``why``): task →
    why no fix keeps its meaning, the reason the changelog gives for it."""
    doc = TomlFile.load(path, ProblemError)
    items = doc.data.get("unfixed", [])
    if not isinstance(items, list):
        raise ProblemError(doc.display, "unfixed", "expected [[unfixed]] tables")
    out = {}
    for i, item in enumerate(items):
        where = f"unfixed[{i}]"
        if not isinstance(item, dict) or set(item) != {"task", "why"}:
            raise ProblemError(doc.display, where, "expected a table of task and why")
        if not all(isinstance(v, str) and v.strip() for v in item.values()):
            raise ProblemError(doc.display, where, "task and why must be text")
        out[item["task"]] = item["why"]
    return out


def by_task(fixes: Sequence[Fix]) -> dict[str, list[Fix]]:
    out: dict[str, list[Fix]] = {}
    for fix in fixes:
        out.setdefault(fix.task, []).append(fix)
    return out


def numbers_changed(before: str, after: str) -> str:
    """The numbers ``before`` holds that ``after`` does not, or the other way round
    (tokens of either; "" when the same): an expected value or a tolerance changed."""
    old, new = Counter(_numbers(before)), Counter(_numbers(after))
    lost = [f"{n} dropped" for n in sorted(old - new)]
    gained = [f"{n} added" for n in sorted(new - old)]
    return ", ".join(lost + gained)


def _numbers(text: str) -> list[str]:
    """The number literals of ``text`` (an expression or statements, or a fragment)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return re.findall(r"(?<![\w.])\d[\d_]*(?:\.\d*)?(?:[eE][-+]?\d+)?j?", text)
    return [
        repr(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float, complex))
        and not isinstance(node.value, bool)
    ]


def edit(text: str, fix: Fix) -> str:
    """``text`` (the fix's field) with the fix applied; refused when its ``old`` text is
    not there exactly once."""
    count = text.count(fix.old)
    if count != 1:
        why = "is no longer there" if count == 0 else f"is there {count} times, not once"
        first = fix.old.strip().splitlines()[0] if fix.old.strip() else fix.old
        raise FixError(
            fix.file, f"{fix.task} {fix.field}", f"the text to replace {why}: {first[:60]!r}"
        )
    return text.replace(fix.old, fix.new)


def apply_row(row: Mapping[str, object], fixes: Sequence[Fix]) -> dict[str, object]:
    """A task's row (upstream's fields) with ``fixes`` applied."""
    out = dict(row)
    for fix in fixes:
        out[fix.field] = edit(str(out.get(fix.field, "")), fix)
    return out


def apply(problem: Problem, fixes: Sequence[Fix]) -> Problem:
    """``problem`` (a BigCodeBench task as loaded) with the fixes of its code applied:
    its reference (``code_prompt`` and ``canonical_solution``) and its context (built
    again from the fixed ``test`` and prompt). A fix of the prose is checked against the
    text the problem holds (``complete_prompt``; ``instruct_prompt`` as its prompt) and
    applied where the release is written (:func:`apply_row`)."""
    if not fixes:
        return problem
    prompt = str(problem.metadata.get("code_prompt", ""))
    split = bigcodebench.split_solution(prompt, problem.reference_code)
    tests = bigcodebench.tests_of(problem.code_context)
    if split is None or tests is None:
        first = fixes[0]
        raise FixError(first.file, first.task, "not a BigCodeBench task as loaded")
    fields: dict[str, object] = {
        "code_prompt": prompt,
        "canonical_solution": split[1],
        "test": tests,
        "complete_prompt": str(problem.metadata.get("complete_prompt", "")),
        "instruct_prompt": problem.prompt,
    }
    checked = [f for f in fixes if f.field != "doc_struct"]
    fixed = apply_row(fields, checked)
    new_prompt = str(fixed["code_prompt"])
    reference = new_prompt.rstrip("\n") + "\n" + str(fixed["canonical_solution"])
    entry = str(problem.metadata.get("entry_point") or "task_func")
    context = problem.code_context
    if fixed["test"] != tests or new_prompt != prompt:
        context = bigcodebench.context_of(str(fixed["test"]), new_prompt, entry)
    return dataclasses.replace(
        problem,
        reference_code=reference,
        code_context=context,
        # what the fixed task imports (a fix may drop a module Python no longer has)
        requires=imported_modules(new_prompt, str(fixed["test"])),
        metadata={
            **problem.metadata,
            "code_prompt": new_prompt,
            "complete_prompt": fixed["complete_prompt"],
        },
    )
