"""What ``harness repair`` writes under ``results/<run-id>/repairs/``.

    plan.json                 every proposal: what broke, the codemods, the code after
    diffs/<problem>.diff      one unified diff per repaired problem (reference and context)
    <dataset file>            the DS-1000 or BigCodeBench input file with the repaired rows
                              rewritten, under the input's own name, so its problem ids stay
                              the same (``--problems results/<run-id>/repairs/ds1000.jsonl``)
    verification.json, .md    the verification table (harness.labs.repair.table)

Each row of a repaired dataset carries its validity (DS-1000: ``metadata.validity``): the
original reference's range per library (as ``validity.json`` has it) and, for a
repaired row, the repair's verdict and the combos where the repaired reference passed.

A dataset is written for JSONL inputs of a benchmark that declares a release writer
(DS-1000's and BigCodeBench's ``release``); our TOML
problems are rewritten in place only on request (:func:`rewrite_toml_in_place`).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.analysis import repairs as table
from harness.analysis.drift import trajectories
from harness.analysis.validity import validities
from harness.benchmarks import registry
from harness.benchmarks.base import RepairedFile
from harness.core.errors import ProblemError
from harness.core.jsonl import read_rows
from harness.core.results import write_json
from harness.core.tomlfile import TomlFile
from harness.labs.repair.codemods import apply, diff
from harness.problems import downloads
from harness.problems.sets import set_name_of

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from harness.analysis.repairs import RepairTable
    from harness.benchmarks.base import Fix, ReleaseWriter
    from harness.core.problem import Problem
    from harness.execute.rundir import RunDir
    from harness.labs.repair.plan import Proposal, RepairPlan


@dataclass(frozen=True)
class Written:
    """The files one ``harness repair`` wrote."""

    diffs: tuple[Path, ...]
    datasets: tuple[Path, ...]  # repaired copies of the run's JSONL inputs
    in_place: tuple[Path, ...] = ()  # problem files rewritten in place


def repairs_dir(run: RunDir) -> Path:
    return run.repairs


def diff_name(problem_id: str) -> str:
    """A file name for a problem id: ``ds1000/151`` → ``ds1000-151.diff``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", problem_id).strip("-") + ".diff"


def _tests_of(context: str) -> str | None:
    """The tests a context was built from, where a benchmark builds its contexts so."""
    return next(
        (
            tests
            for b in registry.benchmarks()
            if b.repairs is not None and (tests := b.repairs.tests_of(context)) is not None
        ),
        None,
    )


def writers() -> list[ReleaseWriter]:
    """Each benchmark's release writer, loaded from where its declaration names it."""
    found = []
    for benchmark in registry.benchmarks():
        if benchmark.release:
            module, _, attribute = benchmark.release.partition(":")
            found.append(getattr(importlib.import_module(module), attribute))
    return found


def writer_of(row: dict[str, Any]) -> ReleaseWriter | None:
    return next((w for w in writers() if w.matches(row)), None)


def problem_diff(p: Proposal) -> str:
    """The reference's and the context's diffs, one after the other (a BigCodeBench
    task's context as its ``test`` field: the context holds it as one string)."""
    tests = _tests_of(p.context), _tests_of(p.new_context)
    if tests[0] is not None and tests[1] is not None:
        return diff(p.reference, p.new_reference, f"{p.problem_id}/reference_code") + diff(
            tests[0], tests[1], f"{p.problem_id}/test"
        )
    return diff(p.reference, p.new_reference, f"{p.problem_id}/reference_code") + diff(
        p.context, p.new_context, f"{p.problem_id}/code_context"
    )


def write(
    run: RunDir,
    plan: RepairPlan,
    verified: RepairTable,
    inputs: Sequence[str],
    problems: Sequence[Problem],
) -> Written:
    """Write the plan, the diffs, the table and the repaired datasets of ``run`` (inputs:
    its problem locations as the manifest records them).

    A problem's diff and dataset row carry its version-conditioned reference when that is
    its verdict; the dataset holds the repairs verified (or, unverified, all proposals).
    """
    root = repairs_dir(run)
    root.mkdir(parents=True, exist_ok=True)
    write_json(root / "plan.json", [p.to_dict() for p in plan.proposals])
    write_json(root / "verification.json", verified.to_dict())
    rows = {r.problem_id: r for r in verified.rows}
    final = {}
    for p in plan.proposed:
        row = rows.get(p.problem_id)
        if row is None or row.verdict not in _KEPT:
            continue
        final[p.problem_id] = (
            row.conditioned or p.new_reference,
            row.conditioned_context or p.new_context,
        )
    diffs = root / "diffs"
    if diffs.is_dir():  # a rerun's diffs replace the last ones
        for old in diffs.glob("*.diff"):
            old.unlink()
    written = []
    for p in plan.proposed:
        row = rows.get(p.problem_id)
        shown = p
        if row is not None and row.conditioned:
            shown = dataclasses.replace(
                p,
                new_reference=row.conditioned,
                new_context=row.conditioned_context or p.new_context,
            )
        path = diffs / diff_name(p.problem_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(problem_diff(shown), encoding="utf-8")
        written.append(path)
    validity = {
        v.problem_id: v.to_dict()
        for v in validities(trajectories(run.read_all(), plan.order), run.read_analysis())
    }
    proposals = {p.problem_id: p for p in plan.proposals}
    for pid, row in rows.items():
        if pid in validity and row.verdict in _KEPT:
            validity[pid]["repair"] = repair_record(row, proposals.get(pid))
    kept = {p.problem_id: p for p in plan.proposed if p.problem_id in final}
    datasets = []
    for location in inputs:
        changed: dict[str, list[str]] = {}
        d = write_dataset(location, final, problems, root, validity, kept, changed)
        if d is None:
            continue
        datasets.append(d)
        first = next(iter(read_rows(d)), None)
        writer = writer_of(first[1]) if first is not None else None
        if writer is not None and writer.changelog is not None:
            _write_changelog(writer, run, plan, verified, d, changed)
    return Written(tuple(written), tuple(datasets))


def _write_changelog(
    writer: ReleaseWriter,
    run: RunDir,
    plan: RepairPlan,
    verified: RepairTable,
    dataset: Path,
    changed: dict[str, list[str]],
) -> Path:
    """``<set>.changelog.md`` beside a repaired file whose benchmark writes one."""
    assert writer.changelog is not None
    set_name = dataset.name.removesuffix(".jsonl")
    versions = {
        c: {**e.library_versions(), "python": e.python}
        for c, e in run.read_envs(plan.order).items()
    }
    findings = {pid: f for (pid, source), f in run.read_analysis().items() if source == "reference"}
    ours = [r for r in verified.rows if r.problem_id.startswith(set_name + "/")]
    portable = {p.problem_id: p.portable for p in plan.proposals if p.portable}
    fixes = {
        p.problem_id.partition("/")[2]: p.fixes
        for p in plan.proposals
        if p.fixes and p.problem_id.startswith(set_name + "/")
    }
    text = writer.changelog(set_name, ours, changed, findings, versions, portable, fixes)
    path = dataset.with_name(f"{set_name}.changelog.md")
    path.write_text(text, encoding="utf-8")
    return path


def repair_record(row: table.Row, proposal: Proposal | None) -> dict[str, object]:
    """A repaired problem's ``validity.repair``: the verdict, where it passes, by what
    (``hand fix``, ``codemods`` or both) and, for a version-conditioned one, its split;
    a hand-fixed one lists each fix with its field, why, the release and its notes."""
    fixes = proposal.fixes if proposal is not None else ()
    by = [*(["hand fix"] if fixes else []), *(["codemods"] if row.codemods else [])]
    return {
        "verdict": row.verdict,
        "by": " and ".join(by),
        "passes_in": [c for c, s in row.repaired.items() if s == "pass"],
        **({"split": row.reason} if row.verdict == table.CONDITIONED else {}),
        # a reviewed edit by hand, and why (the benchmark's fixes.toml)
        **({"hand_fixed": [_hand(f) for f in fixes]} if fixes else {}),
    }


def _hand(fix: Fix) -> dict[str, str]:
    """A hand fix as the release's ``validity`` records it."""
    return {"field": fix.field, "why": fix.why, "broke_in": fix.broke_in, "notes": fix.notes}


# the verdicts whose code goes into the repaired dataset
_KEPT = (table.VERIFIED, table.CONDITIONED, table.UNVERIFIED)


def write_dataset(
    location: str,
    code: Mapping[str, tuple[str, str]],
    problems: Sequence[Problem],
    root: Path,
    validity: Mapping[str, Mapping[str, object]] | None = None,
    proposals: Mapping[str, Proposal] | None = None,
    changed: dict[str, list[str]] | None = None,
) -> Path | None:
    """A copy of the JSONL file at ``location`` with the rows of ``code`` (problem id →
    (reference, context)) rewritten by its benchmark's release writer (DS-1000's,
    BigCodeBench's: ``Benchmark.release``), as ``root/<its set name>.jsonl``; None when no
    benchmark writes its rows back or none of its rows is repaired. ``validity`` (problem
    id → its record) goes into each row; a task of ``proposals`` (problem id → its
    proposal) gets every field its repair reaches; ``changed`` collects each task's
    rewritten fields."""
    path = downloads.resolve(location)
    if not path.is_file() or not path.name.endswith((".jsonl", ".jsonl.gz")):
        return None
    set_name = set_name_of(path)
    ours = {p.native_id: p for p in problems if p.set_name == set_name}
    by_native = {n: code[p.id] for n, p in ours.items() if p.id in code}
    releases = {n: proposals[p.id] for n, p in ours.items() if proposals and p.id in proposals}
    ranges = {n: validity[p.id] for n, p in ours.items() if validity and p.id in validity}
    if not by_native:
        return None
    repaired = RepairedFile(location, by_native, ranges, releases, ours)
    lines = []
    for number, row in read_rows(path, location):
        writer = writer_of(row)
        if writer is None:
            return None  # another format: its rows are not fields we can write back
        fields = writer.fields(row, number, repaired, {} if changed is None else changed)
        lines.append(json.dumps({**row, **fields}, ensure_ascii=False))
    # plain JSONL under the set's own name, so the problem ids are the original ones
    out = root / f"{set_name}.jsonl"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


_TOML_CODE_KEYS = ("reference", "context", "setup", "check")


def rewrite_toml_in_place(
    plan: RepairPlan, verified: RepairTable, problems: Sequence[Problem]
) -> list[Path]:
    """Rewrite our TOML problems' code in place with the codemods of each proposal that
    verification kept (a version-conditioned one gets its conditioned reference).

    Each code value is replaced where its text occurs once in the file (a TOML string
    written as a literal block, as ours are); a value that cannot be located so is
    left alone, and the file is not touched when none can be.
    """
    by_id = {p.id: p for p in problems}
    rows = {r.problem_id: r for r in verified.rows}
    changed = []
    for proposal in plan.proposed:
        problem = by_id.get(proposal.problem_id)
        row = rows.get(proposal.problem_id)
        if problem is None or row is None or row.verdict not in _KEPT:
            continue
        if not problem.source_file.endswith(".toml"):
            continue
        path = Path(problem.source_file)
        doc = TomlFile.load(path, ProblemError)
        text = path.read_text(encoding="utf-8")
        new_text = text
        for key in _TOML_CODE_KEYS:
            value = doc.data.get(key)
            if not isinstance(value, str) or new_text.count(value) != 1:
                continue
            if key == "reference" and row.conditioned:
                rewritten = row.conditioned
            elif row.conditioned_context:
                continue  # a compact problem's context is built from setup and check
            else:
                rewritten = apply(value, proposal.codemods).source
            if "'''" in rewritten:
                continue  # it would end the literal block it is written in
            new_text = new_text.replace(value, rewritten)
        if new_text != text:
            path.write_text(new_text, encoding="utf-8")
            changed.append(path)
    return changed
