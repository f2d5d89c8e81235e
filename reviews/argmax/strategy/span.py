"""Coordinates of a layer's inputs on the span of its rows' differences.

Logit differences (w_j - w_0) . x depend only on the projection of x onto
S, the span of the differences w_j - w_0, of dimension r <= C - 1.  If r
coordinates Q are such that the differences restricted to Q still have
rank r, inputs supported on Q lose nothing:

* a witness x_Q of the layer restricted to Q is one of the layer, with
  zeros elsewhere (every logit is the same number);
* a combination of the restricted layer is one of the layer: u = sum_j
  lam_j (w_j - w_i) lies in S and vanishes on Q, and the only such u is 0,
  as the coordinate subspace of Q meets the orthogonal complement of S in
  0 only (it has dimension r and projects onto S injectively).

So a few classes in a high dimension are decided on r coordinates, on the
layer's own integers: no new, longer numbers.  Q is found by elimination
modulo a prime of 61 bits, fast on numbers of any length; a rank modulo p
can only be too small, which makes Q too small, and then a combination of
the restricted layer may not be one of the layer.  So a combination found
on Q is checked exactly on the whole layer before it is reported
(``reviews.argmax.check``); if it fails, Q is chosen again in exact
arithmetic (``exact=True``: the pivot coordinates of ``AffineSpan``,
slower on long numbers but never too few) and the class decided on it.
Differences that are all multiples of p, the one way to make the prime
miss, cost that one exact elimination.  A witness needs no check.  (A box
|x_k| <= R is no obstacle for witnesses but is for combinations, whose box
term has the 1-norm of u: boxed questions are not reduced.)

Exact coordinates on the span itself (``AffineSpan``): with pivot classes
p_1..p_r whose differences v_k = w_(p_k) - w_0 form a basis of it, every
w_j - w_0 = sum_k (N_jk / delta) v_k with integers N_jk; in coordinates
s_k = v_k . x the logit differences are N_j . s / delta, so the layer with
rows N_j (biases times delta) has the same argmax everywhere.  Its numbers
are r x r determinants of the layer's, r times longer: the checker uses
the chosen coordinates; the region counts (reviews.argmax.regions), on a few
classes, read rankings off these.

    SpanCoordinates  the coordinates Q of a layer; restricted(rows), lift(point)
    AffineSpan       the rows N_j and delta of an integer layer, and lift(s) -> x
"""

from fractions import Fraction

from reviews.argmax.kernels.exact_division import exact_divider
from reviews.argmax.strategy.feasibility import solve_square
from reviews.argmax.kernels.lifting import independent_modulo

__all__ = ["SpanCoordinates", "AffineSpan"]

# A Mersenne prime: for coordinates to be missed, p must divide one of a few
# nonzero minors of the differences, which for real layers it never does.
_PRIME = 2 ** 61 - 1


class SpanCoordinates:
    """Coordinates Q of R^d on which the rows' differences keep their rank.

    ``coordinates`` is Q in increasing order (one coordinate at least);
    ``exact`` says whether Q was chosen in exact arithmetic.

    >>> span = SpanCoordinates([[1, 5, 0], [2, 5, 0], [3, 5, 0]])
    >>> span.coordinates
    [0]
    >>> span.restricted([[1, 5, 0], [2, 5, 0]])
    [[1], [2]]
    >>> span.lift([Fraction(7)])
    (Fraction(7, 1), Fraction(0, 1), Fraction(0, 1))
    """

    def __init__(self, weights, exact=False):
        self.dim = len(weights[0])
        self.exact = exact
        if exact:
            self.coordinates = sorted(AffineSpan(weights).coordinates) or [0]
            return
        origin = weights[0]
        most = len(weights) - 1
        # Each coordinate q is the vector of the differences' q-th entries;
        # keep those independent of the kept ones, modulo p.
        vectors = ([row[q] - origin[q] for row in weights[1:]] for q in range(self.dim))
        chosen = independent_modulo(vectors, _PRIME, most)
        self.coordinates = chosen or [0]

    def restricted(self, rows):
        """Each row's entries at the coordinates."""
        return [[row[q] for q in self.coordinates] for row in rows]

    def lift(self, point):
        """The x of R^d (Fractions) that is ``point`` on the coordinates, 0 elsewhere."""
        x = [Fraction(0)] * self.dim
        for q, value in zip(self.coordinates, point):
            x[q] = Fraction(value)
        return tuple(x)


class AffineSpan:
    """Integer weight rows in coordinates on their affine span, and the way back.

    ``rows`` are the rows N_j (row 0 is zero, each of length max(r, 1));
    ``delta`` is the positive integer the coordinates are scaled by.

    >>> span = AffineSpan([[0, 0, 0], [2, 2, 0], [1, 1, 0]])
    >>> span.rows, span.delta
    ([[0], [2], [1]], 2)
    >>> span.lift([Fraction(4)])
    (Fraction(2, 1), Fraction(0, 1), Fraction(0, 1))
    """

    def __init__(self, weights):
        dim, classes = len(weights[0]), len(weights)
        origin = weights[0]
        # Fraction-free Gauss-Jordan (Bareiss) on the matrix whose columns
        # are w_j - w_0: it ends with delta * identity in the pivot columns
        # and delta * the coordinates in the others.
        matrix = [[row[q] - origin[q] for row in weights[1:]] for q in range(dim)]
        coordinates = list(range(dim))
        rank, previous, pivots = 0, 1, []
        for column in range(classes - 1):
            pick = next((q for q in range(rank, dim) if matrix[q][column]), None)
            if pick is None:
                continue
            matrix[rank], matrix[pick] = matrix[pick], matrix[rank]
            coordinates[rank], coordinates[pick] = coordinates[pick], coordinates[rank]
            head = matrix[rank]
            p = head[column]
            divide = exact_divider(previous)
            for q in range(dim):
                row = matrix[q]
                f = row[column]
                if q != rank and (f or any(row)):
                    matrix[q] = [divide(p * a - f * b) for a, b in zip(row, head)]
            previous = p
            pivots.append(column + 1)
            rank += 1
        sign = -1 if previous < 0 else 1
        self.delta = sign * previous
        self.rows = [[0] * max(rank, 1)] + [
            [sign * matrix[k][j] for k in range(rank)] or [0] for j in range(classes - 1)]
        self.dim = dim
        self.coordinates = coordinates[:rank]
        # Column m of the square system v_k . x = s_k on those coordinates.
        self.columns = [[weights[p][q] - origin[q] for p in pivots] for q in self.coordinates]

    def lift(self, point):
        """A point x of R^d (Fractions) with v_k . x = point_k for every k."""
        x = [Fraction(0)] * self.dim
        if self.coordinates:
            solution = solve_square(self.columns, list(point))
            for q, value in zip(self.coordinates, solution):
                x[q] = value
        return tuple(x)
