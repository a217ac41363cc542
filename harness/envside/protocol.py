"""What crosses the boundary between the host and the env side, declared once.

The host writes a batch file (:class:`Batch`: its options, each problem's context once,
the executions by index) and starts the env side's ``run`` with it. The env side writes
one line per finished execution (:class:`OutcomeLine`: the execution's index and its
:class:`Record`), then the done line (:class:`Done`, with this protocol's version).

Each is a frozen dataclass whose fields are the keys of its JSON: ``to_json`` builds it,
``from_json`` reads it and refuses an unknown key, a missing one or a value of the wrong
kind with one line naming it (:class:`ProtocolError`). A key's default is its field's
default, here and nowhere else. Both sides check the other's version first: the env side
the batch's, the host the done line's.

Both sides import this module: the env side as its own, the host as
``harness.envside.protocol`` (standard library only, Python 3.8 grammar, so that it runs
in every combo's interpreter and in the host's alike; it imports nothing else of the env
side).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import types
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Dict, Mapping, Type, TypeVar

PROTOCOL = 2
# The Pythons a combo may ask for: the env side's floor (3.8) to the newest it is tested on.
SUPPORTED_PYTHONS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13")
Json = Dict[str, Any]  # a decoded JSON object (typing.Dict: this runs on Python 3.8)

# The launcher the host starts, and the directory every env-side module lives in.
HERE = os.path.dirname(os.path.abspath(__file__))
LAUNCHER = os.path.join(HERE, "__main__.py")

# The first line of a program a check runs on the solution's behalf, when the solution
# is data to it (the cells of a session, a module its tests import): the program runs
# apart like the solution itself.
RUNS_SOLUTION = "# harness: runs the solution\n"

# The names formatlib gives every generated context (``from …formatlib import *``), as
# the host's templates (``harness/benchmarks/*/load.py``) call them: ``{unittest}(solution, …)``.
FORMAT_HELPERS: Mapping[str, str] = types.MappingProxyType(
    {
        "unittest": "harness_unittest",  # BigCodeBench's unittest suites
        "pytest": "harness_pytest",  # GitChameleon's pytest files
        "session": "harness_session",  # CIBench's sessions
        "run_cell": "harness_run_cell",  # a notebook cell, its output as text (ExeDS)
        "compare_output": "harness_compare_output",  # printed output against the expected
        "runs_solution": "HARNESS_RUNS_SOLUTION",  # RUNS_SOLUTION, by that name
    }
)

# How a graded part's message starts when a step's printed output changed and the values
# in it did not (CIBench: NumPy 2's ``np.float64(0.5)`` for ``0.5``): the host's causes
# tell this output-format drift from a broken API by it.
OUTPUT_FORMAT = "output format changed, values the same"

# How an execution ended (the host's ``core/results.Status`` takes its values from here).
PASS = "pass"
FAIL = "fail"  # the checks ran and found a wrong result (AssertionError)
ERROR = "error"  # an exception other than a failed check
TIMEOUT = "timeout"  # killed at the time limit
CRASH = "crash"  # the process died without reporting (signal, os._exit, memory cap)
SKIPPED = "skipped"  # not applicable here, e.g. the problem's library is not in the combo
ENV_ERROR = "env_error"  # the combo's environment could not be built, or its runner refused
STATUSES = (PASS, FAIL, ERROR, TIMEOUT, CRASH, SKIPPED, ENV_ERROR)
# What an execution's own process may report (the others the scheduler decides).
REPORTED_STATUSES = (PASS, FAIL, ERROR)
PART_STATUSES = (PASS, FAIL, ERROR, SKIPPED)

ISOLATIONS = ("zygote", "fresh")
MAX_WARNINGS = 100
MAX_MESSAGE = 2000
MAX_TRACEBACK = 3000


# An import statement at the start of a line (also inside a code string). Here, not in
# the zygote: the host names what a problem's reference imports with it (``ProblemSpec``).
_IMPORT_LINE = re.compile(
    r"^[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import[ \t]+\(?([\w, \t]+)|import[ \t]+([\w., \t]+))",
    re.MULTILINE,
)


def imports_in(code: str) -> list[str]:
    """Dotted module names a piece of code imports, including inside code strings.

    ``from a.b import c`` yields ``a.b`` and ``a.b.c``: ``c`` may be a submodule,
    which importing ``a.b`` alone would not load.
    """
    found: list[str] = []
    for match in _IMPORT_LINE.finditer(code):
        if match.group(1):
            found.append(match.group(1))
            for imported in match.group(2).split(","):
                words = imported.split()  # "c" or "c as d"
                name = words[0] if words else ""
                if name.isidentifier():
                    found.append(match.group(1) + "." + name)
        else:
            for part in match.group(3).split(","):
                words = part.split()
                if words and all(p.isidentifier() for p in words[0].split(".")):
                    found.append(words[0])
    return list(dict.fromkeys(found))


class ProtocolError(ValueError):
    """A batch or a line that does not follow this protocol; one line naming the key."""


# -- reading JSON values: each reader checks one kind and names the key it reads ------------

Read = Callable[[Any, str], Any]


def _shown(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _wrong(where: str, expected: str, value: Any) -> ProtocolError:
    return ProtocolError("%s: expected %s, got %s" % (where, expected, _shown(value)))


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise _wrong(where, "a string", value)
    return value


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _wrong(where, "true or false", value)
    return value


def _whole(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _wrong(where, "a whole number", value)
    return value


def _positive(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _wrong(where, "a positive whole number", value)
    return value


def _seconds(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise _wrong(where, "a positive number of seconds", value)
    return float(value)


def _duration(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise _wrong(where, "a number of seconds", value)
    return float(value)


def _texts(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise _wrong(where, "a list of strings", value)
    return tuple(_text(item, "%s[%d]" % (where, i)) for i, item in enumerate(value))


def _names(value: Any, where: str) -> Dict[str, str]:
    if not isinstance(value, dict):
        raise _wrong(where, "an object of strings", value)
    return {key: _text(item, "%s[%r]" % (where, key)) for key, item in value.items()}


def _digests(value: Any, where: str) -> Dict[str, str]:
    """``crossed``: label → digest; a string, as older env sides wrote it, is one digest
    of everything, under the label ``""`` ("" itself: none)."""
    if isinstance(value, str):
        return {"": value} if value else {}
    return _names(value, where)


def _object(value: Any, where: str) -> Json:
    if not isinstance(value, dict):
        raise _wrong(where, "an object", value)
    return value


def _optional(read: Read) -> Read:
    return lambda value, where: None if value is None else read(value, where)


def _one_of(choices: tuple[str, ...]) -> Read:
    def read(value: Any, where: str) -> str:
        if value not in choices:
            raise _wrong(where, "one of %s" % ", ".join(choices), value)
        return str(value)

    return read


def _one(kind: Type[_Schema]) -> Read:
    return kind.from_json


def _each(kind: Type[_Schema]) -> Read:
    def read(value: Any, where: str) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise _wrong(where, "a list", value)
        return tuple(kind.from_json(item, "%s[%d]" % (where, i)) for i, item in enumerate(value))

    return read


def _by_name(kind: Type[_Schema]) -> Read:
    def read(value: Any, where: str) -> Dict[str, Any]:
        return {
            key: kind.from_json(item, "%s[%r]" % (where, key))
            for key, item in _object(value, where).items()
        }

    return read


def _reads(read: Read) -> Dict[str, Read]:
    """A field's metadata: how its key's value is read."""
    return {"read": read}


def _key(where: str, key: str) -> str:
    """``batch`` + ``options`` → ``batch: options``; then ``batch: options.timeout``."""
    return "%s%s%s" % (where, "." if ": " in where else ": ", key)


_S = TypeVar("_S", bound="_Schema")


class _Schema:
    """A frozen dataclass declared as a JSON object: each field is a key, its metadata
    says how the key's value is read, its default is the key's default."""

    __dataclass_fields__: ClassVar[Dict[str, dataclasses.Field[Any]]]

    @classmethod
    def from_json(cls: Type[_S], data: Any, where: str) -> _S:
        declared = {f.name: f for f in dataclasses.fields(cls)}
        for key in _object(data, where):
            if key not in declared:
                raise ProtocolError("%s: unknown key %r" % (where, key))
        values = {}
        for name, declaration in declared.items():
            if name in data:
                values[name] = declaration.metadata["read"](data[name], _key(where, name))
            elif (
                declaration.default is dataclasses.MISSING
                and declaration.default_factory is dataclasses.MISSING
            ):
                raise ProtocolError("%s: missing key %r" % (where, name))
        read = cls(**values)
        read._check(where)
        return read

    def _check(self, where: str) -> None:
        """What the keys must agree on, beyond each one's kind."""

    def to_json(self) -> Json:
        """The JSON object: lists for tuples, objects for the nested declarations."""
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


def _plain(value: Any) -> Any:
    if isinstance(value, _Schema):
        return value.to_json()
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _check_version(data: Any, where: str, sender: str, reader: str) -> None:
    """The sender's protocol is this one: checked before any other key, which may differ."""
    if not isinstance(data, dict) or "protocol" not in data:
        return  # told as a missing key, with the others
    version = data["protocol"]
    if version != PROTOCOL:
        raise ProtocolError(
            "%s: protocol: the %s speaks protocol %s, this %s protocol %d (they come from"
            " different versions of the harness)"
            % (where, sender, _shown(version), reader, PROTOCOL)
        )


# -- the batch file: host → env side ------------------------------------------------------


@dataclass(frozen=True)
class Options(_Schema):
    """How a batch's executions run."""

    jobs: int = field(default=1, metadata=_reads(_positive))  # executions at once
    # and at most this many while cores sit idle (pool, cores); jobs or less: never more
    max_jobs: int = field(default=0, metadata=_reads(_whole))
    # per execution that has no time limit of its own
    timeout: float = field(default=120.0, metadata=_reads(_seconds))
    # the cap on an execution's data (RLIMIT_DATA); none when null
    memory_mb: int | None = field(default=None, metadata=_reads(_optional(_positive)))
    # bytes of a failed execution's output kept: the first half and the last
    output_limit: int = field(default=65536, metadata=_reads(_whole))
    # "zygote": forked from a process that preloaded the libraries; "fresh": a new interpreter
    isolation: str = field(default="zygote", metadata=_reads(_one_of(ISOLATIONS)))
    # top-level modules whose problems always run in a fresh interpreter
    fresh_for: tuple[str, ...] = field(default=(), metadata=_reads(_texts))
    # files and directories no execution may read (besides the batch file's directory)
    hide: tuple[str, ...] = field(default=(), metadata=_reads(_texts))
    # namespaces, read-only mounts, caps on tasks, where the machine allows
    sandbox: bool = field(default=True, metadata=_reads(_flag))
    # model answers may run where the sandbox is refused or switched off; by default
    # each is refused there (an env_error), so none runs unsandboxed unless told so
    unsandboxed_answers: bool = field(default=False, metadata=_reads(_flag))
    # untrusted solutions run in a process apart from their checks
    guard: bool = field(default=True, metadata=_reads(_flag))
    # the text of an allowlist file, added to the shipped one
    allowlist_extra: str = field(default="", metadata=_reads(_text))
    # every solution, references too, goes through the guard, which admits everything
    # and records what it used (measuring the allowlist)
    record_transport: bool = field(default=False, metadata=_reads(_flag))


@dataclass(frozen=True)
class ProblemSpec(_Schema):
    """A problem, stated once however many executions run it."""

    context: str = field(metadata=_reads(_text))  # the check program
    # modules it needs: missing ones skip it; the zygote groups by them
    requires: tuple[str, ...] = field(default=(), metadata=_reads(_texts))
    library: str = field(default="", metadata=_reads(_text))  # a zygote per library
    # why its untrusted answers are graded in their own process ("" when they cross)
    in_process: str = field(default="", metadata=_reads(_text))
    # what its reference imports (trusted: the problem's own), for the zygote to import
    # once, whether or not the reference runs in this batch (a run that graded the
    # references while measuring admission sends only the answers; without these, each
    # answer's process would import its libraries itself)
    preload: tuple[str, ...] = field(default=(), metadata=_reads(_texts))


@dataclass(frozen=True)
class ExecutionSpec(_Schema):
    """One solution of one problem; outcome lines name it by its index in the batch."""

    problem: str = field(metadata=_reads(_text))  # a key of the batch's problems
    solution: str = field(metadata=_reads(_text))
    # a reference or an idiom: run beside its check, and the zygote imports what it
    # names; a model answer (false) runs in a process apart, through the guard
    trusted: bool = field(default=False, metadata=_reads(_flag))
    # its own time limit; the batch's when null
    timeout: float | None = field(default=None, metadata=_reads(_optional(_seconds)))


@dataclass(frozen=True)
class Batch(_Schema):
    """The batch file."""

    protocol: int = field(metadata=_reads(_whole))
    problems: Dict[str, ProblemSpec] = field(metadata=_reads(_by_name(ProblemSpec)))
    executions: tuple[ExecutionSpec, ...] = field(metadata=_reads(_each(ExecutionSpec)))
    options: Options = field(default_factory=Options, metadata=_reads(_one(Options)))

    def _check(self, where: str) -> None:
        for index, execution in enumerate(self.executions):
            if execution.problem not in self.problems:
                raise ProtocolError(
                    "%s: executions[%d].problem: %r is not one of the batch's problems"
                    % (where, index, execution.problem)
                )

    def timeout_of(self, execution: ExecutionSpec) -> float:
        return execution.timeout or self.options.timeout


def read_batch(text: str) -> Batch:
    """The batch file's text, read as the env side reads it."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ProtocolError("batch: not JSON: %s" % exc) from None
    _check_version(data, "batch", "host", "env side")
    return Batch.from_json(data, "batch")


# -- the lines: env side → host -----------------------------------------------------------


@dataclass(frozen=True)
class WarningRecord(_Schema):
    """A deprecation-type warning the program raised, once per distinct warning."""

    category: str = field(
        metadata=_reads(_text)
    )  # "FutureWarning", "numpy.VisibleDeprecationWarning"
    message: str = field(metadata=_reads(_text))
    module: str = field(metadata=_reads(_text))  # the module that issued it; "<solution>"
    # the code the warning points at, as its stack level chose the frame: "<solution>"
    # (the solution's own code), "<context>" (the problem's), a module; "" not known
    origin: str = field(default="", metadata=_reads(_text))


@dataclass(frozen=True)
class PartRecord(_Schema):
    """One graded piece of an execution: a unit test, a step of a session."""

    name: str = field(metadata=_reads(_text))
    status: str = field(metadata=_reads(_one_of(PART_STATUSES)))
    message: str = field(default="", metadata=_reads(_text))
    exc_type: str = field(default="", metadata=_reads(_text))


@dataclass(frozen=True)
class Record(_Schema):
    """How one execution ended: its process's report, or what the scheduler saw."""

    status: str = field(metadata=_reads(_one_of(STATUSES)))
    exc_type: str | None = field(default=None, metadata=_reads(_optional(_text)))
    message: str = field(default="", metadata=_reads(_text))
    warnings: tuple[WarningRecord, ...] = field(default=(), metadata=_reads(_each(WarningRecord)))
    duration_s: float = field(default=0.0, metadata=_reads(_duration))  # its process's life
    program_s: float = field(default=0.0, metadata=_reads(_duration))  # the program's own
    traceback: str = field(default="", metadata=_reads(_text))  # the last frames
    output: str = field(default="", metadata=_reads(_text))  # of a failure: head and tail
    note: str = field(default="", metadata=_reads(_text))  # how it ran, where not as usual
    graded: str = field(default="", metadata=_reads(_text))  # "in-process", or ""
    parts: tuple[PartRecord, ...] = field(default=(), metadata=_reads(_each(PartRecord)))
    # of an answer graded across the boundary: the digest of the values it sent back, by
    # label (a variable's name, ``module:name`` of a value fetched, ``<figures>``,
    # ``<calls>``): 16 hex digits, or ``?`` and why there is none (the health audit tells
    # a mutant that computes the reference's own values). Read from an older env side,
    # one digest of everything: {"": digest}.
    crossed: Dict[str, str] = field(default_factory=dict, metadata=_reads(_digests))
    # measuring the allowlist: what admitting the solution's values used
    transport: Json = field(default_factory=dict, metadata=_reads(_object))


@dataclass(frozen=True)
class OutcomeLine(_Schema):
    """One finished execution: its index in the batch's executions, and how it ended."""

    seq: int = field(metadata=_reads(_whole))
    outcome: Record = field(metadata=_reads(_one(Record)))


@dataclass(frozen=True)
class Zygote(_Schema):
    """What one library group's zygote preloaded, and what it left to fresh interpreters."""

    group: tuple[str, ...] = field(metadata=_reads(_texts))  # the APART libraries it holds
    library: str = field(metadata=_reads(_text))
    preloaded: tuple[str, ...] = field(metadata=_reads(_texts))
    fresh_only: Dict[str, str] = field(metadata=_reads(_names))  # module → why
    preload_failures: Dict[str, str] = field(metadata=_reads(_names))  # module → error


@dataclass(frozen=True)
class Done(_Schema):
    """The last line: the protocol's version, and how the batch ran (the run keeps it as
    the combo's ``executor.json``) or why it was refused."""

    protocol: int = field(metadata=_reads(_whole))
    refused: str = field(default="", metadata=_reads(_text))  # why nothing ran
    isolation: str = field(default="", metadata=_reads(_text))
    sandbox: str = field(default="", metadata=_reads(_text))  # "on", or why not
    # what would let the sandbox be entered here (a command, or words); "" when it is
    sandbox_fix: str = field(default="", metadata=_reads(_text))
    task_cap: str = field(default="", metadata=_reads(_text))  # cgroup | rlimit | none
    # "confined" (its worker's pid namespace, not root, no capability on the machine, not
    # dumpable: sandbox.confine_checker), or why each execution's checker is not
    checker: str = field(default="", metadata=_reads(_text))
    guard: bool = field(default=False, metadata=_reads(_flag))
    zygotes: tuple[Zygote, ...] = field(default=(), metadata=_reads(_each(Zygote)))
    preloaded: tuple[str, ...] = field(default=(), metadata=_reads(_texts))
    fresh_only: Dict[str, str] = field(default_factory=dict, metadata=_reads(_names))
    preload_failures: Dict[str, str] = field(default_factory=dict, metadata=_reads(_names))


_DONE = "done"  # the key that tells the done line from an outcome line


def outcome_line(seq: int, record: Record) -> str:
    return json.dumps(OutcomeLine(seq, record).to_json()) + "\n"


def done_line(done: Done) -> str:
    return json.dumps(dict({_DONE: True}, **done.to_json())) + "\n"


def read_line(text: str) -> OutcomeLine | Done:
    """One line the env side wrote, read as the host reads it."""
    try:
        data = json.loads(text)
    except ValueError:
        raise ProtocolError("a line that is not JSON: %s" % _shown(text.strip())) from None
    if isinstance(data, dict) and data.get(_DONE) is True:
        _check_version(data, "done line", "env side", "host")
        return Done.from_json({k: v for k, v in data.items() if k != _DONE}, "done line")
    return OutcomeLine.from_json(data, "outcome line")


# -- what the env side says about processes -----------------------------------------------


def qualified(cls: type) -> str:
    """``KeyError``, ``numpy.exceptions.AxisError``: how outcomes name a type."""
    module = getattr(cls, "__module__", "builtins")
    return cls.__qualname__ if module == "builtins" else "%s.%s" % (module, cls.__qualname__)


def exit_code(status: int) -> int:
    """A wait status as ``subprocess`` reports it: negative for a signal."""
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def describe_exit(code: int) -> str:
    if code < 0:
        try:
            return "killed by %s" % signal.Signals(-code).name
        except ValueError:
            return "killed by signal %d" % -code
    return "exit status %d" % code
