"""Exact argmaxability of the classes of a softmax layer, with certificates.

A layer has C classes with weights w_j in R^d and optional biases b_j; the
logits are w_j . x + b_j.  Class i is argmaxable iff some input x gives it
strictly the largest logit.  ``check_layer`` decides every class exactly and
returns a certificate for each, checked exactly or exact by construction:

* argmaxable: a ``witness`` x (Fractions) with w_i . x + b_i > w_j . x + b_j
  for every j != i;
* not argmaxable: a combination lam with lam >= 0, lam_i = 0, sum(lam) = 1,
  sum_j lam_j w_j = w_i and sum_j lam_j b_j >= b_i, kept sparse as its
  nonzero ``terms`` ((j, lam_j), ...): a basic solution has at most
  rank + 2 of them (Caratheodory; rank + 1 without a bias), so memory
  grows with C, not C**2.

How it stays fast in pure Python: every number is scaled to an integer by
one common denominator; a candidate x is checked against all C classes at
once by a few big-integer products (the C logits, rounded to a few bits,
packed into 2-byte fields of one integer, with a rigorous bound on the
rounding: reviews.argmax.packed), and only the classes whose margin is within
that bound are checked one by one in exact integers.  Candidates come
from x = w_i and a few reflections; in 12 dimensions or more, then from
the point nearest the origin of the hull of the rivals' constraints
(Wolfe's algorithm, in floats: reviews.argmax.nearest), over the classes
that beat the last candidate (Clarkson's idea), whose combination, where
the hull holds the origin, is solved exactly by p-adic lifting
(reviews.argmax.lifting); then from a small linear program over the same
growing set of rivals, in floats, then where floats fail in Decimals of as many digits as the layer's
numbers span (a layer of numbers from 1e-300 to 1e300 loses its small
ones in floats); the same program in exact integers decides what both
leave open, and always decides (reviews.argmax.feasibility proves that it ends).  With fewer
classes than dimensions (C - 1 < d), the program runs on at most C - 1
input coordinates that carry the whole question (reviews.argmax.span); witnesses
are exact there, and a combination is checked on the whole layer.

Floats and Decimals only propose: a number past the float range is still
taken at its exact value, and every certificate is checked exactly.

The box.  The paper's released detector looks only in a box: is class i
the strict argmax somewhere in |x_k| <= R (R = 100 in its code)?
``check_layer(..., box=R)`` answers it exactly, with R a positive int,
Fraction, Decimal or float taken at its exact value, and certificates
(``ClassResult.box`` = R records the question):

* argmaxable in the box: a witness x as above with max_k |x_k| <= R;
* not argmaxable in the box: terms lam >= 0 over the other classes with
  sum(lam) = 1 and sum_j lam_j (b_j - b_i) >= R * |sum_j lam_j (w_j - w_i)|_1.
  For x in the box, v . x >= -R * |v|_1 with v = sum_j lam_j (w_j - w_i),
  so the lam-weighted mean of the rival logits is at least logit i.

By LP duality over the compact box, one of the two always exists: the
program of reviews.argmax.feasibility with its penalty fixed at R.  Without a bias
the box changes nothing (a witness scaled towards 0 stays one), so the
answers are those for R^d with witnesses scaled into the box.  With a bias
the reduction to a few coordinates is not used (a boxed combination's
condition is not kept by it) and every candidate is clamped into the box.  An answer for
R^d is also one for the box where it holds: a combination with
sum_j lam_j w_j = w_i proves every box, a witness proves R^d; but a boxed
combination proves nothing about R^d, and ``verify`` with box=None says so.

    check_layer     one ClassResult per class
    verify          exact, independent check of a ClassResult's certificate
    braid_reflect   the Braid-reflect search (floats, a strict win only), for comparison
    ClassResult     index, argmaxable, witness, terms, classes, box, tolerance; .combination
    exact_layer     the layer's weights and bias as Fractions (reviews.argmax.layer_input)
"""

import decimal
import functools
import itertools
import math
import operator
from collections import namedtuple
from fractions import Fraction

from reviews.errors import InputError
from reviews.exact import common_denominator, shown, to_float
from reviews.argmax.candidates import SharedDirection, reflected_witness, reflections
from reviews.argmax.feasibility import Program, basis_combination, is_combination, scaled_floats
from reviews.argmax.layer_input import (
    FloatRows, asked_classes, box_bound, certificate_number, check_spread, class_index,
    exact_layer, extremes, integer_layer, sequence, validated,
)
from reviews.argmax.lines import upper_envelope
from reviews.argmax.masked import iter_unmasked, masked_classes, verify_unmasked
from reviews.argmax.lifting import solve_integers
from reviews.argmax.nearest import NearestPoint
from reviews.argmax.packed import Packed, dot
from reviews.argmax.span import SpanCoordinates
from reviews.argmax.result import ClassResult, decoded, encoded
from reviews.argmax.tolerance import Geometry, Radius, clears, holds_at, tolerance_bound
from reviews.argmax.twins import Twins
from reviews.argmax.witness import Witness
from reviews.argmax.workers import iter_items, job_count, start_method

__all__ = ["ClassResult", "check_layer", "verify", "braid_reflect", "exact_layer"]


_FIRST_PENALTY = 4

_FLOAT_ROUNDS = 64
_ADDED_PER_ROUND = 8
_MARGIN_TOLERANCE = 1e-9
_REFLECTIONS = 8
# From this many dimensions the nearest point decides what the search
# leaves, before the penalized program: on seeded layers with half their
# rows shrunk into the hull, it took 1.2x the program's time in d = 4 and
# 8, the same in d = 12, and 0.85x from d = 16; in d = 120 (a trained OCR
# head) it took 2-3 s a class where the program took 20-30 s.
_NEAREST_FROM = 12
# Floats of the layer in its own units while entries stay below 2**_FLOAT_BITS.
_FLOAT_BITS = 1000
# Bits between the largest and smallest nonzero entry past which LP rows are scaled one by one.
_FLOAT_SPREAD = 200
_DIGITS_PER_BIT = math.log10(2)
_GUARD_DIGITS = 40
_DIGIT_SHARES = (20, 3, 1)
# A float point becomes a candidate of this many bits; x = w_i is taken
# exactly while its candidate has at most _ROW_BITS.
_POINT_BITS = 30
_ROW_BITS = 32


class _ScaledRows:
    """Rows of integers divided by ``unit``, as floats, made when asked for.

    A class needs its own row and those of its few rivals: a float copy of
    a whole layer of GPT-2's shape would take gigabytes.
    """

    def __init__(self, rows, unit):
        self.rows, self.unit = rows, unit

    def __getitem__(self, j):
        unit = self.unit
        return [v / unit for v in self.rows[j]]


class _Layer:
    """A layer in integers (its entries times ``denominator``), packed, with float copies.

    ``bias`` is None for a layer without bias.  ``box``, a Fraction R or
    None, limits inputs to |x_k| <= R; it is dropped without a bias, where
    it changes no answer.
    """

    def __init__(self, weights, bias, denominator, box=None):
        self.weights = weights
        self.classes, self.dim = len(weights), len(weights[0])
        self.has_bias = bias is not None
        self.box = box if self.has_bias else None
        self.bias = bias if self.has_bias else [0] * self.classes
        self.denominator = denominator
        rows = weights
        if self.has_bias:
            rows = (weights.with_column(bias) if isinstance(weights, FloatRows)
                    else [w + [b] for w, b in zip(weights, bias)])
        self.packed = Packed(rows, prune=not self.has_bias)
        self._reduced = None
        self._centre = None
        self._shared = None
        # Floats of the layer in its own units, for x = w_i and the
        # reflections; past the float range, in units of the largest entry.
        smallest, largest = extremes(rows)
        unit = denominator if largest >> _FLOAT_BITS < denominator else largest
        # Then the floats of a float layer's rows are exactly its integers over 2**K.
        self.binary = unit == denominator and not denominator & (denominator - 1)
        self.float_weights = _ScaledRows(weights, unit)
        self.float_bias = [v / unit for v in self.bias]
        # The LPs see weights and biases each scaled to at most 1; their x is
        # then in units of bias scale / weight scale, where witnesses live.
        weight_scale = max(max(map(abs, row)) for row in weights) or 1
        bias_scale = max(map(abs, self.bias)) or weight_scale
        self.lp_weights = _ScaledRows(weights, weight_scale)
        self.lp_bias = [v / bias_scale for v in self.bias]
        self.x_unit = Fraction(bias_scale, weight_scale)
        self.float_x_unit = to_float(self.x_unit)
        self.first_penalty = max(_FIRST_PENALTY, -(-_FIRST_PENALTY * bias_scale // weight_scale))
        # The inexact programs tried in turn, by their digits (None: floats).
        # Past this spread, one shared scale leaves most LP rows zero in
        # floats: each row is scaled on its own.  Where floats still fail,
        # Decimals of as many digits as the spread keep every row whole;
        # where most rows span that much on their own, floats are not tried
        # (their failed bases cost exact checks on long numbers).
        spread = largest.bit_length() - smallest.bit_length()
        self.wide = spread > _FLOAT_SPREAD
        full = int(spread * _DIGITS_PER_BIT) + _GUARD_DIGITS
        digits = sorted({max(_GUARD_DIGITS, full // share) for share in _DIGIT_SHARES})
        wide_rows = sum(_span(row) > _FLOAT_SPREAD for row in rows) if self.wide else 0
        self.inexact = tuple(digits) if 2 * wide_rows > len(rows) else (None, *digits)

    def centre(self):
        """The mean of the rows, in the units of ``float_weights``; made when first asked for."""
        if self._centre is None:
            sums = [0] * self.dim
            for row in self.weights:
                sums = list(map(operator.add, sums, row))
            total = self.classes * self.float_weights.unit
            self._centre = [v / total for v in sums]
        return self._centre

    def shared(self):
        """The layer's SharedDirection (reviews.argmax.candidates); made when first asked for."""
        if self._shared is None:
            self._shared = SharedDirection(self)
        return self._shared

    def candidate(self, x):
        """(integer candidate, its denominator) for a point x.

        The candidate is x * denominator (with the denominator appended when
        there is a bias), so logits of the candidate are positive multiples
        of the logits at x.
        """
        if all(isinstance(v, float) for v in x):
            t = self._point_shift(math.frexp(max(map(abs, x)))[1])
            return self._completed([round(math.ldexp(v, t)) for v in x], Fraction(2) ** t)
        denominator = common_denominator(x)
        return self._completed([int(v * denominator) for v in x], denominator)

    def _point_shift(self, exponent):
        """The t that gives a point about _POINT_BITS bits as integers times
        2**-t, its largest |x_k| of math.frexp exponent ``exponent`` (and,
        under a bias, 1: the candidate's last entry)."""
        if self.has_bias:
            return max(_POINT_BITS - max(exponent, 1), 0)
        return _POINT_BITS - exponent

    def _completed(self, scaled, denominator):
        """(candidate, denominator) for the point scaled / denominator: moved
        into the box, and the denominator appended under a bias."""
        scaled = self._clamped(scaled, denominator)
        return scaled + [int(denominator)] if self.has_bias else scaled, denominator

    def _clamped(self, scaled, denominator):
        """The point scaled / denominator moved into the box, if any: a witness must be there."""
        if self.box is None:
            return scaled
        limit = math.floor(self.box * denominator)
        return [max(-limit, min(limit, v)) for v in scaled]

    def row_candidate(self, i):
        """The candidate for x = w_i (clamped into the box): exact if its
        integers are small; else rounded to about _POINT_BITS bits, from the
        integers when the denominator is a power of 2.  For a float layer
        w_i / 2**K is the row's floats exactly, and this is the candidate
        ``candidate`` makes of them (halves to even, as round() does)."""
        exact = self._completed(self.weights[i], self.denominator)
        if not max(map(abs, exact[0])) >> _ROW_BITS:
            return exact
        if not self.binary:
            return self.candidate(self.float_weights[i])
        row = self.weights[i]
        largest = max(map(abs, row))
        # The exponent math.frexp gives max |x|.
        t = self._point_shift(largest.bit_length() - self.denominator.bit_length() + 1
                              if largest else 0)
        shift = self.denominator.bit_length() - 1 - t
        if shift <= 0:
            scaled = [v << -shift for v in row]
        else:
            # Halves to even, as round() does: (v + 2**(s-1) - 1 + (bit s of v)) >> s.
            half = (1 << (shift - 1)) - 1
            scaled = [(v + half + ((v >> shift) & 1)) >> shift for v in row]
        return self._completed(scaled, Fraction(2) ** t)

    def witness(self, i, candidate):
        """The result for a candidate that makes class i the strict maximum."""
        scaled, denominator = candidate
        numerators = scaled[:self.dim]
        if denominator.denominator != 1:
            numerators = [v * denominator.denominator for v in numerators]
        return ClassResult(i, True, Witness(numerators, denominator.numerator), None)

    def reflect(self, x, i, rival):
        """x reflected across the tie of classes i and rival; None if floats fail."""
        normal = [p - q for p, q in zip(self.float_weights[i], self.float_weights[rival])]
        size = dot(normal, normal)
        if not size:
            return None
        distance = (dot(normal, x) + self.float_bias[i] - self.float_bias[rival]) / size
        point = [v - 2 * distance * n for v, n in zip(x, normal)]
        return point if all(map(math.isfinite, point)) else None

    def differences(self, i, working):
        """Exact rows w_i - w_j and offsets b_i - b_j over ``working``."""
        rows = [[a - b for a, b in zip(self.weights[i], self.weights[j])] for j in working]
        return rows, [self.bias[i] - self.bias[j] for j in working]

    def lp_rows(self, i, working, exact, digits):
        """Rows w_i - w_j and offsets b_i - b_j of the LP over ``working``.

        Exact in a box p/q, the offsets are times q: the LP's x is q * x,
        and its penalty p (``lp_penalty``).  Inexact, in floats or in
        Decimals of ``digits`` digits.
        """
        if exact:
            rows, offsets = self.differences(i, working)
            if self.box is not None:
                offsets = [self.box.denominator * c for c in offsets]
            return rows, offsets
        if digits is not None or self.wide:
            rows, offsets = self.differences(i, working)
            return scaled_floats(rows, [c / self.x_unit for c in offsets], digits)
        rows = [[a - b for a, b in zip(self.lp_weights[i], self.lp_weights[j])]
                for j in working]
        return rows, [self.lp_bias[i] - self.lp_bias[j] for j in working]

    def lp_penalty(self, exact, digits):
        """The LP's first penalty; in a box, its only one: R in the LP's units."""
        if self.box is None:
            return self.first_penalty if exact else _FIRST_PENALTY
        if exact:
            return self.box.numerator
        return to_float(self.box / self.x_unit) if digits is None else self.box / self.x_unit

    def lp_candidate(self, x, exact, digits):
        """The candidate for the LP's point x; None if floats fail."""
        if exact:
            return self.candidate(x if self.box is None else [v / self.box.denominator for v in x])
        if digits is not None:
            return self.candidate([Fraction(v) * self.x_unit for v in x])
        if not all(map(math.isfinite, x)):
            return None
        point = [v * self.float_x_unit for v in x]
        if all(map(math.isfinite, point)):
            return self.candidate(point)
        # The unit is past the float range: scale exactly instead.
        return self.candidate([Fraction(v) * self.x_unit for v in x])

    def reduced(self, needed, exact=False):
        """(this layer on a few coordinates, its SpanCoordinates), or None if not worth it.

        The differences w_j - w_0 span r <= C - 1 dimensions, so only
        C - 1 < d can gain; r coordinates carry the whole question
        (reviews.argmax.span), on the layer's own integers.  Finding them costs
        about C * r * min(d, C) operations modulo a prime, and a float
        program in d dimensions about d**3 float operations: so the floats
        get the coordinates only for few classes (C**3 <= d**2), the exact
        program whenever it is ``needed`` (exact pivots in d dimensions
        cost far more).  Computed once, when a class first needs the LP;
        ``exact`` asks for coordinates chosen in exact arithmetic instead
        (once the prime has missed part of the span), kept for the classes
        after.
        """
        if self.box is not None or self.classes - 1 >= self.dim or not (
                needed or self.classes ** 3 <= self.dim ** 2):
            return None
        if self._reduced is None or (exact and not self._reduced[1].exact):
            span = SpanCoordinates(self.weights, exact=exact)
            bias = self.bias if self.has_bias else None
            self._reduced = _Layer(span.restricted(self.weights), bias, self.denominator), span
        return self._reduced

    def combination_holds(self, i, terms):
        """Exact check: ``terms`` are a combination for class i on this layer, in R^d."""
        rows, offsets = self.differences(i, [j for j, _ in terms])
        return is_combination(rows, offsets, [value for _, value in terms])


def _span(row):
    """Bits between the largest and the smallest nonzero magnitude in a row of integers."""
    smallest, largest = extremes([row])
    return largest.bit_length() - smallest.bit_length()


def _clarkson(layer, i, working, exact, digits=None):
    """Decide class i from a growing working set of rivals; None if rounding fails.

    Inexact, the program runs in floats, or in Decimals of ``digits``
    digits, and proposes certificates that are checked exactly.  Exact,
    it always decides, and ends: the exact point of each round
    beats every working rival, so each round adds a new one (at most C - 1
    times) or raises the penalty, which the exact program needs only a
    bounded number of times (reviews.argmax.feasibility), and in a box never.
    """
    try:
        return _rounds(layer, i, working, exact, digits)
    except decimal.DecimalException:
        # Past the Decimals' exponent range: the exact program decides.
        return None


def _rounds(layer, i, working, exact, digits):
    tolerance = _MARGIN_TOLERANCE if digits is None and not exact else 0
    penalty = layer.lp_penalty(exact, digits)
    if not 0 < penalty < math.inf:
        return None
    program = Program(*layer.lp_rows(i, working, exact, digits), penalty, exact=exact,
                      digits=digits)
    for _ in itertools.count() if exact else range(_FLOAT_ROUNDS):
        relaxed = program.solve()
        if relaxed is None:
            return None
        if relaxed.value > tolerance:
            candidate = layer.lp_candidate(relaxed.x, exact, digits)
            if candidate is None:
                return None
            beaten = layer.packed.beaten_by(i, candidate[0], len(working) + _ADDED_PER_ROUND)
            if not beaten:
                return layer.witness(i, candidate)
            fresh = [j for j in beaten if j not in working][:_ADDED_PER_ROUND]
            if not fresh:
                return None
            working += fresh
            program.add(*layer.lp_rows(i, fresh, exact, digits))
        elif layer.box is not None or not relaxed.slack:
            if exact:
                lam = program.row_weights()
            else:
                lam = basis_combination(*layer.differences(i, working), relaxed.basis, layer.box)
                if lam is None:
                    return None
            terms = sorted((j, value) for j, value in zip(working, lam) if value)
            return ClassResult(i, False, None, tuple(terms), layer.classes)
        elif not program.grow_penalty():
            return None
    return None


def _nearest(layer, i, working):
    """Decide class i by the point nearest the origin (reviews.argmax.nearest); None if floats fail.

    The points are the program's rows of the working rivals with their
    offsets, and with a bias (0, ..., 0, 1) first.  Where they are apart
    from the origin, y is a witness candidate, checked against every row;
    the rows that beat it join.  Where they hold it, the corral's
    combination is solved and checked exactly.
    """
    if layer.dim < _NEAREST_FROM or layer.box is not None or None not in layer.inexact:
        return None
    rows, offsets = layer.lp_rows(i, working, False, None)
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
        candidate = layer.lp_candidate(x, False, None)
        if candidate is None:
            return None
        beaten = layer.packed.beaten_by(i, candidate[0], len(working) + _ADDED_PER_ROUND)
        if not beaten:
            return layer.witness(i, candidate)
        fresh = [j for j in beaten if j not in working][:_ADDED_PER_ROUND]
        if not fresh:
            return None
        working += fresh
        near.add(_gordan(*layer.lp_rows(i, fresh, False, None), layer.has_bias))


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
    return ClassResult(i, False, None, terms, layer.classes)


def _decide(layer, i):
    if layer.classes == 1:
        return ClassResult(i, True, tuple(Fraction(0) for _ in range(layer.dim)), None)
    # Where the rows share a direction, as real output layers' do, x = w_i
    # mostly fails: first a candidate as if the rows were whitened.  It and
    # its reflections leave ``working`` as it was, so that the program,
    # where still needed, decides as before.
    start = layer.shared().point(i)
    if start is not None:
        shared = layer.candidate(start)
        rivals = layer.packed.beaten_by(i, shared[0], 1)
        if not rivals:
            return layer.witness(i, shared)
        # Then the paper's search with real patience, across one rival at a
        # time: where many rivals beat x = w_i, a few reflections of this
        # candidate find a witness.
        found = reflected_witness(layer, i, start, rivals[0], reflections(layer.dim))
        if found is not None:
            return layer.witness(i, found)
    candidate = layer.row_candidate(i)
    beaten = layer.packed.beaten_by(i, candidate[0], _ADDED_PER_ROUND)
    working = list(beaten)
    if beaten:
        point = layer.float_weights[i]
        # Adding one vector to every row adds one number to every logit: x =
        # w_i - (the rows' mean) is x = w_i for the centred layer, where an
        # embedding's long rows along the shared mean no longer beat it.
        centred = [v - m for v, m in zip(point, layer.centre())]
        if all(map(math.isfinite, centred)):
            other = layer.candidate(centred)
            others = layer.packed.beaten_by(i, other[0], _ADDED_PER_ROUND)
            working += [j for j in others if j not in working]
            if len(others) <= len(beaten):
                point, candidate, beaten = centred, other, others
    # Reflections pay off when few rivals beat x = w_i; otherwise go to the LP.
    for _ in range(_REFLECTIONS if len(beaten) < _ADDED_PER_ROUND else 0):
        reflected = beaten and layer.reflect(point, i, beaten[0])
        if not reflected:
            break
        point = reflected
        candidate = layer.candidate(point)
        beaten = layer.packed.beaten_by(i, candidate[0], _ADDED_PER_ROUND)
        working += [j for j in beaten if j not in working]
    if not beaten:
        return layer.witness(i, candidate)
    # The paper's search with real patience, if not tried from the shared
    # direction's candidate already.
    if start is None:
        found = reflected_witness(layer, i, point, beaten[0], reflections(layer.dim))
        if found is not None:
            return layer.witness(i, found)
    reduction = layer.reduced(needed=False)
    if reduction is None:
        result = _nearest(layer, i, working)
        if result is not None:
            return result
        # The inexact rounds extend ``working``: the exact program starts
        # from every rival they met.
        for digits in layer.inexact:
            result = _clarkson(layer, i, working, exact=False, digits=digits)
            if result is not None:
                return result
        reduction = layer.reduced(needed=True)
        if reduction is None:
            return _clarkson(layer, i, working, exact=True)
    while True:
        reduced, span = reduction
        result = _decide(reduced, i)
        if result.argmaxable:
            return ClassResult(i, True, span.lift(result.witness), None)
        if layer.combination_holds(i, result.terms):
            return result
        if span.exact:
            # Exact coordinates keep the rank, so this never happens; were
            # it to, no unchecked answer is reported: all d coordinates.
            return _clarkson(layer, i, working, exact=True)
        # The prime missed part of the span (reviews.argmax.span): exact coordinates.
        reduction = layer.reduced(needed=True, exact=True)


def check_layer(weights, bias=None, progress=None, *, box=None, jobs=1, tolerance=0,
                classes=None):
    """Decide every class of the layer exactly; one ClassResult per class.

    ``progress``, if given, is called as progress(done, total) while the
    check runs, in this process.  ``box`` = R (a positive number, taken
    exactly) asks about inputs with |x_k| <= R only (module docstring);
    None asks about R^d.  ``jobs`` worker processes (a positive int, or
    None for every usable CPU) share the classes; the results are the same
    for every ``jobs``.  With jobs > 1 under the ``spawn`` start method
    (macOS, Windows), call it from under ``if __name__ == "__main__":``.
    ``tolerance`` = T > 0 (taken exactly) asks whether class i is the
    argmax on a ball of radius above T, its centre in the box if any (the
    question of the released detector's linear program, which its search
    stage does not ask: reviews.argmax.tolerance); 0 asks check_layer's own.
    A class whose bias is -inf is masked: never argmaxable, with
    ``masked`` True, and the others are decided without it
    (reviews.argmax.masked).  ``classes`` (an iterable of class ids)
    decides only those, each against every row of the layer, and returns
    their results in increasing class order; None decides every class.

    >>> W = [[-2, -2], [1, 2], [Fraction(9, 5), Fraction(-4, 5)], [Fraction(9, 10), Fraction(1, 5)]]
    >>> [r.argmaxable for r in check_layer(W)]
    [True, True, True, False]
    >>> check_layer(W)[3].terms
    ((0, Fraction(43, 290)), (1, Fraction(61, 145)), (2, Fraction(25, 58)))

    Class 1 wins only for x > 2, outside the box [-1, 1]:

    >>> [r.argmaxable for r in check_layer([[0], [1]], [0, -2], box=1)]
    [True, False]
    >>> check_layer([[0], [1]], [0, -2], box=1)[1].terms
    ((0, Fraction(1, 1)),)
    >>> [(r.index, r.argmaxable) for r in check_layer(W, classes=[3, 1])]
    [(1, True), (3, False)]
    """
    return [checked.result for checked in iter_check_layer(
        weights, bias, progress, box=box, jobs=jobs, tolerance=tolerance, classes=classes)]


Checked = namedtuple("Checked", "result radius")
Checked.__doc__ = """A class's ClassResult, and its Radius (reviews.argmax.tolerance.radii)
when iter_check_layer was asked for radii, else None (and None for a class
that is not argmaxable)."""


def iter_check_layer(weights, bias=None, progress=None, *, box=None, jobs=1, tolerance=0,
                     classes=None, radii=False):
    """check_layer's results as they come: an iterator of a Checked per class
    asked, in increasing class order, each as soon as it and every class
    before it are decided.

    The layer is read, validated and prepared before this returns (its
    errors are raised here); the classes are decided while the iterator is
    read, by ``jobs`` worker processes, which end when it is exhausted or
    closed.  With ``radii``, each argmaxable class's Radius (a certified
    lower bound, or its exact largest radius where that is below 1e-8:
    reviews.argmax.tolerance.radii) is found where the class was decided,
    for its result (at the tolerance, if any).

    Class 1 wins for 0 < x < 2, at x = 1 by 1 over either neighbour:

    >>> W, b = [[0], [1], [2]], [0, 1, 0]
    >>> [c.result.argmaxable for c in iter_check_layer(W, b)]
    [True, True, True]
    >>> next(c.radius for c in iter_check_layer(W, b, radii=True) if c.result.index == 1)
    Radius(value=Fraction(1, 1), exact=False)
    """
    if progress is not None and not callable(progress):
        raise TypeError("progress must be a function called as progress(done, total), not %s"
                        % type(progress).__name__)
    masked = masked_classes(bias)
    bound = None if box is None else box_bound(box)
    if masked:
        # A masked class's result says the question too: the report reads
        # the box and the tolerance off any result, the first included.
        return iter_unmasked(weights, bias, masked, lambda w, b, asked: iter_check_layer(
            w, b, progress, box=box, jobs=jobs, tolerance=tolerance, classes=asked, radii=radii),
            functools.partial(_masked_result, bound, tolerance_bound(tolerance)), classes)
    jobs = job_count(jobs)
    tolerance = tolerance_bound(tolerance)
    rows, biases, denominator = integer_layer(weights, bias)
    asked = asked_classes(classes, len(rows))
    # Repeated rows are settled by a twin; the rest on one representative per row.
    twins = Twins(rows, biases)
    reduced = (twins.select(rows), twins.select(biases), denominator)
    check_spread(*reduced, bound, tolerance)
    # Only representatives that stand for a class without a twin need deciding.
    needed = sorted({twins.position[i] for i in asked if i not in twins.twin})
    plan = (reduced, bound, twins, (rows, biases) if tolerance or radii else None,
            tolerance, radii)
    return _in_order(asked, twins, bound, tolerance, _decided(plan, needed, jobs, progress))


def _masked_result(box, tolerance, index, argmaxable, classes, masked):
    return Checked(ClassResult(index, argmaxable, classes=classes, box=box, tolerance=tolerance,
                               masked=masked), None)


def _in_order(asked, twins, bound, tolerance, decided):
    """A Checked per class asked: a twin's at once, the others' from ``decided`` in turn."""
    try:
        for i in asked:
            if i in twins.twin:
                result = ClassResult(i, False, None, ((twins.twin[i], Fraction(1)),),
                                     twins.classes, tolerance=tolerance)
                yield Checked(result if bound is None else _into_box(result, bound), None)
            else:
                yield next(decided)
    finally:
        decided.close()


def _decided(plan, needed, jobs, progress):
    """A Checked for each of the representatives ``needed``, in order, from
    this process or from ``jobs`` workers."""
    reduced, bound = plan[:2]
    lines = None
    if len(reduced[0][0]) == 1 and (bound is None or reduced[1] is None):
        # One dimension: the upper envelope of lines decides every class at once.
        envelope = upper_envelope([w for w, in reduced[0]], reduced[1] or [0] * len(reduced[0]))
        lines = [ClassResult(n, not terms, witness, terms)
                 for n, (witness, terms) in enumerate(envelope)]
    if lines is not None or jobs == 1 or len(needed) < 2:
        _start_worker(*plan)
        try:
            for done, n in enumerate(needed, 1):
                checked = _worker.finished(n, lines and lines[n])
                if progress is not None:
                    progress(done, len(needed))
                yield checked
        finally:
            _stop_worker()
        return
    if start_method() == "fork":
        # Forked workers inherit the layer built here once, instead of each
        # building its own copy side by side, slower for sharing the CPUs.
        _start_worker(*plan)
        start, arguments = None, ()
    else:
        start, arguments = _start_worker, plan
    try:
        yield from iter_items(start, arguments, _decide_chunk, needed, jobs, progress, _decoded)
    finally:
        _stop_worker()


class _Plan:
    """What a process needs to decide classes of the layer: the packed
    layer of representatives, and, for a tolerance or radii, the whole
    integer layer's geometry (reviews.argmax.tolerance), made when first
    needed."""

    def __init__(self, reduced, bound, twins, integer, tolerance, radii):
        self.layer, self.bound, self.twins = _Layer(*reduced, box=bound), bound, twins
        self.integer, self.tolerance, self.radii = integer, tolerance, radii
        self._geometry = None

    def geometry(self):
        if self._geometry is None:
            self._geometry = Geometry(*self.integer, self.bound)
        return self._geometry

    def finished(self, n, result=None):
        """The Checked of representative n: decided (unless ``result`` is
        given), in the box, in the layer's classes, at the tolerance, with
        its radius if asked."""
        if result is None:
            result = _decide(self.layer, n)
        if self.bound is not None:
            result = _into_box(result, self.bound)
        result = self.twins.renamed(result)
        if self.tolerance:
            result = self.geometry().carried(result, self.tolerance)
        return Checked(result, self.geometry().radius(result) if self.radii else None)


# The _Plan of this process while a check runs (in a worker, its lifetime).
_worker = None


def _start_worker(reduced, bound, twins=None, integer=None, tolerance=0, radii=False):
    global _worker
    _worker = _Plan(reduced, bound, twins or Twins(reduced[0], reduced[1]), integer, tolerance,
                    radii)


def _stop_worker():
    global _worker
    _worker = None


def _decide_boxed(i):
    """The result of representative i, in the box (no tolerance, no radius)."""
    layer, bound = _worker.layer, _worker.bound
    result = _decide(layer, i)
    return result if bound is None else _into_box(result, bound)


def _decide_chunk(indices):
    """The Checked of a chunk of representatives, in plain integers (cheap to send)."""
    return [(encoded(checked.result), checked.radius and tuple(checked.radius))
            for checked in map(_worker.finished, indices)]


def _decoded(chunk):
    """The Checked of a chunk from ``_decide_chunk``."""
    return [Checked(decoded(result), radius and Radius(*radius)) for result, radius in chunk]


def _into_box(result, box):
    """The result for the box: a witness scaled into it, the box recorded.

    Only a layer without bias, decided for R^d, has witnesses outside the
    box, and there a positive multiple of a witness is one.
    """
    if result.argmaxable:
        witness = Witness.of(result.witness)
        size = witness.size()
        if size > box:
            result = result._replace(witness=witness.scaled(box / size))
    return result._replace(box=box)


def verify(weights, bias, result, box=None, tolerance=0):
    """Check a ClassResult's certificate in exact arithmetic, from scratch.

    True if the certificate proves the result for inputs in R^d, or with
    ``box`` = R for inputs with |x_k| <= R; False if it is well formed but
    does not: a witness where class ``index`` is not strictly the largest
    logit (or outside the box), or terms that are not a combination (a
    weight that is negative, weights not summing to 1, on ``index``
    itself, or not giving w_i and a bias of at least b_i; in a box, not
    giving sum_j lam_j (b_j - b_i) >= R |sum_j lam_j (w_j - w_i)|_1).
    ``result.box`` is not consulted: a combination for a box proves
    nothing about R^d, so check a boxed result with its box.  With
    ``tolerance`` = T > 0, a witness's margins must exceed T |w_i - w_j|_2
    and terms must prove that none does (reviews.argmax.tolerance); a
    result for T proves nothing about a smaller T.  A malformed
    argument raises: TypeError if ``result`` is not a ClassResult or
    ``box`` not a number, InputError (a ValueError) for an index that is
    not a class, a witness that is not d finite numbers, terms that are
    not (class, finite number) pairs in increasing class order, or a box
    that is not positive and finite.

    >>> W = [[0, 0], [1, 0], [2, 0]]
    >>> all(verify(W, None, r) for r in check_layer(W))
    True
    >>> verify(W, None, ClassResult(1, True, (5, 0)))
    False
    >>> boxed = check_layer([[0], [1]], [0, -2], box=1)[1]
    >>> verify([[0], [1]], [0, -2], boxed, box=1), verify([[0], [1]], [0, -2], boxed)
    (True, False)
    """
    masked = masked_classes(bias)
    if masked and isinstance(result, ClassResult):
        return verify_unmasked(weights, bias, result, masked,
                               lambda w, b, r: verify(w, b, r, box, tolerance))
    rows, biases = exact_layer(weights, bias)
    biases = biases or [Fraction(0)] * len(rows)
    bound = None if box is None else box_bound(box)
    tolerance = tolerance_bound(tolerance)
    if not isinstance(result, ClassResult):
        raise TypeError("result must be a ClassResult, not %s" % type(result).__name__)
    i = class_index(result.index, len(rows), "result.index")
    if result.argmaxable:
        if result.witness is None:
            raise InputError("result %d is argmaxable but has no witness" % i)
        x = sequence(result.witness, "result.witness")
        if len(x) != len(rows[0]):
            raise InputError("result.witness has length %d for d = %d" % (len(x), len(rows[0])))
        x = [certificate_number(v, "result.witness[%d]" % k, "a witness")
             for k, v in enumerate(x)]
        if bound is not None and max(map(abs, x)) > bound:
            return False
        top = dot(rows[i], x) + biases[i]
        if tolerance:
            return all(clears(top - dot(row, x) - b, _distance(rows[i], row), tolerance)
                       for j, (row, b) in enumerate(zip(rows, biases)) if j != i)
        return all(dot(row, x) + b < top for j, (row, b) in enumerate(zip(rows, biases))
                   if j != i)
    if result.terms is None:
        raise InputError("result %d is not argmaxable but has no terms" % i)
    support, lam = [], []
    for n, term in enumerate(sequence(result.terms, "result.terms")):
        pair = sequence(term, "result.terms[%d]" % n)
        if len(pair) != 2:
            raise InputError("result.terms[%d] has %d entries, not 2 (class, weight)"
                             % (n, len(pair)))
        j = class_index(pair[0], len(rows), "result.terms[%d]'s class" % n)
        if support and j <= support[-1]:
            raise InputError("result.terms[%d]'s class %d does not follow class %d:"
                             " terms go in increasing class order" % (n, j, support[-1]))
        support.append(j)
        lam.append(certificate_number(pair[1], "result.terms[%d]'s weight" % n, "weights"))
    if i in support:
        return False
    if tolerance:
        return bool(support) and holds_at([[a - b for a, b in zip(rows[j], rows[i])]
                                           for j in support],
                                          [biases[j] - biases[i] for j in support], lam,
                                          tolerance, bound)
    differences = [[a - b for a, b in zip(rows[i], rows[j])] for j in support]
    return bool(support) and is_combination(
        differences, [biases[i] - biases[j] for j in support], lam, bound)


def _distance(a, b):
    """|a - b|_2 squared."""
    difference = list(map(operator.sub, a, b))
    return dot(difference, difference)


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
