"""Numbers stored in binary, read from a file into one buffer.

Kinds are numpy's type names without the byte order ('f4', 'i8', ...), and
'bf16' (bfloat16: the top 16 bits of a float32).  Every kind is read at its
exact value: floats as the floats they store (float16 and bfloat16 widen to
float32 exactly), integers as ints.

    Array         a named array in a file: name, shape, dtype, load()
    Arrays        the Arrays of a file that names its own output layer
    Head          the output layer a file names: weights, bias, why
    KINDS         the kinds read, with their sizes in bytes
    MAX_DIMENSIONS  32: the most axes an array may have
    MAX_TENSORS   2**16: the most tensors (arrays) a file may have
    value_count   how many values an array of a shape has, within the limit
    read_values   a flat memoryview of ``count`` numbers of a kind
    Widened       16-bit floats as read, widened to float32 a slice at a time
"""

import array
import struct
import sys
from collections import namedtuple

from reviews.argmax.kernels.bfloat16 import widened
from reviews.errors import InputError
from reviews.formats.source import MAX_VALUES
from reviews.shown import shown_shape

__all__ = ["Array", "Arrays", "Head", "KINDS", "MAX_DIMENSIONS", "MAX_TENSORS", "value_count",
           "read_values", "Widened"]

# A model's file has some thousands of tensors (a whole 671B-parameter
# model some 91,000, in 163 files); each costs some 10 us and 1 KB to
# read from the header, which the 64 MiB limit alone would let hold a
# million.
MAX_TENSORS = 2 ** 16

Array = namedtuple("Array", "name shape dtype load")
Array.__doc__ = """An array of a file: ``load()`` reads its values only when called and
returns (flat memoryview, fortran), fortran True when the values are in
column-major order."""

Head = namedtuple("Head", "weights bias why")
Head.__doc__ = """The output layer a model file names: the names of its weights and its
bias (None: the layer adds none), and why they are the output layer (a
sentence for a note)."""


class Arrays(list):
    """The Arrays of a file that says which of them is its output layer, as
    a model graph or a GGUF file does.

    ``head`` is a Head or None; ``tokens`` the classes' {id: token}, or
    None; ``files`` the other files read to know them (a spaCy component's
    ``moves``); ``refusal`` the InputError that kept the file's head from
    being read (raised only if no other array is named), or None.

    >>> shipped = Arrays([], Head("output.weight", None, "GGUF's output layer"))
    >>> shipped, shipped.head.weights, shipped.tokens
    ([], 'output.weight', None)
    """

    def __init__(self, arrays, head=None, tokens=None, files=(), refusal=None):
        super().__init__(arrays)
        self.head, self.tokens, self.files = head, tokens, list(files)
        self.refusal = refusal


# The array module's codes: C's char, short, int and long long are 1, 2, 4
# and 8 bytes on every platform CPython runs on.
_CODES = {"f8": "d", "f4": "f", "i1": "b", "i2": "h", "i4": "i", "i8": "q",
          "u1": "B", "u2": "H", "u4": "I", "u8": "Q"}
KINDS = dict({kind: array.array(code).itemsize for kind, code in _CODES.items()},
             f2=2, bf16=2)
MAX_DIMENSIONS = 32
_CHUNK = 8192   # bytes of float16 unpacked at a time


def value_count(shape, where):
    """The number of values of an array of ``shape`` (non-negative ints),
    at most MAX_VALUES, with at most MAX_DIMENSIONS axes.

    The product stops as soon as it passes the limit, so that many huge
    sizes cost no more than a few.

    >>> value_count((3, 4), "x"), value_count((0, 10 ** 100), "x")
    (12, 0)
    """
    if len(shape) > MAX_DIMENSIONS:
        raise InputError("%s: shape %s is past the limit of %d dimensions"
                         % (where, shown_shape(shape), MAX_DIMENSIONS))
    if 0 in shape:
        return 0
    count = 1
    for n in shape:
        count *= n
        if count > MAX_VALUES:
            raise InputError("%s: shape %s is past the limit of %d values"
                             % (where, shown_shape(shape), MAX_VALUES))
    return count


def read_values(handle, kind, count, big_endian, where):
    """A flat sequence of ``count`` (from value_count) numbers of ``kind``
    read from ``handle``: a memoryview, or for float16 and bfloat16 values
    a Widened.

    Integer and float32/64 values are read straight into the buffer they are
    returned in; float16 and bfloat16 are kept as read and widened to
    float32 a slice at a time, as rows are taken: widening the whole of
    Llama-3's bfloat16 head at once held 4 bytes a value beside the
    stored 2, and the rows another 4.
    """
    size = count * KINDS[kind]
    if kind in _CODES:
        values = array.array(_CODES[kind], [0]) * count
        if count and handle.readinto(memoryview(values).cast("B")) != size:
            raise InputError("%s: the data ends before %d bytes" % (where, size))
        if big_endian != (sys.byteorder == "big"):
            values.byteswap()
        return memoryview(values)
    data = handle.read(size)
    if len(data) != size:
        raise InputError("%s: the data ends before %d bytes" % (where, size))
    return Widened(data, kind, big_endian)


class Widened:
    """16-bit floats (``kind`` "f2" or "bf16") as read, whose slices are
    float32 memoryviews: each value widened exactly when its slice is taken.

    >>> halves = Widened(b"\\x80\\x3f\\x00\\xc0", "bf16", False)
    >>> len(halves), halves.format, halves[0:2].tolist(), halves[::-1].tolist()
    (2, 'f', [1.0, -2.0], [-2.0, 1.0])
    >>> Widened(b"\\x00\\x3c\\x00\\xc0", "f2", False).tolist()
    [1.0, -2.0]
    """

    format = "f"

    def __init__(self, data, kind, big_endian):
        self.halves = memoryview(data).cast("H")
        self.kind, self.big_endian = kind, big_endian

    def __len__(self):
        return len(self.halves)

    def __getitem__(self, index):
        if not isinstance(index, slice):
            raise TypeError("Widened values are taken by slices")
        data = self.halves[index].tobytes()
        if self.kind == "f2":
            values = array.array("f")
            order = ">" if self.big_endian else "<"
            for start in range(0, len(data), _CHUNK):
                part = data[start:start + _CHUNK]
                values.extend(struct.unpack("%s%de" % (order, len(part) // 2), part))
            return memoryview(values)
        return memoryview(widened(_little_endian(data) if self.big_endian else data)).cast("f")

    def part(self, start, stop):
        """The values ``start`` to ``stop`` - 1, still as read (a tensor's
        own part of a storage that several share).

        >>> Widened(b"\\x80\\x3f\\x00\\xc0", "bf16", False).part(1, 2).tolist()
        [-2.0]
        """
        if start == 0 and stop == len(self):
            return self
        return Widened(self.halves[start:stop].tobytes(), self.kind, self.big_endian)

    def little_endian(self):
        """The values' 16-bit patterns, least significant byte first, as bytes."""
        data = self.halves.obj
        if self.big_endian:
            return _little_endian(data)
        return data if type(data) is bytes else bytes(data)

    def tolist(self):
        return self[:].tolist()


def _little_endian(data):
    """Big-endian 16-bit patterns with each pair of bytes swapped."""
    swapped = bytearray(len(data))
    swapped[0::2], swapped[1::2] = data[1::2], data[0::2]
    return bytes(swapped)
