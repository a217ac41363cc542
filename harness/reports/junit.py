"""JUnit XML: one test suite per combo, one test case per (problem, solution source).

CI systems render these natively: ``classname`` is the problem id, ``name`` the
source (``reference`` or ``model:<name>``); a wrong result is a failure, any other
way of not passing is an error, and a problem that does not apply is skipped. An
execution graded in parts (unit tests, session steps) lists them in its failure's text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from junitparser import Error, Failure, JUnitXml, Skipped, TestCase, TestSuite

from harness.core.results import Outcome, Status

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from harness.envs.build import EnvInfo


# what XML 1.0 cannot hold at all, not even escaped: C0 controls but tab, newline and
# carriage return, lone surrogates, U+FFFE and U+FFFF (a program's output may carry any)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """``text`` with each character XML cannot hold written as its escape, ``\\x1b``."""
    return _NOT_XML.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def _case(o: Outcome) -> TestCase:
    case = TestCase(xml_text(o.source), xml_text(o.problem_id), o.duration_s)
    line = xml_text(o.first_line or o.status.value)
    result: Failure | Skipped | Error | None
    if o.status is Status.FAIL:
        result = Failure(line, o.exc_type or "AssertionError")
    elif o.status is Status.SKIPPED:
        result = Skipped(line)
    elif o.status is not Status.PASS:
        result = Error(line, o.exc_type or o.status.value)
    else:
        result = None
    if result is not None:
        graded = [
            f"{p.status:7} {p.name}" + (f": {p.message}" if p.message else "") for p in o.parts
        ]
        result.text = xml_text(
            "\n".join(part for part in (o.message, "\n".join(graded), o.traceback) if part)
        )
        case.result = [result]
        if o.output:
            case.system_out = xml_text(o.output)
    return case


def suite(combo: str, env: EnvInfo, outcomes: Sequence[Outcome]) -> TestSuite:
    s = TestSuite(combo)
    s.add_property("python", env.python or "")
    for key, version in env.library_versions().items():
        s.add_property(key, version)
    if not env.ok:
        s.add_property("env_error", xml_text(f"{env.stage}: {env.error}"))
    # add_testcase recounts the whole suite after each case: quadratic in a run's size
    s.add_testcases([_case(o) for o in sorted(outcomes, key=lambda o: o.seq)])
    s.update_statistics()
    return s


def write(suites: Sequence[TestSuite], per_combo: dict[str, Path], merged: Path) -> None:
    for s in suites:
        path = per_combo[str(s.name)]
        path.parent.mkdir(parents=True, exist_ok=True)
        one = JUnitXml(str(s.name))
        one.add_testsuite(s)
        one.update_statistics()
        one.write(str(path), pretty=True)
    everything = JUnitXml(merged.parent.name)
    for s in suites:
        everything.add_testsuite(s)
    everything.update_statistics()
    everything.write(str(merged), pretty=True)
