"""The seven libraries the matrix is about, and the names each goes by.

A library has one canonical key (its usual PyPI name, used in ``matrix.toml``),
a default distribution to install, the module it is imported as, and the
aliases other benchmarks use for it (DS-1000 says ``Sklearn``, ``Pytorch``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping


@dataclass(frozen=True)
class Library:
    key: str
    package: str
    module: str
    aliases: tuple[str, ...] = ()


LIBRARIES: tuple[Library, ...] = (
    Library("numpy", "numpy", "numpy", ("np",)),
    Library("pandas", "pandas", "pandas", ("pd",)),
    Library("scipy", "scipy", "scipy"),
    Library("scikit-learn", "scikit-learn", "sklearn", ("sklearn", "scikit_learn")),
    Library("matplotlib", "matplotlib", "matplotlib", ("mpl",)),
    Library("torch", "torch", "torch", ("pytorch",)),
    # PyPI's ``tensorflow-cpu`` is what DS-1000 graded with and has no CUDA payload;
    # a combo may ask for ``package = "tensorflow"`` instead.
    Library("tensorflow", "tensorflow-cpu", "tensorflow", ("tf",)),
)

BY_KEY: Mapping[str, Library] = {lib.key: lib for lib in LIBRARIES}
_BY_ANY_NAME: Mapping[str, Library] = {
    name: lib for lib in LIBRARIES for name in (lib.key, lib.module, lib.package, *lib.aliases)
}

# Distributions whose import name differs from the distribution name, for the
# extras users commonly add; used to say which package a missing module needs.
MODULE_TO_PACKAGE: Mapping[str, str] = {
    **{lib.module: lib.package for lib in LIBRARIES},
    "sklearn": "scikit-learn",
    "mpl_toolkits": "matplotlib",  # ships inside matplotlib
    "yaml": "pyyaml",
    "PIL": "pillow",
    "cv2": "opencv-python",
    "skimage": "scikit-image",
}


def lookup(name: str) -> Library | None:
    """The library called ``name`` in any of its spellings, case-insensitively."""
    return _BY_ANY_NAME.get(name.strip().lower().replace("_", "-")) or _BY_ANY_NAME.get(
        name.strip().lower()
    )


def canonical(name: str) -> str:
    """The canonical key for a library name, or the lower-cased name for other packages."""
    lib = lookup(name)
    return lib.key if lib else name.strip().lower()
