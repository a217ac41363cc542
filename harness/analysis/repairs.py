"""The verification table of a run's repairs: one row per drifted problem, and its verdict.

Verdicts:

* ``verified`` — the repaired reference passes in every combo where the original passed
  and in every combo where it drifted; the problem kept its meaning and its check did
  not get weaker (harness.labs.repair.verify says how each is measured);
* ``version-conditioned`` — no single code passes everywhere; one reference per validity
  range, chosen by the installed version, passes in every one of those combos;
* ``needs-human`` — with the reason (no codemod applies, the repair fails somewhere, the
  check changed its verdict on a model answer…);
* ``unverified`` — a proposal not run (``harness repair --no-verify``).

Written as ``repairs/verification.json`` (read back by the reports) and ``.md``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.core.errors import RunFileError
from harness.core.jsonfields import Fields

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

VERIFIED = "verified"
CONDITIONED = "version-conditioned"
NEEDS_HUMAN = "needs-human"
UNVERIFIED = "unverified"
VERDICTS = (VERIFIED, CONDITIONED, NEEDS_HUMAN, UNVERIFIED)


@dataclass(frozen=True)
class Row:
    """One drifted problem's repair and what verifying it found."""

    problem_id: str
    verdict: str
    reason: str = ""  # why a human is needed, or how a version-conditioned one is split
    codemods: tuple[str, ...] = ()
    broke: str = ""  # "last_good → first_bad: error"
    required: tuple[str, ...] = ()  # combos where the repaired reference must pass
    original: Mapping[str, str] = field(default_factory=dict)  # combo → status
    repaired: Mapping[str, str] = field(default_factory=dict)
    meaning: str = ""  # kept | context unchanged | changed: … | "" (not checked)
    answers_kept: int = 0  # model answers whose verdict in the baseline is unchanged
    answers_changed: tuple[str, ...] = ()  # "model:m: pass → fail"
    conditioned: str = ""  # the version-conditioned reference, when that is the verdict
    conditioned_context: str = ""  # and its context, when the context needed one too
    hand_fixed: tuple[str, ...] = ()  # the fields a reviewed hand fix edited (before codemods)

    def to_dict(self) -> dict[str, Any]:
        return {
            "problem_id": self.problem_id,
            "verdict": self.verdict,
            "reason": self.reason,
            "codemods": list(self.codemods),
            "broke": self.broke,
            "required": list(self.required),
            "original": dict(self.original),
            "repaired": dict(self.repaired),
            "meaning": self.meaning,
            "answers_kept": self.answers_kept,
            "answers_changed": list(self.answers_changed),
            "conditioned": self.conditioned,
            "conditioned_context": self.conditioned_context,
            "hand_fixed": list(self.hand_fixed),
        }

    @classmethod
    def from_dict(cls, data: object, file: str, where: str) -> Row:
        given = Fields(data, file, where)
        verdict = given.text("verdict", "")
        if verdict not in VERDICTS:
            raise RunFileError(file, f"{where}.verdict", f"not one of {', '.join(VERDICTS)}")
        return cls(
            problem_id=given.text("problem_id", ""),
            verdict=verdict,
            reason=given.text("reason", ""),
            codemods=given.texts("codemods"),
            broke=given.text("broke", ""),
            required=given.texts("required"),
            original=_statuses(given, "original"),
            repaired=_statuses(given, "repaired"),
            meaning=given.text("meaning", ""),
            answers_kept=given.integer("answers_kept", 0),
            answers_changed=given.texts("answers_changed"),
            conditioned=given.text("conditioned", ""),
            conditioned_context=given.text("conditioned_context", ""),
            hand_fixed=given.texts("hand_fixed"),
        )


def _statuses(given: Fields, key: str) -> dict[str, str]:
    table = given.table(key)
    if table is None:
        return {}
    return {str(k): str(v) for k, v in table.data.items()}


@dataclass(frozen=True)
class ModelRow:
    """One model's stale answers, and how many of them a codemod made pass again."""

    model: str
    candidates: int  # answers that pass somewhere and meet a later combo (the stale rate's)
    stale: int
    rewritten: int  # stale answers some codemod changed
    api_stale: int  # rewritten ones that pass where the original first failed
    revived: tuple[str, ...] = ()  # the problems of those API-stale answers
    # the API changes the model missed most: codemod → API-stale answers it revived
    missed: tuple[tuple[str, int], ...] = ()

    @property
    def stale_rate(self) -> float | None:
        return self.stale / self.candidates if self.candidates else None

    @property
    def api_stale_rate(self) -> float | None:
        return self.api_stale / self.candidates if self.candidates else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "candidates": self.candidates,
            "stale": self.stale,
            "rewritten": self.rewritten,
            "api_stale": self.api_stale,
            "stale_rate": self.stale_rate,
            "api_stale_rate": self.api_stale_rate,
            "revived": list(self.revived),
            "missed": dict(self.missed),
        }

    @classmethod
    def from_dict(cls, data: object, file: str, where: str) -> ModelRow:
        given = Fields(data, file, where)
        return cls(
            model=given.text("model", ""),
            candidates=given.integer("candidates", 0),
            stale=given.integer("stale", 0),
            rewritten=given.integer("rewritten", 0),
            api_stale=given.integer("api_stale", 0),
            revived=given.texts("revived"),
            missed=_counts(given.data.get("missed", {}), file, f"{where}.missed"),
        )


def _counts(data: object, file: str, where: str) -> tuple[tuple[str, int], ...]:
    """A JSON object of counts, as (name, count) pairs in its order."""
    if not isinstance(data, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in data.values()
    ):
        raise RunFileError(file, where, "expected an object of counts")
    return tuple((str(k), v) for k, v in data.items())


@dataclass(frozen=True)
class RepairTable:
    run_id: str
    baseline: str
    order: tuple[str, ...]  # the run's combos in era order
    rows: tuple[Row, ...]
    models: tuple[ModelRow, ...] = ()  # stale model answers, rewritten by the codemods

    def counts(self) -> Counter[str]:
        return Counter(r.verdict for r in self.rows)

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "baseline": self.baseline,
            "order": list(self.order),
            "counts": {v: self.counts().get(v, 0) for v in VERDICTS},
            "rows": [r.to_dict() for r in self.rows],
            "models": [m.to_dict() for m in self.models],
        }

    @classmethod
    def from_dict(cls, data: object, file: str) -> RepairTable:
        given = Fields(data, file)
        rows = given.data.get("rows", [])
        models = given.data.get("models", [])
        for key, value in (("rows", rows), ("models", models)):
            if not isinstance(value, list):
                raise RunFileError(file, key, "expected a list")
        return cls(
            run_id=given.text("run_id", ""),
            baseline=given.text("baseline", ""),
            order=given.texts("order"),
            rows=tuple(Row.from_dict(r, file, f"rows[{i}]") for i, r in enumerate(rows)),
            models=tuple(ModelRow.from_dict(m, file, f"models[{i}]") for i, m in enumerate(models)),
        )


def read(path: Path) -> RepairTable | None:
    """The table at ``path``; None when there is none (the run was never repaired)."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunFileError(str(path), None, f"cannot read: {exc}") from None
    return RepairTable.from_dict(data, str(path))
