"""The embedded default: what runs in a folder without a matrix.toml or problems/, and
the one line saying so. (The wheel's own copy is tested in tests/test_package.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.app.plan import nightly_request
from harness.cli import main
from harness.core import defaults
from harness.execute.rundir import RunRequest
from harness.matrix.nightly_table import NightlySpec

ROOT = Path(__file__).resolve().parents[1]


def test_in_a_clone_the_embedded_default_is_the_repository_s_own() -> None:
    root = defaults.embedded_root()
    assert root == ROOT
    assert defaults.caller_workflow() == ROOT / "docs" / "examples" / defaults.CALLER


def test_an_empty_folder_gets_the_embedded_matrix_and_problems(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert defaults.matrix() == defaults.matrix("matrix.toml") == str(ROOT / "matrix.toml")
    assert defaults.problems() == (str(ROOT / "problems"),)
    said = defaults.notice("matrix.toml", [])
    assert said is not None and said.startswith("no matrix.toml or problems/ here")
    assert str(ROOT) in said and "harness init" in said
    # a file named on purpose stays what was named: missing, it is an error later
    assert defaults.matrix("other.toml") == "other.toml"


def test_a_folder_s_own_files_win_and_nothing_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "matrix.toml").write_text("")
    assert defaults.matrix() == "matrix.toml"
    assert defaults.notice("matrix.toml", ["ds1000"]) is None  # problems given: not ours
    said = defaults.notice("matrix.toml", [])
    assert said is not None and said.startswith("no problems/ here")
    (tmp_path / "problems").mkdir()
    assert defaults.problems() == ("problems",)
    assert defaults.notice("matrix.toml", []) is None
    assert defaults.notice(None, None) is None  # a command reading neither


def test_harness_combos_in_an_empty_folder_lists_the_default_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["combos"]) == 0
    out, err = capsys.readouterr()
    assert [line.split()[0] for line in out.splitlines()] == [
        "ds1000-2022",
        "ds1000-2024",
        "latest",
    ]
    assert err.count("\n") == 1 and "no matrix.toml here: using the embedded default" in err
    assert main(["combos", "--matrix", "missing.toml"]) == 2  # named on purpose: an error
    assert "missing.toml" in capsys.readouterr().err


def test_the_nightly_s_problems_are_beside_the_matrix_else_the_default(tmp_path: Path) -> None:
    request = RunRequest(nightly=True)
    assert nightly_request(request, NightlySpec(), tmp_path).problems == ()  # the default
    (tmp_path / "problems").mkdir()
    beside = nightly_request(request, NightlySpec(), tmp_path).problems
    assert beside == (str(tmp_path / "problems"),)
    declared = NightlySpec(problems=("ds1000",))
    assert nightly_request(request, declared, tmp_path).problems == ("ds1000",)
