"""Supports for sparse candidates: the coordinates where a class stands out most.

A candidate with few nonzero coordinates (reviews.argmax.kernels.sparse)
is x = t s on a support S: class i wins there when sum_{k in S} s_k
(w_ik - w_jk) (plus the biases' difference over t) is positive for every
rival j.  Taking S as the k coordinates of largest |w_i - mean|, with
s_k their signs, makes class i's side grow as k times its largest
departures, while a rival's varies about the mean as sqrt(k) times a
typical one: on a Gaussian head of 128,256 rows a handful of coordinates
do.  Where the rows share a strong direction (the mean's, as trained
heads' do), a long row beats a short one along it: the same is done with
that direction shrunk out of w_i - mean first, as
reviews.argmax.strategy.candidates does for dense candidates.  Floats
only choose; the kernel decides, exactly.

    Supports    the supports to try for a class, best first
"""

import itertools
import math
import operator

from reviews.argmax.kernels.packed import dot
from reviews.argmax.kernels.sparse import MOST_TERMS

__all__ = ["Supports"]

# Rows whose spread along the mean's direction is at least this share above
# the spread across it share a direction (as in candidates.SharedDirection).
_SHARED = 0.5
# The spreads are averages: a sample of this many rows, evenly spaced, does.
_SAMPLE = 256


class Supports:
    """The supports worth trying for each class of a SparseColumns ``columns``.

    ``of(i)`` gives (coordinates, signs) pairs, the coordinates in order
    of decreasing weight, at most MOST_TERMS of them: with the rows' shared
    direction shrunk out of w_i - mean first where they share one, then
    w_i - mean itself.

    >>> from reviews.argmax.kernels.sparse import SparseColumns
    >>> supports = Supports(SparseColumns([[3, 0, 1], [0, 3, 1], [1, 1, 1]]))
    >>> [order for order, _ in supports.of(0)]
    [[0, 1, 2]]
    """

    def __init__(self, columns):
        self.columns = columns
        self.mean = columns.mean
        self.direction = None
        size = math.sqrt(dot(self.mean, self.mean))
        if columns.dim < 2 or not 0 < size < math.inf:
            return
        direction = [v / size for v in self.mean]
        along = across = 0.0
        step = max(1, columns.class_count // _SAMPLE)
        for j in range(0, columns.class_count, step):
            apart = list(map(operator.sub, columns.row(j), self.mean))
            projection = dot(apart, direction)
            along += projection * projection
            across += dot(apart, apart) - projection * projection
        spread = across / (columns.dim - 1)
        if 0 < spread < math.inf and 0 < along < math.inf and 1 - spread / along >= _SHARED:
            self.direction, self.shrink = direction, 1 - spread / along

    def of(self, i):
        """The (coordinates, signs) of the supports of class i, best first."""
        apart = list(map(operator.sub, self.columns.row(i), self.mean))
        if self.direction is not None:
            along = self.shrink * dot(apart, self.direction)
            yield _largest(v - along * u for v, u in zip(apart, self.direction))
        yield _largest(apart)


def _largest(values):
    """(the coordinates of the MOST_TERMS largest |values|, largest first, their signs).

    >>> _largest([0.5, -3.0, 1.0])
    ([1, 2, 0], [-1, 1, 1])
    """
    values = list(values)
    magnitudes = list(map(abs, values))
    if len(values) > MOST_TERMS:
        # The MOST_TERMS-th largest magnitude first (a sort of floats), then
        # only the coordinates at or above it are sorted by key.
        least = sorted(magnitudes, reverse=True)[MOST_TERMS - 1]
        order = list(itertools.compress(range(len(values)), map(least.__le__, magnitudes)))
    else:
        order = list(range(len(values)))
    order.sort(key=magnitudes.__getitem__, reverse=True)
    del order[MOST_TERMS:]
    return order, [1 if values[k] >= 0 else -1 for k in order]
