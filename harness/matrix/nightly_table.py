"""``[nightly]``: what the nightly workflow runs, checked into :class:`NightlySpec`.

Its lanes (``[nightly.lanes.<id>]``) are combos: :mod:`harness.matrix.tables` and
:mod:`harness.matrix.spec` make them with the others, and ``MatrixSpec.lanes`` holds them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from harness.core.errors import SpecError

if TYPE_CHECKING:
    from pathlib import Path

    from harness.matrix.checks import Checks

_NIGHTLY_KEYS = ("problems", "answers", "idioms", "combos", "shards", "nights", "lanes")


@dataclass(frozen=True)
class NightlySpec:
    """What the nightly workflow runs (``[nightly]``): problem sets, the models' answers
    found in a directory, and the matrix's combos to run."""

    # (): problems/ beside the matrix file, else the default (harness.core.defaults)
    problems: tuple[str, ...] = ()
    answers: Path | None = None  # a directory of <model>.jsonl; None: no models
    answers_required: bool = False  # named in the file: it must exist
    idioms: bool = True
    combos: tuple[str, ...] = ()  # ids or globs of [combos]/[axes]/[timeline]; (): all
    shards: int = 1
    nights: int = 14  # how many nights the trends look back over
    where: tuple[str, int | None] = ("matrix.toml", None)  # of ``answers``, for errors

    def answer_files(self) -> list[str]:
        """``NAME=PATH`` for every ``*.jsonl`` of the answers directory, in name order; the
        model is the file's name without ``.jsonl`` and a trailing ``-answers``."""
        folder = self.answers
        if folder is None or not folder.is_dir():
            if folder is not None and self.answers_required:
                file, line = self.where
                raise SpecError(file, "nightly.answers", f"{folder}: no such directory", line=line)
            return []
        return [
            f"{path.name.removesuffix('.jsonl').removesuffix('-answers')}={path}"
            for path in sorted(folder.glob("*.jsonl"))
        ]


def nightly(checks: Checks, table: dict[str, Any], base: Path) -> NightlySpec:
    """``[nightly]`` but its lanes; a wrong key is kept as a mistake and left at its
    default, so the keys after it are still checked."""
    for key in table:
        if key not in _NIGHTLY_KEYS:
            checks.record(
                checks.unknown_key(
                    key, _NIGHTLY_KEYS, ("nightly", key), "[nightly]", libraries=False
                )
            )
    out = NightlySpec(answers=base / "answers")
    if "problems" in table:
        problems = checks.attempt(checks.nonempty, table["problems"], *_at("problems"))
        out = replace(out, problems=problems or out.problems)
    if "answers" in table:
        folder = checks.attempt(checks.string, table["answers"], *_at("answers"))
        if folder is not None:
            where = (checks.doc.display, checks.doc.line_of("nightly", "answers"))
            out = replace(out, answers=base / folder, answers_required=True, where=where)
    if "idioms" in table:
        idioms = checks.attempt(checks.boolean, table["idioms"], *_at("idioms"))
        out = replace(out, idioms=out.idioms if idioms is None else idioms)
    if "combos" in table:
        combos = checks.attempt(checks.strings, table["combos"], *_at("combos"))
        out = replace(out, combos=combos or out.combos)
    if "shards" in table:
        shards = checks.attempt(checks.positive, table["shards"], *_at("shards"))
        out = replace(out, shards=shards or out.shards)
    if "nights" in table:
        nights = checks.attempt(checks.positive, table["nights"], *_at("nights"))
        out = replace(out, nights=nights or out.nights)
    return out


def _at(key: str) -> tuple[tuple[str, ...], str]:
    """The keys of ``[nightly]``'s ``key`` and how messages name it."""
    return ("nightly", key), f"nightly.{key}"
