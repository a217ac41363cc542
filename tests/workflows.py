"""Checks of a workflow that calls the reusable workflow ``.github/workflows/harness.yml``
against the inputs that workflow declares: what GitHub would refuse when the caller
runs, found before it does."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

REUSABLE_NAME = "harness.yml"
# an expression GitHub evaluates when the caller runs: its type is not known here
_EXPRESSION = re.compile(r"^\s*\$\{\{.*\}\}\s*$", re.DOTALL)
# ``owner/repo/.github/workflows/harness.yml@ref`` or ``./.github/workflows/harness.yml``
_REMOTE = re.compile(r"^[\w.-]+/[\w.-]+/\.github/workflows/(?P<file>[^/@]+)@(?P<ref>\S+)$")
_LOCAL = re.compile(r"^(?:\./|\$/)\.github/workflows/(?P<file>[^/@]+)$")
_LEVELS = {"none": 0, "read": 1, "write": 2}


def load(text: str) -> dict[str, Any]:
    """A workflow's YAML; PyYAML reads the key ``on`` as ``True``, put back here."""
    doc = yaml.safe_load(text)
    if not isinstance(doc, dict):
        return {}
    if True in doc:
        doc["on"] = doc.pop(True)
    return doc


def declared_inputs(reusable_path: Path) -> dict[str, dict[str, Any]]:
    """The ``workflow_call`` inputs of the reusable workflow, by name."""
    on = load(reusable_path.read_text(encoding="utf-8")).get("on") or {}
    call = on.get("workflow_call") if isinstance(on, dict) else None
    inputs = (call or {}).get("inputs") or {}
    return {str(name): dict(spec or {}) for name, spec in inputs.items()}


def asked_permissions(reusable_path: Path) -> dict[str, str]:
    """Each scope the reusable workflow's jobs ask for, at the highest level asked."""
    jobs = load(reusable_path.read_text(encoding="utf-8")).get("jobs") or {}
    asked: dict[str, str] = {}
    for job in jobs.values():
        for scope, level in (job.get("permissions") or {}).items():
            if _LEVELS.get(str(level), 0) > _LEVELS.get(asked.get(scope, "none"), 0):
                asked[str(scope)] = str(level)
    return asked


def caller_problems(caller_text: str, reusable_path: Path) -> list[str]:
    """The mistakes of a caller of ``reusable_path``, one line each (none: it is right).

    Every job that calls a workflow must name ``harness.yml`` (a remote one with an
    ``@ref``); each ``with:`` key is a declared input, each required input is given,
    a boolean input is given a boolean (or an expression), a number input a number,
    a string input no boolean; the token the job gets (its ``permissions``, else the
    workflow's) grants what the reusable workflow's jobs ask for.
    """
    doc = load(caller_text)
    jobs = doc.get("jobs")
    if not isinstance(jobs, dict):
        return ["jobs: none"]
    callers = {name: job for name, job in jobs.items() if isinstance(job, dict) and "uses" in job}
    if not callers:
        return [f"jobs: none calls {REUSABLE_NAME} (a job with `uses:`)"]
    inputs = declared_inputs(reusable_path)
    problems: list[str] = []
    for name, job in callers.items():
        where = f"jobs.{name}"
        problems += _uses_problems(where, str(job["uses"]))
        given = job.get("with") or {}
        if not isinstance(given, dict):
            problems.append(f"{where}.with: not a mapping of inputs")
            given = {}
        for key, value in given.items():
            spec = inputs.get(str(key))
            if spec is None:
                known = ", ".join(sorted(inputs))
                problems.append(f"{where}.with.{key}: not an input of {REUSABLE_NAME} ({known})")
                continue
            problems += _type_problems(f"{where}.with.{key}", spec.get("type", "string"), value)
        for key, spec in inputs.items():
            if spec.get("required") and "default" not in spec and key not in given:
                problems.append(f"{where}.with: the required input {key} is not given")
        granted = job["permissions"] if "permissions" in job else doc.get("permissions")
        problems += _permission_problems(where, granted, asked_permissions(reusable_path))
    return problems


def _uses_problems(where: str, uses: str) -> list[str]:
    match = _REMOTE.match(uses) or _LOCAL.match(uses)
    if match is None:
        expected = f"owner/repo/.github/workflows/{REUSABLE_NAME}@ref"
        return [
            f"{where}.uses: {uses!r} is neither {expected} nor ./.github/workflows/{REUSABLE_NAME}"
        ]
    if match["file"] != REUSABLE_NAME:
        return [f"{where}.uses: {uses!r} does not name {REUSABLE_NAME}"]
    return []


def _type_problems(where: str, kind: str, value: Any) -> list[str]:
    if isinstance(value, str) and _EXPRESSION.match(value):
        return []
    if kind == "boolean" and not isinstance(value, bool):
        return [f"{where}: a boolean input, given {value!r} (write true or false, unquoted)"]
    if kind == "number" and (isinstance(value, bool) or not isinstance(value, int | float)):
        return [f"{where}: a number input, given {value!r}"]
    if kind == "string" and isinstance(value, bool):
        return [f"{where}: a string input, given the boolean {value!r} (quote it)"]
    return []


def _permission_problems(where: str, granted: Any, asked: dict[str, str]) -> list[str]:
    if granted is None:  # the repository's default token: not known here
        return []
    if granted == "write-all":
        return []
    if granted == "read-all":
        granted = dict.fromkeys(asked, "read")
    if not isinstance(granted, dict):
        return [f"{where}.permissions: {granted!r} is not a mapping of scopes"]
    return [
        f"{where}.permissions: {scope}: {level} is needed, the caller grants "
        f"{granted.get(scope, 'none')}"
        for scope, level in sorted(asked.items())
        if _LEVELS.get(str(granted.get(scope, "none")), 0) < _LEVELS[level]
    ]
