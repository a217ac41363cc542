"""The digest of a value the solution sent back: what tells two answers' values apart for
``harness audit`` (its likely equivalent mutants), computed in the checker after the value
was admitted. Equal digests say the values are equal; it is a note, never a verdict.

The value is hashed by its structure where that is cheap and sure, so that values equal
as a check compares them hash alike however they were built:

- ``None``, booleans, integers, strings, bytes by their value; floats and complex numbers
  with ``-0.0`` as ``0.0`` (the checks compare numbers by value: ``==``, ``np.allclose``,
  pandas' asserts; a mutant that only flips a zero's sign is the audit's equivalent) and
  every NaN as one NaN (its sign and payload are the hardware's, not the answer's);
- lists and tuples item by item; dicts in insertion order (``list(d)``, ``json.dumps(d)``
  and ``DataFrame(d).columns`` see it); sets and frozensets in no order (neither their
  insertion history nor the hash seed's order counts);
- NumPy arrays and scalars as (dtype, shape, their bytes in C order), floats normalised as
  above, so C or Fortran order and strides do not count; the dtype as a check reads it:
  its byte order, and a structured dtype's (``np.void``'s) field names, formats and
  offsets; an array of objects element by element;
- pandas Series, DataFrames and Indexes by their values, dtypes, index and columns, not
  their blocks (a RangeIndex and the Index of the same integers alike); a MultiIndex by
  its names, levels and codes (a level it no longer uses counts);
- SciPy's sparse matrices by their format, shape, ``nnz`` and stored entries as sorted
  (row, column, value) triples, duplicates kept apart (never summed), so what was merely
  read of them (``has_sorted_indices``) does not count;
- anything else by its pickle (the one sent, for a value itself; nested in one of the
  above, pickled again here): a library class or function by its name.

Each kind is tagged with its type's name, so values of different types never hash
alike. An object the value refers to more than once (``[arr] * 1000``, which its pickle
holds once) is hashed once: its digest is kept by ``id`` for the walk (an array view by
the memory it shows) and each reference counts one visit. The walk looks only at admitted
values (data of allowlisted library classes), is capped in depth, in visits and in the
array bytes it hashes (past a cap, the value's pickle as sent), and any error falls back
to that pickle too.
"""

from __future__ import annotations

import hashlib
import math
import pickle
import struct
import sys
from typing import Any, Callable, Dict, Optional, Set, Tuple

from .transport import ARTIST_TOPS

FIGURES = "<figures>"  # the label of figures that crossed
CALLS = "<calls>"  # of what the check's calls returned
MAX_LABELS = 200  # labels digested; past them, one label says the rest were not
_MORE = "<more>"
MAX_DEPTH = 40  # containers within containers
MAX_ELEMENTS = 200_000  # objects visited one by one (an object array's elements; every reference)
MAX_BYTES = 1 << 30  # bytes of array data hashed (twice the largest pickle admitted)

_pickle_dumps = pickle.dumps
_NAN = struct.pack("<d", float("nan"))


class _TooLargeError(Exception):
    """Past the caps: the value is hashed by its pickle as sent."""


def value_digest(value: Any, blob: bytes) -> bytes:
    """The digest of one admitted ``value`` whose pickle, as the solution sent it, is
    ``blob``: its structure where :func:`_walk` knows it, else ``blob``. Never raises."""
    try:
        hasher = hashlib.sha256()
        _walk(value, hasher.update, _Walk(), 0, blob)
        return hasher.digest()
    except Exception:
        hasher = hashlib.sha256()
        hasher.update(b"pickle\0")
        hasher.update(blob)  # a separate update: the blob (up to 512 MiB) is not copied
        return hasher.digest()


class Crossed:
    """The data a solution's process sent back, by what it was sent as (a variable's
    name, ``module:name`` of a value the check fetched, ``FIGURES``): each label's values
    in order, each by its structure (:func:`value_digest`). Two answers whose digests of
    the labels the check reads agree gave it the same values (the audit's likely
    equivalents). Where something crossed that the digest cannot count (a figure, whose
    pickle differs from run to run however it was drawn; what a call returned), the label
    says why instead. Nothing here raises: the digest is a note, never a verdict."""

    def __init__(self) -> None:
        self.counted: Dict[str, Any] = {}  # label → its running sha256
        self.undigested: Dict[str, str] = {}  # label → why it has no digest

    def value(self, label: str, value: Any, blob: bytes, packages: Set[str]) -> None:
        """Count ``value`` (``blob``: its pickle as sent) under ``label``; one made of
        Matplotlib or seaborn objects (``packages``: what admitting it named) is not."""
        try:
            drawn = sorted(packages.intersection(ARTIST_TOPS))
            if drawn:
                self.uncounted(label, "it holds %s objects" % drawn[0])
            else:
                self.count(label, value_digest(value, blob))
        except Exception as exc:  # not expected: value_digest never raises
            self.uncounted(label, "its digest failed (%s)" % type(exc).__name__)

    def _label(self, label: str) -> Optional[str]:
        if (
            label in self.counted
            or label in self.undigested
            or len(self.counted) + len(self.undigested) < MAX_LABELS
        ):
            return label
        self.undigested.setdefault(_MORE, "more than %d names crossed" % MAX_LABELS)
        return None

    def count(self, label: str, digest: bytes) -> None:
        """``digest`` counted under ``label``, after what crossed under it before."""
        found = self._label(label)
        if found is not None and found not in self.undigested:
            self.counted.setdefault(found, hashlib.sha256()).update(digest)

    def uncounted(self, label: str, why: str) -> None:
        """Something crossed under ``label`` that the digest cannot count: ``why``."""
        found = self._label(label)
        if found is not None:
            self.counted.pop(found, None)
            self.undigested.setdefault(found, why)

    def digests(self) -> Dict[str, str]:
        """Each label's digest (16 hex digits), or ``?`` and why it has none."""
        found = {label: h.hexdigest()[:16] for label, h in self.counted.items()}
        found.update((label, "?" + why) for label, why in self.undigested.items())
        return found


class _Walk:
    """One value's walk: what it visited, the array bytes it hashed, and the digest of
    each object it walked (by ``id``, the object kept so that its id is not reused)."""

    __slots__ = ("count", "hashed", "memo")

    def __init__(self) -> None:
        self.count = 0  # objects visited (each reference to a shared one counts)
        self.hashed = 0  # bytes of array data hashed
        self.memo: Dict[Any, Tuple[Any, bytes]] = {}  # key → (what it was, its digest)


def _float(value: float) -> bytes:
    if math.isnan(value):
        return _NAN
    return struct.pack("<d", value + 0.0)  # -0.0 + 0.0 is 0.0


def _int(value: int) -> bytes:
    return value.to_bytes((value.bit_length() + 8) // 8, "big", signed=True)


def _tag(out: Callable[[bytes], Any], name: str, size: int = 0) -> None:
    out(b"\x01" + name.encode() + b"\0" + size.to_bytes(8, "big"))


_SCALARS = (bool, int, float, complex, str, bytes)


def _walk(value: Any, out: Callable[[bytes], Any], walk: _Walk, depth: int, blob: Any) -> None:
    """Feed ``value``'s structure to ``out``. ``blob``: its pickle as sent (the top
    value), or None (nested: pickled again where it must be). An object that is not a
    scalar is fed as its own digest, computed once however often the value refers to it
    (as its pickle holds it once)."""
    walk.count += 1
    if depth > MAX_DEPTH or walk.count > MAX_ELEMENTS:
        raise _TooLargeError
    kind = type(value)
    if value is None or kind in _SCALARS:
        _scalar(value, kind, out)
        return
    found = walk.memo.get(id(value))
    if found is None:
        hasher = hashlib.sha256()
        _structure(value, hasher.update, walk, depth, blob)
        found = (value, hasher.digest())
        walk.memo[id(value)] = found
    out(b"\x02" + found[1])


def _scalar(value: Any, kind: type, out: Callable[[bytes], Any]) -> None:
    if value is None or kind is bool:
        _tag(out, repr(value))
    elif kind is int:
        data = _int(value)
        _tag(out, "int", len(data))
        out(data)
    elif kind is float:
        _tag(out, "float")
        out(_float(value))
    elif kind is complex:
        _tag(out, "complex")
        out(_float(value.real) + _float(value.imag))
    elif kind is str:
        data = value.encode("utf-8", "surrogatepass")
        _tag(out, "str", len(data))
        out(data)
    else:
        _tag(out, "bytes", len(value))
        out(value)


def _sub(value: Any, walk: _Walk, depth: int) -> bytes:
    """The digest of ``value`` on its own (an element of a set)."""
    hasher = hashlib.sha256()
    _walk(value, hasher.update, walk, depth, None)
    return hasher.digest()


def _structure(value: Any, out: Callable[[bytes], Any], walk: _Walk, depth: int, blob: Any) -> None:
    kind = type(value)
    if kind in (list, tuple):
        _tag(out, kind.__name__, len(value))
        for item in value:
            _walk(item, out, walk, depth + 1, None)
    elif kind is dict:  # in insertion order: list(d), json.dumps(d) and a frame's columns see it
        _tag(out, "dict", len(value))
        for key, item in value.items():
            _walk(key, out, walk, depth + 1, None)
            _walk(item, out, walk, depth + 1, None)
    elif kind in (set, frozenset):
        items = sorted(_sub(item, walk, depth + 1) for item in value)
        _tag(out, kind.__name__, len(items))
        for item in items:
            out(item)
    elif not _library(value, out, walk, depth):
        _tag(out, "pickle")
        data = blob if blob is not None else _pickle_dumps(value, protocol=4)
        out(len(data).to_bytes(8, "big"))
        out(data)


def _library(value: Any, out: Callable[[bytes], Any], walk: _Walk, depth: int) -> bool:
    """Feed a NumPy, pandas or SciPy value's structure to ``out``; False if it is none of
    those this walk knows (then it is hashed by its pickle)."""
    kind = type(value)
    module = getattr(kind, "__module__", "") or ""
    top = module.split(".")[0]
    if top == "numpy":
        numpy = sys.modules.get("numpy")
        if numpy is None:
            return False
        if kind is numpy.ndarray:
            _array(numpy, value, out, walk, depth, "ndarray")
            return True
        if isinstance(value, numpy.generic) and not isinstance(value, numpy.object_):
            _array(numpy, numpy.asarray(value), out, walk, depth, "scalar:" + kind.__name__)
            return True
        return False
    if top == "pandas":
        return _pandas(value, out, walk, depth)
    if top == "scipy" and module.startswith("scipy.sparse"):
        return _sparse(value, out, walk, depth)
    return False


def _dtype(dtype: Any) -> str:
    """A dtype as a check may read it: its ``str`` (kind, byte order, size) and, for a
    structured or subarray dtype (whose ``str`` is ``|V<size>`` whatever its fields), the
    fields' names, formats and offsets."""
    if dtype.fields is None and dtype.subdtype is None:
        return str(dtype.str)
    return "%s%r%r" % (dtype.str, dtype.descr, dtype)


def _array(
    numpy: Any, array: Any, out: Callable[[bytes], Any], walk: _Walk, depth: int, tag: str
) -> None:
    dtype = array.dtype
    shape = ",".join(str(n) for n in array.shape)
    if dtype.kind == "O":
        _tag(out, "%s:object:%s" % (tag, shape), array.size)
        for item in array.flat:
            _walk(item, out, walk, depth + 1, None)
        return
    label = "%s:%s:%s" % (tag, _dtype(dtype), shape)
    if dtype.hasobject:  # a structured dtype with an object field: its records' items
        _tag(out, label, array.size)
        _walk(array.tolist(), out, walk, depth + 1, None)
        return
    # a view (a pandas column, a block's values) is keyed by the memory it shows, kept
    # alive here so that no other array takes that memory during the walk
    key = None
    if array.base is not None:
        pointer = array.__array_interface__["data"][0]
        key = ("array", pointer, array.shape, array.strides, label)
        found = walk.memo.get(key)
        if found is not None:
            out(b"\x02" + found[1])
            return
    walk.hashed += array.nbytes
    if walk.hashed > MAX_BYTES:
        raise _TooLargeError
    if dtype.kind in "fc" and dtype.fields is None:
        array = array + 0  # a copy in native byte order, -0.0 made 0.0
        if dtype.kind == "f":
            array[numpy.isnan(array)] = numpy.nan
        else:
            nan = numpy.isnan(array.real) | numpy.isnan(array.imag)
            array[nan] = complex(float("nan"), 0.0)
    data = array.tobytes()  # C order, whatever the array's own
    hasher = hashlib.sha256()
    _tag(hasher.update, label, len(data))
    hasher.update(data)
    digest = hasher.digest()
    if key is not None:
        walk.memo[key] = (array, digest)
    out(b"\x02" + digest)


def _pandas(value: Any, out: Callable[[bytes], Any], walk: _Walk, depth: int) -> bool:
    pandas = sys.modules.get("pandas")
    if pandas is None:
        return False
    kind = type(value)
    if kind is pandas.DataFrame:
        _tag(out, "DataFrame", value.shape[1])
        _walk(value.columns, out, walk, depth + 1, None)
        _walk(value.index, out, walk, depth + 1, None)
        for position in range(value.shape[1]):
            _values(pandas, value.iloc[:, position], out, walk, depth)
        return True
    if kind is pandas.Series:
        _tag(out, "Series")
        _walk(value.name, out, walk, depth + 1, None)
        _walk(value.index, out, walk, depth + 1, None)
        _values(pandas, value, out, walk, depth)
        return True
    if isinstance(value, pandas.Index):
        _index(pandas, value, out, walk, depth)
        return True
    if kind is pandas.Categorical:
        _categorical(pandas, value, out, walk, depth)
        return True
    return False


def _index(pandas: Any, index: Any, out: Callable[[bytes], Any], walk: _Walk, depth: int) -> None:
    """An index by its values and names: a RangeIndex as the integers it holds; a
    MultiIndex by its levels and codes (levels it no longer uses count)."""
    if isinstance(index, pandas.MultiIndex):
        numpy = sys.modules["numpy"]
        _tag(out, "MultiIndex", index.nlevels)
        _walk(list(index.names), out, walk, depth + 1, None)
        for level, codes in zip(index.levels, index.codes):
            _index(pandas, level, out, walk, depth)
            _array(numpy, numpy.asarray(codes), out, walk, depth, "codes")
        return
    freq = getattr(index, "freq", None)  # a DatetimeIndex's, which pandas' asserts compare
    _tag(out, "Index:%s" % ("" if freq is None else getattr(freq, "freqstr", str(freq))))
    _walk(index.name, out, walk, depth + 1, None)
    _values(pandas, index, out, walk, depth)


def _values(pandas: Any, values: Any, out: Callable[[bytes], Any], walk: _Walk, depth: int) -> None:
    """A Series' or an Index's values, with their dtype (not how they are stored)."""
    numpy = sys.modules["numpy"]  # pandas loaded it
    dtype = values.dtype
    _tag(out, "dtype:" + str(dtype))
    if isinstance(dtype, numpy.dtype):
        _array(numpy, numpy.asarray(values), out, walk, depth, "values")
    elif isinstance(dtype, pandas.CategoricalDtype):
        _categorical(pandas, values.array, out, walk, depth)
    else:  # an extension array (nullable integers, dates with a time zone): its pickle
        data = _pickle_dumps(values.array, protocol=4)
        _tag(out, "extension", len(data))
        out(data)


def _categorical(
    pandas: Any, values: Any, out: Callable[[bytes], Any], walk: _Walk, depth: int
) -> None:
    numpy = sys.modules["numpy"]
    _tag(out, "Categorical:%s" % bool(values.ordered))
    _index(pandas, values.categories, out, walk, depth)
    _array(numpy, numpy.asarray(values.codes), out, walk, depth, "codes")


def _sparse(value: Any, out: Callable[[bytes], Any], walk: _Walk, depth: int) -> bool:
    """A SciPy sparse matrix or array by its format, shape, ``nnz`` and its stored
    entries as (row, column, value) sorted, duplicates kept apart (a COO matrix's, a CSR
    matrix's before ``sum_duplicates``: a check reading ``nnz`` or ``data`` sees them),
    so that how its indices happen to be ordered (``has_sorted_indices``) does not
    count; explicit zeros count, as its ``nnz`` does."""
    if not hasattr(value, "tocoo") or not hasattr(value, "shape"):
        return False
    numpy = sys.modules["numpy"]
    entries = value.tocoo(copy=True)  # a copy: the check's value stays as it came
    coords = getattr(entries, "coords", None)
    if coords is None:
        coords = (entries.row, entries.col)
    coords = tuple(numpy.asarray(c, dtype=numpy.int64) for c in coords)
    data = numpy.asarray(entries.data)
    order = numpy.lexsort((data, *coords[::-1]))  # by row, then column, then value
    shape = ",".join(str(n) for n in value.shape)
    _tag(out, "sparse:%s:%s" % (type(value).__name__, shape), int(value.nnz))
    for part in coords:
        _array(numpy, part[order], out, walk, depth, "part")
    _array(numpy, data[order], out, walk, depth, "data")
    return True
