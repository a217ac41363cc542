"""The guard's allowlist: what a value a solution sends back may name, and what its pickle
may do with each name. Read here and only here, from lines like

    numpy.core.multiarray:_reconstruct   call            # numpy 1.21.6, 1.26.4
    numpy:ndarray                        call build
    matplotlib.axes._axes:Axes           build shadow=_remove_method
    requests.exceptions:HTTPError        raise
    event sys._getframe

The checker reads it in each combo's interpreter (``admission``); the host imports this
module as it is to measure the file and write it for review (``harness/execute/``), so it
uses the standard library only, parses as Python 3.8 and imports nothing else of the env
side. A line it cannot read is a ``ValueError`` of one line: ``FILE:LINE: what is wrong``.
"""

from __future__ import annotations

import os
from typing import Dict, FrozenSet, Iterable, Iterator, List, NamedTuple, Optional, Set, Tuple

ALLOWLIST_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "allowlist.txt")
PERMISSIONS = ("ref", "call", "build", "shadow", "raise")
# Events no allowlist may open, whatever was measured: the machine would no longer be
# reading data. (The decision itself is default-deny: these only guard the list.)
NEVER = (
    "exec",
    "compile",
    "import",
    "open",
    "os.",
    "subprocess.",
    "socket.",
    "ctypes.",
    "sys.addaudithook",
    "sys.settrace",
    "sys.setprofile",
    "code.__new__",
    "function.__new__",
    "marshal.",
    "pickle.",
    "_posixsubprocess.",
    "winreg.",
)

# The modules of test frameworks and of the debugger, whose exceptions are instructions (a
# skip, a stop, an exit, the debugger's quit), never failures: no line may let an answer's
# exception come back as one of their classes, or as a class deriving from one (``raise``).
# As with NEVER, the decision is the list's; this only guards it.
NEVER_RAISED = ("unittest", "_pytest", "pytest", "pluggy", "doctest", "nose", "bdb", "pdb")

Key = Tuple[str, str]  # (module, qualname)


def framework_module(module: str) -> bool:
    """Whether ``module`` is one of NEVER_RAISED's, or inside one."""
    return any(module == name or module.startswith(name + ".") for name in NEVER_RAISED)


class Line(NamedTuple):
    """One line of an allowlist file that says something: a global or an event."""

    number: int
    name: str  # "module:qualname", or the event's name
    event: bool
    permissions: FrozenSet[str]  # of a global: those of PERMISSIONS its line names
    shadows: FrozenSet[str]  # the method names its ``shadow=`` lists
    comment: str  # after '#': the releases the line was seen in

    @property
    def key(self) -> Key:
        module, _, qualname = self.name.partition(":")
        return module, qualname


def read_lines(text: str, source: str) -> Iterator[Line]:
    """The lines of an allowlist file that say something, in order; comments, blank
    lines and ``[section]`` headers are skipped. ``source`` names the file in errors."""
    for number, raw in enumerate(text.splitlines(), start=1):
        body, _, comment = raw.partition("#")
        body = body.strip()
        if not body or body.startswith("["):
            continue
        where = "%s:%d" % (source, number)
        words = body.split()
        if words[0] == "event":
            if len(words) != 2:
                raise ValueError("%s: 'event' takes one event name" % where)
            if words[1].startswith(NEVER):
                raise ValueError("%s: the event %s can never be allowed" % (where, words[1]))
            yield Line(number, words[1], True, frozenset(), frozenset(), comment.strip())
            continue
        module, _, qualname = words[0].partition(":")
        if not module or not qualname:
            raise ValueError("%s: expected module:qualname, got %r" % (where, words[0]))
        permissions: Set[str] = set()
        shadows: Set[str] = set()
        for word in words[1:]:
            name, _, value = word.partition("=")
            if name not in PERMISSIONS or (name == "shadow") != bool(value):
                raise ValueError("%s: unknown permission %r" % (where, word))
            if name == "shadow":
                shadows.update(value.split(","))
            permissions.add(name)
        if "raise" in permissions and framework_module(module):
            raise ValueError(
                "%s: %s is a test framework's or the debugger's: its exceptions are "
                "instructions, never raised back as themselves" % (where, words[0])
            )
        yield Line(
            number, words[0], False, frozenset(permissions), frozenset(shadows), comment.strip()
        )


class Allowlist:
    """The globals a returned value may name, what the pickle may do with each, the audit
    events admission may raise, and the exception classes an answer's exception may come
    back as (``raised``: lines with ``raise``; ``crossing_errors``)."""

    def __init__(
        self,
        entries: Optional[Dict[Key, Set[str]]] = None,
        events: Iterable[str] = (),
        shadows: Optional[Dict[Key, Set[str]]] = None,
        raised: Iterable[Key] = (),
    ) -> None:
        self.entries: Dict[Key, Set[str]] = dict(entries or {})
        self.events = frozenset(events)
        self.shadows: Dict[Key, Set[str]] = dict(shadows or {})
        self.raised: FrozenSet[Key] = frozenset(raised)
        # Which classes may receive state under this list, as admission decided it in
        # this process (``admission.may_build``): decided once, and a zygote's children
        # inherit the decisions.
        self.buildable: Dict[type, bool] = {}

    @classmethod
    def parse(cls, text: str, source: str = "allowlist") -> Allowlist:
        entries: Dict[Key, Set[str]] = {}
        shadows: Dict[Key, Set[str]] = {}
        events: List[str] = []
        raised: List[Key] = []
        for line in read_lines(text, source):
            if line.event:
                events.append(line.name)
                continue
            if "raise" in line.permissions:
                raised.append(line.key)
            # every line may be named as a value (an exception class too: a module may
            # hold one, ``error404 = werkzeug.exceptions.NotFound``)
            entries.setdefault(line.key, {"ref"}).update(line.permissions - {"raise"})
            if line.shadows:
                shadows.setdefault(line.key, set()).update(line.shadows)
        return cls(entries, events, shadows, raised)

    @classmethod
    def shipped(cls) -> Allowlist:
        with open(ALLOWLIST_PATH, encoding="utf-8") as fh:
            return cls.parse(fh.read(), ALLOWLIST_PATH)

    def merged(self, other: Allowlist) -> Allowlist:
        entries = {k: set(v) for k, v in self.entries.items()}
        for key, perms in other.entries.items():
            entries.setdefault(key, set()).update(perms)
        shadows = {k: set(v) for k, v in self.shadows.items()}
        for key, names in other.shadows.items():
            shadows.setdefault(key, set()).update(names)
        return Allowlist(entries, self.events | other.events, shadows, self.raised | other.raised)


_ALLOWLISTS: Dict[str, Allowlist] = {}  # by the text of the extra allowlist


def shipped_allowlist(extra: str = "") -> Allowlist:
    """The allowlist shipped with the harness plus ``extra`` (the text of a user's own
    allowlist file), parsed once per process: a zygote's children inherit it."""
    found = _ALLOWLISTS.get(extra)
    if found is None:
        shipped = _ALLOWLISTS.get("") or _ALLOWLISTS.setdefault("", Allowlist.shipped())
        found = shipped.merged(Allowlist.parse(extra, "extra allowlist")) if extra else shipped
        _ALLOWLISTS[extra] = found
    return found
