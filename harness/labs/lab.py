"""The trials machinery every lab shares: investigations ask questions, a Lab answers.

An investigation (bisection, reach, validation) is a generator that yields a :class:`Need`
— run this execution in an env with these pins — and receives an :class:`Answer`. The
:class:`Lab` builds the throwaway environment each need asks for (keyed by its pins, so a
step any investigation took before is reused, not rebuilt) and runs its executions with
the options it was given; :func:`drive` runs investigations side by side, answering each
round of their questions together, so that ten problems that drifted the same way share
every env along the way.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol, TypeVar

from harness.core.libraries import lookup
from harness.core.results import Outcome, Status
from harness.execute.runner import ComboRun, Execution, RunOptions
from harness.matrix.spec import Combo, LibrarySpec, VersionKind

if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Callable, Generator, Sequence

    from harness.envs.build import EnvBuilder, EnvInfo


EnvKey = tuple[str, tuple[tuple[str, str], ...], str | None, "dt.date | None"]


@dataclass(frozen=True)
class Need:
    """A question an investigation asks: how does ``execution`` end with these pins?"""

    python: str
    pins: tuple[tuple[str, str], ...]  # (distribution, version), sorted
    execution: Execution
    # The pin being tried: when the others cannot stay put with it, they may rise to
    # the lowest releases it works with (pandas 3 needs NumPy 2).
    vary: str | None = None
    # Unpinned packages (version "") resolve as the index was on this day.
    as_of: dt.date | None = None


@dataclass(frozen=True)
class Answer:
    env: EnvInfo
    outcome: Outcome | None  # None when the env could not be built

    @property
    def passed(self) -> bool | None:
        """True/False when it ran, None when the env could not be built."""
        return None if self.outcome is None else self.outcome.status is Status.PASS


@dataclass
class Lab:
    """Builds the throwaway envs investigations ask for and runs their executions."""

    builder: EnvBuilder
    options: RunOptions = field(default_factory=RunOptions)
    log: Callable[[str], None] = lambda _m: None
    # an index every trial env resolves from besides the builder's (the combo's own, when
    # it has one: what it installed may be found nowhere else)
    extra_index_url: str | None = None
    _answers: dict[EnvKey, dict[tuple[str, str], Outcome]] = field(default_factory=dict)
    _envs: dict[EnvKey, EnvInfo] = field(default_factory=dict)

    @property
    def envs_built(self) -> list[EnvInfo]:
        return list(self._envs.values())

    def env(self, need: Need) -> EnvInfo:
        key = _env_key(need)
        if key not in self._envs:
            env = self._build(need.python, need.pins, as_of=need.as_of)
            if not env.ok and env.stage == "resolve" and need.vary and len(need.pins) > 1:
                env = self._build(need.python, need.pins, lift_except=need.vary, as_of=need.as_of)
            self._envs[key] = env
        return self._envs[key]

    def _build(
        self,
        python: str,
        pins: tuple[tuple[str, str], ...],
        lift_except: str | None = None,
        as_of: dt.date | None = None,
    ) -> EnvInfo:
        """An env with ``pins``; with ``lift_except``, the other pins become lower bounds."""
        asked: tuple[object, ...] = (python, pins, lift_except, as_of)
        asked += (self.extra_index_url,) if self.extra_index_url else ()
        name = hashlib.sha256(repr(asked).encode()).hexdigest()[:10]
        # The seven libraries as libraries, so the env probe imports them: a pairing
        # that cannot even be imported (pandas 1.5 on NumPy 2) is no trial at all.
        libraries, extras = [], []
        for package, version in pins:
            exact = lift_except is None or package == lift_except
            if not version:  # no pin: whatever the resolver picks (the newest that fits)
                constraint, kind, requirement = "latest", VersionKind.LATEST, package
            elif exact:
                constraint, kind, requirement = version, VersionKind.PIN, f"{package}=={version}"
            else:
                constraint, kind = f">={version}", VersionKind.SPECIFIER
                requirement = f"{package}>={version}"
            lib = lookup(package)
            if lib is not None:
                libraries.append(LibrarySpec(lib.key, package, constraint, kind))
            else:
                extras.append(requirement)
        combo = Combo(
            f"lab-{name}",
            python,
            tuple(libraries),
            tuple(extras),
            as_of=as_of,
            resolution="lowest-direct" if lift_except else "highest",
            extra_index_url=self.extra_index_url,
        )
        shown = ", ".join(f"{p} {v}" for p, v in pins)
        self.log(
            f"trial env on Python {python}: {shown}" + (" (others may rise)" if lift_except else "")
        )
        env, _ = self.builder.build(combo)
        broken = {m: r.get("error", "") for m, r in env.imports.items() if not r.get("ok")}
        if env.ok and broken:
            module, error = next(iter(broken.items()))
            env = replace(env, ok=False, stage="import", error=f"import {module} fails: {error}")
        return env

    def answer(self, needs: Sequence[Need]) -> list[Answer]:
        """Answer ``needs``, running each env once with every execution asked of it."""
        by_env: dict[EnvKey, list[Need]] = {}
        for need in needs:
            by_env.setdefault(_env_key(need), []).append(need)
        for key, group in by_env.items():
            env = self.env(group[0])
            known = self._answers.setdefault(key, {})
            todo = list(
                {
                    _key(n.execution): n.execution for n in group if _key(n.execution) not in known
                }.values()
            )
            if env.ok and todo:
                sink: list[Outcome] = []
                ComboRun("lab", env, _ListSink(sink), self.options).run(todo)
                known.update({(o.problem_id, o.source): o for o in sink})
        return [
            Answer(self._envs[_env_key(n)], self._answers[_env_key(n)].get(_key(n.execution)))
            for n in needs
        ]


def _env_key(need: Need) -> EnvKey:
    return (need.python, need.pins, need.vary, need.as_of)


def _key(execution: Execution) -> tuple[str, str]:
    return (execution.problem.id, execution.solution.source)


class _ListSink:
    def __init__(self, items: list[Outcome]) -> None:
        self.items = items

    def write(self, outcome: Outcome) -> None:
        self.items.append(outcome)


class Answerer(Protocol):
    """Anything that answers investigations' questions: a :class:`Lab`, or a fake in tests."""

    def answer(self, needs: Sequence[Need]) -> list[Answer]: ...


T = TypeVar("T")


def drive(lab: Answerer, investigations: Sequence[Generator[Need, Answer, T]]) -> list[T]:
    """Run investigations side by side, answering each round of questions together."""
    findings: list[T | None] = [None] * len(investigations)
    pending: dict[int, Need] = {}
    for i, gen in enumerate(investigations):
        try:
            pending[i] = next(gen)
        except StopIteration as stop:
            findings[i] = stop.value
    while pending:
        order = list(pending)
        answers = lab.answer([pending[i] for i in order])
        for i, answer in zip(order, answers, strict=True):
            try:
                pending[i] = investigations[i].send(answer)
            except StopIteration as stop:
                findings[i] = stop.value
                del pending[i]
    return [f for f in findings if f is not None]
