"""Exact plane geometry for two-dimensional softmax layers.

The argmax region of a class is the set of inputs x where its logit is the
largest; for a layer with d = 2 each region is a convex polygon.  Here the
regions are cut out of a bounding box by half-planes, with Fractions, so
every vertex is exact and a class without a region (an unargmaxable one)
gets no polygon at all.

    argmax_regions   one polygon (list of vertices) per class, [] if none
    convex_hull      the hull of points, counter-clockwise
    area             the area of a polygon (shoelace formula)
"""

from fractions import Fraction

from reviews.argmax.kernels.layer_input import exact_layer
from reviews.errors import InputError

__all__ = ["argmax_regions", "convex_hull", "area"]


def area(polygon):
    """The signed area of a polygon, positive when counter-clockwise.

    >>> area([(0, 0), (2, 0), (0, 1)])
    Fraction(1, 1)
    """
    twice = sum(Fraction(x1) * y2 - Fraction(x2) * y1
                for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1]))
    return twice / 2


def _clip(polygon, a, b, c):
    """The part of a convex polygon where a*x + b*y + c >= 0 (Sutherland-Hodgman)."""
    kept = []
    for p, q in zip(polygon, polygon[1:] + polygon[:1]):
        sp, sq = a * p[0] + b * p[1] + c, a * q[0] + b * q[1] + c
        if sp >= 0:
            kept.append(p)
        if (sp > 0 > sq) or (sp < 0 < sq):
            t = sp / (sp - sq)
            kept.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return kept


def argmax_regions(weights, bias=None, box=(-3, 3)):
    """Each class's argmax region inside the square box, as exact polygons.

    A class whose region inside the box has no area gets [].

    >>> regions = argmax_regions([[1, 0], [-1, 0], [0, 0]], box=(-1, 1))
    >>> [len(r) for r in regions]
    [4, 4, 0]
    >>> regions[0]
    [(Fraction(0, 1), Fraction(-1, 1)), (Fraction(1, 1), Fraction(-1, 1)), (Fraction(1, 1), Fraction(1, 1)), (Fraction(0, 1), Fraction(1, 1))]
    """
    rows, biases = exact_layer(weights, bias)
    if len(rows[0]) != 2:
        raise InputError("argmax regions are drawn for d = 2, not d = %d" % len(rows[0]))
    biases = biases or [Fraction(0)] * len(rows)
    low, high = Fraction(box[0]), Fraction(box[1])
    if not low < high:
        raise InputError("box must be (low, high) with low < high, not %r" % (box,))
    regions = []
    for i, (wi, bi) in enumerate(zip(rows, biases)):
        polygon = [(low, low), (high, low), (high, high), (low, high)]
        for j, (wj, bj) in enumerate(zip(rows, biases)):
            if j != i and polygon:
                polygon = _clip(polygon, wi[0] - wj[0], wi[1] - wj[1], bi - bj)
        regions.append(_without_repeats(polygon) if polygon and area(polygon) > 0 else [])
    return regions


def _without_repeats(polygon):
    kept = []
    for p in polygon:
        if not kept or p != kept[-1]:
            kept.append(p)
    return kept[:-1] if len(kept) > 1 and kept[0] == kept[-1] else kept


def convex_hull(points):
    """Vertices of the convex hull, counter-clockwise from the lowest-leftmost.

    >>> [tuple(map(str, p)) for p in convex_hull([(0, 0), (2, 0), (1, 1), (1, 0), (0, 2)])]
    [('0', '0'), ('2', '0'), ('0', '2')]
    """
    ordered = sorted(set((Fraction(x), Fraction(y)) for x, y in points))
    if len(ordered) < 3:
        return ordered

    def turn(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    def chain(sequence):
        hull = []
        for p in sequence:
            while len(hull) >= 2 and turn(hull[-2], hull[-1], p) <= 0:
                hull.pop()
            hull.append(p)
        return hull[:-1]

    return chain(ordered) + chain(ordered[::-1])
