"""The tolerance question: is a class the argmax on a ball of radius above T?

The released detector's linear program (its second stage, for the classes
its search misses; its search has no tolerance) calls class i argmaxable
when some ball of radius r > T (T = 1e-8, the ball's centre x in the box
|x_k| <= R) lies where class i wins: when some x has

    m_j(x) = (w_i - w_j) . x + b_i - b_j > T * n_j,   n_j = |w_i - w_j|_2,

for every j != i (m_j / n_j is the distance from x to the tie with j; for a
twin, w_j = w_i, this reads b_i > b_j).  T = 0 is check_layer's own
question.  Both answers come with certificates checked exactly, although
the n_j are square roots (reference notes, section 7):

* passes: a witness x whose margins clear T * n_j, checked by squaring
  (m > T n  <=>  m > 0 and m**2 > T**2 n**2);
* fails: lam >= 0 over the other classes, sum 1, with
  sum_j lam_j (b_j - b_i + T n_j) >= R |sum_j lam_j (w_j - w_i)|_1 in the
  box, or sum_j lam_j (w_j - w_i) = 0 and sum_j lam_j (b_j - b_i + T n_j) >= 0
  without one (by LP duality over the compact box, and Motzkin's theorem
  without it, exactly one of the two exists).

A failure at T = 0 is one at every T (each T n_j >= 0 only adds to the
left side), and a witness of T = 0 whose margins clear T * n_j is one at
T.  Most rivals are cleared without their margin: with c the rows' mean,
m_j > T (|w_i - c| + |w_j - c|) implies m_j > T n_j (the triangle
inequality), and that is the ordinary argmax test at the witness on a layer
whose biases are b_j + T |w_j - c| (each bounded above by math.isqrt),
class i's logit lowered by 2 T |w_i - c|:
one packed product (reviews.argmax.kernels.packed) per witness, where T = 0's check
pays one per candidate; only the rivals it leaves are compared exactly,
by squaring.  The classes whose witness does not clear are decided again,
by reviews.argmax.strategy.feasibility's program over a growing set of rivals with each
n_j replaced by a rational bound from math.isqrt on the safe side: an upper
bound for a witness (its margins then clear the true n_j), a lower bound
for a combination (the true n_j only add to it).  Where the two bounds
leave the answer open, they are tightened (twice the bits) and the program
runs again; this ends: when the largest radius r* differs from T, bounds
close enough decide, and when r* = T the optimal lam (a vertex of a
polytope of rational constraints, so rational) has sum_j lam_j n_j
rational, which with lam >= 0 needs each n_j of its support rational
(square roots of distinct square-free numbers are independent over the
rationals), where the lower bound is exact and the combination is found.

The same sign argument checks a combination exactly: A + T sum_j lam_j n_j
with every lam_j >= 0 is irrational unless every n_j it uses is rational,
so refining the bounds decides its sign, and with only rational n_j it is
computed exactly (``holds_at``).

The radius.  A witness x is the centre of a ball of radius
min_j m_j / n_j inside the class's region: a certified lower bound on its
largest radius (``radius``), computed exactly with no float and no square
root but the last (min_j m_j**2 / n_j**2 compared by cross-multiplication).
Only where that bound is below the threshold (1e-8) is the largest radius
itself found: the class decided at the threshold and then, if it fails, at
the values of 3 significant digits between (a bisection), so that the
classes listed as thinner than 1e-8 are exactly those whose largest radius
is at most 1e-8.

    radii            per class, a Radius: rounded-down bound or exact maximum
    Geometry         a layer's margins and distances: Geometry.carried and
                     Geometry.radius carry one result to T and find its Radius
    Radius           value (3 significant digits, rounded down; None: unbounded), exact
    THRESHOLD        1e-8, the released LP's radius bound: radii below it are found exactly
"""

import heapq
import itertools
import math
import operator
from collections import namedtuple
from fractions import Fraction

from reviews.errors import InputError
from reviews.argmax.domain import moved, moved_layer
from reviews.argmax.question import Question
from reviews.argmax.strategy.feasibility import decide_system
from reviews.argmax.kernels.layer_input import class_index, integer_layer
from reviews.argmax.reductions.masked import Masks
from reviews.argmax.kernels.norms import FIRST_BITS, clears, root_bounds
from reviews.argmax.kernels.packed import Packed, dot
from reviews.argmax.kernels.witness import Witness

__all__ = ["Radius", "Geometry", "radii", "THRESHOLD"]

# The released detector's LP: a class passes when its ball's radius is above this.
THRESHOLD = Fraction(1, 10 ** 8)
_DIGITS = 3
# Digits a radius may take to clear the tolerance its class passed.
_MOST_DIGITS = 40
# Rivals added to the working set per round.
_ADDED = 8
# Rivals measured exactly at first for a witness's radius: the nearest is
# among the rows of largest logit, or among those the packed layer lists.
_LOOKED = 16

Radius = namedtuple("Radius", "value exact upper", defaults=(None,))
Radius.__doc__ = """A lower bound on a class's largest radius r* (its Chebyshev radius).

value: a Fraction of 3 significant digits, rounded down, or None when
unbounded (no rival with other weights); exact: True when r* itself was
found (for classes whose witness's bound is at most THRESHOLD), False when
value is a witness's bound.  upper (exact radii only): value <= r* <= upper,
the next value of as many digits, or value itself when r* = value.  A class
that passed a tolerance T gets digits enough that value > T."""


class Geometry:
    """A layer in integers (integer_layer's rows and biases, or None) and the
    box (a Fraction, or None), for margins and distances; with ``orthant``,
    the inputs x >= 0 instead of a box (reviews.argmax.domain moves a
    half-line there).

    Logits of a witness x = X / s are rows . X + biases * s, all C of them
    a column at a time (C-level loops); a margin M_j and a squared distance
    Q_j = |w_i - w_j|**2 in these units give m_j / n_j = M_j / (s sqrt(Q_j)).
    """

    def __init__(self, rows, biases, box, orthant=False):
        self.rows = rows
        self.orthant = orthant
        self.has_bias = biases is not None
        self.biases = biases or [0] * len(self.rows)
        self.dim = len(self.rows[0])
        self._columns = None
        # Two passes, a row at a time: a large layer's rows are made when read.
        count, totals, self.largest = len(self.rows), [0] * self.dim, 0
        for row in self.rows:
            totals = list(map(operator.add, totals, row))
            self.largest = max(self.largest, max(map(abs, row)))
        # ceil(|w_j - c|), c the rows' mean: |w_i - w_j| <= |w_i - c| + |w_j - c|
        # settles most rivals with no distance, and rows that share a
        # direction, as trained layers' do, are far shorter about their mean.
        self.squares, self.lengths = [], []
        for row in self.rows:
            self.squares.append(dot(row, row))
            centred = [count * v - t for v, t in zip(row, totals)]
            self.lengths.append(-(-_ceil_root(dot(centred, centred)) // count))
        self.largest_bias = max(map(abs, self.biases), default=0)
        self.box = box
        self._shifted = None

    def _products(self, vector):
        if self._columns is None:
            self._columns = list(zip(*self.rows))
        totals = [0] * len(self.rows)
        for column, value in zip(self._columns, vector):
            if value:
                totals = list(map(operator.add, totals,
                                  map(operator.mul, column, itertools.repeat(value))))
        return totals

    def margins(self, i, witness):
        """(M_j for every j, s): the margins of class i at the witness, times D * s."""
        numerators, s = _integers(witness)
        logits = self._products(numerators)
        logits = [v + b * s for v, b in zip(logits, self.biases)]
        top = logits[i]
        return [top - v for v in logits], s

    def distances(self, i):
        """Q_j = |w_i - w_j|**2 for every j."""
        own = self.squares[i]
        return [own + q - 2 * g for q, g in zip(self.squares, self._products(self.rows[i]))]

    def closest(self, i, margins, distances, count):
        """The first ``count`` rivals j by increasing m_j / n_j, exactly (no root).

        A rival with n_j = 0 (a twin) comes first if its margin is not positive, else never.
        """
        order = [j for j in range(len(margins)) if j != i and (distances[j] or margins[j] <= 0)]
        return heapq.nsmallest(count, order, _RatioKey(margins, distances))

    def short(self, i, numerators, s, tolerance):
        """The rivals whose margin at the witness (numerators / s) does not
        clear tolerance * n_j, closest first.

        A margin above tolerance * (|w_i - c| + |w_j - c|), c the rows'
        mean, clears it (the triangle inequality): with T = p / q and
        x = X / s, that is the ordinary argmax test of the candidate
        (q X, q s, p s) on the rows (w_j, b_j, |w_j - c|), class i's logit
        lowered by 2 p s |w_i - c|, which the packed
        layer settles at once for most rivals; only the others' margins and
        distances are computed exactly.
        """
        p, q = tolerance.numerator, tolerance.denominator
        candidate = [q * v for v in numerators] + ([q * s] if self.has_bias else []) + [p * s]
        # In index order: rivals of equal key (every non-positive margin) keep it.
        near = sorted(self.shifted().beaten_by(i, candidate, len(self.rows),
                                               handicap=2 * p * s * self.lengths[i]))
        top = dot(self.rows[i], numerators) + self.biases[i] * s
        margins, distances = {}, {}
        for j in near:
            margins[j] = top - dot(self.rows[j], numerators) - self.biases[j] * s
            difference = list(map(operator.sub, self.rows[i], self.rows[j]))
            distances[j] = dot(difference, difference)
        scaled = tolerance * s
        short = [j for j in near if not clears(margins[j], distances[j], scaled)]
        return sorted(short, key=_RatioKey(margins, distances))

    def shifted(self):
        """The rows (w_j, b_j, ceil |w_j - c|) packed (reviews.argmax.kernels.packed), when first needed."""
        if self._shifted is None:
            self._shifted = Packed([row + ([b] if self.has_bias else []) + [length]
                                    for row, b, length in zip(self.rows, self.biases,
                                                              self.lengths)],
                                   prune=not self.has_bias)
        return self._shifted

    def radius_bound(self, i, witness):
        """Radius: min_j m_j / n_j at the witness, rounded down to 3 significant digits.

        Without a bias, margins grow with the witness: it is taken to the
        edge of the box, and without a box the radius is unbounded.  The
        rivals of largest logit bound the minimum from above, by some v;
        the packed layer (``shifted``) then lists every rival j with
        m_j <= v (|w_i - c| + |w_j - c|), c the rows' mean, which holds the
        nearest one (n_j <= |w_i - c| + |w_j - c|), and only those are
        measured exactly: a few packed products and a few rows, not the
        2 C d exact products of every margin and distance.
        """
        if not self.has_bias:
            if self.box is None:
                return Radius(None, False)
            size = max(map(abs, witness))
            if size:
                witness = [v * self.box / size for v in witness]
        numerators, s = _integers(witness)
        top = dot(self.rows[i], numerators) + self.biases[i] * s
        own = self.rows[i]
        measured = {}

        def ratio(j):
            """m_j / n_j as a _Ratio, measured exactly once."""
            if j not in measured:
                margin = top - dot(self.rows[j], numerators) - self.biases[j] * s
                if margin <= 0:
                    # Only a witness of another layer: radii was given its results.
                    raise InputError("class %d: its witness does not make it the largest logit"
                                     " of this layer; radii needs the layer's own results" % i)
                measured[j] = _Ratio(margin, self.squares[i] + self.squares[j]
                                     - 2 * dot(own, self.rows[j]))
            return measured[j]

        # The rivals of largest logit first (a handicap past every logit's
        # size lists them all): _LOOKED of them that are not twins.
        size = sum(map(abs, numerators)) * self.largest + s * self.largest_bias
        plain = list(numerators) + ([s] if self.has_bias else []) + [0]
        nearest = None
        for lister in (lambda: self.shifted().near(i, plain, 2 * size + 1, _LOOKED),
                       lambda: self._within(i, numerators, s, measured[nearest])):
            head = list(itertools.islice((j for j in lister() if ratio(j).distance), _LOOKED))
            if not head:
                # Every other row is a twin of class i's, or none is nearer.
                break
            nearest = min(head + ([nearest] if nearest is not None else []), key=ratio)
        if nearest is None:
            return Radius(None, False)
        # Every rival nearer than the nearest so far is listed, and measured.
        nearest = min([j for j in self._within(i, numerators, s, measured[nearest])
                       if ratio(j).distance] + [nearest], key=ratio)
        m, q = measured[nearest].margin, measured[nearest].distance
        return Radius(_floor_root(m * m, s * s * q), False)

    def _within(self, i, numerators, s, nearest):
        """The rivals j that may have m_j <= v (|w_i - c| + |w_j - c|) at the
        witness numerators / s, v >= the ratio ``nearest`` (a _Ratio), which
        holds every rival j with m_j / n_j <= v, as n_j <= |w_i - c| + |w_j - c|;
        largest shifted logit first."""
        p, d = nearest.margin, s * math.isqrt(nearest.distance)
        candidate = [d * x for x in numerators] + ([d * s] if self.has_bias else []) + [p * s]
        return self.shifted().near(i, candidate, 2 * p * s * self.lengths[i], _LOOKED)

    def carried(self, result, tolerance):
        """``result`` (for T = 0) carried to the tolerance T > 0: a failure
        stays one, a witness whose margins clear T * n_j stays one, and
        every other class is decided again at T.

        Class 1 wins for |x| < 1e-9 only:

        >>> from reviews.argmax.check import check_layer
        >>> W, b = [[0], [1], [2]], [0, Fraction(1, 10 ** 9), 0]
        >>> rows, biases, _ = integer_layer(W, b)
        >>> geometry = Geometry(rows, biases, None)
        >>> [geometry.carried(r, Fraction(1, 10 ** 8)).argmaxable for r in check_layer(W, b)]
        [True, False, True]
        """
        result = result._replace(question=result.question.at(tolerance))
        if not result.argmaxable:
            return result
        numerators, denominator = _integers(result.witness)
        short = self.short(result.index, numerators, denominator, tolerance)
        if not short:
            return result
        found, terms = self.decide_at(result.index, tolerance, short[:_ADDED])
        return result._replace(argmaxable=terms is None, terms=terms,
                               witness=found and Witness.of(found),
                               class_count=terms and len(self.rows))

    def radius(self, result, threshold=None):
        """The Radius of an argmaxable result (radii), or None for another."""
        if not result.argmaxable:
            return None
        threshold = THRESHOLD if threshold is None else threshold
        i = class_index(result.index, len(self.rows), "a result's index")
        if len(result.witness) != self.dim:
            raise InputError("class %d: its witness has %d coordinates, not the layer's %d"
                             % (i, len(result.witness), self.dim))
        found = self.radius_bound(i, result.witness)
        if found.value is not None and found.value <= threshold:
            found = _largest(self, i, result.witness, found.value, threshold,
                             result.tolerance or 0)
        return found

    def decide_at(self, i, tolerance, working):
        """(witness, None) or (None, terms) for class i at ``tolerance`` (>= 0).

        ``working`` (a list of rivals, extended here) starts the program.
        """
        box = self.box
        bits = FIRST_BITS
        # On the orthant, the rows x_k > 0 (offsets 0) join the program.
        units = ([[int(k == q) for k in range(self.dim)] for q in range(self.dim)]
                 if self.orthant else [])
        while True:
            rows = [list(map(operator.sub, self.rows[i], self.rows[j])) for j in working]
            offsets = [self.biases[i] - self.biases[j] for j in working]
            norms = [root_bounds(dot(a, a), bits) for a in rows]
            hard = decide_system(rows + units, [c - tolerance * upper for c, (_, upper, _)
                                         in zip(offsets, norms)] + [0] * len(units), box)
            if hard.witness is not None:
                short = self.short(i, *_integers(hard.witness), tolerance)
                short = [j for j in short if j not in working]
                if not short:
                    return hard.witness, None
                working += short[:_ADDED]
                continue
            # At T = 0 the bounds do not matter: the program was exact.
            easy = hard if not tolerance else decide_system(
                rows + units, [c - tolerance * lower for c, (lower, _, _) in zip(offsets, norms)]
                + [0] * len(units), box)
            if easy.combination is not None:
                # The rivals' weights, the units' left out, summing to 1 again.
                lam = easy.combination[:len(working)]
                total = sum(lam)
                return None, tuple((j, v / total) for j, v in sorted(zip(working, lam)) if v)
            bits *= 2


def _short(margins, distances, tolerance, strict=True):
    """The set of j whose margin M_j does not exceed (or, not strict, reach)
    tolerance * sqrt(Q_j), all at once; a twin (Q_j = 0) only for M_j <= 0."""
    p, q = tolerance.numerator, tolerance.denominator
    left = map(operator.mul, margins, margins)
    if q != 1:
        left = map(operator.mul, left, itertools.repeat(q * q))
    right = map(operator.mul, distances, itertools.repeat(p * p))
    compare = operator.gt if strict else operator.ge
    passed = map(compare, left, right)
    return {j for j, (ok, m) in enumerate(zip(passed, margins)) if not ok or m <= 0}


class _RatioKey:
    """Sort key of rival j by m_j / n_j (n_j > 0 and m_j > 0), compared by
    cross-multiplying squares; a non-positive margin first."""

    def __init__(self, margins, distances):
        self.margins, self.distances = margins, distances

    def __call__(self, j):
        return _Ratio(self.margins[j], self.distances[j])


class _Ratio:
    __slots__ = ("margin", "distance")

    def __init__(self, margin, distance):
        self.margin, self.distance = margin, distance

    def __lt__(self, other):
        if (self.margin <= 0) != (other.margin <= 0):
            return self.margin <= 0
        if self.margin <= 0:
            return False
        # m / sqrt(q) < m' / sqrt(q')  <=>  m**2 q' < m'**2 q  (a twin, q = 0, is infinite).
        return self.margin ** 2 * other.distance < other.margin ** 2 * self.distance


def _ceil_root(square):
    """ceil(sqrt(square)) of an integer square >= 0.

    >>> _ceil_root(0), _ceil_root(16), _ceil_root(17)
    (0, 4, 5)
    """
    return math.isqrt(square - 1) + 1 if square else 0


def _floor_root(numerator, denominator):
    """sqrt(numerator / denominator) rounded down to 3 significant digits, as a Fraction.

    >>> _floor_root(2, 1), _floor_root(1, 10 ** 20)
    (Fraction(141, 100), Fraction(1, 10000000000))
    """
    # floor(sqrt(y)) == isqrt(floor(y)) for y >= 0.
    estimate = (numerator.bit_length() - denominator.bit_length()) * math.log10(2) / 2
    shift = _DIGITS - 1 - math.floor(estimate)
    while True:
        if shift >= 0:
            mantissa = math.isqrt(numerator * 10 ** (2 * shift) // denominator)
        else:
            mantissa = math.isqrt(numerator // (denominator * 10 ** (-2 * shift)))
        if mantissa >= 10 ** _DIGITS:
            shift -= 1
        elif mantissa < 10 ** (_DIGITS - 1):
            shift += 1
        else:
            return Fraction(mantissa, 10 ** shift) if shift >= 0 else Fraction(
                mantissa * 10 ** -shift)


def _integers(witness):
    """A witness (Fractions, or a Witness) as (numerators, common denominator)."""
    witness = Witness.of(witness)
    return witness.numerators, witness.denominator


def radii(weights, bias, results, threshold=THRESHOLD, inputs=None):
    """A Radius per result (None for an unargmaxable class), with its centre
    where the results' question asks (their box or inputs: ClassResult.question),
    or for ``inputs`` = (low, high), where given, in them ((-inf, inf) and
    (None, None) are all of R^d, as in check_layer).

    Each is its witness's bound; where that is below ``threshold``, the
    largest radius itself: exact = True and value the largest radius rounded
    down to 3 significant digits when it is at most the threshold, else the
    bound of a witness that clears the threshold.

    Class 1 wins for |x| < 1e-9 only:

    >>> from reviews.argmax.check import check_layer
    >>> W, b = [[0], [1], [2]], [0, Fraction(1, 10 ** 9), 0]
    >>> radii(W, b, check_layer(W, b, box=100))[1]
    Radius(value=Fraction(1, 1000000000), exact=True, upper=Fraction(1, 1000000000))

    With its centre at x >= 5e-10, the ball reaches 1e-9 sooner:

    >>> half = (Fraction(1, 2 * 10 ** 9), None)
    >>> radii(W, b, check_layer(W, b, inputs=half))[1].value
    Fraction(1, 2000000000)
    """
    question = results[0].question if results else Question()
    if inputs is not None:
        question = Question(inputs=inputs).at(question.tolerance)
    if question.normed:
        raise InputError("radii are not given for a norm's outputs (a ball inside the norm's"
                         " ball is not asked)")
    if question.inputs is None:
        return _radii(weights, bias, results, threshold, question.box, False)
    # Measured on the moved question: moving x changes no margin and no distance.
    weights, bias, box, orthant = moved_layer(weights, bias, question.inputs)
    return _radii(weights, bias, [moved(result, question) for result in results], threshold,
                  box, orthant)


def _radii(weights, bias, results, threshold, box, orthant):
    """radii of the results of a moved question (in a box, or on x >= 0)."""
    masks = Masks(weights, bias)
    if masks.masked:
        # None for a masked class (never argmaxable), the others measured
        # on the layer without the masked classes.
        shown = [result for result in results if result.index in masks.position]
        found = _radii(masks.select(weights), masks.select(bias),
                       [result._replace(index=masks.position[result.index])
                        for result in shown], threshold, box, orthant) if shown else []
        found = dict(zip((result.index for result in shown), found))
        return [found.get(result.index) for result in results]
    rows, biases, _ = integer_layer(weights, bias)
    geometry = Geometry(rows, biases, box, orthant)
    return [geometry.radius(result, threshold) for result in results]


def _largest(geometry, i, witness, low, threshold, tolerance=0):
    """The Radius of class i whose witness's bound is ``low`` <= threshold.

    The class is decided at the threshold; if it fails there, its largest
    radius r* (>= low) is at most the threshold, and a bisection over the
    values of 3 significant digits finds the largest g with r* > g (or
    g = low, a witness's bound) and the next, h, with r* <= h.  Where the
    class fails at g = low, r* = low exactly.  A class argmaxable at
    ``tolerance`` T has r* > T: more digits are bisected until g > T, so
    that the radius shown beside that verdict never reads against it.
    """
    margins, _ = geometry.margins(i, witness)
    working = geometry.closest(i, margins, geometry.distances(i), _ADDED)
    found, _ = geometry.decide_at(i, threshold, working)
    if found is not None:
        return geometry.radius_bound(i, found)
    # Grid values as integers n: value(n) = (100 + n % 900) * 10**(n // 900 - shift).
    # low >= 1 / its denominator, so low * 10**shift >= 10**(_DIGITS + 1).
    shift = _DIGITS + 2 + int(low.denominator.bit_length() * math.log10(2))
    below, above = _grid_index(low, shift), _grid_index(threshold, shift)
    # A witness in a thin region often has nearly its largest ball: the
    # grid value just above ``low`` is tried first, where one decision can
    # end a bisection of some 24 (a region 1e-12000 wide: 12,000 decades).
    middle = below + 1
    while above - below > 1:
        found, _ = geometry.decide_at(i, _grid_value(middle, shift), working)
        if found is None:
            above = middle
        else:
            bound = geometry.radius_bound(i, found).value
            below = max(middle, min(_grid_index(bound, shift), above - 1))
        middle = (below + above) // 2
    lower, upper = _grid_value(below, shift), _grid_value(above, shift)
    if lower == low and geometry.decide_at(i, low, working)[0] is None:
        return Radius(low, True, low)
    digits = _DIGITS
    while lower <= tolerance and digits < _MOST_DIGITS:
        digits += 1
        lower, upper = _finer(geometry, i, working, lower, upper, digits)
    return Radius(lower, True, upper)


def _finer(geometry, i, working, lower, upper, digits):
    """(g, h): the values of ``digits`` significant digits in [lower, upper]
    with r* > g (or g = lower) and r* <= h, found by bisection."""
    unit = Fraction(10) ** (_decimal_exponent(lower) - digits + 1)
    below, above = math.floor(lower / unit), math.ceil(upper / unit)
    while above - below > 1:
        middle = (below + above) // 2
        if geometry.decide_at(i, middle * unit, working)[0] is None:
            above = middle
        else:
            below = middle
    return below * unit, above * unit


def _decimal_exponent(value):
    """floor(log10(value)) of a positive Fraction, from bit lengths, then exactly."""
    exponent = int((value.numerator.bit_length() - value.denominator.bit_length())
                   * math.log10(2))
    while Fraction(10) ** exponent > value:
        exponent -= 1
    while Fraction(10) ** (exponent + 1) <= value:
        exponent += 1
    return exponent


def _grid_index(value, shift):
    """The index of a value of 3 significant digits on the grid of ``_largest``."""
    scaled = math.floor(value * 10 ** shift)
    # The decimal exponent from the bit length, then corrected by a step or two.
    exponent = max(0, int(scaled.bit_length() * math.log10(2)) - _DIGITS)
    while scaled // 10 ** exponent >= 10 ** _DIGITS:
        exponent += 1
    while exponent and scaled // 10 ** exponent < 10 ** (_DIGITS - 1):
        exponent -= 1
    return 900 * exponent + scaled // 10 ** exponent - 10 ** (_DIGITS - 1)


def _grid_value(index, shift):
    exponent, mantissa = divmod(index, 900)
    return (10 ** (_DIGITS - 1) + mantissa) * Fraction(10) ** (exponent - shift)
