"""How stale a model's knowledge is: measured on its answers across the matrix.

* **stale rate** — of a model's answers that pass in some combo and meet a later one,
  the share that then fail because an API was removed or changed, counted only where the
  problem itself still holds there (its reference passes). When the reference fails too,
  the problem drifted, not the model: that is reported apart and never charged to it.
* **warning rate** — of its passing answers, the share that raise a deprecation warning
  about their own code (``CapturedWarning.solutions_own``: not one a library raises about
  what it calls itself, which is the environment's).
* **vintage** — the combo, in era order, where its answers do best, measured on the
  problems whose reference passes in every combo (so problem drift tilts no era); a tie
  names every combo in it.
* **static uses** — deprecated or removed APIs its answer code mentions, by a catalogue
  of old → new mappings (``harness/data/catalogue.toml``, shipped with the package; a
  run's manifest may name more catalogues, ``inputs.catalogues``).
"""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.analysis.causes import Cause
from harness.analysis.drift import DriftClass, Trajectory
from harness.core.errors import ProblemError
from harness.core.problem import MODEL_PREFIX, REFERENCE
from harness.core.results import Status
from harness.core.tomlfile import TomlFile

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from harness.core.problem import Solution
    from harness.core.results import Outcome

# package data, so that an installed harness (not only a checkout) has it
CATALOGUE = Path(__file__).resolve().parents[1] / "data" / "catalogue.toml"
_NOT_RUN = (Status.SKIPPED, Status.ENV_ERROR)
_API_CAUSES = (
    Cause.REMOVED_API,
    Cause.CHANGED_SIGNATURE,
    Cause.CHANGED_BEHAVIOUR,
    Cause.WARNING_AS_ERROR,
)


@dataclass(frozen=True)
class Entry:
    library: str
    old: str
    new: str
    pattern: re.Pattern[str] | None  # how code uses the old API; None for a behaviour
    deprecated: str | None = None
    removed: str | None = None
    codemod: str | None = None  # the harness.labs.repair codemod that rewrites it, if one does
    # how a failure caused by the change reads (a behaviour no code pattern shows)
    error: re.Pattern[str] | None = None
    # how code uses the new API, and the first release that has it: an answer that uses
    # it knows the library at least as of that release (harness.analysis.deprecations)
    new_pattern: re.Pattern[str] | None = None
    introduced: str | None = None
    # how the library's warning about the old API reads (default: it names the old API)
    warning: re.Pattern[str] | None = None


def load_catalogue(path: Path = CATALOGUE) -> list[Entry]:
    """Catalogue entries: ``[[api]]`` tables with library, old, new, pattern (or error),
    deprecated, removed, codemod, and the new API's new_pattern, introduced and the
    library's warning."""
    doc = TomlFile.load(path, ProblemError)
    entries = []
    for i, item in enumerate(doc.data.get("api", [])):
        where = f"api[{i}]"
        if not isinstance(item, dict):
            raise ProblemError(doc.display, where, "expected a table")
        required = ("library", "old", "new") + (() if "error" in item else ("pattern",))
        for key in required:
            if not isinstance(item.get(key), str) or not item[key]:
                raise ProblemError(doc.display, f"{where}.{key}", "missing or not a string")
        if "codemod" in item and (not isinstance(item["codemod"], str) or not item["codemod"]):
            raise ProblemError(doc.display, f"{where}.codemod", "not a codemod's name")
        pattern, error, new_pattern, warning = (
            _regex(doc.display, where, item, key)
            for key in ("pattern", "error", "new_pattern", "warning")
        )
        entries.append(
            Entry(
                item["library"],
                item["old"],
                item["new"],
                pattern,
                item.get("deprecated"),
                item.get("removed"),
                item.get("codemod"),
                error,
                new_pattern,
                item.get("introduced"),
                warning,
            )
        )
    return entries


def _regex(file: str, where: str, item: dict[str, object], key: str) -> re.Pattern[str] | None:
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ProblemError(file, f"{where}.{key}", "not a string")
    try:
        return re.compile(value)
    except re.error as exc:
        raise ProblemError(file, f"{where}.{key}", f"invalid regular expression: {exc}") from None


def static_uses(code: str, catalogue: Sequence[Entry]) -> list[Entry]:
    """Catalogue entries whose old API ``code`` uses (its :func:`code_text`)."""
    return old_apis_in(code_text(code), catalogue)


def old_apis_in(text: str, catalogue: Sequence[Entry]) -> list[Entry]:
    """Catalogue entries whose old API's pattern is found in ``text`` (a :func:`code_text`)."""
    return [e for e in catalogue if e.pattern is not None and e.pattern.search(text)]


def code_text(code: str) -> str:
    """The text the catalogue's patterns are searched in: the code as its syntax tree
    gives it back (comments, docstrings and other bare strings gone: what it says, not
    what it runs), the lines of a function's body (a fragment indented as one) read
    together; where it does not parse, its comments removed token by token."""
    for text in (code, textwrap.dedent(code)):
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            continue
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if isinstance(body, list):
                kept = [s for s in body if not _bare_string(s)]
                node.body = kept or [ast.Pass()]  # type: ignore[attr-defined]
        try:
            return ast.unparse(tree)
        except (ValueError, RecursionError):  # pragma: no cover - a tree parse gave back
            break
    return _strip_comments(code)


def _bare_string(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _strip_comments(code: str) -> str:
    """``code`` without its comments: by its tokens (a ``#`` inside a string stays), or,
    where it does not tokenize, every ``#`` to the end of its line."""
    try:
        tokens = [
            t for t in tokenize.generate_tokens(io.StringIO(code).readline)
            if t.type != tokenize.COMMENT
        ]  # fmt: skip
        return tokenize.untokenize(tokens)
    except (tokenize.TokenError, SyntaxError, ValueError):
        return re.sub(r"#[^\n]*", "", code)


@dataclass(frozen=True)
class ModelStaleness:
    model: str
    answers: int
    pass_rate: Mapping[str, float | None]  # combo → share of all answers that pass
    fit: Mapping[str, float | None]  # combo → share passing among problems that hold there
    vintage: str | None
    candidates: int  # answers that pass somewhere and meet a later combo
    stale: tuple[tuple[str, str, str], ...] = ()  # (problem, good, bad)
    problem_drift: tuple[tuple[str, str, str], ...] = ()
    warning_rate: Mapping[str, float | None] = field(default_factory=dict)
    static: Counter[str] = field(default_factory=Counter)  # old API → answers using it
    answers_with_static: int = 0

    @property
    def stale_rate(self) -> float | None:
        return len(self.stale) / self.candidates if self.candidates else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "answers": self.answers,
            "pass_rate": dict(self.pass_rate),
            "fit": dict(self.fit),
            "vintage": self.vintage,
            "stale_rate": self.stale_rate,
            "stale": [list(s) for s in self.stale],
            "stale_candidates": self.candidates,
            "problem_drift": [list(s) for s in self.problem_drift],
            "warning_rate": dict(self.warning_rate),
            "static_uses": dict(self.static),
            "answers_with_static_uses": self.answers_with_static,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelStaleness:
        """The inverse of :meth:`to_dict` (kept in summary.json; ``stale_rate`` is derived)."""

        def steps(key: str) -> tuple[tuple[str, str, str], ...]:
            return tuple((str(p), str(good), str(bad)) for p, good, bad in data.get(key, []))

        def rates(key: str) -> dict[str, float | None]:
            return {str(c): None if r is None else float(r) for c, r in data[key].items()}

        vintage = data.get("vintage")
        return cls(
            model=str(data["model"]),
            answers=int(data["answers"]),
            pass_rate=rates("pass_rate"),
            fit=rates("fit"),
            vintage=None if vintage is None else str(vintage),
            candidates=int(data["stale_candidates"]),
            stale=steps("stale"),
            problem_drift=steps("problem_drift"),
            warning_rate=rates("warning_rate"),
            static=Counter({str(k): int(n) for k, n in data.get("static_uses", {}).items()}),
            answers_with_static=int(data.get("answers_with_static_uses", 0)),
        )


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def measure(
    outcomes: Sequence[Outcome],
    trajectories: Sequence[Trajectory],
    order: Sequence[str],
    solutions: Iterable[Solution] = (),
    catalogue: Sequence[Entry] = (),
) -> list[ModelStaleness]:
    """Staleness of every model with answers among ``outcomes``."""
    first = [o for o in outcomes if o.attempt == 0]
    reference = {
        (o.combo, o.problem_id): o.status is Status.PASS for o in first if o.source == REFERENCE
    }
    code = {(s.problem_id, s.source): s.code for s in solutions}
    steady = _steady(first)
    out = []
    for source in sorted({o.source for o in first if o.source.startswith(MODEL_PREFIX)}):
        mine = [o for o in first if o.source == source]
        problems = {o.problem_id for o in mine}
        pass_rate, fit, warning_rate = _rates(mine, order, steady)
        candidates, stale, drift = _steps(
            [t for t in trajectories if t.source == source], reference
        )
        static, with_static = _static([code.get((p, source), "") for p in problems], catalogue)
        out.append(
            ModelStaleness(
                model=source.removeprefix(MODEL_PREFIX),
                answers=len(problems),
                pass_rate=pass_rate,
                fit=fit,
                vintage=_vintage(fit),
                candidates=candidates,
                stale=stale,
                problem_drift=drift,
                warning_rate=warning_rate,
                static=static,
                answers_with_static=with_static,
            )
        )
    return out


def _steady(first: Sequence[Outcome]) -> set[str]:
    """The problems whose reference passes in every combo it ran in.

    Vintage compares eras on these problems alone, so that neither problem drift nor a
    combo's gaps tilt the score."""
    reference_runs: dict[str, list[bool]] = {}
    for o in first:
        if o.source == REFERENCE and o.status not in _NOT_RUN:
            reference_runs.setdefault(o.problem_id, []).append(o.status is Status.PASS)
    return {p for p, passes in reference_runs.items() if all(passes)}


_Rates = dict[str, float | None]  # combo → a share, None where nothing counted


def _rates(
    mine: Sequence[Outcome], order: Sequence[str], steady: set[str]
) -> tuple[_Rates, _Rates, _Rates]:
    """One model's pass rate, fit (pass rate on the steady problems) and warning rate,
    per combo."""
    pass_rate: _Rates = {}
    fit: _Rates = {}
    warning_rate: _Rates = {}
    for combo in order:
        here = [o for o in mine if o.combo == combo and o.status not in _NOT_RUN]
        passes = [o for o in here if o.status is Status.PASS]
        holds = [o for o in here if o.problem_id in steady]
        pass_rate[combo] = _rate(len(passes), len(here))
        fit[combo] = _rate(sum(o.status is Status.PASS for o in holds), len(holds))
        # a warning counts against the answer only when it is about the answer's own code
        warned = [o for o in passes if any(w.solutions_own for w in o.warnings)]
        warning_rate[combo] = _rate(len(warned), len(passes))
    return pass_rate, fit, warning_rate


def _vintage(fit: Mapping[str, float | None]) -> str | None:
    """The combos where the model fits best, a tie joined by `` = ``."""
    scored = {c: f for c, f in fit.items() if f is not None}
    best = max(scored.values(), default=None)
    return " = ".join(c for c, f in scored.items() if f == best) if best is not None else None


_Step = tuple[str, str, str]  # (problem, last good combo, first bad combo)


def _steps(
    mine: Sequence[Trajectory], reference: Mapping[tuple[str, str], bool]
) -> tuple[int, tuple[_Step, ...], tuple[_Step, ...]]:
    """Of one model's trajectories: the candidates (answers that pass somewhere and meet
    a later combo), the stale ones (failing on an API change where the problem holds),
    and problem drift (the reference fails there too: never charged to the model)."""
    stale: list[_Step] = []
    drift: list[_Step] = []
    candidates = 0
    for t in mine:
        ran = [c for c, a in t.steps if a and a[0].status not in _NOT_RUN]
        passing = [c for c, a in t.steps if a and a[0].status is Status.PASS]
        if passing and ran and passing[0] != ran[-1]:
            candidates += 1
        if t.klass not in (DriftClass.DRIFTED, DriftClass.VERSION_SENSITIVE) or not t.first_bad:
            continue
        item = (t.problem_id, t.last_good or "", t.first_bad)
        if not reference.get((t.first_bad, t.problem_id)):
            drift.append(item)
        elif t.diagnosis is not None and t.diagnosis.cause in _API_CAUSES:
            stale.append(item)
    return candidates, tuple(stale), tuple(drift)


def _static(codes: Iterable[str], catalogue: Sequence[Entry]) -> tuple[Counter[str], int]:
    """Old APIs the answers' code uses (API → answers using it), and how many answers use
    any."""
    static: Counter[str] = Counter()
    with_static = 0
    for code in codes:
        used = static_uses(code, catalogue)
        static.update(f"{e.library}: {e.old}" for e in used)
        with_static += bool(used)
    return static, with_static


def per_library(outcomes: Sequence[Outcome], source: str, combo: str) -> dict[str, float | None]:
    """Pass rate of ``source`` in ``combo`` for each library."""
    tally: dict[str, list[int]] = {}
    for o in outcomes:
        if o.source == source and o.combo == combo and o.attempt == 0:
            if o.status in _NOT_RUN:
                continue
            counts = tally.setdefault(o.library, [0, 0])
            counts[0] += o.status is Status.PASS
            counts[1] += 1
    return {lib: _rate(p, n) for lib, (p, n) in sorted(tally.items())}
