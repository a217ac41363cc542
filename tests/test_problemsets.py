from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

from harness.benchmarks import registry
from harness.benchmarks.ours.load import compact_context
from harness.core.errors import ProblemError
from harness.core.problem import imported_modules
from harness.problems.sets import filter_problems, load_jsonl, load_problems
from tests.conftest import DS1000_FILE, Writer, needs_ds1000

COMPACT = '''
library = "numpy"
prompt = "Multiply all entries together."
setup = """
import numpy as np
a = np.arange(1, 6)
"""
reference = "result = np.prod(a)"
check = "assert int(result) == 120"
timeout = 5

[idioms]
old = "result = np.product(a)"

[change]
kind = "removal"
old_api = "numpy.product"
new_api = "numpy.prod"
deprecated = "1.25.0"
changed = "2.0.0"
notes = "https://numpy.org/doc/stable/release/2.0.0-notes.html"
'''


def test_compact_problem(write: Writer) -> None:
    path = write("set/numpy/prod.toml", COMPACT)
    (p,) = load_problems([path.parent.parent])
    assert (p.id, p.native_id, p.set_name, p.library) == (
        "set/numpy/prod",
        "numpy/prod",
        "set",
        "numpy",
    )
    assert p.timeout == 5.0
    assert p.idioms == {"old": "result = np.product(a)"}
    assert p.change is not None and (p.change.deprecated, p.change.changed) == ("1.25.0", "2.0.0")
    assert p.requires == ("numpy",)
    assert "def test_execution(solution: str):" in p.code_context


@pytest.mark.parametrize(
    ("written", "library"),
    [("Harness_Fixture.Weak", "harness-fixture-weak"), ("numba", "numba"), ("np", "numpy")],
)
def test_a_problem_names_any_library_by_its_distribution(
    write: Writer, written: str, library: str
) -> None:
    """One of the seven by any of its names is its key; another library, any distribution,
    is its normalized name (the audit's weakened-test fixture names its own)."""
    path = write("set/other/p.toml", COMPACT.replace('library = "numpy"', f'library = "{written}"'))
    (p,) = load_problems([path.parent.parent])
    assert (p.id, p.library) == ("set/other/p", library)


def test_compact_context_grades_by_outcome() -> None:
    context = compact_context("x = 2", "assert result == 4")
    namespace: dict[str, object] = {}
    exec(context, namespace)
    test = namespace["test_execution"]
    test("result = x * 2")  # type: ignore[operator]
    with pytest.raises(AssertionError):
        test("result = x")  # type: ignore[operator]
    with pytest.raises(NameError, match="did not assign `result`"):
        test("y = 1")  # type: ignore[operator]


def test_check_cannot_see_the_solutions_namespace() -> None:
    namespace: dict[str, object] = {}
    exec(compact_context("", "assert 'helper' not in globals()"), namespace)
    namespace["test_execution"]("helper = 1\nresult = 0")  # type: ignore[operator]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('library = "numpy"\n', "p.toml: prompt: missing"),
        (
            COMPACT.replace('library = "numpy"', 'library = "numpyy"'),
            "p.toml:1: library: unknown library 'numpyy' (did you mean 'numpy'?)",
        ),
        (
            COMPACT.replace('library = "numpy"', 'library = "tensorflow-gpu"'),
            "p.toml:1: library: unknown library 'tensorflow-gpu' (did you mean 'tensorflow'?)",
        ),
        (
            COMPACT.replace('library = "numpy"', 'library = "not a name"'),
            "p.toml:1: library: unknown library 'not a name'",
        ),
        ("extra = 1\n" + COMPACT, "p.toml:1: extra: unknown key 'extra'"),
        (
            COMPACT.replace('check = "assert int(result) == 120"', ""),
            "p.toml: check: missing (or give a full context)",
        ),
        (
            'context = "x"\n' + COMPACT,
            "p.toml:1: context: give either context or setup + check, not both",
        ),
        (COMPACT + "[more]\n", "p.toml:21: more: unknown key 'more'"),
        (
            COMPACT.replace('kind = "removal"', 'kind = "moved"'),
            "p.toml:15: change.kind: must be one of behaviour, default, removal, rename, signature",
        ),
        (
            COMPACT.replace('deprecated = "1.25.0"\nchanged = "2.0.0"\n', ""),
            "p.toml:14: change: give the release it was deprecated in, changed in, or both",
        ),
        (
            COMPACT.replace("timeout = 5", "timeout = 0"),
            "p.toml: timeout: timeout must be a positive number of seconds",
        ),
        (
            'library = "numpy"\nprompt = "p"\nreference = "r"\ncontext = "x = 1"\n',
            "p.toml:4: context: must define test_execution(solution)",
        ),
        ("library = [", "p.toml: invalid TOML: "),
    ],
)
def test_bad_toml_problems(write: Writer, text: str, message: str) -> None:
    path = write("p.toml", text)
    with pytest.raises(ProblemError) as info:
        load_problems([path])
    rendered = str(info.value).replace(str(path), "p.toml")
    assert "\n" not in rendered
    assert rendered.startswith(message) if message.endswith(": ") else rendered == message


def ds_row(
    pid: int, library: str = "Pandas", context: str = "def test_execution(solution):\n    pass\n"
) -> dict[str, object]:
    return {
        "prompt": "p",
        "reference_code": "result = 1",
        "code_context": context,
        "metadata": {"problem_id": pid, "library": library},
    }


def test_ds1000_gz_and_plain(tmp_path: Path) -> None:
    rows = [ds_row(0), ds_row(1, "Sklearn"), ds_row(2, "Pytorch")]
    plain = tmp_path / "mini.jsonl"
    plain.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    packed = tmp_path / "mini2.jsonl.gz"
    with gzip.open(packed, "wt") as fh:
        fh.write(plain.read_text())
    for path, set_name in ((plain, "mini"), (packed, "mini2")):
        problems = load_jsonl(path)
        assert [p.id for p in problems] == [f"{set_name}/0", f"{set_name}/1", f"{set_name}/2"]
        assert [p.library for p in problems] == ["pandas", "scikit-learn", "torch"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{", "d.jsonl:1: line 1: invalid JSON: "),
        ('"text"', "d.jsonl:1: line 1: expected a JSON object"),
        (
            json.dumps({"reference_code": "", "code_context": ""}),
            "d.jsonl:1: line 1: missing key 'metadata'",
        ),
        (
            json.dumps({**ds_row(0), "metadata": {}}),
            "d.jsonl:1: line 1: metadata.problem_id is missing",
        ),
        (
            json.dumps(ds_row(0, context="x = 1")),
            "d.jsonl:1: line 1: code_context does not define test_execution()",
        ),
        (
            json.dumps({**ds_row(0), "code_context": 5}),
            "d.jsonl:1: line 1: code_context must be a string",
        ),
    ],
)
def test_bad_ds1000_lines(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(ProblemError) as info:
        load_jsonl(path, display="d.jsonl")
    text = str(info.value)
    assert text.startswith(message) if message.endswith(": ") else text == message


def test_duplicate_ids_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(ds_row(0)) + "\n" + json.dumps(ds_row(0)) + "\n")
    with pytest.raises(ProblemError, match="line 2: duplicate problem_id 0"):
        load_jsonl(path)


def test_the_jsonl_formats_in_detection_order() -> None:
    assert [f.name for f in registry.formats()] == [
        "bigcodebench",
        "exeds",
        "cibench",
        "gitchameleon",
        "ds1000",
    ]
    assert registry.detect({"anything": 1}) == "ds1000"  # the fallback, which says what is missing


def test_a_row_of_no_known_shape_is_a_ds1000_row_missing_its_keys(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"question": "q"}) + "\n")
    with pytest.raises(ProblemError) as info:
        load_jsonl(path, display="d.jsonl")
    assert str(info.value) == "d.jsonl:1: line 1: missing key 'reference_code'"


def test_an_empty_problem_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n"))
    with pytest.raises(ProblemError) as info:
        load_problems([path])
    assert str(info.value) == f"{path}: empty: no JSON rows"


def test_imported_modules_includes_code_strings() -> None:
    code = 'import numpy as np, pandas\nfrom scipy.stats import norm\nctx = r"""\nimport tensorflow as tf\n"""\n# import nothing\n'
    assert imported_modules(code, "from sklearn import svm") == (
        "numpy",
        "pandas",
        "scipy",
        "tensorflow",
        "sklearn",
    )


def test_filter(write: Writer) -> None:
    rows = [ds_row(i, lib) for i, lib in enumerate(["Pandas", "Numpy", "Pandas", "Pandas"])]
    path = write("x.jsonl", "\n".join(json.dumps(r) for r in rows))
    problems = load_problems([path])
    assert [p.native_id for p in filter_problems(problems, ["Pandas"], limit=2)] == ["0", "2"]
    assert [p.native_id for p in filter_problems(problems, ["np"])] == ["1"]
    assert [p.native_id for p in filter_problems(problems, ids=["x/3", "0"])] == ["0", "3"]


@needs_ds1000()
def test_real_ds1000_file() -> None:
    problems = load_jsonl(DS1000_FILE)
    assert len(problems) == 1000
    assert Counter(p.library for p in problems) == {
        "pandas": 291,
        "numpy": 220,
        "matplotlib": 155,
        "scikit-learn": 115,
        "scipy": 106,
        "torch": 68,
        "tensorflow": 45,
    }
    assert sum("def test_string(" in p.code_context for p in problems) == 159
    assert problems[0].requires[:2] == ("pandas", "numpy")
