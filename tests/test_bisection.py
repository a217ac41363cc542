"""Attribution and bisection logic, driven by a fake lab: no environments needed.

The fake knows the truth (which versions install together, which fail the problem)
and answers the investigations' questions from it, counting how many it was asked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from packaging.version import Version

from harness.core.findings import Finding
from harness.core.problem import REFERENCE, Problem, Solution
from harness.core.results import CapturedWarning, Outcome, Status
from harness.envs.build import EnvInfo
from harness.execute.runner import Execution
from harness.labs import bisection
from harness.labs import lab as lab_mod
from harness.labs.lab import Answer, Need
from harness.matrix.package_index import Index, IndexUnavailableError, ProjectNotFoundError
from harness.matrix.spec import Combo

PANDAS_PROBLEM = Problem(
    "s/1",
    "1",
    "s",
    "pandas",
    "",
    "",
    "def test_execution(s):\n    pass\n",
    requires=("pandas", "numpy"),
)
EXECUTION = Execution(PANDAS_PROBLEM, Solution("s/1", REFERENCE, "x"))
PANDAS = ["1.5.3", "2.0.0", "2.0.1", "2.0.2", "2.0.3", "2.1.0", "2.1.4", "2.2.3", "3.0.0", "3.1.1"]


@dataclass
class FakeLab:
    fails: Callable[[dict[str, str]], bool]  # versions → does the problem fail?
    installs: Callable[[str, dict[str, str]], bool] = lambda py, v: True
    asked: list[Need] = field(default_factory=list)
    reference_passes: bool = False  # True: only non-reference solutions can fail
    message: Callable[[dict[str, str]], str] = lambda vs: (
        "'DataFrame' object has no attribute 'append'"
    )

    # what the resolver makes of the pins: a release that needs a newer companion raises it
    resolve: Callable[[dict[str, str]], dict[str, str]] = lambda vs: vs
    newest: dict[str, str] = field(default_factory=lambda: {"pandas": "2.2.3", "numpy": "2.1.3"})

    def answer(self, needs: Sequence[Need]) -> list[Answer]:
        out = []
        for need in needs:
            self.asked.append(need)
            # an unpinned library resolves to the newest release the fake knows
            versions = self.resolve({k: v or self.newest[k] for k, v in need.pins})
            env = EnvInfo(
                "lab",
                ok=self.installs(need.python, versions),
                python=need.python,
                versions=versions,
            )
            if not env.ok:
                out.append(Answer(env, None))
                continue
            failed = self.fails(versions) and not (
                self.reference_passes and need.execution.solution.source == REFERENCE
            )
            warnings = (
                ()
                if failed
                else (
                    CapturedWarning(
                        "FutureWarning", "frame.append is deprecated", "pandas.core.frame"
                    ),
                )
            )
            outcome = Outcome(
                "lab",
                "lab",
                "s/1",
                REFERENCE,
                Status.ERROR if failed else Status.PASS,
                exc_type="AttributeError" if failed else None,
                message=self.message(versions) if failed else "",
                traceback="/e/site-packages/pandas/core/generic.py:1 in __getattr__",
                warnings=warnings,
                versions=versions,
            )
            out.append(Answer(env, outcome))
        return out


def releases(package: str, python: str) -> list[str]:
    return PANDAS if package == "pandas" else ["1.26.4", "2.0.2", "2.1.3"]


def v(text: str) -> Version:
    return Version(text)


def test_bisection_finds_the_first_bad_release_in_log_steps() -> None:
    lab = FakeLab(fails=lambda vs: v(vs["pandas"]) >= v("2.0.0"))
    (f,) = lab_mod.drive(
        lab,
        [
            bisection.bisect_library(
                EXECUTION, "pandas", "1.5.3", "3.1.1", "3.11", {"numpy": "1.26.4"}, releases
            )
        ],
    )
    assert (f.last_good, f.first_bad, f.candidates) == ("1.5.3", "2.0.0", 10)
    assert f.error == "AttributeError: 'DataFrame' object has no attribute 'append'"
    assert f.warning == "frame.append is deprecated"
    assert f.trials <= 2 + 4  # both ends, then ceil(log2(9)) halvings


def test_unbuildable_releases_are_skipped() -> None:
    lab = FakeLab(
        fails=lambda vs: v(vs["pandas"]) >= v("2.1.0"),
        installs=lambda py, vs: vs["pandas"] not in ("2.0.3", "2.1.0"),
    )
    (f,) = lab_mod.drive(
        lab,
        [
            bisection.bisect_library(
                EXECUTION, "pandas", "1.5.3", "3.1.1", "3.11", {"numpy": "1.26.4"}, releases
            )
        ],
    )
    # 2.1.0 cannot be built, so the first bad release that can is 2.1.4
    assert (f.last_good, f.first_bad) == ("2.0.2", "2.1.4")


def test_same_outcome_at_both_ends() -> None:
    lab = FakeLab(fails=lambda vs: False)
    (f,) = lab_mod.drive(
        lab,
        [bisection.bisect_library(EXECUTION, "pandas", "1.5.3", "3.1.1", "3.11", {}, releases)],
    )
    assert f.first_bad is None
    assert f.how == "the outcome is the same (pass) at both ends"


def file_index(root: Path, pages: dict[str, list[str]]) -> Index:
    """A PEP 503 index in ``root``: each project's page links its pure wheels."""
    for project, versions in pages.items():
        page = root / project / "index.html"
        page.parent.mkdir(parents=True)
        wheels = [f"{project.replace('-', '_')}-{w}-py3-none-any.whl" for w in versions]
        page.write_text("".join(f'<a href="{w}">{w}</a>' for w in wheels))
    return Index(root.as_uri())


def test_releases_are_listed_from_every_index_of_the_combo(tmp_path: Path) -> None:
    """A combo's extra index may hold releases the main one has not, or the whole
    package: bisection walks them all; an index that cannot be asked is an error."""
    main = file_index(tmp_path / "main", {"numpy": ["2.2.5", "2.2.6"], "lib": ["1.0", "1.2"]})
    extra = file_index(tmp_path / "extra", {"lib": ["1.1", "1.2"], "fixture": ["1.0.0", "1.1.0"]})
    releases = bisection.release_lister(main, extra)
    assert releases("lib", "3.11") == ["1.0", "1.1", "1.2"]
    assert releases("fixture", "3.11") == ["1.0.0", "1.1.0"]
    assert releases("numpy", "3.11") == ["2.2.5", "2.2.6"]
    assert bisection.release_lister(main)("lib", "3.11") == ["1.0", "1.2"]
    with pytest.raises(ProjectNotFoundError, match="no page for 'nowhere'"):
        releases("nowhere", "3.11")
    dead = Index("http://127.0.0.1:9/simple", timeout=2)
    with pytest.raises(IndexUnavailableError, match="unreachable"):
        bisection.release_lister(main, dead)("fixture", "3.11")


@dataclass
class RecordingBuilder:
    """Builds nothing: records the combo of each trial env asked for, which cannot resolve."""

    combos: list[Combo] = field(default_factory=list)

    def build(self, combo: Combo, lock: str = "") -> tuple[EnvInfo, str]:
        self.combos.append(combo)
        return EnvInfo(combo.id, ok=False, stage="resolve", error="no solution"), ""


def test_trial_envs_resolve_from_the_labs_extra_index_too() -> None:
    builder = RecordingBuilder()
    lab = lab_mod.Lab(builder, extra_index_url="file:///wheels/simple")  # type: ignore[arg-type]
    pins = (("fixture", "1.1.0"), ("numpy", "2.2.6"))
    assert not lab.env(Need("3.11", pins, EXECUTION, vary="fixture")).ok
    exact, lifted = builder.combos  # then with the others free to rise
    assert exact.extras == ("fixture==1.1.0",) and lifted.extras == ("fixture==1.1.0",)
    assert {c.extra_index for c in builder.combos} == {"file:///wheels/simple"}
    lab_mod.Lab(builder).env(Need("3.11", pins, EXECUTION))  # type: ignore[arg-type]
    assert builder.combos[-1].extra_index is None


def investigation(lab: FakeLab, pythons: list[str], named: str = "") -> Finding:
    good = {"pandas": "1.5.3", "numpy": "1.26.4"}
    bad = {"pandas": "3.1.1", "numpy": "2.1.3"}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bisection, "pythons_between", lambda a, b: pythons)
        (f,) = lab_mod.drive(
            lab,
            [
                bisection.investigate(
                    EXECUTION, "old", "new", good, bad, "3.10.13", "3.13.0", releases, named
                )
            ],
        )
    return f


def test_attribution_swaps_one_library_at_a_time() -> None:
    lab = FakeLab(fails=lambda vs: v(vs["pandas"]) >= v("2.0.0"))
    f = investigation(lab, ["3.10"])
    assert (f.library, f.first_bad, f.python) == ("pandas", "2.0.0", "3.10")
    assert f.how == "changing pandas alone breaks it"
    asked = [dict(n.pins) for n in lab.asked[:3]]
    assert asked == [
        {"pandas": "1.5.3", "numpy": ""},  # the newest numpy that accepts pandas 1.5.3
        {"pandas": "1.5.3", "numpy": "1.26.4"},  # good pandas, numpy held
        {"pandas": "3.1.1", "numpy": "1.26.4"},  # bad pandas, numpy held
    ]


def test_the_library_the_error_names_is_tried_first() -> None:
    # the failure comes from numpy (the old idiom is numpy's), although the problem is pandas'
    lab = FakeLab(fails=lambda vs: v(vs["numpy"]) >= v("2.0.0"))
    f = investigation(lab, ["3.11"], named="numpy")
    assert (f.library, f.first_bad) == ("numpy", "2.0.2")
    assert dict(lab.asked[1].pins) == {"numpy": "1.26.4", "pandas": "1.5.3"}


def test_an_error_of_pythons_own_is_laid_on_python() -> None:
    # unittest's assertAlmostEquals went with Python 3.12: no library swap can be to blame
    lab = FakeLab(fails=lambda vs: True)
    f = investigation(lab, ["3.10", "3.13"], named="python")
    assert (f.library, f.first_bad, lab.asked) == ("python", None, [])
    assert f.how == ("the error names Python's standard library; Python 3.10.13 → 3.13.0")


def test_attribution_moves_to_a_python_where_the_swaps_install() -> None:
    # on 3.10 the new releases do not install; on 3.11 the new numpy does not import old pandas
    def installs(py: str, vs: dict[str, str]) -> bool:
        if py == "3.10":
            return v(vs["pandas"]) < v("3.0.0") and v(vs["numpy"]) < v("2.0.0")
        return not (v(vs["numpy"]) >= v("2.0.0") and v(vs["pandas"]) < v("2.2.0"))

    lab = FakeLab(fails=lambda vs: v(vs["pandas"]) >= v("3.0.0"), installs=installs)
    f = investigation(lab, ["3.10", "3.11"])
    assert (f.library, f.python, f.last_good, f.first_bad) == ("pandas", "3.11", "2.2.3", "3.0.0")


def test_no_single_library_to_blame() -> None:
    # breaks only with both new releases, and no held versions separate them
    lab = FakeLab(
        fails=lambda vs: vs == {"pandas": "3.1.1", "numpy": "2.1.3"},
        newest={"pandas": "2.2.3", "numpy": "1.26.4"},
    )
    f = investigation(lab, ["3.11"])
    assert f.library is None
    assert f.how == "no single library breaks it alone on any Python from 3.10 to 3.13"


def test_shared_questions_are_answered_once() -> None:
    class CountingLab(FakeLab):
        pass

    lab = CountingLab(fails=lambda vs: v(vs["pandas"]) >= v("2.0.0"))
    gens = [
        bisection.bisect_library(EXECUTION, "pandas", "1.5.3", "3.1.1", "3.11", {}, releases)
        for _ in range(3)
    ]
    findings = lab_mod.drive(lab, gens)
    assert {f.first_bad for f in findings} == {"2.0.0"}
    # three investigations, each asked every step in lockstep: one round per step
    assert len(lab.asked) == 3 * findings[0].trials


def test_a_problem_importing_cv2_pins_the_opencv_build_the_lock_installed() -> None:
    """CIBench's OpenCV sessions import ``cv2``; the combo installed the headless build."""
    problem = dataclasses.replace(PANDAS_PROBLEM, library="cv2", requires=("cv2", "numpy"))
    lock = {"opencv-python-headless": "4.9.0.80", "numpy": "1.26.4", "pandas": "1.5.3"}
    pins = bisection.problem_packages(Execution(problem, EXECUTION.solution), lock)
    assert pins == {"opencv-python-headless": "4.9.0.80", "numpy": "1.26.4"}


def test_a_module_the_error_names_is_tried_as_its_distribution() -> None:
    # CIBench's cv2.ml went with OpenCV 5; NumPy 2 also breaks the session (its printed
    # output). The error names the module cv2, the lock the headless build: OpenCV first.
    problem = dataclasses.replace(PANDAS_PROBLEM, library="opencv", requires=("cv2", "numpy"))
    execution = Execution(problem, Solution("s/1", REFERENCE, "x"))
    lab = FakeLab(
        fails=lambda vs: (
            v(vs["numpy"]) >= v("2.0.0") or v(vs["opencv-python-headless"]) >= v("5.0.0")
        ),
        newest={"opencv-python-headless": "4.11.0.86", "numpy": "1.26.4"},
    )
    good = {"opencv-python-headless": "4.11.0.86", "numpy": "1.26.4"}
    bad = {"opencv-python-headless": "5.1.0.95", "numpy": "2.1.3"}
    opencv = ["4.11.0.86", "5.0.0.93", "5.1.0.95"]
    (f,) = lab_mod.drive(
        lab,
        [
            bisection.investigate(
                execution,
                "old",
                "new",
                good,
                bad,
                "3.11.9",
                "3.11.9",
                lambda package, python: opencv if package.startswith("opencv") else [],
                "cv2",
            )
        ],
    )
    assert (f.library, f.last_good, f.first_bad) == (
        "opencv-python-headless",
        "4.11.0.86",
        "5.0.0.93",
    )


def test_a_companion_the_bad_release_refuses_at_run_time_rises() -> None:
    # pandas 3 checks openpyxl's version only when it reads a workbook, so the trial with
    # openpyxl held at the good combo's 3.1.2 fails for that, not for the session's break
    problem = dataclasses.replace(PANDAS_PROBLEM, requires=("pandas", "openpyxl", "numpy"))
    execution = Execution(problem, Solution("s/1", REFERENCE, "x"))

    def message(vs: dict[str, str]) -> str:
        if v(vs["openpyxl"]) < v("3.1.5"):
            return "Pandas requires version '3.1.5' or newer of 'openpyxl' (version '3.1.2' currently installed)."
        return "KeyError: 1"

    lab = FakeLab(
        fails=lambda vs: v(vs["pandas"]) >= v("3.0.0"),
        message=message,
        newest={"pandas": "2.3.3", "numpy": "1.26.4", "openpyxl": "3.1.2"},
    )
    good = {"pandas": "2.3.3", "numpy": "1.26.4", "openpyxl": "3.1.2"}
    bad = {"pandas": "3.0.0", "numpy": "1.26.4", "openpyxl": "3.1.5"}
    (f,) = lab_mod.drive(
        lab,
        [
            bisection.investigate(
                execution, "old", "new", good, bad, "3.11.9", "3.11.9", releases, "pandas"
            )
        ],
    )
    assert (f.library, f.first_bad) == ("pandas", "3.0.0")
    assert f.error is not None and "KeyError: 1" in f.error
    assert {"pandas": "3.0.0", "numpy": "1.26.4", "openpyxl": "3.1.5"} in [
        dict(n.pins) for n in lab.asked
    ]


def test_a_release_that_breaks_only_through_a_companion_it_raised_is_not_the_first_bad() -> None:
    # OpenCV 4.12 needs NumPy 2, whose scalars print otherwise; the session's own break,
    # cv2.ml, is OpenCV 5's: 4.12 is dropped from the search like a release that does not build
    problem = dataclasses.replace(PANDAS_PROBLEM, library="cv2", requires=("cv2", "numpy"))
    execution = Execution(problem, Solution("s/1", REFERENCE, "x"))

    def resolve(vs: dict[str, str]) -> dict[str, str]:
        rises = v(vs["opencv-python-headless"]) >= v("4.12") and v(vs["numpy"]) < v("2")
        return {**vs, "numpy": "2.0.2"} if rises else vs

    def message(vs: dict[str, str]) -> str:
        if v(vs["opencv-python-headless"]) >= v("5"):
            return "module 'cv2' has no attribute 'ml'"
        return "module 'numpy' has no attribute 'float'"

    lab = FakeLab(
        fails=lambda vs: v(vs["numpy"]) >= v("2") or v(vs["opencv-python-headless"]) >= v("5"),
        message=message,
        resolve=resolve,
        newest={"opencv-python-headless": "4.11.0.86", "numpy": "1.26.4"},
    )
    good = {"opencv-python-headless": "4.11.0.86", "numpy": "1.26.4"}
    bad = {"opencv-python-headless": "5.1.0.95", "numpy": "2.1.3"}
    opencv = ["4.11.0.86", "4.12.0.88", "5.0.0.93", "5.1.0.95"]
    (f,) = lab_mod.drive(
        lab,
        [
            bisection.investigate(
                execution,
                "old",
                "new",
                good,
                bad,
                "3.11.9",
                "3.11.9",
                lambda package, python: opencv if package.startswith("opencv") else [],
                "cv2",
            )
        ],
    )
    assert (f.library, f.last_good, f.first_bad) == (
        "opencv-python-headless",
        "4.11.0.86",
        "5.0.0.93",
    )
    assert f.error is not None and "cv2" in f.error
