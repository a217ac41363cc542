"""How the checker admits the values a solution sends back: a pickle machine of our own
that admits only what it knows — default-deny, never a list of forbidden names:

- a global is looked up only if its exact ``module:qualname`` is in the allowlist
  (``allowlist``, measured on honest values by ``harness guard allowlist``);
- the pickle may call (REDUCE, NEWOBJ, NEWOBJ_EX) only a global listed with ``call``, a
  class or a reconstructor: never an object it built, a bound method, a ``partial``;
- state (BUILD) goes only to instances of classes listed with ``build``, through the
  class's own ``__setstate__`` or, without one, into the instance's ``__dict__`` and
  slots; no instance attribute may hide a method of its class with a callable;
- opcodes outside protocol 4's, extensions and persistent ids are refused; size, nesting
  and the number of objects are capped;
- while a value is admitted, an audit hook refuses every event the allowlist does not
  name (so code evaluation, imports, files, processes, sockets and ctypes): unpickling
  may construct data and nothing else.

A refusal raises ``RefusedError``, naming what was refused, and the execution's outcome says
so (``GuardRefused``). ``record=True`` admits everything and notes what was used instead:
that is how the allowlist is measured. (The solution's side, what it sends: ``transport``.)
"""

from __future__ import annotations

import copyreg
import functools
import gc
import importlib
import io
import pickle
import struct
import sys
import types
import warnings
from _thread import get_ident
from typing import TYPE_CHECKING, Any, Callable, Dict, FrozenSet, List, Optional, Set, Tuple

from ..allowlist import NEVER, Allowlist, Key

if TYPE_CHECKING:
    from ..protocol import Json

MAX_BYTES = 512 * 1024 * 1024  # one value's pickle
MAX_OBJECTS = 5_000_000  # containers and instances one pickle may build
MAX_DEPTH = 2_000  # nested containers under construction


class RefusedError(Exception):
    """A value the checker will not admit; ``what`` names the global, opcode or event."""

    def __init__(self, what: str, why: str) -> None:
        super().__init__("%s %s" % (what, why))
        self.what = what
        self.why = why


class UnreadableError(Exception):
    """A value that is admissible but could not be rebuilt here (malformed, truncated, or
    its library failed)."""


# -- what the allowlist's names are in this process -----------------------------------------

_FOUND: Dict[Key, Any] = {}  # each name looked up once: a zygote's children inherit them


def resolve(key: Key) -> Any:
    """The object ``module:qualname`` names. The module is imported if it must be (it is
    listed, so it is library code); no step of the qualname may be a module."""
    if key in _FOUND:
        return _FOUND[key]
    module, qualname = key
    found: Any = sys.modules.get(module)
    if found is None:
        found = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
        if isinstance(found, types.ModuleType):
            raise RefusedError("%s:%s" % key, "is a module")
    _FOUND[key] = found
    return found


def may_build(allowlist: Allowlist, cls: type) -> bool:
    """Whether instances of ``cls`` may receive state: listed with ``build``, and the
    listed name is this very class (not another one of the same name)."""
    known = allowlist.buildable.get(cls)
    if known is None:
        key = _key_of(cls)
        try:
            known = "build" in allowlist.entries.get(key, ()) and _named_by(allowlist, key, cls)
        except Exception:
            known = False
        allowlist.buildable[cls] = known
    return known


def _named_by(allowlist: Allowlist, key: Key, cls: type) -> bool:
    """Whether ``key`` names ``cls``. A class no attribute holds, made by a factory of its
    library (NumPy 1.20-1.24's ``numpy:dtype[int64]``, Matplotlib 3.5's ``AxesSubplot``),
    is named by its key when each of its direct bases is the class its own name resolves
    to, and one of them is listed. A pickle cannot make such a class: it only calls listed
    globals, none of which builds classes of its naming."""
    try:
        return resolve(key) is cls
    except AttributeError:
        pass
    if not cls.__flags__ & _HEAP_TYPE and _key_of(cls) == key:
        # a type of the interpreter's own that no name holds (``list_iterator``, made by
        # a listed ``iter``): a pickle can make no such type, only find it
        return True
    bases = [b for b in cls.__bases__ if b is not object]
    for base in bases:
        try:
            if resolve(_key_of(base)) is not base:
                return False
        except Exception:
            return False
    return any(_key_of(base) in allowlist.entries for base in bases)


def warm(allowlist: Allowlist) -> None:
    """Before a zygote forks: look up the listed globals of the modules it has imported,
    and what admitting their instances asks of each class, so that every execution
    inherits the answers instead of finding them again. Only what is already there is
    looked up: no module is imported, no module ``__getattr__`` runs."""
    for key in allowlist.entries:
        module = sys.modules.get(key[0])
        head = key[1].split(".", 1)[0]
        if module is None or head not in vars(module):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                found = resolve(key)
            except Exception:
                continue
        if isinstance(found, type):
            may_build(allowlist, found)
            _method_names(found, _METHODS)


# -- the audit hook of the checker --------------------------------------------------------

# The admission under way in this process, if any. The hook is installed once and costs
# one comparison per event while nothing is being admitted.
_ACTIVE: List[Any] = [None]


def _hook(event: str, args: Tuple[Any, ...]) -> None:
    admission = _ACTIVE[0]
    # Events of other threads (a runtime's pools) are not the value's doing.
    if admission is not None and get_ident() == admission.thread and event not in _OWN:
        admission.event(event, args)


# Events the machine raises itself, reading any value at all.
_OWN = frozenset({"builtins.id"})


def _install_hook() -> None:
    if not _INSTALLED:
        sys.addaudithook(_hook)
        _INSTALLED.append(True)


_INSTALLED: List[bool] = []


# -- the pickle machine --------------------------------------------------------------------

_INT4 = struct.Struct("<i").unpack_from
_UINT2 = struct.Struct("<H").unpack_from
_UINT4 = struct.Struct("<I").unpack_from
_UINT8 = struct.Struct("<Q").unpack_from
_FLOAT8 = struct.Struct(">d").unpack_from
_NAMES = {
    getattr(pickle, name)[0]: name
    for name in dir(pickle)
    if name.isupper()
    and isinstance(getattr(pickle, name), bytes)
    and len(getattr(pickle, name)) == 1
}


class Usage:
    """What admitting honest values used: the raw material of the allowlist."""

    def __init__(self) -> None:
        self.entries: Dict[Key, Set[str]] = {}
        self.events: Set[str] = set()
        self.shadows: Dict[Key, Set[str]] = {}
        self.refusable: Set[str] = set()  # what a default-deny reading could not admit

    def use(self, key: Key, permission: str) -> None:
        self.entries.setdefault(key, {"ref"}).add(permission)

    def to_json(self) -> Json:
        return {
            "globals": sorted(
                "%s:%s %s" % (k[0], k[1], " ".join(sorted(v))) for k, v in self.entries.items()
            ),
            "events": sorted(self.events),
            "shadows": sorted(
                "%s:%s %s" % (k[0], k[1], ",".join(sorted(v))) for k, v in self.shadows.items()
            ),
            "refusable": sorted(self.refusable),
        }


def _key_of(cls: type) -> Key:
    return (getattr(cls, "__module__", "") or "", getattr(cls, "__qualname__", "") or "")


def _method_names(cls: type, cache: Dict[type, FrozenSet[str]]) -> FrozenSet[str]:
    """Names under which ``cls`` (or a base) defines something an instance attribute
    could hide: functions, methods, class- and static methods (not data descriptors,
    which win over instance attributes anyway)."""
    names = cache.get(cls)
    if names is None:
        found = set()
        for klass in getattr(cls, "__mro__", (cls,)):
            for name, value in vars(klass).items():
                if hasattr(value, "__set__"):
                    continue
                if callable(value) or isinstance(value, (classmethod, staticmethod)):
                    found.add(name)
        names = cache[cls] = frozenset(found)
    return names


_METHODS: Dict[type, FrozenSet[str]] = {}


class _Watch:
    """The audit hook's side of one admission (``_hook`` calls ``event``): while its value
    is read, every event the allowlist does not name is refused, and the first refusal is
    kept even where library code swallows the exception."""

    def __init__(self, allowlist: Allowlist, usage: Optional[Usage]) -> None:
        self.allow = allowlist
        self.usage = usage  # recording: admit everything, note what was used
        self.violation: Optional[RefusedError] = None
        self.thread = get_ident()
        self.trusted_code = False  # a compile of library code was just admitted

    def event(self, event: str, args: Tuple[Any, ...]) -> None:
        if event == "compile" and args and _library_code(args[0]):
            self.trusted_code = True  # the exec of it follows at once
            return
        if event == "exec" and self.trusted_code:
            self.trusted_code = False
            return
        if self.usage is not None:
            if event.startswith(NEVER):  # needed by an honest value, never to be listed
                self.usage.refusable.add("event " + event)
            else:
                self.usage.events.add(event)
            return
        if event in self.allow.events:
            return
        what = "event " + event
        if event == "import" and args and isinstance(args[0], str):
            what += " (of %s)" % args[0][:100]  # which module a reconstructor reached for
        refusal = RefusedError(what, "was raised while a returned value was read")
        if self.violation is None:
            self.violation = refusal  # kept even if library code swallows the exception
        raise refusal


class _Globals:
    """What one pickle may reach and make: a global only where it is listed, a call (or a
    new instance) only of a listed global, a method only where its name is listed."""

    def __init__(self, allowlist: Allowlist, usage: Optional[Usage]) -> None:
        self.allow = allowlist
        self.usage = usage  # recording: admit everything, note what was used
        self.keys: Dict[int, Key] = {}  # id of each global found → its name
        self.callable_ids: Set[int] = set()
        self.keep: List[Any] = []  # keeps found objects alive while their ids are in use
        self.built: List[Any] = []

    # -- globals -----------------------------------------------------------------------
    def find(self, module: Any, qualname: Any) -> Any:
        if type(module) is not str or type(qualname) is not str:
            raise RefusedError("STACK_GLOBAL", "needs two strings")
        key = (module, qualname)
        if self.usage is None:
            perms = self.allow.entries.get(key)
            if perms is None:
                raise RefusedError("%s:%s" % key, "is not in the allowlist")
        else:
            perms = {"ref", "call", "build"}
            self.usage.use(key, "ref")
        substitute = _SUBSTITUTES.get(key)
        if substitute is not None:
            found: Any = substitute
        else:
            # Importing a listed module runs library code, not the pickle's: the hook
            # stands aside for it.
            active, _ACTIVE[0] = _ACTIVE[0], None
            try:
                found = resolve(key)
            except RefusedError:
                raise
            except Exception as exc:
                raise RefusedError(
                    "%s:%s" % key, "cannot be found here (%s)" % type(exc).__name__
                ) from None
            finally:
                _ACTIVE[0] = active
        ident = id(found)
        self.keys[ident] = key
        self.keep.append(found)
        if "call" in perms:
            self.callable_ids.add(ident)
        return found

    def call(self, func: Any, args: Any, opcode: str) -> Any:
        """REDUCE: only a global this pickle found, listed with ``call``."""
        if type(args) is not tuple:
            raise RefusedError(opcode, "needs a tuple of arguments")
        ident = id(func)
        key = self.keys.get(ident)
        if key is None and type(func) is functools.partial and id(func.func) in self.callable_ids:
            # pandas 1.x pickles its blocks as partial(new_block, ndim=2)(values, ...): a
            # call of a listed reconstructor, with arguments the pickle gave it
            key = self.keys[id(func.func)]
            ident = id(func.func)
        if key is None:
            what = "an object of type %s.%s" % _key_of(type(func))
            if self.usage is not None:
                self.usage.refusable.add("call of " + what)
            else:
                raise RefusedError(opcode, "may only call a listed global, not " + what)
        elif self.usage is not None:
            self.usage.use(key, "call")
        elif ident not in self.callable_ids:
            raise RefusedError("%s:%s" % key, "may not be called by a returned value")
        if func is getattr:
            return self.attribute(*args)
        if func is _RECONSTRUCTOR:  # how classes derived from a built-in pickle
            return self.reconstruct(*args)
        result = func(*args)
        self.built.append(result)
        return result

    def attribute(self, owner: Any = None, name: Any = None, *rest: Any) -> Any:
        """``getattr(X, "name")``, as pickles write classmethod reconstructors and bound
        methods (a legend's ``_remove_method``). Of a global: the same as finding
        ``X.name`` itself. Of an object this pickle built: only where its class's
        ``module:qualname.name`` is listed, and only a method (the result, a bound method,
        is a value: the pickle cannot call it)."""
        if rest or type(name) is not str or name.startswith("__"):
            raise RefusedError("builtins:getattr", "takes an object and a listed name")
        key = self.keys.get(id(owner))
        if key is not None:
            return self.find(key[0], key[1] + "." + name)
        cls = type(owner)
        key = _key_of(cls)
        path = (key[0], key[1] + "." + name)
        if self.usage is not None:
            self.usage.use(path, "ref")
        elif path not in self.allow.entries:
            raise RefusedError("%s:%s" % path, "is not in the allowlist")
        static = _class_attribute(cls, name)
        if not callable(static) or hasattr(static, "__set__"):
            raise RefusedError("%s:%s" % path, "is not a method")
        return getattr(owner, name)

    def reconstruct(self, cls: Any = None, base: Any = None, state: Any = None, *rest: Any) -> Any:
        """``copyreg._reconstructor(cls, base, state)``, as classes derived from a built-in
        pickle (scipy's ``dok_matrix``, a dict): only an empty instance of a class listed
        with ``build``, on a built-in base it really derives from, filled by that base."""
        if (
            rest
            or not isinstance(cls, type)
            or base not in _BUILTIN_BASES
            or base not in cls.__mro__
        ):
            raise RefusedError(
                "copyreg:_reconstructor", "only rebuilds a class on its built-in base"
            )
        if self.usage is not None:
            self.usage.use(_key_of(cls), "build")
        elif not may_build(self.allow, cls):
            raise RefusedError("%s:%s" % _key_of(cls), "may not be rebuilt by a returned value")
        obj = _RECONSTRUCTOR(cls, base, state)
        self.built.append(obj)
        return obj

    def new(self, cls: Any, args: Any, kwargs: Any, opcode: str) -> Any:
        """NEWOBJ and NEWOBJ_EX: ``cls.__new__(cls, ...)`` for a listed class."""
        if not isinstance(cls, type) or type(args) is not tuple or type(kwargs) is not dict:
            raise RefusedError(opcode, "needs a class, a tuple and a dict")
        ident = id(cls)
        key = self.keys.get(ident)
        if self.usage is not None:
            if key is None:
                self.usage.refusable.add("%s of %s.%s" % (opcode, *_key_of(cls)))
            else:
                self.usage.use(key, "call")
        elif key is None or ident not in self.callable_ids:
            raise RefusedError(opcode, "may only create a listed class, not %s.%s" % _key_of(cls))
        obj: Any = cls.__new__(cls, *args, **kwargs)
        self.built.append(obj)
        return obj


class _State:
    """What may fill what one pickle built: state and items only for instances of classes
    listed with ``build``, and no method hidden by a callable attribute afterwards."""

    def __init__(self, allowlist: Allowlist, usage: Optional[Usage], built: List[Any]) -> None:
        self.allow = allowlist
        self.usage = usage  # recording: admit everything, note what was used
        self.built = built  # what the pickle's calls built (``_Globals.built``)

    def build(self, inst: Any, state: Any) -> None:
        """BUILD: state for an instance of a class listed with ``build``."""
        cls = type(inst)
        if self.usage is not None:
            self.usage.use(_key_of(cls), "build")
        elif not may_build(self.allow, cls):
            raise RefusedError(
                "%s:%s" % _key_of(cls), "may not receive state from a returned value"
            )
        setstate = getattr(cls, "__setstate__", None)
        if setstate is not None:
            setstate(inst, state)
        else:
            slotstate = None
            if type(state) is tuple and len(state) == 2:
                state, slotstate = state
            if state:
                if type(state) is not dict:
                    raise RefusedError("BUILD", "state must be a dict")
                object.__getattribute__(inst, "__dict__").update(state)
            if slotstate:
                if type(slotstate) is not dict:
                    raise RefusedError("BUILD", "slot state must be a dict")
                for name, value in slotstate.items():
                    if type(name) is not str or not _is_slot(cls, name):
                        raise RefusedError(
                            "BUILD", "%r is not a slot of %s.%s" % (name, *_key_of(cls))
                        )
                    setattr(inst, name, value)

    def check_shadows(self) -> None:
        """No built object may carry a callable instance attribute that hides a method of
        its class (``df.equals = bool`` would make any comparison pass)."""
        for obj in self.built:
            try:
                namespace = object.__getattribute__(obj, "__dict__")
            except (AttributeError, TypeError):
                continue
            if type(namespace) is not dict or not namespace:
                continue
            cls = type(obj)
            hidden = _method_names(cls, _METHODS).intersection(namespace)
            for name in hidden:
                if not callable(namespace[name]):
                    continue
                key = _key_of(cls)
                if self.usage is not None:
                    self.usage.shadows.setdefault(key, set()).add(name)
                elif name not in self.allow.shadows.get(key, ()):
                    raise RefusedError(
                        "%s:%s.%s" % ((*key, name)),
                        "is hidden by a callable attribute of the returned object",
                    )

    # Containers other than the built-in ones take their items through their class's own
    # methods, looked up on the class (an instance attribute cannot stand in for them).
    def appends(self, target: Any, items: List[Any]) -> None:
        cls = self._container(target, "APPENDS")
        extend = getattr(cls, "extend", None)
        if extend is not None:
            extend(target, items)
        else:
            for item in items:
                cls.append(target, item)

    def setitems(self, target: Any, items: List[Any]) -> None:
        cls = self._container(target, "SETITEMS")
        for i in range(0, len(items), 2):
            cls.__setitem__(target, items[i], items[i + 1])

    def additems(self, target: Any, items: List[Any]) -> None:
        cls = self._container(target, "ADDITEMS")
        for item in items:
            cls.add(target, item)

    def _container(self, target: Any, opcode: str) -> Any:
        cls = type(target)
        key = _key_of(cls)
        if self.usage is not None:
            self.usage.use(key, "build")
        elif "build" not in self.allow.entries.get(key, ()):
            raise RefusedError(
                "%s:%s" % key, "may not receive items from a returned value (%s)" % opcode
            )
        return cls


class Admission:
    """Reads one pickle under an allowlist (or, recording, under none): the pickle
    machine, which asks its rules (``_Globals``, ``_State``) before it finds, calls or
    fills anything, while its watch (``_Watch``) stands in the audit hook."""

    def __init__(
        self,
        data: bytes,
        allowlist: Allowlist,
        usage: Optional[Usage] = None,
        persistent: Optional[Callable[[str, int], Any]] = None,
    ) -> None:
        self.data = data
        # what a persistent id ``(kind, number)`` stands for: an object the checker lent
        # the solution, or a stand-in for one the solution keeps (crossing_*.py); without
        # it, persistent ids are refused like any opcode a value does not need
        self.persistent = persistent
        self.watch = _Watch(allowlist, usage)
        self.rules = _Globals(allowlist, usage)
        self.state = _State(allowlist, usage, self.rules.built)

    def load(self) -> Any:
        if len(self.data) > MAX_BYTES:
            raise RefusedError("the value", "is larger than %d bytes" % MAX_BYTES)
        _install_hook()
        previous, _ACTIVE[0] = _ACTIVE[0], self.watch
        # A value is thousands of new objects (a figure, tens of thousands): collecting
        # cycles while they are made would walk them again and again, for nothing.
        collecting = gc.isenabled()
        gc.disable()
        try:
            # Warnings a library raises while rebuilding a value are not the solution's
            # (an unprotected run never unpickles), and showing one reads source files.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = self._run()
                self.state.check_shadows()
        except RefusedError as exc:
            raise (self.watch.violation or exc) from None
        except RecursionError:
            raise RefusedError("the value", "nests too deeply") from None
        except MemoryError:
            raise
        except Exception as exc:
            if self.watch.violation is not None:
                raise self.watch.violation from None
            if isinstance(exc, (IndexError, struct.error, UnicodeDecodeError)):
                raise UnreadableError("the value is truncated or malformed") from None
            raise UnreadableError("%s: %s" % (type(exc).__name__, str(exc)[:300])) from None
        finally:
            _ACTIVE[0] = previous
            if collecting:
                gc.enable()
        if self.watch.violation is not None:
            raise self.watch.violation
        return value

    def _run(self) -> Any:
        data = self.data
        rules = self.rules
        fill = self.state
        pos = 0
        stack: List[Any] = []
        push = stack.append
        metastack: List[List[Any]] = []
        memo: List[Any] = []
        memoize = memo.append
        objects = 0
        limit = MAX_OBJECTS
        # Branches in the order of their frequency in real values (figures, frames).
        while True:
            op = data[pos]
            pos += 1
            if op == 0x68:  # BINGET
                push(memo[data[pos]])
                pos += 1
            elif op == 0x6A:  # LONG_BINGET
                push(memo[_UINT4(data, pos)[0]])
                pos += 4
            elif op == 0x94:  # MEMOIZE
                memoize(stack[-1])
            elif op == 0x4E:  # NONE
                push(None)
            elif op == 0x4B:  # BININT1
                push(data[pos])
                pos += 1
            elif op == 0x28:  # MARK
                if len(metastack) >= MAX_DEPTH:
                    raise RecursionError
                metastack.append(stack)
                stack = []
                push = stack.append
            elif op == 0x8C:  # SHORT_BINUNICODE
                size = data[pos]
                pos += 1
                push(str(data[pos : pos + size], "utf-8", "surrogatepass"))
                pos += size
            elif op == 0x47:  # BINFLOAT
                push(_FLOAT8(data, pos)[0])
                pos += 8
            elif op == 0x7D:  # EMPTY_DICT
                push({})
                objects += 1
                if objects > limit:
                    raise _too_many()
            elif op == 0x89:  # NEWFALSE
                push(False)
            elif op == 0x62:  # BUILD
                state = stack.pop()
                fill.build(stack[-1], state)
            elif op == 0x88:  # NEWTRUE
                push(True)
            elif op == 0x75:  # SETITEMS
                items = stack
                stack = metastack.pop()
                push = stack.append
                target = stack[-1]
                if type(target) is dict:
                    for i in range(0, len(items), 2):
                        target[items[i]] = items[i + 1]
                else:
                    fill.setitems(target, items)
            elif op == 0x29:  # EMPTY_TUPLE
                push(())
            elif op == 0x81:  # NEWOBJ
                args = stack.pop()
                cls = stack.pop()
                push(rules.new(cls, args, {}, "NEWOBJ"))
                objects += 1
                if objects > limit:
                    raise _too_many()
            elif op == 0x5D:  # EMPTY_LIST
                push([])
                objects += 1
                if objects > limit:
                    raise _too_many()
            elif op == 0x85:  # TUPLE1
                stack[-1] = (stack[-1],)
            elif op == 0x86:  # TUPLE2
                stack[-2:] = [(stack[-2], stack[-1])]
            elif op == 0x52:  # REDUCE
                args = stack.pop()
                stack[-1] = rules.call(stack[-1], args, "REDUCE")
                objects += 1
                if objects > limit:
                    raise _too_many()
            elif op == 0x74:  # TUPLE
                items = stack
                stack = metastack.pop()
                push = stack.append
                push(tuple(items))
            elif op == 0x87:  # TUPLE3
                stack[-3:] = [(stack[-3], stack[-2], stack[-1])]
            elif op == 0x65:  # APPENDS
                items = stack
                stack = metastack.pop()
                push = stack.append
                target = stack[-1]
                if type(target) is list:
                    target.extend(items)
                else:
                    fill.appends(target, items)
            elif op == 0x8A:  # LONG1
                size = data[pos]
                pos += 1
                push(int.from_bytes(data[pos : pos + size], "little", signed=True))
                pos += size
            elif op == 0x73:  # SETITEM
                value = stack.pop()
                name = stack.pop()
                target = stack[-1]
                if type(target) is dict:
                    target[name] = value
                else:
                    fill.setitems(target, [name, value])
            elif op == 0x43:  # SHORT_BINBYTES
                size = data[pos]
                pos += 1
                push(data[pos : pos + size])
                pos += size
            elif op == 0x61:  # APPEND
                value = stack.pop()
                target = stack[-1]
                if type(target) is list:
                    target.append(value)
                else:
                    fill.appends(target, [value])
            elif op == 0x58:  # BINUNICODE
                size = _UINT4(data, pos)[0]
                pos += 4
                push(str(data[pos : pos + size], "utf-8", "surrogatepass"))
                pos += size
            elif op == 0x8F:  # EMPTY_SET
                push(set())
                objects += 1
                if objects > limit:
                    raise _too_many()
            elif op == 0x93:  # STACK_GLOBAL
                qualname = stack.pop()
                module = stack.pop()
                push(rules.find(module, qualname))
            elif op == 0x4D:  # BININT2
                push(_UINT2(data, pos)[0])
                pos += 2
            elif op == 0x4A:  # BININT
                push(_INT4(data, pos)[0])
                pos += 4
            elif op == 0x42:  # BINBYTES
                size = _UINT4(data, pos)[0]
                pos += 4
                push(data[pos : pos + size])
                pos += size
            elif op == 0x90:  # ADDITEMS
                items = stack
                stack = metastack.pop()
                push = stack.append
                target = stack[-1]
                if type(target) is set:
                    target.update(items)
                else:
                    fill.additems(target, items)
            elif op == 0x91:  # FROZENSET
                items = stack
                stack = metastack.pop()
                push = stack.append
                push(frozenset(items))
            elif op == 0x92:  # NEWOBJ_EX
                kwargs = stack.pop()
                args = stack.pop()
                cls = stack.pop()
                push(rules.new(cls, args, kwargs, "NEWOBJ_EX"))
                objects += 1
                if objects > limit:
                    raise _too_many()
            elif op == 0x8B:  # LONG4
                size = _INT4(data, pos)[0]
                pos += 4
                if size < 0 or size > 1 << 20:
                    raise RefusedError("LONG4", "has an implausible size")
                push(int.from_bytes(data[pos : pos + size], "little", signed=True))
                pos += size
            elif op == 0x8E:  # BINBYTES8
                size = _UINT8(data, pos)[0]
                pos += 8
                push(data[pos : pos + size])
                pos += size
            elif op == 0x8D:  # BINUNICODE8
                size = _UINT8(data, pos)[0]
                pos += 8
                push(str(data[pos : pos + size], "utf-8", "surrogatepass"))
                pos += size
            elif op == 0x30:  # POP
                if stack:
                    stack.pop()
                else:
                    stack = metastack.pop()
                    push = stack.append
            elif op == 0x31:  # POP_MARK
                stack = metastack.pop()
                push = stack.append
            elif op == 0x32:  # DUP
                push(stack[-1])
            elif op == 0x51 and self.persistent is not None:  # BINPERSID
                pid = stack.pop()
                if (
                    type(pid) is not tuple
                    or len(pid) != 2
                    or type(pid[0]) is not str
                    or type(pid[1]) is not int
                ):
                    raise RefusedError("BINPERSID", "needs a (kind, number) pair")
                push(self.persistent(pid[0], pid[1]))
            elif op == 0x95:  # FRAME: all of the data is here already
                pos += 8
            elif op == 0x80:  # PROTO
                if data[pos] > 4:
                    raise RefusedError(
                        "protocol %d" % data[pos], "is not the one values are sent in"
                    )
                pos += 1
            elif op == 0x2E:  # STOP
                if metastack or len(stack) != 1 or pos != len(data):
                    raise RefusedError("STOP", "leaves the machine in an unfinished state")
                return stack[0]
            else:
                name = _NAMES.get(op, "0x%02x" % op)
                raise RefusedError("opcode %s" % name, "is not admitted in a returned value")


_RECONSTRUCTOR: Any = getattr(copyreg, "_reconstructor")  # noqa: B009 - private, untyped
_BUILTIN_BASES = (object, dict, list, set, frozenset, tuple, int, float, complex, str, bytes)
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time (static types are C's)


def _too_many() -> RefusedError:
    return RefusedError("the value", "builds more than %d objects" % MAX_OBJECTS)


def _class_attribute(cls: type, name: str) -> Any:
    """What ``cls`` itself (or a base) defines as ``name``, no descriptor run."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return None


def _is_slot(cls: type, name: str) -> bool:
    for klass in cls.__mro__:
        slot = vars(klass).get(name)
        if slot is not None:
            return type(slot).__name__ == "member_descriptor"
    return False


# -- code a library evaluates while rebuilding its own objects ------------------------------
#
# scipy.stats distributions carry the source of their argument parsers and ``exec`` it
# when unpickled. That source is pickled state, so a solution could send any code in its
# place: it is admitted only when it is, byte for byte, a parser scipy.stats itself uses.


def _library_code(source: Any) -> bool:
    if isinstance(source, str):
        source = source.encode("utf-8")
    return isinstance(source, bytes) and source in _scipy_parsers()


def _scipy_parsers() -> FrozenSet[bytes]:
    if _PARSERS:
        return _PARSERS[0]
    stats = sys.modules.get("scipy.stats")
    if stats is None:
        return frozenset()  # not loaded: no scipy distribution is being rebuilt
    found = set()
    for value in list(vars(stats).values()):
        template = getattr(value, "_parse_arg_template", None) if hasattr(value, "freeze") else None
        if isinstance(template, str):
            found.add(template.encode("utf-8"))
    _PARSERS.append(frozenset(found))
    return _PARSERS[0]


_PARSERS: List[FrozenSet[bytes]] = []


# -- tensors ----------------------------------------------------------------------------------


def _torch_load_weights_only(data: bytes) -> Any:
    """``torch.storage._load_from_bytes`` restricted to tensors: torch's own default
    (before 2.6) would unpickle anything. Before torch 1.13, which has no
    ``weights_only``, through a pickle module that knows only storages and tensors."""
    torch = sys.modules["torch"]  # loaded: a tensor's global led here
    active, _ACTIVE[0] = _ACTIVE[0], None  # a restricted unpickler of torch's runs now
    try:
        try:
            return torch.load(io.BytesIO(data), weights_only=True)
        except TypeError as exc:
            if "weights_only" not in str(exc):
                raise
        return torch.load(io.BytesIO(data), pickle_module=_TensorPickle)
    finally:
        _ACTIVE[0] = active


class _TensorUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (
            (module == "torch" and name.endswith("Storage"))
            or (module == "torch._utils" and name.startswith("_rebuild_"))
            or (module, name) in (("collections", "OrderedDict"), ("torch", "Size"))
        ):
            return super().find_class(module, name)
        raise RefusedError("%s:%s" % (module, name), "is not part of a tensor")


class _TensorPickle:
    """What ``torch.load(pickle_module=...)`` needs of a pickle module."""

    Unpickler = _TensorUnpickler
    __name__ = "harness_tensor_pickle"

    @staticmethod
    def load(file: Any, **kwargs: Any) -> Any:
        return _TensorUnpickler(file, **kwargs).load()


_SUBSTITUTES: Dict[Key, Callable[..., Any]] = {
    ("torch.storage", "_load_from_bytes"): _torch_load_weights_only,
    ("torch", "_load_from_bytes"): _torch_load_weights_only,
}


def admit(
    data: bytes,
    allowlist: Allowlist,
    usage: Optional[Usage] = None,
    persistent: Optional[Callable[[str, int], Any]] = None,
    packages: Optional[Set[str]] = None,
) -> Any:
    """The value ``data`` pickles, built only from what ``allowlist`` admits (and, where
    ``persistent`` is given, the handles it names: ``crossing_*.py``). ``packages``, if
    given, receives the top-level package of every global the pickle named (what the
    value is made of: ``matplotlib`` for a figure, wherever in it)."""
    admission = Admission(data, allowlist, usage, persistent)
    value = admission.load()
    if packages is not None:
        packages.update(module.split(".")[0] for module, _ in admission.rules.keys.values())
    return value
