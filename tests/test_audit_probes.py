"""The audit's probes (harness/audit/probes.py): per problem, as its benchmark declares."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from harness.audit import probes
from harness.core.errors import RunFileError
from harness.core.problem import Problem

if TYPE_CHECKING:
    from pathlib import Path


def problem(pid: str = "ds1000/1", metadata: dict[str, str] | None = None) -> Problem:
    return Problem(
        id=pid,
        native_id=pid.rsplit("/", maxsplit=1)[-1],
        set_name="ds1000",
        library="pandas",
        prompt="",
        reference_code="result = df[df.a > 3].groupby('b', sort=False).sum()\n",
        code_context="import pandas as pd\n",
        metadata=metadata or {},
    )


def test_a_problems_probes_are_nulls_mutants_and_the_reference() -> None:
    found = probes.probes_of(problem(), limit=3)
    names = [p.name for p in found]
    assert names == [
        "null-pass",
        "null-none",
        "null-input",
        "null-empty",
        "mutant-1",
        "mutant-2",
        "mutant-3",
        "reference-copy",
    ]
    assert [p.kind for p in found][::3] == ["null", "null", "mutant"]
    assert all(p.source == "model:" + p.name for p in found)  # answers, never references
    assert found[-1].code == problem().reference_code
    mutant = found[4]
    assert mutant.operator and mutant.description.startswith("line 1:")
    assert mutant.diff.startswith("--- reference\n+++ mutant\n")


def test_mutants_are_seeded_per_problem() -> None:
    one = [p.code for p in probes.probes_of(problem(), limit=5, seed=0)]
    assert one == [p.code for p in probes.probes_of(problem(), limit=5, seed=0)]
    assert one != [p.code for p in probes.probes_of(problem(), limit=5, seed=1)]
    # the same reference under another id draws other mutants
    other = [p.code for p in probes.probes_of(problem("ds1000/2"), limit=5, seed=0)]
    assert one[:4] == other[:4]
    assert one != other


def test_copies_come_later_and_twice_when_asked() -> None:
    assert [p.name for p in probes.probes_of(problem(), limit=1, copy=False)][-1] == "mutant-1"
    assert [(p.name, p.code) for p in probes.copies([problem()])] == [
        ("reference-copy", problem().reference_code),
        ("reference-copy-2", problem().reference_code),
    ]


def test_a_benchmark_without_an_audit_has_no_probes() -> None:
    assert probes.probes_of(problem(metadata={"format": "exeds"})) == ()


def test_probes_round_trip(tmp_path: Path) -> None:
    made = probes.build([problem(), problem("ds1000/2")], limit=2)
    path = tmp_path / "audit-probes.jsonl"
    probes.write(path, made)
    assert probes.read(path) == made


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("{", "not JSON"),
        ("[]", "a probe is a JSON object"),
        ('{"problem_id": "a", "name": "b"}', "not a probe: no code"),
        ('{"problem_id": "a", "name": 3, "code": ""}', "not a probe: name is not a string"),
    ],
)
def test_a_bad_probes_line_is_one_error_naming_it(tmp_path: Path, line: str, said: str) -> None:
    path = tmp_path / "audit-probes.jsonl"
    path.write_text(json.dumps({"problem_id": "a", "name": "b", "code": "c"}) + "\n" + line + "\n")
    with pytest.raises(RunFileError) as caught:
        probes.read(path)
    assert str(caught.value).startswith(f"{path}:2: {said}")
