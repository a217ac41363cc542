"""Which index serves a package, as matrix.toml says it: ``indexes``, ``sources`` and
``torch_backend`` in ``[matrix]`` and in a combo, and their mistakes, a line each."""

from __future__ import annotations

import pytest

from harness.core.errors import SpecError, SpecErrorGroup
from harness.matrix.indexes import Source, Sourcing
from harness.matrix.spec import Combo, load
from tests.conftest import Writer

CPU = "https://download.pytorch.org/whl/cpu"
HEAD = f"""
[matrix]
python = "3.11"
indexes = {{ pytorch-cpu = "{CPU}", mirror = "https://mirror.example/simple" }}
sources = {{ torch = "pytorch-cpu" }}
"""


def test_the_matrix_s_sources_reach_every_combo_and_a_combo_overrides_them(
    write: Writer,
) -> None:
    path = write(
        "m.toml",
        HEAD
        + """
        [combos.cpu]
        torch = "2.2.0"
        [combos.gpu]
        torch = "2.2.0"
        torch_backend = "cu126"
        [combos.mirrored]
        numpy = "1.26.4"
        sources = { NumPy = "mirror" }
        [combos.own]
        numpy = "1.26.4"
        indexes = { mine = "file:///srv/wheels" }
        sources = { numpy = "mine" }
        """,
    )
    by_id = {c.id: c.sourcing for c in load(path).combos}
    assert by_id["cpu"] == Sourcing((Source("torch", "pytorch-cpu", CPU),))
    # a combo's backend replaces the matrix's word on torch
    assert by_id["gpu"] == Sourcing((), "cu126")
    assert by_id["mirrored"].sources == (
        Source("numpy", "mirror", "https://mirror.example/simple"),  # the name normalized
        Source("torch", "pytorch-cpu", CPU),
    )
    assert Source("numpy", "mine", "file:///srv/wheels") in by_id["own"].sources


def test_a_matrix_saying_nothing_sources_nothing(write: Writer) -> None:
    path = write("m.toml", '[combos.a]\npython = "3.11"\nnumpy = "1.26.4"\n')
    assert load(path).combos[0].sourcing == Sourcing()


def test_the_sourcing_round_trips_with_the_combo(write: Writer) -> None:
    path = write("m.toml", HEAD + '[combos.a]\ntorch = "2.2.0"\ntorch_backend = "cpu"\n')
    (combo,) = load(path).combos
    assert Combo.from_dict(combo.to_dict()) == combo
    # a combo recorded before sources existed reads back without any
    old = {k: v for k, v in combo.to_dict().items() if k not in ("sources", "torch_backend")}
    assert Combo.from_dict(old).sourcing == Sourcing()


@pytest.mark.parametrize(
    ("combo", "message"),
    [
        (
            'sources = { torch = "pytorch-gpu" }',
            "m.toml:7: combo 'a'.sources.torch: no index 'pytorch-gpu' (indexes: pytorch-cpu, mirror)",
        ),
        (
            'torch_backend = "gpu"',
            "m.toml:7: combo 'a'.torch_backend: 'gpu' is not a PyTorch backend uv knows (auto, cpu, xpu, cu126, rocm6.3, …)",
        ),
        (
            'torch_backend = "cpu"\nsources = { torch = "pytorch-cpu" }',
            "m.toml:7: combo 'a'.torch_backend: torch_backend and sources.torch both say where torch comes from: keep one",
        ),
        (
            'indexes = { cpu = "download.pytorch.org" }',
            "m.toml:7: combo 'a'.indexes.cpu: 'download.pytorch.org' is not an http(s) or file URL",
        ),
        (
            "sources = 3",
            "m.toml:7: combo 'a'.sources: expected a table, got int 3",
        ),
    ],
)
def test_a_mistake_names_the_line_the_key_and_what_is_wrong(
    write: Writer, combo: str, message: str
) -> None:
    path = write("m.toml", HEAD + '[combos.a]\ntorch = "2.2.0"\n' + combo + "\n")
    with pytest.raises((SpecError, SpecErrorGroup)) as info:
        load(path, display="m.toml")
    assert message in list(info.value.lines())
