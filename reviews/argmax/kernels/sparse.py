"""All logits of a layer at a candidate with few nonzero coordinates, exact in sign.

An argmaxable class needs one input where it wins, and on a head of many
dimensions one with a few nonzero coordinates often does: x = t s on a
set S of k coordinates, s_k = +1 or -1, 0 elsewhere.  Its logits are
t sum_{k in S} s_k w_jk + b_j, k additions of columns, not the d products
of a dense candidate.  Here each column of the layer is rounded to 8 bits
(one power of 2 for the whole layer, each entry within 1 unit) and
packed into two big integers of 16-bit fields, one for the even rows and
one for the odd rows (for a layer past 2**27 entries, one integer of a
byte a row, of which those two are masks: Llama-3's head's columns take
0.5 GB, not 1 GB): a candidate's C rounded logits are k additions of such
fields and a bias column, with a rigorous bound on the rounding
(k units of the rows, 1 / 2 of the bias), and only the rows whose
rounded logit comes within that bound of the class's exact logit are
checked one by one in exact integers.  So a candidate is decided against
all C rows exactly, in about k * C * 2 bytes of big-integer additions.

The columns are a few big integers, not millions of small objects: forked
worker processes read them without writing their pages (reading an object
writes its reference count, here once per column).

    SparseColumns   the packed columns; SparseColumns.won, the first witness among growing supports
    MOST_TERMS      the most nonzero coordinates a candidate may have
"""

import heapq
import itertools
import math
import operator
from fractions import Fraction

from reviews.argmax.kernels.bfloat16 import _positions
from reviews.argmax.kernels.layer_input import extremes

__all__ = ["SparseColumns", "MOST_TERMS"]

# A rounded entry r has |r| <= _LEVEL and is stored as r + _OFFSET in one
# byte, and summed in a 16-bit field.  A field then holds _HALF + R_j + beta_j - tau
# (R_j the rounded logit of up to MOST_TERMS entries, beta_j the rounded
# bias, at most _BIAS_LIMIT in size, tau the class's target, clamped to
# within their reach + 1): at most 2 (127 * 64 + 8192) + 1 = 32,641 from
# _HALF = 32,768 either way, so every field stays in [0, 2**16) and its
# top bit says R_j + beta_j >= tau.
_LEVEL = 127
_OFFSET = 128
_HALF = 1 << 15
_BIAS_LIMIT = 1 << 13
MOST_TERMS = 64
# The first support's size; each next one is twice the last.
_FIRST_TERMS = 4
# Rows of integers are made floats by float() and a power of 2 up to this shift.
_FLOAT_SHIFT = 1000
# Rows made into bytes at once while the columns are packed.
_CHUNK_ROWS = 4096
# Columns of layers of at most this many entries are kept as 16-bit
# fields, 2 bytes an entry (a GPT-2 head's: 77 MB); larger ones a byte an
# entry, their fields made at each use (a sum of k columns costs about
# 10% more: Llama-3's head's columns take 0.5 GB, not 1 GB).
_WIDE_ENTRIES = 1 << 27
# Rows whose bias rounds past _BIAS_LIMIT at a scale are checked one by one:
# past this many, the scale is not tried.
_TOO_HIGH = 8
# Flagged rows checked in index order; past this many, largest rounded logit first.
_IN_ORDER = 32
# The bias's rounded size at each scale tried, as powers of 2, largest scale first.
_BIAS_BITS = (4, 8, 12)


class SparseColumns:
    """The columns of integer ``rows`` (with integer ``biases``, or None),
    rounded and packed for candidates x = t s with few nonzero coordinates.

    A candidate is given by its support (coordinates, in order of
    preference), its signs (+1 or -1, one a coordinate) and t = 2**e; the
    logits compared are t sum_{k in S} s_k w_jk + b_j, exactly.

    >>> layer = SparseColumns([[3, 0, 1], [0, 3, 1], [1, 1, 1]])
    >>> layer.won(0, [0, 2], [1, -1]), layer.won(2, [2, 0], [1, 1])
    (([0, 2], [1, -1], 0), None)
    >>> layer.beaten_by(2, [0, 1], [1, 1], 0, 2)
    [0, 1]
    """

    def __init__(self, rows, biases=None):
        self.rows, self.biases = rows, biases
        self.class_count, self.dim = len(rows), len(rows[0])
        largest = extremes(rows)[1]
        # The least shift with |w| <= _LEVEL * 2**shift for every entry.
        shift = max(0, largest.bit_length() - _LEVEL.bit_length())
        while shift and largest <= _LEVEL << (shift - 1):
            shift -= 1
        while largest > _LEVEL << shift:
            shift += 1
        self.shift = shift
        count, width = self.class_count, self.dim
        fields = [bytearray(count) for _ in range(width)]
        sums = [0] * width
        for start in range(0, count, _CHUNK_ROWS):
            end = min(count, start + _CHUNK_ROWS)
            chunk = self._rows_bytes(start, end)
            for k, field in enumerate(fields):
                column = chunk[k::width]
                sums[k] += sum(column)
                field[start:end] = column
        self.counts = ((count + 1) // 2, count // 2)
        self.ones = tuple(int.from_bytes(b"\x01\x00" * n, "little") for n in self.counts)
        self.tops = tuple(ones << 15 for ones in self.ones)
        self._low_bytes = 0xFF * self.ones[0]
        # Each column a byte a row, whose even rows' 16-bit fields and odd
        # rows' are two masks of it (_halves), or those two themselves
        # where the layer has at most _WIDE_ENTRIES entries.
        wide = count * width <= _WIDE_ENTRIES
        self.columns = []
        for k in range(width):
            column = int.from_bytes(fields[k], "little")
            self.columns.append(self._halves(column) if wide else column)
            fields[k] = None
        # The rounded rows' mean, in units of 2**shift: where candidates start.
        self.mean = [total / count - _OFFSET for total in sums]
        self._bias_columns = {}
        self._largest_bias = None

    def _rows_bytes(self, start, end):
        """Rows ``start`` to ``end`` - 1 as bytes r + _OFFSET, one after
        another, r within 1 of w / 2**shift for each entry w."""
        rounded = getattr(self.rows, "rounded_rows", None)
        if rounded is not None:
            return rounded(start, end, self.shift, _OFFSET)
        rows = map(self.rows.__getitem__, range(start, end))
        if self.shift:
            rows = ([v >> self.shift for v in row] for row in rows)
        return b"".join(bytes(map(_OFFSET.__add__, row)) for row in rows)

    def row(self, i):
        """Row i as floats in units of 2**shift (for choosing a support)."""
        scaled = getattr(self.rows, "scaled", None)
        if scaled is not None:
            return scaled(i, self.shift)
        row = self.rows[i]
        if self.shift > _FLOAT_SHIFT:
            return [v / (1 << self.shift) for v in row]
        try:
            # A float of an int is its value rounded, and 2**-shift exact.
            return list(map(math.ldexp(1.0, -self.shift).__mul__, map(float, row)))
        except OverflowError:
            unit = 1 << self.shift
            return [v / unit for v in row]

    def scales(self, box=None):
        """The exponents e of t = 2**e worth trying, largest first: 0 without
        a bias; with one, those that round the biases to about 2**4, 2**8
        and 2**12 units, at most R (``box``, a Fraction, or None)."""
        if self.biases is None:
            return [0]
        if self._largest_bias is None:
            self._largest_bias = max(map(abs, self.biases))
        largest = self._largest_bias
        top = largest.bit_length() - self.shift
        found = [top - bits for bits in _BIAS_BITS] if largest else [0]
        if box is not None:
            most = _floor_log2(box)
            found = sorted({min(e, most) for e in found}, reverse=True)
        return found

    def won(self, i, order, signs, scales=(0,)):
        """(support, signs, e) of the first candidate that makes class i the
        strict maximum, exactly, among the supports of the first 4, 8, ...,
        MOST_TERMS coordinates of ``order`` (with their ``signs``) at each
        scale 2**e of ``scales``; None if none does."""
        total, size, terms = (0, 0), 0, _FIRST_TERMS
        limit = min(MOST_TERMS, len(order))
        while True:
            terms = min(terms, limit)
            total = self._added(total, order[size:terms], signs[size:terms])
            size = terms
            for e in scales:
                # None: the scale is not tried (too many biases past the limit).
                if self._beaten(i, order[:size], signs[:size], e, total, 1) == []:
                    return list(order[:size]), list(signs[:size]), e
            if size == limit:
                return None
            terms *= 2

    def beaten_by(self, i, support, signs, e, wanted):
        """Up to ``wanted`` classes j != i whose logit at the candidate is at
        least class i's, exactly; [] proves that it makes i the strict maximum."""
        found = self._beaten(i, support, signs, e, self._added((0, 0), support, signs), wanted)
        if found is None:
            # The biases are not packed at this scale: every row is compared.
            p, q = (1 << e, 1) if e >= 0 else (1, 1 << -e)
            own = self.logit(i, support, signs, p, q)
            found = [j for j in range(self.class_count)
                     if j != i and self.logit(j, support, signs, p, q) >= own][:wanted]
        return found

    def _added(self, total, support, signs):
        """The signed sums of the even rows' and the odd rows' fields,
        ``total``, with those of the columns ``support`` added (sign +1) or
        subtracted (-1)."""
        even, odd = total
        for k, sign in zip(support, signs):
            column = self.columns[k]
            evens, odds = column if type(column) is tuple else self._halves(column)
            if sign > 0:
                even, odd = even + evens, odd + odds
            else:
                even, odd = even - evens, odd - odds
        return even, odd

    def _halves(self, column):
        """The even rows' and the odd rows' 16-bit fields of a column of a byte a row."""
        return column & self._low_bytes, column >> 8 & self._low_bytes

    def _beaten(self, i, support, signs, e, total, wanted):
        """beaten_by with the signed sums of the support's columns, ``total``
        (the even rows' and the odd rows', _added); None where the scale
        cannot be tried (too many biases past the limit)."""
        p, q = (1 << e, 1) if e >= 0 else (1, 1 << -e)
        own = self.logit(i, support, signs, p, q)
        unit = p << self.shift
        has_bias = self.biases is not None
        # Each rounded entry is within 1 unit, a rounded bias within 1 / 2:
        # row j cannot reach ``own`` where R_j + beta_j < own / unit - k - 1 / 2
        # (- k without a bias); tau is the least integer at least that.
        slack = 2 * len(support) + has_bias
        target = -((slack * unit - 2 * own) // (2 * unit))
        reach = _LEVEL * len(support) + (_BIAS_LIMIT if has_bias else 0)
        suspects = []
        if has_bias:
            column = self._bias_column(e)
            if column is None:
                return None
            column, suspects = column
        if target <= reach:
            target = max(target, -reach - 1)
            lift = _HALF - target - _OFFSET * sum(signs) - (_BIAS_LIMIT if has_bias else 0)
            lifted = [t + lift * ones for t, ones in zip(total, self.ones)]
            if has_bias:
                lifted = list(map(operator.add, lifted, column))
            flags = [v & top for v, top in zip(lifted, self.tops)]
            # Class i's own flag, in the fields of its parity, does not count.
            flags[i & 1] &= ~(1 << (16 * (i >> 1) + 15))
            if any(flags):
                high = set(suspects)
                suspects = itertools.chain(suspects, (j for j in self._flagged(flags, lifted, i)
                                                      if j not in high))
        found = []
        for j in suspects:
            if j != i and self.logit(j, support, signs, p, q) >= own:
                found.append(j)
                if len(found) == wanted:
                    break
        return found

    def _flagged(self, flags, lifted, i):
        """The rows whose field's top bit is set, class i's excepted, as
        they are asked for: the first _IN_ORDER in index order (a rival
        that beats the candidate usually comes among them), the rest
        largest rounded logit first.  ``flags`` and ``lifted`` are the even
        rows' and the odd rows'."""
        found = heapq.merge(*map(_rows_flagged, flags, self.counts, (0, 1)))
        others = (j for j in found if j != i)
        yield from itertools.islice(others, _IN_ORDER)
        rest = list(others)
        if rest:
            values = [v.to_bytes(2 * n, "little") for v, n in zip(lifted, self.counts)]
            rest.sort(key=lambda j: -int.from_bytes(values[j & 1][2 * (j >> 1):2 * (j >> 1) + 2],
                                                    "little"))
            yield from rest

    def _bias_column(self, e):
        """(the biases rounded to beta_j = round(b_j / 2**(e + shift)) +
        _BIAS_LIMIT, packed, with the rows past the limit set to 0, those
        rows) for the scale 2**e, made when first asked for; None where
        more than _TOO_HIGH rows are past the limit above."""
        if e not in self._bias_columns:
            shift = e + self.shift
            values, high = [], []
            for j, b in enumerate(self.biases):
                beta = ((b >> (shift - 1)) + 1) >> 1 if shift > 0 else b << -shift
                if beta > _BIAS_LIMIT:
                    high.append(j)
                    beta = -_BIAS_LIMIT
                values.append(max(beta, -_BIAS_LIMIT) + _BIAS_LIMIT)
            packed = None
            if len(high) <= _TOO_HIGH:
                packed = ([int.from_bytes(b"".join(v.to_bytes(2, "little") for v in part), "little")
                           for part in (values[0::2], values[1::2])], high)
            self._bias_columns[e] = packed
        return self._bias_columns[e]

    def logit(self, j, support, signs, p, q):
        """p sum_{k in support} s_k w_jk + q b_j, exactly."""
        part = getattr(self.rows, "part", None)
        values = part(j, support) if part is not None else [self.rows[j][k] for k in support]
        value = p * sum(map(operator.mul, values, signs))
        return value + q * self.biases[j] if self.biases is not None else value

    def candidate(self, support, signs, e):
        """(the integer candidate X, q): the point x = X / q = 2**e s."""
        p, q = (1 << e, 1) if e >= 0 else (1, 1 << -e)
        x = [0] * self.dim
        for k, sign in zip(support, signs):
            x[k] = p * sign
        return x, q


def _rows_flagged(flags, count, parity):
    """The rows, in order, whose field's top bit is set in ``flags``, the
    ``count`` fields of the even (``parity`` 0) or the odd rows (1).

    >>> list(_rows_flagged(1 << 15 | 1 << 47, 3, 1))
    [1, 5]
    """
    return (2 * n + parity for n in _positions(flags.to_bytes(2 * count, "little")[1::2], 0x80))


def _floor_log2(value):
    """The largest e with 2**e <= value, a positive Fraction.

    >>> _floor_log2(Fraction(100)), _floor_log2(Fraction(1, 3)), _floor_log2(Fraction(4))
    (6, -2, 2)
    """
    e = value.numerator.bit_length() - value.denominator.bit_length()
    while Fraction(2) ** e > value:
        e -= 1
    while Fraction(2) ** (e + 1) <= value:
        e += 1
    return e
