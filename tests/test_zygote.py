"""What a zygote does before it forks (harness/envside/scheduling/zygote.py), under the host's Python."""

from __future__ import annotations

import sys
import types

import pytest

from harness.envside import protocol
from harness.envside.scheduling import zygote


def test_pyplot_backend_is_started_once_before_forking(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[str] = []
    pyplot = types.ModuleType("matplotlib.pyplot")
    pyplot._get_backend_mod = lambda: started.append("agg")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", pyplot)
    zygote.warm_pyplot()
    assert started == ["agg"]


def test_a_backend_that_fails_to_start_is_left_to_the_children(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken() -> None:
        raise ImportError("no backend here")

    pyplot = types.ModuleType("matplotlib.pyplot")
    pyplot._get_backend_mod = broken  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", pyplot)
    zygote.warm_pyplot()  # no exception: a child that draws meets the error itself


def test_no_pyplot_no_import(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "matplotlib.pyplot", raising=False)
    zygote.warm_pyplot()
    assert "matplotlib.pyplot" not in sys.modules


def test_imports_in_finds_submodules_and_code_strings() -> None:
    code = 'from a.b import c, d as e\nimport x.y, z\nexec_context = """\nimport q\n"""\n'
    assert protocol.imports_in(code) == ["a.b", "a.b.c", "a.b.d", "x.y", "z", "q"]
