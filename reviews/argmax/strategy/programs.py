"""The programs that decide what the searches leave: rivals added round by round.

Clarkson's idea: a class is decided against a small working set of the
rivals that beat its last candidate; the candidate of each round is
checked against all C classes at once (reviews.argmax.kernels.packed), and the
rivals that beat it join.  Two programs run so, on a PreparedLayer
(reviews.argmax.strategy.decide):

* from 12 dimensions, the point nearest the origin of the hull of the
  rivals' constraints (Wolfe's algorithm in floats: reviews.argmax.strategy.nearest),
  whose combination, where the hull holds the origin, is solved exactly
  by p-adic lifting (reviews.argmax.kernels.lifting);
* the penalized linear program (reviews.argmax.strategy.feasibility), in FLOATS,
  then in Decimals(n), then in EXACT integers, which always decides
  (reviews.argmax.kernels.arithmetic).

    clarkson        the linear program over a growing working set, in one arithmetic
    nearest         the nearest point over a growing working set (floats)
    FIRST_PENALTY   the program's first penalty, in its own units
    ADDED_PER_ROUND rivals a round adds at most
"""

import decimal
import math
from fractions import Fraction

from reviews.argmax.kernels.arithmetic import FLOATS
from reviews.argmax.strategy.feasibility import Program, basis_combination, scaled_floats
from reviews.argmax.kernels.lifting import solve_integers
from reviews.argmax.strategy.nearest import NearestPoint
from reviews.argmax.result import ClassResult
from reviews.exact import to_float

__all__ = ["clarkson", "nearest", "FIRST_PENALTY", "ADDED_PER_ROUND"]

FIRST_PENALTY = 4
ADDED_PER_ROUND = 8
_FLOAT_ROUNDS = 64
_MARGIN_TOLERANCE = 1e-9
# From this many dimensions the nearest point decides what the search
# leaves, before the penalized program: on seeded layers with half their
# rows shrunk into the hull, it took 1.2x the program's time in d = 4 and
# 8, the same in d = 12, and 0.85x from d = 16; in d = 120 (a trained OCR
# head) it took 2-3 s a class where the program took 20-30 s.
_NEAREST_FROM = 12


def clarkson(layer, i, working, arithmetic):
    """Decide class i of the PreparedLayer ``layer`` from a growing working
    set of rivals, in ``arithmetic`` (reviews.argmax.kernels.arithmetic); None if
    rounding fails.

    In FLOATS or Decimals(n), the program proposes certificates that are
    checked exactly.  In EXACT integers,
    it always decides, and ends: the exact point of each round
    beats every working rival, so each round adds a new one (at most C - 1
    times) or raises the penalty, which the exact program needs only a
    bounded number of times (reviews.argmax.strategy.feasibility), and in a box never.
    """
    try:
        return _rounds(layer, i, working, arithmetic)
    except decimal.DecimalException:
        # Past the Decimals' exponent range: the exact program decides.
        return None


def _rounds(layer, i, working, arithmetic):
    tolerance = _MARGIN_TOLERANCE if arithmetic is FLOATS else 0
    penalty = _penalty(layer, arithmetic)
    if not 0 < penalty < math.inf:
        return None
    program = Program(*_rows(layer, i, working, arithmetic), penalty, arithmetic)
    for _ in arithmetic.rounds(_FLOAT_ROUNDS):
        relaxed = program.solve()
        if relaxed is None:
            return None
        if relaxed.value > tolerance:
            candidate = _candidate(layer, relaxed.x, arithmetic)
            if candidate is None:
                return None
            witness, fresh = _checked(layer, i, working, candidate)
            if not fresh:
                return witness
            program.add(*_rows(layer, i, fresh, arithmetic))
        elif layer.box is not None or not relaxed.slack:
            if arithmetic.exact:
                lam = program.row_weights()
            else:
                lam = basis_combination(*layer.differences(i, working), relaxed.basis, layer.box)
                if lam is None:
                    return None
            terms = sorted((j, value) for j, value in zip(working, lam) if value)
            return ClassResult(i, False, None, tuple(terms), layer.class_count)
        elif not program.grow_penalty():
            return None
    return None


def nearest(layer, i, working):
    """Decide class i by the point nearest the origin (reviews.argmax.strategy.nearest); None if floats fail.

    The points are the program's rows of the working rivals with their
    offsets, and with a bias (0, ..., 0, 1) first.  Where they are apart
    from the origin, y is a witness candidate, checked against every row;
    the rows that beat it join.  Where they hold it, the corral's
    combination is solved and checked exactly.
    """
    if layer.dim < _NEAREST_FROM or layer.box is not None or FLOATS not in layer.inexact:
        return None
    rows, offsets = _rows(layer, i, working, FLOATS)
    lead = [[0.0] * layer.dim + [1.0]] if layer.has_bias else []
    near = NearestPoint(lead + _gordan(rows, offsets, layer.has_bias))
    while True:
        found = near.search()
        if found is None:
            return None
        kind, value = found
        if kind == "origin":
            return _corral_combination(layer, i, working, [n for n, _ in value], len(lead))
        x = [v / value[-1] for v in value[:-1]] if layer.has_bias else value
        candidate = _candidate(layer, x, FLOATS)
        if candidate is None:
            return None
        witness, fresh = _checked(layer, i, working, candidate)
        if not fresh:
            return witness
        near.add(_gordan(*_rows(layer, i, fresh, FLOATS), layer.has_bias))


def _checked(layer, i, working, candidate):
    """A round's candidate checked against every class: (its witness, None)
    if class i beats them all; else (None, the rivals that beat it and are
    new to ``working``, at most ADDED_PER_ROUND, now added to it), with no
    rival if none is new."""
    beaten = layer.packed.beaten_by(i, candidate[0], len(working) + ADDED_PER_ROUND)
    if not beaten:
        return layer.witness(i, candidate), None
    fresh = [j for j in beaten if j not in working][:ADDED_PER_ROUND]
    working += fresh
    return None, fresh


def _gordan(rows, offsets, has_bias):
    """The points g_k = (a_k, c_k) of the program's rows (a_k alone without a bias)."""
    if not has_bias:
        return [list(a) for a in rows]
    return [list(a) + [c] for a, c in zip(rows, offsets)]


def _corral_combination(layer, i, working, corral, lead):
    """The exact combination on the corral (positions in the points: with a
    bias, 0 is the lead point (0, ..., 0, 1), then the rivals of
    ``working``), or None if it is not one.

    The weights mu solve sum_n mu_n g_n = 0 and sum_n mu_n = 1 over the
    corral exactly, each must be >= 0; with a bias, the lead point's
    weight is -sum_k mu_k c_k, so the rivals' bias condition holds.  A
    corral has at most d + 2 points in the d + 1 coordinates of a layer
    with a bias: without the lead point, d + 2 rivals meet the bias
    condition with equality.
    """
    rivals = [working[n - lead] for n in corral if n >= lead]
    if not rivals:
        return None
    rows, offsets = layer.differences(i, rivals)
    columns = [list(a) + [c] for a, c in zip(rows, offsets)] if layer.has_bias else rows
    if lead and 0 in corral:
        columns = [[0] * layer.dim + [1]] + columns
    height = len(columns[0])
    matrix = [[1] * len(columns)] + [[column[q] for column in columns] for q in range(height)]
    solved = solve_integers(matrix, [1] + [0] * height)
    if solved is None or any(v < 0 for v in solved[0]):
        return None
    weights = solved[0][len(columns) - len(rivals):]
    total = sum(weights)
    terms = tuple(sorted((j, Fraction(v, total)) for j, v in zip(rivals, weights) if v))
    if not terms or not layer.combination_holds(i, terms):
        return None
    return ClassResult(i, False, None, terms, layer.class_count)


def _rows(layer, i, working, arithmetic):
    """Rows w_i - w_j and offsets b_i - b_j of the LP over ``working``.

    EXACT in a box p/q, the offsets are times q: the LP's x is q * x,
    and its penalty p (``_penalty``).  Otherwise in floats or Decimals.
    """
    if arithmetic.exact:
        rows, offsets = layer.differences(i, working)
        if layer.box is not None:
            offsets = [layer.box.denominator * c for c in offsets]
        return rows, offsets
    if arithmetic is not FLOATS or layer.wide:
        rows, offsets = layer.differences(i, working)
        return scaled_floats(rows, [c / layer.x_unit for c in offsets], arithmetic)
    rows = [[a - b for a, b in zip(layer.lp_weights[i], layer.lp_weights[j])]
            for j in working]
    return rows, [layer.lp_bias[i] - layer.lp_bias[j] for j in working]

def _penalty(layer, arithmetic):
    """The LP's first penalty; in a box, its only one: R in the LP's units."""
    if layer.box is None:
        return layer.first_penalty if arithmetic.exact else FIRST_PENALTY
    if arithmetic.exact:
        return layer.box.numerator
    unit = layer.box / layer.x_unit
    return to_float(unit) if arithmetic is FLOATS else unit

def _candidate(layer, x, arithmetic):
    """The candidate for the LP's point x; None if floats fail."""
    if arithmetic.exact:
        return layer.candidate(x if layer.box is None else [v / layer.box.denominator for v in x])
    if arithmetic is not FLOATS:
        return layer.candidate([Fraction(v) * layer.x_unit for v in x])
    if not all(map(math.isfinite, x)):
        return None
    point = [v * layer.float_x_unit for v in x]
    if all(map(math.isfinite, point)):
        return layer.candidate(point)
    # The unit is past the float range: scale exactly instead.
    return layer.candidate([Fraction(v) * layer.x_unit for v in x])
