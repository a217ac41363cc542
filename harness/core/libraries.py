"""The seven libraries the matrix is about, and the names each goes by.

A library has one canonical key (its usual PyPI name, used in ``matrix.toml``),
a default distribution to install, the module it is imported as, and the
aliases other benchmarks use for it (DS-1000 says ``Sklearn``, ``Pytorch``).
This module is the one place these facts live: TensorFlow is installed as
``tensorflow-cpu`` by default, but either distribution is TensorFlow.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from packaging.utils import canonicalize_name

if TYPE_CHECKING:
    from collections.abc import Mapping


@dataclass(frozen=True)
class Library:
    key: str  # canonical: its usual PyPI name, as matrix.toml spells it
    package: str  # the distribution installed unless a combo asks for another
    module: str  # the top-level module it is imported as
    aliases: tuple[str, ...] = ()
    spelled: str = ""  # how its API is written in code and messages, if not ``module``

    @property
    def api(self) -> str:
        """The prefix of its API's names as people write them: ``tf.keras``, ``np`` aside."""
        return self.spelled or self.module

    @property
    def distributions(self) -> tuple[str, ...]:
        """Every distribution that installs it: the default first, then its PyPI name."""
        return tuple(dict.fromkeys((self.package, self.key)))


LIBRARIES: tuple[Library, ...] = (
    Library("numpy", "numpy", "numpy", ("np",)),
    Library("pandas", "pandas", "pandas", ("pd",)),
    Library("scipy", "scipy", "scipy"),
    Library("scikit-learn", "scikit-learn", "sklearn", ("sklearn", "scikit_learn")),
    Library("matplotlib", "matplotlib", "matplotlib", ("mpl",)),
    Library("torch", "torch", "torch", ("pytorch",)),
    # PyPI's ``tensorflow-cpu`` is what DS-1000 graded with and has no CUDA payload;
    # a combo may ask for ``package = "tensorflow"`` instead.
    Library("tensorflow", "tensorflow-cpu", "tensorflow", ("tf",), spelled="tf"),
)

BY_KEY: Mapping[str, Library] = {lib.key: lib for lib in LIBRARIES}
_BY_ANY_NAME: Mapping[str, Library] = {
    name: lib for lib in LIBRARIES for name in (lib.key, lib.module, lib.package, *lib.aliases)
}

# Distributions whose import name differs from the distribution name, for the
# extras users commonly add; used to say which package a missing module needs.
MODULE_TO_PACKAGE: Mapping[str, str] = {
    **{lib.module: lib.package for lib in LIBRARIES},
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


def installs(distribution: str) -> Library | None:
    """The library a distribution installs (``tensorflow-cpu`` → TensorFlow), if one."""
    lib = lookup(distribution)
    return lib if lib is not None and canonicalize_name(distribution) in lib.distributions else None


# Other distributions of an extra's one import name: a lock lists OpenCV under the build it
# installed (CIBench's matrix installs the headless one).
_BUILDS: Mapping[str, tuple[str, ...]] = {
    "opencv-python": (
        "opencv-python-headless",
        "opencv-contrib-python",
        "opencv-contrib-python-headless",
    ),
}


def same_library(distribution: str) -> tuple[str, ...]:
    """``distribution`` and every other distribution of the same library, in that order:
    the names a lock may list that library under (``tensorflow``, ``tensorflow-cpu``,
    ``opencv-python-headless``)."""
    lib = installs(distribution)
    others = lib.distributions if lib else _BUILDS.get(distribution, ())
    return tuple(dict.fromkeys((distribution, *others)))


def canonical(name: str) -> str:
    """The canonical key for a library name, or the lower-cased name for other packages."""
    lib = lookup(name)
    return lib.key if lib else name.strip().lower()


# Modules the standard library had and dropped (3.12: PEP 632 and others; 3.13: PEP 594).
# A problem that imports one is not missing an install where it is gone: Python removed
# an API it uses, which is drift like any library's removal (``harness.execute.runner``).
REMOVED_STDLIB = frozenset(
    {
        "asynchat", "asyncore", "distutils", "imp", "smtpd",
        "aifc", "audioop", "cgi", "cgitb", "chunk", "crypt", "imghdr", "lib2to3", "mailcap",
        "msilib", "nis", "nntplib", "ossaudiodev", "pipes", "sndhdr", "spwd", "sunau",
        "telnetlib", "uu", "xdrlib",
    }
)  # fmt: skip


def is_stdlib(module: str) -> bool:
    """Whether ``module`` (dotted) is of Python's standard library, now or once: the
    host's own list (``sys.stdlib_module_names``) no longer names those it dropped."""
    top = module.split(".", maxsplit=1)[0]
    return top in sys.stdlib_module_names or top in REMOVED_STDLIB
