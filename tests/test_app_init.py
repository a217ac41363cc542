"""``harness init``: a starter matrix.toml and the caller workflow, never over a file."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import __version__
from harness.app import init
from harness.cli import main
from harness.core import defaults
from harness.core.errors import UsageError
from harness.matrix import spec

ROOT = Path(__file__).resolve().parents[1]


def test_init_writes_a_matrix_that_loads(tmp_path: Path) -> None:
    done = init.init(tmp_path)
    assert done.written == (Path("matrix.toml"),)
    loaded = spec.load(tmp_path / "matrix.toml")
    assert [c.id for c in loaded.combos] == ["pinned", "latest"]
    assert loaded.baseline == "pinned" and [c.id for c in loaded.lanes] == ["pre"]
    assert not (tmp_path / ".github").exists()


def test_init_github_writes_the_caller_of_our_reusable_workflow(tmp_path: Path) -> None:
    done = init.init(tmp_path, github=True)
    assert done.written == (Path("matrix.toml"), init.WORKFLOW)
    written = (tmp_path / init.WORKFLOW).read_text()
    assert written == (ROOT / "docs" / "examples" / defaults.CALLER).read_text()
    # the caller names the reusable workflow of this very version
    assert f"/.github/workflows/harness.yml@v{__version__}" in written
    assert any("commit" in line for line in done.lines())


def test_init_never_overwrites_and_then_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "matrix.toml").write_text("# mine\n")
    with pytest.raises(UsageError, match="already exists") as info:
        init.init(tmp_path, github=True)
    assert "matrix.toml" in str(info.value)
    assert (tmp_path / "matrix.toml").read_text() == "# mine\n"
    assert not (tmp_path / ".github").exists()  # the other file was not written either


def test_init_into_a_missing_folder_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nowhere: no such directory" in err
