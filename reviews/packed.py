"""All logits of a layer at a candidate input at once, exact in sign.

Checking a candidate x against all C classes one dot product at a time
costs C * d big-integer products.  Here the rows are rounded to
``WEIGHT_BITS`` bits and packed, one fixed-width field per class, into d
big integers (one per coordinate); a candidate's C rounded logits are then
d products and a sum, with a rigorous bound on the rounding, and only the
classes whose rounded margin is within that bound are checked one by one
in exact integers.  Candidates past ``CANDIDATE_BITS`` bits are checked
one class at a time.

    Packed      the packed rows; Packed.beaten_by(i, candidate, wanted)
    dot         the dot product of two sequences
"""

import heapq
import operator
import re

__all__ = ["Packed", "dot", "WEIGHT_BITS", "CANDIDATE_BITS"]

# Rounded weights carry this many bits; candidates up to CANDIDATE_BITS.
WEIGHT_BITS = 30
CANDIDATE_BITS = 32
_NONZERO = re.compile(b"[^\x00]")
# Rivals ordered beyond those wanted, for the caller's next round.
_LOOKAHEAD = 8


def dot(a, b):
    """The dot product of two sequences of numbers.

    >>> dot([1, 2], [3, 4])
    11
    """
    return sum(map(operator.mul, a, b))


class Packed:
    """All C logits of a candidate at once, exact in sign.

    ``rows`` are integer rows (weights, then the bias if any); a candidate is
    an integer vector of the same length, and logits are rows . candidate.
    The rows are packed in order of decreasing norm: without a bias, a row
    shorter than logit_i / |candidate| cannot reach logit_i (Cauchy-Schwarz),
    so only a prefix of the packed fields needs computing.
    """

    def __init__(self, rows, prune):
        self.rows = rows
        self.prune = prune
        width = len(rows[0])
        norms = [dot(row, row) for row in rows]
        self.order = sorted(range(len(rows)), key=lambda j: -norms[j])
        self.norms = [norms[j] for j in self.order]
        self.rank = {j: n for n, j in enumerate(self.order)}
        largest = max(abs(v) for row in rows for v in row)
        self.shift = max(0, largest.bit_length() - WEIGHT_BITS)
        bits = WEIGHT_BITS + 1 + CANDIDATE_BITS + width.bit_length() + 3
        self.field_bytes = -(-bits // 8)
        field = 8 * self.field_bytes
        self.ones = int.from_bytes((b"\x01" + bytes(self.field_bytes - 1)) * len(rows), "little")
        self.half = 1 << (field - 1)
        self.top = self.ones << (field - 1)
        # Fields hold rounded + offset >= 0, so that a prefix is a bit mask.
        self.offset = self.half >> 1
        size = self.field_bytes
        packed_rows = [b"".join((v + self.offset).to_bytes(size, "little")
                                for v in self._rounded(rows[j])) for j in self.order]
        self.columns = [int.from_bytes(b"".join(row[k * size:(k + 1) * size]
                                                for row in packed_rows), "little")
                        for k in range(width)]

    def _rounded(self, row):
        """The row's entries divided by 2**shift, rounded to the nearest."""
        half = (1 << (self.shift - 1)) if self.shift else 0
        return [(v + half) >> self.shift for v in row]

    def beaten_by(self, i, candidate, wanted):
        """Up to ``wanted`` classes j != i with logit_j >= logit_i, exactly.

        An empty list proves that the candidate makes class i the strict
        maximum.  Rivals come largest (rounded) logit first.
        """
        logit_i = dot(self.rows[i], candidate)
        if max(map(abs, candidate)) >> CANDIDATE_BITS:
            suspects = sorted(range(len(self.rows)), key=lambda j: -dot(self.rows[j], candidate))
        else:
            suspects = self._suspects(i, candidate, self._reach(logit_i, candidate), wanted)
        found = []
        for j in suspects:
            if j != i and dot(self.rows[j], candidate) >= logit_i:
                found.append(j)
                if len(found) == wanted:
                    break
        return found

    def _reach(self, logit_i, candidate):
        """How many rows, longest first, might reach logit_i."""
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

        Largest rounded logit first; ordered lazily, as usually only about
        ``wanted`` of them are looked at.
        """
        if not reach:
            return []
        field = 8 * self.field_bytes
        columns, ones, top = self.columns, self.ones, self.top
        if reach < len(self.rows):
            mask = (1 << (field * reach)) - 1
            columns, ones, top = [c & mask for c in columns], ones & mask, top & mask
        packed = sum(x * column for x, column in zip(candidate, columns) if x)
        # Each rounded logit is within half the candidate's 1-norm of exact.
        bound = sum(map(abs, candidate)) if self.shift else 0
        own_logit = dot(self._rounded(self.rows[i]), candidate)
        lift = self.half - own_logit + bound - self.offset * sum(candidate)
        lifted = packed + lift * ones
        flags = lifted & top
        own = self.rank[i]
        if flags == (1 << (field * own + field - 1) if own < reach else 0):
            return []
        size = self.field_bytes
        data = lifted.to_bytes(reach * size, "little")
        flagged = [(match.start() + 1) // size - 1
                   for match in _NONZERO.finditer(flags.to_bytes(len(data), "little"))]

        def logit(n):
            return int.from_bytes(data[n * size:(n + 1) * size], "little")

        return (self.order[n] for n in _largest_first(flagged, logit, wanted + _LOOKAHEAD))


def _largest_first(items, key, count):
    """sorted(items, key=key, reverse=True), sorting all only past the first ``count``."""
    first = heapq.nlargest(count, items, key=key)
    yield from first
    if len(first) < len(items):
        yield from sorted(items, key=key, reverse=True)[count:]
