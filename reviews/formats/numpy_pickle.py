"""Pickles of numpy arrays (.pkl, .pickle, an object .npy), read without running them.

Small models ship as a pickle of a dict (or list) of numpy arrays, as
``pickle.dump({name: array}, f)`` writes it: g2pM 0.1.2.5 ships
``np_ckpt.pkl``.  numpy pickles an array as a call of
``numpy.core.multiarray._reconstruct`` (numpy 2: ``numpy._core.multiarray``)
with the class ``numpy.ndarray``, then BUILD with the state (version, shape,
a ``numpy.dtype``, Fortran order, the raw bytes); at protocol 5 (Python
3.14's default) as a call of ``numpy._core.numeric._frombuffer`` with the
raw bytes, the dtype, the shape and the order; at protocols 0 to 2 the
raw bytes as ``_codecs.encode(text, "latin1")``.  A dtype is a call of
``numpy.dtype`` and BUILD with its byte order; a numpy scalar kept beside
the arrays (``numpy.core.multiarray.scalar``) is left unread.  The pickle is read as
reviews.formats.pickle_screen reads one: its opcodes screened first, then
unpickled with this module's stand-ins for exactly those globals (and
``collections.OrderedDict``); any other global is refused by name, before
anything runs.  An object array (``np.save`` of a dict writes a 0-d one)
is a container: its items are looked into as a dict's values are.

Arrays are named by their keys, joined by dots where dicts nest (list
items by their index); the names together have at most 2**24 characters.
The dtypes read are those of .npy files (float16/32/64 and integers,
either byte order); a pickle is at most 1 GiB, of any protocol 0 to 5.

    numpy_pickle_arrays   the Arrays of an open pickle of numpy arrays
"""

import io
import sys

from reviews.errors import InputError
from reviews.formats.binary import (KINDS, MAX_DIMENSIONS, MAX_TENSORS, Array, read_values,
                                    value_count)
from reviews.formats.pickle_screen import Call, Refused, StandIn, StandInUnpickler, screen
from reviews.shown import excerpt, shown_shape

__all__ = ["numpy_pickle_arrays"]

# Weights are inside the pickle: a model of 250 million float32 values.
_MAX_PICKLE = 2 ** 30
_BYTE_ORDERS = "<>|="
_OBJECT = "O"
# numpy names the object dtype by the size of a pointer.
_OBJECT_NAMES = ("O", "O4", "O8")
# The arrays' names together: 65,536 arrays (MAX_TENSORS) of 100-character
# names take 6.5 million.
_MAX_NAME_CHARACTERS = 2 ** 24


class _Dtype(StandIn):
    """numpy.dtype(name, align, copy), then BUILD with its byte order."""

    __slots__ = ("kind", "order")

    def __init__(self, name, align=False, copy=True):
        name = _OBJECT if name in _OBJECT_NAMES else name
        if not isinstance(name, str) or not (name in KINDS or name == _OBJECT) or name == "bf16":
            raise Refused("dtype %s is not read (float16/32/64, integers and objects are)"
                          % excerpt(str(name)))
        self.kind, self.order = name, None

    def __setstate__(self, state):
        # (version, byte order, subarray, names, fields, item size,
        # alignment, flags[, metadata]): a plain dtype has no subarray,
        # names or fields.
        if (not isinstance(state, tuple) or len(state) not in (8, 9) or state[0] not in (3, 4)
                or state[1] not in tuple(_BYTE_ORDERS) or state[2:5] != (None, None, None)):
            raise Refused("a dtype's state is not that of a plain %s" % self.kind)
        self.order = state[1]

    def descr(self):
        return (self.order or "|") + self.kind


class _Ndarray(StandIn):
    """An array as _reconstruct makes it and BUILD fills it, or as
    _frombuffer makes it whole."""

    __slots__ = ("shape", "dtype", "fortran", "data")

    def __init__(self):
        self.shape = self.dtype = self.fortran = self.data = None

    def __setstate__(self, state):
        if isinstance(state, tuple) and len(state) == 5 and state[0] == 1:
            state = state[1:]
        if not isinstance(state, tuple) or len(state) != 4:
            raise Refused("an array's state is not (version, shape, dtype, order, data)")
        self._fill(*state)

    def _fill(self, shape, dtype, fortran, data):
        if (not isinstance(shape, tuple) or len(shape) > MAX_DIMENSIONS
                or not all(type(n) is int and n >= 0 for n in shape)):
            raise Refused("an array's shape is not a tuple of at most %d non-negative ints"
                          % MAX_DIMENSIONS)
        if not isinstance(dtype, _Dtype) or type(fortran) is not bool:
            raise Refused("an array's state has no dtype or order")
        if dtype.kind == _OBJECT:
            if not isinstance(data, list):
                raise Refused("an object array's items are not a list")
        elif not isinstance(data, (bytes, bytearray)):
            raise Refused("an array's values are not bytes")
        self.shape, self.dtype, self.fortran, self.data = shape, dtype, fortran, data


class _Class(StandIn):
    """numpy.ndarray, named only as _reconstruct's first argument."""

    __slots__ = ()


_NDARRAY = _Class()


def _reconstruct(cls, shape, typecode):
    if cls is not _NDARRAY:
        raise Refused("_reconstruct is called with other than numpy.ndarray")
    return _Ndarray()


def _frombuffer(data, dtype, shape, order):
    array = _Ndarray()
    array._fill(shape, dtype, order == "F", data)
    return array


class _Scalar(StandIn):
    """A numpy scalar (a step count, a loss kept beside the weights): not
    an array, so never read."""

    __slots__ = ()


def _scalar(dtype, data=None):
    if not isinstance(dtype, _Dtype):
        raise Refused("numpy's scalar is called with other than a dtype")
    return _Scalar()


class _Latin1:
    """_codecs.encode(text, "latin1"): protocols 0 to 2 have no bytes, so an
    array's raw bytes are pickled as their latin-1 text.  Each call copies
    its text: all of them together may make at most as many bytes as the
    pickle has (one memoized text encoded over and over would otherwise
    make gigabytes)."""

    def __init__(self, budget):
        self.budget = budget

    def __call__(self, text, encoding):
        if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
            raise Refused("_codecs.encode is called with other than text and latin1")
        self.budget -= len(text)
        if self.budget < 0:
            raise Refused("_codecs.encode makes more bytes than the pickle has")
        return text.encode("latin-1")


class _Dict(dict):
    """collections.OrderedDict, made empty and filled by SETITEMS as pickle
    writes one (from its arguments it would copy them, past the screen's
    look at keys); BUILD may set nothing on it."""

    def __init__(self):
        super().__init__()

    def __setstate__(self, state):
        if state:
            raise Refused("an ordered dict's state is set")


def _globals(size):
    """The globals a pickle of ``size`` bytes may name, each a stand-in."""
    allowed = {("numpy", "ndarray"): _NDARRAY, ("numpy", "dtype"): Call(_Dtype),
               ("collections", "OrderedDict"): Call(_Dict),
               ("_codecs", "encode"): Call(_Latin1(size))}
    for core in ("numpy.core", "numpy._core"):
        allowed[core + ".multiarray", "_reconstruct"] = Call(_reconstruct)
        allowed[core + ".numeric", "_frombuffer"] = Call(_frombuffer)
        allowed[core + ".multiarray", "scalar"] = Call(_scalar)
    return allowed


class _ArrayUnpickler(StandInUnpickler):
    """The stand-ins' unpickler: numpy pickles name no persistent ids."""

    def persistent_load(self, pid):
        raise Refused("a persistent id: numpy pickles have none")


def _refusal(where, module, name):
    return InputError("%s: refusing to run code named by the file: %s.%s"
                      % (where, excerpt(module)[1:-1], excerpt(name)[1:-1]))


def _leaves(loaded, where):
    """(name, _Ndarray) of every numeric array in ``loaded``, in order.

    Each container is looked into once (by id), the first time it is
    reached: memo references may make a few kilobytes into a container
    holding itself, or a lattice of 10**15 paths.  The walk is a loop, not a
    recursion, for lists and dicts memoized while empty nest as deep as the
    pickle is long (the screen bounds only what is hashed); a path is kept
    as links to its parent's, and joined into a name only for an array, so
    that a key recalled from the memo at every level costs its length once
    per name, not once per container below it."""
    seen, budget = set(), [_MAX_NAME_CHARACTERS]
    pending = [iter([(None, loaded)])]
    while pending:
        entry = next(pending[-1], None)
        if entry is None:
            pending.pop()
            continue
        path, value = entry
        if isinstance(value, _Ndarray):
            if value.dtype is None:
                raise InputError("%s: array %s is made but given no values"
                                 % (where, excerpt(_name(path, [_MAX_NAME_CHARACTERS], where))))
            if value.dtype.kind != _OBJECT:
                yield _name(path, budget, where), value
                continue
        if not isinstance(value, (_Ndarray, dict, list, tuple)) or id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, _Ndarray):
            if value.shape == () and len(value.data) == 1:
                # np.save of a dict: a 0-d array holding it, named by its keys alone
                pending.append(iter([(path, value.data[0])]))
                continue
            items = enumerate(value.data)
        elif isinstance(value, dict):
            items = ((key, item) for key, item in value.items()
                     if isinstance(key, str) or type(key) is int)
        else:
            items = enumerate(value)
        pending.append(_below(path, items))


def _below(path, items):
    """(path, item) of each (key, item) of a container at ``path``."""
    for key, item in items:
        yield (path, str(key)), item


def _name(path, budget, where):
    """The keys of ``path`` joined by dots (those before the first nonempty
    one left out, as a key joined to an empty name is the key alone), its
    length taken from ``budget`` (a list of one count)."""
    keys = []
    while path is not None:
        path, key = path
        keys.append(key)
        budget[0] -= len(key) + 1
        if budget[0] < 0:
            raise InputError("%s: the arrays' names run past %d characters in all, the limit"
                             " for a pickle of arrays (a key recalled from the memo is spelled"
                             " once, however many names it is joined into)"
                             % (where, _MAX_NAME_CHARACTERS))
    while keys and not keys[-1]:
        keys.pop()
    return ".".join(reversed(keys))


def _array(name, found, where):
    kind, order = found.dtype.kind, found.dtype.order
    where = "%s, array %s" % (where, excerpt(name))
    if order is None or order == "|" and KINDS[kind] > 1:
        raise InputError("%s: its dtype %s has no byte order" % (where, kind))
    count = value_count(found.shape, where)
    if len(found.data) != count * KINDS[kind]:
        raise InputError("%s: %d data bytes for shape %s, expected %d" % (
            where, len(found.data), shown_shape(found.shape), count * KINDS[kind]))
    big_endian = order == ">" or order == "=" and sys.byteorder == "big"

    def load():
        return read_values(io.BytesIO(found.data), kind, count, big_endian, where), found.fortran
    return Array(name, found.shape, found.dtype.descr(), load)


def _pickled_arrays(data, where):
    """[Array] of the numeric arrays a pickle of numpy arrays holds, named
    by their keys (``data``: the pickle's bytes; ``where`` starts every
    message)."""
    allowed = _globals(len(data))
    screen(data, where, allowed, _refusal)
    unpickler = _ArrayUnpickler(data, where, allowed, _refusal)
    loaded = unpickler.load_screened("a pickle of numpy arrays")
    left = unpickler.left()
    if left:
        raise InputError("%s: %d bytes after the pickle's end" % (where, left))
    arrays, names = [], set()
    for name, found in _leaves(loaded, where):
        if name in names:
            raise InputError("%s: two arrays are named %s" % (where, excerpt(name)))
        if len(arrays) == MAX_TENSORS:
            raise InputError("%s: more than %d arrays, past the limit of a file's tensors"
                             % (where, MAX_TENSORS))
        names.add(name)
        arrays.append(_array(name, found, where))
    if not arrays:
        raise InputError("%s: holds no numpy array of numbers" % where)
    return arrays


def numpy_pickle_arrays(handle, size, path):
    """[Array] of the open pickle ``handle`` of ``size`` bytes: a dict (or
    list) of numpy arrays."""
    if size > _MAX_PICKLE:
        raise InputError("%s: %d bytes, past the limit of %d for a pickle of arrays"
                         % (path, size, _MAX_PICKLE))
    return _pickled_arrays(handle.read(size), path)
