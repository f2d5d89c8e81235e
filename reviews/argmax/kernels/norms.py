"""Exact checks at a tolerance T: margins against T times Euclidean norms, with no square root.

A witness passes at T when each margin m_j exceeds T * n_j, n_j = |w_i -
w_j|_2, and a combination fails it when A + T sum_j lam_j n_j >= 0 (the
module docstring of reviews.argmax.tolerance says why).  The n_j are square
roots: these decide the signs exactly, by squaring, or from rational
bounds of math.isqrt refined until they agree.

    clears           exact check: a witness's margins exceed T * n_j
    holds_at         exact check: a combination proves failure at T
    root_bounds      rational bounds on a square root, from math.isqrt
    FIRST_BITS       the bits of the first bounds on a norm
"""

import math
from fractions import Fraction

from reviews.argmax.kernels.packed import dot
from reviews.exact import common_denominator

__all__ = ["clears", "holds_at", "root_bounds", "FIRST_BITS"]

# Bits of the first bounds on a norm; refining doubles them.
FIRST_BITS = 64


def root_bounds(q, bits):
    """(lower, upper, exact): rationals around sqrt(q) for a rational q >= 0, 2**-bits apart."""
    q = Fraction(q)
    scaled = q.numerator * q.denominator << 2 * bits
    root = math.isqrt(scaled)
    exact = root * root == scaled
    unit = q.denominator << bits
    return Fraction(root, unit), Fraction(root + (not exact), unit), exact


def _at_least_zero(constant, roots):
    """Whether constant + sum_k c_k sqrt(q_k) >= 0, exactly, for c_k >= 0.

    ``roots`` are pairs (c_k, q_k) of rationals >= 0.  Refining the bounds
    ends: the sum is irrational, so not 0, unless every q_k with c_k > 0 is
    a square, and then the bounds are exact (module docstring).
    """
    roots = [(c, q) for c, q in roots if c and q]
    bits = FIRST_BITS
    while True:
        low = high = Fraction(constant)
        exact = True
        for c, q in roots:
            lower, upper, square = root_bounds(q, bits)
            low, high, exact = low + c * lower, high + c * upper, exact and square
        if low >= 0 or exact:
            return low >= 0
        if high < 0:
            return False
        bits *= 2


def clears(margin, square, tolerance):
    """Exact: margin > tolerance * sqrt(square), for rationals square >= 0, tolerance >= 0.

    >>> clears(1, 2, Fraction(7, 10)), clears(1, 2, Fraction(71, 100))
    (True, False)
    """
    return margin > 0 and margin * margin > tolerance * tolerance * square


def holds_at(differences, offsets, lam, question):
    """Exact: lam proves that class i fails ``question`` (a Question:
    reviews.argmax.question), at its tolerance T (0 for check_layer's own).

    ``differences`` are the rows w_j - w_i and ``offsets`` b_j - b_i of the
    classes lam weighs (rationals); lam >= 0 sums to 1.  With A = sum_j
    lam_j (w_j - w_i), it holds when sum_j lam_j (b_j - b_i + T n_j) is at
    least the largest -A . x over the question's domain
    (Question.largest): R |A|_1 in a box R; without one, 0 where A = 0
    (else there is no largest); on inputs [low, high]^d, the sum over k of
    -A_k times the end that makes it largest (none where that end is
    missing).

    >>> from reviews.argmax.question import Question
    >>> holds_at([[1], [-1]], [-1, -1], [Fraction(1, 2)] * 2, Question(tolerance=1))
    True
    >>> holds_at([[1], [-1]], [-1, -1], [Fraction(1, 2)] * 2, Question(tolerance=0.99))
    False
    >>> relu = Question(inputs=(0, None))
    >>> holds_at([[1]], [1], [1], relu), holds_at([[-1]], [1], [1], relu)
    (True, False)
    """
    if not lam or any(v < 0 for v in lam) or sum(lam) != 1:
        return False
    # Integers over one denominator (lam's, then the rows'): a sum of
    # Fractions reduces by a gcd at every step.  Scaling every term by one
    # positive number changes no sign, and the norms scale alike.
    common = common_denominator(lam)
    weights = [int(v * common) for v in lam]
    width = len(differences[0]) + 1
    flat = [v for a, c in zip(differences, offsets) for v in list(a) + [c]]
    if not all(type(v) is int for v in flat):
        # Rows of an integer layer are ints already: only others are scaled.
        flat = [Fraction(v) for v in flat]
        scale = common_denominator(flat)
        flat = [int(v * scale) for v in flat]
    rows = [flat[k * width:(k + 1) * width - 1] for k in range(len(weights))]
    combined = [sum(n * row[q] for n, row in zip(weights, rows)) for q in range(width - 1)]
    constant = sum(n * flat[k * width + width - 1] for k, n in enumerate(weights))
    if question.normed:
        # Asked at tolerance 0 only: a ball, not a polyhedron (Question).
        return question.inputs.covers(combined, constant)
    largest = question.largest(combined)
    if largest is None:
        return False
    roots = [(question.tolerance * n, dot(a, a)) for n, a in zip(weights, rows)]
    return _at_least_zero(constant - largest, roots)
