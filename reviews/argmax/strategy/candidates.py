"""A float proposal of a witness for layers whose rows share a direction, checked exactly.

A witness is any input where class i has strictly the largest logit; how
it was found does not matter, as every candidate is checked exactly
against all C classes (reviews.argmax.kernels.packed).  This one is cheaper than
the linear program where it works, and proves nothing where it does not:
the caller then goes on to the next strategy (reviews.argmax.strategy.decide).

    SharedDirection     x = w_i - mean with the rows' shared direction shrunk

The paper's own search, reflections across ties, is reviews.argmax.strategy.braid.
"""

import math

from reviews.argmax.kernels.packed import dot

__all__ = ["SharedDirection"]

# Rows whose spread along the mean's direction is at least this share above
# the spread across it share a direction (g, SharedDirection).
_SHARED = 0.5
# The spreads are averages: a sample of this many rows, evenly spaced, does.
_SAMPLE = 256


class SharedDirection:
    """Candidates for layers whose rows share a direction, as real output layers' do.

    Rows s_j (a mu + n_j) with a common unit direction mu, noise n_j and
    spread norms s_j make x = w_i and x = w_i - mean poor candidates: along
    mu, the rows spread far more than across it, and many rivals beat the
    class there.  Whitening the rows (x = Sigma^-1 (w_i - mean), Sigma their
    covariance) would make the cloud round, where x = w_i - mean is a good
    candidate again; as the spread is mostly along one direction, that is
    nearly x = (c - g (c . u) u) / v, with c = w_i - mean, u the mean's unit
    direction, v the mean squared spread across it per coordinate and
    1 - g = v / (the spread along u).  The division by v makes x large next
    to the biases, as a whitened x is.  It costs O(d) per class, and O(C d)
    once (on a sample of rows), where Sigma^-1 would cost O(C d**2).

    ``point(i)`` is None where the rows do not share a direction (g < 1/2:
    there it is x = w_i - mean again) or floats fail.

    >>> from reviews.argmax.strategy.decide import PreparedLayer
    >>> rows = [[10, 1], [10, -1], [20, 3], [20, -3], [5, 0]]
    >>> shared = SharedDirection(PreparedLayer(rows, None, 1))
    >>> [round(v, 3) for v in shared.point(4)]
    [-0.222, 0.0]
    >>> SharedDirection(PreparedLayer([[1, 0], [-1, 0], [0, 1], [0, -1]], None, 1)).point(0) is None
    True
    """

    def __init__(self, layer):
        self.layer = layer
        self.direction = self.centre = None
        # Statistics of a sample, about its own mean: the layer's mean (a
        # pass over all C rows) is made only for a layer that needs it.
        sample = [layer.float_weights[j]
                  for j in range(0, layer.class_count, max(1, layer.class_count // _SAMPLE))]
        mean = [sum(column) / len(sample) for column in zip(*sample)]
        size = math.sqrt(dot(mean, mean))
        if layer.dim < 2 or not 0 < size < math.inf:
            return
        direction = [v / size for v in mean]
        along = across = 0.0
        for row in sample:
            apart = [v - m for v, m in zip(row, mean)]
            projection = dot(apart, direction)
            along += projection * projection
            across += dot(apart, apart) - projection * projection
        spread = across / (layer.dim - 1)
        if not (0 < spread < math.inf and 0 < along < math.inf):
            return
        shrink = 1 - spread / along
        if shrink >= _SHARED:
            self.direction, self.shrink, self.spread = direction, shrink, spread / len(sample)
            self.centre = layer.centre()

    def point(self, i):
        """The candidate for class i (floats), or None."""
        if self.direction is None:
            return None
        apart = [v - m for v, m in zip(self.layer.float_weights[i], self.centre)]
        along = self.shrink * dot(apart, self.direction)
        point = [(v - along * u) / self.spread for v, u in zip(apart, self.direction)]
        return point if all(map(math.isfinite, point)) else None
