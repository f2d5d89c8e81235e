"""The point of a polytope nearest the origin, in floats (Wolfe's algorithm).

A class i is argmaxable iff the strict homogeneous system g_k . y > 0 has a
solution, g_k = (w_i - w_k, b_i - b_k) for its rivals and, with a bias,
g = (0, ..., 0, 1) as well (then x = y's first d coordinates over its last
is a witness).  By Gordan's theorem exactly one of two things holds: such
a y exists, or the origin is a convex combination of the g_k, which is the
combination certificate.  Both come out of the point y* of conv{g_k}
nearest the origin: if y* != 0, then g_k . y* >= |y*|**2 > 0 for every k;
if y* = 0, the corral, the few points (at most dimension + 1) whose affine
hull's nearest point y* is, holds the combination.  Each g_k may be scaled
by any positive number first: here each is scaled to unit length.

Wolfe's algorithm ("Finding the nearest point in a polytope", Math.
Programming 11, 1976) walks corrals: each major step adds the point of
least g . y, each minor step moves y to the nearest point of the corral's
affine hull and drops points whose weight would turn negative.  It is
finite, and on the classes that a layer's search leaves (rows in the
hundreds of dimensions) it takes about as many major steps as the corral
has points, where the penalized simplex walked the corners of its box.
The corral's affine problem is solved with Wolfe's triangular factor R,
R^T R = 1 1^T + Q^T Q (Q the corral's points as columns), updated in
O(k**2) when a point comes or goes.

Only a proposal: its y is checked against every row exactly, and its
corral's combination solved and checked exactly, by the caller.

    NearestPoint    Wolfe's algorithm over a growing set of points
"""

import itertools
import math
import operator

__all__ = ["NearestPoint"]

# |y|**2 below this (the points have length 1) counts as the origin.
_ORIGIN = 1e-24
# A point whose distance from the corral's affine hull is below this is
# taken as in it: the corral stays affinely independent.
_INDEPENDENT = 1e-13
# Weights at or below this leave the corral.
_WEIGHT = 1e-15
# Steps a search may take, per dimension.
_STEPS_PER_DIMENSION = 40


def _dot(a, b):
    return sum(map(operator.mul, a, b))


class NearestPoint:
    """Wolfe's algorithm over points given by rows, growing between searches.

    ``search()`` walks from the last corral.  It stops with ("apart", y),
    where every point has g . y > 0 (y need not be the nearest point
    yet), with ("origin", corral) where the origin is in the corral's
    hull (the points' positions and weights), or with None where floats
    give up.

    >>> near = NearestPoint([[1.0, 0.0], [0.0, 1.0]])
    >>> kind, y = near.search()
    >>> kind, [round(v, 12) for v in y]
    ('apart', [0.5, 0.5])
    >>> near.add([[-1.0, -1.0]])
    >>> kind, corral = near.search()
    >>> kind, sorted(n for n, _ in corral)
    ('origin', [0, 1, 2])
    """

    def __init__(self, rows):
        self.points = []
        self.add(rows)
        self.dim = len(self.points[0])
        # The corral: positions in ``points``, weights, and R by columns.
        self.corral, self.weights, self.columns = [], [], []
        self._enter(0)
        self.weights = [1.0]
        self.y = list(self.points[0])
        self.steps = 0

    def add(self, rows):
        """More points, each scaled to unit length (a zero row stays zero)."""
        for row in rows:
            size = math.sqrt(_dot(row, row))
            self.points.append([v / size for v in row] if size else [0.0] * len(row))

    def search(self):
        """Walk corrals until the points are apart from the origin or hold it."""
        limit = _STEPS_PER_DIMENSION * (self.dim + 1)
        while self.steps < limit:
            self.steps += 1
            y = self.y
            square = _dot(y, y)
            if square <= _ORIGIN:
                return "origin", list(zip(self.corral, self.weights))
            products = [_dot(p, y) for p in self.points]
            least = min(range(len(products)), key=products.__getitem__)
            if products[least] > 0:
                return "apart", list(y)
            if least in self.corral or not self._enter(least):
                # No point gets nearer: y is the nearest point, and not apart.
                return None
            self.weights.append(0.0)
            if not self._affine_steps():
                return None
        return None

    def _enter(self, n):
        """Add point n to the corral's factor; False if it is in the affine hull."""
        point = self.points[n]
        v = [1.0 + _dot(self.points[m], point) for m in self.corral]
        r = self._solve_transposed(v)
        rest = 1.0 + _dot(point, point) - _dot(r, r)
        if rest <= _INDEPENDENT:
            return False
        self.corral.append(n)
        self.columns.append(r + [math.sqrt(rest)])
        return True

    def _solve_transposed(self, v):
        """r with R^T r = v (forward substitution; R by columns)."""
        r = []
        for j, column in enumerate(self.columns):
            r.append((v[j] - _dot(column[:j], r)) / column[j])
        return r

    def _affine(self):
        """Weights of the nearest point of the corral's affine hull (summing to 1)."""
        u = self._solve_transposed([1.0] * len(self.columns))
        # Back substitution, R u = ubar, a column at a time.
        for j in range(len(self.columns) - 1, -1, -1):
            column = self.columns[j]
            u[j] /= column[j]
            if u[j]:
                factor = u[j]
                u[:j] = [a - factor * b for a, b in zip(u[:j], column[:j])]
        total = sum(u)
        if not total or not math.isfinite(total):
            return None
        return [v / total for v in u]

    def _affine_steps(self):
        """Wolfe's minor steps: move to the affine hull's nearest point,
        dropping the points whose weights would turn negative; False if
        floats fail."""
        while True:
            target = self._affine()
            if target is None:
                return False
            if all(v > _WEIGHT for v in target):
                self.weights = target
                break
            # The farthest step towards ``target`` that keeps every weight >= 0.
            step = min(w / (w - t) for w, t in zip(self.weights, target) if t <= _WEIGHT)
            weights = [w + step * (t - w) for w, t in zip(self.weights, target)]
            for j in range(len(weights) - 1, -1, -1):
                if weights[j] <= _WEIGHT:
                    del weights[j]
                    self._leave(j)
            if not weights:
                return False
            total = sum(weights)
            self.weights = [w / total for w in weights]
        self.y = self._point()
        return True

    def _point(self):
        y = [0.0] * self.dim
        for n, w in zip(self.corral, self.weights):
            y = list(map(operator.add, y, map(operator.mul, self.points[n], itertools.repeat(w))))
        return y

    def _leave(self, j):
        """Drop the corral's j-th point; Givens rotations make R triangular again."""
        del self.corral[j]
        del self.columns[j]
        columns = self.columns
        for l in range(j, len(columns)):
            a, b = columns[l][l], columns[l][l + 1]
            h = math.hypot(a, b)
            c, s = a / h, b / h
            for column in columns[l:]:
                p, q = column[l], column[l + 1]
                column[l], column[l + 1] = c * p + s * q, c * q - s * p
            del columns[l][l + 1]
