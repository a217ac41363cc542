"""Bad input, generated: matrix files, problem files and answers files.

Whatever the file holds, the harness either accepts it or says what is wrong in one
line naming the file (and the key or line) and exits with status 2: never a traceback.
Mistakes that only the resolver can see (a pin that does not exist, requirements that
conflict, an interpreter that is not installed) are recorded for their combo alone,
and the other combos run.

The counts in RELIABILITY.md come from this module: `python -m pytest tests/test_bad_input.py`.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness import cli
from harness.core.errors import HarnessError
from harness.problems import answers
from harness.problems import sets as problemsets

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = 300
PY = f"{sys.version_info.major}.{sys.version_info.minor}"
SETTINGS = settings(
    max_examples=EXAMPLES,
    derandomize=True,  # the same inputs on every run: a failure here is reproducible
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# -- building documents ----------------------------------------------------------------

KEY_NAMES = [
    "matrix", "combos", "axes", "python", "baseline", "timeout", "as_of", "extras", "packages",
    "tags", "include", "exclude", "nightly", "description", "index_url", "numpy", "pandas",
    "scipy", "scikit-learn", "sklearn", "matplotlib", "torch", "tensorflow", "numpyy", "x",
    "library", "prompt", "reference", "setup", "check", "context", "idioms", "change", "kind",
    "old_api", "new_api", "deprecated", "changed", "notes",
]  # fmt: skip
VERSIONISH = st.sampled_from(
    ["1.26.4", "2.2.6", "latest", "oldest", "pre", ">=2,<3", "1.2x", "", "==", "~=1", "3.10",
     "2024-01-01", "2024-13-45", "not a version", "0", "99", "3.8", "2.7", ">=1.0; extra"]
)  # fmt: skip
SCALARS = st.one_of(
    VERSIONISH,
    st.text(max_size=12),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.booleans(),
)
KEYS = st.one_of(st.sampled_from(KEY_NAMES), st.text(min_size=1, max_size=8))


def values(depth: int = 2) -> st.SearchStrategy[Any]:
    if depth == 0:
        return SCALARS
    return st.one_of(
        SCALARS,
        st.lists(SCALARS, max_size=3),
        st.dictionaries(KEYS, values(depth - 1), max_size=4),
    )


DOCUMENTS = st.dictionaries(KEYS, values(), max_size=4)


def _key(k: str) -> str:
    return k if k.replace("-", "").replace("_", "").isalnum() and k.isascii() else json.dumps(k)


def _scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_scalar(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {_scalar(x)}" for k, x in v.items()) + "}"
    return json.dumps(v)  # a TOML basic string


def to_toml(doc: dict[str, Any]) -> str:
    """TOML for ``doc``: top-level scalars, then one [table] per nested table."""
    lines = [f"{_key(k)} = {_scalar(v)}" for k, v in doc.items() if not isinstance(v, dict)]
    for name, table in doc.items():
        if isinstance(table, dict):
            lines.append(f"[{_key(name)}]")
            lines += [f"{_key(k)} = {_scalar(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


VALID_MATRIX = {
    "matrix": {"python": "3.11", "baseline": "old"},
    "combos": {"old": {"numpy": "1.26.4"}, "new": {"numpy": "latest", "pandas": ">=2,<3"}},
}
VALID_PROBLEM = {
    "library": "numpy",
    "prompt": "Sum it.",
    "setup": "import numpy as np\na = np.arange(3)",
    "reference": "result = a.sum()",
    "check": "assert result == 3",
}


@st.composite
def mutated(draw: st.DrawFn, base: dict[str, Any]) -> dict[str, Any]:
    """``base`` with a few keys replaced, added or dropped, at any depth."""
    doc: dict[str, Any] = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(1, 3))):
        target = doc
        while isinstance(target, dict) and target and draw(st.booleans()):
            inner = target[draw(st.sampled_from(sorted(target)))]
            if not isinstance(inner, dict):
                break
            target = inner
        action = draw(st.sampled_from(["replace", "add", "drop"]))
        if action == "drop" and target:
            del target[draw(st.sampled_from(sorted(target)))]
        elif action == "replace" and target:
            target[draw(st.sampled_from(sorted(target)))] = draw(values(1))
        else:
            target[draw(KEYS)] = draw(values(1))
    return doc


def text_files() -> st.SearchStrategy[str]:
    """Arbitrary text, including text that is nearly TOML or JSON."""
    return st.one_of(
        st.text(max_size=200),
        st.builds(lambda d: to_toml(d)[: len(to_toml(d)) // 2], DOCUMENTS),  # cut short
        st.sampled_from(["[matrix", "x = ", "[combos.a]\nnumpy = 1.2.3", '{"a": 1}', "\x00\xff"]),
    )


# -- what every outcome must look like -----------------------------------------------------


def run_cli(*args: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(list(args))
    return code, err.getvalue()


def assert_clean_refusal(code: int, stderr: str, path: Path) -> None:
    """Accepted (0), or refused with exit 2 and one line per mistake, each naming the file."""
    assert "Traceback" not in stderr
    if code == 0:
        return
    assert code == 2, stderr
    lines = stderr.strip().splitlines()
    assert lines, stderr
    for line in lines:
        assert line.startswith(f"error: {path}"), line


def assert_one_line(error: HarnessError, path: Path) -> None:
    message = str(error)
    assert "\n" not in message
    assert message.startswith(str(path)), message


# -- matrix.toml -------------------------------------------------------------------------------


def test_generated_matrix_files(tmp_path: Path) -> None:
    path = tmp_path / "matrix.toml"
    seen = {"accepted": 0, "refused": 0}

    @SETTINGS
    @given(doc=st.one_of(mutated(VALID_MATRIX), DOCUMENTS))
    def structured(doc: dict[str, Any]) -> None:
        path.write_text(to_toml(doc), encoding="utf-8")
        code, stderr = run_cli("combos", "--matrix", str(path))
        assert_clean_refusal(code, stderr, path)
        seen["accepted" if code == 0 else "refused"] += 1

    @SETTINGS
    @given(text=text_files())
    def raw(text: str) -> None:
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        code, stderr = run_cli("combos", "--matrix", str(path))
        assert_clean_refusal(code, stderr, path)
        seen["accepted" if code == 0 else "refused"] += 1

    structured()
    raw()
    assert sum(seen.values()) >= 2 * EXAMPLES
    assert seen["refused"] > EXAMPLES  # the generator does produce mistakes


def test_a_matrix_mistake_names_the_key_and_line(tmp_path: Path) -> None:
    path = tmp_path / "matrix.toml"
    path.write_text('[matrix]\npython = "3.11"\n[combos.pandas2]\nnumpy = "1.2x"\n')
    code, stderr = run_cli("combos", "--matrix", str(path))
    assert code == 2
    assert stderr.strip() == (
        f"error: {path}:4: combo 'pandas2'.numpy: '1.2x' is not a valid version or specifier"
    )


# -- problem files -----------------------------------------------------------------------------


def test_generated_problem_files(tmp_path: Path) -> None:
    root = tmp_path / "problems"
    (root / "numpy").mkdir(parents=True)
    path = root / "numpy" / "generated.toml"
    jsonl = root / "set.jsonl"
    seen = {"accepted": 0, "refused": 0}

    def load(target: Path) -> None:
        try:
            problemsets.load_problems([root])
            seen["accepted"] += 1
        except HarnessError as error:
            assert_one_line(error, target)
            seen["refused"] += 1
        finally:
            target.unlink()

    @SETTINGS
    @given(doc=st.one_of(mutated(VALID_PROBLEM), DOCUMENTS))
    def toml_problems(doc: dict[str, Any]) -> None:
        path.write_text(to_toml(doc), encoding="utf-8")
        load(path)

    @SETTINGS
    @given(
        lines=st.lists(
            st.one_of(text_files(), st.builds(json.dumps, values())), min_size=1, max_size=3
        )
    )
    def ds1000_lines(lines: list[str]) -> None:
        jsonl.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
        load(jsonl)

    toml_problems()
    ds1000_lines()
    assert sum(seen.values()) >= 2 * EXAMPLES
    assert seen["refused"] > EXAMPLES


FORMAT_SAMPLES = [
    json.loads(line)
    for name in ("bigcodebench-sample", "exeds-sample", "cibench-sample")
    for line in (ROOT / "tests" / "data" / "formats" / f"{name}.jsonl").read_text().splitlines()
]


def test_generated_rows_of_other_formats(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    seen = {"accepted": 0, "refused": 0}

    @SETTINGS
    @given(row=st.sampled_from(FORMAT_SAMPLES).flatmap(mutated))
    def generated(row: dict[str, Any]) -> None:
        path.write_text(json.dumps(row) + "\n", encoding="utf-8")
        try:
            problemsets.load_problems([path])
            seen["accepted"] += 1
        except HarnessError as error:
            assert_one_line(error, path)
            seen["refused"] += 1

    generated()
    assert sum(seen.values()) >= EXAMPLES
    assert seen["refused"] > EXAMPLES // 3


def test_a_problem_mistake_through_the_cli(tmp_path: Path) -> None:
    root = tmp_path / "problems" / "numpy"
    root.mkdir(parents=True)
    (root / "bad.toml").write_text('library = "numpy"\nprompt = "p"\nreference = 3\n')
    code, stderr = run_cli(
        "run", "--problems", str(tmp_path / "problems"), "--results", str(tmp_path / "r")
    )
    assert code == 2
    assert stderr.strip() == f"error: {root / 'bad.toml'}:3: reference: must be a non-empty string"


# -- answers files -----------------------------------------------------------------------------


def test_generated_answers_files(tmp_path: Path) -> None:
    known = problemsets.load_problems([ROOT / "tests" / "data" / "problems"])
    path = tmp_path / "model-answers.jsonl"
    seen = {"accepted": 0, "refused": 0}
    rows = st.one_of(
        st.fixed_dictionaries(
            {"problem_id": st.sampled_from([p.native_id for p in known] + ["nope", "", "1"])},
            optional={"code": values(1), "metadata": values(1)},
        ),
        values(1),
    )

    @SETTINGS
    @given(
        lines=st.lists(st.one_of(st.builds(json.dumps, rows), text_files()), min_size=1, max_size=4)
    )
    def generated(lines: list[str]) -> None:
        path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
        try:
            answers.load_answers(path, known)
            seen["accepted"] += 1
        except HarnessError as error:
            assert_one_line(error, path)
            seen["refused"] += 1

    generated()
    assert sum(seen.values()) >= EXAMPLES
    assert seen["refused"] > EXAMPLES // 2


# -- mistakes only the resolver sees: recorded per combo, the rest runs ---------------------------


@pytest.mark.network
def test_resolver_mistakes_are_recorded_per_combo(tmp_path: Path) -> None:
    (tmp_path / "matrix.toml").write_text(
        f"""
[matrix]
python = "{PY}"
[combos.fine]
numpy = "2.2.6"
[combos.impossible-pin]
numpy = "99"
[combos.unknown-package]
numpy = "2.2.6"
extras = ["harness-no-such-package-anywhere"]
[combos.conflict]
numpy = "2.2.6"
scipy = "1.11.4"
[combos.no-interpreter]
python = "3.19"
numpy = "2.2.6"
"""
    )
    code, stderr = run_cli(
        "run", "--matrix", str(tmp_path / "matrix.toml"), "--problems", str(ROOT / "tests/data/problems"),
        "--results", str(tmp_path / "results"), "--env-dir", str(tmp_path / "envs"),
        "--run-id", "r", "--no-history", "--quiet",
    )  # fmt: skip
    assert (code, "Traceback" in stderr) == (0, False), stderr
    run = tmp_path / "results" / "r"
    statuses = {
        combo: {
            json.loads(line)["status"] for line in (run / f"{combo}.jsonl").read_text().splitlines()
        }
        for combo in ("fine", "impossible-pin", "unknown-package", "conflict")
    }
    assert statuses["fine"] <= {"pass", "fail", "error"} and statuses["fine"]
    errors = {}
    for combo in ("impossible-pin", "unknown-package", "conflict"):
        assert statuses[combo] == {"env_error"}
        info = json.loads((run / "envs" / f"{combo}.json").read_text())
        assert info["stage"] == "resolve" and "\n" not in info["error"]
        errors[combo] = info["error"]
    assert "numpy==99" in errors["impossible-pin"]
    assert "harness-no-such-package-anywhere" in errors["unknown-package"]
    assert "numpy" in errors["conflict"] and "scipy" in errors["conflict"]
    info = json.loads((run / "envs" / "no-interpreter.json").read_text())
    assert (info["ok"], info["stage"]) == (False, "interpreter")
    assert "3.19" in info["error"]
