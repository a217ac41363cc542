"""The filesystem an execution sees: built from what it may see, and nothing else.

An execution's process (the checker, and the solution's process apart from it) is given
a new root: an empty tmpfs into which only what the program needs is bound, each at its
own path, read-only but the working directory:

- the system: ``/usr``, ``/etc`` and the top-level folders or links of its libraries and
  programs (``/bin``, ``/lib``, ``/lib64``…), as the machine has them;
- its interpreter and environment (``sys.base_prefix``, ``sys.prefix``, the folders on
  ``sys.path``) and the env side's own folder (a solution's process starts from it);
- the data problems read at run time, named by variables (``DATA_VARIABLES``);
- ``/sys``; ``/proc`` and ``/dev`` as the sandbox makes them;
- an empty ``/tmp`` of its own, holding its working directory (writable).

Nothing else of the machine: not ``$HOME``, not a cache, not the project, not the results,
not a dataset wherever it lies. A path is visible because it is named here, never because
nobody thought to hide it. Anything the host names to hide that still falls inside what is
bound (a problem file under a data folder) is covered as well. The old root is detached
after the pivot: no path and no descriptor of this process leads back to it.
"""

from __future__ import annotations

import contextlib
import glob
import os
import stat
import sys
from typing import Iterator, List, Sequence, Tuple

from .mounts import (
    MS_BIND,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    MS_PRIVATE,
    MS_REC,
    detach,
    mount,
    pivot_root,
)

# The machine's system, by top-level name: bound where it is a folder, made again where it
# is a link (``/lib -> usr/lib`` on a merged /usr).
SYSTEM = ("usr", "etc", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
# The datasets problems read while they run, and where the host put them (``harness
# fetch-data``'s caches, CIBench's staged data files, NLTK's corpora where a user has
# them): each variable may name several folders, separated as PATH is.
DATA_VARIABLES = ("SEABORN_DATA", "SCIKIT_LEARN_DATA", "HARNESS_CIBENCH_DATA", "NLTK_DATA")
# Folders the new root's tmpfs may be mounted on while it is built (the first that exists).
_SCRATCH = ("/tmp", "/mnt", "/media", "/srv", "/opt", "/var")
_OLD_ROOT = "/.harness-old-root"
# The env side's own folder (all of it, not this room's): mounted, read-only, in every view;
# and the benchmarks' own env-side folders beside it (``harness/benchmarks/<name>/envside``,
# what ``envside/benchmarks.py`` imports), the same code by the same trust.
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCHMARK_SIDES = sorted(
    glob.glob(os.path.join(os.path.dirname(HERE), "benchmarks", "*", "envside"))
)


def data_paths() -> List[str]:
    """The folders the data variables name."""
    found = []
    for variable in DATA_VARIABLES:
        found += [p for p in os.environ.get(variable, "").split(os.pathsep) if p]
    return found


def allowed() -> Tuple[List[str], List[Tuple[str, str]]]:
    """What of the machine beyond its system an execution may read (the interpreter, the
    environment, the env side, the data): the folders to bind, each once and none inside
    another or inside the system; and (path as the process names it, the folder it is)
    where the two differ (a link on the way), to be made again as links."""
    # (not sys.path: what a .pth file or a caller adds to it may be anything, a home
    # folder or /tmp; what the environment's own imports need is under its prefixes)
    named = [sys.base_prefix, sys.prefix, sys.base_exec_prefix, sys.exec_prefix, HERE]
    named += BENCHMARK_SIDES
    named += data_paths()
    system = [os.path.realpath("/" + name) for name in SYSTEM]
    # never a folder that holds the place the new root is built on (``/tmp`` named as a
    # data folder would bring the machine's whole /tmp)
    scratch = [os.path.realpath(p) for p in _SCRATCH]
    pairs: List[Tuple[str, str]] = []
    for path in named:
        if not path or not os.path.isabs(path) or not os.path.exists(path):
            continue
        real = os.path.realpath(path)
        if any(_inside(real, s) for s in system) or any(_inside(s, real) for s in scratch):
            continue
        pairs.append((os.path.abspath(path), real))
    kept: List[str] = []
    for real in sorted({real for _, real in pairs}, key=len):
        if not any(_inside(real, k) for k in kept):
            kept.append(real)
    return kept, [(given, real) for given, real in dict.fromkeys(pairs) if given != real]


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _system() -> Iterator[Tuple[str, str]]:
    """(name, where it links to) for each system entry the machine has ('' for a folder)."""
    for name in SYSTEM:
        path = "/" + name
        if os.path.islink(path):
            yield name, os.readlink(path)
        elif os.path.isdir(path):
            yield name, ""


def enter(workdir: str, tmp_mb: int, proc: str, devices: bool) -> None:
    """Give this process (in a new mount namespace of its own) the new root the module
    describes, and detach the old one.

    ``proc``: ``"own"`` mounts a /proc of this process's pid namespace, ``"bind"`` binds
    the machine's. ``devices``: bind the machine's /dev (else the caller makes a minimal
    one: ``sandbox``). Nothing is read-only yet: the caller remounts it all read-only but
    the working directory, /tmp, /proc and /dev."""
    workdir = os.path.realpath(workdir)
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    binds, links = allowed()
    system = list(_system())
    # what the new root holds, opened before anything is covered (some of it may lie
    # under the folder the new root is built on)
    sources = {real: os.open(real, os.O_PATH | os.O_CLOEXEC) for real in binds}
    special = {
        name: os.open("/" + name, os.O_PATH | os.O_CLOEXEC)
        for name in ("sys", *(["proc"] if proc == "bind" else []), *(["dev"] if devices else []))
        if os.path.isdir("/" + name)
    }
    system_fds = {
        name: os.open("/" + name, os.O_PATH | os.O_CLOEXEC) for name, link in system if not link
    }
    work = os.open(workdir, os.O_PATH | os.O_CLOEXEC)
    scratch = next(p for p in _SCRATCH if os.path.isdir(p) and not os.path.islink(p))
    try:
        mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=755")
        for name, link in system:
            if link:
                os.symlink(link, scratch + "/" + name)
            else:
                _bind(system_fds[name], scratch + "/" + name, directory=True)
        for name, fd in special.items():
            _bind(fd, scratch + "/" + name, directory=True)
        if proc == "own":
            os.mkdir(scratch + "/proc", 0o555)
            mount("proc", scratch + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        if not devices:
            os.mkdir(scratch + "/dev", 0o755)
        # an empty /tmp of its own (what it may write by name, as BigCodeBench's tests do)
        os.mkdir(scratch + "/tmp", 0o1777)
        mount(
            "tmpfs", scratch + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=%dm,mode=1777" % tmp_mb
        )
        for real in sorted(sources, key=len):
            _bind(sources[real], scratch + real, directory=_is_dir(sources[real]))
        _bind(work, scratch + workdir, directory=True)
        for given, real in links:
            _link(scratch, given, real)
        os.mkdir(scratch + _OLD_ROOT)
        pivot_root(scratch, scratch + _OLD_ROOT)
    finally:
        for fd in [*sources.values(), *special.values(), *system_fds.values(), work]:
            os.close(fd)
    os.chdir("/")
    detach(_OLD_ROOT)
    os.rmdir(_OLD_ROOT)


def _is_dir(fd: int) -> bool:
    """Whether what ``fd`` names is a folder (asked of the descriptor: once the new root's
    tmpfs covers the folder it is built on, the path may no longer lead there)."""
    return stat.S_ISDIR(os.fstat(fd).st_mode)


def _bind(fd: int, target: str, directory: bool) -> None:
    """Bind what ``fd`` names at ``target`` in the new root (made: folders, or a file)."""
    if directory:
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.exists(target):
            open(target, "a").close()
    mount("/proc/self/fd/%d" % fd, target, None, MS_BIND | MS_REC)


def _link(root: str, given: str, real: str) -> None:
    """The path a process names a folder by, where it differs from where the folder is
    (a link on the way): made again as a link, unless something is there already."""
    target = root + given
    with contextlib.suppress(OSError):
        if not os.path.lexists(target):
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.symlink(real, target)


def cover(hide: Sequence[str], needed: Sequence[str]) -> Tuple[List[str], List[str]]:
    """Of the paths the host names to hide, those the new root still shows: (folders,
    files). A folder that holds something the execution needs (its working directory, its
    interpreter) is not covered; the files named inside it are, one by one."""
    needed = [os.path.realpath(n) for n in needed]
    directories: List[str] = []
    files: List[str] = []
    for path in dict.fromkeys(os.path.realpath(p) for p in hide):
        if os.path.isdir(path):
            if not any(_inside(n, path) for n in needed):
                directories.append(path)
        elif os.path.isfile(path):
            files.append(path)
    inside = [d for d in directories if any(_inside(d, o) and d != o for o in directories)]
    directories = [d for d in directories if d not in inside]
    files = [f for f in files if not any(_inside(f, d) for d in directories)]
    return directories, files
