"""The guard's allowlist: read by the one parser both sides use
(harness/envside/allowlist.py), measured from recorded runs and written for review
(harness/execute/allowlist.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.core.errors import UsageError
from harness.core.results import Outcome, Status, write_json
from harness.envside.allowlist import NEVER, Allowlist, shipped_allowlist
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


# -- the file as the guard reads it ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text_", "message"),
    [
        ("event exec", "the event exec can never be allowed"),
        ("event os.system", "the event os.system can never be allowed"),
        ("numpy ndarray", "expected module:qualname"),
        ("numpy:ndarray sometimes", "unknown permission 'sometimes'"),
        ("numpy:ndarray shadow", "unknown permission 'shadow'"),
    ],
)
def test_bad_allowlist_lines_name_their_line(text_: str, message: str) -> None:
    with pytest.raises(ValueError, match=f"^extra:2: {message}"):
        Allowlist.parse("# a comment\n" + text_, "extra")


def test_the_shipped_allowlist_parses() -> None:
    shipped = Allowlist.shipped()
    assert ("numpy", "ndarray") in shipped.entries or (
        "numpy.core.multiarray",
        "_reconstruct",
    ) in shipped.entries
    assert not any(e.startswith(NEVER) for e in shipped.events)


def test_an_extra_allowlist_adds_to_the_shipped_one() -> None:
    combined = shipped_allowlist("mypackage.things:Thing call build")
    assert combined.entries[("mypackage.things", "Thing")] == {"ref", "call", "build"}
    assert set(Allowlist.shipped().entries) < set(combined.entries)


def test_allowlists_are_parsed_once_per_process() -> None:
    extra = "mypackage.things:Thing call"
    assert shipped_allowlist() is shipped_allowlist()
    assert shipped_allowlist(extra) is shipped_allowlist(extra)
    assert shipped_allowlist(extra) is not shipped_allowlist()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("event exec", "the event exec can never be allowed"),
        ("event", "'event' takes one event name"),
        ("numpy:ndarray sometimes", "unknown permission 'sometimes'"),
    ],
)
def test_the_host_reads_a_file_as_the_guard_does(tmp_path: Path, line: str, message: str) -> None:
    # the host measures and writes the file with the guard's own parser: a line the guard
    # would refuse is refused here too, in one line naming the file and the line
    out = tmp_path / "allowlist.txt"
    out.write_text(f"[numpy]\nnumpy:ndarray build\n{line}\n")
    with pytest.raises(UsageError, match=f"{re.escape(str(out))}:3: {message}$"):
        allowlist.update([recorded_run(tmp_path, "r", [USAGE])], out)


def test_both_sides_read_the_shipped_file_alike() -> None:
    measured = allowlist.parse(allowlist.SHIPPED.read_text(encoding="utf-8"))
    guard = Allowlist.shipped()
    assert {tuple(name.split(":", 1)) for name in measured.globals} == set(guard.entries)
    assert {
        tuple(name.split(":", 1))
        for name, line in measured.globals.items()
        if "raise" in line.permissions
    } == set(guard.raised)
    assert guard.raised  # measured: the library classes the benchmarks' tests expect
    assert set(measured.events) == guard.events
    for name, line in measured.globals.items():
        key = (name.split(":", 1)[0], name.split(":", 1)[1])
        permissions = {"ref", *line.permissions} - {"raise"}
        assert permissions | ({"shadow"} if line.shadows else set()) == guard.entries[key]
        assert line.shadows == guard.shadows.get(key, set())


def test_an_exception_class_is_listed_to_be_raised(tmp_path: Path) -> None:
    # what the checker noted while measuring: an answer's exception came back as this class
    usage = {**USAGE, "globals": [*USAGE["globals"], "json.decoder:JSONDecodeError raise ref"]}
    out = tmp_path / "allowlist.txt"
    allowlist.update([recorded_run(tmp_path, "r", [usage])], out, replace=True)
    text = out.read_text()
    assert "\njson.decoder:JSONDecodeError raise " in text
    parsed = Allowlist.parse(text)
    assert parsed.raised == frozenset({("json.decoder", "JSONDecodeError")})
    assert parsed.entries[("json.decoder", "JSONDecodeError")] == {"ref"}  # as any line
    assert allowlist.render(allowlist.parse(text)) == text
    both = Allowlist.parse("numpy:ndarray build raise\n")
    assert both.entries[("numpy", "ndarray")] == {"ref", "build"}
    assert both.raised == frozenset({("numpy", "ndarray")})
    # a line that says nothing more lets nothing be raised
    assert Allowlist.parse("numpy:ndarray build\n").raised == frozenset()


@pytest.mark.parametrize(
    "line",
    [
        "unittest.case:_ShouldStop raise",
        "unittest:SkipTest raise",
        "_pytest.outcomes:Exit raise",
        "pytest:UsageError call raise",
        "bdb:BdbQuit raise",
    ],
)
def test_no_line_may_let_a_frameworks_exception_be_raised(line: str) -> None:
    with pytest.raises(ValueError, match=r"allowlist:1: .* test framework's"):
        Allowlist.parse(line + "\n")
    # the same name may still be listed for what a value's pickle does with it
    Allowlist.parse(line.replace("raise", "").strip() + "\n")
