"""The environments problems bring with them, as combos.

Some benchmarks condition each problem on one release of one library (GitChameleon:
``scipy==1.8.1`` on Python 3.10) and grade it only there. Such a problem carries
``metadata["env"] = {"python": "3.10", "requirements": ["scipy==1.8.1", ...]}``;
:func:`derive` turns a list of problems into one :class:`~harness.matrix.spec.Combo` per
distinct environment and says which combo each problem runs in, so that the existing
machinery (``EnvBuilder``, ``harness run``) builds and runs them like any other combo.

Pure: nothing is resolved or built here. A problem without ``metadata["env"]`` is not
one of these (it runs in the matrix's combos) and is left out; one whose Python the env
side cannot run is listed in ``unplaced`` with the reason, never silently dropped.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from harness.core.errors import ProblemError
from harness.core.libraries import BY_KEY, installs
from harness.matrix.checks import MIN_PYTHON
from harness.matrix.combos import MAX_ID_LENGTH, slug
from harness.matrix.spec import Combo, LibrarySpec, VersionKind, parse_constraint

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from harness.core.problem import Problem

ORIGIN = "own-envs"  # a combo's origin: derived from its problems, not read from a table
TAG = "own-env"
_HASH_LENGTH = 8


@dataclass(frozen=True)
class OwnEnvs:
    """The combos a list of problems brings, and where each problem goes."""

    combos: tuple[Combo, ...] = ()  # in the order their first problem came
    combo_of: Mapping[str, str] = field(default_factory=dict)  # problem id → combo id
    unplaced: Mapping[str, str] = field(default_factory=dict)  # problem id → why no combo


@dataclass(frozen=True)
class _Env:
    python: str
    requirements: tuple[str, ...]  # as the problem lists them, normalized
    lifted_from: str = ""  # the Python the problem asked for, when older than the floor

    @property
    def key(self) -> tuple[str, tuple[str, ...]]:
        return self.python, tuple(sorted(self.requirements))


def derive(problems: Sequence[Problem], prefix: str = "gc", *, lift: bool = False) -> OwnEnvs:
    """One combo per distinct (Python, sorted requirements) among ``problems``' own
    environments, every package from wheels (a missing wheel is an ``env_error``, never a
    compile); ids like ``gc-py3-10-scipy-1-8-1-<hash>``, named after the first
    requirement of the first problem that needs the env and unique by the hash of the
    whole env. With ``lift``, a Python older than the env side's floor becomes the floor
    (the combo's description says so) instead of leaving the problem unplaced."""
    combos: dict[tuple[str, tuple[str, ...]], Combo] = {}
    combo_of: dict[str, str] = {}
    unplaced: dict[str, str] = {}
    for problem in problems:
        declared = problem.metadata.get("env")
        if declared is None:
            continue
        env = _read(problem, declared)
        if lift and Version(env.python) < MIN_PYTHON:
            env = _Env(str(MIN_PYTHON), env.requirements, lifted_from=env.python)
        if Version(env.python) < MIN_PYTHON:
            unplaced[problem.id] = (
                f"Python {env.python} is older than {MIN_PYTHON}, the oldest the env side runs on"
            )
            continue
        if env.key not in combos:
            combos[env.key] = _combo(env, prefix)
        combo_of[problem.id] = combos[env.key].id
    return OwnEnvs(tuple(combos.values()), combo_of, unplaced)


def _read(problem: Problem, declared: Any) -> _Env:
    """``metadata["env"]``, checked: errors name the problem's file, its id and the key."""

    def fail(key: str, message: str) -> ProblemError:
        return ProblemError(problem.source_file, f"{problem.id}: metadata.env{key}", message)

    if not isinstance(declared, dict):
        raise fail("", "must be a table of python and requirements")
    python = declared.get("python")
    if not isinstance(python, str):
        raise fail(".python", 'must be a version string, e.g. "3.10"')
    try:
        version = Version(python)
    except InvalidVersion:
        raise fail(".python", f"{python!r} is not a Python version") from None
    if len(version.release) < 2 or version.pre or version.dev or version.local:
        raise fail(".python", f"{python!r}: give major.minor, e.g. '3.10'")
    texts = declared.get("requirements")
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise fail(".requirements", "must be a list of strings")
    normalized = []
    for text in texts:
        try:
            normalized.append(str(Requirement(text)))
        except InvalidRequirement:
            raise fail(".requirements", f"{text!r} is not a requirement") from None
    return _Env(python, tuple(dict.fromkeys(normalized)))


def _combo(env: _Env, prefix: str) -> Combo:
    libraries: list[LibrarySpec] = []
    extras: list[str] = []
    for text in env.key[1]:
        spec = _library(Requirement(text))
        if spec is not None and spec.library not in {lib.library for lib in libraries}:
            libraries.append(spec)
        else:
            extras.append(text)  # any other package, or a library named twice
    order = list(BY_KEY)
    return Combo(
        id=_id(env, prefix),
        python=env.python,
        libraries=tuple(sorted(libraries, key=lambda lib: order.index(lib.library))),
        extras=tuple(extras),
        tags=(TAG,),
        description=f"a problem's own env: Python {env.python}, {', '.join(env.requirements)}"
        + (
            f" (it asks for Python {env.lifted_from}; {MIN_PYTHON} is the oldest the env side runs on)"
            if env.lifted_from
            else ""
        ),
        origin=ORIGIN,
        wheels_only=True,
    )


def _library(requirement: Requirement) -> LibrarySpec | None:
    """One of the seven libraries as the combo's library pin; None for any other package
    (and for a requirement with extras, a marker or a URL: that is an extra's job)."""
    library = installs(requirement.name)
    if library is None or requirement.extras or requirement.marker or requirement.url:
        return None
    specifiers = list(requirement.specifier)
    if not specifiers:
        constraint = VersionKind.LATEST.value
    elif (
        len(specifiers) == 1 and specifiers[0].operator == "==" and "*" not in specifiers[0].version
    ):
        constraint = specifiers[0].version
    else:
        constraint = str(requirement.specifier)
    return LibrarySpec(
        library.key, canonicalize_name(requirement.name), constraint, parse_constraint(constraint)
    )


def _id(env: _Env, prefix: str) -> str:
    """``<prefix>-py3-10-<first requirement>-<hash of the whole env>``, at most
    ``MAX_ID_LENGTH`` characters."""
    material = "\n".join([env.python, *env.key[1]])
    digest = hashlib.sha256(material.encode()).hexdigest()[:_HASH_LENGTH]
    head = slug(f"{prefix}-py{env.python}")
    first = Requirement(env.requirements[0]) if env.requirements else None
    label = ""
    if first is not None:
        versions = [s.version for s in first.specifier]
        label = slug("-".join([first.name, *versions]))
    room = MAX_ID_LENGTH - len(head) - len(digest) - 2
    label = label[: max(room, 0)].strip("-")  # cut inside the label only
    return "-".join(part for part in (head, label, digest) if part)


def matrix_toml(combos: Sequence[Combo]) -> str:
    """A ``matrix.toml`` of ``combos``, for ``harness run --matrix``: what
    ``harness.matrix.spec.load`` reads back as the same libraries, extras and Pythons."""
    lines = [
        "# Each problem's own environment, derived by harness.matrix.own_envs.",
        "[matrix]",
        f"wheels_only = {'true' if combos and all(c.wheels_only for c in combos) else 'false'}",
    ]
    for combo in combos:
        lines += ["", f"[combos.{combo.id}]"]
        if combo.description:
            lines.append(f"description = {json.dumps(combo.description)}")
        lines.append(f"python = {json.dumps(combo.python)}")
        for lib in combo.libraries:
            lines.append(f"{lib.library} = {json.dumps(lib.constraint)}")
        if combo.extras:
            lines.append(f"extras = {json.dumps(list(combo.extras))}")
        if combo.tags:
            lines.append(f"tags = {json.dumps(list(combo.tags))}")  # `harness run -t own-env`
        packages = {
            lib.library: lib.package
            for lib in combo.libraries
            if lib.package != BY_KEY[lib.library].package
        }
        if packages:
            table = ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in packages.items())
            lines.append(f"packages = {{ {table} }}")
    return "\n".join(lines) + "\n"


def pins(combo: Combo) -> list[tuple[str, str]]:
    """``(package, version)`` of every exact pin of ``combo``: its libraries and extras."""
    out = [(lib.package, lib.constraint) for lib in combo.libraries if lib.kind is VersionKind.PIN]
    for text in combo.extras:
        requirement = Requirement(text)
        specifiers = list(requirement.specifier)
        if len(specifiers) == 1 and specifiers[0].operator == "==":
            out.append((canonicalize_name(requirement.name), specifiers[0].version))
    return out


def nearest_python(
    combo: Combo, pythons: Sequence[str], has_wheel: Callable[[str, str, str], bool]
) -> str | None:
    """The Python among ``pythons`` nearest to ``combo``'s (the older of two as near) on
    which every pin of it has a wheel (``has_wheel(package, version, python)``); None if
    none has, or if its own Python already has them all."""
    wanted = pins(combo)
    own = Version(combo.python)

    def fits(python: str) -> bool:
        return all(has_wheel(package, version, python) for package, version in wanted)

    if not wanted or fits(combo.python):
        return None
    order = sorted(
        (p for p in pythons if Version(p) != own),
        key=lambda p: (abs(_minor(Version(p)) - _minor(own)), Version(p)),
    )
    return next((p for p in order if fits(p)), None)


def _minor(version: Version) -> int:
    return version.major * 100 + version.minor


def moved(combo: Combo, python: str) -> Combo:
    """``combo`` on ``python`` instead: its own Python has no wheel for one of its pins."""
    old = combo.python
    return replace(
        combo,
        id=combo.id.replace(f"-py{slug(old)}-", f"-py{slug(python)}-", 1),
        python=python,
        description=f"{combo.description} (on Python {python}: a pin has no wheel for {old})",
    )
