"""The digest of a value the solution sent back: what tells two answers' values apart for
``harness audit`` (its likely equivalent mutants), computed in the checker after the value
was admitted. Equal digests say the values are equal; it is a note, never a verdict.

The value is hashed by its structure where that is cheap and sure, so that values equal
as a check compares them hash alike however they were built:

- ``None``, booleans, integers, strings, bytes by their value; floats and complex numbers
  with ``-0.0`` as ``0.0`` and every NaN as one NaN;
- lists and tuples item by item; dicts and sets (frozensets) as equality sees them, in no
  order (neither insertion order nor the hash seed's set order counts);
- NumPy arrays as (dtype, shape, their bytes in C order), floats normalised as above, so
  C or Fortran order and strides do not count; an array of objects element by element;
- pandas Series, DataFrames and Indexes by their values, dtypes, index and columns, not
  their blocks (a RangeIndex and the Index of the same integers alike);
- SciPy's sparse matrices by their format, shape and entries (indices sorted), so what
  was merely read of them (``has_sorted_indices``) does not count;
- anything else by its pickle (the one sent, for a value itself; nested in one of the
  above, pickled again here): a library class or function by its name.

Each kind is tagged with its type's name, so values of different types never hash
alike. The walk looks only at admitted values (data of allowlisted library classes), is
capped in depth and in elements (past the cap, the value's pickle as sent), and any
error falls back to that pickle too.
"""

from __future__ import annotations

import hashlib
import math
import pickle
import struct
import sys
from typing import Any, Callable, Dict, List, Optional, Set

from .transport import ARTIST_TOPS

FIGURES = "<figures>"  # the label of figures that crossed
CALLS = "<calls>"  # of what the check's calls returned
MAX_LABELS = 200  # labels digested; past them, one label says the rest were not
_MORE = "<more>"
MAX_DEPTH = 40  # containers within containers
MAX_ELEMENTS = 200_000  # Python objects visited one by one (an object array's elements)

_pickle_dumps = pickle.dumps
_NAN = struct.pack("<d", float("nan"))


class _TooLargeError(Exception):
    """Past the caps: the value is hashed by its pickle as sent."""


def value_digest(value: Any, blob: bytes) -> bytes:
    """The digest of one admitted ``value`` whose pickle, as the solution sent it, is
    ``blob``: its structure where :func:`_walk` knows it, else ``blob``. Never raises."""
    try:
        hasher = hashlib.sha256()
        _walk(value, hasher.update, [0], 0, blob)
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


def _float(value: float) -> bytes:
    if math.isnan(value):
        return _NAN
    return struct.pack("<d", value + 0.0)  # -0.0 + 0.0 is 0.0


def _int(value: int) -> bytes:
    return value.to_bytes((value.bit_length() + 8) // 8, "big", signed=True)


def _tag(out: Callable[[bytes], Any], name: str, size: int = 0) -> None:
    out(b"\x01" + name.encode() + b"\0" + size.to_bytes(8, "big"))


def _sub(value: Any, count: List[int], depth: int) -> bytes:
    """The digest of ``value`` on its own (an element of a dict or a set)."""
    hasher = hashlib.sha256()
    _walk(value, hasher.update, count, depth, None)
    return hasher.digest()


def _walk(value: Any, out: Callable[[bytes], Any], count: List[int], depth: int, blob: Any) -> None:
    """Feed ``value``'s structure to ``out``. ``blob``: its pickle as sent (the top
    value), or None (nested: pickled again where it must be)."""
    count[0] += 1
    if depth > MAX_DEPTH or count[0] > MAX_ELEMENTS:
        raise _TooLargeError
    kind = type(value)
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
    elif kind is bytes:
        _tag(out, "bytes", len(value))
        out(value)
    elif kind in (list, tuple):
        _tag(out, kind.__name__, len(value))
        for item in value:
            _walk(item, out, count, depth + 1, None)
    elif kind is dict:
        pairs = sorted(
            _sub(k, count, depth + 1) + _sub(v, count, depth + 1) for k, v in value.items()
        )
        _tag(out, "dict", len(pairs))
        for pair in pairs:
            out(pair)
    elif kind in (set, frozenset):
        items = sorted(_sub(item, count, depth + 1) for item in value)
        _tag(out, kind.__name__, len(items))
        for item in items:
            out(item)
    elif not _library(value, out, count, depth):
        _tag(out, "pickle")
        data = blob if blob is not None else _pickle_dumps(value, protocol=4)
        out(len(data).to_bytes(8, "big"))
        out(data)


def _library(value: Any, out: Callable[[bytes], Any], count: List[int], depth: int) -> bool:
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
            _array(numpy, value, out, count, depth, "ndarray")
            return True
        if isinstance(value, numpy.generic) and not isinstance(value, numpy.object_):
            _array(numpy, numpy.asarray(value), out, count, depth, "scalar:" + kind.__name__)
            return True
        return False
    if top == "pandas":
        return _pandas(value, out, count, depth)
    if top == "scipy" and module.startswith("scipy.sparse"):
        return _sparse(value, out)
    return False


def _array(
    numpy: Any, array: Any, out: Callable[[bytes], Any], count: List[int], depth: int, tag: str
) -> None:
    dtype = array.dtype
    shape = ",".join(str(n) for n in array.shape)
    if dtype.kind == "O":
        _tag(out, "%s:object:%s" % (tag, shape), array.size)
        for item in array.flat:
            _walk(item, out, count, depth + 1, None)
        return
    if dtype.byteorder == ">":
        array = array.astype(dtype.newbyteorder("<"))
        dtype = array.dtype
    if dtype.kind in "fc" and dtype.fields is None:
        array = array + 0  # a copy, -0.0 made 0.0
        if dtype.kind == "f":
            array[numpy.isnan(array)] = numpy.nan
        else:
            nan = numpy.isnan(array.real) | numpy.isnan(array.imag)
            array[nan] = complex(float("nan"), 0.0)
    data = array.tobytes()  # C order, whatever the array's own
    _tag(out, "%s:%s:%s" % (tag, dtype.str, shape), len(data))
    out(data)


def _pandas(value: Any, out: Callable[[bytes], Any], count: List[int], depth: int) -> bool:
    pandas = sys.modules.get("pandas")
    if pandas is None:
        return False
    kind = type(value)
    if kind is pandas.DataFrame:
        _tag(out, "DataFrame", value.shape[1])
        _index(pandas, value.columns, out, count, depth)
        _index(pandas, value.index, out, count, depth)
        for position in range(value.shape[1]):
            _values(pandas, value.iloc[:, position], out, count, depth)
        return True
    if kind is pandas.Series:
        _tag(out, "Series")
        _walk(value.name, out, count, depth + 1, None)
        _index(pandas, value.index, out, count, depth)
        _values(pandas, value, out, count, depth)
        return True
    if isinstance(value, pandas.Index):
        _index(pandas, value, out, count, depth)
        return True
    if kind is pandas.Categorical:
        _categorical(pandas, value, out, count, depth)
        return True
    return False


def _index(
    pandas: Any, index: Any, out: Callable[[bytes], Any], count: List[int], depth: int
) -> None:
    """An index by its values and names: a RangeIndex as the integers it holds."""
    if isinstance(index, pandas.MultiIndex):
        _tag(out, "MultiIndex", index.nlevels)
        _walk(list(index.names), out, count, depth + 1, None)
        for level in range(index.nlevels):
            _values(pandas, index.get_level_values(level), out, count, depth)
        return
    freq = getattr(index, "freq", None)  # a DatetimeIndex's, which pandas' asserts compare
    _tag(out, "Index:%s" % ("" if freq is None else getattr(freq, "freqstr", str(freq))))
    _walk(index.name, out, count, depth + 1, None)
    _values(pandas, index, out, count, depth)


def _values(
    pandas: Any, values: Any, out: Callable[[bytes], Any], count: List[int], depth: int
) -> None:
    """A Series' or an Index's values, with their dtype (not how they are stored)."""
    numpy = sys.modules["numpy"]  # pandas loaded it
    dtype = values.dtype
    _tag(out, "dtype:" + str(dtype))
    if isinstance(dtype, numpy.dtype):
        _array(numpy, numpy.asarray(values), out, count, depth, "values")
    elif isinstance(dtype, pandas.CategoricalDtype):
        _categorical(pandas, values.array, out, count, depth)
    else:  # an extension array (nullable integers, dates with a time zone): its pickle
        data = _pickle_dumps(values.array, protocol=4)
        _tag(out, "extension", len(data))
        out(data)


def _categorical(
    pandas: Any, values: Any, out: Callable[[bytes], Any], count: List[int], depth: int
) -> None:
    numpy = sys.modules["numpy"]
    _tag(out, "Categorical:%s" % bool(values.ordered))
    _index(pandas, values.categories, out, count, depth)
    _array(numpy, numpy.asarray(values.codes), out, count, depth, "codes")


def _sparse(value: Any, out: Callable[[bytes], Any]) -> bool:
    """A SciPy sparse matrix or array by its entries: a copy in CSR form, its indices
    sorted (its own format named, as a check may ask for it; explicit zeros count, as
    its ``nnz`` does)."""
    if not hasattr(value, "tocsr") or not hasattr(value, "shape"):
        return False
    numpy = sys.modules["numpy"]
    canonical = value.tocsr(copy=True)
    canonical.sort_indices()  # on the copy: the check's value stays as it came
    _tag(out, "sparse:%s:%s" % (type(value).__name__, ",".join(str(n) for n in value.shape)))
    for part in (canonical.indptr, canonical.indices):
        _array(numpy, numpy.asarray(part, dtype=numpy.int64), out, [0], 0, "part")
    _array(numpy, canonical.data, out, [0], 0, "data")
    return True
