"""Where each idiom of our problems holds: the old idiom against the change its problem
names, and the release where the modern idiom (the reference) starts passing.

Every problem of ours is built around one API change (its ``[change]`` table) and runs
twice per combo: its reference (the modern idiom) and ``idiom:old``. Read along the era
order, a red cell means one of two things, and a :class:`IdiomStory` says which in words:

* red in ``idiom:old`` after green ones: drift — the change broke the old idiom there;
* red in ``reference`` before its first green one: the modern API did not exist yet in
  that release — not drift.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from harness.analysis.causes import Cause, diagnose
from harness.analysis.drift import DriftClass, natural_key
from harness.core.problem import IDIOM_PREFIX, REFERENCE
from harness.core.results import Status

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from harness.analysis.drift import Trajectory
    from harness.core.findings import Finding
    from harness.core.problem import Problem
    from harness.core.results import Outcome

OLD = IDIOM_PREFIX + "old"
_DRIFTING = (DriftClass.DRIFTED, DriftClass.VERSION_SENSITIVE)
_NOT_RUN = (Status.SKIPPED, Status.ENV_ERROR)


@dataclass(frozen=True)
class ChangeNote:
    """What one problem of ours says about its API change (its ``[change]`` table)."""

    problem_id: str
    library: str
    kind: str
    old_api: str
    new_api: str
    deprecated: str | None = None
    changed: str | None = None

    @classmethod
    def of(cls, problem: Problem) -> ChangeNote | None:
        c = problem.change
        if c is None:
            return None
        return cls(
            problem.id, problem.library, c.kind, c.old_api, c.new_api, c.deprecated, c.changed
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ChangeNote:
        """The inverse of :meth:`to_dict` (kept in summary.json)."""

        def optional(key: str) -> str | None:
            value = data.get(key)
            return None if value is None else str(value)

        return cls(
            problem_id=str(data["problem_id"]),
            library=str(data["library"]),
            kind=str(data.get("kind", "")),
            old_api=str(data.get("old_api", "")),
            new_api=str(data.get("new_api", "")),
            deprecated=optional("deprecated"),
            changed=optional("changed"),
        )


@dataclass(frozen=True)
class IdiomStory:
    """One problem of ours: where its old idiom breaks, where its modern idiom starts."""

    problem_id: str
    library: str
    note: ChangeNote | None
    old_class: str | None = None  # drift class of idiom:old; None when it did not run
    old_last_good: str | None = None  # combos, around the old idiom's break
    old_first_bad: str | None = None
    old_good_version: str | None = None  # the problem's library there
    old_bad_version: str | None = None
    cause: str | None = None  # of the old idiom's first failure after passing
    symbol: str = ""
    error: str = ""
    first_bad_release: str | None = None  # "pandas 2.0.0", when bisected
    agrees: bool | None = None  # the observed break matches the change's release
    modern_class: str | None = None
    modern_first_pass: str | None = None  # the first combo where the reference passes
    modern_first_version: str | None = None
    modern_red_before: tuple[str, ...] = ()  # combos where it fails before that
    modern_cause: str | None = None  # of its first red cell before it passes
    explanation: str = ""

    @property
    def old_breaks(self) -> bool:
        return self.old_first_bad is not None

    @property
    def modern_not_yet(self) -> bool:
        """Red before its first pass: the modern API did not exist yet there."""
        return bool(self.modern_red_before)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["modern_red_before"] = list(self.modern_red_before)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> IdiomStory:
        """The inverse of :meth:`to_dict` (kept in summary.json)."""
        values = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        note = values.pop("note", None)
        values["modern_red_before"] = tuple(str(c) for c in values.get("modern_red_before", ()))
        return cls(note=ChangeNote.from_dict(note) if note else None, **values)


def notes_of(problems: Sequence[Problem]) -> list[ChangeNote]:
    return [n for n in (ChangeNote.of(p) for p in problems) if n is not None]


def _version(text: str | None) -> Version | None:
    try:
        return Version(text) if text else None
    except InvalidVersion:
        return None


def _library_version(t: Trajectory, combo: str | None, library: str) -> str | None:
    o = t.outcome(combo) if combo else None
    return o.versions.get(library) if o else None


def _agrees(good: str | None, bad: str | None, changed: str | None) -> bool | None:
    """``good`` < ``changed`` <= ``bad``; None when a version is missing or unreadable."""
    g, b, c = _version(good), _version(bad), _version(changed)
    if g is None or b is None or c is None:
        return None
    return g < c <= b


def story(
    problem_id: str,
    library: str,
    note: ChangeNote | None,
    old: Trajectory | None,
    modern: Trajectory | None,
    finding: Finding | None = None,
) -> IdiomStory:
    """The story of one problem from its two trajectories (either may be missing)."""
    fields: dict[str, Any] = {}
    if old is not None:
        fields["old_class"] = old.klass.value
        if old.klass in _DRIFTING and old.first_bad:
            bad = old.outcome(old.first_bad)
            good_v = _library_version(old, old.last_good, library)
            bad_v = _library_version(old, old.first_bad, library)
            fields |= {
                "old_last_good": old.last_good,
                "old_first_bad": old.first_bad,
                "old_good_version": good_v,
                "old_bad_version": bad_v,
                "cause": old.diagnosis.cause.value if old.diagnosis else None,
                "symbol": old.diagnosis.symbol if old.diagnosis else "",
                "error": (bad.first_line or bad.status.value) if bad else "",
                "agrees": _agrees(good_v, bad_v, note.changed if note else None),
            }
            if finding and finding.first_bad:
                fields["first_bad_release"] = f"{finding.library} {finding.first_bad}"
        elif old.klass is DriftClass.STABLE_PASS and note and note.changed:
            seen = [_version(a[0].versions.get(library)) for _, a in old.steps if a]
            newest = max((v for v in seen if v is not None), default=None)
            changed = _version(note.changed)
            if newest is not None and changed is not None:
                fields["agrees"] = newest < changed
    if modern is not None:
        fields["modern_class"] = modern.klass.value
        ran = [(c, a[0]) for c, a in modern.steps if a and a[0].status not in _NOT_RUN]
        first = next((i for i, (_, o) in enumerate(ran) if o.status is Status.PASS), None)
        if first is not None:
            combo, outcome = ran[first]
            red = [(c, o) for c, o in ran[:first] if o.status.is_failure]
            fields |= {
                "modern_first_pass": combo,
                "modern_first_version": outcome.versions.get(library),
                "modern_red_before": tuple(c for c, _ in red),
            }
            if red:
                fields["modern_cause"] = _cause_of(red[0][1])
    drafted = IdiomStory(problem_id, library, note, **fields)
    return replace(drafted, explanation=explain(drafted))


def _cause_of(outcome: Outcome) -> str | None:
    found = diagnose(outcome)
    return found.cause.value if found else None


def explain(s: IdiomStory) -> str:
    """What the problem's red cells mean, in words."""
    lib = s.library
    note = s.note
    old_api = f"`{note.old_api}`" if note and note.old_api else "the old idiom"
    new_api = f"`{note.new_api}`" if note and note.new_api else "the modern idiom"
    said = f"{lib} {note.changed}" if note and note.changed else None
    parts: list[str] = []
    if s.old_class is None:
        parts.append("The old idiom did not run (harness run --no-idioms).")
    elif s.old_breaks:
        text = (
            f"Old idiom {old_api} passes up to `{s.old_last_good}` ({lib} {s.old_good_version or '?'}) "
            f"and breaks from `{s.old_first_bad}` ({lib} {s.old_bad_version or '?'})"
            f"{f': {s.cause}' if s.cause else ''} — drift"
        )
        if said and s.agrees:
            text += f", where the change says ({note.kind if note else 'change'} in {said})"
        elif said and s.agrees is False:
            text += f"; the change says {said}, the combos disagree"
        parts.append(text + ".")
    elif s.old_class == DriftClass.STABLE_PASS.value:
        text = f"Old idiom {old_api} still passes in every combo"
        if said and s.agrees is False:
            text += f", although the change says it stops in {said}"
        elif said:
            text += f" (the change, in {said}, is newer than every combo)"
        elif note and note.deprecated:
            text += f" (deprecated since {lib} {note.deprecated}, not removed yet)"
        parts.append(text + ".")
    elif s.old_class == DriftClass.STABLE_FAIL.value:
        parts.append(
            f"Old idiom {old_api} fails in every combo"
            + (f": every combo is past {said}" if said else "")
            + "."
        )
    else:
        parts.append(f"Old idiom {old_api}: {s.old_class}.")
    if s.modern_not_yet:
        reds = ", ".join(f"`{c}`" for c in s.modern_red_before)
        why = (
            "the API did not exist yet"
            if s.modern_cause in (Cause.REMOVED_API.value, Cause.CHANGED_SIGNATURE.value)
            else "that release predates it"
        )
        parts.append(
            f"Modern idiom {new_api} is red in {reds}: {why} — not drift; "
            f"it passes from `{s.modern_first_pass}` ({lib} {s.modern_first_version or '?'}) on."
        )
    elif s.modern_class == DriftClass.STABLE_PASS.value:
        parts.append(f"Modern idiom {new_api} passes in every combo.")
    elif s.modern_class in (DriftClass.DRIFTED.value, DriftClass.VERSION_SENSITIVE.value):
        parts.append(f"Modern idiom {new_api} itself drifts: see the drifted problems.")
    elif s.modern_class == DriftClass.STABLE_FAIL.value:
        parts.append(f"Modern idiom {new_api} fails in every combo: the problem needs a look.")
    elif s.modern_class is not None:
        parts.append(f"Modern idiom {new_api}: {s.modern_class}.")
    return " ".join(parts)


def stories(
    trajectories: Sequence[Trajectory],
    notes: Sequence[ChangeNote],
    analysis: Mapping[tuple[str, str], Finding],
) -> list[IdiomStory]:
    """One story per problem that ran an old idiom or has a change note, in run order."""
    by_key = {(t.problem_id, t.source): t for t in trajectories}
    note_of = {n.problem_id: n for n in notes}
    ids = {t.problem_id for t in trajectories if t.source == OLD}
    ids |= {t.problem_id for t in trajectories if t.source == REFERENCE and t.problem_id in note_of}
    out = []
    for pid in sorted(ids, key=natural_key):
        old, modern = by_key.get((pid, OLD)), by_key.get((pid, REFERENCE))
        note = note_of.get(pid)
        ran = old or modern
        library = note.library if note else ran.library if ran else ""
        out.append(story(pid, library, note, old, modern, analysis.get((pid, OLD))))
    return out
