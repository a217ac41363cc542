"""Which index serves a package, as uv is asked for it: the options, the project files,
the lock naming each package's index, and the env record keeping it.

The PyTorch index (download.pytorch.org) is not reachable from our machines: a local
index (a PEP 503 folder behind a ``file://`` URL) holding a stand-in ``torch`` CPU wheel
plays its part in the real builds here; the one test that needs the real index skips,
saying so, where it cannot be reached.
"""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

from harness.envs import sources
from harness.envs.build import EnvBuilder, lock_hash
from harness.matrix.indexes import Source, Sourcing
from harness.matrix.spec import Combo, LibrarySpec, VersionKind
from tests.fakeuv import FakeUv, install
from tests.test_envs import PY, option

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CPU = "https://download.pytorch.org/whl/cpu"


@pytest.fixture
def uv(monkeypatch: pytest.MonkeyPatch) -> FakeUv:
    return install(monkeypatch)


TORCH = LibrarySpec("torch", "torch", "2.2.0", VersionKind.PIN)


def combo(sourcing: Sourcing = Sourcing(), **kwargs: object) -> Combo:  # noqa: B008
    return Combo("c", PY, (TORCH,), extras=("six==1.16.0",), sourcing=sourcing, **kwargs)  # type: ignore[arg-type]


SOURCED = Sourcing((Source("torch", "pytorch-cpu", CPU),))
BACKEND = Sourcing(torch_backend="cpu")


def calls(tmp_path: Path, uv: FakeUv, chosen: Combo) -> tuple[list[str], list[str]]:
    """uv's ``pip compile`` and ``pip sync`` arguments for building ``chosen``."""
    uv.lock = "torch==2.2.0\nsix==1.16.0\n"
    EnvBuilder(tmp_path).build(chosen)
    compiled = next(list(c) for c in uv.calls if c[:2] == ("pip", "compile"))
    synced = next(list(c) for c in uv.calls if c[:2] == ("pip", "sync"))
    return compiled, synced


def test_a_combo_saying_nothing_is_built_as_before(tmp_path: Path, uv: FakeUv) -> None:
    compiled, synced = calls(tmp_path, uv, combo())
    for args in (compiled, synced):
        assert "--torch-backend" not in args
        assert "--emit-index-annotation" not in args
    assert compiled[2].endswith(".in") and synced[2].endswith("harness.lock.txt")


def test_a_torch_backend_is_asked_of_the_resolution_and_the_install(
    tmp_path: Path, uv: FakeUv
) -> None:
    compiled, synced = calls(tmp_path, uv, combo(BACKEND))
    assert option(compiled, "--torch-backend") == option(synced, "--torch-backend") == "cpu"
    assert "--emit-index-annotation" in compiled  # the lock says where torch came from


def test_a_source_resolves_and_installs_from_a_project_file(tmp_path: Path, uv: FakeUv) -> None:
    compiled, synced = calls(tmp_path, uv, combo(SOURCED))
    request = tomllib.loads(Path(compiled[2]).read_text())
    assert Path(compiled[2]).name == "pyproject.toml"
    assert request["project"]["dependencies"] == ["torch==2.2.0", "six==1.16.0"]
    assert request["tool"]["uv"]["index"] == [{"name": "pytorch-cpu", "url": CPU, "explicit": True}]
    assert request["tool"]["uv"]["sources"] == {"torch": {"index": "pytorch-cpu"}}
    installed = tomllib.loads(Path(synced[2]).read_text())  # the lock's pins, same sources
    assert installed["project"]["dependencies"] == ["torch==2.2.0", "six==1.16.0"]
    assert installed["tool"]["uv"]["sources"] == request["tool"]["uv"]["sources"]
    assert "--torch-backend" not in compiled


def test_the_lock_names_each_package_index_and_the_record_keeps_the_others() -> None:
    lock = (
        "six==1.16.0\n    # via harness-combo\n    # from https://pypi.org/simple\n"
        "torch==2.2.0+cpu\n    # via harness-combo\n    # from https://download.pytorch.org/whl/cpu\n"
    )
    assert sources.indexes_of(lock, "https://pypi.org/simple/") == {"torch": CPU}
    assert set(sources.indexes_of(lock, "")) == {"six", "torch"}
    # the index is part of an env's identity; a lock without annotations hashes as before
    elsewhere = lock.replace(CPU, "https://mirror.example/whl/cpu")
    assert lock_hash(lock, "3.11.7") != lock_hash(elsewhere, "3.11.7")
    plain = "six==1.16.0\ntorch==2.2.0+cpu\n"
    assert lock_hash(plain, "3.11.7") == lock_hash(plain + "    # via x\n", "3.11.7")


# -- real builds against a local index standing for PyTorch's -----------------------------


def _wheel(folder: Path, name: str, version: str, body: str) -> Path:
    """A minimal valid wheel of one module ``name`` (its RECORD with hashes)."""
    info = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": body,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{path},sha256={digest.decode()},{len(text.encode())}")
    record.append(f"{info}/RECORD,,")
    target = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(target, "w") as out:
        for path, text in {**files, f"{info}/RECORD": "\n".join(record) + "\n"}.items():
            out.writestr(path, text)
    return target


def _local_index(root: Path) -> str:
    """A PEP 503 index holding a ``torch`` 2.2.0+cpu stand-in: its ``file://`` URL."""
    project = root / "simple" / "torch"
    project.mkdir(parents=True)
    wheel = _wheel(project, "torch", "2.2.0+cpu", "BUILD = 'cpu'\n")
    (project / "index.html").write_text(f'<a href="{wheel.name}">{wheel.name}</a>\n')
    return (root / "simple").as_uri()


def test_a_package_comes_from_the_index_its_source_names(tmp_path: Path) -> None:
    url = _local_index(tmp_path / "index")
    chosen = Combo("cpu", PY, (TORCH,), sourcing=Sourcing((Source("torch", "pytorch-cpu", url),)))
    info, lock = EnvBuilder(tmp_path / "envs").build(chosen)
    assert info.ok, info.error
    assert info.versions == {"torch": "2.2.0+cpu"}
    assert f"# from {url}" in lock  # the lock names the index
    assert info.indexes == {"torch": url}  # and the env's record keeps it
    proc = subprocess.run(
        [str(info.python_exe), "-c", "import torch; print(torch.BUILD)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout.strip() == "cpu"
    again, _ = EnvBuilder(tmp_path / "envs").build(chosen)
    assert again.reused and again.lock_hash == info.lock_hash


def _pytorch_index_unreachable() -> str | None:
    try:
        urllib.request.urlopen(f"{CPU}/torch/", timeout=10).close()
    except (urllib.error.URLError, OSError) as exc:
        return f"the PyTorch index ({CPU}) is not reachable from this machine: {exc}"
    return None


@pytest.mark.network
@pytest.mark.parametrize("sourcing", [SOURCED, BACKEND], ids=["explicit-index", "torch-backend"])
def test_torch_comes_as_a_cpu_build_from_the_pytorch_index(
    tmp_path: Path, sourcing: Sourcing
) -> None:
    unreachable = _pytorch_index_unreachable()
    if unreachable:
        pytest.skip(f"{unreachable}: a download from it would be needed")
    chosen = Combo("cpu", PY, (TORCH,), sourcing=sourcing)
    _, pins = EnvBuilder(tmp_path).resolved_versions(chosen)
    assert pins["torch"].endswith("+cpu")
    lock = next((tmp_path / "locks").glob("*.txt")).read_text()
    assert f"# from {CPU}" in lock


def test_an_unreachable_source_index_is_the_one_named(tmp_path: Path, uv: FakeUv) -> None:
    uv.error = (
        "error: Failed to fetch: `https://download.pytorch.org/whl/cpu/torch/`\n"
        "  Caused by: dns error: failed to lookup address information\n"
    )
    info, _ = EnvBuilder(tmp_path).build(combo(SOURCED))
    assert (info.ok, info.stage) == (False, "resolve")
    assert info.error.startswith(f"package index unreachable ({CPU}): ")


def test_the_combo_line_says_where_packages_come_from() -> None:
    assert combo(SOURCED).line().endswith(" torch<-pytorch-cpu")
    assert combo(BACKEND).line().endswith(" torch_backend=cpu")
    assert "<-" not in combo().line() and "backend" not in combo().line()
