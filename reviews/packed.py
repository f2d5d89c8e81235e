"""All logits of a layer at a candidate input at once, exact in sign.

Checking a candidate x against all C classes one dot product at a time
costs C * d big-integer products.  Here the rows and the candidate are
rounded to a few bits (so that a logit fits in a 40-bit field) and the
rows packed, one field per class, into d big integers per block of
classes; a candidate's C rounded logits are then d small-by-big products
and a sum per block, with a rigorous bound on the rounding, and only the
classes whose rounded margin is within that bound are checked one by one
in exact integers.  Without a bias, blocks of rows too short to reach the
candidate's own logit are skipped (Cauchy-Schwarz).

    Packed      the packed rows; Packed.beaten_by(i, candidate, wanted)
    dot         the dot product of two sequences
"""

import heapq
import operator
import re

__all__ = ["Packed", "dot"]

_NONZERO = re.compile(b"[^\x00]")
# Rivals ordered beyond those wanted, for the caller's next round.
_LOOKAHEAD = 8
# Fields are the fewest bytes (at least _FIELD_BYTES) in which a rounded
# logit of entries rounded to at least _FEWEST_BITS bits fits: a product
# costs a pass over C fields, so narrow fields pay in many dimensions
# (3 bytes and 7 bits for d = 32 or 64; 4 bytes and 9 bits for d = 768).
# In few dimensions products are cheap and the exact checks of the
# suspects cost more: there entries keep _FEW_DIMENSION_BITS.
_FIELD_BYTES = 3
_FEWEST_BITS = 7
_FEW_DIMENSIONS = 16
_FEW_DIMENSION_BITS = 13
# Classes per block: few enough that skipping a block saves work, many
# enough that a product's cost dwarfs the interpreter's per block.
_BLOCK = 1024


def dot(a, b):
    """The dot product of two sequences of numbers.

    >>> dot([1, 2], [3, 4])
    11
    """
    return sum(map(operator.mul, a, b))


def _rounded(values, shift):
    """The integers divided by 2**shift, rounded to the nearest."""
    if not shift:
        return list(values)
    half = 1 << (shift - 1)
    return [(v + half) >> shift for v in values]


class Packed:
    """All C logits of a candidate at once, exact in sign.

    ``rows`` are integer rows (weights, then the bias if any); a candidate is
    an integer vector of the same length, and logits are rows . candidate.
    The rows are packed in order of decreasing distance from c, their mean
    rounded to integers: without a bias (``prune``), logits less c . x
    order the classes as logits do, and a row with |w_j - c| |x| <
    (w_i - c) . x cannot reach logit_i (Cauchy-Schwarz), so only the
    blocks holding rows farther from c are computed.

    >>> Packed([[3, 0], [0, 3], [2, 2]], prune=True).beaten_by(0, [1, 1], 2)
    [2, 1]
    """

    def __init__(self, rows, prune):
        self.rows = rows
        self.prune = prune
        width = len(rows[0])
        sums = [0] * width
        for row in rows:
            sums = list(map(operator.add, sums, row))
        self.centre = [v // len(rows) for v in sums] if prune else [0] * width
        norms = [sum((v - c) ** 2 for v, c in zip(row, self.centre)) for row in rows]
        self.order = sorted(range(len(rows)), key=lambda j: -norms[j])
        self.norms = [norms[j] for j in self.order]
        self.rank = {j: n for n, j in enumerate(self.order)}
        size = _FIELD_BYTES
        fewest = _FEWEST_BITS if width >= _FEW_DIMENSIONS else _FEW_DIMENSION_BITS
        while (8 * size - 3 - width.bit_length()) // 2 < fewest:
            size += 1
        self.field_bytes = size
        # Rounded entries and candidates get ``bits`` bits each: a rounded
        # margin plus its bound stays below half a field.
        self.bits = (8 * size - 3 - width.bit_length()) // 2
        largest = max(abs(v) for row in rows for v in row)
        self.shift = max(0, largest.bit_length() - self.bits)
        # The largest 1-norm of a row, for the bound on the candidate's rounding.
        self.row_size = max(sum(map(abs, row)) for row in rows)
        field = 8 * size
        self.half = 1 << (field - 1)
        # Fields hold rounded + offset >= 0, so that every field is its own.
        self.offset = self.half >> 1
        self.blocks = []
        for start in range(0, len(rows), _BLOCK):
            members = self.order[start:start + _BLOCK]
            packed_rows = [b"".join((v + self.offset).to_bytes(size, "little")
                                    for v in _rounded(rows[j], self.shift)) for j in members]
            columns = [int.from_bytes(b"".join(row[k * size:(k + 1) * size]
                                               for row in packed_rows), "little")
                       for k in range(width)]
            ones = int.from_bytes((b"\x01" + bytes(size - 1)) * len(members), "little")
            self.blocks.append((columns, ones, ones << (field - 1), len(members)))

    def beaten_by(self, i, candidate, wanted):
        """Up to ``wanted`` classes j != i with logit_j >= logit_i, exactly.

        An empty list proves that the candidate makes class i the strict
        maximum.  Rivals come largest (rounded) logit first.
        """
        logit_i = dot(self.rows[i], candidate)
        found = []
        for j in self._suspects(i, candidate, self._reach(logit_i, candidate), wanted):
            if j != i and dot(self.rows[j], candidate) >= logit_i:
                found.append(j)
                if len(found) == wanted:
                    break
        return found

    def _reach(self, logit_i, candidate):
        """How many rows, farthest from the centre first, might reach logit_i."""
        logit_i -= dot(self.centre, candidate)
        size = dot(candidate, candidate)
        if not (self.prune and logit_i > 0 and size):
            return len(self.rows)
        # The rows with norm**2 * size >= logit_i**2 form a prefix.
        low, high, target = 0, len(self.rows), logit_i * logit_i
        while low < high:
            middle = (low + high) // 2
            if self.norms[middle] * size >= target:
                low = middle + 1
            else:
                high = middle
        return low

    def _suspects(self, i, candidate, reach, wanted):
        """Classes among the first ``reach`` whose rounded margin proves nothing.

        With rows rounded to r_j = round(w_j / 2**t) and the candidate to
        y = round(x / 2**s), w_j . x - 2**(s+t) r_j . y = w_j . (x - 2**s y)
        + 2**s (w_j - 2**t r_j) . y, at most 2**(s+t) (|w_j|_1 / 2**(t+1)
        + |y|_1 / 2) in size; twice that bounds the error of a margin.
        Largest rounded logit first; ordered lazily, as usually only about
        ``wanted`` of them are looked at.
        """
        if not reach:
            return []
        shift = max(0, max(map(abs, candidate)).bit_length() - self.bits)
        y = _rounded(candidate, shift)
        bound = ((-(-self.row_size >> self.shift) if shift else 0)
                 + (sum(map(abs, y)) if self.shift else 0))
        own_logit = dot(_rounded(self.rows[i], self.shift), y)
        lift = self.half - own_logit + bound - self.offset * sum(y)
        size, field = self.field_bytes, 8 * self.field_bytes
        terms = [(v, k) for k, v in enumerate(y) if v]
        own = self.rank[i]
        flagged, values = [], []
        for start in range(0, reach, _BLOCK):
            columns, ones, top, count = self.blocks[start // _BLOCK]
            lifted = sum([v * columns[k] for v, k in terms], lift * ones)
            flags = lifted & top
            if not flags:
                continue
            if start <= own < start + count and flags == 1 << (field * (own - start) + field - 1):
                continue
            data = lifted.to_bytes(count * size, "little")
            for match in _NONZERO.finditer(flags.to_bytes(len(data), "little")):
                n = (match.start() + 1) // size - 1
                if start + n < reach:
                    flagged.append(start + n)
                    values.append(int.from_bytes(data[n * size:(n + 1) * size], "little"))
        logit = dict(zip(flagged, values)).__getitem__
        return (self.order[n] for n in _largest_first(flagged, logit, wanted + _LOOKAHEAD))


def _largest_first(items, key, count):
    """sorted(items, key=key, reverse=True), sorting all only past the first ``count``."""
    first = heapq.nlargest(count, items, key=key)
    yield from first
    if len(first) < len(items):
        yield from sorted(items, key=key, reverse=True)[count:]
