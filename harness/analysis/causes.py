"""Why an execution failed, read from its outcome: the kind of API change, and the symbol.

The cause is a best reading of the exception type and message (and the traceback,
for the library involved); it never guesses beyond what the error says.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.core.libraries import BY_KEY, MODULE_TO_PACKAGE, canonical, is_stdlib
from harness.core.results import Status
from harness.envside.protocol import OUTPUT_FORMAT

if TYPE_CHECKING:
    from harness.core.results import Outcome


class Cause(str, enum.Enum):
    REMOVED_API = "removed-api"
    CHANGED_SIGNATURE = "changed-signature"
    CHANGED_BEHAVIOUR = "changed-behaviour"  # a wrong result, or a dtype/value error
    # the printed output changed, the values in it did not (a repr: NumPy 2's scalars)
    OUTPUT_FORMAT = "output-format"
    WARNING_AS_ERROR = "warning-turned-error"
    NEEDS_NETWORK = "needs-network"
    # a program the code starts is not on this machine (``tesseract``): never drift
    NEEDS_TOOL = "needs-tool"
    # a library's data files that are downloaded ahead (NLTK's corpora, TextBlob's) are
    # not on this machine: never drift
    NEEDS_DATA = "needs-data"
    # the checker would not admit a value the solution sent back (harness/envside/bridge/admission.py)
    GUARD_REFUSED = "guard-refused"
    TIMEOUT = "timeout"
    CRASH = "crash"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Diagnosis:
    cause: Cause
    symbol: str = ""  # e.g. "pandas.DataFrame.append", "pandas.read_csv(delim_whitespace=)"
    # canonical key of the library the symbol belongs to, when known; "python" for Python
    # itself and its standard library ("unittest.TestCase.assertAlmostEquals")
    library: str = ""


_NETWORK_TYPES = (
    "URLError",
    "HTTPError",
    "ConnectionError",
    "ConnectionRefusedError",
    "gaierror",
    "RemoteDisconnected",
    "SSLError",
    "ReadTimeout",
    "ConnectTimeout",
    "MaxRetryError",
)
_NETWORK_TEXT = re.compile(
    r"Name or service not known|Temporary failure in name resolution|Network is unreachable|"
    r"nodename nor servname|Failed to establish a new connection|Connection refused|"
    # BigCodeBench's driver saw the test ask for a host (audit events), whatever it raised
    r"\[harness: reached for the network: ",
)
_MODULE_ATTR = re.compile(r"module '([\w.]+)' has no attribute '(\w+)'")
_OBJECT_ATTR = re.compile(r"(?:type object )?'([\w.]+)' (?:object )?has no attribute '(\w+)'")
_IMPORT_NAME = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")
_REMOVED = re.compile(r"`?([\w.]+)`? (?:has been|was|is) removed", re.IGNORECASE)
_KEYWORD = re.compile(r"([\w.]+)\(\) got an unexpected keyword argument '(\w+)'")
_POSITIONAL = re.compile(
    r"([\w.]+)\(\) takes (?:from )?[\w ]+ positional arguments? but \d+ (?:were|was) given"
)
_MISSING = re.compile(
    r"([\w.]+)\(\) missing \d+ required (?:positional|keyword-only) arguments?: '(\w+)'"
)
_MULTIPLE = re.compile(r"([\w.]+)\(\) got multiple values for argument '(\w+)'")
_SITE = re.compile(r"site-packages/([A-Za-z_][\w]*)/")
# What BigCodeBench's driver (harness/benchmarks/bigcodebench/load.py) adds to a message, from
# what it saw where the exception was raised: the class a task's own class inherits
# (where the missing attribute was looked for), and a program the machine lacks.
_DERIVES = re.compile(r"\[harness: (\w+) derives from ([\w.]+)\]")
# NLTK's "Resource punkt not found" (its name in terminal colours before NLTK 3.9,
# quoted since: "Resource 'punkt_tab' not found"), TextBlob's corpora
_NO_DATA = re.compile(
    r"Resource (?:\x1b\[\d+m|')?([\w./-]+)(?:\x1b\[0m|')? not found|(MissingCorpusError)"
)
_NO_PROGRAM = re.compile(r"\[harness: no program '([^']*)' on this machine\]")
PYTHON = "python"  # the library key of Python itself and its standard library
_BUILTIN_TYPES = frozenset(
    {
        "list",
        "dict",
        "str",
        "int",
        "float",
        "tuple",
        "set",
        "frozenset",
        "bool",
        "bytes",
        "NoneType",
        "function",
        "builtin_function_or_method",
        "method",
        "module",
        "type",
        "generator",
        "range",
        "map",
        "filter",
        "zip",
        "object",
    }
)


# The exception types of an execution whose values the guard would not admit, and of one
# it could not run apart (what the check gives the solution cannot be sent to it).
GUARD_REFUSED = "GuardRefused"
GUARD_ERROR = "GuardError"
_REFUSED_GLOBAL = re.compile(r"refused: ([\w.]+:[\w.]+) ")


def _refused_global(message: str) -> str:
    """``numpy.testing:measure`` from the refusal's message, or ""."""
    match = _REFUSED_GLOBAL.search(message)
    return match.group(1) if match else ""


def _traceback_library(outcome: Outcome) -> str:
    """The library of the innermost traceback frame inside one, or ""."""
    for name in reversed(_SITE.findall(outcome.traceback)):
        if name in MODULE_TO_PACKAGE:
            return canonical(name)
    return ""


# NumPy 2's scalar reprs, as a printed output holds them: ``np.float64(-2.0)``, ``np.True_``
_NUMPY_REPR = re.compile(r"\bnp\.(?:[a-z]+\d*\(|True_|False_)")


def _library_of(outcome: Outcome, module: str = "") -> str:
    """The library a failure points into: the module named, else the innermost library frame."""
    top = module.split(".", maxsplit=1)[0]
    if top and top in MODULE_TO_PACKAGE:
        return canonical(top)
    if top and is_stdlib(top):
        return PYTHON
    return _traceback_library(outcome) or outcome.library


def _qualify(library: str, symbol: str) -> str:
    if library == PYTHON:
        return symbol  # named by its module already: ``unittest.TestCase.assertAlmostEquals``
    known = BY_KEY.get(library)
    module = known.api if known else library
    return symbol if not library or symbol.startswith(module + ".") else f"{module}.{symbol}"


# Where a failure happened, by the code names the env side compiles them under: the
# solution, or the problem's own test code (BigCodeBench's tests, our setup and check).
SOLUTION_SITE, TEST_SITE, ASSERTION_SITE = "solution", "test", "assertion"
_SITES = {
    "<solution>": SOLUTION_SITE,
    "<tests>": TEST_SITE,
    "<setup>": TEST_SITE,
    "<check>": TEST_SITE,
}
_FRAME_FILE = re.compile(r"^(<\w+>):\d+ in ", re.MULTILINE)


def site(outcome: Outcome) -> str:
    """Where ``outcome`` broke: ``solution`` or ``test`` for an error, by the innermost
    frame of either in its traceback (a call into a library counts where it was made);
    ``assertion`` for a failed check (the solution's result, or the expected value the
    test computed, changed); "" when the frames do not say."""
    if outcome.status.value == "fail":
        return ASSERTION_SITE
    for name in reversed(_FRAME_FILE.findall(outcome.traceback)):
        if name in _SITES:
            return _SITES[name]
    return ""


def diagnose(outcome: Outcome) -> Diagnosis | None:
    """The cause of a failed outcome; None for outcomes that are not failures."""
    if outcome.status is Status.TIMEOUT:
        return Diagnosis(Cause.TIMEOUT)
    if outcome.status is Status.CRASH:
        return Diagnosis(Cause.CRASH, outcome.exc_type or "")
    if not outcome.status.is_failure:
        return None
    exc = (outcome.exc_type or "").rsplit(".", 1)[-1]
    message = outcome.message
    if outcome.exc_type in (GUARD_REFUSED, GUARD_ERROR):
        return Diagnosis(Cause.GUARD_REFUSED, _refused_global(message))
    # graded per part (unit tests): the first error speaks for the outcome, but any part
    # that wanted the network or a program says what the execution lacked
    raised = [(exc, message)] + [
        (p.exc_type.rsplit(".", 1)[-1], p.message) for p in outcome.parts if p.status == "error"
    ]
    if any(kind in _NETWORK_TYPES or _NETWORK_TEXT.search(text) for kind, text in raised):
        return Diagnosis(Cause.NEEDS_NETWORK)
    program = next((m for _, text in raised if (m := _NO_PROGRAM.search(text))), None)
    if program is not None:
        return Diagnosis(Cause.NEEDS_TOOL, program.group(1))
    data = next((m for kind, text in raised if (m := _NO_DATA.search(f"{kind}: {text}"))), None)
    if data is not None:
        return Diagnosis(Cause.NEEDS_DATA, data.group(1) or data.group(2) or "")
    if exc.endswith("Warning"):
        return Diagnosis(Cause.WARNING_AS_ERROR, library=_library_of(outcome))
    failed = [p for p in outcome.parts if p.status in ("fail", "error")]
    if failed and all(p.message.startswith(OUTPUT_FORMAT) for p in failed):
        # the repr is the library's whose values print so (NumPy's scalars), not the
        # session's own: bisection then tries that library first
        numpy = any(_NUMPY_REPR.search(p.message) for p in failed)
        return Diagnosis(Cause.OUTPUT_FORMAT, library="numpy" if numpy else _library_of(outcome))
    if exc in ("AttributeError", "ImportError", "ModuleNotFoundError", "NotImplementedError"):
        found = _removed_symbol(outcome, message)
        if found:
            return found
    if exc == "TypeError":
        for pattern in (_KEYWORD, _MISSING, _MULTIPLE):
            match = pattern.search(message)
            if match:
                library = _library_of(outcome)
                symbol = f"{_qualify(library, match.group(1))}({match.group(2)}=)"
                return Diagnosis(Cause.CHANGED_SIGNATURE, symbol, library)
        match = _POSITIONAL.search(message)
        if match:
            library = _library_of(outcome)
            return Diagnosis(Cause.CHANGED_SIGNATURE, _qualify(library, match.group(1)), library)
    return Diagnosis(Cause.CHANGED_BEHAVIOUR, library=_library_of(outcome))


def _removed_symbol(outcome: Outcome, message: str) -> Diagnosis | None:
    match = _MODULE_ATTR.search(message)
    if match:
        library = _library_of(outcome, match.group(1))
        return Diagnosis(Cause.REMOVED_API, f"{match.group(1)}.{match.group(2)}", library)
    match = _IMPORT_NAME.search(message)
    if match:
        library = _library_of(outcome, match.group(2))
        return Diagnosis(Cause.REMOVED_API, f"{match.group(2)}.{match.group(1)}", library)
    match = _NO_MODULE.search(message)
    if match and (match.group(1).split(".")[0] in MODULE_TO_PACKAGE or is_stdlib(match.group(1))):
        library = _library_of(outcome, match.group(1))
        return Diagnosis(Cause.REMOVED_API, match.group(1), library)
    match = _OBJECT_ATTR.search(message)
    if match:
        # Only an attribute a library's own object lacks: "'list' object has no
        # attribute 'x'" is the solution's bug, not a removal.
        owner, attribute = match.groups()
        derived = _DERIVES.search(message)
        if derived and derived.group(1) == owner:
            owner = derived.group(2)  # the task's own class: name the class it inherits
        if owner not in _BUILTIN_TYPES:
            module = owner.rpartition(".")[0]
            library = _library_of(outcome, module)
            return Diagnosis(Cause.REMOVED_API, _qualify(library, f"{owner}.{attribute}"), library)
    match = _REMOVED.search(message)
    if match:
        library = _library_of(outcome)
        name = match.group(1)
        module = _traceback_module(outcome)
        symbol = f"{module}.{name}" if module and "." not in name else _qualify(library, name)
        return Diagnosis(Cause.REMOVED_API, symbol, library)
    return None


def _traceback_module(outcome: Outcome) -> str:
    """The public module of the innermost library frame: ``scipy/interpolate/_x.py`` → ``scipy.interpolate``."""
    paths = re.findall(r"site-packages/([\w/]+)\.py", outcome.traceback)
    if not paths:
        return ""
    parts = [p for p in paths[-1].split("/") if p != "__init__"]
    public = []
    for part in parts:
        if part.startswith("_"):
            break
        public.append(part)
    return ".".join(public)
