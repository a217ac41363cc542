"""Drift across combos: how each (problem, solution source) fares from one era to the next.

Combos are put in era order from their versions (one combo precedes another when
none of its libraries is newer); each (problem, source) then has a trajectory of
outcomes along that order, and a class:

* ``stable-pass`` / ``stable-fail`` — the same everywhere it ran;
* ``drifted`` — passes, then fails from some combo on;
* ``fixed`` — fails, then passes from some combo on;
* ``version-sensitive`` — changes more than once along the order;
* ``format-drift`` — drifted (or version-sensitive), but every failure is only a changed
  printed output whose values are the same (a CIBench step printing ``np.float64(-2.0)``
  where NumPy 1 printed ``-2.0``): a changed repr, not a broken API, counted apart;
* ``flaky`` — repeated runs in one env disagree (``--repeat``);
* ``needs-network`` — failed for want of the network somewhere: never drift;
* ``needs-tool`` — failed for want of a program this machine lacks (``tesseract``): never
  drift;
* ``needs-data`` — failed for want of a library's data files downloaded ahead (NLTK's
  corpora): never drift;
* ``guard-refused`` — somewhere the checker would not admit what the solution sent back
  (a value outside the guard's allowlist): not a verdict on the code, never drift;
* ``env-error`` / ``not-applicable`` — no combo could run it.
"""

from __future__ import annotations

import enum
import itertools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from harness.analysis.causes import Cause, Diagnosis, diagnose, site
from harness.core.findings import Finding
from harness.core.libraries import BY_KEY
from harness.core.results import CapturedWarning, Outcome, Status

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence


class DriftClass(str, enum.Enum):
    STABLE_PASS = "stable-pass"
    STABLE_FAIL = "stable-fail"
    DRIFTED = "drifted"
    FIXED = "fixed"
    VERSION_SENSITIVE = "version-sensitive"
    # drifts whose every failure is a changed printed output, its values the same
    FORMAT_DRIFT = "format-drift"
    FLAKY = "flaky"
    NEEDS_NETWORK = "needs-network"
    NEEDS_TOOL = "needs-tool"
    NEEDS_DATA = "needs-data"
    GUARD_REFUSED = "guard-refused"
    ENV_ERROR = "env-error"
    NOT_APPLICABLE = "not-applicable"

    def __str__(self) -> str:
        return self.value


# Drift of an API: a pass → fail step whose failure is not only a changed printed output.
API_DRIFT = (DriftClass.DRIFTED, DriftClass.VERSION_SENSITIVE)
# Every class with a pass → fail step worth a row in the drift table.
DRIFTING = (*API_DRIFT, DriftClass.FORMAT_DRIFT)


@dataclass(frozen=True)
class Trajectory:
    """One (problem, source) along the combos in era order."""

    problem_id: str
    source: str
    library: str  # of a drift: the library its first failure concerns; else the problem's
    steps: Sequence[tuple[str, Sequence[Outcome]]]  # (combo, its attempts) in era order
    klass: DriftClass
    last_good: str | None = None  # the last combo that passes before the first bad one
    first_bad: str | None = None  # the first combo that fails after passing
    diagnosis: Diagnosis | None = None  # of the first bad outcome
    warnings: Sequence[CapturedWarning] = ()  # raised in last_good, the early signs

    def outcome(self, combo: str) -> Outcome | None:
        return next((attempts[0] for c, attempts in self.steps if c == combo), None)

    @property
    def changed(self) -> dict[str, tuple[str, str]]:
        """Library versions that differ between last_good and first_bad."""
        good = self.outcome(self.last_good) if self.last_good else None
        bad = self.outcome(self.first_bad) if self.first_bad else None
        if good is None or bad is None:
            return {}
        return changed_versions(good.versions, bad.versions)


def changed_versions(
    before: Mapping[str, str], after: Mapping[str, str]
) -> dict[str, tuple[str, str]]:
    keys = sorted(set(before) | set(after))
    return {
        k: (before.get(k, "-"), after.get(k, "-")) for k in keys if before.get(k) != after.get(k)
    }


@dataclass(frozen=True)
class DriftRow:
    """One drifted (problem, source) as every report shows it: its step from the last
    passing combo to the first failing one, the failure and its cause, the versions that
    moved in between, and what a bisection found (summary.json's ``drift``)."""

    problem_id: str
    source: str
    library: str  # the library its failure concerns (:attr:`Trajectory.library`)
    klass: DriftClass
    last_good: str | None
    first_bad: str | None
    status: str | None = None  # of the first failing execution
    error: str | None = None  # its first line, else its status
    cause: Cause | None = None
    symbol: str = ""
    symbol_library: str = ""  # the library the symbol belongs to ("" when not known)
    site: str = ""  # solution, test (the problem's own test code broke), assertion, or ""
    changed: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # library versions
    warnings: tuple[str, ...] = ()  # what the last passing combo warned that announces it
    finding: Finding | None = None  # what the bisection found (--bisect)

    @classmethod
    def of(cls, t: Trajectory, finding: Finding | None = None) -> DriftRow:
        bad = t.outcome(t.first_bad) if t.first_bad else None
        return cls(
            problem_id=t.problem_id,
            source=t.source,
            library=t.library,
            klass=t.klass,
            last_good=t.last_good,
            first_bad=t.first_bad,
            status=bad.status.value if bad else None,
            error=(bad.first_line or bad.status.value) if bad else None,
            cause=t.diagnosis.cause if t.diagnosis else None,
            symbol=t.diagnosis.symbol if t.diagnosis else "",
            symbol_library=t.diagnosis.library if t.diagnosis else "",
            site=site(bad) if bad else "",
            changed=t.changed,
            warnings=tuple(w.message for w in t.warnings),
            finding=finding,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "problem_id": self.problem_id,
            "library": self.library,
            "source": self.source,
            "class": self.klass.value,
            "last_good": self.last_good,
            "first_bad": self.first_bad,
            "status": self.status,
            "error": self.error,
            "cause": self.cause.value if self.cause else None,
            "symbol": self.symbol,
            "symbol_library": self.symbol_library,
            "site": self.site,
            "changed": {k: list(v) for k, v in self.changed.items()},
            "warnings": list(self.warnings),
            **({"analysis": self.finding.to_dict()} if self.finding else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DriftRow:
        """The inverse of :meth:`to_dict` (kept in summary.json)."""

        def optional(key: str) -> str | None:
            value = data.get(key)
            return None if value is None else str(value)

        cause, analysis = data.get("cause"), data.get("analysis")
        return cls(
            problem_id=str(data["problem_id"]),
            source=str(data["source"]),
            library=str(data["library"]),
            klass=DriftClass(data["class"]),
            last_good=optional("last_good"),
            first_bad=optional("first_bad"),
            status=optional("status"),
            error=optional("error"),
            cause=Cause(cause) if cause is not None else None,
            symbol=str(data.get("symbol", "")),
            symbol_library=str(data.get("symbol_library", "")),
            site=str(data.get("site", "")),
            changed={str(k): (str(a), str(b)) for k, (a, b) in data.get("changed", {}).items()},
            warnings=tuple(str(w) for w in data.get("warnings", [])),
            finding=Finding.from_dict(analysis) if analysis else None,
        )


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _not_newer(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    """True when no library (nor Python) of ``a`` is newer than in ``b``."""
    for key in set(a) & set(b):
        va, vb = _version(a[key]), _version(b[key])
        if va is not None and vb is not None and va > vb:
            return False
    return True


def era_order(combos: Sequence[str], versions: Mapping[str, Mapping[str, str]]) -> list[str]:
    """``combos`` sorted so that a combo comes after every combo that is strictly older.

    Versions include ``python``. Combos that cannot be compared (an axis that raises
    numpy but lowers pandas, a combo without an env) keep their matrix order.
    """
    remaining = list(combos)
    order: list[str] = []

    def older(p: str, c: str) -> bool:
        vp, vc = versions.get(p, {}), versions.get(c, {})
        return bool(vp) and bool(vc) and _not_newer(vp, vc) and not _not_newer(vc, vp)

    while remaining:
        # versions on different subsets of libraries can even form a cycle: then matrix order
        ready = next(
            (c for c in remaining if not any(older(p, c) for p in remaining if p != c)),
            remaining[0],
        )
        order.append(ready)
        remaining.remove(ready)
    return order


def _cause(outcome: Outcome, cause: Cause) -> bool:
    found = diagnose(outcome)
    return found is not None and found.cause is cause


def classify(
    problem_id: str,
    source: str,
    steps: Sequence[tuple[str, Sequence[Outcome]]],
) -> Trajectory:
    library = next((a[0].library for _, a in steps if a), "")
    attempts = [o for _, a in steps for o in a]
    ran = [(c, a) for c, a in steps if a and a[0].status not in (Status.SKIPPED, Status.ENV_ERROR)]

    def plain(klass: DriftClass) -> Trajectory:
        return Trajectory(problem_id, source, library, steps, klass)

    if any(len({o.status is Status.PASS for o in a}) > 1 for _, a in ran):
        return plain(DriftClass.FLAKY)
    if any(_cause(o, Cause.NEEDS_NETWORK) for o in attempts):
        return plain(DriftClass.NEEDS_NETWORK)
    if any(_cause(o, Cause.NEEDS_TOOL) for o in attempts):
        return plain(DriftClass.NEEDS_TOOL)
    if any(_cause(o, Cause.NEEDS_DATA) for o in attempts):
        return plain(DriftClass.NEEDS_DATA)
    if any(_cause(o, Cause.GUARD_REFUSED) for o in attempts):
        return plain(DriftClass.GUARD_REFUSED)
    if not ran:
        if any(o.status is Status.ENV_ERROR for o in attempts):
            return plain(DriftClass.ENV_ERROR)
        return plain(DriftClass.NOT_APPLICABLE)
    passes = [a[0].status is Status.PASS for _, a in ran]
    changes = sum(1 for x, y in itertools.pairwise(passes) if x != y)
    if changes == 0:
        return plain(DriftClass.STABLE_PASS if passes[0] else DriftClass.STABLE_FAIL)
    if changes > 1:
        klass = DriftClass.VERSION_SENSITIVE
    else:
        klass = DriftClass.DRIFTED if passes[0] else DriftClass.FIXED
    if klass in API_DRIFT and _only_format(ran, passes):
        klass = DriftClass.FORMAT_DRIFT
    # The first pass → fail step along the order, with what the passing side warned.
    for (good, good_attempts), (bad, bad_attempts), ok_before, ok_after in zip(
        ran, ran[1:], passes, passes[1:], strict=False
    ):
        if ok_before and not ok_after:
            diagnosis = diagnose(bad_attempts[0])
            return Trajectory(
                problem_id,
                source,
                # the library its failure concerns (a BigCodeBench task's ``libs`` list
                # several, in no order that says which broke), else the problem's own
                (diagnosis.library if diagnosis else "") or library,
                steps,
                klass,
                last_good=good,
                first_bad=bad,
                diagnosis=diagnosis,
                warnings=related_warnings(good_attempts[0].warnings, diagnosis),
            )
    return plain(klass)


def _only_format(ran: Sequence[tuple[str, Sequence[Outcome]]], passes: Sequence[bool]) -> bool:
    """True when every failure after the first pass is only a changed printed output."""
    first_pass = passes.index(True)
    failed = [
        a[0] for (_, a), ok in zip(ran[first_pass:], passes[first_pass:], strict=True) if not ok
    ]
    return bool(failed) and all(_cause(o, Cause.OUTPUT_FORMAT) for o in failed)


def related_warnings(
    warnings: Sequence[CapturedWarning], diagnosis: Diagnosis | None
) -> tuple[CapturedWarning, ...]:
    """The warnings of a passing run that announce the failure that follows.

    A warning is related when it names the failing symbol (``append`` in "The
    frame.append method is deprecated"), or, for failures without a symbol, when it
    comes from the library the failure points into.
    """
    if diagnosis is None:
        return ()
    names = [n for n in re.findall(r"[A-Za-z_]\w*", diagnosis.symbol) if n not in _GENERIC]
    if names:
        leaves = names[-2:] if diagnosis.symbol.endswith("=)") else names[-1:]
        return tuple(
            w for w in warnings if any(re.search(rf"\b{re.escape(n)}\b", w.message) for n in leaves)
        )
    library = BY_KEY.get(diagnosis.library)
    module = library.module if library else diagnosis.library
    return tuple(w for w in warnings if module and w.library == module)


# Words too common in symbols to tie a warning to a failure.
_GENERIC = frozenset(
    {"pandas", "numpy", "scipy", "sklearn", "matplotlib", "torch", "tf", "DataFrame", "Series"}
)


def trajectories(outcomes: Iterable[Outcome], order: Sequence[str]) -> list[Trajectory]:
    """Every (problem, source) of ``outcomes`` classified along the combos in ``order``."""
    table: dict[tuple[str, str], dict[str, list[Outcome]]] = {}
    for o in outcomes:
        table.setdefault((o.problem_id, o.source), {}).setdefault(o.combo, []).append(o)
    out = []
    for (problem_id, source), by_combo in table.items():
        steps = [(c, sorted(by_combo[c], key=lambda o: o.attempt)) for c in order if c in by_combo]
        out.append(classify(problem_id, source, steps))
    return sorted(out, key=lambda t: (natural_key(t.problem_id), t.source))


@dataclass(frozen=True)
class WarningGroup:
    """One deprecation message, and the passing executions that raised it."""

    library: str
    category: str
    message: str
    executions: tuple[tuple[str, str, str], ...] = ()  # (combo, problem, source)
    # the code it points at ("<solution>", "<context>", a library's module); "" not recorded
    origin: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "library": self.library,
            "category": self.category,
            "message": self.message,
            "executions": [list(e) for e in self.executions],
            "origin": self.origin,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WarningGroup:
        """The inverse of :meth:`to_dict` (kept in summary.json)."""
        executions = tuple((str(c), str(p), str(s)) for c, p, s in data.get("executions", []))
        return cls(
            str(data["library"]),
            str(data["category"]),
            str(data["message"]),
            executions,
            str(data.get("origin", "")),
        )


def will_break(outcomes: Iterable[Outcome]) -> list[WarningGroup]:
    """Passing executions that raised deprecation warnings, grouped by library, message
    and the code they point at: the solution's, or a library's inside the environment
    (whoever called it), which is what breaks there whatever answer runs."""
    groups: dict[tuple[str, str, str, str], list[tuple[str, str, str]]] = {}
    for o in outcomes:
        if o.status is not Status.PASS:
            continue
        for w in o.warnings:
            if w.module == "<python>":
                continue  # the compiler's escape-sequence notes are about source text
            library = w.library if not w.module.startswith("<") else o.library
            key = (library, w.category, w.message, w.origin)
            groups.setdefault(key, []).append((o.combo, o.problem_id, o.source))
    return sorted(
        (
            WarningGroup(lib, cat, msg, tuple(sorted(set(ex))), origin)
            for (lib, cat, msg, origin), ex in groups.items()
        ),
        key=lambda g: (-len(g.executions), g.library, g.message),
    )


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort ``ds1000/9`` before ``ds1000/10``."""
    return tuple(
        (0, int(chunk)) if chunk.isdigit() else (1, chunk)
        for chunk in text.replace("/", " / ").split()
    )
