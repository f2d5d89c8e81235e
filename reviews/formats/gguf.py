"""GGUF files (llama.cpp's models), read without llama.cpp: the header, the
metadata, the tensor table, and the values of the tensors asked for.

A .gguf file is little-endian: the magic "GGUF", a uint32 version (2 and 3
are read; 1, which llama.cpp no longer reads either, and files written
big-endian are refused by name), uint64 counts of tensors and of
key-values; the key-values (a string key, a uint32 value type, the value: a
number, a bool, a string as a uint64 length and UTF-8 bytes, or an array of
any of these, arrays nested at most 8 deep); the tensor table (each
tensor's name, its dimensions fastest-varying first, its ggml type and its
offset); then, at the next multiple of ``general.alignment`` (32 unless the
file says), the tensors' bytes.

Two keys are kept: ``general.alignment`` (a uint32, a power of 2) and
``tokenizer.ggml.tokens`` (UTF-8 strings), the tokens the classes stand
for; the others are skipped, arrays of numbers without being read.  The
header is read a chunk at a time, and at most MAX_TEXT_BYTES of it (a
model's vocabulary and merges take some megabytes): every count and length
is checked against what is left of the file before anything is read or
allocated for it, so that a small file costs little however large the
numbers it holds.  A key or a tensor's name given twice, a dimension of 0,
more than 4 dimensions, more than MAX_TENSORS tensors (as in .safetensors
files), a type ggml does not define, rows that are not whole blocks and a
tensor whose bytes would run past the end of the file are refused with the
table; the limit of values of reviews.formats.binary.value_count applies
to the tensors read, not to the others (a mixture of experts stores each
layer's experts as one tensor of billions of values).

A tensor of dimensions (d, C) holds C rows of d values: its shape is shown
as (C, d), in C order.  Its values are read only when asked for: F32, F64,
F16 and BF16 as stored; Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K,
Q5_K and Q6_K dequantized exactly, as ggml's own dequantize_row functions
define each value (d * scale * q, and + m or - dmin * min, of float16 d, m
and dmin and small integers) but without their float32 rounding: as
float32 numbers for the types whose values all are (Q8_0, Q4_0, Q5_0, Q3_K,
Q6_K), else as float64; a scale that is inf or NaN is refused, naming its
block.  Other types (IQ2_XS, Q8_K, TQ1_0, ...) are refused by name when
their values are asked for.

The output layer the file names: ``output.weight``, with ``output.bias`` if
the file has it; else, in a model whose head is tied to its input
embedding, ``token_embd.weight``.

    gguf_arrays     the Arrays of an open .gguf file
"""

import functools
import math
import struct
from array import array
from collections import namedtuple
from operator import add, mul, neg

from reviews.errors import InputError
from reviews.formats.binary import MAX_TENSORS, Array, Arrays, Head, read_values, value_count
from reviews.formats.source import MAX_TEXT_BYTES
from reviews.shown import excerpt, shown_number, shown_shape

__all__ = ["gguf_arrays"]

_MAGIC = b"GGUF"
_HEADER_BYTES = 4 + 4 + 8 + 8   # the magic, the version, the two counts
_VERSIONS = (2, 3)
_DEFAULT_ALIGNMENT = 32
# ggml's own limit: a tensor has at most 4 dimensions.
_MAX_DIMS = 4
# llama.cpp reads no nested arrays at all and gguf-py writes them only when
# asked; the bound keeps a hostile file from recursing deep.
_MAX_NESTING = 8
_READ = 2 ** 20   # bytes of header read at a time
# Values dequantized at a time: each pass over a chunk's blocks costs some
# microseconds, a chunk's values some tens of milliseconds.
_CHUNK_VALUES = 2 ** 20

_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
_STRING, _ARRAY = 8, 9
# The value types of fixed size, by number: uint8, int8, uint16, int16,
# uint32, int32, float32, bool, uint64, int64, float64.
_FIXED = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_UINT32 = 4
# Each costs at least this many bytes of the header: a key-value (a key's
# length, a type, a 1-byte value), a tensor's entry (a name's length, its
# number of dimensions, its type, its offset), an array's element.
_SMALLEST_KEY_VALUE = 8 + 4 + 1
_SMALLEST_TENSOR = 8 + 4 + 4 + 8
_SMALLEST_ITEM = {_STRING: 8, _ARRAY: 4 + 8}

# ggml's types, by number: name, values per block, bytes per block (ggml.c's
# type_traits).  Numbers ggml no longer defines (4, 5, 31-33, 36-38) are
# missing: llama.cpp refuses them too.
_TYPES = {0: ("F32", 1, 4), 1: ("F16", 1, 2), 2: ("Q4_0", 32, 18), 3: ("Q4_1", 32, 20),
          6: ("Q5_0", 32, 22), 7: ("Q5_1", 32, 24), 8: ("Q8_0", 32, 34), 9: ("Q8_1", 32, 36),
          10: ("Q2_K", 256, 84), 11: ("Q3_K", 256, 110), 12: ("Q4_K", 256, 144),
          13: ("Q5_K", 256, 176), 14: ("Q6_K", 256, 210), 15: ("Q8_K", 256, 292),
          16: ("IQ2_XXS", 256, 66), 17: ("IQ2_XS", 256, 74), 18: ("IQ3_XXS", 256, 98),
          19: ("IQ1_S", 256, 50), 20: ("IQ4_NL", 32, 18), 21: ("IQ3_S", 256, 110),
          22: ("IQ2_S", 256, 82), 23: ("IQ4_XS", 256, 136), 24: ("I8", 1, 1), 25: ("I16", 1, 2),
          26: ("I32", 1, 4), 27: ("I64", 1, 8), 28: ("F64", 1, 8), 29: ("IQ1_M", 256, 56),
          30: ("BF16", 1, 2), 34: ("TQ1_0", 256, 54), 35: ("TQ2_0", 256, 66),
          39: ("MXFP4", 32, 17), 40: ("NVFP4", 64, 36), 41: ("Q1_0", 128, 18)}
# The types stored as plain numbers, by their kinds in reviews.formats.binary.
_PLAIN = {"F32": "f4", "F64": "f8", "F16": "f2", "BF16": "bf16"}


# Cached: the layouts below ask for a few dozen tables some 2,500 times.
@functools.lru_cache(maxsize=None)
def _table(shift, width, place, bias):
    """The bytes.translate table taking a byte to its bits shift..shift+width
    moved to bit ``place``, less ``bias``, as a two's complement byte."""
    return bytes(((((b >> shift) & ((1 << width) - 1)) << place) - bias) & 0xFF
                 for b in range(256))


def _field(bias, *sources):
    """A small integer of each block, read as int8: the bits of one or two
    of its bytes, each source (offset, shift, width, place), joined, less
    ``bias``.  Kept as (offset, table) pairs and a last table, None where
    a table would change nothing."""
    if len(sources) == 1:
        (offset, shift, width, place), = sources
        whole = (shift, width, place, bias) == (0, 8, 0, 0)
        return ((offset, None if whole else _table(shift, width, place, bias)),), None
    return (tuple((offset, _table(shift, width, place, 0))
                  for offset, shift, width, place in sources),
            _table(0, 8, 0, bias) if bias else None)


# A quantized type's blocks: each block's ``size`` in bytes; the offsets of
# its float16 scale d and of its float16 ``m`` (None if it has none); the
# array code of its values; the field of each of its values, in order; and
# its groups, runs of values of equal length sharing a (scale, min) pair of
# fields, either None.  Value j of group g is
#     d * scale_g * q_j + m            without a min field (Q4_1, Q5_1)
#     d * scale_g * q_j - m * min_g    with one (dmin: Q2_K, Q4_K, Q5_K)
# with scale_g 1 when the group has no scale field.
_Layout = namedtuple("_Layout", "size d m code values groups")

# Exactness.  A float16 is an integer multiple of 2**-24 below 2**16 in
# magnitude: d = D * 2**-24 with |D| < 2**40.  Each value is then an integer
# multiple of 2**-24 whose numerator is below, in magnitude:
#     Q8_0  2**40 * 128               Q4_0  2**40 * 8
#     Q5_0  2**40 * 16                Q4_1  2**40 * 15 + 2**40
#     Q5_1  2**40 * 31 + 2**40        Q2_K  2**40 * 15 * 3 + 2**40 * 15
#     Q3_K  2**40 * 32 * 4            Q4_K  2**40 * 63 * 15 + 2**40 * 63
#     Q5_K  2**40 * 63 * 31 + 2**40 * 63      Q6_K  2**40 * 128 * 32
# all at most 2**52, and so are the partial products d * scale and m * min:
# each is a float64 exactly, so every float operation below is exact (its
# exact result is representable, and IEEE arithmetic then returns it), and
# no bound needs checking at run time.  The values of Q8_0, Q4_0, Q5_0,
# Q3_K and Q6_K are d's 11-bit significand times an integer of magnitude at
# most 4096 (Q6_K's 128 * 32): at most 23 significant bits, between 2**-24
# and 2**28, so float32 holds them exactly, in half the memory (code "f").


def _blocks_of_32(quants, high, m, code, bias):
    """The layout of a block of 32 values: d at byte 0, m at ``m``, 4 bytes
    of fifth bits at ``high`` (None: none; bit j for value j), 16 bytes of
    nibbles at ``quants`` (the low nibbles for the first 16 values, then
    the high ones)."""
    def value(j):
        nibble = (quants + j % 16, 4 * (j // 16), 4, 0)
        if high is None:
            return _field(bias, nibble)
        return _field(bias, nibble, (high + j // 8, j % 8, 1, 4))
    return _Layout(quants + 16, 0, m, code, [value(j) for j in range(32)], [(None, None)])


def _super_blocks(size, d, m, code, value, groups):
    """The layout of a super-block of 256 values: ``value(j)`` is value j's
    field, ``groups`` the (scale, min) fields of its 16 or 8 groups."""
    return _Layout(size, d, m, code, [value(j) for j in range(256)], groups)


# Q4_K's and Q5_K's 8 scales and mins of 6 bits, packed in 12 bytes from
# byte 4: the first four whole in bytes 4-11, the last four's low bits in
# bytes 12-15 and their top two bits in the top of bytes 4-11.
_K_GROUPS = [(_field(0, (4 + k, 0, 6, 0)), _field(0, (8 + k, 0, 6, 0))) if k < 4 else
             (_field(0, (8 + k, 0, 4, 0), (k, 6, 2, 4)),
              _field(0, (8 + k, 4, 4, 0), (4 + k, 6, 2, 4)))
             for k in range(8)]

_LAYOUTS = {
    "Q8_0": _Layout(34, 0, None, "f", [_field(0, (2 + j, 0, 8, 0)) for j in range(32)],
                    [(None, None)]),
    "Q4_0": _blocks_of_32(2, None, None, "f", 8),
    "Q4_1": _blocks_of_32(4, None, 2, "d", 0),
    "Q5_0": _blocks_of_32(6, 2, None, "f", 16),
    "Q5_1": _blocks_of_32(8, 4, 2, "d", 0),
    # 16 bytes of scales (low nibble) and mins (high nibble), 64 of 2-bit
    # quants, d, dmin.  Each half of 128 values takes 32 bytes, one bit
    # pair after the other.
    "Q2_K": _super_blocks(
        84, 80, 82, "d",
        lambda j: _field(0, (16 + 32 * (j // 128) + j % 32, 2 * (j % 128 // 32), 2, 0)),
        [(_field(0, (k, 0, 4, 0)), _field(0, (k, 4, 4, 0))) for k in range(16)]),
    # 32 bytes of third bits (bit b of byte l for value 32 b + l; a clear
    # bit means q - 4), 64 of 2-bit quants as Q2_K's, 12 of 6-bit scales
    # less 32 (low nibbles in bytes 96-103, top bit pairs in 104-107), d.
    "Q3_K": _super_blocks(
        110, 108, None, "f",
        lambda j: _field(4, (32 + 32 * (j // 128) + j % 32, 2 * (j % 128 // 32), 2, 0),
                         (j % 32, j // 32, 1, 2)),
        [(_field(32, (96 + k % 8, 4 * (k // 8), 4, 0), (104 + k % 4, 2 * (k // 4), 2, 4)), None)
         for k in range(16)]),
    # d, dmin, 12 bytes of scales and mins, 128 of nibbles: each 64 values
    # take 32 bytes, low nibbles then high.
    "Q4_K": _super_blocks(
        144, 0, 2, "d",
        lambda j: _field(0, (16 + 32 * (j // 64) + j % 32, 4 * (j % 64 // 32), 4, 0)),
        _K_GROUPS),
    # Q4_K's, with 32 bytes of fifth bits (bit b of byte l for value
    # 32 b + l) before the nibbles.
    "Q5_K": _super_blocks(
        176, 0, 2, "d",
        lambda j: _field(0, (48 + 32 * (j // 64) + j % 32, 4 * (j % 64 // 32), 4, 0),
                         (16 + j % 32, j // 32, 1, 4)),
        _K_GROUPS),
    # 128 bytes of low nibbles, 64 of top bit pairs, 16 int8 scales, d;
    # value q - 32.  Each half of 128 values takes 64 bytes of nibbles (low
    # nibbles of both 32-byte runs, then high) and 32 of bit pairs.
    "Q6_K": _super_blocks(
        210, 208, None, "f",
        lambda j: _field(32, (64 * (j // 128) + 32 * (j % 64 // 32) + j % 32, 4 * (j % 128 // 64),
                              4, 0),
                         (128 + 32 * (j // 128) + j % 32, 2 * (j % 128 // 32), 2, 4)),
        [(_field(0, (192 + k, 0, 8, 0)), None) for k in range(16)]),
}
_READ_TYPES = ", ".join(list(_PLAIN) + list(_LAYOUTS))


class _GGUFHeader:
    """A .gguf file's header, read in order a chunk at a time: nothing is
    read or allocated for a count or a length before it is checked against
    what is left of the file, and of MAX_TEXT_BYTES."""

    def __init__(self, handle, size, path):
        self.handle, self.size, self.path = handle, size, path
        self.data, self.base, self.at = b"", 0, 0
        handle.seek(0)

    @property
    def offset(self):
        return self.base + self.at

    def error(self, message, offset=None):
        return InputError("%s, byte %d: %s" % (self.path, self.offset if offset is None
                                              else offset, message))

    def room(self, need, what):
        """InputError unless ``need`` more bytes are in the file, and within
        the header's limit."""
        if need > self.size - self.offset:
            raise self.error("%s needs %s bytes; the file has %d left"
                             % (what, shown_number(need), self.size - self.offset))
        if self.offset + need > MAX_TEXT_BYTES:
            raise self.error("%s needs %s bytes, past the limit of %d bytes of a header"
                             % (what, shown_number(need), MAX_TEXT_BYTES))

    def take(self, n, what):
        """The next ``n`` bytes."""
        self.room(n, what)
        if self.at + n > len(self.data):
            rest = self.data[self.at:]
            self.base += self.at
            self.data = rest + self.handle.read(max(n - len(rest), _READ))
            self.at = 0
            if len(self.data) < n:
                raise self.error("%s: the file ends at byte %d, before its %d bytes"
                                 % (what, self.base + len(self.data), self.size))
        self.at += n
        return self.data[self.at - n:self.at]

    def skip(self, n, what):
        self.room(n, what)
        if self.at + n <= len(self.data):
            self.at += n
        else:
            self.base, self.data, self.at = self.offset + n, b"", 0
            self.handle.seek(self.base)

    def u32(self, what):
        return _U32.unpack(self.take(4, what))[0]

    def u64(self, what):
        return _U64.unpack(self.take(8, what))[0]

    def text(self, what, raw):
        """A string: its bytes if ``raw``, else its text, which must be UTF-8."""
        start = self.offset
        data = self.take(self.u64(what), what)
        return data if raw else self.decoded(data, what, start)

    def decoded(self, data, what, start):
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise self.error("%s is not UTF-8" % what, start) from None

    def texts(self, count, what, keep):
        """``count`` strings: the list of their texts if ``keep``, else
        None, the strings skipped."""
        self.room(count * _SMALLEST_ITEM[_STRING], "%s, %s strings," % (what, shown_number(count)))
        found = []
        for k in range(count):
            # A vocabulary has some 10**5 tokens and merges: those wholly in
            # the chunk read are taken without the checks of take().
            start, at, data = self.offset, self.at, self.data
            end = at + 8 + _U64.unpack_from(data, at)[0] if at + 8 <= len(data) else None
            if end is not None and end <= len(data) and self.base + end <= MAX_TEXT_BYTES:
                self.at = end
                if keep:
                    found.append(self.decoded(data[at + 8:end], "%s[%d]" % (what, k), start))
            else:
                item = "%s[%d]" % (what, k)
                text = self.take(self.u64(item), item)
                if keep:
                    found.append(self.decoded(text, item, start))
        return found if keep else None

    def value(self, kind, what, depth=0):
        """Skip a value of type ``kind``."""
        if kind in _FIXED:
            self.skip(_FIXED[kind], what)
        elif kind == _STRING:
            self.skip(self.u64(what), what)
        elif kind != _ARRAY:
            raise self.error("%s has type %d; GGUF's value types are 0 to 12" % (what, kind),
                             self.offset - 4)
        elif depth == _MAX_NESTING:
            raise self.error("%s: arrays nested more than %d deep" % (what, _MAX_NESTING))
        else:
            inner, count = self.u32(what), self.u64(what)
            if inner in _FIXED:
                self.skip(count * _FIXED[inner], what)
            elif inner == _STRING:
                self.texts(count, what, False)
            elif inner == _ARRAY:
                self.room(count * _SMALLEST_ITEM[_ARRAY],
                          "%s, %s arrays," % (what, shown_number(count)))
                for k in range(count):
                    self.value(_ARRAY, "%s[%d]" % (what, k), depth + 1)
            else:
                raise self.error("%s is an array of type %d; GGUF's value types are 0 to 12"
                                 % (what, inner), self.offset - 12)


def _version(header):
    data = header.take(4, "the version")
    version = _U32.unpack(data)[0]
    if version in _VERSIONS:
        return
    if version == 1:
        raise header.error("GGUF version 1 is not read (llama.cpp no longer reads it either);"
                           " convert the model again", 4)
    if _U32.unpack(data[::-1])[0] in _VERSIONS:
        raise header.error("the version is %d written big-endian: big-endian GGUF files are not"
                           " read" % _U32.unpack(data[::-1])[0], 4)
    raise header.error("GGUF version %d is not read (2 and 3 are)" % version, 4)


def _metadata(header, count):
    """(alignment, tokens or None) of the ``count`` key-values."""
    alignment, tokens, keys = _DEFAULT_ALIGNMENT, None, set()
    for k in range(count):
        start = header.offset
        key = header.text("key %d's name" % k, True)
        what = "key %d (%s)" % (k, excerpt(key.decode("utf-8", "replace")))
        if key in keys:
            raise header.error("%s is a key the file has already" % what, start)
        keys.add(key)
        at, kind = header.offset, header.u32(what)
        if key == b"general.alignment":
            if kind != _UINT32:
                raise header.error("%s has type %d; expected 4 (uint32)" % (what, kind), at)
            alignment = header.u32(what)
            if alignment == 0 or alignment & (alignment - 1):
                raise header.error("%s is %d, not a power of 2" % (what, alignment),
                                   header.offset - 4)
        elif key == b"tokenizer.ggml.tokens":
            inner = header.u32(what) if kind == _ARRAY else None
            if inner != _STRING:
                raise header.error("%s is not an array of strings (type %d%s)" % (
                    what, kind, "" if inner is None else " of type %d" % inner), at)
            tokens = dict(enumerate(header.texts(header.u64(what), what, True)))
        else:
            header.value(kind, what)
    return alignment, tokens


def _tensor_table(header, count):
    """[(name, dims, type number, offset)] of the ``count`` tensors."""
    tensors, names = [], set()
    for k in range(count):
        start = header.offset
        name = header.text("tensor %d's name" % k, False)
        what = "tensor %s" % excerpt(name)
        if name in names:
            raise header.error("%s is the name of an earlier tensor too" % what, start)
        names.add(name)
        n_dims = header.u32(what)
        if n_dims > _MAX_DIMS:
            raise header.error("%s has %d dimensions; a GGUF tensor has at most %d"
                               % (what, n_dims, _MAX_DIMS), header.offset - 4)
        dims = struct.unpack("<%dQ" % n_dims, header.take(8 * n_dims, what))
        number, offset = header.u32(what), header.u64(what)
        if 0 in dims:
            raise header.error("%s has dimensions %s: a dimension of 0"
                               % (what, shown_shape(dims)), start)
        if number not in _TYPES:
            raise header.error("%s has type %d, which is not one of ggml's" % (what, number),
                               header.offset - 12)
        dtype, per_block, _ = _TYPES[number]
        row = dims[0] if dims else 1
        if row % per_block:
            raise header.error("%s has rows of %d values: not whole blocks of %d (%s)"
                               % (what, row, per_block, dtype), start)
        tensors.append((name, dims, number, offset))
    return tensors


def gguf_arrays(handle, size, path):
    """The Arrays of the open .gguf file ``handle`` of ``size`` bytes: its
    tensors (shape as C order sees them, dtype the ggml type's name), the
    output layer it names (Arrays.head), and the tokens of its classes
    (Arrays.tokens), or None.

    >>> import io, struct
    >>> def text(s): return struct.pack("<Q", len(s)) + s
    >>> data = (b"GGUF" + struct.pack("<IQQ", 3, 1, 1)
    ...         + text(b"tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 2)
    ...         + text(b"yes") + text(b"no")
    ...         + text(b"output.weight") + struct.pack("<IQQIQ", 2, 3, 2, 0, 0))
    >>> data += bytes(-len(data) % 32) + struct.pack("<6f", 1, 2, 3, 4, 5, 6)
    >>> arrays = gguf_arrays(io.BytesIO(data), len(data), "m.gguf")
    >>> [(a.name, a.shape, a.dtype) for a in arrays], arrays.tokens
    ([('output.weight', (2, 3), 'F32')], {0: 'yes', 1: 'no'})
    >>> arrays[0].load()[0].tolist(), arrays.head.why
    ([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "weights 'output.weight' (F32): the model's output layer")
    """
    header = _GGUFHeader(handle, size, path)
    if size < _HEADER_BYTES:
        raise InputError("%s is not a GGUF file: it has %d bytes, fewer than the %d of a GGUF"
                         " header" % (path, size, _HEADER_BYTES))
    magic = header.take(4, "the magic")
    if magic != _MAGIC:
        raise InputError("%s is not a GGUF file: it starts with %r, not %r"
                         % (path, magic, _MAGIC))
    _version(header)
    tensor_count, key_count = header.u64("the tensor count"), header.u64("the key count")
    if tensor_count > MAX_TENSORS:
        raise header.error("the header counts %s tensors, past the limit of %s"
                           % (shown_number(tensor_count), format(MAX_TENSORS, ",")), 8)
    header.room(tensor_count * _SMALLEST_TENSOR + key_count * _SMALLEST_KEY_VALUE,
                "the header's %d tensors and %s key-values (at least %d and %d bytes each)"
                % (tensor_count, shown_number(key_count), _SMALLEST_TENSOR, _SMALLEST_KEY_VALUE))
    alignment, tokens = _metadata(header, key_count)
    table = _tensor_table(header, tensor_count)
    start = header.offset + -header.offset % alignment
    arrays = []
    for name, dims, number, offset in table:
        dtype, per_block, block_bytes = _TYPES[number]
        where = "%s, tensor %s" % (path, excerpt(name))
        end = start + offset + math.prod(dims) // per_block * block_bytes
        if end > size:
            raise InputError("%s (%s %s): its bytes run to byte %s, past the end of the file (%d)"
                             % (where, dtype, shown_shape(dims[::-1]), shown_number(end), size))
        arrays.append(_array(handle, start + offset, name, dims[::-1], dtype, where))
    return Arrays(arrays, _head(arrays), tokens)


def _array(handle, start, name, shape, dtype, where):
    def load():
        count = value_count(shape, where)
        if dtype in _PLAIN:
            handle.seek(start)
            return read_values(handle, _PLAIN[dtype], count, False, where), False
        if dtype not in _LAYOUTS:
            raise InputError("%s: type %s is not read (read: %s)" % (where, dtype, _READ_TYPES))
        return _dequantized(handle, start, _LAYOUTS[dtype], count, where), False
    return Array(name, shape, dtype, load)


def _head(arrays):
    """The Head of a llama.cpp model: its output layer, else the token
    embedding its head is tied to; None if it has neither."""
    dtypes = {a.name: a.dtype for a in arrays}
    bias = "output.bias" if "output.bias" in dtypes else None
    with_bias = " and bias 'output.bias' (%s)" % dtypes[bias] if bias else ""
    for weights, why in (("output.weight", "the model's output layer"),
                         ("token_embd.weight", "no output.weight, so the head is tied to the"
                                               " token embedding")):
        if weights in dtypes:
            return Head(weights, bias, "weights %r (%s)%s: %s"
                        % (weights, dtypes[weights], with_bias, why))
    return None


def _codes(data, size, field):
    """The list of a field's int8 value in each of the blocks of ``size``
    bytes ``data`` holds: strided slices take one byte of every block at
    once, so that each costs a few C loops, whatever the count."""
    sources, last = field
    parts = [data[offset::size] if table is None else data[offset::size].translate(table)
             for offset, table in sources]
    codes = parts[0]
    if len(parts) == 2:
        # The sources' bits do not overlap: an OR of the bytes as one int
        # joins each pair without a carry.
        codes = (int.from_bytes(codes, "little") | int.from_bytes(parts[1], "little")).to_bytes(
            len(codes), "little")
    if last is not None:
        codes = codes.translate(last)
    # A list: map() takes its ints faster than a memoryview's.
    return memoryview(codes).cast("b").tolist()


def _halves(data, size, offset, first, where, start):
    """The float16 at ``offset`` in each block, all finite."""
    pairs = bytearray(2 * (len(data) // size))
    pairs[0::2], pairs[1::2] = data[offset::size], data[offset + 1::size]
    halves = struct.unpack("<%de" % (len(pairs) // 2), pairs)
    if not all(map(math.isfinite, halves)):
        k = next(k for k, x in enumerate(halves) if not math.isfinite(x))
        raise InputError("%s: block %d (byte %d) has a scale of %r; expected a finite number"
                         % (where, first + k, start + (first + k) * size + offset, halves[k]))
    return halves


def _dequantized(handle, start, layout, count, where):
    """The ``count`` values of a tensor of ``layout``'s blocks at ``start``,
    dequantized exactly (see Exactness above), a chunk of blocks at a time."""
    per_block, size = len(layout.values), layout.size
    blocks, step = count // per_block, max(1, _CHUNK_VALUES // per_block)
    values = array(layout.code, [0]) * count
    width = per_block // len(layout.groups)
    handle.seek(start)
    for first in range(0, blocks, step):
        n = min(step, blocks - first)
        data = handle.read(n * size)
        if len(data) != n * size:
            raise InputError("%s: the file ends in block %d, at byte %d"
                             % (where, first + len(data) // size,
                                start + first * size + len(data)))
        d = _halves(data, size, layout.d, first, where, start)
        m = None if layout.m is None else _halves(data, size, layout.m, first, where, start)
        for g, (scale, low) in enumerate(layout.groups):
            scaled = d if scale is None else list(map(mul, d, _codes(data, size, scale)))
            if m is None or low is None:
                shift = m
            else:
                shift = list(map(mul, map(neg, m), _codes(data, size, low)))
            for j in range(g * width, (g + 1) * width):
                value = map(mul, scaled, _codes(data, size, layout.values[j]))
                if shift is not None:
                    value = map(add, value, shift)
                # array() takes a list faster than an iterator.
                values[first * per_block + j:(first + n) * per_block:per_block] = array(
                    layout.code, list(value))
    return memoryview(values)
