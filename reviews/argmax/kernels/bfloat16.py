"""Rows of bfloat16 values kept as stored, two bytes a value.

A head stored in bfloat16 (Llama-3's: 128,256 x 4,096, 1 GB) takes twice
its file as rows of float32, and a float32 copy of every row was most of
what checking it kept in memory.  Here the 16-bit patterns stay as read,
in one bytes object, and a row is widened to float32 (exactly: a bfloat16
is the high half of a float32) when it is read.  What the checker asks of
all the rows at once is read off the patterns, a block of rows at a time:
their finiteness, their extremes, whether any uses the low bits of its
mantissa, and every value times a power of 2 rounded to a byte
(reviews.argmax.kernels.sparse), by big-integer arithmetic on 16-bit lanes.

    BFloat16Rows    the rows; row j an array of float32, made when read
    widened         bfloat16 patterns as the bytes of float32 values
    rounded_codes   bfloat16 values times a power of 2, each rounded to a byte
"""

import array
import collections.abc
import functools
import math
import struct
import sys

from reviews.errors import InputError

__all__ = ["BFloat16Rows", "widened", "rounded_codes"]

# Rows read at once where all of them are: a few megabytes of patterns,
# so that no pass holds a second copy of the layer.
_BLOCK_ROWS = 1024
# A bfloat16's mantissa bits, and its exponent's bias.
_MANTISSA = 7
_BIAS = 127
# Patterns of each value in a byte: the top byte's low 7 bits (the
# exponent's top 7), a byte made 255 where it is ``top`` and 0 elsewhere,
# and 255 where the sign bit is set.
_LOW_SEVEN = bytes(range(128)) * 2
_SELECTED = [bytes(top) + b"\xff" + bytes(255 - top) for top in range(256)]
_NEGATIVE = bytes(128) + b"\xff" * 128
# For each t, the tables that make 1 of the bytes above t, and of those in
# 1 .. t - 1, and 0 of the others.
_ABOVE = [bytes(t + 1) + b"\x01" * (255 - t) for t in range(129)]
_BETWEEN = [bytes(1) + b"\x01" * (t - 1) + bytes(256 - t) if t else bytes(256) for t in range(129)]
# Values of one top byte read one by one, at most.
_FEW = 64
# Patterns rounded at once by rounded_codes.
_PIECE = 1 << 17


def widened(codes):
    """The bytes of the float32 values of little-endian bfloat16 patterns,
    in this machine's byte order.

    >>> array.array("f", widened(b"\\x80\\x3f\\x00\\xc0")).tolist()
    [1.0, -2.0]
    """
    data = bytearray(2 * len(codes))
    low, high = codes[0::2], codes[1::2]
    if sys.byteorder == "little":
        data[2::4], data[3::4] = low, high
    else:
        data[1::4], data[0::4] = low, high
    return bytes(data)


def _value(code):
    """The float of one bfloat16 pattern."""
    return struct.unpack("<f", (code << 16).to_bytes(4, "little"))[0]


class BFloat16Rows(collections.abc.Sequence):
    """Rows of ``width`` bfloat16 values, kept as their little-endian
    patterns ``codes`` (bytes, row after row), or the rows ``order`` of
    them: row j is an array of float32, made when read.  The patterns are
    bytes, so the rows cannot change while they are checked; checked()
    refuses an infinity or a NaN.

    >>> rows = BFloat16Rows(b"\\x80\\x3f\\x00\\xc0\\x00\\x00\\x40\\x40", 2)
    >>> len(rows), rows[1].tolist(), rows.select([1, 0])[0].tolist()
    (2, [0.0, 3.0], [0.0, 3.0])
    >>> rows.extremes()
    (1.0, 3.0)
    """

    __slots__ = ("codes", "width", "order", "finite")

    def __init__(self, codes, width, order=None, finite=False):
        if type(codes) is not bytes:
            raise TypeError("bfloat16 patterns must be bytes, not %s" % type(codes).__name__)
        if type(width) is not int:
            raise TypeError("a row's width must be an int, not %s" % type(width).__name__)
        if width < 1 or not codes or len(codes) % (2 * width):
            raise ValueError("%d bytes are not rows of %d bfloat16 values" % (len(codes), width))
        self.codes, self.width, self.order = codes, width, order
        # Whether checked() found every value finite.
        self.finite = finite

    def __len__(self):
        return len(self.codes) // (2 * self.width) if self.order is None else len(self.order)

    def __getitem__(self, j):
        if isinstance(j, slice):
            return [self[k] for k in range(*j.indices(len(self)))]
        return array.array("f", widened(self.row_codes(j)))

    def __reduce__(self):
        return BFloat16Rows, (self.codes, self.width, self.order, self.finite)

    def row_codes(self, j):
        """Row j's patterns, two bytes a value."""
        stored = range(len(self))[j] if self.order is None else self.order[j]
        start = 2 * self.width * stored
        return self.codes[start:start + 2 * self.width]

    def block_codes(self, start, stop):
        """The patterns of rows ``start`` to ``stop`` - 1, one after another."""
        if self.order is None:
            size = 2 * self.width
            return self.codes[size * start:size * stop]
        return b"".join(map(self.row_codes, range(start, stop)))

    def blocks(self):
        """The patterns of every row, a block of rows at a time, as
        (first row, patterns)."""
        for start in range(0, len(self), _BLOCK_ROWS):
            yield start, self.block_codes(start, min(len(self), start + _BLOCK_ROWS))

    def select(self, indices):
        """The rows ``indices``, in that order, sharing these patterns."""
        rows = range(len(self)) if self.order is None else self.order
        stored = [rows[j] for j in indices]
        return BFloat16Rows(self.codes, self.width, stored, self.finite)

    def extremes(self):
        """(the smallest nonzero magnitude, the largest) of the values, as
        floats; (0, 0) if all are zero.  A magnitude's order is its
        pattern's order without the sign, so both are found among the
        patterns of the least (greatest) top byte, by their low bytes; a
        block of rows is read no further where its top bytes cannot beat
        the blocks before."""
        least = most = None
        for _, codes in self.blocks():
            tops, lows = codes[1::2].translate(_LOW_SEVEN), codes[0::2]
            most = _greatest(tops, lows, most)
            least = _least(tops, lows, least)
        if most is None:
            return 0, 0
        return _value(least), _value(most)

    def checked(self):
        """These rows, or InputError naming the first value that is not
        finite (all of its exponent's bits set).

        >>> BFloat16Rows(b"\\x80\\x3f\\x80\\x7f", 1).checked()
        Traceback (most recent call last):
          ...
        reviews.errors.InputError: weights[1][0] is inf, not a finite number
        """
        if self.finite:
            return self
        for start, block in self.blocks():
            tops, lows = block[1::2].translate(_LOW_SEVEN), block[0::2]
            n = tops.find(0x7F)
            while n >= 0:
                if lows[n] & 0x80:
                    j, k = divmod(n, self.width)
                    raise InputError("weights[%d][%d] is %r, not a finite number" % (
                        start + j, k, _value(block[2 * n] | block[2 * n + 1] << 8)))
                n = tops.find(0x7F, n + 1)
        self.finite = True
        return self

    def uses_low_bits(self):
        """Whether any value has a nonzero bit among its mantissa's 7."""
        return any(codes[0::2].translate(_LOW_SEVEN).count(0) != len(codes) // 2
                   for _, codes in self.blocks())

    def row_keys(self):
        """A key for each row, equal for equal rows (0.0 and -0.0 alike):
        its patterns where it holds no zero, else the tuple of its floats."""
        for j in range(len(self)):
            codes = self.row_codes(j)
            yield codes if not _zero_positions(codes) else tuple(self[j])


def _zero_positions(codes):
    """Whether some pattern is 0.0 or -0.0 (its top byte's low 7 bits and
    its low byte all 0)."""
    tops = codes[1::2].translate(_LOW_SEVEN)
    if not tops.count(0):
        return False
    lows = codes[0::2]
    n = tops.find(0)
    while n >= 0:
        if not lows[n]:
            return True
        n = tops.find(0, n + 1)
    return False


def _greatest(tops, lows, best):
    """The greatest nonzero magnitude pattern of a block (its top bytes'
    low 7 bits ``tops``, its low bytes ``lows``) or ``best`` (None: no
    nonzero one yet), whichever is greater."""
    floor = 0 if best is None else best >> 8
    if 1 in tops.translate(_ABOVE[floor]):
        top = next(v for v in range(127, floor, -1) if v in tops)
    elif best is not None and floor in tops and best & 0xFF < 0xFF:
        top = floor
    elif best is None and 0 in tops:
        top = 0
    else:
        return best
    among = _lows_at(tops, lows, top, 0)
    found = top << 8 | next(v for v in range(255, -1, -1) if v in among)
    return found if found and (best is None or found > best) else best


def _least(tops, lows, best):
    """The least nonzero magnitude pattern of a block (as _greatest's) or
    ``best``, whichever is less."""
    if 0 in tops:
        # Of top byte 0, the least nonzero low byte is the least nonzero pattern.
        among = _lows_at(tops, lows, 0, 0)
        low = next((v for v in range(1, 256) if v in among), None)
        if low is not None:
            return low if best is None else min(low, best)
    ceiling = 128 if best is None else best >> 8
    if 1 in tops.translate(_BETWEEN[ceiling]):
        top = next(v for v in range(1, ceiling) if v in tops)
    elif best is not None and 0 < ceiling and ceiling in tops and best & 0xFF:
        top = ceiling
    else:
        return best
    among = _lows_at(tops, lows, top, 255)
    found = top << 8 | next(v for v in range(256) if v in among)
    return found if best is None else min(found, best)


def _lows_at(tops, lows, top, other):
    """The low bytes of the patterns of top byte ``top``: read one by one
    where there are few, else all the low bytes with the others' made
    ``other`` (0 or 255)."""
    if tops.count(top) <= _FEW:
        return bytes(lows[n] for n in _positions(tops, top))
    mask = int.from_bytes(tops.translate(_SELECTED[top]), "little")
    values = int.from_bytes(lows, "little")
    values = values | mask ^ ((1 << 8 * len(lows)) - 1) if other else values & mask
    return values.to_bytes(len(lows), "little")


def _positions(data, value):
    """The positions of the byte ``value`` in ``data``, in order."""
    n = data.find(value)
    while n >= 0:
        yield n
        n = data.find(value, n + 1)


def rounded_codes(codes, factor, offset):
    """bytes(offset + r) for each bfloat16 pattern of ``codes``, r an
    integer within 1 of its value v times ``factor`` (a power of 2), for
    values with |v| * factor < 128; None where the patterns of value 1 /
    factor are not normal (then each value is rounded on its own).

    The magnitude patterns at or above that of 1 / factor, p1, are cut
    into runs of 4: a run's values span at most 1.5 (3 steps of 1 / 2,
    from 64 up) and those of [64, 128) start at even integers, so one r is
    within 1 of each value of a run; below p1, |v| * factor < 1 and r = 0.  A pattern's run, 1 + (p - p1) // 4 (0 below p1), is found
    for all of them at once on 16-bit lanes of one integer, and r read off
    a table of the runs.

    >>> rounded_codes(bytes.fromhex("803f 00c0 fe42 0000 003e"), 1.0, 128)
    b'\\x81~\\xff\\x80\\x80'
    """
    exponent = _BIAS - math.frexp(factor)[1] + 1
    if not 1 <= exponent < 0xFF - 7:
        return None
    first = exponent << _MANTISSA
    table = _run_table(first, factor, offset)
    # Pieces of a few hundred kilobytes: about twice as fast as megabytes at once.
    return b"".join(_rounded_piece(codes[start:start + 2 * _PIECE], first, table)
                    for start in range(0, len(codes), 2 * _PIECE))


def _rounded_piece(codes, first, table):
    """rounded_codes of a few patterns, for the first pattern of value 1 /
    factor, ``first``, and the runs' ``table``."""
    count = len(codes) // 2
    ones = _ones(count)
    lifted = (int.from_bytes(codes, "little") & 0x7FFF * ones) + (0x8000 - first) * ones
    above = lifted >> 15 & ones
    runs = ((lifted & above * 0x7FFF) >> 2 & 0x1FFF * ones) + above
    runs = runs.to_bytes(2 * count, "little")[0::2]
    positive, flipped = table
    signs = int.from_bytes(codes[1::2].translate(_NEGATIVE), "little")
    # offset - r is (offset + r) ^ flipped: negative values take it.
    rounded = (int.from_bytes(runs.translate(positive), "little")
               ^ int.from_bytes(runs.translate(flipped), "little") & signs)
    return rounded.to_bytes(count, "little")


@functools.lru_cache(maxsize=4)
def _ones(count):
    """The integer of ``count`` 16-bit lanes of 1."""
    return int.from_bytes(b"\x01\x00" * count, "little")


def _run_table(first, factor, offset):
    """(offset + r, (offset + r) ^ (offset - r)) for each run of
    rounded_codes: r the integer nearest the middle of the run's values
    times ``factor`` (within 1 of each: a run spans at most 1.5 and its
    middle is then 1 / 4 from an integer), at most 127."""
    positive, flipped = bytearray(256), bytearray(256)
    for run in range(1, 256):
        least = first + 4 * (run - 1)
        r = 127
        if least + 3 < 0x7F80:
            r = min(r, round((_value(least) + _value(least + 3)) * factor / 2))
        positive[run] = offset + r
        flipped[run] = positive[run] ^ (offset - r)
    positive[0] = offset
    return bytes(positive), bytes(flipped)
