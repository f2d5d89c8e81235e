"""A softmax layer's numbers, validated and made exact.

Every function raises InputError (a ValueError) naming the offending entry,
or TypeError for an argument of the wrong type.

    exact_layer         weights and bias as Fractions
    integer_layer       weights and bias as integers times one common denominator
    FloatRows           a large float layer's rows, read as those integers
    check_spread        InputError past the limit on layers of widely spread numbers
    extremes            the smallest nonzero and the largest magnitude of integer rows
    validated           the entries as finite floats, ints, Decimals or Fractions
    sequence            a list of the values, or InputError
    finite              one finite float or Fraction
    certificate_number  one number of a certificate, as a Fraction
    class_index         a class number of a layer
    asked_classes       the classes asked of a layer, in increasing order
"""

import array
import collections.abc
import decimal
import hashlib
import itertools
import math
import numbers
import operator
import sys
from fractions import Fraction

from reviews.argmax.kernels.bfloat16 import (_LOW_SEVEN, _SELECTED, BFloat16Rows, _positions,
                                             rounded_codes)
from reviews.errors import InputError
from reviews.exact import MAX_BITS, common_denominator, real_number
from reviews.shown import shown_value

__all__ = ["FLOAT_SPREAD_BITS", "MAX_SPREAD_LAYER_BITS", "FLOAT_ROWS_ENTRIES", "exact_layer",
           "integer_layer", "FloatRows",
           "check_spread", "extremes", "validated", "sequence", "finite",
           "certificate_number", "class_index", "asked_classes"]


# The magnitudes of a float layer span at most 2,098 bits (2**-1074 to
# 2**1024).  Past that, the checker's linear programs need numbers of about
# as many digits as the span, and its work grows with the span times the
# layer's size, far faster than the size of the file (a few bytes say
# 1e-2466): so such a layer may have at most MAX_SPREAD_LAYER_BITS in all,
# its number of entries times its span.
FLOAT_SPREAD_BITS = 2100
MAX_SPREAD_LAYER_BITS = 2 ** 20
# A float layer of at least this many entries keeps its floats, its rows
# made integers when read (FloatRows): as Python integers a GPT-2-sized
# head (50,257 x 768) took about 1.7 GB, as floats in arrays 309 MB.
# Below, integers are kept: each read makes a row again, which took 11%
# more time on a 8000 x 256 layer (whose integers take about 90 MB).
FLOAT_ROWS_ENTRIES = 2 ** 24
# Arrays of floats share their denominators through their distinct values
# while there are at most this many (a 16-bit float head has at most 65,536).
_FEW_DISTINCT = 2 ** 17


def exact_layer(weights, bias=None):
    """Validate a layer; its weights and bias as Fractions.

    >>> exact_layer([[0.5, 1]], [Fraction(9, 10)])
    ([[Fraction(1, 2), Fraction(1, 1)]], [Fraction(9, 10)])
    """
    rows, biases = validated(weights, bias)
    return ([[Fraction(v) for v in row] for row in rows],
            None if biases is None else [Fraction(v) for v in biases])


def validated(weights, bias):
    """The layer's entries, each a finite float, an int, a Decimal or a
    Fraction, all within the size limit; InputError naming a bad one, its
    ``input`` "weights" or "bias"."""
    try:
        rows = _weights(weights)
    except InputError as error:
        raise InputError(str(error), input="weights") from None
    if bias is None:
        return rows, None
    try:
        return rows, _bias(bias, len(rows))
    except InputError as error:
        raise InputError(str(error), input="bias") from None


def _weights(weights):
    if type(weights) is BFloat16Rows:
        # Each row is made when read: a list of them all would double the layer.
        return weights.checked()
    rows = _rows(weights)
    width = len(rows[0])
    values = []
    for j, row in enumerate(rows):
        if len(row) != width:
            raise InputError("weights row %d has length %d, row 0 has length %d"
                             % (j, len(row), width))
        # A row of floats with a finite sum is taken as it is (an infinity
        # or a NaN would make the sum one), and so is a row of ints and
        # Decimals plainly within the size limit (number text as read: a
        # Fraction of each took 8 of the 16 s of an 8 MiB CSV of zeros);
        # everything else goes through the full check, entry by entry.
        if _is_float_array(row) and _all_finite(row):
            # An array of floats holds floats only: only its sum is read.
            values.append(row)
            continue
        kinds = set(map(type, row))
        if kinds == _FLOAT and math.isfinite(sum(row)):
            values.append(row)
        elif kinds <= _PLAIN and _all_plain(row):
            values.append(row)
        else:
            values.append([finite(v, "weights[%d][%d]" % (j, k)) for k, v in enumerate(row)])
    return values


def _bias(bias, classes):
    bias = sequence(bias, "bias")
    if len(bias) != classes:
        raise InputError("bias has length %d for %d classes" % (len(bias), classes))
    return [finite(v, "bias[%d]" % j) for j, v in enumerate(bias)]


def integer_layer(weights, bias):
    """(integer rows, integer biases or None, d): the layer times d, its least common denominator.

    Goes from each entry's integer ratio to the integers without a Fraction
    per entry: a float layer has few distinct denominators (powers of 2).
    The rows of a float layer of FLOAT_ROWS_ENTRIES entries or more are a
    FloatRows, the integers made when a row is read.

    >>> integer_layer([[0.5, 1]], [Fraction(9, 10)])
    ([[5, 10]], [9], 10)
    """
    rows, biases = validated(weights, bias)
    float_extremes = _large_float32_extremes(rows)
    denominators = (_large_float32_denominators(rows, biases, float_extremes[0])
                    if float_extremes else _denominators(rows, biases))
    common = common_denominator(Fraction(1, q) for q in denominators)
    factors = {q: common // q for q in denominators}
    # A float times a power of 2 is exact while it stays finite, and v * common
    # is an integer for every entry v: so a row of floats is scaled in floats.
    power = float(common) if common.bit_length() < 1000 and not common & (common - 1) else None

    def scaled(values):
        if power is not None and set(map(type, values)) == _FLOAT:
            try:
                return list(map(int, map(power.__mul__, values)))
            except OverflowError:
                pass
        return [n * factors[q] for n, q in map(_ratio, values)]

    biases = None if biases is None else scaled(biases)
    if power is not None and _kept_as_floats(rows, power, float_extremes):
        return FloatRows(rows, power, float_extremes=float_extremes and [
            tuple(int(v * power) for v in float_extremes)]), biases, common
    return [scaled(row) for row in rows], biases, common


def _denominators(rows, biases):
    """The set of the entries' denominators, each distinct value's once
    where the rows are arrays of floats with few distinct values.

    >>> sorted(_denominators([array.array("f", [0.5, 0.25]), array.array("f", [0.5, 3])], [0.125]))
    [1, 2, 4, 8]
    """
    values = _distinct_floats(rows)
    if values is None:
        values = itertools.chain.from_iterable(rows)
    return set(map(_second, map(_ratio, itertools.chain(values, biases or ()))))


def _large_float32_extremes(rows):
    """(the smallest nonzero magnitude, the largest) of a layer of
    FLOAT_ROWS_ENTRIES entries or more in arrays of float32 or in
    BFloat16Rows, read off their bytes; None for any other layer."""
    if len(rows) * len(rows[0]) < FLOAT_ROWS_ENTRIES:
        return None
    if type(rows) is BFloat16Rows:
        return rows.extremes()
    if sys.byteorder != "little" or not all(
            type(row) is array.array and row.typecode == "f" for row in rows):
        return None
    return _joined_all(map(_float_row_extremes, rows))


def _large_float32_denominators(rows, biases, smallest):
    """The set of one common denominator of rows of float32 whose smallest
    nonzero magnitude is ``smallest``, and each bias's, read off their
    bytes (about 10 times faster than a ratio or a set member per value on
    a head of Llama-3's shape).

    The denominator is a power of 2 large enough for every row, not always
    the least: a float32 of biased exponent E >= 1 is M * 2**(E - 150), M an
    integer of 24 bits whose bits below its lowest set one are zero (a
    subnormal is M * 2**-149); E is at least the smallest magnitude's, and
    the lowest byte of the mantissas with a set bit bounds M's zeros.

    >>> rows = [array.array("f", [0.5, -0.25, 0.0, 3.0])]
    >>> sorted(_large_float32_denominators(rows, [0.125], 0.25))
    [8, 512]
    """
    # A bfloat16 is a float32 of two zero low bytes: its mantissa's 7 bits the top 7.
    bits = ((7 if rows.uses_low_bits() else 0) if type(rows) is BFloat16Rows
            else _mantissa_bits(rows))
    # smallest is in [2**(e - 1), 2**e): its biased exponent is e + 126.
    exponent = max(0, 1 - math.frexp(smallest)[1] + bits) if smallest else 0
    return {1 << exponent} | set(map(_second, map(_ratio, biases or ())))


def _mantissa_bits(rows):
    """23, 15, 7 or 0: the float32 mantissa's bits that rows of float32
    may have set below the leading one, by the lowest byte of them with a
    set bit in some value."""
    bits = 0
    for row in rows:
        if bits == 23:
            break
        data, count = row.tobytes(), len(row)
        bits = max(bits, 23 if data[0::4].count(0) != count else
                   15 if data[1::4].count(0) != count else
                   7 if data[2::4].translate(_LOW_SEVEN).count(0) != count else 0)
    return bits


def _is_float_array(row):
    return type(row) is array.array and row.typecode in _FLOAT_CODES


def _all_finite(row):
    """Whether an array of floats holds no infinity or NaN: for float32,
    whether no value has the top exponent's 7 high bits (most rows none),
    else whether its sum is finite (a sum of finite floats may overflow:
    then each value is asked).

    >>> _all_finite(array.array("f", [1.0, 2.5])), _all_finite(array.array("f", [1.0, math.inf]))
    (True, False)
    >>> _all_finite(array.array("d", [1e308, 1e308]))
    True
    """
    if row.typecode == "f" and sys.byteorder == "little":
        tops = row.tobytes()[3::4].translate(_LOW_SEVEN)
        return all(map(math.isfinite, (row[n] for n in _positions(tops, 0x7F))))
    return math.isfinite(sum(row)) or all(map(math.isfinite, row))


def _distinct_floats(rows):
    """The set of the values of rows that are all arrays of floats, if at
    most _FEW_DISTINCT; else None.  (A float's hash is its value modulo
    2**61 - 1: a float m * 2**e, m odd, has one m for each e that gives a
    hash, so at most a few thousand floats share one, and no crafted layer
    makes the set slow.)"""
    distinct = set()
    for row in rows:
        if type(row) is not array.array or row.typecode not in _FLOAT_CODES:
            return None
        distinct.update(row)
        if len(distinct) > _FEW_DISTINCT:
            return None
    return distinct


def _kept_as_floats(rows, power, float_extremes=None):
    """Whether a layer's rows are large, all floats, and finite times
    ``power`` (their extremes ``float_extremes``, if found)."""
    if len(rows) * len(rows[0]) < FLOAT_ROWS_ENTRIES:
        return False
    if float_extremes is not None:
        return math.isfinite(float_extremes[1] * power)
    if any(not _is_float_array(row) and set(map(type, row)) != _FLOAT for row in rows):
        return False
    return math.isfinite(max(max(max(row), -min(row)) for row in rows) * power)


class FloatRows(collections.abc.Sequence):
    """Rows of floats read as the integers v * ``power`` (a power of 2, so
    exact while finite), each row made when read, with the integers of
    ``column`` (one per row) appended if given: a bias column.

    The rows are the caller's, not copied (a copy of GPT-2's head would
    take hundreds of megabytes): each row's SHA-256 is taken first, and a
    row read again with other numbers is refused (InputError), so that no
    certificate mixes two layers.  BFloat16Rows cannot change: they are
    read as they are, and what is asked of all of them read off their
    patterns.

    >>> rows = FloatRows([[0.5, -1.25], [3.0, 0.0]], 4.0)
    >>> rows[0], list(rows), len(rows)
    ([2, -5], [[2, -5], [12, 0]], 2)
    >>> rows.with_column([7, 8])[1], rows.select([1])[0]
    ([12, 0, 8], [12, 0])
    """

    __slots__ = ("floats", "power", "column", "digests", "_float_extremes")

    def __init__(self, floats, power, column=None, digests=None, float_extremes=None):
        self.floats, self.power, self.column = floats, power, column
        if type(floats) is BFloat16Rows:
            digests = None
        elif digests is None:
            digests = list(map(_digest, floats))
        self.digests = digests
        # Shared by the copies with a column: the weights' extremes, once found.
        self._float_extremes = [None] if float_extremes is None else float_extremes

    def __len__(self):
        return len(self.floats)

    def __getitem__(self, j):
        if isinstance(j, slice):
            return [self[k] for k in range(*j.indices(len(self)))]
        floats = self._stored(j)
        row = list(map(int, map(self.power.__mul__, floats)))
        if self.column is not None:
            row.append(self.column[j])
        return row

    def __reduce__(self):
        return FloatRows, (self.floats, self.power, self.column, self.digests)

    def _stored(self, j):
        """Row j's floats, refused if they are not those first hashed."""
        floats = self.floats[j]
        if self.digests is not None and _digest(floats) != self.digests[j]:
            raise InputError("a weights row changed while the layer was checked")
        return floats

    def rounded_rows(self, start, stop, shift, offset):
        """bytes(r + offset for each entry) of rows ``start`` to ``stop`` -
        1, one after another: r within 1 of w / 2**shift for each of their
        integers w, and r + offset in range(256).  Where the rows hold
        bfloat16 values (BFloat16Rows, or arrays of float32 of such values),
        reviews.argmax.kernels.bfloat16.rounded_codes reads them all at once
        off their patterns; else each is int(w / 2**shift), towards 0.

        >>> FloatRows([[0.5, -1.25, 3.0]], 4.0).rounded_rows(0, 1, 2, 128)
        b'\\x80\\x7f\\x83'
        """
        factor = math.ldexp(self.power, -shift)
        if type(self.floats) is BFloat16Rows:
            codes = self.floats.block_codes(start, stop)
        else:
            codes = []
            for j in range(start, stop):
                codes.append(_bfloat16_codes(self._stored(j)))
                if codes[-1] is None:
                    break
            codes = None if None in codes else b"".join(codes)
        rounded = None if codes is None else rounded_codes(codes, factor, offset)
        if rounded is not None:
            return rounded
        return b"".join(bytes(map(offset.__add__, map(int, map(factor.__mul__, self._stored(j)))))
                        for j in range(start, stop))

    def row_keys(self):
        """A key for each row, equal for equal rows: its floats as stored,
        with its column's integer (v * power is exact, so equal integers are
        equal floats, 0.0 and -0.0 alike), made without the integers: an
        array of floats without a zero by its bytes, any other row by its
        floats.

        >>> keys = list(FloatRows([[0.5, -0.0], [0.5, 0.0], [0.5, 1.0]], 4.0).row_keys())
        >>> keys[0] == keys[1] != keys[2], hash(keys[0]) == hash(keys[1])
        (True, True)
        >>> keys = list(FloatRows([array.array("f", [0.5, 2.0])] * 2, 4.0).row_keys())
        >>> keys[0] == keys[1], type(keys[0])
        (True, <class 'tuple'>)
        """
        if type(self.floats) is BFloat16Rows:
            rows = self.floats.row_keys()
        else:
            rows = map(_row_key, map(self._stored, range(len(self.floats))))
        if self.column is None:
            return rows
        return ((key, b) for key, b in zip(rows, self.column))

    def part(self, j, coordinates):
        """Row j's integers at ``coordinates`` alone (the column's is the
        last, len(row) - 1): a screen of a few hundred of a head's 4,096
        coordinates need not make the rest.

        >>> FloatRows([[0.5, -1.25]], 4.0).with_column([7]).part(0, [2, 1])
        [7, -5]
        """
        floats = self._stored(j)
        width, power = len(floats), self.power
        return [int(power * floats[k]) if k < width else self.column[j] for k in coordinates]

    def scaled(self, j, shift):
        """Row j's integers divided by 2**shift, as floats (rounded where
        they must be): for proposals, not for checks.

        >>> FloatRows([[0.5, -1.25]], 4.0).scaled(0, 1)
        [1.0, -2.5]
        """
        return list(map(math.ldexp(self.power, -shift).__mul__, self._stored(j)))

    def with_column(self, column):
        """These rows with ``column`` (integers, one per row) appended."""
        return FloatRows(self.floats, self.power, column, self.digests, self._float_extremes)

    def extremes(self):
        """extremes(self), read off the floats: a row made of integers costs
        several times more than its magnitudes, and a large head's
        preparation asked for them twice.

        >>> FloatRows([[0.5, -1.25], [0.0, 0.0]], 4.0).with_column([0, -9]).extremes()
        (2, 9)
        """
        if self._float_extremes[0] is None:
            found = (self.floats.extremes() if type(self.floats) is BFloat16Rows else
                     _joined_all(map(_float_row_extremes,
                                     map(self._stored, range(len(self.floats))))))
            # Each entry times the power is an integer, exactly.
            self._float_extremes[0] = tuple(int(v * self.power) for v in found)
        found = self._float_extremes[0]
        if self.column is None:
            return found
        return _joined(found, extremes([self.column]))

    def select(self, indices):
        """The rows ``indices``, in that order, still read when asked for."""
        column = None if self.column is None else [self.column[j] for j in indices]
        if self.digests is None:
            return FloatRows(self.floats.select(indices), self.power, column)
        return FloatRows([self.floats[j] for j in indices], self.power, column,
                         [self.digests[j] for j in indices])


def _row_key(row):
    """A row of floats's key for grouping equal rows: (type code, bytes)
    for an array of floats without a zero (whose -0.0 and 0.0 would differ
    in bytes), else the tuple of its floats."""
    if _is_float_array(row) and not _has_zero(row):
        return (row.typecode, row.tobytes())
    return tuple(row)


def _has_zero(row):
    """Whether an array of floats holds 0.0 or -0.0: for float32, none
    where no value's top byte is 0 or 0x80 (a count of bytes, where
    row.count(0.0) makes a float of every value)."""
    if row.typecode == "f" and sys.byteorder == "little":
        data = row.tobytes()
        if not data[3::4].translate(_LOW_SEVEN).count(0):
            return False
    return bool(row.count(0.0))


def _bfloat16_codes(row):
    """The 16-bit patterns of an array of float32 whose low two bytes are
    all 0 (bfloat16 widened), as bytes, two a value; None for another row."""
    if type(row) is not array.array or row.typecode != "f" or sys.byteorder != "little":
        return None
    data = row.tobytes()
    count = len(row)
    if data[0::4].count(0) != count or data[1::4].count(0) != count:
        return None
    codes = bytearray(2 * count)
    codes[0::2] = data[2::4]
    codes[1::2] = data[3::4]
    return bytes(codes)


def _float_row_extremes(row):
    """(the smallest nonzero magnitude, the largest) of a row of floats.

    An array of float32 is read off its bytes where it can be: a
    magnitude's order is its bytes' order, so both extremes are among the
    values of the least (greatest) top byte a nonzero value has (found by
    searching the bytes for each value in turn), and among those of the
    least (greatest) next byte; any other row, or one where many values
    tie there, has every magnitude read.

    >>> _float_row_extremes(array.array("f", [0.5, -0.25, 0.0, 3.0, -0.375]))
    (0.25, 3.0)
    >>> _float_row_extremes([0.0, -2.0]), _float_row_extremes([0.0])
    ((2.0, 2.0), (0, 0))
    """
    if type(row) is array.array and row.typecode == "f" and sys.byteorder == "little":
        data = row.tobytes()
        tops = data[3::4].translate(_LOW_SEVEN)
        zeros = tops.count(0)
        if zeros == len(row):
            if not any(row):
                return 0, 0
        elif zeros <= _FEW_AT_LEAST and not any(row[n] for n in _positions(tops, 0)):
            seconds = data[2::4]
            found = [_extreme_at(row, tops, seconds, ends) for ends in
                     (range(1, 128), range(127, 0, -1))]
            if None not in found:
                return tuple(found)
    magnitudes = list(filter(None, map(abs, row)))
    return (min(magnitudes), max(magnitudes)) if magnitudes else (0, 0)


def _extreme_at(row, tops, seconds, order):
    """The least (``order`` increasing) or greatest magnitude of a row of
    float32 whose top bytes' low 7 bits are ``tops`` (none 0) and second
    bytes ``seconds``; None where too many values share both bytes."""
    top = next(v for v in order if v in tops)
    if tops.count(top) <= _FEW_AT_LEAST:
        at = list(_positions(tops, top))
    else:
        # The second bytes of these values, the others' made 255 (for the
        # least) or 0 (for the greatest), which the search then skips.
        least = order.step > 0
        mask = int.from_bytes(tops.translate(_SELECTED[top]), "little")
        seconds_int = int.from_bytes(seconds, "little")
        among = ((seconds_int | (mask ^ int.from_bytes(b"\xff" * len(tops), "little"))) if least
                 else (seconds_int & mask)).to_bytes(len(seconds), "little")
        second = next(v for v in (range(256) if least else range(255, -1, -1)) if v in among)
        at = [n for n in _positions(among, second) if tops[n] == top]
        if len(at) > _FEW_AT_LEAST:
            return None
    magnitudes = [abs(row[n]) for n in at]
    return min(magnitudes) if order.step > 0 else max(magnitudes)


# Values that share the least exponent byte of a row, read one by one at most.
_FEW_AT_LEAST = 64


def _joined_all(found):
    """The extremes of many sets of rows, from the extremes of each."""
    smallest = largest = 0
    for low, high in found:
        largest = max(largest, high)
        if low:
            smallest = min(smallest, low) if smallest else low
    return smallest, largest


def _digest(row):
    """The SHA-256 of a row of floats: an array of floats as it is stored
    (its type code first), anything else as doubles.

    A float32 row is not widened first: that took 8 times the hash itself
    (50 us for 768 values), on every read of every row of a read model.
    """
    if not (isinstance(row, array.array) and row.typecode in _FLOAT_CODES):
        row = array.array("d", row)
    digest = hashlib.sha256(row.typecode.encode())
    digest.update(row)
    return digest.digest()


_FLOAT = {float}
_PLAIN = {int, decimal.Decimal}
# Digits and exponent of a Decimal plainly within the size limit: below
# 10**19000 < 2**63117 both ways.
_PLAIN_DIGITS = 19000


def _all_plain(row):
    """Whether every int or Decimal of ``row`` is plainly within the size
    limit, each distinct value tested once (a row of text's 0s is one)."""
    try:
        distinct = set(row)
    except TypeError:   # a signalling NaN cannot be hashed: the full check names it
        return False
    return all(map(_plain, distinct))


def _plain(value):
    """Whether an int or a Decimal is finite and plainly within the size limit."""
    if type(value) is int:
        return value.bit_length() <= MAX_BITS
    if not value.is_finite():
        return False
    _, digits, exponent = value.as_tuple()
    return len(digits) + abs(exponent) <= _PLAIN_DIGITS
_FLOAT_CODES = ("f", "d")
_ratio = operator.methodcaller("as_integer_ratio")
_second = operator.itemgetter(1)


def check_spread(rows, biases, denominator, question=None):
    """InputError if an integer layer (from integer_layer) is past the spread
    limit for ``question`` (a reviews.argmax.question.Question; None: all of
    R^d at tolerance 0).

    The limit counts the rows given (a caller passes one row per distinct
    class: repeated rows cost no work).  A layer spanning at most
    FLOAT_SPREAD_BITS has no limit, whatever its box: floats decide it.  A
    wider one with a box R (a Fraction) and a bias compares w . x, with
    |x_k| <= R, to b: there the weights count times R.  A tolerance T > 0
    (a Fraction) above the layer's largest magnitude counts beside them,
    float layer or not: classes whose region holds no ball of radius T are
    decided by a linear program with T |w_i - w_j| in it, numbers as long
    as T is.  So do the inputs' finite ends other than 0 (their exact
    values are added to every bias when the question is moved to a box or
    the orthant: reviews.argmax.domain), small or large.

    >>> check_spread([[10 ** 1000, 0]] * 300 + [[0, 1]], None, 10 ** 1000)
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: the layer's 602 numbers span 3,321 bits (magnitudes about 1e-1000 to 1); a layer spanning more than 2,100 bits may have at most 1,048,576 in all (numbers times span): this one has 1,999,242, and its exact check would take minutes
    >>> check_spread([[10 ** 600, 0]] * 300 + [[0, 1]], None, 10 ** 600) is None
    True
    >>> from reviews.argmax.question import Question
    >>> check_spread([[1, 2]] * 300, [3] * 300, 1, Question(tolerance=10 ** 1000))
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: the layer's 900 numbers span 3,321 bits with the tolerance (magnitudes about 1 to 1e1000); a layer spanning more than 2,100 bits may have at most 1,048,576 in all (numbers times span): this one has 2,988,900, and its exact check would take minutes
    """
    box, tolerance, inputs = (None, 0, None) if question is None else question
    ends = [abs(end) for end in inputs or () if end]
    # Rows are read once each and not kept: a large float layer's are made when read.
    count = len(rows) * len(rows[0]) + (0 if biases is None else len(biases))
    magnitudes = extremes(rows)
    if biases is not None:
        magnitudes = _joined(magnitudes, extremes([biases]))
    (smallest, largest), scale = _beside(magnitudes, denominator, tolerance, ends)
    if largest.bit_length() - smallest.bit_length() <= FLOAT_SPREAD_BITS:
        return
    boxed = box is not None and biases is not None
    if boxed:
        layer = [[v * box.numerator for v in row] for row in rows]
        layer.append([v * box.denominator for v in biases])
        (smallest, largest), scale = _beside(extremes(layer), denominator * box.denominator,
                                             tolerance, ends)
    spread = largest.bit_length() - smallest.bit_length()
    if count * spread > MAX_SPREAD_LAYER_BITS:
        raise InputError(
            "the layer's %s numbers span %s bits%s (magnitudes about %s to %s); a layer spanning"
            " more than %s bits may have at most %s in all (numbers times span): this one has %s,"
            " and its exact check would take minutes"
            % (format(count, ","), format(spread, ","),
               _counted(boxed, tolerance, ends), _order(smallest, scale),
               _order(largest, scale),
               format(FLOAT_SPREAD_BITS, ","), format(MAX_SPREAD_LAYER_BITS, ","),
               format(count * spread, ",")), input="layer")


def _beside(magnitudes, denominator, tolerance, ends=()):
    """((smallest, largest), denominator): the extremes ``magnitudes`` of
    integer values over ``denominator``, with the inputs' ``ends``
    (positive Fractions) beside them, and the tolerance T if it is above
    every magnitude (a smaller T is cleared by the witnesses of T = 0, or
    decided at the layer's own scale), all over one denominator."""
    smallest, largest = magnitudes
    if tolerance and tolerance.numerator * denominator > largest * tolerance.denominator:
        ends = list(ends) + [tolerance]
    for value in ends:
        q = value.denominator
        beside = value.numerator * denominator
        smallest = min(smallest * q, beside) if smallest else beside
        largest, denominator = max(largest * q, beside), denominator * q
    return (smallest, largest), denominator


def _counted(boxed, tolerance, ends=()):
    """What the spread counts beside the layer's own numbers, as the message says it."""
    counted = (["its weights times the box bound"] if boxed else []) + (
        ["the inputs' ends"] if ends else []) + (["the tolerance"] if tolerance else [])
    if not counted:
        return ""
    return " with " + (counted[0] if len(counted) == 1
                       else ", ".join(counted[:-1]) + ", and " + counted[-1])


def extremes(rows):
    """(the smallest nonzero magnitude, the largest) in rows of numbers; both 0 if all are 0.

    The rows are read once, one at a time (a FloatRows's off its floats).

    >>> extremes([[0, -12], [3, 5]]), extremes(iter([[0], [0]]))
    ((3, 12), (0, 0))
    """
    if isinstance(rows, FloatRows):
        return rows.extremes()
    smallest = largest = 0
    for row in rows:
        magnitudes = list(filter(None, map(abs, row)))
        if magnitudes:
            low, high = min(magnitudes), max(magnitudes)
            largest = max(largest, high)
            smallest = min(smallest, low) if smallest else low
    return smallest, largest


def _joined(one, other):
    """The extremes of two sets of rows, from the extremes of each."""
    smallest = min(filter(None, (one[0], other[0])), default=0)
    return smallest, max(one[1], other[1])


def _order(n, denominator):
    """n / denominator as a power of ten, roughly: '1e-1000'."""
    exponent = round((n.bit_length() - denominator.bit_length()) * math.log10(2))
    return "1e%d" % exponent if exponent else "1"


def sequence(values, what):
    """``values`` as a list; TypeError for text, a set or a mapping (whose
    order is their hashes' or keys', not the classes'), or a non-sequence,
    naming ``what``.

    >>> sequence({2: 0.5}, "bias")
    Traceback (most recent call last):
      ...
    TypeError: bias must be an ordered sequence of numbers, not dict (its keys would be read)
    """
    if isinstance(values, (str, bytes)):
        raise TypeError("%s must be a sequence of numbers, not text" % what)
    if isinstance(values, (collections.abc.Set, collections.abc.Mapping)):
        raise TypeError("%s must be an ordered sequence of numbers, not %s (%s)" % (
            what, type(values).__name__, "unordered" if isinstance(values, collections.abc.Set)
            else "its keys would be read"))
    try:
        return list(values)
    except TypeError:
        raise TypeError("%s must be a sequence of numbers, not %s"
                        % (what, type(values).__name__)) from None


def _rows(weights):
    # A list, or an array of floats, is read as it is, not copied: for a
    # large head a copy would take hundreds of megabytes (and a list made
    # of an array four times the array's memory).
    rows = [row if type(row) is list or (isinstance(row, array.array)
                                         and row.typecode in _FLOAT_CODES)
            else sequence(row, "weights row %d" % j)
            for j, row in enumerate(sequence(weights, "weights"))]
    if not rows:
        raise InputError("the layer has no classes (weights is empty)")
    if not rows[0]:
        raise InputError("weights row 0 is empty: the dimension d must be at least 1")
    return rows


def finite(value, where, what="weights and biases"):
    """A finite float or an exact Fraction, or InputError."""
    exact = real_number(value, where)
    if isinstance(exact, float) and math.isinf(exact):
        raise InputError("%s is %r; %s must be finite" % (where, exact, what))
    return exact


def certificate_number(value, where, what):
    """A certificate's number as a Fraction.

    An int or Fraction is taken as it is, past the size limit too: an
    exact certificate of a layer near that limit may need more bits, and
    the object is already there (the limit guards against text such as
    Decimal('1e999999999') that is short but huge once materialized).
    """
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return Fraction(value)
    return Fraction(finite(value, where, what))


def class_index(value, classes, where):
    """``value`` as a class of a layer of ``classes`` classes, or TypeError / InputError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s must be an int, not %s" % (where, type(value).__name__))
    if not 0 <= value < classes:
        raise InputError("%s is %s, not a class of this layer (0 to %d)"
                         % (where, shown_value(value), classes - 1))
    return int(value)


def asked_classes(classes, count):
    """The classes asked of a layer of ``count`` classes: ``range(count)``
    for None (all), else the ids of the iterable ``classes`` in increasing
    order, each once; TypeError for a non-iterable or an id that is not an
    int, InputError for none at all or an id that is not a class.

    >>> asked_classes(None, 3), asked_classes([2, 0, 2], 3), asked_classes(range(2, 0, -1), 3)
    (range(0, 3), [0, 2], range(1, 3))
    >>> asked_classes([], 3)
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: classes asks for no class (None asks for all)
    """
    if classes is None:
        return range(count)
    if isinstance(classes, range) and classes:
        # Increasing and without repeats already: its ends say it all.
        ordered = classes if classes.step > 0 else classes[::-1]
        for end in (ordered[0], ordered[-1]):
            class_index(end, count, "classes' %s id" % ("first" if end == ordered[0] else "last"))
        return ordered
    if isinstance(classes, (str, bytes)):
        raise TypeError("classes must be class ids (ints), not text")
    try:
        ids = iter(classes)
    except TypeError:
        raise TypeError("classes must be an iterable of class ids (ints), not %s"
                        % type(classes).__name__) from None
    asked = set()
    for n, value in enumerate(ids):
        asked.add(class_index(value, count, "classes[%d]" % n))
    if not asked:
        raise InputError("classes asks for no class (None asks for all)")
    return sorted(asked)
