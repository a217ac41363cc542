"""One env per combo: lock parsing and hashing, requirements, uv's arguments, reuse.

uv is replaced by a fake that records its arguments and plays the part of each
command (``pip compile`` writes a lock, ``venv`` makes a directory), so every
decision — resolve or not, build or reuse, fall back or fail — is checked without the
network. One test marked ``network`` builds a real (tiny) env.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.version import Version

from harness.envs import interpreters
from harness.envs.build import (
    READY_MARKER,
    EnvBuilder,
    EnvInfo,
    binary_args,
    lock_hash,
    parse_lock,
    unwheeled_extra,
    uv_binary,
)
from harness.matrix.package_index import Index, IndexUnavailableError
from harness.matrix.spec import Combo, LibrarySpec, VersionKind
from tests.fakeuv import FULL, LOCK, FakeUv, install

PY = f"{sys.version_info.major}.{sys.version_info.minor}"


@pytest.mark.parametrize(
    ("text", "pins"),
    [
        ("", {}),
        ("numpy==1.26.4\n", {"numpy": "1.26.4"}),
        ("# a comment\n\n    # via pandas\nnumpy==2.2.6\n", {"numpy": "2.2.6"}),
        ("  pandas==2.2.3  \n", {"pandas": "2.2.3"}),  # indented
        ("Scikit_Learn==1.5.2\n", {"scikit-learn": "1.5.2"}),  # names normalized
        ("zope.interface==7.1\n", {"zope-interface": "7.1"}),
        ("tzdata==2024.1 ; sys_platform == 'win32'\n", {"tzdata": "2024.1"}),  # a marker
        ("torch==2.5.1+cpu \\\n    --hash=sha256:abc\n", {"torch": "2.5.1+cpu"}),  # hashes
        ("numpy>=1.26\n-e ./local\n--index-url x\n", {}),  # not pins
        ("numpy==1.0\nnumpy==2.0\n", {"numpy": "2.0"}),  # the last pin of a name wins
    ],
)
def test_parse_lock(text: str, pins: dict[str, str]) -> None:
    assert parse_lock(text) == pins


def test_lock_hash_is_the_pins_and_the_interpreter() -> None:
    digest = lock_hash(LOCK, FULL)
    assert re.fullmatch(r"[0-9a-f]{64}", digest)
    # comments, order and spelling of names do not make another env
    assert lock_hash("six==1.16.0\n# other comment\nNumPy==1.26.4\n", FULL) == digest
    # another pin or another interpreter does
    assert lock_hash(LOCK.replace("1.16.0", "1.17.0"), FULL) != digest
    assert lock_hash(LOCK, "3.11.8") != digest
    assert lock_hash("", FULL) != lock_hash("", "3.11.8")


def test_env_info_round_trips_and_names_its_python(tmp_path: Path) -> None:
    info = EnvInfo(
        "a",
        ok=True,
        python=FULL,
        path=str(tmp_path),
        lock_hash="f" * 64,
        requirements=("numpy==1.26.4",),
        versions={"numpy": "1.26.4"},
        imports={"numpy": {"ok": True}},
        note="resumed",
    )
    data = info.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["requirements"] == ["numpy==1.26.4"]
    assert EnvInfo.from_dict(data) == info
    assert info.python_exe == tmp_path / "bin" / "python"
    failed = EnvInfo("b", ok=False, stage="resolve", error="no")
    assert EnvInfo.from_dict(failed.to_dict()) == failed


@pytest.mark.parametrize(
    ("versions", "expected"),
    [
        ({}, {}),
        ({"numpy": "2.2.6", "six": "1.16.0"}, {"numpy": "2.2.6"}),
        ({"tensorflow-cpu": "2.15.0"}, {"tensorflow": "2.15.0"}),
        ({"tensorflow": "2.18.0"}, {"tensorflow": "2.18.0"}),
        ({"tensorflow": "2.18.0", "tensorflow-cpu": "2.15.0"}, {"tensorflow": "2.15.0"}),
        ({"scikit-learn": "1.5.2", "torch": "2.5.1"}, {"scikit-learn": "1.5.2", "torch": "2.5.1"}),
        (
            dict.fromkeys(("torch", "scipy", "pandas", "numpy", "matplotlib"), "1"),
            dict.fromkeys(("numpy", "pandas", "scipy", "matplotlib", "torch"), "1"),
        ),
    ],
)
def test_library_versions(versions: dict[str, str], expected: dict[str, str]) -> None:
    got = EnvInfo("a", ok=True, versions=versions).library_versions()
    assert got == expected
    assert list(got) == list(expected)  # in the libraries' order


def test_uv_is_found() -> None:
    assert Path(uv_binary()).is_file()


# -- a fake uv ----------------------------------------------------------------------------


@pytest.fixture
def uv(monkeypatch: pytest.MonkeyPatch) -> FakeUv:
    return install(monkeypatch)


def lib(key: str, constraint: str, package: str | None = None) -> LibrarySpec:
    kind = {"latest": "latest", "oldest": "oldest", "pre": "pre"}.get(constraint)
    if kind is None:
        kind = "pin" if constraint[0].isdigit() else "specifier"
    return LibrarySpec(key, package or key, constraint, VersionKind(kind))


BARE = Combo("bare", PY, (), extras=("six==1.16.0",))


class OldestIndex(Index):
    """An index that answers ``oldest`` without asking anyone."""

    def __init__(self, oldest: Version | Exception) -> None:
        super().__init__("https://pypi.org/simple")
        self.answer = oldest
        self.asked: list[tuple[str, str, dt.date | None]] = []

    def oldest(self, project: str, python: str, as_of: dt.date | None = None) -> Version:
        self.asked.append((project, python, as_of))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer

    def versions_with_wheels(
        self,
        project: str,
        python: str,
        *,
        pre: bool = False,
        as_of: dt.date | None = None,
        yanked: bool = False,
    ) -> list[Version]:
        self.asked.append((f"{project} pre={pre}", python, as_of))
        if isinstance(self.answer, Exception):
            raise self.answer
        return [Version("1.2.0"), Version("1.3.0rc1")]


def test_requirements_for_each_kind_of_version(tmp_path: Path, uv: FakeUv) -> None:
    index = OldestIndex(Version("1.21.0"))
    combo = Combo(
        "c",
        PY,
        (
            lib("numpy", "oldest"),
            lib("pandas", ">=2,<3"),
            lib("scipy", "latest"),
            lib("scikit-learn", "pre"),
            lib("tensorflow", "2.15.0", "tensorflow-cpu"),
        ),
        extras=("seaborn==0.13.2", "pillow"),
        as_of=dt.date(2023, 1, 1),
    )
    assert EnvBuilder(tmp_path, index).requirements(combo, FULL) == [
        "numpy==1.21.0",
        "pandas>=2,<3",
        "scipy",
        # uv takes a pre-release only where a requirement names one: the newest, as of then
        "scikit-learn>=1.3.0rc1",
        "tensorflow-cpu==2.15.0",
        "seaborn==0.13.2",
        "pillow",
    ]
    day = dt.date(2023, 1, 1)
    assert index.asked == [("numpy", FULL, day), ("scikit-learn pre=True", FULL, day)]
    # without the index's answer, the request is left to uv as it stands
    offline = OldestIndex(IndexUnavailableError("https://pypi.org/simple: unreachable"))
    pre_only = Combo("c", PY, (lib("scikit-learn", "pre"),))
    assert EnvBuilder(tmp_path, offline).requirements(pre_only, FULL) == ["scikit-learn>=0.0.0a0"]


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (
            IndexUnavailableError("https://pypi.org/simple: unreachable (dns)"),
            "numpy = 'oldest': https://pypi.org/simple: unreachable (dns)",
        ),
        (
            LookupError("no release of numpy has a wheel for Python 3.11"),
            "numpy = 'oldest': no release of numpy has a wheel for Python 3.11",
        ),
    ],
)
def test_an_oldest_that_cannot_be_found_is_a_resolve_error(
    tmp_path: Path, uv: FakeUv, answer: Exception, error: str
) -> None:
    combo = Combo("c", PY, (lib("numpy", "oldest"),))
    info, lock = EnvBuilder(tmp_path, OldestIndex(answer)).build(combo)
    assert (info.ok, info.stage, info.error, info.python, lock) == (
        False,
        "resolve",
        error,
        FULL,
        "",
    )
    assert uv.calls == []  # nothing was resolved


def compile_args(tmp_path: Path, uv: FakeUv, combo: Combo, index: Index | None = None) -> list[str]:
    EnvBuilder(tmp_path, index).resolve(combo, Path(sys.executable), ["numpy==1.26.4"])
    (args,) = uv.calls
    return list(args)


def option(args: list[str], name: str) -> str | None:
    return args[args.index(name) + 1] if name in args else None


def test_resolve_arguments_by_default(tmp_path: Path, uv: FakeUv) -> None:
    args = compile_args(tmp_path, uv, BARE)
    assert args[:2] == ["pip", "compile"]
    assert option(args, "--python") == sys.executable
    assert option(args, "--prerelease") == "if-necessary-or-explicit"
    assert {"--upgrade", "--no-header", "--quiet"} <= set(args)
    assert {args[i + 1] for i, a in enumerate(args) if a == "--only-binary"} == {
        "numpy",
        "pandas",
        "scipy",
        "scikit-learn",
        "matplotlib",
        "torch",
        "tensorflow",
        "tensorflow-cpu",
    }
    for absent in ("--resolution", "--exclude-newer", "--extra-index-url", "--index-url"):
        assert absent not in args


@pytest.mark.parametrize(
    ("combo", "flags"),
    [
        # as_of is a whole day: everything uploaded that day, nothing after
        (
            Combo("c", PY, (), as_of=dt.date(2024, 5, 1)),
            {"--exclude-newer": "2024-05-02T00:00:00Z"},
        ),
        (
            Combo("c", PY, (), as_of=dt.date(2024, 12, 31)),
            {"--exclude-newer": "2025-01-01T00:00:00Z"},
        ),
        (Combo("c", PY, (), resolution="lowest-direct"), {"--resolution": "lowest-direct"}),
        (
            Combo("c", PY, (), nightly=True),
            {
                "--prerelease": "allow",
                "--extra-index-url": "https://pypi.anaconda.org/scientific-python-nightly-wheels/simple",
                "--index-strategy": "unsafe-best-match",
            },
        ),
    ],
)
def test_resolve_arguments_per_combo(
    tmp_path: Path, uv: FakeUv, combo: Combo, flags: dict[str, str]
) -> None:
    args = compile_args(tmp_path, uv, combo)
    assert {name: option(args, name) for name in flags} == flags


def test_another_index_is_passed_on(
    tmp_path: Path, uv: FakeUv, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = compile_args(tmp_path, uv, BARE, Index("http://127.0.0.1:9/simple/"))
    assert option(args, "--index-url") == "http://127.0.0.1:9/simple"
    monkeypatch.setenv("UV_INDEX_URL", "https://pypi.org/simple")
    uv.calls.clear()
    # the user's own UV_INDEX_URL, even PyPI's, is passed on explicitly too
    assert option(compile_args(tmp_path, uv, BARE), "--index-url") == "https://pypi.org/simple"


def test_lock_files_are_named_by_combo_and_request(tmp_path: Path, uv: FakeUv) -> None:
    builder = EnvBuilder(tmp_path)
    python = Path(sys.executable)
    assert builder.last_resolution(BARE, python, ["six==1.16.0"]) == ""
    assert builder.resolve(BARE, python, ["six==1.16.0"]) == LOCK
    builder.resolve(BARE, python, ["six==1.16.0"])
    builder.resolve(BARE, python, ["six==1.17.0"])
    builder.resolve(Combo("bare", PY, (), as_of=dt.date(2024, 1, 1)), python, ["six==1.16.0"])
    names = sorted(p.name for p in (tmp_path / "locks").iterdir())
    stems = sorted({n.rsplit(".", 1)[0] for n in names})
    assert len(stems) == 3  # one per distinct request; the repeated one reused its files
    assert all(re.fullmatch(r"bare-[0-9a-f]{12}", s) for s in stems)
    assert names == sorted(f"{s}.{ext}" for s in stems for ext in ("in", "txt", "last"))
    assert "six==1.16.0\n" in {(tmp_path / "locks" / f"{s}.in").read_text() for s in stems}
    assert builder.last_resolution(BARE, python, ["six==1.16.0"]) == LOCK
    assert builder.last_resolution(BARE, python, ["six==1.18.0"]) == ""


def test_resolved_versions(tmp_path: Path, uv: FakeUv) -> None:
    assert EnvBuilder(tmp_path).resolved_versions(BARE) == (
        FULL,
        {"numpy": "1.26.4", "six": "1.16.0"},
    )
    uv.error = "error: No solution found when resolving dependencies:\n  ╰─▶ six==99 is not there\n"
    with pytest.raises(LookupError) as caught:
        EnvBuilder(tmp_path).resolved_versions(BARE)
    assert str(caught.value) == (
        "combo 'bare': No solution found when resolving dependencies: six==99 is not there"
    )


# -- build or reuse -----------------------------------------------------------------------


def test_build_then_reuse(tmp_path: Path, uv: FakeUv) -> None:
    logged: list[str] = []
    builder = EnvBuilder(tmp_path, log=logged.append)
    info, lock = builder.build(BARE)
    digest = lock_hash(LOCK, FULL)
    env_dir = tmp_path / digest[:16]
    assert lock == LOCK
    assert info == EnvInfo(
        "bare",
        ok=True,
        python=FULL,
        path=str(env_dir),
        lock_hash=digest,
        requirements=("six==1.16.0",),
        versions={"numpy": "1.26.4", "six": "1.16.0"},
        reused=False,
        build_s=info.build_s,
        imports={},  # no library to probe
    )
    assert uv.commands() == ["pip compile", "venv", "pip sync"]
    assert (env_dir / READY_MARKER).read_text() == digest + "\n"
    assert (env_dir / "harness.lock.txt").read_text() == LOCK
    assert logged == [
        "bare: resolving 1 requirements",
        f"bare: creating environment {env_dir.name}",
        "bare: installing 2 packages",
    ]
    uv.calls.clear()
    again, _ = builder.build(Combo("other", PY, (), extras=("six",)))  # same lock, same env
    assert (again.ok, again.reused, again.path, again.combo) == (True, True, str(env_dir), "other")
    assert uv.commands() == ["pip compile"]


# -- wheels only: what has no wheel for a combo's Python is left out, and said -------------

NO_WHEEL = (
    "error: No solution found when resolving dependencies:\n"
    "  ╰─▶ Because scikit-image==0.18.0 has no usable wheels and you require"
    " scikit-image==0.18.0, we can conclude that your requirements are unsatisfiable.\n\n"
    "      hint: Wheels are required for `scikit-image` because building from source is"
    " disabled for all packages (i.e., with `--no-build`)\n"
)
NO_WHEEL_BELOW = (
    "error: No solution found when resolving dependencies:\n"
    "  ╰─▶ Because starkbank-ecdsa==2.2.0 has no usable wheels and sendgrid==6.11.0 depends"
    " on starkbank-ecdsa>=2.0.1, we can conclude that sendgrid==6.11.0 cannot be used.\n"
    "      And because you require sendgrid==6.11.0, we can conclude that your requirements"
    " are unsatisfiable.\n"
)
WHEELS_ONLY = Combo(
    "w",
    PY,
    (lib("numpy", "1.21.2"),),
    extras=("scikit-image", "sendgrid==6.11.0", "six==1.16.0", "scikit-image==0.18.0"),
    wheels_only=True,
    build_from_source=("wordninja",),
)


@pytest.mark.parametrize(
    ("message", "extras", "expected"),
    [
        (NO_WHEEL, ["six", "scikit-image==0.18.0"], ("scikit-image", "scikit-image")),
        (NO_WHEEL, ["six", "Scikit_Image"], ("scikit-image", "scikit-image")),
        (NO_WHEEL_BELOW, ["sendgrid==6.11.0"], ("sendgrid", "starkbank-ecdsa")),
        (
            "Because all versions of blake3 have no usable wheels and you require blake3, ...",
            ["blake3"],
            ("blake3", "blake3"),
        ),
        (NO_WHEEL, ["six"], None),  # a library of the combo's own, or nothing requested
        ("Because you require numpy==9 and numpy==9 was not found ...", ["numpy==9"], None),
    ],
)
def test_which_extra_has_no_wheel(
    message: str, extras: list[str], expected: tuple[str, str] | None
) -> None:
    assert unwheeled_extra(message, extras) == expected


def test_wheels_only_means_every_package_but_those_allowed_from_source() -> None:
    assert binary_args(WHEELS_ONLY) == ["--only-binary", ":all:", "--no-binary", "wordninja"]
    assert binary_args(BARE)[:4] == ["--only-binary", "numpy", "--only-binary", "pandas"]


def test_an_extra_without_a_wheel_is_left_out_and_said(tmp_path: Path, uv: FakeUv) -> None:
    uv.no_wheels = {"scikit-image": NO_WHEEL, "sendgrid": NO_WHEEL_BELOW}
    logged: list[str] = []
    info, _ = EnvBuilder(tmp_path, log=logged.append).build(WHEELS_ONLY)
    assert info.ok
    assert info.requirements == ("numpy==1.21.2", "six==1.16.0")
    assert info.dropped == {
        # both requests of it go, the unpinned and upstream's pin
        "scikit-image": f"scikit-image, scikit-image==0.18.0: no wheel for Python {FULL}",
        "sendgrid": f"sendgrid==6.11.0: no wheel for Python {FULL} of starkbank-ecdsa,"
        " which it needs",
    }
    assert f"w: leaving out {info.dropped['sendgrid']}" in logged
    (sync,) = [call for call in uv.calls if call[:2] == ("pip", "sync")]
    assert sync[-4:] == ("--only-binary", ":all:", "--no-binary", "wordninja")
    assert EnvInfo.from_dict(json.loads(json.dumps(info.to_dict()))) == info


def test_a_library_of_the_combo_without_a_wheel_is_an_env_error(tmp_path: Path, uv: FakeUv) -> None:
    uv.no_wheels = {"numpy": NO_WHEEL.replace("scikit-image", "numpy")}
    info, _ = EnvBuilder(tmp_path).build(WHEELS_ONLY)
    assert (info.ok, info.stage, info.dropped) == (False, "resolve", {})
    assert "numpy==0.18.0 has no usable wheels" in info.error


def test_a_marker_of_another_lock_means_rebuild(tmp_path: Path, uv: FakeUv) -> None:
    info, _ = EnvBuilder(tmp_path).build(BARE)
    env_dir = Path(info.path)
    (env_dir / READY_MARKER).write_text("something else\n")
    (env_dir / "stale-file").write_text("")
    uv.calls.clear()
    again, _ = EnvBuilder(tmp_path).build(BARE)
    assert (again.ok, again.reused) == (True, False)
    assert uv.commands() == ["pip compile", "venv", "pip sync"]
    assert not (env_dir / "stale-file").exists()  # built afresh, not on top


def test_a_resumed_lock_is_installed_unresolved(tmp_path: Path, uv: FakeUv) -> None:
    kept = "six==1.15.0\n"
    info, lock = EnvBuilder(tmp_path).build(BARE, lock=kept)
    assert lock == kept
    assert (info.ok, info.versions, info.note) == (
        True,
        {"six": "1.15.0"},
        "resumed with the run's own lock",
    )
    assert uv.commands() == ["venv", "pip sync"]


def test_the_install_asks_the_indexes_the_resolution_asked(tmp_path: Path, uv: FakeUv) -> None:
    """A lock names no index: installing it from PyPI alone would miss what the resolution
    found on the matrix's index or the combo's extra one (a nightly wheel, a local build)."""
    combo = Combo("x", PY, (), extras=("six==1.16.0",), extra_index_url="file:///wheels/simple")
    EnvBuilder(tmp_path, Index("http://127.0.0.1:9/simple")).build(combo)
    compiled, _venv, synced = (list(call) for call in uv.calls)
    assert synced[:2] == ["pip", "sync"]
    for args in (compiled, synced):
        assert option(args, "--extra-index-url") == "file:///wheels/simple"
        assert option(args, "--index-strategy") == "unsafe-best-match"
        assert option(args, "--index-url") == "http://127.0.0.1:9/simple"
    uv.calls.clear()
    EnvBuilder(tmp_path / "other").build(BARE)  # PyPI alone: uv's own default, unnamed
    assert not {"--index-url", "--extra-index-url"} & {a for call in uv.calls for a in call}


def test_a_failed_sync_leaves_no_env(tmp_path: Path, uv: FakeUv) -> None:
    uv.sync_error = (
        "error: Failed to install: six-1.16.0-py2.py3-none-any.whl\n  Caused by: disk full\n"
    )
    info, lock = EnvBuilder(tmp_path).build(BARE)
    assert (info.ok, info.stage, info.error) == (
        False,
        "sync",
        "Failed to install: six-1.16.0-py2.py3-none-any.whl: disk full",
    )
    assert (info.requirements, info.path, lock) == (("six==1.16.0",), "", LOCK)
    assert not (tmp_path / lock_hash(LOCK, FULL)[:16]).exists()


def test_an_interpreter_that_cannot_be_found(
    tmp_path: Path, uv: FakeUv, monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing(wanted: str) -> interpreters.Interpreter:
        raise interpreters.InterpreterNotFoundError(f"no Python {wanted} found on PATH")

    monkeypatch.setattr(interpreters, "find", missing)
    info, lock = EnvBuilder(tmp_path).build(Combo("old", "3.7", ()))
    assert (info.ok, info.stage, info.error, lock) == (
        False,
        "interpreter",
        "no Python 3.7 found on PATH",
        "",
    )
    assert uv.calls == []


@pytest.mark.parametrize(
    ("stderr", "error"),
    [
        (
            (
                "error: No solution found when resolving dependencies:\n  ╰─▶ Because numpy==99 was"
                " not found in the package registry and you require numpy==99, we\n      can "
                "conclude that your requirements are unsatisfiable.\n"
            ),
            (
                "No solution found when resolving dependencies: Because numpy==99 was not found in "
                "the package registry and you require numpy==99, we can conclude that your "
                "requirements are unsatisfiable."
            ),
        ),
        # a heading gets a colon before its causes; prefixes go, case aside
        (
            "error: Failed to parse `x`\nCaused by: bad\nhint: try y\n",
            "Failed to parse `x`: bad try y",
        ),
        ("error: Stopped.\n  Caused by: why\n", "Stopped. why"),
        ("", "uv exited with status 1"),
        ("error:\n\n", "uv exited with status 1"),
        ("x" * 5000, "x" * 4000),  # the end of a long message, where the reason is
    ],
)
def test_a_resolver_error_is_one_paragraph(
    tmp_path: Path, uv: FakeUv, stderr: str, error: str
) -> None:
    uv.error = stderr
    info, lock = EnvBuilder(tmp_path).build(BARE)
    assert (info.ok, info.stage, info.error, lock) == (False, "resolve", error, "")


def test_every_cause_marker_of_uv_is_stripped(tmp_path: Path, uv: FakeUv) -> None:
    uv.error = (
        "  × Failed to build `foo==1.0`\n  ├─▶ The build backend returned an error\n"
        "  ╰─▶ Call to `setuptools.build_meta.build_wheel` failed (exit status: 1)\n"
    )
    info, _ = EnvBuilder(tmp_path).build(BARE)
    assert info.error == (
        "Failed to build `foo==1.0`: The build backend returned an error Call to "
        "`setuptools.build_meta.build_wheel` failed (exit status: 1)"
    )


UNREACHABLE = (
    "error: Failed to fetch: `https://pypi.org/simple/six/`\n"
    "  Caused by: dns error: failed to lookup address information\n"
)


def test_an_unreachable_index_falls_back_to_the_last_resolution(tmp_path: Path, uv: FakeUv) -> None:
    first, _ = EnvBuilder(tmp_path).build(BARE)
    uv.error = UNREACHABLE
    uv.calls.clear()
    logged: list[str] = []
    info, lock = EnvBuilder(tmp_path, log=logged.append).build(BARE)
    note = "package index unreachable: using this combo's last resolution"
    assert (info.ok, info.reused, info.path, info.note, lock) == (
        True,
        True,
        first.path,
        note,
        LOCK,
    )
    assert uv.commands() == ["pip compile"]
    assert logged[-1] == f"bare: {note} (environment {Path(first.path).name})"


@pytest.mark.parametrize("setup", ["nothing-resolved-before", "env-gone", "another-request"])
def test_an_unreachable_index_without_a_ready_env_is_an_env_error(
    tmp_path: Path, uv: FakeUv, setup: str
) -> None:
    if setup != "nothing-resolved-before":
        first, _ = EnvBuilder(tmp_path).build(BARE)
        if setup == "env-gone":
            (Path(first.path) / READY_MARKER).unlink()
    combo = Combo("bare", PY, (), extras=("six==1.17.0",)) if setup == "another-request" else BARE
    uv.error = UNREACHABLE
    info, _ = EnvBuilder(tmp_path).build(combo)
    assert (info.ok, info.stage) == (False, "resolve")
    assert info.error == (
        "package index unreachable (https://pypi.org/simple): Failed to fetch: "
        "`https://pypi.org/simple/six/`: dns error: failed to lookup address information"
    )


def test_no_solution_never_falls_back(tmp_path: Path, uv: FakeUv) -> None:
    EnvBuilder(tmp_path).build(BARE)
    uv.error = "error: No solution found when resolving dependencies\n"
    info, _ = EnvBuilder(tmp_path).build(BARE)
    assert (info.ok, info.error) == (False, "No solution found when resolving dependencies")


# -- the probe ----------------------------------------------------------------------------


def test_the_probe_imports_each_library_once_per_env(tmp_path: Path, uv: FakeUv) -> None:
    combo = Combo("tf", PY, (lib("tensorflow", "2.16.1"),))
    info, _ = EnvBuilder(tmp_path).build(combo)
    assert info.ok
    # the host's interpreter plays the env: TensorFlow is not there, and the report says so
    assert info.imports["tensorflow"]["ok"] is False
    assert "No module named 'tensorflow'" in info.imports["tensorflow"]["error"]
    (cached,) = Path(info.path).glob("harness-probe-*.json")
    cached.write_text(json.dumps({"tensorflow": {"ok": True}}))
    again, _ = EnvBuilder(tmp_path).build(combo)
    assert again.imports == {"tensorflow": {"ok": True}}  # an env's packages never change


def test_matplotlib_is_probed_with_pyplot(tmp_path: Path, uv: FakeUv) -> None:
    info, _ = EnvBuilder(tmp_path).build(Combo("mpl", PY, (lib("matplotlib", "3.9.0"),)))
    assert sorted(info.imports) == ["matplotlib", "matplotlib.pyplot"]


def test_a_probe_that_cannot_report_is_a_probe_error(tmp_path: Path, uv: FakeUv) -> None:
    uv.python = "#!/bin/sh\necho 'Fatal Python error: init_fs_encoding' >&2\nexit 1\n"
    info, _ = EnvBuilder(tmp_path).build(Combo("np", PY, (lib("numpy", "1.26.4"),)))
    assert (info.ok, info.stage, info.error) == (
        False,
        "probe",
        "env probe failed: Fatal Python error: init_fs_encoding",
    )


# -- a real env -----------------------------------------------------------------------------


@pytest.mark.network
def test_a_real_env_is_built_once_and_reused(tmp_path: Path) -> None:
    combo = Combo("tiny", PY, (), extras=("six==1.16.0",))
    info, lock = EnvBuilder(tmp_path).build(combo)
    assert info.ok, info.error
    assert info.versions == {"six": "1.16.0"} and "six==1.16.0" in lock
    assert info.python.startswith(PY + ".") and not info.reused
    proc = subprocess.run(
        [str(info.python_exe), "-c", "import six; print(six.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout.strip() == "1.16.0"
    again, _ = EnvBuilder(tmp_path).build(combo)
    assert (again.reused, again.path, again.lock_hash) == (True, info.path, info.lock_hash)


def test_an_interpreter_nowhere_is_a_one_line_env_error(
    tmp_path: Path, uv: FakeUv, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real lookup (PATH, pyenv, the real uv) with nothing to find and no downloads."""
    monkeypatch.undo()  # the fixture's found interpreter: look for real
    (tmp_path / "versions").mkdir()
    for name, value in {
        "PATH": "/nonexistent",
        "PYENV_ROOT": str(tmp_path),
        "HOME": str(tmp_path),
        "UV_PYTHON_INSTALL_DIR": str(tmp_path / "uv-python"),
        "UV_PYTHON_DOWNLOADS": "never",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(EnvBuilder, "_uv", lambda _builder, *args, timeout=0: uv(*args))
    interpreters.clear_cache()
    try:
        info, _ = EnvBuilder(tmp_path / "envs").build(Combo("old", "3.98", ()))
    finally:
        interpreters.clear_cache()
    assert (info.ok, info.stage) == (False, "interpreter")
    assert info.error == (
        "no Python 3.98: not on PATH (python3.98, python3, python); "
        f"not under pyenv ({tmp_path}/versions); uv python find 3.98: No interpreter found "
        "for Python 3.98 in managed installations or search path; "
        "uv python install not tried (UV_PYTHON_DOWNLOADS=never); "
        "to provide it, run `uv python install 3.98` or put python3.98 on PATH"
    )
    assert uv.calls == []
