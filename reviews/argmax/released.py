"""The released detector's search rule, followed in exact arithmetic.

The low-rank paper's released code (andreasgrv/unargmaxable, MIT;
``stollen/__init__.py``, functions ``candidate_is_bounded``,
``get_swap_target`` and ``swap``) looks for an input where class i has
the largest logit: start at x = w_i; take a = np.argmax(W x + b), which
gives a tie to the lowest index; while a != i, up to ``patience`` times
(100 by default, 2500 in the paper's runs), reflect x across the
hyperplane where classes i and a tie,

    x <- x - 2 ((w_i - w_a) . x + b_i - b_a) / |w_i - w_a|^2 (w_i - w_a),

and take the argmax again.  The class is called argmaxable when the last
argmax is i and x lies in the box |x_k| <= 100: no tolerance, and no
check that i wins strictly.  ``released_search`` follows that rule in
exact integers (the layer scaled by its common denominator, which changes
no argmax and no reflection; x as integers over one denominator; the
reflection needs no square root), so what the rule does on a layer is
computed exactly; the released code computes in the
layer's float dtype, which gives the same argmax wherever the logits it
compares are exact in binary or further apart than its rounding (a
result's ``closest`` says how far apart they were: each reflection is an
isometry, so float rounding adds up along the way but is not amplified).  Where a == i's
twin (w_a = w_i, a != i) the reflection's normal is zero: numpy's
division gives NaN there, and this function stops (``stop`` "zero
normal"); what the released code does next follows from numpy's NaN
handling, which is not followed here.

This is the released code's rule, written from its source for
comparison: check_layer never relies on it (reviews.argmax.check has the
suite's own search, which accepts only a strict win).

    released_search     the rule's answer for one class: SearchResult
    SearchResult        accepted, point, reflections, last, margin, closest, stop
    lowest_argmax       np.argmax's rule: the first of the largest
    PATIENCE, BOX       the released defaults: 100 reflections, |x_k| <= 100
"""

import math
import operator
from collections import namedtuple
from fractions import Fraction

from reviews.argmax.kernels.layer_input import class_index, integer_layer

__all__ = ["released_search", "SearchResult", "lowest_argmax", "PATIENCE", "BOX"]

PATIENCE = 100
BOX = 100

SearchResult = namedtuple("SearchResult",
                          "accepted point reflections last margin closest stop")
SearchResult.__doc__ = """The rule's answer for one class.

accepted: whether the rule calls the class argmaxable; point: the last x
(Fractions); reflections: how many were made; last: the last argmax;
margin: logit_i minus the largest other logit at the last x (0 at a tie,
negative where another class is above); closest: the least lead of the
largest logit over the next one at any point the search took its argmax
(0 where it met a tie); stop: "argmax" (the last argmax
is the class), "patience" (it is not, after ``patience`` reflections) or
"zero normal" (the argmax is a twin of the class: no reflection exists)."""


def lowest_argmax(values):
    """The index of the largest value, the lowest of equal ones (np.argmax's rule).

    >>> lowest_argmax([Fraction(1, 2), Fraction(1, 2), 0])
    0
    """
    return max(range(len(values)), key=lambda j: (values[j], -j))


def _lead(logits):
    """How far the largest logit is above the next one (0 at a tie)."""
    top, *rest = sorted(logits, reverse=True)[:2]
    return top - rest[0] if rest else 0


def _logits(rows, biases, point, q):
    """The logits at point / q, times q (q > 0: the same order)."""
    return [sum(map(operator.mul, row, point)) + b * q for row, b in zip(rows, biases)]


def released_search(weights, bias, index, patience=PATIENCE, box=BOX):
    """The released search's answer for class ``index``, in exact arithmetic.

    Accepted where the last argmax, ties to the lowest index, is the class
    and the point lies in the box |x_k| <= ``box``: a tie at x = w_i is
    enough.  Class 0 of this layer is the mean of classes 1 and 2, so it is
    never strictly the largest, yet its logit ties theirs at x = w_0:

    >>> W = [[Fraction(1, 2), Fraction(1, 2)], [1, 0], [0, 1], [-1, -1]]
    >>> found = released_search(W, None, 0)
    >>> found.accepted, found.point, found.reflections, found.margin
    (True, (Fraction(1, 2), Fraction(1, 2)), 0, Fraction(0, 1))
    """
    # The layer times its common denominator D: the same argmax at every x,
    # and the same reflections (the step's D**2 cancels).  x = point / q
    # in the layer's own units, its logits times D q.
    rows, biases, scale = integer_layer(weights, bias)
    biases = biases or [0] * len(rows)
    i = class_index(index, len(rows), "index")
    point, q = list(rows[i]), scale
    logits = _logits(rows, biases, point, q)
    last, reflections, stop = lowest_argmax(logits), 0, None
    closest = Fraction(_lead(logits), q * scale)
    while last != i and reflections < patience:
        normal = list(map(operator.sub, rows[i], rows[last]))
        square = sum(map(operator.mul, normal, normal))
        if square == 0:
            stop = "zero normal"
            break
        # x - 2 (n . x + c) / |n|^2 n, with x = point / q: over q |n|^2.
        offset = 2 * (sum(map(operator.mul, normal, point)) + (biases[i] - biases[last]) * q)
        point = [p * square - offset * v for p, v in zip(point, normal)]
        q *= square
        common = math.gcd(q, *point)
        point, q = [p // common for p in point], q // common
        logits = _logits(rows, biases, point, q)
        last, reflections = lowest_argmax(logits), reflections + 1
        closest = min(closest, Fraction(_lead(logits), q * scale))
    others = [value for j, value in enumerate(logits) if j != i]
    margin = Fraction(logits[i] - max(others), q * scale) if others else None
    stop = stop or ("argmax" if last == i else "patience")
    x = tuple(Fraction(p, q) for p in point)
    accepted = last == i and all(abs(c) <= box for c in x)
    return SearchResult(accepted, x, reflections, last, margin, closest, stop)
