"""A repaired BigCodeBench release: every field of a repaired task, and its changelog.

A task is more than its solution: its ``code_prompt`` (the signature, defaults included),
its ``canonical_solution``, its ``test``, and the prose that names the API
(``complete_prompt``'s docstring, ``instruct_prompt``, ``doc_struct``). The repair's code
gives the first three; the prose follows the code by the words the codemods replaced
(``'M'`` → ``'ME'``, ``applymap`` → ``map``), found by comparing the code's tokens before
and after, so that a docstring never names an API the code no longer uses.

The changelog is in the style of upstream's release notes: one entry per task, what
changed, why, and which release broke it; the tasks left as they were say why.
"""

from __future__ import annotations

import ast
import difflib
import io
import json
import re
import tokenize
from typing import TYPE_CHECKING, Any

from harness.analysis.repairs import CONDITIONED
from harness.benchmarks.base import ReleaseWriter
from harness.benchmarks.bigcodebench import fixes
from harness.benchmarks.bigcodebench import load as bigcodebench
from harness.core.problem import imported_modules
from harness.labs.repair.codemods import FOR_SOLUTIONS, apply
from harness.labs.repair.pandas_freq import frequency_parameters

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from harness.analysis.repairs import Row
    from harness.benchmarks.base import Fix, RepairedFile
    from harness.core.findings import Finding
    from harness.labs.repair.plan import Proposal

_WORDS = (tokenize.NAME, tokenize.STRING)


def _tokens(code: str) -> list[tokenize.TokenInfo]:
    try:
        return [
            t
            for t in tokenize.generate_tokens(io.StringIO(code).readline)
            if t.type in (*_WORDS, tokenize.OP, tokenize.NUMBER)
        ]
    except (tokenize.TokenError, SyntaxError):
        return []


def renamed_words(before: str, after: str) -> dict[str, str]:
    """The names and string literals the rewrite of ``before`` into ``after`` replaced one
    for one (``applymap`` → ``map``, ``'M'`` → ``'ME'``), where each was always replaced
    by the same word; a string literal replaced by an expression (``'M'`` →
    ``pd.offsets.MonthEnd()``, a portable rewrite) maps to the expression's text."""
    old, new = _tokens(before), _tokens(after)
    keys = [(t.type, t.string) for t in old], [(t.type, t.string) for t in new]
    pairs: dict[str, set[str]] = {}
    matcher = difflib.SequenceMatcher(None, *keys, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace":
            continue
        if i2 - i1 == 1 and j2 - j1 > 1 and old[i1].type == tokenize.STRING:
            text = _expression(after, new, j1, j2)
            if text is not None:
                pairs.setdefault(old[i1].string, set()).add(text)
            continue
        if i2 - i1 != j2 - j1:
            continue
        for a, b in zip(old[i1:i2], new[j1:j2], strict=True):
            if a.type == b.type and a.type in _WORDS and a.string != b.string:
                pairs.setdefault(a.string, set()).add(b.string)
    return {a: next(iter(b)) for a, b in pairs.items() if len(b) == 1}


def _expression(
    code: str, tokens: Sequence[tokenize.TokenInfo], start: int, end: int
) -> str | None:
    """The text of ``tokens[start:end]`` in ``code`` when it is one expression, else of
    the shortest longer run that is (the matcher may leave a closing parenthesis for
    the next block: ``pd.offsets.MonthEnd(`` and then ``)``); None when none is."""
    lines = code.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def at(position: tuple[int, int]) -> int:
        return offsets[position[0] - 1] + position[1]

    for stop in range(end, min(end + 3, len(tokens)) + 1):
        text = code[at(tokens[start].start) : at(tokens[stop - 1].end)]
        try:
            ast.parse(text, mode="eval")
        except SyntaxError:
            continue
        return text
    return None


def _prose(text: str, words: Mapping[str, str]) -> str:
    """``text`` with each replaced word replaced: a name as a whole word, a string
    literal in either quotes (by the expression that replaced it, in its own quotes)."""
    for old, new in words.items():
        if old.isidentifier():
            text = re.sub(rf"\b{re.escape(old)}\b", new, text)
            continue
        value, new_value = _literal(old), _literal(new)
        if value is None:
            continue
        if new_value is None:  # an expression: where the code's quotes are
            text = text.replace(old, new)
            continue
        for quote in ("'", '"'):
            text = text.replace(f"{quote}{value}{quote}", f"{quote}{new_value}{quote}")
    return text


def _typed(text: str, words: Mapping[str, str], code: str) -> str:
    """``text`` with a frequency parameter documented as ``freq (str)`` documented as
    ``freq (str or pd.DateOffset)``, when the repair passes offsets where strings were
    (the portable form of the period-end aliases)."""
    if not any(".offsets." in new for new in words.values()):
        return text
    for name in sorted(frequency_parameters(code)):
        text = text.replace(f"{name} (str)", f"{name} (str or pd.DateOffset)")
    return text


def _literal(token: str) -> str | None:
    match = re.fullmatch(r"""(['"])([^'"\\]*)\1""", token)
    return match.group(2) if match else None


def _with_prompt(text: str, old_prompt: str, new_prompt: str) -> str:
    """``text`` (a prompt that quotes the task's code) with the lines of ``old_prompt``
    that the repair changed, inserted or dropped changed alike (blank lines aside)."""
    old = [line for line in old_prompt.splitlines() if line.strip()]
    new = [line for line in new_prompt.splitlines() if line.strip()]
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        added = "\n".join(new[j1:j2])
        if op == "replace" and i2 - i1 == j2 - j1:
            for a, b in zip(old[i1:i2], new[j1:j2], strict=True):
                text = text.replace(a, b, 1)
        elif op == "insert" and i1 > 0:
            text = text.replace(old[i1 - 1], old[i1 - 1] + "\n" + added, 1)
        elif op == "insert" and i1 < len(old):
            text = text.replace(old[i1], added + "\n" + old[i1], 1)
        elif op == "delete":
            for line in old[i1:i2]:
                text = text.replace(line + "\n", "", 1)
    return text


def _libs(libs: object, old_prompt: str, new_prompt: str) -> object:
    """``libs`` (upstream's list, written as its text) with the libraries the repaired
    prompt imports that the original did not, and without those the original imported
    that the repaired one no longer does (a module Python dropped, and its import)."""
    old, new = set(imported_modules(old_prompt)), set(imported_modules(new_prompt))
    added, dropped = sorted(new - old), old - new
    if not (added or dropped) or not isinstance(libs, str):
        return libs
    try:
        names = ast.literal_eval(libs)
    except (ValueError, SyntaxError):
        return libs
    if not isinstance(names, list):
        return libs
    kept = [n for n in names if n not in dropped]
    return str([*kept, *(a for a in added if a not in kept)])


def task_fields(row: Mapping[str, object], proposal: Proposal) -> dict[str, object]:
    """The fields of the repaired task ``row`` (upstream's keys only): the prompt, the
    solution and the tests of ``proposal``'s code, and the prose made to agree."""
    original = row
    # the hand fixes first (their prose too); the codemods' words are read after them
    row = fixes.apply_row(row, proposal.fixes)
    prompt = str(row.get("code_prompt", ""))
    split = bigcodebench.split_solution(prompt, proposal.new_reference)
    if split is None:
        return {}
    fields: dict[str, object] = {}
    new_prompt, solution = split
    old_tests = str(row.get("test", ""))
    tests = bigcodebench.tests_of(proposal.new_context) or old_tests
    before = prompt.rstrip("\n") + "\n" + str(row.get("canonical_solution", ""))
    words = renamed_words(before + "\n" + old_tests, proposal.new_reference + "\n" + tests)
    prompt = str(original.get("code_prompt", ""))
    if new_prompt != prompt:
        fields["code_prompt"] = new_prompt
    if solution != original.get("canonical_solution"):
        fields["canonical_solution"] = solution
    if tests != original.get("test", ""):
        fields["test"] = tests
    complete = str(row.get("complete_prompt", ""))
    in_code = [n for n in proposal.codemods if n in FOR_SOLUTIONS]
    rewritten = apply(complete, in_code, portable=proposal.portable).source
    code = proposal.new_reference
    new_complete = _typed(_prose(_with_prompt(rewritten, prompt, new_prompt), words), words, code)
    if new_complete != original.get("complete_prompt", ""):
        fields["complete_prompt"] = new_complete
    instruct = _prose(_with_prompt(str(row.get("instruct_prompt", "")), prompt, new_prompt), words)
    instruct = _typed(instruct, words, code)
    if instruct != original.get("instruct_prompt", ""):
        fields["instruct_prompt"] = instruct
    libs = _libs(row.get("libs"), prompt, new_prompt)
    if libs != original.get("libs"):
        fields["libs"] = libs
    doc = row.get("doc_struct")
    new_doc = _typed(_prose(doc, words), words, code) if isinstance(doc, str) else None
    if new_doc is not None and new_doc != original.get("doc_struct"):
        json.loads(new_doc)  # still the JSON it was
        fields["doc_struct"] = new_doc
    return fields


def broke_in(row: Row, finding: Finding | None, versions: Mapping[str, Mapping[str, str]]) -> str:
    """Which release broke a task: the bisected one, else the combos it broke between."""
    if finding is not None and finding.library and finding.first_bad:
        return f"{finding.library} {finding.first_bad} (harness bisect)"
    last_good, _, rest = row.broke.partition(" → ")
    first_bad = rest.partition(":")[0]
    moved = [
        f"{lib} {old} → {versions[first_bad].get(lib)}"
        for lib, old in sorted(versions.get(last_good, {}).items())
        if versions.get(first_bad, {}).get(lib) not in (None, old)
    ]
    shown = f" ({', '.join(moved)})" if moved else ""
    return f"between the combos {last_good} and {first_bad}{shown}"


def changelog(
    set_name: str,
    rows: Sequence[Row],
    changed: Mapping[str, Sequence[str]],
    findings: Mapping[str, Finding],
    versions: Mapping[str, Mapping[str, str]],
    portable: Mapping[str, Sequence[str]] | None = None,
    hand: Mapping[str, Sequence[Fix]] | None = None,
) -> str:
    """The release's changelog: each repaired task (``changed``: native id → the fields
    rewritten), what changed (``portable``: problem id → the codemods written in their
    portable form), why, which release broke it, where it holds; a task fixed by hand
    (``hand``: native id → its reviewed fixes) says so, each fix with its reason, the
    release that broke it and that release's notes; then the drifted tasks left as they
    were, a line each with the reason."""
    lines = [f"# {set_name}: repaired release", ""]
    left = []
    for row in rows:
        native = row.problem_id.partition("/")[2] or row.problem_id
        why = row.broke.partition(": ")[2] or row.broke
        when = broke_in(row, findings.get(row.problem_id), versions)
        if native not in changed:
            reason = row.reason or "no repair"
            left.append(f"- {native} ({row.verdict}): {reason}. Broke {when}.")
            continue
        passes = ", ".join(c for c, s in row.repaired.items() if s == "pass") or "none"
        fields = ", ".join(f"`{f}`" for f in changed[native])
        if row.verdict == CONDITIONED:
            # the row holds the new API: a signature cannot hold both defaults
            holds = (
                f"  {row.verdict}: as written it holds from the release the split names"
                f" ({row.reason}); the code with one branch per range (its diff) passes"
                f" in {passes}."
            )
        else:
            holds = f"  {row.verdict}: passes in {passes}" + (
                f" ({row.reason})." if row.reason else "."
            )
        forms = [
            f"{n} (its portable form: it runs before the new API too)"
            if n in (portable or {}).get(row.problem_id, ())
            else n
            for n in row.codemods
        ]
        own = (hand or {}).get(native, ())
        if own:
            by = ", ".join(forms)
            lines += [
                f"- **{native}** (hand-fixed): {fields} rewritten by hand"
                + (f", then by {by}." if by else "."),
                *(f"  `{f.field}`: {f.why}. Broke in: {f.broke_in} ({f.notes})." for f in own),
                f"  Failed with: `{why}`, {when}.",
                holds,
            ]
            continue
        lines += [
            f"- **{native}**: {fields} rewritten by {', '.join(forms)}.",
            f"  Why: `{why}`. Broke in: {when}.",
            holds,
        ]
    if left:
        lines += ["", "## Not repaired", "", *left]
    return "\n".join(lines) + "\n"


def split_reference(prompt: str, reference: str) -> tuple[str, str] | None:
    """``reference`` (a task's prompt and solution, joined) split after the line that
    ends ``prompt`` (its ``def``): :func:`bigcodebench.split_solution`."""
    return bigcodebench.split_solution(prompt, reference)


def _repaired_code(row: Mapping[str, Any], repaired: RepairedFile) -> dict[str, object]:
    """A task's repaired ``code_prompt`` and ``canonical_solution``: the reference was the
    two joined, and is split again at the prompt's ``def`` line. A task whose tests were
    rewritten keeps its row (its tests are kept in the context as text: the diff in
    ``diffs/`` shows the change)."""
    native = str(row.get("task_id"))
    code = repaired.code.get(native)
    problem = repaired.problems.get(native)
    if code is None or problem is None or code[1] != problem.code_context:
        return {}
    split = split_reference(str(row.get("code_prompt", "")), code[0])
    if split is None:
        return {}
    return {"code_prompt": split[0], "canonical_solution": split[1]}


def fields(
    row: Mapping[str, Any], _number: int, repaired: RepairedFile, changed: dict[str, list[str]]
) -> dict[str, object]:
    """A task's new fields: its validity, and every field its repair reaches
    (:func:`task_fields`, the repaired API's code even where the verdict is
    version-conditioned: its validity says from which release it holds); ``changed``
    collects each task's rewritten fields."""
    native = str(row.get("task_id"))
    out: dict[str, object] = {}
    if native in repaired.validity:
        out["validity"] = repaired.validity[native]
    if native in repaired.proposals:
        task = task_fields(row, repaired.proposals[native])
        out.update(task)
        if task:
            changed[native] = list(task)
    elif native in repaired.code:
        out.update(_repaired_code(row, repaired))
    return out


WRITER = ReleaseWriter(bigcodebench.matches, fields, changelog)
