"""Measuring the guard's allowlist from recorded runs, and writing it for review."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.core.errors import UsageError
from harness.core.results import Outcome, Status, write_json
from harness.envside.transport import Allowlist
from harness.execute import allowlist
from harness.execute.rundir import RunDir


def recorded_run(root: Path, name: str, usages: list[dict[str, list[str]]]) -> Path:
    run = RunDir(root / name)
    run.root.mkdir(parents=True)
    run.env_info("c1").parent.mkdir()
    write_json(run.manifest, {"run_id": name})
    write_json(
        run.env_info("c1"),
        {"python": "3.11.7", "versions": {"numpy": "2.2.6", "pandas": "2.2.3"}},
    )
    with run.outcomes("c1").open("w", encoding="utf-8") as fh:
        for seq, usage in enumerate(usages):
            outcome = Outcome(
                run_id=name,
                combo="c1",
                problem_id=f"p{seq}",
                source="reference",
                status=Status.PASS,
                python="3.11.7",
                seq=seq,
                transport=usage,
            )
            fh.write(json.dumps(outcome.to_dict()) + "\n")
    return run.root


USAGE = {
    "globals": ["numpy:ndarray build ref", "numpy.core.multiarray:_reconstruct call ref"],
    "events": ["sys._getframe"],
    "shadows": ["matplotlib.axes._axes:Axes cla,drag_pan"],
    "refusable": [],
}


def test_a_recorded_run_becomes_a_reviewable_file(tmp_path: Path) -> None:
    run = recorded_run(tmp_path, "r", [USAGE])
    out = tmp_path / "allowlist.txt"
    measured = allowlist.update([run], out, replace=True)
    text = out.read_text()
    assert measured.executions == 1
    assert "\n[numpy]\n" in text
    assert "numpy:ndarray build" in text
    assert "# numpy 2.2.6" in text
    assert "matplotlib.axes._axes:Axes shadow=cla,drag_pan" in text
    assert "event sys._getframe" in text
    # what the env side reads from it
    parsed = Allowlist.parse(text)
    assert parsed.entries[("numpy.core.multiarray", "_reconstruct")] == {"ref", "call"}
    assert parsed.entries[("numpy", "ndarray")] == {"ref", "build"}
    assert parsed.shadows[("matplotlib.axes._axes", "Axes")] == {"cla", "drag_pan"}
    assert parsed.events == frozenset({"sys._getframe"})


def test_measuring_again_keeps_every_line_and_adds_releases(tmp_path: Path) -> None:
    out = tmp_path / "allowlist.txt"
    out.write_text(
        "# reviewed by hand\n[numpy]\nnumpy:ndarray build  # numpy 1.26.4\n"
        "mypackage:Thing call  # added by a maintainer\n"
    )
    allowlist.update([recorded_run(tmp_path, "r", [USAGE])], out)
    parsed = allowlist.parse(out.read_text())
    assert dict(parsed.globals["numpy:ndarray"].seen) == {"numpy": {"1.26.4", "2.2.6"}}
    assert "mypackage:Thing" in parsed.globals  # never dropped by a measurement
    assert parsed.globals["mypackage:Thing"].permissions == {"call"}


def test_render_is_stable(tmp_path: Path) -> None:
    run = recorded_run(tmp_path, "r", [USAGE, USAGE])
    first = allowlist.render(allowlist.measure([run]))
    assert allowlist.render(allowlist.parse(first)) == first


def test_a_run_without_recorded_values_says_so(tmp_path: Path) -> None:
    run = recorded_run(tmp_path, "r", [{}])
    with pytest.raises(UsageError, match="were they run with --guard-record"):
        allowlist.measure([run])


def test_not_a_run_directory(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a run directory"):
        allowlist.measure([tmp_path])


def test_the_shipped_file_is_what_render_writes() -> None:
    # the file in the repository is the tool's output (plus review), not hand-formatted
    text = allowlist.SHIPPED.read_text(encoding="utf-8")
    assert allowlist.render(allowlist.parse(text)) == text


def test_a_line_the_guard_would_not_read_is_never_written(tmp_path: Path) -> None:
    # an event of code evaluation can never be allowed, whatever a measurement saw
    usage = {**USAGE, "events": ["exec"]}
    out = tmp_path / "allowlist.txt"
    out.write_text("numpy:ndarray build\n")
    with pytest.raises(UsageError, match=r"allowlist.txt:\d+: the event exec can never be allowed"):
        allowlist.update([recorded_run(tmp_path, "r", [usage])], out)
    assert out.read_text() == "numpy:ndarray build\n"  # left as it was


def test_what_was_used_beside_something_never_admitted_is_not_listed(tmp_path: Path) -> None:
    # a Keras model rebuilds itself by evaluating code: that value can never come back,
    # so what else it used is not listed either
    keras = {
        "globals": ["keras.src.models:Model._unpickle_model call ref"],
        "refusable": ["event exec"],
    }
    run = recorded_run(tmp_path, "r", [USAGE, keras])
    measured = allowlist.measure([run])
    assert "keras.src.models:Model._unpickle_model" not in measured.globals
    assert "numpy:ndarray" in measured.globals
    assert measured.refusable == {"event exec"}
