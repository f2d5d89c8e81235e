"""The paper's Braid-reflect search: reflect a point across the tie with the class that beats it.

From x = w_i, while another class a has the largest logit, reflect x
across the hyperplane where classes i and a tie.  The paper runs it in
floats as its whole check (``braid_reflect``, kept for comparison: a None
proves nothing); the checker runs it as one proposer among others, each
reflection's point made exact and checked against all C classes
(``reflected_witness``), where it settles most classes of layers shaped
like real output heads.

    braid_reflect       the search as the paper describes it, in floats
    reflected_witness   the search as the checker runs it, each step checked exactly
    reflected           one reflection of a point across a tie
    reflections         how many reflections are worth trying in d dimensions
"""

import itertools
import math
import operator

from reviews.argmax.kernels.layer_input import class_index, validated
from reviews.argmax.kernels.packed import dot
from reviews.exact import to_float

__all__ = ["braid_reflect", "reflected_witness", "reflected", "reflections", "PATIENCE"]

# Reflections tried, each one exact check of all C logits, at most this
# many and one per _DIMENSIONS_PER_REFLECTION dimensions.  On layers shaped
# like real output heads (rows sharing a strong direction, log-normal norms)
# almost every class is settled within 5 from x = w_i - mean, where the
# program in d = 64 costs a thousand checks.  In few dimensions the program
# is cheap and many classes are not argmaxable: there reflections would
# only waste their checks (one a class cost a third more on C = 3000,
# d = 4 with a bias, where 2,811 classes are not argmaxable).
PATIENCE = 16
_DIMENSIONS_PER_REFLECTION = 8


def reflections(dim):
    """How many reflections to try in ``dim`` dimensions.

    >>> reflections(4), reflections(16), reflections(768)
    (0, 2, 16)
    """
    return min(PATIENCE, dim // _DIMENSIONS_PER_REFLECTION)


def reflected_witness(layer, i, point, rival, patience=PATIENCE):
    """A candidate (from ``layer.candidate``) that makes class i the strict
    maximum, found by reflecting ``point`` across the tie of class i with
    the class that beats it, ``rival`` first; None after ``patience``
    reflections, or where floats fail.

    ``layer`` is the checker's PreparedLayer (reviews.argmax.strategy.decide): its
    floats, ``candidate`` (a float point made exact) and
    ``packed.beaten_by`` (the exact check).

    >>> from reviews.argmax.strategy.decide import PreparedLayer
    >>> layer = PreparedLayer([[4, 0], [0, 4], [1, 1]], None, 1)
    >>> layer.packed.beaten_by(2, [1, 1], 2)
    [0, 1]
    >>> candidate, denominator = reflected_witness(layer, 2, [1.0, 1.0], 0)
    >>> layer.packed.beaten_by(2, candidate, 1)
    []

    The origin is inside the square of the others: no witness to find.

    >>> square = PreparedLayer([[0, 0], [2, 0], [-2, 0], [0, 2], [0, -2]], None, 1)
    >>> reflected_witness(square, 0, [1.0, 0.0], 1) is None
    True
    """
    for _ in range(patience):
        point = reflected(layer, point, i, rival)
        if point is None:
            return None
        candidate = layer.candidate(point)
        beaten = layer.packed.beaten_by(i, candidate[0], 1)
        if not beaten:
            return candidate
        rival = beaten[0]
    return None


def reflected(layer, x, i, rival):
    """The float point x reflected across the tie of classes i and rival of
    the PreparedLayer ``layer``; None if floats fail."""
    normal = [p - q for p, q in zip(layer.float_weights[i], layer.float_weights[rival])]
    size = dot(normal, normal)
    if not size:
        return None
    distance = (dot(normal, x) + layer.float_bias[i] - layer.float_bias[rival]) / size
    point = [v - 2 * distance * n for v, n in zip(x, normal)]
    return point if all(map(math.isfinite, point)) else None


def braid_reflect(weights, bias, index, patience=50):
    """The Braid-reflect search the paper describes, for a witness of class ``index``, in floats.

    Start at x = w_i; while another class a has the largest logit, reflect x
    across the hyperplane where classes i and a tie; only a strict win ends
    it (the released code's tie rule differs: reviews.argmax.released).  Returns the point
    (tuple of floats) where class i came out on top in floats, or None after
    ``patience`` reflections, or where floats cannot hold the layer or the
    point.  A None proves nothing, and a point is only a candidate: check
    it with ``verify``.

    >>> braid_reflect([[0, 0], [1, 0], [-1, 0]], None, 1)
    (1.0, 0.0)
    """
    # Validated but not made exact: the search needs floats only.
    rows, biases = validated(weights, bias)
    index = class_index(index, len(rows), "index")
    w = [[to_float(v) for v in row] for row in rows]
    b = [to_float(v) for v in biases] if biases else [0.0] * len(rows)
    columns = list(zip(*w))
    x = list(w[index])
    for _ in range(patience + 1):
        if not all(map(math.isfinite, x + b)):
            return None
        # All C logits a coordinate at a time (C-level loops, several times
        # faster than a dot per class): products summed in order, then b_j.
        logits = [0.0] * len(w)
        for column, xk in zip(columns, x):
            products = map(operator.mul, column, itertools.repeat(xk))
            logits = list(map(operator.add, logits, products))
        logits = list(map(operator.add, logits, b))
        top = max(logits)
        best = index if logits[index] == top else logits.index(top)
        if best == index and logits.count(top) == 1:
            return tuple(x)
        normal = [p - q for p, q in zip(w[index], w[best])]
        norm = math.sqrt(dot(normal, normal))
        if norm == 0 or not math.isfinite(norm):
            return None
        v = [c / norm for c in normal]
        distance = dot(v, x) + (b[index] - b[best]) / norm
        x = [xk - 2 * distance * vk for xk, vk in zip(x, v)]
    return None
