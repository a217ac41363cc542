"""The solution's objects as the check sees them (harness/envside/bridge/crossing_standins.py).

The module is standard library only; these tests run both sides in this process.
"""

from __future__ import annotations

import operator
import os
import sys
from pathlib import Path

import pytest

from harness.envside.bridge import crossing_standins


def test_a_stand_in_answers_no_comparison() -> None:
    stand_in = crossing_standins.stand_in("object", 1, None)
    assert stand_in != 0
    assert stand_in != stand_in.__class__
    assert operator.eq(stand_in, stand_in)
    assert hash(stand_in) == id(stand_in)
    with pytest.raises(AttributeError):
        stand_in.equals  # type: ignore[attr-defined]  # noqa: B018 - not the check's to call
    with pytest.raises(AttributeError):
        stand_in.x = 1


def test_a_module_the_answer_names_is_a_public_installed_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert crossing_standins.installed_module("json") is sys.modules["json"]
    # not imported yet here, public, in the standard library: imported from there
    monkeypatch.delitem(sys.modules, "email.mime.audio", raising=False)
    found = crossing_standins.installed_module("email.mime.audio")
    assert found is not None and found.__name__ == "email.mime.audio"
    # a package's program is not a library: never imported by the answer's word
    assert crossing_standins.installed_module("json.__main__") is None
    assert "json.__main__" not in sys.modules
    # a module where the answer can write (its working directory) is not installed
    (tmp_path / "planted_by_the_answer.py").write_text("import sys\nsys.exit('ran')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert crossing_standins.installed_module("planted_by_the_answer") is None
    assert "planted_by_the_answer" not in sys.modules
    assert crossing_standins.installed_module("no_such_module_anywhere") is None
    assert crossing_standins.installed_module("os.path; import x") is None


def test_a_module_imported_on_the_answers_word_reads_nothing_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # matplotlib reads ./matplotlibrc as it is imported: a file the answer could have
    # written in the working directory it shares with the check
    site, work = tmp_path / "site", tmp_path / "work"
    site.mkdir()
    work.mkdir()
    (work / "settings.rc").write_text("planted\n")
    (site / "reads_its_folder.py").write_text(
        "import os\nSEEN = os.getcwd()\nFOUND = os.path.exists('settings.rc')\n"
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(
        crossing_standins, "_installed_roots", lambda: [os.path.realpath(site) + os.sep]
    )
    monkeypatch.chdir(work)
    found = crossing_standins.installed_module("reads_its_folder")
    assert found is not None
    assert (found.SEEN, found.FOUND) == ("/", False)
    assert Path.cwd() == work.resolve()  # and back where it was
