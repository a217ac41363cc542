"""Which deprecated or removed APIs a model reaches for, and what that says of when its
knowledge stops — from every answer, not only the few whose outcome changes with the date.

Each answer is joined with the catalogue of API changes (``harness/data/catalogue.toml``)
in three ways, each evidence of its own, and each about the answer's own code:

* **uses** — its code uses the old API (the entry's pattern, on its syntax tree:
  ``staleness.code_text``);
* **warned** — an execution of it raised a ``DeprecationWarning`` or ``FutureWarning``
  naming the old API (or matching the entry's ``warning``) that points at the answer's
  own code (``CapturedWarning.solutions_own``). One raised from inside a library — pandas
  calling ``numpy.find_common_type`` for it — is the environment's: it is kept apart
  (**environment**), reported under the combo's warnings, never counted against the model;
* **failed** — it uses the old API and failed, for an API's reason (removed, changed
  signature or behaviour), in a combo whose library has already removed it;

and, where the new API is recent enough to say something (the entry's ``introduced``),
**knows** — its code uses the new API.

Dating (``harness.analysis.dating``): every answer that meets a change with a dated new
API is evidence — it shows the change (uses the new API) or not (uses the old one). The
knowledge date is a lower bound, the newest change shown, and an upper one only where
the answers show, beyond chance, that the newer changes they met were not known; per
model, and per problem set (what each set can tell).
"""

from __future__ import annotations

import builtins
import datetime as dt
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from harness.analysis import dating
from harness.analysis.causes import Cause, diagnose
from harness.analysis.dating import Dating, Evidence
from harness.analysis.staleness import code_text, old_apis_in
from harness.core.libraries import lookup
from harness.core.problem import MODEL_PREFIX
from harness.core.results import Status
from harness.matrix.release_dates import day_of

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from harness.analysis.staleness import Entry
    from harness.core.problem import Solution
    from harness.core.results import CapturedWarning, Outcome

_API_CAUSES = (Cause.REMOVED_API, Cause.CHANGED_SIGNATURE, Cause.CHANGED_BEHAVIOUR)
_DEPRECATION = re.compile(r"Deprecat|FutureWarning")
_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_BUILTIN_NAMES = frozenset(dir(builtins))
# modules other than the library's own that issue its deprecations
_ISSUERS = {"tensorflow": ("keras", "tf_keras")}


@dataclass(frozen=True)
class ApiUse:
    """One API change of the catalogue, as one model's answers meet it (problem ids)."""

    library: str
    old: str
    new: str
    deprecated: str | None
    removed: str | None
    introduced: str | None
    uses: tuple[str, ...] = ()  # answers whose code uses the old API
    warned: tuple[str, ...] = ()  # answers whose execution warned about it
    failed: tuple[str, ...] = ()  # answers that failed where it was already removed
    knows: tuple[str, ...] = ()  # answers whose code uses the new API
    # answers whose runs warned about it from inside a library only: the environment's
    environment: tuple[str, ...] = ()

    @property
    def stale(self) -> tuple[str, ...]:
        """Answers that reach for the old API, by any evidence."""
        return tuple(sorted({*self.uses, *self.warned, *self.failed}))

    def to_dict(self) -> dict[str, Any]:
        return {
            "library": self.library,
            "old": self.old,
            "new": self.new,
            "deprecated": self.deprecated,
            "removed": self.removed,
            "introduced": self.introduced,
            "uses": list(self.uses),
            "warned": list(self.warned),
            "failed": list(self.failed),
            "knows": list(self.knows),
            "environment": list(self.environment),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ApiUse:
        return cls(
            str(data["library"]),
            str(data["old"]),
            str(data["new"]),
            data.get("deprecated"),
            data.get("removed"),
            data.get("introduced"),
            *(
                tuple(str(p) for p in data.get(k, ()))
                for k in ("uses", "warned", "failed", "knows", "environment")
            ),
        )


@dataclass(frozen=True)
class ModelApis:
    """What one model's answers say of the APIs it knows."""

    model: str
    answers: int
    apis: tuple[ApiUse, ...]  # the changes its answers met, most stale uses first
    newest: str = ""  # the newest API change it knows: "pandas 2.2.0: frequency aliases …"
    newest_day: dt.date | None = None
    dating: Dating = field(default_factory=Dating)  # when its knowledge stops, all answers
    # the same, per problem set (what each set's answers can tell), by set name
    sets: Mapping[str, Dating] = field(default_factory=dict)
    stale_answers: tuple[str, ...] = field(default=())  # answers using any old API

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "answers": self.answers,
            "apis": [a.to_dict() for a in self.apis],
            "newest": self.newest,
            "newest_day": self.newest_day.isoformat() if self.newest_day else None,
            "dating": self.dating.to_dict(),
            "sets": {name: d.to_dict() for name, d in self.sets.items()},
            "stale_answers": list(self.stale_answers),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelApis:
        """The inverse of :meth:`to_dict`; a summary written before the knowledge date
        was censored has no ``dating``: it reads as undated."""
        newest_day = data.get("newest_day")
        return cls(
            model=str(data["model"]),
            answers=int(data["answers"]),
            apis=tuple(ApiUse.from_dict(a) for a in data.get("apis", ())),
            newest=str(data.get("newest", "")),
            newest_day=dt.date.fromisoformat(str(newest_day)) if newest_day else None,
            dating=Dating.from_dict(data.get("dating") or {}),
            sets={str(k): Dating.from_dict(v) for k, v in dict(data.get("sets", {})).items()},
            stale_answers=tuple(str(p) for p in data.get("stale_answers", ())),
        )


def _alternatives(entry: Entry) -> list[list[str]]:
    """Per alternative of ``entry``'s old API (``numpy.product / numpy.cumproduct``), the
    names a warning about it uses, all of them: the function's or attribute's last dotted
    part, and the keywords it names (``fillna(method=)``: ``fillna`` and ``method``); a
    class's keyword alone (``OneHotEncoder(sparse=)``: ``sparse``), as its library's
    messages name it."""
    found = []
    for part in entry.old.split(" / "):
        head = part.split("(")[0].strip()
        keywords = re.findall(r"\b(\w+)=", part)
        names = []
        if _PATH.fullmatch(head) and not (keywords and head.split(".")[-1][:1].isupper()):
            names.append(head.split(".")[-1])
        names += keywords
        names = [n for n in dict.fromkeys(names) if _SYMBOL.fullmatch(n) and len(n) > 2]
        if names:
            found.append(names)
    return found


def _named(name: str, message: str) -> bool:
    """Whether ``message`` names ``name``; a builtin's name (``float``, ``object``) only
    as an attribute (``np.object``, not ``dtype=object``)."""
    before = r"\." if name in _BUILTIN_NAMES else r"\b"
    return re.search(rf"{before}{re.escape(name)}\b", message) is not None


def _issued_by(warning: CapturedWarning, entry: Entry) -> bool:
    """Whether the entry's library (or the code that ran) issued ``warning``: a message of
    one library is not about another's API."""
    if warning.module.startswith("<"):
        return True  # issued by the program's code (a library's C code warning there)
    library = lookup(entry.library)
    if library is None:
        return True
    return warning.library in {library.module, *_ISSUERS.get(library.key, ())}


def _about(warning: CapturedWarning, entry: Entry) -> bool:
    """Whether ``warning`` is a deprecation about ``entry``'s old API."""
    if not _DEPRECATION.search(warning.category) or not _issued_by(warning, entry):
        return False
    if entry.warning is not None:
        return bool(entry.warning.search(warning.message))
    return any(all(_named(n, warning.message) for n in names) for names in _alternatives(entry))


def _removed_there(outcome: Outcome, entry: Entry) -> bool:
    if entry.removed is None:
        return False
    have = outcome.versions.get(entry.library)
    try:
        return have is not None and Version(have) >= Version(entry.removed)
    except InvalidVersion:
        return False


def _failed_of(outcome: Outcome, entry: Entry) -> bool:
    if outcome.status not in (Status.FAIL, Status.ERROR) or not _removed_there(outcome, entry):
        return False
    found = diagnose(outcome)
    return found is not None and found.cause in _API_CAUSES


def _evidence(api: ApiUse, dates: Mapping[str, Mapping[str, dt.date]]) -> list[Evidence]:
    """The answers that meet ``api``'s change, where its new API is dated: each shows it
    (uses the new API) or not (reaches for the old one)."""
    day = day_of(dates, api.library, api.introduced) if api.introduced else None
    if day is None:
        return []
    change = f"{api.library} {api.introduced}: {api.new}"
    knows = set(api.knows)
    return [
        Evidence(p, change, day, p in knows)
        for p in sorted({*api.knows, *api.uses, *api.warned, *api.failed})
    ]


def problem_set(problem_id: str) -> str:
    """``ds1000/12`` → ``ds1000``: the set a problem id names (ids are ``set/native``)."""
    return problem_id.split("/", 1)[0] if "/" in problem_id else ""


def measure(
    model: str,
    solutions: Sequence[Solution],
    outcomes: Sequence[Outcome],
    catalogue: Sequence[Entry],
    dates: Mapping[str, Mapping[str, dt.date]],
) -> ModelApis:
    """What ``model``'s answers (``solutions``, run as ``outcomes``) say of its APIs."""
    source = MODEL_PREFIX + model
    mine = [s for s in solutions if s.source == source]
    runs: dict[str, list[Outcome]] = {}
    for o in outcomes:
        if o.source == source:
            runs.setdefault(o.problem_id, []).append(o)
    # each answer's code as its syntax tree gives it, and its old APIs, found once
    texts = {s.problem_id: code_text(s.code) for s in mine}
    used = {p: {id(e) for e in old_apis_in(text, catalogue)} for p, text in texts.items()}
    apis = []
    for entry in catalogue:
        uses, warned, failed, knows, environment = [], [], [], [], []
        for s in mine:
            old = id(entry) in used[s.problem_id]
            if old:
                uses.append(s.problem_id)
            if entry.new_pattern is not None and entry.new_pattern.search(texts[s.problem_id]):
                knows.append(s.problem_id)
            ran = runs.get(s.problem_id, [])
            about = [w for o in ran for w in o.warnings if _about(w, entry)]
            if any(w.solutions_own for w in about):
                warned.append(s.problem_id)
            elif about:
                environment.append(s.problem_id)
            if old and any(_failed_of(o, entry) for o in ran):
                failed.append(s.problem_id)
        if uses or warned or failed or knows or environment:
            apis.append(
                ApiUse(
                    entry.library, entry.old, entry.new, entry.deprecated, entry.removed,
                    entry.introduced, tuple(uses), tuple(warned), tuple(failed), tuple(knows),
                    tuple(environment),
                )
            )  # fmt: skip
    apis.sort(key=lambda a: (-len(a.stale), a.library, a.old))
    evidence = [e for a in apis for e in _evidence(a, dates)]
    known = [
        (day, f"{a.library} {a.introduced}: {a.new}")
        for a in apis
        if a.knows and a.introduced and (day := day_of(dates, a.library, a.introduced))
    ]
    newest_day, newest = max(known) if known else (None, "")
    sets = sorted({problem_set(s.problem_id) for s in mine})
    by_set = {
        name: dating.date(
            [e for e in evidence if problem_set(e.problem) == name],
            sum(1 for s in mine if problem_set(s.problem_id) == name),
        )
        for name in sets
    }
    stale = tuple(sorted({p for a in apis for p in a.stale}))
    return ModelApis(
        model, len(mine), tuple(apis), newest, newest_day,
        dating.date(evidence, len(mine)), by_set, stale,
    )  # fmt: skip


def models(
    solutions: Sequence[Solution],
    outcomes: Sequence[Outcome],
    catalogue: Sequence[Entry],
    dates: Mapping[str, Mapping[str, dt.date]],
) -> list[ModelApis]:
    """One :class:`ModelApis` per model of ``solutions``, in name order."""
    names = sorted(
        {
            s.source.removeprefix(MODEL_PREFIX)
            for s in solutions
            if s.source.startswith(MODEL_PREFIX)
        }
    )
    return [measure(m, solutions, outcomes, catalogue, dates) for m in names]
