"""Exact coordinates on the affine span of a layer's rows.

Argmaxability depends only on the differences w_j - w_0 of the weight
rows: with pivot classes p_1..p_r whose differences v_k = w_(p_k) - w_0
form a basis of the span of {w_j - w_0}, every w_j - w_0 = sum_k (N_jk /
delta) v_k with integers N_jk.  In coordinates s_k = v_k . x the logit
differences are (w_j - w_0) . x = N_j . s / delta, so the layer with rows
N_j (biases times delta) has the same argmax everywhere, in r <= C - 1
dimensions instead of d; a witness s maps back to any x with v_k . x =
s_k, and a combination is the same combination.  (A box |x_k| <= R is
not a box in the coordinates s: a boxed question cannot be reduced so.)

    AffineSpan  the rows N_j and delta of an integer layer, and lift(s) -> x
"""

from fractions import Fraction

from reviews.exact_division import exact_divider
from reviews.feasibility import solve_square

__all__ = ["AffineSpan"]


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
