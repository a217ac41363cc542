from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.core.errors import SpecError, SpecErrorGroup
from harness.envs import build as envs
from harness.matrix.spec import VersionKind, load, parse_constraint
from tests.conftest import Writer

ROOT = Path(__file__).resolve().parents[1]


def test_embedded_default_matrix_spans_three_eras() -> None:
    spec = load(ROOT / "matrix.toml")
    assert [c.id for c in spec.combos] == ["ds1000-2022", "ds1000-2024", "latest"]
    assert spec.baseline == "ds1000-2024"
    for combo in spec.combos:
        assert set(combo.library_keys) == {
            "numpy",
            "pandas",
            "scipy",
            "scikit-learn",
            "matplotlib",
            "torch",
            "tensorflow",
        }
    old, base, latest = spec.combos
    assert old.python == "3.10" and old.as_of == dt.date(2022, 11, 1)
    assert base.library("pandas").constraint == "1.5.3"  # type: ignore[union-attr]
    assert base.library("tensorflow").package == "tensorflow-cpu"  # type: ignore[union-attr]
    assert all(lib.kind is VersionKind.LATEST for lib in latest.libraries)
    assert "baseline" in base.tags and "latest" in latest.tags and "torch" in old.tags


def test_the_cibench_matrix_is_the_embedded_one_with_cibench_s_other_modules() -> None:
    """matrices/cibench.toml: the two combos a CIBench run compares, their libraries as the
    embedded matrix has them, with the modules the skipped sessions import added."""
    spec, embedded = load(ROOT / "matrices" / "cibench.toml"), load(ROOT / "matrix.toml")
    assert [c.id for c in spec.combos] == ["cibench-2024", "cibench-latest"]
    assert spec.baseline == "cibench-2024"
    for mine, theirs in zip(spec.combos, ("ds1000-2024", "latest"), strict=True):
        same = next(c for c in embedded.combos if c.id == theirs)
        assert (mine.python, mine.as_of) == (same.python, same.as_of)
        assert mine.libraries == same.libraries
        assert set(same.extras) < set(mine.extras)
        added = set(mine.extras) - set(same.extras)
        assert added == {"opencv-python-headless", "nltk", "openpyxl", "torchvision"}


BIGCODEBENCH = ROOT.parent / "shared" / "data" / "bigcodebench" / "requirements-eval.txt"


def test_the_bigcodebench_matrix_is_upstreams_environment_then_newer_ones() -> None:
    spec = load(ROOT / "matrices" / "bigcodebench.toml")
    assert [c.id for c in spec.combos] == ["bigcodebench", "bcb-pandas22", "bcb-numpy2", "latest"]
    assert spec.baseline == "bigcodebench" and spec.timeout == 240.0
    upstream, *newer = spec.combos
    assert [c.python for c in spec.combos] == ["3.10", "3.10", "3.10", "3.13"]
    assert all(c.wheels_only for c in spec.combos)
    assert "starkbank-ecdsa" in upstream.build_from_source  # sendgrid's, pure Python
    assert upstream.library("tensorflow").package == "tensorflow"  # type: ignore[union-attr]
    pins = {lib.package: lib.constraint for lib in upstream.libraries}
    pins |= {r.split("==")[0]: r.split("==")[1] for r in upstream.extras if "==" in r}
    for combo in newer:  # the other packages unpinned: the newest that fit
        assert not any("==" in r for r in combo.extras)
        assert {lib.kind for lib in combo.libraries} != {VersionKind.PIN}
    if BIGCODEBENCH.is_file():
        # every pin of upstream's requirements-eval.txt, as written there
        lines = BIGCODEBENCH.read_text().split()
        wanted = dict(line.split("==") for line in lines if "==" in line)
        assert {k.lower(): v for k, v in pins.items()} == {k.lower(): v for k, v in wanted.items()}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[matrix]\nwheels_only = "yes"\n[combos.a]\npython = "3.11"\n',
            "m.toml:2: matrix.wheels_only: expected true or false, got str 'yes'",
        ),
        (
            '[matrix]\nbuild_from_source = ["wordninja==2.0.0"]\n[combos.a]\npython = "3.11"\n',
            "m.toml:2: matrix.build_from_source: 'wordninja==2.0.0' is not a package name",
        ),
    ],
)
def test_wheels_only_mistakes(write: Writer, text: str, message: str) -> None:
    path = write("m.toml", text)
    with pytest.raises(SpecError) as info:
        load(path, display="m.toml")
    assert str(info.value) == message


def test_wheels_only_reaches_every_combo(write: Writer) -> None:
    path = write(
        "m.toml",
        """
        [matrix]
        python = "3.11"
        wheels_only = true
        build_from_source = ["WordNinja"]
        [combos.a]
        [axes.g]
        numpy = ["1.26.4", "2.2.6"]
        """,
    )
    combos = load(path).combos
    assert [(c.wheels_only, c.build_from_source) for c in combos] == [(True, ("wordninja",))] * 3


def test_combo_fields(write: Writer) -> None:
    path = write(
        "m.toml",
        """
        [matrix]
        python = "3.11"
        extras = ["pyyaml"]
        packages = { tensorflow = "tensorflow" }
        timeout = 30

        [combos.a]
        numpy = "1.26.4"
        pandas = ">=2,<3"
        scipy = "oldest"
        torch = "pre"
        tensorflow = "latest"
        as_of = 2023-06-01
        extras = ["seaborn==0.13.2"]
        tags = ["mine"]
        description = "A"
    """,
    )
    spec = load(path)
    (combo,) = spec.combos
    assert combo.python == "3.11"
    assert combo.as_of == dt.date(2023, 6, 1)
    assert combo.extras == ("pyyaml", "seaborn==0.13.2")
    assert [lib.kind for lib in combo.libraries] == [
        VersionKind.PIN,
        VersionKind.SPECIFIER,
        VersionKind.OLDEST,
        VersionKind.PRE,
        VersionKind.LATEST,
    ]
    reqs = [lib.requirement() for lib in combo.libraries if lib.kind is not VersionKind.OLDEST]
    assert reqs == ["numpy==1.26.4", "pandas>=2,<3", "torch>=0.0.0a0", "tensorflow"]
    assert spec.timeout == 30.0
    assert combo.tags == (
        "mine",
        "baseline",
        "latest",
        "pre",
        "numpy",
        "pandas",
        "scipy",
        "torch",
        "tensorflow",
    )


def test_axes_expand_with_include_and_exclude(write: Writer) -> None:
    path = write(
        "m.toml",
        """
        [matrix]
        python = "3.11"

        [axes.grid]
        numpy = ["1.26.4", "2.1.3"]
        pandas = ["2.2.3", "latest"]
        exclude = [{ numpy = "1.26.4", pandas = "latest" }]
        include = [{ numpy = "2.2.0", pandas = "3.0.0" }]
    """,
    )
    ids = [c.id for c in load(path).combos]
    assert ids == [
        "grid-np1-26-4-pd2-2-3",
        "grid-np2-1-3-pd2-2-3",
        "grid-np2-1-3-pd-latest",
        "grid-np2-2-0-pd3-0-0",
    ]


def test_axis_python_values_and_fixed_keys_stay_out_of_ids(write: Writer) -> None:
    path = write(
        "m.toml",
        """
        [axes.py]
        python = ["3.10", "3.12"]
        numpy = "latest"
    """,
    )
    combos = load(path).combos
    assert [c.id for c in combos] == ["py-py3-10", "py-py3-12"]
    assert [c.python for c in combos] == ["3.10", "3.12"]
    assert combos[0].origin == "axes.py"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[matrix]\npython = "3.11"\n[combos.pandas2]\nnumpy = "1.2x"\n',
            "m.toml:4: combo 'pandas2'.numpy: '1.2x' is not a valid version or specifier",
        ),
        (
            '[combos.a]\npython = "3.11"\nnumpy = ""\n',
            "m.toml:3: combo 'a'.numpy: empty version (leave the key out to leave the library out)",
        ),
        (
            '[combos.a]\npython = "3.11"\nnumpy = 1.26\n',
            "m.toml:3: combo 'a'.numpy: expected a string, got float 1.26",
        ),
        (
            "[combos.a]\npython = 3.10\n",
            "m.toml:2: combo 'a'.python: write the version as a string, e.g. \"3.10\"",
        ),
        (
            '[combos.a]\npython = "3.7"\n',
            "m.toml:2: combo 'a'.python: '3.7' is older than 3.8, the oldest supported",
        ),
        (
            '[combos.a]\npython = "three"\n',
            "m.toml:2: combo 'a'.python: 'three' is not a Python version",
        ),
        (
            '[combos.a]\nnumpy = "1.26.4"\n',
            "m.toml:1: combo 'a'.python: missing (set it here or in [matrix])",
        ),
        (
            '[combos.a]\npython = "3.11"\nsklearn = "1.4.0"\n',
            "m.toml:3: combo 'a': unknown key 'sklearn': the library is called 'scikit-learn'",
        ),
        (
            '[combos.a]\npython = "3.11"\nnumpyy = "1.4.0"\n',
            "m.toml:3: combo 'a': unknown key 'numpyy' (did you mean 'numpy'?)",
        ),
        (
            '[combos.a]\npython = "3.11"\nseaborn = "0.13"\n',
            "m.toml:3: combo 'a': unknown key 'seaborn'; other packages go in 'extras'",
        ),
        (
            '[combos.Pandas_2]\npython = "3.11"\n',
            "m.toml:1: combo 'Pandas_2': id must be lower-case letters, digits and '-' (try 'pandas-2')",
        ),
        (
            '[combos.a]\npython = "3.11"\nas_of = "June 2023"\n',
            "m.toml:3: combo 'a'.as_of: 'June 2023' is not a date like 2023-06-01",
        ),
        (
            '[combos.a]\npython = "3.11"\nextras = ["seaborn>>1"]\n',
            "m.toml:3: combo 'a'.extras: 'seaborn>>1' is not a valid requirement: ",
        ),
        (
            '[combos.a]\npython = "3.11"\nextras = "seaborn"\n[combos.a2]\npython = "3.11"\ntags = [1]\n',
            "m.toml:6: combo 'a2'.tags: expected a list of strings, got a list",
        ),
        (
            '[matrix]\nbaseline = "b"\n[combos.a]\npython = "3.11"\n',
            "m.toml:2: matrix.baseline: no combo 'b'",
        ),
        (
            '[matrix]\ntimeout = -1\n[combos.a]\npython = "3.11"\n',
            "m.toml:2: matrix.timeout: expected a positive number of seconds",
        ),
        (
            '[matrix]\nthreads = 2\n[combos.a]\npython = "3.11"\n',
            "m.toml:2: [matrix]: unknown key 'threads'",
        ),
        (
            '[combo.a]\npython = "3.11"\n',
            "m.toml:1: unknown table [combo] (did you mean [combos]?)",
        ),
        (
            "[matrix]\n",
            "m.toml: no combos: add a [combos.<id>], [axes.<name>] or [timeline.<name>] table",
        ),
        ("[combos.a\n", "m.toml:1: invalid TOML: "),
        (
            '[axes.g]\npython = "3.11"\nnumpy = []\n',
            "m.toml:3: axis 'g'.numpy: empty list",
        ),
        (
            '[axes.g]\npython = "3.11"\nnumpy = ["1", "2"]\nexclude = [{ numpy = "3" }]\n',
            "m.toml:4: axis 'g'.exclude[0].numpy: '3' is not one of the axis values ['1', '2']",
        ),
        (
            '[axes.g]\npython = "3.11"\nnumpy = ["1", "2"]\nexclude = [{ pandas = "3" }]\n',
            "m.toml:4: axis 'g'.exclude[0]: 'pandas' is not an axis of 'g'",
        ),
        (
            '[axes.g]\npython = "3.11"\nnumpy = ["1", "2"]\ninclude = [{ python = "3.12" }]\n',
            "m.toml:4: axis 'g'.include[0]: missing axis value(s) ['numpy']",
        ),
        (
            '[axes.g]\npython = "3.11"\nnumpy = ["1"]\nexclude = [{ numpy = "1" }]\n',
            "m.toml:1: axis 'g': every combination is excluded",
        ),
        (
            '[axes.g]\npython = "3.11"\nnumpy = ["1.x", "2"]\n',
            "m.toml:3: axis 'g'.numpy: '1.x' is not a valid version or specifier",
        ),
        (
            '[combos.g-np1]\npython = "3.11"\n[axes.g]\npython = "3.11"\nnumpy = ["1", "2"]\n',
            "m.toml:3: combo 'g-np1': id is not unique (also made by combos.g-np1)",
        ),
        (
            '[combos.a]\npython = "3.11"\npackages = { tf = "tensorflow" }\n',
            "m.toml:3: combo 'a'.packages.tf: the library is called 'tensorflow'",
        ),
    ],
)
def test_invalid_matrix_gives_one_located_line(write: Writer, text: str, message: str) -> None:
    path = write("m.toml", text)
    with pytest.raises(SpecError) as info:
        load(path, display="m.toml")
    rendered = str(info.value)
    assert "\n" not in rendered
    assert rendered.startswith(message) if message.endswith(": ") else rendered == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # TOML reads 3.10 as the float 3.1: the hint quotes what the file says
        (
            '[matrix]\npython = 3.10  # new\n[combos.a]\nnumpy = "2.0.0"\n',
            'm.toml:2: matrix.python: write the version as a string, e.g. "3.10"',
        ),
        (
            '[combos.a]\nnumpy = "2.0.0"\npython = 3.12\n',
            "m.toml:3: combo 'a'.python: write the version as a string, e.g. \"3.12\"",
        ),
        (
            "[combos.a]\npython = 3\n",
            "m.toml:2: combo 'a'.python: write the version as a string, e.g. \"3\"",
        ),
        # not on a line of its own: the value as Python prints it is the best we have
        (
            "combos.a = { python = 3.10 }\n",
            "m.toml: combo 'a'.python: write the version as a string, e.g. \"3.1\"",
        ),
    ],
)
def test_a_numeric_python_is_quoted_as_written(write: Writer, text: str, message: str) -> None:
    path = write("m.toml", text)
    with pytest.raises(SpecError) as info:
        load(path, display="m.toml")
    assert str(info.value) == message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"nope.toml: file not found$"):
        load(tmp_path / "nope.toml", display="nope.toml")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("1.26.4", VersionKind.PIN),
        ("2", VersionKind.PIN),
        ("2.0.0rc1", VersionKind.PIN),
        (">=2,<3", VersionKind.SPECIFIER),
        ("~=1.26", VersionKind.SPECIFIER),
        ("==2.*", VersionKind.SPECIFIER),
        ("latest", VersionKind.LATEST),
        ("oldest", VersionKind.OLDEST),
        ("pre", VersionKind.PRE),
    ],
)
def test_constraint_kinds(text: str, kind: VersionKind) -> None:
    assert parse_constraint(text) is kind


@pytest.mark.parametrize("text", ["1.2x", "newest", "", "> =", "2.0.0 rc"])
def test_bad_constraints(text: str) -> None:
    with pytest.raises(ValueError):
        parse_constraint(text)


def test_nightly_combos(write: Writer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write("m.toml", '[axes.dev]\npython = ["3.11", "3.12"]\nnumpy = "pre"\nnightly = true\n')
    combos = load(path).combos
    assert all(c.nightly and "nightly" in c.tags for c in combos)
    seen: list[tuple[str, ...]] = []

    def fake_uv(self: object, *args: str, timeout: float = 0) -> object:
        seen.append(args)
        raise SystemExit  # stop before anything runs

    monkeypatch.setattr(envs.EnvBuilder, "_uv", fake_uv)
    builder = envs.EnvBuilder(tmp_path)
    with pytest.raises(SystemExit):
        builder.resolve(combos[0], Path("python3"), ["numpy>=0.0.0a0"])
    args = seen[0]
    assert (
        args[args.index("--extra-index-url") + 1]
        == "https://pypi.anaconda.org/scientific-python-nightly-wheels/simple"
    )
    assert args[args.index("--prerelease") + 1] == "allow"
    assert args.count("--prerelease") == 1


def test_nightly_must_be_a_boolean(write: Writer) -> None:
    path = write("m.toml", '[combos.a]\npython = "3.11"\nnightly = "yes"\n')
    with pytest.raises(
        SpecError, match=r"^m.toml:3: combo 'a'.nightly: expected true or false, got str 'yes'$"
    ):
        load(path, display="m.toml")


def test_the_embedded_nightly_declares_problem_sets_and_two_lanes() -> None:
    spec = load(ROOT / "matrix.toml")
    night = spec.nightly
    assert night.problems == ("problems", "ds1000") and night.shards == 1 and night.nights == 14
    assert night.answers == ROOT / "answers" and not night.answers_required
    pre, wheels = spec.lanes
    assert (pre.id, wheels.id) == ("pre", "nightly-wheels")
    assert all(lib.kind is VersionKind.PRE for lib in pre.libraries) and len(pre.libraries) == 7
    assert wheels.nightly and wheels.extra_index == envs_index()
    assert "lane" in pre.tags and "latest" not in pre.tags and "pre" in pre.tags
    # lanes are not combos: a plain run never builds them, naming one finds it
    assert [c.id for c in spec.combos] == ["ds1000-2022", "ds1000-2024", "latest"]
    assert spec.by_id["pre"] is pre


def envs_index() -> str:
    return "https://pypi.anaconda.org/scientific-python-nightly-wheels/simple"


def test_nightly_table_fields(write: Writer) -> None:
    path = write(
        "m.toml",
        """
        [combos.a]
        python = "3.11"
        [combos.b]
        python = "3.12"
        [nightly]
        problems = ["problems", "ds1000"]
        answers = "models"
        idioms = false
        combos = ["b"]
        shards = 3
        nights = 5
        [nightly.lanes.dev]
        python = "3.12"
        numpy = "latest"
        nightly = true
        extra_index_url = "http://127.0.0.1:9/simple"
        """,
    )
    spec = load(path)
    night = spec.nightly
    assert (night.problems, night.idioms, night.combos) == (("problems", "ds1000"), False, ("b",))
    assert (night.shards, night.nights, night.answers) == (3, 5, path.parent / "models")
    (dev,) = spec.lanes
    assert dev.extra_index == "http://127.0.0.1:9/simple" and dev.lane
    assert "nightly" in dev.tags and "lane" in dev.tags


def test_the_answers_folder_names_the_models(write: Writer) -> None:
    path = write("m.toml", '[combos.a]\npython = "3.11"\n[nightly]\nanswers = "answers"\n')
    with pytest.raises(
        SpecError, match=r"^m.toml:4: nightly.answers: .*answers: no such directory$"
    ):
        load(path, display="m.toml").nightly.answer_files()
    write("answers/gpt-x-answers.jsonl", "")
    write("answers/coder.jsonl", "")
    write("answers/notes.txt", "")
    folder = path.parent / "answers"
    assert load(path).nightly.answer_files() == [
        f"coder={folder / 'coder.jsonl'}",
        f"gpt-x={folder / 'gpt-x-answers.jsonl'}",
    ]
    # left out of the file: an absent answers/ folder just means no models
    bare = write("n.toml", '[combos.a]\npython = "3.11"\n')
    (folder / "coder.jsonl").unlink()
    (folder / "gpt-x-answers.jsonl").unlink()
    assert load(bare).nightly.answer_files() == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[nightly]\nshard = 2\n",
            "m.toml:4: [nightly]: unknown key 'shard' (did you mean 'shards'?)",
        ),
        (
            "[nightly]\nshards = 0\n",
            "m.toml:4: nightly.shards: expected a whole number of at least 1, got int 0",
        ),
        (
            "[nightly]\nnights = true\n",
            "m.toml:4: nightly.nights: expected a whole number of at least 1, got boolean true",
        ),
        ("[nightly]\nproblems = []\n", "m.toml:4: nightly.problems: empty list"),
        ("[nightly]\ncombos = ['lates*']\n", "m.toml:4: nightly.combos: 'lates*' matches no combo"),
        (
            "[nightly.lanes.a]\npython = '3.11'\nnumpy = 'pre'\n",
            "m.toml:3: lane 'a': id is not unique (also made by combos.a)",
        ),
        (
            "[nightly.lanes.dev]\npython = '3.11'\nextra_index_url = 'ftp://x'\n",
            "m.toml:5: lane 'dev'.extra_index_url: 'ftp://x' is not an http(s) or file URL",
        ),
        (
            "[nightly.lanes.Dev]\n",
            "m.toml:3: lane 'Dev': id must be lower-case letters, digits and '-'",
        ),
    ],
)
def test_nightly_mistakes_give_one_located_line(write: Writer, text: str, message: str) -> None:
    path = write("m.toml", '[combos.a]\npython = "3.11"\n' + text)
    with pytest.raises(SpecError) as info:
        load(path, display="m.toml")
    assert str(info.value) == message


# -- every mistake of a file at once ------------------------------------------------------

SEVERAL_MISTAKES = """\
[nightly]
shards = 0
[matrix]
python = 3.10
baseline = "Old_1"
threads = 2
[combos.Old_1]
numpy = "1.26.4"
[combos.new]
numpy = "2.x"
pandas = "latest"
as_of = "June 2023"
[axes.grid]
numpy = ["1.26.4", "2.2.6"]
tags = [1]
[timeline.t]
start = 2020-01-01
libraries = ["np"]
"""


def test_every_independent_mistake_is_reported_once_in_file_order(write: Writer) -> None:
    path = write("m.toml", SEVERAL_MISTAKES)
    with pytest.raises(SpecErrorGroup) as info:
        load(path, display="m.toml")
    expected = [
        "m.toml:2: nightly.shards: expected a whole number of at least 1, got int 0",
        'm.toml:4: matrix.python: write the version as a string, e.g. "3.10"',
        "m.toml:6: [matrix]: unknown key 'threads'",
        "m.toml:7: combo 'Old_1': id must be lower-case letters, digits and '-' (try 'old-1')",
        "m.toml:10: combo 'new'.numpy: '2.x' is not a valid version or specifier",
        "m.toml:12: combo 'new'.as_of: 'June 2023' is not a date like 2023-06-01",
        # the axis's tags are in each of its two combos: one mistake, said once
        "m.toml:15: axis 'grid'.tags: expected a list of strings, got a list",
        "m.toml:18: timeline 't'.libraries: the library is called 'numpy'",
    ]
    # and no follow-on: no combo is "missing" the Python [matrix] gave wrong, and the
    # baseline names the combo whose id is wrong, not a combo that does not exist
    assert list(info.value.lines()) == expected
    assert str(info.value) == "\n".join(expected)
    assert [(e.line, e.where) for e in info.value.errors][:2] == [
        (2, "nightly.shards"),
        (4, "matrix.python"),
    ]


@pytest.mark.parametrize(
    ("text", "messages"),
    [
        # a table that cannot be a table: the other tables are still checked
        (
            'combos = 1\n[matrix]\npython = "3.11"\n[axes.g]\nnumpy = ["1.x"]\n',
            [
                "m.toml:1: [combos]: expected a table, got int 1",
                "m.toml:5: axis 'g'.numpy: '1.x' is not a valid version or specifier",
            ],
        ),
        # a wrong axis stops that axis (its rules name the axes), not the next one
        (
            (
                '[axes.a]\npython = "3.11"\nnumpyy = ["1"]\nexclude = [{ numpyy = "1" }]\n'
                '[axes.b]\npython = "3.11"\npandas = ["1", "2"]\nexclude = [{ pandas = "3" }]\n'
            ),
            [
                "m.toml:3: axis 'a': unknown key 'numpyy' (did you mean 'numpy'?)",
                "m.toml:8: axis 'b'.exclude[0].pandas: '3' is not one of the axis values ['1', '2']",
            ],
        ),
        # every key of a timeline is checked, though one wrong makes no dates
        (
            '[timeline.t]\nstart = "July 2020"\nevery = "2 weeks"\nlibraries = ["np"]\n',
            [
                "m.toml:1: timeline 't': '2 weeks' is not a step like '6 months' or '1 year'",
                "m.toml:2: timeline 't'.start: 'July 2020' is not a date like 2023-06-01",
                "m.toml:4: timeline 't'.libraries: the library is called 'numpy'",
            ],
        ),
        # a lane and the combos beside it
        (
            (
                '[combos.a]\npython = "3.11"\nnumpy = ""\n[nightly]\ncombos = ["b*"]\n'
                "[nightly.lanes.dev]\npython = 3.12\n"
            ),
            [
                "m.toml:3: combo 'a'.numpy: empty version (leave the key out to leave the library out)",
                "m.toml:5: nightly.combos: 'b*' matches no combo",
                "m.toml:7: lane 'dev'.python: write the version as a string, e.g. \"3.12\"",
            ],
        ),
    ],
)
def test_independent_parts_are_each_checked(write: Writer, text: str, messages: list[str]) -> None:
    path = write("m.toml", text)
    with pytest.raises(SpecError) as info:
        load(path, display="m.toml", today=dt.date(2026, 1, 1))
    assert list(info.value.lines()) == messages


# One mistake per line of a combo's table, and the message it gives there.
COMBO_MISTAKES = (
    ('numpy = "1.2x"', "combo '{id}'.numpy: '1.2x' is not a valid version or specifier"),
    ('python = "3.7"', "combo '{id}'.python: '3.7' is older than 3.8, the oldest supported"),
    ('as_of = "June 2023"', "combo '{id}'.as_of: 'June 2023' is not a date like 2023-06-01"),
    ('sklearn = "1.4"', "combo '{id}': unknown key 'sklearn': the library is called 'scikit-learn'"),
    ("tags = [1]", "combo '{id}'.tags: expected a list of strings, got a list"),
    ('nightly = "yes"', "combo '{id}'.nightly: expected true or false, got str 'yes'"),
    ('extra_index_url = "ftp://x"', "combo '{id}'.extra_index_url: 'ftp://x' is not an http(s) or file URL"),
)  # fmt: skip


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    combos=st.lists(
        st.lists(st.sampled_from(range(len(COMBO_MISTAKES))), unique=True, max_size=3),
        min_size=1,
        max_size=4,
    )
)
def test_mistakes_together_are_the_mistakes_alone(write: Writer, combos: list[list[int]]) -> None:
    """However mistakes are spread over combos, each is reported with its own line and
    message, as it would be alone, in the order of the file."""
    lines = ['[matrix]\npython = "3.11"']
    expected = []
    for n, mistakes in enumerate(combos):
        lines.append(f"[combos.c{n}]")
        for index in mistakes:
            written, message = COMBO_MISTAKES[index]
            lines.append(written)
            expected.append(f"m.toml:{len(lines) + 1}: {message.format(id=f'c{n}')}")
    path = write("m.toml", "\n".join(lines) + "\n")
    if not expected:
        assert [c.id for c in load(path).combos] == [f"c{n}" for n in range(len(combos))]
        return
    with pytest.raises(SpecError) as info:
        load(path, display="m.toml")
    assert list(info.value.lines()) == expected
    if len(expected) == 1:  # alone, it is the error it always was
        assert type(info.value) is SpecError and str(info.value) == expected[0]
