"""How many rankings of its classes a softmax layer can produce.

A layer with C classes in dimension d ranks the classes by their logits;
each ranking it can produce is a region of input space.  For a generic
layer the number of regions depends only on C, d and whether there is a
bias (Good & Tideman 1977; the appendix tables of Grivas, Bogoychev & Lopez
2022).  With c(n, k) the unsigned Stirling numbers of the first kind:

    with bias:     sum over nu = 0..d of c(C, C - nu)
    without bias:  sum over nu = 0..d, nu = d - 1 (mod 2), of 2 c(C, C - nu)

Both are C! once d >= C - 1 (computed for C <= 100,000).  Otherwise only
the terms nu <= d are computed: for C <= 2,000 by the recurrence in C, and
for d <= 100 (and C < 10**100) from the second-order Eulerian numbers
(c(n, n - k) is a polynomial of degree 2k in n), in O(d**2) steps whatever
C is.  Arguments past these limits, where no answer is practical, raise
InputError naming them.

``realized_rankings`` enumerates the rankings a given layer produces, each
decided exactly with its certificate (a witness, or a combination checked
by reviews.argmax.strategy.feasibility), so the formula can be checked against an actual
layer; most rankings need no linear program of their own.

    region_count        the formula, an exact int
    stirling_first      unsigned Stirling numbers of the first kind
    realized_rankings   every ranking of a layer, decided exactly
"""

import itertools
import math
from collections import namedtuple
from fractions import Fraction

from reviews.errors import InputError
from reviews.exact import common_denominator
from reviews.argmax.strategy.feasibility import decide_system, is_combination
from reviews.argmax.kernels.layer_input import integer_layer
from reviews.argmax.kernels.packed import dot
from reviews.argmax.strategy.span import AffineSpan

__all__ = ["region_count", "stirling_first", "realized_rankings", "Ranking"]

# Each limit keeps one call within about a second (measured on CPython 3.11).
_MAX_FACTORIAL_CLASSES = 100000   # C! has at most 456,574 digits
_MAX_RECURRENCE_CLASSES = 2000    # the recurrence in C: C * d big-int steps
_MAX_EULERIAN_DIM = 100           # the Eulerian sum: about d**2 steps ...
_MAX_CLASSES_DIGITS = 100         # ... on numbers of about 2 d log2(C) bits
_MAX_RANKED_CLASSES = 6           # 6! = 720 exact programs
# The layer over its common denominator, in bits: exact programs on longer
# numbers cost seconds each (1e-300 with 1e300 beside it: 2,000 bits).
_MAX_RANKED_BITS = 1024

Ranking = namedtuple("Ranking", "order witness combination")
Ranking.__doc__ = """A ranking of classes (largest logit first) and its certificate.

witness: an input giving exactly this strict order (tuple of Fraction), or
None; combination: weights on the consecutive pairs proving it impossible.
"""


def _integer(value, name):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int, not %s" % (name, type(value).__name__))
    return value


def _positive(value, name):
    if _integer(value, name) < 1:
        raise InputError("%s must be a positive integer, not %s" % (name, _shown(value)))
    return value


def _shown(n):
    """An int for a message: its digits, or its size when it is long."""
    return str(n) if abs(n) < 10 ** 30 else "an int of %d bits" % n.bit_length()


def _past_limits(what):
    return InputError(
        "%s is past the limits: C! is computed for C <= %d when d >= C - 1; otherwise"
        " C <= %d, or d <= %d with C < 10**%d" % (what, _MAX_FACTORIAL_CLASSES,
                                                   _MAX_RECURRENCE_CLASSES, _MAX_EULERIAN_DIM,
                                                   _MAX_CLASSES_DIGITS))


def _stirling_tail(n, depth, what):
    """[c(n, n - k) for k = 0..depth]; InputError naming ``what`` past the limits."""
    if n <= _MAX_RECURRENCE_CLASSES:
        return _tail_by_recurrence(n, depth)
    if depth <= _MAX_EULERIAN_DIM and n < 10 ** _MAX_CLASSES_DIGITS:
        return _tail_by_eulerian(n, depth)
    raise _past_limits(what)


def _tail_by_recurrence(n, depth):
    # c(m + 1, m + 1 - k) = c(m, m - k) + m c(m, m + 1 - k), for k <= depth only.
    tail = [1] + [0] * depth
    for m in range(n):
        for k in range(min(depth, m + 1), 0, -1):
            tail[k] += m * tail[k - 1]
    return tail


def _tail_by_eulerian(n, depth):
    # c(n, n - k) = sum_j E2(k, j) binom(n + j, 2k) (Graham, Knuth & Patashnik,
    # Concrete Mathematics, eq. 6.44), E2 the second-order Eulerian numbers;
    # needs n >= 2 depth, so that binom(n, 2k) starts the ratios.
    tail, eulerian = [1], [1]
    for k in range(1, depth + 1):
        eulerian = [(j + 1) * (eulerian[j] if j < len(eulerian) else 0)
                    + (2 * k - 1 - j) * (eulerian[j - 1] if j else 0) for j in range(k)]
        binomial, total = math.comb(n, 2 * k), 0
        for j, e in enumerate(eulerian):
            if j:
                binomial = binomial * (n + j) // (n + j - 2 * k)
            total += e * binomial
        tail.append(total)
    return tail


def stirling_first(n, k):
    """Unsigned Stirling number of the first kind c(n, k).

    Past 2,000, only n - k <= 100 is computed (InputError beyond).

    >>> [stirling_first(4, k) for k in range(5)]
    [0, 6, 11, 6, 1]
    >>> stirling_first(10 ** 6, 10 ** 6 - 1)
    499999500000
    """
    if _integer(n, "n") < 0:
        raise InputError("n must be at least 0, not %s" % _shown(n))
    if not 0 <= _integer(k, "k") <= n:
        return 0
    return _stirling_tail(n, n - k, "stirling_first(%s, %s)" % (_shown(n), _shown(k)))[n - k]


def region_count(classes, dim, bias=True):
    """Rankings of ``classes`` classes a generic layer of dimension ``dim`` produces.

    ``bias`` must be True or False.  Past the module's limits (see its
    docstring) the answer is refused with InputError.

    >>> region_count(4, 2), region_count(4, 2, bias=False)
    (18, 12)
    >>> region_count(5, 3), region_count(5, 3, bias=False)
    (96, 72)
    >>> region_count(2, 10 ** 18), region_count(10 ** 6, 1)
    (2, 499999500001)
    """
    _positive(classes, "classes")
    _positive(dim, "dim")
    if not isinstance(bias, bool):
        raise TypeError("bias must be True or False, not %s" % type(bias).__name__)
    what = "region_count(%s, %s)" % (_shown(classes), _shown(dim))
    if dim >= classes - 1:
        if classes > _MAX_FACTORIAL_CLASSES:
            raise _past_limits(what)
        return math.factorial(classes)
    tail = _stirling_tail(classes, dim, what)
    if bias:
        return sum(tail)
    return sum(2 * tail[nu] for nu in range(dim + 1) if (nu - dim + 1) % 2 == 0)


def realized_rankings(weights, bias=None):
    """Every ordering of the classes, with whether the layer produces it.

    A list of Ranking, one per permutation in lexicographic order; each is
    decided exactly (a witness input, or a combination proving it cannot
    occur).  There are C! of them: more than 6 classes raise InputError, as
    do numbers that need more than 1,024 bits over the layer's common
    denominator (about 1e-150 beside 1e150), on which each exact program
    would cost seconds.
    The programs work in the span of the rows (rank <= C - 1), so a large
    d costs little.

    >>> [r.order for r in realized_rankings([[0], [1]]) if r.witness]
    [(0, 1), (1, 0)]
    """
    rows, biases, denominator = integer_layer(weights, bias)
    if len(rows) > _MAX_RANKED_CLASSES:
        raise InputError("realized_rankings: %d classes have %d! rankings; at most %d classes"
                         " (%d rankings) are enumerated"
                         % (len(rows), len(rows), _MAX_RANKED_CLASSES,
                            math.factorial(_MAX_RANKED_CLASSES)))
    longest = max(abs(v).bit_length() for v in itertools.chain(
        itertools.chain.from_iterable(rows), biases or ()))
    if longest > _MAX_RANKED_BITS:
        raise InputError("realized_rankings: the layer's numbers over their common denominator"
                         " take %d bits; at most %d (magnitudes from about 1e-150 to 1e150 in one"
                         " layer) are enumerated" % (longest, _MAX_RANKED_BITS))
    if len(rows) == 1:
        return [Ranking((0,), tuple(Fraction(0) for _ in rows[0]), None)]
    # The integer layer is the layer times a positive number: the same rankings.
    rankings = _Rankings(rows, biases or [0] * len(rows), denominator)
    return [rankings.decide(order) for order in itertools.permutations(range(len(rows)))]


class _Rankings:
    """The rankings of one integer layer, decided in turn, most without a program.

    Logits depend on x only through s_k = v_k . x, the coordinates of the
    layer's affine span (reviews.argmax.strategy.span): class j's logit minus class 0's is
    N_j . s / delta + b_j - b_0, with N_p = delta * (unit vector k) for the
    class p = p_k that gives v_k.  So the reachable logit vectors l (up to
    one common term) are those with sum_j alpha_j (l_j - b_j) = 0 for
    every affine dependency alpha of the rows (sum_j alpha_j w_j = 0,
    sum_j alpha_j = 0), and s_k = l_(p_k) - l_0 - b_(p_k) + b_0 reaches l.
    A combination on a ranking's consecutive pairs is one such alpha, its
    weights the partial sums of alpha along the ranking.  Every certificate
    below is checked exactly before it is taken (``decide``):

    * rank C - 1 (no dependency): every strictly ordered l is reachable;
    * rank C - 2 (one dependency alpha, up to scale): with P_m the partial
      sums of alpha along the ranking, l with gaps g_m > 0 between places
      m and m + 1 has sum_j alpha_j l_j = sum_m g_m P_m, which must be
      A = sum_j alpha_j b_j: such gaps exist unless the P_m all lie on one
      side of 0 and A does not lie strictly on that side, and then P,
      scaled to sum 1, is the combination;
    * lower ranks: a program in r unknowns decides, but first, without a
      bias, x -> -x reverses every ranking, so a witness negated is one of
      the reverse ranking; each witness reflected across its neighbours'
      ties may land in another region, whose ranking it then settles; and
      a combination with weights on pairs (hi, lo) proves every ranking
      that keeps each hi above its lo too, since w_hi - w_lo (and b_hi -
      b_lo) is the sum of the consecutive pairs' differences between them.
    """

    def __init__(self, rows, biases, denominator):
        self.rows, self.biases = rows, biases
        span = AffineSpan(rows)
        rank, delta = len(span.coordinates), span.delta
        # x = lift(s) is linear in s: x = (sum_k s_k lifts_k) / lift_scale.
        units = [[int(k == m) for m in range(rank)] for k in range(rank)]
        lifts = [span.lift(unit) for unit in units]
        self.lift_scale = common_denominator(v for x in lifts for v in x)
        self.lifts = [[int(v * self.lift_scale) for v in x] for x in lifts]
        self.pivots = [span.rows.index([delta * v for v in unit]) for unit in units]
        self.dependency = None
        if rank == len(rows) - 2:
            q = next(j for j in range(1, len(rows)) if j not in self.pivots)
            n = span.rows[q][:rank]
            self.dependency = [0] * len(rows)
            self.dependency[0] = sum(n) - delta
            self.dependency[q] = delta
            for p, v in zip(self.pivots, n):
                self.dependency[p] = -v
        self.settled = rank >= len(rows) - 2
        # The programs' rows, delta times the coordinates, and offsets delta * b,
        # all divided by their common factor (thousands of bits where the
        # layer's denominator is long) and the rows times the denominator:
        # numbers of one size, as the float program needs; their witness s'
        # is s = denominator * s'.
        common = math.gcd(delta, *itertools.chain.from_iterable(span.rows))
        self.reduced = [[denominator * v // common for v in row] for row in span.rows]
        self.offsets = [delta // common * b for b in biases]
        self.denominator = denominator
        self.mirrored = not any(biases)
        self.points = {}
        self.impossible = []

    def decide(self, order):
        """The Ranking of ``order`` (largest logit first), its certificate checked."""
        point = self._candidate(order)
        if point is not None and self._ranks(point, order):
            return self._found(order, point, reflect=False)
        pairs = list(zip(order, order[1:]))
        rows = [[a - b for a, b in zip(self.reduced[hi], self.reduced[lo])] for hi, lo in pairs]
        offsets = [self.offsets[hi] - self.offsets[lo] for hi, lo in pairs]
        lam = next((lam for lam in self._combinations(order)
                    if is_combination(rows, offsets, lam)), None)
        if lam is None:
            decision = decide_system(rows, offsets)
            if decision.witness is not None:
                # Checked by decide_system on the span, and lifted exactly.
                return self._found(order, self._lift([self.denominator * v
                                                      for v in decision.witness]), reflect=True)
            lam = decision.combination
        # Kept in integers: lam times its common denominator.
        scale = common_denominator(lam)
        terms = tuple((hi, lo, int(v * scale)) for (hi, lo), v in zip(pairs, lam) if v)
        self.impossible.append(terms)
        if self.mirrored:
            self.impossible.append(tuple((lo, hi, v) for hi, lo, v in terms))
        return Ranking(order, None, lam)

    def _found(self, order, point, reflect):
        self._keep(order, point)
        # Reflected across each tie of neighbours, a program's point may land
        # in another region: its ranking, computed exactly, is then settled
        # too.  Reflected points are not reflected again: their numbers grow.
        for hi, lo in zip(order, order[1:]) if reflect else ():
            reflected = self._reflected(point, hi, lo)
            if reflected is not None:
                ranking = self._ranking(reflected)
                if ranking is not None and ranking not in self.points:
                    self._keep(ranking, reflected)
        return Ranking(order, tuple(Fraction(v, point[1]) for v in point[0]), None)

    def _keep(self, order, point):
        self.points[order] = point
        if self.mirrored:
            self.points[order[::-1]] = [-v for v in point[0]], point[1]

    def _reflected(self, point, hi, lo):
        numerators, scale = point
        normal = [a - b for a, b in zip(self.rows[hi], self.rows[lo])]
        size = dot(normal, normal)
        if not size:
            return None
        margin = dot(normal, numerators) + scale * (self.biases[hi] - self.biases[lo])
        reflected = [size * v - 2 * margin * n for v, n in zip(numerators, normal)]
        common = math.gcd(size * scale, *reflected)
        return [v // common for v in reflected], size * scale // common

    def _ranking(self, point):
        numerators, scale = point
        logits = [dot(row, numerators) + scale * b for row, b in zip(self.rows, self.biases)]
        order = tuple(sorted(range(len(logits)), key=logits.__getitem__, reverse=True))
        if len(set(logits)) < len(logits):
            return None
        return order

    def _candidate(self, order):
        """A point (numerators, positive scale) that may give ``order``, or None."""
        if not self.settled:
            return self.points.get(order)
        gaps = [1] * (len(order) - 1)
        if self.dependency is not None:
            # Gaps of 1 give sum_m P_m; scale them, or widen one, to reach A.
            sums = self._partial_sums(order)
            target, total = dot(self.dependency, self.biases), sum(sums)
            if target * total > 0:
                gaps = [Fraction(target, total)] * len(gaps)
            elif target != total:
                m = next((m for m, v in enumerate(sums) if v * (target - total) > 0), None)
                if m is None:
                    return None
                gaps[m] += Fraction(target - total, sums[m])
        logits = [0] * len(order)
        for m in range(len(order) - 2, -1, -1):
            logits[order[m]] = logits[order[m + 1]] + gaps[m]
        b = self.biases
        return self._lift([logits[p] - logits[0] - b[p] + b[0] for p in self.pivots])

    def _partial_sums(self, order):
        sums, total = [], 0
        for j in order[:-1]:
            total += self.dependency[j]
            sums.append(total)
        return sums

    def _lift(self, s):
        """The point x = lift(s) as (integer numerators, their positive scale)."""
        scale = common_denominator(s)
        s = [int(v * scale) for v in s]
        numerators = [sum(v * lift[q] for v, lift in zip(s, self.lifts))
                      for q in range(len(self.rows[0]))]
        return numerators, scale * self.lift_scale

    def _ranks(self, point, order):
        """Exact: does the point give its classes strictly the order ``order``?"""
        numerators, scale = point
        logits = [dot(self.rows[j], numerators) + scale * self.biases[j] for j in order]
        return all(a > b for a, b in zip(logits, logits[1:]))

    def _combinations(self, order):
        """Combinations on ``order``'s pairs: from the dependency, or carried over."""
        if self.dependency is not None:
            sums = self._partial_sums(order)
            total = sum(sums)
            if total:
                yield tuple(Fraction(v, total) for v in sums)
            return
        place = {j: k for k, j in enumerate(order)}
        for terms in self.impossible:
            if all(place[hi] < place[lo] for hi, lo, _ in terms):
                lam = [0] * (len(order) - 1)
                for hi, lo, v in terms:
                    for k in range(place[hi], place[lo]):
                        lam[k] += v
                total = sum(lam)
                yield tuple(Fraction(v, total) for v in lam)
