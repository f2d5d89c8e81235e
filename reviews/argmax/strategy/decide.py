"""A layer prepared for deciding its classes, and the strategies that decide one class.

``PreparedLayer`` holds a layer in integers (every entry times one common
denominator), packed for exact checks of all C logits at a candidate at
once (reviews.argmax.kernels.packed), with the float copies that the searches and
the inexact programs read.  ``decide`` tries ``STRATEGIES`` in turn on one
class; each returns its ClassResult, certified, or None to pass it on.
The cheap float searches come first, each candidate checked exactly; the
programs (reviews.argmax.strategy.programs) decide what they leave, the exact one
always:

    one class           the only class wins everywhere
    sparse witness      from 32 dimensions, x = t s on a few coordinates
    bounded program     in a box of 32 dimensions or more, a float simplex of
                        one row per rival and d bounded columns (reviews.argmax.strategy.bounded)
    shared direction    x as if the rows were whitened, then its reflections
    rows, reflections   x = w_i, x = w_i - mean and a few reflections
    braid search        the paper's search with real patience
    few coordinates     C - 1 < d: the same on a few coordinates (span), where cheap
    nearest point       from 12 dimensions, Wolfe's nearest point
    inexact programs    the linear program in floats, then Decimals
    needed coordinates  C - 1 < d: the exact program on a few coordinates
    exact program       the linear program in exact integers: always decides

    PreparedLayer       the layer in integers, packed, with float copies
    decide              the ClassResult of one class
    STRATEGIES          the strategies, in the order tried
"""

import math
import operator
from fractions import Fraction

from reviews.argmax.kernels.arithmetic import EXACT, FLOATS, Decimals
from reviews.argmax.question import Question
from reviews.argmax.strategy.bounded import BOUNDED_FROM, ScaledLayer, decide_bounded
from reviews.argmax.strategy.braid import reflected, reflected_witness, reflections
from reviews.argmax.strategy.candidates import SharedDirection
from reviews.argmax.strategy.feasibility import is_combination
from reviews.argmax.kernels.layer_input import FloatRows, extremes
from reviews.argmax.kernels.packed import Packed
from reviews.argmax.kernels.sparse import SparseColumns
from reviews.argmax.strategy.programs import ADDED_PER_ROUND, FIRST_PENALTY, clarkson, nearest
from reviews.argmax.result import ClassResult
from reviews.argmax.strategy.span import SpanCoordinates
from reviews.argmax.strategy.supports import Supports
from reviews.argmax.kernels.witness import Witness
from reviews.exact import common_denominator, to_float

__all__ = ["PreparedLayer", "decide", "STRATEGIES"]

_REFLECTIONS = 8
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
# Sparse candidates are tried from this many dimensions (below, a dense
# candidate costs about as little).
_SPARSE_FROM = 32


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


class PreparedLayer:
    """A layer in integers (its entries times ``denominator``), packed, with float copies.

    ``bias`` is None for a layer without bias.  ``box``, a Fraction R or
    None, limits inputs to |x_k| <= R; it is dropped without a bias, where
    it changes no answer.
    """

    def __init__(self, weights, bias, denominator, box=None):
        self.weights = weights
        self.class_count, self.dim = len(weights), len(weights[0])
        self.has_bias = bias is not None
        self.box = box if self.has_bias else None
        self.bias = bias if self.has_bias else [0] * self.class_count
        self.denominator = denominator
        rows = weights
        if self.has_bias:
            rows = (weights.with_column(bias) if isinstance(weights, FloatRows)
                    else [w + [b] for w, b in zip(weights, bias)])
        self._rows = rows
        self._packed = None
        # Candidates of few nonzero coordinates, in many dimensions: their
        # columns are packed now, for every class (forked workers share them).
        self.sparse = SparseColumns(weights, bias) if self.dim >= _SPARSE_FROM else None
        self._supports = None
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
        weight_scale = (largest if rows is weights else extremes(weights)[1]) or 1
        bias_scale = max(map(abs, self.bias)) or weight_scale
        self.lp_weights = _ScaledRows(weights, weight_scale)
        self.lp_bias = [v / bias_scale for v in self.bias]
        self.x_unit = Fraction(bias_scale, weight_scale)
        self._scales = weight_scale, bias_scale
        self._scaled = None
        self.float_x_unit = to_float(self.x_unit)
        self.first_penalty = max(FIRST_PENALTY, -(-FIRST_PENALTY * bias_scale // weight_scale))
        # The inexact programs tried in turn, by their arithmetic.
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
        decimals = tuple(map(Decimals, digits))
        self.inexact = decimals if 2 * wide_rows > len(rows) else (FLOATS, *decimals)

    @property
    def packed(self):
        """The rows packed for dense candidates (reviews.argmax.kernels.packed),
        made when a class first needs them: a layer whose classes all have
        sparse witnesses never does."""
        if self._packed is None:
            self._packed = Packed(self._rows, prune=not self.has_bias)
        return self._packed

    def supports(self):
        """The layer's Supports (reviews.argmax.strategy.supports); made when first asked for."""
        if self._supports is None:
            self._supports = Supports(self.sparse)
        return self._supports

    def centre(self):
        """The mean of the rows, in the units of ``float_weights``; made when first asked for."""
        if self._centre is None:
            sums = [0] * self.dim
            for row in self.weights:
                sums = list(map(operator.add, sums, row))
            total = self.class_count * self.float_weights.unit
            self._centre = [v / total for v in sums]
        return self._centre

    def shared(self):
        """The layer's SharedDirection (reviews.argmax.strategy.candidates); made when first asked for."""
        if self._shared is None:
            self._shared = SharedDirection(self)
        return self._shared

    def scaled(self):
        """The layer's ScaledLayer (reviews.argmax.strategy.bounded), in the
        LPs' units; made when first asked for."""
        if self._scaled is None:
            self._scaled = ScaledLayer(self.weights, self.bias, *self._scales)
        return self._scaled

    def candidate(self, x):
        """(integer candidate, its denominator) for a point x.

        The candidate is x * denominator (with the denominator appended when
        there is a bias), so logits of the candidate are positive multiples
        of the logits at x.
        """
        if isinstance(x, Witness):
            return self._completed(list(x.numerators), x.denominator)
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

    def differences(self, i, working):
        """Exact rows w_i - w_j and offsets b_i - b_j over ``working``."""
        rows = [[a - b for a, b in zip(self.weights[i], self.weights[j])] for j in working]
        return rows, [self.bias[i] - self.bias[j] for j in working]

    def reduced(self, needed, exact=False):
        """(this layer on a few coordinates, its SpanCoordinates), or None if not worth it.

        The differences w_j - w_0 span r <= C - 1 dimensions, so only
        C - 1 < d can gain; r coordinates carry the whole question
        (reviews.argmax.strategy.span), on the layer's own integers.  Finding them costs
        about C * r * min(d, C) operations modulo a prime, and a float
        program in d dimensions about d**3 float operations: so the floats
        get the coordinates only for few classes (C**3 <= d**2), the exact
        program whenever it is ``needed`` (exact pivots in d dimensions
        cost far more).  Computed once, when a class first needs the LP;
        ``exact`` asks for coordinates chosen in exact arithmetic instead
        (once the prime has missed part of the span), kept for the classes
        after.
        """
        if self.box is not None or self.class_count - 1 >= self.dim or not (
                needed or self.class_count ** 3 <= self.dim ** 2):
            return None
        if self._reduced is None or (exact and not self._reduced[1].exact):
            span = SpanCoordinates(self.weights, exact=exact)
            bias = self.bias if self.has_bias else None
            self._reduced = (PreparedLayer(span.restricted(self.weights), bias, self.denominator),
                             span)
        return self._reduced

    def combination_holds(self, i, terms):
        """Exact check: ``terms`` are a combination for class i on this layer, in R^d."""
        rows, offsets = self.differences(i, [j for j, _ in terms])
        return is_combination(rows, offsets, [value for _, value in terms])


def _span(row):
    """Bits between the largest and the smallest nonzero magnitude in a row of integers."""
    smallest, largest = extremes([row])
    return largest.bit_length() - smallest.bit_length()


class _Search:
    """What the strategies for one class leave to those after them: the
    shared direction's point (None if none), the last point tried and the
    rivals that beat it, and ``working``, every rival met so far."""

    def __init__(self):
        self.start = self.point = None
        self.beaten, self.working = [], []


def _one_class(layer, i, search):
    if layer.class_count == 1:
        return ClassResult(i, True, tuple(Fraction(0) for _ in range(layer.dim)), None)
    return None


def _sparse_witness(layer, i, search):
    # A point of a few nonzero coordinates, checked against every row in
    # as many column additions (reviews.argmax.kernels.sparse).
    if layer.sparse is None:
        return None
    scales = layer.sparse.scales(layer.box)
    for order, signs in layer.supports().of(i):
        found = layer.sparse.won(i, order, signs, scales)
        if found is not None:
            x, q = layer.sparse.candidate(*found)
            return layer.witness(i, (x, Fraction(q)))
    return None


def _shared_direction(layer, i, search):
    # Where the rows share a direction, as real output layers' do, x = w_i
    # mostly fails: first a candidate as if the rows were whitened.  It and
    # its reflections leave ``working`` as it was, so that the program,
    # where still needed, decides as before.
    search.start = start = layer.shared().point(i)
    if start is None:
        return None
    shared = layer.candidate(start)
    rivals = layer.packed.beaten_by(i, shared[0], 1)
    if not rivals:
        return layer.witness(i, shared)
    # Then the paper's search with real patience, across one rival at a
    # time: where many rivals beat x = w_i, a few reflections of this
    # candidate find a witness.
    found = reflected_witness(layer, i, start, rivals[0], reflections(layer.dim))
    return None if found is None else layer.witness(i, found)


def _rows_and_reflections(layer, i, search):
    candidate = layer.row_candidate(i)
    beaten = layer.packed.beaten_by(i, candidate[0], ADDED_PER_ROUND)
    working = list(beaten)
    if beaten:
        point = layer.float_weights[i]
        # Adding one vector to every row adds one number to every logit: x =
        # w_i - (the rows' mean) is x = w_i for the centred layer, where an
        # embedding's long rows along the shared mean no longer beat it.
        centred = [v - m for v, m in zip(point, layer.centre())]
        if all(map(math.isfinite, centred)):
            other = layer.candidate(centred)
            others = layer.packed.beaten_by(i, other[0], ADDED_PER_ROUND)
            working += [j for j in others if j not in working]
            if len(others) <= len(beaten):
                point, candidate, beaten = centred, other, others
        # Reflections pay off when few rivals beat x = w_i; otherwise go to the LP.
        for _ in range(_REFLECTIONS if len(beaten) < ADDED_PER_ROUND else 0):
            moved = beaten and reflected(layer, point, i, beaten[0])
            if not moved:
                break
            point = moved
            candidate = layer.candidate(point)
            beaten = layer.packed.beaten_by(i, candidate[0], ADDED_PER_ROUND)
            working += [j for j in beaten if j not in working]
    search.working = working
    if not beaten:
        return layer.witness(i, candidate)
    search.point, search.beaten = point, beaten
    return None


def _bounded_program(layer, i, search):
    # In a box of many dimensions, the program of one row per rival and d
    # bounded columns (reviews.argmax.strategy.bounded), where the
    # penalized program's tableau has d rows.
    if layer.box is None or layer.dim < BOUNDED_FROM:
        return None
    working = search.working or [j for j in range(min(layer.class_count, ADDED_PER_ROUND + 1))
                                 if j != i]

    def check(point):
        candidate = layer.candidate(point)
        beaten = layer.packed.beaten_by(i, candidate[0], len(working) + ADDED_PER_ROUND)
        return (None, beaten) if beaten else (layer.witness(i, candidate), None)
    found = decide_bounded(layer.scaled(), i, working, Question.exact(layer.box), check)
    if found is None:
        return None
    witness, terms = found
    return witness if terms is None else ClassResult(i, False, None, terms, layer.class_count)


def _braid_search(layer, i, search):
    # The paper's search with real patience, if not tried from the shared
    # direction's candidate already.
    if search.start is not None:
        return None
    found = reflected_witness(layer, i, search.point, search.beaten[0],
                              reflections(layer.dim))
    return None if found is None else layer.witness(i, found)


def _few_coordinates(layer, i, search):
    return _on_span(layer, i, search, needed=False)


def _nearest_point(layer, i, search):
    return nearest(layer, i, search.working)


def _inexact_programs(layer, i, search):
    # The inexact rounds extend ``working``: the exact program starts
    # from every rival they met.
    for arithmetic in layer.inexact:
        result = clarkson(layer, i, search.working, arithmetic)
        if result is not None:
            return result
    return None


def _needed_coordinates(layer, i, search):
    return _on_span(layer, i, search, needed=True)


def _exact_program(layer, i, search):
    return clarkson(layer, i, search.working, EXACT)


def _on_span(layer, i, search, needed):
    """Class i decided on the layer's few coordinates (PreparedLayer.reduced),
    and checked on the whole layer; None if they are not worth it."""
    reduction = layer.reduced(needed=needed)
    while reduction is not None:
        reduced, span = reduction
        result = decide(reduced, i)
        if result.argmaxable:
            return ClassResult(i, True, span.lift(result.witness), None)
        if layer.combination_holds(i, result.terms):
            return result
        if span.exact:
            # Exact coordinates keep the rank, so this never happens; were
            # it to, no unchecked answer is reported: all d coordinates.
            return _exact_program(layer, i, search)
        # The prime missed part of the span (reviews.argmax.strategy.span): exact coordinates.
        reduction = layer.reduced(needed=True, exact=True)
    return None


STRATEGIES = (_one_class, _sparse_witness, _bounded_program, _shared_direction,
              _rows_and_reflections, _braid_search,
              _few_coordinates, _nearest_point, _inexact_programs, _needed_coordinates,
              _exact_program)


def decide(layer, i):
    """The ClassResult of class i of the PreparedLayer ``layer``: the first
    that one of STRATEGIES returns (the last always does).

    >>> layer = PreparedLayer([[0, 0], [2, 0], [1, 0]], None, 1)
    >>> [decide(layer, i).argmaxable for i in range(3)]
    [True, True, False]
    """
    search = _Search()
    for strategy in STRATEGIES:
        result = strategy(layer, i, search)
        if result is not None:
            return result
    raise AssertionError("the exact program always decides")   # reviews.argmax.strategy.feasibility
