"""The solution's objects as the check sees them (harness/envside/crossing_standins.py).

The module is standard library only; these tests run both sides in this process.
"""

from __future__ import annotations

import operator
import sys
from pathlib import Path

import pytest

from harness.envside import crossing_standins


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
