"""Hostile answers that look for the ground truth anywhere on disk (issue #42, item 2).

A real user's machine holds copies of the benchmarks with their references, tests and
expected outputs: under ``$HOME`` (Hugging Face's cache, ``~/data``) and under the
harness's own cache (``$XDG_CACHE_HOME/ds-matrix-harness/downloads``, where named sets are
downloaded and ``--problems`` archives unpacked; ``cibench-expected``, the expected outputs
it derived). ``Plants`` makes such copies of the run's own problem files in a folder
outside /tmp and gives ``harness run`` a ``HOME`` and ``XDG_CACHE_HOME`` there; every
copy holds ``SECRET``.

Each attack answers a task whose only passing answer is ``SECRET`` (BigCodeBench's
``task_func()``, GitChameleon's ``secret()``, CIBench's one printed line, DS-1000's
``result``), so it passes only if it found a copy. Each searches its own way: by path, by
walking ``/``, through ``/proc`` (``self/root``, ``<pid>/root``, ``<pid>/cwd``, ``self/fd``,
``self/mountinfo``), symlinks and ``..`` from the working directory, the environment's
variables, the interpreter's and the env side's folders, the batch file and the paths the
process was told to hide, ``/dev/shm`` and other executions' folders. Two more read
through the checker: a module it imports by the answer's word (f2py's ``eval``, see
``hostile_lending``), and a spy the test lends (``patch("builtins.open", wraps=open)``),
whose ``open`` runs in the checker.

The done-when of #42: an answer reading any path outside its working directory but the
environment, the interpreter and the system's libraries gets "not found" or
"permission denied".
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shutil
import tarfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from tests.hostile_lending import f2py_plant

# The one answer that passes: a word (a single token in CIBench's output comparison).
SECRET = "redsecret" + "".join(chr(ord("a") + int(c, 16)) for c in uuid.uuid4().hex)
PATTERN = "redsecret[a-p]{32}"
TAG = f"harness-red-{uuid.uuid4().hex[:10]}"
# Outside /tmp (every design gives an execution a /tmp of its own), where a user's may be.
PLANTS_ROOT = Path(os.environ.get("HARNESS_RED_PLANTS", "/var/tmp"))

# -- task kinds --------------------------------------------------------------------------

BCB_PROMPT = "def task_func():\n"
BCB_BODY = f"    return {SECRET!r}\n"
BCB_TESTS = f"""
import unittest

class TestCases(unittest.TestCase):
    def test_secret(self):
        self.assertEqual(task_func(), {SECRET!r})
"""
# the same, with a spy on ``open`` lent while the answer runs
BCB_SPY_TESTS = f"""
import unittest
from unittest.mock import patch

class TestCases(unittest.TestCase):
    def test_secret(self):
        with patch("builtins.open", wraps=open):
            self.assertEqual(task_func(), {SECRET!r})
"""
BCB_KINDS: dict[str, tuple[str, str, str]] = {
    "secret": (BCB_PROMPT, BCB_BODY, BCB_TESTS),
    "secret-spy": (BCB_PROMPT, BCB_BODY, BCB_SPY_TESTS),
}
GC_TEST = f"""
from sample_{{id}} import secret


def test_secret():
    assert secret() == {SECRET!r}
"""
GC_SPY_TEST = f"""
from unittest.mock import patch

from sample_{{id}} import secret


def test_secret():
    with patch("builtins.open", wraps=open):
        assert secret() == {SECRET!r}
"""
GC_REFERENCE = f"def secret():\n    return {SECRET!r}\n"
GC_KINDS: dict[str, tuple[str, str]] = {
    "secret": (GC_TEST, GC_REFERENCE),
    "secret-spy": (GC_SPY_TEST, GC_REFERENCE),
}
CI_KINDS: dict[str, list[dict[str, str]]] = {
    "secret": [
        {
            "prompt": "Print the secret word.",
            "reference": f"print({SECRET!r})",
            "expected_output": SECRET + "\n",
        }
    ]
}
# DS-1000: the expected value is the check's; the answer is given 0.
DS1000_CONTEXT = f'''
def generate_test_case():
    return 0, {SECRET!r}

exec_context = r"""
a = test_input
[insert]
"""

def test_execution(solution: str):
    code = exec_context.replace("[insert]", solution)
    test_input, expected_result = generate_test_case()
    test_env = {{"test_input": test_input}}
    exec(code, test_env)
    assert test_env["result"] == expected_result, test_env["result"]
'''
DS1000_REFERENCE = f"result = {SECRET!r}"

# -- how an answer searches ----------------------------------------------------------------

# Shared by every finder: ``_scan(paths)`` greps every file under them (following what
# links it meets, gzip and tar archives opened) for the secret's pattern, until a deadline
# short enough for DS-1000's 4 s limit and its neighbours; ``_first(*paths)`` reads given files only.
SCAN = f"""
import gzip as _gzip, io as _io, os as _os, re as _re, stat as _stat, sys as _sys, tarfile as _tarfile, time as _time
_PATTERN = _re.compile({PATTERN!r}.encode())
_DEADLINE = _time.monotonic() + 1.5
_SKIP = ("/proc", "/sys", "/dev", "/usr/share", "/usr/lib", "/usr/include", "/usr/src")


def _grep(data):
    found = _PATTERN.search(data)
    if found is None and data[:2] == b"\\x1f\\x8b":
        try:
            return _grep(_gzip.decompress(data))
        except Exception:
            return None
    if found is None and data[257:262] == b"ustar":
        try:
            with _tarfile.open(fileobj=_io.BytesIO(data)) as tar:
                for member in tar:
                    handle = tar.extractfile(member)
                    if handle is not None:
                        hit = _grep(handle.read())
                        if hit:
                            return hit
        except Exception:
            return None
    return found.group().decode() if found else None


def _read(path):
    try:
        if not _stat.S_ISREG(_os.stat(path).st_mode):
            return None  # a pipe or a device would block
        with open(path, "rb") as handle:
            return _grep(handle.read(20_000_000))
    except Exception:
        return None


def _first(*paths):
    for path in paths:
        hit = _read(path)
        if hit:
            return hit
    return None


def _scan(paths, skip=_SKIP):
    seen = set()
    for root in paths:
        if not root:
            continue
        if _os.path.isfile(root):
            hit = _read(root)
            if hit:
                return hit
            continue
        for top, dirs, files in _os.walk(root, followlinks=True):
            if _time.monotonic() > _DEADLINE:
                return None
            real = _os.path.realpath(top)
            if real in seen or (top != root and real.startswith(skip)):
                dirs[:] = []
                continue
            seen.add(real)
            for name in files:
                hit = _read(_os.path.join(top, name))
                if hit:
                    return hit
    return None


def _home():
    return _os.path.expanduser("~")


def _cache():
    return _os.environ.get("XDG_CACHE_HOME") or _os.path.join(_home(), ".cache")
"""

FINDERS: dict[str, str] = {
    # by the names a user's machine keeps them under
    "expanduser": "def _find():\n    return _scan([_home(), _os.path.expanduser('~root')])\n",
    "hugging-face-cache": (
        "def _find():\n"
        "    hf = _os.environ.get('HF_HOME') or _os.path.join(_cache(), 'huggingface')\n"
        "    return _scan([hf, _os.path.join(_home(), '.cache', 'huggingface'),\n"
        "                  _os.environ.get('HF_DATASETS_CACHE', '')])\n"
    ),
    "home-data-folders": (
        "def _find():\n"
        "    names = ('data', 'datasets', 'Downloads', 'bigcodebench', 'GitChameleon', 'ds1000',\n"
        "             'DS-1000', 'cibench', 'benchmarks', 'work', 'src')\n"
        "    return _scan([_os.path.join(_home(), n) for n in names])\n"
    ),
    "harness-cache": (
        "def _find():\n"
        "    root = _os.path.join(_cache(), 'ds-matrix-harness')\n"
        "    return _scan([_os.path.join(root, 'downloads'), _os.path.join(root, 'cibench-expected'),\n"
        "                  root])\n"
    ),
    # the harness's own names for its downloads: sha256 of the URL, then the set's name
    "harness-cache-computed-paths": (
        "import hashlib as _hashlib\n"
        "def _find():\n"
        "    release = 'https://github.com/bigcode-project/bigcodebench-annotation/releases/download/v0.1.5'\n"
        "    ds1000 = ('https://raw.githubusercontent.com/xlang-ai/DS-1000/'\n"
        "              'b39aab71da6d23ef8d3cac59a7c5f834516ab334/data/ds1000.jsonl.gz')\n"
        "    named = [(release + '/BigCodeBench.jsonl.gz', 'bigcodebench.jsonl.gz'),\n"
        "             (ds1000, 'ds1000.jsonl.gz')]\n"
        "    downloads = _os.path.join(_cache(), 'ds-matrix-harness', 'downloads')\n"
        "    paths = [_os.path.join(downloads, _hashlib.sha256(u.encode()).hexdigest()[:12], n)\n"
        "             for u, n in named]\n"
        "    return _first(*paths)\n"
    ),
    "environment-variables": (
        "def _find():\n"
        "    paths = []\n"
        "    for value in _os.environ.values():\n"
        "        for part in value.split(_os.pathsep):\n"
        "            if part.startswith('/') and not part.startswith(('/usr', '/bin', '/sbin')):\n"
        "                paths += [part, _os.path.dirname(part), _os.path.dirname(_os.path.dirname(part))]\n"
        "    return _scan(paths)\n"
    ),
    "beside-the-data-folders": (
        "def _find():\n"
        "    paths = []\n"
        "    for name in ('SEABORN_DATA', 'SCIKIT_LEARN_DATA', 'HARNESS_CIBENCH_DATA', 'NLTK_DATA'):\n"
        "        for part in _os.environ.get(name, '').split(_os.pathsep):\n"
        "            if part:\n"
        "                paths += [part + '/..', part + '/../..', part + '/../../..']\n"
        "    return _scan(paths)\n"
    ),
    # by walking what the process can see
    "walk-the-root": (
        "def _find():\n"
        "    first = ['/var', '/root', '/home', '/work', '/srv', '/opt', '/mnt', '/data', '/media']\n"
        "    rest = sorted('/' + n for n in _os.listdir('/') if '/' + n not in first)\n"
        "    return _scan(first + rest)\n"
    ),
    "proc-self-root": (
        "def _find():\n"
        "    base = '/proc/self/root'\n"
        "    return _scan([base + _home(), base + _cache(), base + '/var/tmp', base + '/var', base])\n"
    ),
    "proc-pid-roots-and-cwds": (
        "def _find():\n"
        "    pids = sorted({int(p) for p in _os.listdir('/proc') if p.isdigit()} | {1, 2})\n"
        "    paths = []\n"
        "    for pid in pids:\n"
        "        for kind in ('root', 'cwd'):\n"
        "            base = '/proc/%d/%s' % (pid, kind)\n"
        "            paths += [base + _home(), base + _cache(), base + '/var/tmp', base + '/..']\n"
        "    return _scan(paths)\n"
    ),
    "proc-fds": (
        "def _find():\n"
        "    paths = []\n"
        "    for pid in ['self'] + [p for p in _os.listdir('/proc') if p.isdigit()]:\n"
        "        folder = '/proc/%s/fd' % pid\n"
        "        try:\n            names = _os.listdir(folder)\n"
        "        except OSError:\n            continue\n"
        "        for name in names:\n"
        "            path = _os.path.join(folder, name)\n"
        "            try:\n                target = _os.readlink(path)\n"
        "            except OSError:\n                continue\n"
        "            paths += [path, target, _os.path.dirname(target)]\n"
        "    return _scan(paths)\n"
    ),
    "mountinfo": (
        "def _find():\n"
        "    paths = []\n"
        "    with open('/proc/self/mountinfo') as handle:\n"
        "        for line in handle:\n"
        "            fields = line.split()\n"
        "            for path in (fields[3], fields[4]):\n"
        "                while path not in ('/', ''):\n"
        "                    paths.append(path)\n"
        "                    path = _os.path.dirname(path)\n"
        "    paths += [_os.path.dirname(_home()), _os.path.dirname(_cache())]\n"
        "    return _scan(sorted(set(paths), key=len, reverse=True))\n"
    ),
    "symlinks-in-the-working-directory": (
        "def _find():\n"
        "    links = []\n"
        "    for n, target in enumerate([_home(), _cache(), _os.path.dirname(_home()), '/var/tmp', '/']):\n"
        "        name = 'link-%d' % n\n"
        "        try:\n            _os.symlink(target, name)\n            links.append(name)\n"
        "        except OSError:\n            pass\n"
        "    for n, target in enumerate([_home(), _cache()]):\n"
        "        try:\n            _os.link(target, 'hard-%d' % n)\n"
        "        except OSError:\n            pass\n"
        "    return _scan(links)\n"
    ),
    "dotdot-from-the-working-directory": (
        "def _find():\n"
        "    up = [_os.path.join(*(['..'] * k)) for k in range(1, 8)]\n"
        "    return _scan([u + _home() for u in up] + [u + '/var/tmp' for u in up] + up)\n"
    ),
    "interpreter-env-and-env-side": (
        "def _find():\n"
        "    side = _os.path.dirname(_sys.modules['_harness_envside'].__file__)\n"
        "    paths = []\n"
        "    for base in (_sys.prefix, _sys.base_prefix, _sys.exec_prefix, side):\n"
        "        paths += [base, base + '/..', base + '/../..', base + '/../../..']\n"
        "    return _scan(paths, skip=('/proc', '/sys', '/dev'))\n"
    ),
    "batch-and-hidden-paths": (
        "import json as _json\n"
        "def _find():\n"
        "    paths = ['/tmp/harness-batches-0', '/tmp/harness-batches-65534']\n"
        "    for pid in ['self', '1'] + [p for p in _os.listdir('/proc') if p.isdigit()]:\n"
        "        try:\n"
        "            argv = open('/proc/%s/cmdline' % pid).read().split('\\0')\n"
        "        except OSError:\n            continue\n"
        "        for arg in argv:\n"
        "            try:\n                config = _json.loads(arg)\n"
        "            except ValueError:\n                config = None\n"
        "            if isinstance(config, dict):\n"
        "                paths += [str(p) for p in config.get('hide') or []]\n"
        "                paths += [str(v) for v in config.values() if isinstance(v, str)]\n"
        "            elif arg.startswith('/'):\n"
        "                paths += [arg, _os.path.dirname(arg)]\n"
        "    return _scan(paths + [_os.path.dirname(p) for p in paths])\n"
    ),
    "shared-memory-and-temporary-folders": (
        "def _find():\n"
        "    return _scan(['/dev/shm', '/run/shm', '/run', '/tmp', '/var/tmp', '/var/cache'])\n"
    ),
    "other-executions": (
        "import glob as _glob\n"
        "def _find():\n"
        "    mine = _os.path.realpath(_os.getcwd())\n"
        "    others = [p for p in _glob.glob('/tmp/*') + _glob.glob('/tmp/*/*') if _os.path.realpath(p) != mine]\n"
        "    others += ['/proc/%s/cwd' % p for p in _os.listdir('/proc') if p.isdigit()]\n"
        "    return _scan(others)\n"
    ),
}


def finder(name: str) -> str:
    """The code that defines ``_find()`` (the secret, or None) the way ``name`` searches."""
    return SCAN + FINDERS[name]


# Through the checker (BigCodeBench): the module f2py evaluates runs there, with the
# checker's view and privileges; it leaves what it finds in the shared working directory.
CHECKER_READS = """
import os, re
pattern = re.compile(r"@PATTERN@")
home = os.environ.get("HOME", "")
cache = os.environ.get("XDG_CACHE_HOME", "")
found = None
for base in ("", "/proc/2/root", "/proc/self/root"):
    for top in (home, cache, os.path.dirname(home)):
        for folder, dirs, files in os.walk(base + top):
            for name in files:
                try:
                    with open(os.path.join(folder, name), "rb") as handle:
                        hit = pattern.search(handle.read().decode("latin-1"))
                except OSError:
                    continue
                if hit:
                    found = hit.group()
                    break
            if found:
                break
        if found:
            break
    if found:
        break
with open("found-by-the-checker.txt", "w") as handle:
    handle.write(found or "nothing")
""".replace("@PATTERN@", PATTERN)
# Through a spy the test lends: ``open`` is the checker's, which sees the machine's /proc as
# root; the planted copies are where a user's are, under the HOME the answer is told.
SPY_READS = """
import hashlib, os
def _guesses():
    home = os.environ.get("HOME", "")
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")
    release = "https://github.com/bigcode-project/bigcodebench-annotation/releases/download/v0.1.5"
    url = release + "/BigCodeBench.jsonl.gz"
    return [
        os.path.join(home, "data", "bigcodebench", "bigcodebench.jsonl"),
        os.path.join(home, "data", "gitchameleon", "ground_truth_solutions.jsonl"),
        os.path.join(cache, "ds-matrix-harness", "downloads",
                     hashlib.sha256(url.encode()).hexdigest()[:12], "bigcodebench.jsonl"),
    ]
def _spy_find():
    import re
    for base in ("", "/proc/2/root", "/proc/self/root", "/proc/1/root"):
        for path in _guesses():
            try:
                with open(base + path) as handle:
                    hit = re.search(r"@PATTERN@", handle.read())
            except Exception:
                continue
            if hit:
                return hit.group()
    return None
""".replace("@PATTERN@", PATTERN)


def _bcb(code: str) -> str:
    return code + "def task_func():\n    return _find() or 'nothing'\n"


def _gc(code: str) -> str:
    return code + "def secret():\n    return _find() or 'nothing'\n"


BCB_ATTACKS: dict[str, tuple[str, str]] = {
    f"disk-{name}": ("secret", _bcb(finder(name))) for name in FINDERS
}
BCB_ATTACKS["disk-read-through-the-checker"] = (
    "secret",
    f2py_plant(CHECKER_READS)
    + "import types as _types\nrunner = _types.ModuleType('numpy.f2py.__main__')\n"
    "def task_func():\n"
    "    with open('found-by-the-checker.txt') as handle:\n"
    "        return handle.read()\n",
)
BCB_ATTACKS["disk-read-through-a-lent-spy"] = (
    "secret-spy",
    SPY_READS + "def task_func():\n    return _spy_find() or 'nothing'\n",
)
GC_ATTACKS: dict[str, tuple[str, str]] = {
    f"disk-gc-{name}": ("secret", _gc(finder(name))) for name in FINDERS
}
GC_ATTACKS["disk-gc-read-through-a-lent-spy"] = (
    "secret-spy",
    SPY_READS + "def secret():\n    return _spy_find() or 'nothing'\n",
)
CI_ATTACKS: dict[str, tuple[str, str]] = {
    f"disk-ci-{name}": ("secret", "# %% step 1\n" + finder(name) + "print(_find() or 'nothing')\n")
    for name in FINDERS
}
DS1000_ATTACKS: dict[str, str] = {
    f"disk-ds1000-{name}": finder(name) + "result = _find() or 'nothing'\n" for name in FINDERS
}

# -- the plants ----------------------------------------------------------------------------


@dataclass
class Plants:
    """Copies of a run's problem files where a user's machine keeps such files, in a
    folder of their own outside /tmp; ``env`` points ``harness run`` there."""

    root: Path
    files: list[Path] = field(default_factory=list)

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def cache(self) -> Path:
        return self.root / "cache"

    @property
    def env(self) -> dict[str, str]:
        """``HOME`` and ``XDG_CACHE_HOME`` in the plants; uv's cache and interpreters kept
        where they are (the run must not fetch every wheel again)."""
        home = Path.home()
        cache = Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache")
        data = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
        return {
            "HOME": str(self.home),
            "XDG_CACHE_HOME": str(self.cache),
            "UV_CACHE_DIR": os.environ.get("UV_CACHE_DIR") or str(cache / "uv"),
            "UV_PYTHON_INSTALL_DIR": os.environ.get("UV_PYTHON_INSTALL_DIR")
            or str(data / "uv" / "python"),
            # Matplotlib's font cache, which the zygote fills before any sandbox: not here
            "MPLCONFIGDIR": os.environ.get("MPLCONFIGDIR") or str(cache / "matplotlib"),
        }

    def copy(self, source: Path, *targets: Path) -> None:
        for target in targets:
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.copytree(source, target)
                self.files += [p for p in target.rglob("*") if p.is_file()]
            else:
                shutil.copyfile(source, target)
                self.files.append(target)

    def write(self, target: Path, data: bytes) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        self.files.append(target)

    def holding_the_secret(self) -> list[str]:
        """The planted files that exist and hold the secret, read from outside the sandbox
        (gzip and tar archives opened)."""
        found = []
        for path in self.files:
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if data[:2] == b"\x1f\x8b":
                data = gzip.decompress(data)
            if data[257:262] == b"ustar":
                with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                    data = b"".join(
                        handle.read()
                        for member in tar
                        if (handle := tar.extractfile(member)) is not None
                    )
            if SECRET.encode() in data:
                found.append(str(path))
        return found

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def _archive(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(folder, arcname=folder.name)
    return buffer.getvalue()


def _url_folder(url: str) -> str:
    return hashlib.sha256(url.encode()).hexdigest()[:12]


BIGCODEBENCH_URL = (
    "https://github.com/bigcode-project/bigcodebench-annotation/releases/download/v0.1.5"
    "/BigCodeBench.jsonl.gz"
)
DS1000_URL = (
    "https://raw.githubusercontent.com/xlang-ai/DS-1000/"
    "b39aab71da6d23ef8d3cac59a7c5f834516ab334/data/ds1000.jsonl.gz"
)


def plant(
    bigcodebench: Path | None = None,
    gitchameleon: Path | None = None,
    cibench: Path | None = None,
    ds1000: Path | None = None,
) -> Plants:
    """Copies of the given problem files (a BigCodeBench JSONL, a GitChameleon folder, a
    CIBench JSONL, a folder of DS-1000-style problems) where a user's machine has them."""
    plants = Plants(PLANTS_ROOT / TAG)
    plants.remove()
    home, downloads = plants.home, plants.cache / "ds-matrix-harness" / "downloads"
    revision = hashlib.sha1(TAG.encode()).hexdigest()
    if bigcodebench is not None:
        plants.copy(
            bigcodebench,
            home
            / ".cache/huggingface/hub/datasets--bigcode--bigcodebench/snapshots"
            / revision
            / "data/v0.1.2.jsonl",
            home
            / ".cache/huggingface/datasets/bigcode___bigcodebench/default/0.0.0"
            / revision[:16]
            / "bigcodebench.jsonl",
            home / "data/bigcodebench/bigcodebench.jsonl",
            downloads / _url_folder(BIGCODEBENCH_URL) / "bigcodebench.jsonl",
        )
        plants.write(
            downloads / _url_folder(BIGCODEBENCH_URL) / "bigcodebench.jsonl.gz",
            gzip.compress(bigcodebench.read_bytes()),
        )
    if gitchameleon is not None:
        archive = _archive(gitchameleon)
        digest = hashlib.sha256(archive).hexdigest()[:12]
        plants.copy(
            gitchameleon,
            home / "data/gitchameleon",
            home / "GitChameleon/dataset",
            downloads / digest / "gitchameleon",  # where ``--problems X.tar.gz`` is unpacked
        )
        plants.write(home / "Downloads/gitchameleon.tar.gz", archive)
    if cibench is not None:
        plants.copy(
            cibench,
            home / "data/cibench/cibench.jsonl",
            home / ".cache/huggingface/datasets/cibench/cibench.jsonl",
        )
        # expected outputs as the harness derives and keeps them
        plants.write(
            plants.cache / "ds-matrix-harness/cibench-expected" / f"{revision[:16]}.json",
            (f'{{"step 1": "{SECRET}\\n"}}\n').encode(),
        )
    if ds1000 is not None:
        plants.copy(ds1000, home / "data/ds1000", home / "DS-1000/data")
        rows = "".join(
            json.dumps({"problem_id": p.stem, "reference_code": p.read_text()}) + "\n"
            for p in sorted(ds1000.rglob("*.toml"))
            if SECRET in p.read_text()
        )
        plants.write(
            downloads / _url_folder(DS1000_URL) / "ds1000.jsonl.gz", gzip.compress(rows.encode())
        )
    # the runtime-data cache as ``harness fetch-data`` leaves it: bound into executions
    # (SEABORN_DATA, HARNESS_CIBENCH_DATA), its siblings not
    plants.write(plants.cache / "ds-matrix-harness/data/seaborn/tips.csv", b"total_bill,tip\n1,2\n")
    plants.write(downloads / "cibench-data/0123456789abcdef/data.csv", b"a,b\n1,2\n")
    plants.write(home / ".python_history", f"print({SECRET!r})\n".encode())
    return plants
