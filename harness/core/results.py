"""Outcomes of executions, and the JSON Lines files they are streamed into.

One :class:`Outcome` per (combo, problem, solution source) execution, one JSON line
each in ``results/<run-id>/<combo>.jsonl`` (the layout is :mod:`harness.execute.rundir`'s).
Lines are appended and flushed as they arrive, so a run killed midway keeps
everything it finished.
"""

from __future__ import annotations

import datetime as dt
import enum
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from harness.envside import protocol

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from pathlib import Path
    from types import TracebackType

SCHEMA_VERSION = 1


class Status(str, enum.Enum):
    """How an execution ended: the statuses the protocol declares (what each means is
    said there), one member each."""

    PASS = protocol.PASS
    FAIL = protocol.FAIL
    ERROR = protocol.ERROR
    TIMEOUT = protocol.TIMEOUT
    CRASH = protocol.CRASH
    SKIPPED = protocol.SKIPPED
    ENV_ERROR = protocol.ENV_ERROR

    def __str__(self) -> str:
        return self.value

    @property
    def is_failure(self) -> bool:
        return self in (Status.FAIL, Status.ERROR, Status.TIMEOUT, Status.CRASH)


SOLUTION_CODE = "<solution>"  # the env side's name for the code of the solution itself


@dataclass(frozen=True)
class CapturedWarning:
    category: str  # e.g. "FutureWarning" or "pandas.errors.Pandas4Warning"
    message: str
    module: str  # the module that issued it, e.g. "pandas.core.frame"
    # the code the warning points at (its stack level's frame): "<solution>" for the
    # solution's own code, "<context>" for the problem's, else a module, e.g.
    # "pandas.core.dtypes.cast"; "" where the run did not record it
    origin: str = ""

    @property
    def library(self) -> str:
        return self.module.split(".", 1)[0]

    @property
    def solutions_own(self) -> bool:
        """Whether the solution's own code is what the warning is about: it points there,
        or, where the run did not record where it points, the solution's code issued it
        (a warning from inside a library about what the library itself calls is the
        environment's, whoever called the library)."""
        return (self.origin or self.module) == SOLUTION_CODE


@dataclass(frozen=True)
class Part:
    """One graded piece of an execution: a unit test of a BigCodeBench task, a step of a
    CIBench session. The execution's status is the verdict over all of them."""

    name: str
    status: str  # one of protocol.PART_STATUSES
    message: str = ""
    exc_type: str = ""  # of a failed or erroring part: "AssertionError", "urllib.error.URLError"


@dataclass(frozen=True)
class Outcome:
    run_id: str
    combo: str
    problem_id: str
    source: str  # "reference" or "model:<name>"
    status: Status
    library: str = ""
    exc_type: str | None = None
    message: str = ""
    duration_s: float = 0.0
    warnings: tuple[CapturedWarning, ...] = ()
    versions: Mapping[str, str] = field(default_factory=dict)
    python: str = ""
    seq: int = 0  # position of the execution in the combo's batch
    attempt: int = 0  # with --repeat N: 0 .. N-1
    traceback: str = ""  # the last frames, for failures
    output: str = ""  # captured stdout/stderr (head and tail), for failures
    # how the execution ran where that was not the usual way, e.g. a model answer that
    # could not be run apart from its check
    note: str = ""
    # "in-process" for an untrusted answer whose tests could not be run apart from it
    # (they share something with it that cannot cross the boundary): graded as upstream
    # grades it, tests beside the answer, so its verdict is the answer's own report
    graded: str = ""
    parts: tuple[Part, ...] = ()
    # of an answer graded across the boundary: the digests of the values it sent the
    # check, by label (``harness.envside.bridge.guard``: a variable's name, ``module:name``,
    # ``<figures>``, ``<calls>``; ``?why`` where none could be taken); equal digests,
    # equal values (``harness audit``'s likely equivalent mutants). An older file's one
    # digest of everything reads as ``{"": digest}``.
    crossed: Mapping[str, str] = field(default_factory=dict)
    # with --guard-record: what admitting the solution's values used (the allowlist's data)
    transport: Mapping[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, str, int]:
        return (self.combo, self.problem_id, self.source, self.attempt)

    @property
    def first_line(self) -> str:
        """``ExcType: first line of the message``, the one-line form reports show."""
        text = self.message.strip().splitlines()[0] if self.message.strip() else ""
        if self.exc_type:
            return f"{self.exc_type}: {text}" if text else self.exc_type
        return text

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        data["versions"] = dict(self.versions)
        data["transport"] = dict(self.transport)
        data["crossed"] = dict(self.crossed)
        for key in ("traceback", "output", "note", "graded", "parts", "crossed", "transport"):
            if not data[key]:
                del data[key]
        for part in data.get("parts", ()):
            if not part["exc_type"]:
                del part["exc_type"]  # a passing part: its line as before the field
        for warning in data["warnings"]:
            if not warning["origin"]:
                del warning["origin"]  # not recorded: the line as before the field
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcome:
        return cls(
            run_id=str(data["run_id"]),
            combo=str(data["combo"]),
            problem_id=str(data["problem_id"]),
            source=str(data["source"]),
            status=Status(data["status"]),
            library=str(data.get("library", "")),
            exc_type=data.get("exc_type"),
            message=str(data.get("message", "")),
            duration_s=float(data.get("duration_s", 0.0)),
            warnings=tuple(CapturedWarning(**w) for w in data.get("warnings", ())),
            versions=dict(data.get("versions", {})),
            python=str(data.get("python", "")),
            seq=int(data.get("seq", 0)),
            attempt=int(data.get("attempt", 0)),
            traceback=str(data.get("traceback", "")),
            output=str(data.get("output", "")),
            note=str(data.get("note", "")),
            graded=str(data.get("graded", "")),
            crossed=read_crossed(data.get("crossed")),
            parts=tuple(
                Part(
                    str(p["name"]),
                    str(p["status"]),
                    str(p.get("message", "")),
                    str(p.get("exc_type", "")),
                )
                for p in data.get("parts", ())
            ),
            transport=dict(data.get("transport", {})),
        )


def read_crossed(value: Any) -> dict[str, str]:
    """An outcome's ``crossed`` as a file holds it: label → digest; an older file's one
    string, the digest of everything the answer sent, as ``{"": digest}``."""
    if isinstance(value, str):
        return {"": value} if value else {}
    if isinstance(value, Mapping):
        return {str(k): str(v) for k, v in value.items()}
    return {}


def new_run_id(now: dt.datetime | None = None) -> str:
    """A sortable, path-safe id such as ``20261129-113005``."""
    moment = now or dt.datetime.now(dt.timezone.utc)
    return moment.strftime("%Y%m%d-%H%M%S")


class OutcomeWriter:
    """Appends outcomes as JSON lines, flushed one by one."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file: TextIO = path.open("a", encoding="utf-8")

    def write(self, outcome: Outcome) -> None:
        self._file.write(json.dumps(outcome.to_dict(), sort_keys=True) + "\n")
        self._file.flush()

    def write_all(self, outcomes: Iterable[Outcome]) -> None:
        for outcome in outcomes:
            self.write(outcome)

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> OutcomeWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def read_outcomes(path: Path) -> tuple[list[Outcome], int]:
    """Outcomes in ``path`` and the number of unreadable lines (a line cut by a kill)."""
    outcomes: list[Outcome] = []
    bad = 0
    if not path.exists():
        return outcomes, bad
    for line in _lines(path):
        try:
            outcomes.append(Outcome.from_dict(json.loads(line)))
        except (ValueError, KeyError, TypeError):
            bad += 1
    return outcomes, bad


def repair_outcomes(path: Path) -> tuple[list[Outcome], int]:
    """The readable outcomes of ``path``, first occurrence of each; the file is rewritten
    without the rest (the line a kill cut in half) when there is any. Returns the
    outcomes kept and the number of lines dropped."""
    if not path.exists():
        return [], 0
    kept: dict[tuple[str, str, str, int], Outcome] = {}
    lines: list[str] = []
    dropped = 0
    for line in _lines(path):
        try:
            outcome = Outcome.from_dict(json.loads(line))
        except (ValueError, KeyError, TypeError):
            dropped += 1
            continue
        if outcome.key in kept:
            dropped += 1
            continue
        kept[outcome.key] = outcome
        lines.append(line if line.endswith("\n") else line + "\n")
    text = path.read_text(encoding="utf-8", errors="replace")
    if dropped or (text and not text.endswith("\n")):
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text("".join(lines), encoding="utf-8")
        tmp.replace(path)
    return list(kept.values()), dropped


def _lines(path: Path) -> Iterator[str]:
    with path.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.strip():
                yield line


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` atomically: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)
