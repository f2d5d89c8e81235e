"""Argmaxability in one dimension: the upper envelope of lines, in O(C log C).

With d = 1 the logits w_j * x + b_j are lines, and class i is argmaxable
iff its line is on the upper envelope over an interval, that is iff the
point (w_i, b_i) is a vertex of the upper convex hull of the points
(w_j, b_j).  With the slopes distinct (reviews.argmax.reductions.twins groups equal ones),
the hull comes from one monotone-chain pass over the points sorted by
slope, and each class gets its certificate directly:

* a vertex v with hull neighbours a (smaller slope) and c: its line is
  above a's for x > (b_a - b_v) / (w_v - w_a) and above c's for
  x < (b_v - b_c) / (w_c - w_v), the first below the second as the hull
  turns strictly; a witness is any x in between (one past the single
  bound for the first and last vertex, 0 for a lone class), where every
  other line is below the envelope;
* any other point p lies between two consecutive vertices a and c, on or
  below their edge: lam_a = (w_c - w_p) / (w_c - w_a) and lam_c = 1 - lam_a
  give lam_a w_a + lam_c w_c = w_p and lam_a b_a + lam_c b_c >= b_p.

Without a bias, every b_j = 0: only the smallest and the largest slope are
argmaxable, at x = -1 and x = 1.

    upper_envelope   (witness, terms) for each class of a one-dimensional layer
"""

from fractions import Fraction

__all__ = ["upper_envelope"]


def upper_envelope(slopes, bias):
    """One (witness, terms) pair per class of the lines slopes[j] * x + bias[j].

    The slopes must be distinct; ``bias`` may be None (all 0).  Exactly
    one of witness ((x,), Fractions) and terms (((j, lam_j), ...) in
    increasing j) is set.

    >>> upper_envelope([0, 1, 2], None)
    [((Fraction(-1, 1),), None), (None, ((0, Fraction(1, 2)), (2, Fraction(1, 2)))), ((Fraction(1, 1),), None)]
    >>> upper_envelope([0, 1, 2], [0, 1, 0])[1]
    ((Fraction(0, 1),), None)
    """
    bias = bias if bias is not None else [0] * len(slopes)
    order = sorted(range(len(slopes)), key=slopes.__getitem__)
    hull = []
    for j in order:
        # Drop the last vertex while it is on or below the edge to the new point.
        while len(hull) > 1 and _not_above(hull[-2], hull[-1], j, slopes, bias):
            hull.pop()
        hull.append(j)
    results = [None] * len(slopes)
    for n, v in enumerate(hull):
        low = high = None
        if n > 0:
            a = hull[n - 1]
            low = Fraction(bias[a] - bias[v], slopes[v] - slopes[a])
        if n + 1 < len(hull):
            c = hull[n + 1]
            high = Fraction(bias[v] - bias[c], slopes[c] - slopes[v])
        if low is None:
            x = Fraction(0) if high is None else high - 1
        else:
            x = low + 1 if high is None else (low + high) / 2
        results[v] = ((x,), None)
    # The first and last slopes are vertices, so every other point lies
    # between the last vertex met in slope order and the next one.
    place = {v: n for n, v in enumerate(hull)}
    edge = 0
    for j in order:
        if j in place:
            edge = place[j]
            continue
        a, c = hull[edge], hull[edge + 1]
        lam_a = Fraction(slopes[c] - slopes[j], slopes[c] - slopes[a])
        results[j] = (None, tuple(sorted([(a, lam_a), (c, 1 - lam_a)])))
    return results


def _not_above(a, b, c, slopes, bias):
    """Whether point b is on or below the segment from point a to point c (slopes increasing)."""
    return ((bias[b] - bias[a]) * (slopes[c] - slopes[a])
            <= (bias[c] - bias[a]) * (slopes[b] - slopes[a]))
