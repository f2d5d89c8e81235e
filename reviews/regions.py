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
decided exactly with its certificate (reviews.feasibility), so the formula
can be checked against an actual layer.

    region_count        the formula, an exact int
    stirling_first      unsigned Stirling numbers of the first kind
    realized_rankings   every ranking of a layer, decided exactly
"""

import itertools
import math
from collections import namedtuple
from fractions import Fraction

from reviews.argmaxable import exact_layer
from reviews.errors import InputError
from reviews.feasibility import decide, solve_square

__all__ = ["region_count", "stirling_first", "realized_rankings", "Ranking"]

# Each limit keeps one call within about a second (measured on CPython 3.11).
_MAX_FACTORIAL_CLASSES = 100000   # C! has at most 456,574 digits
_MAX_RECURRENCE_CLASSES = 2000    # the recurrence in C: C * d big-int steps
_MAX_EULERIAN_DIM = 100           # the Eulerian sum: about d**2 steps ...
_MAX_CLASSES_DIGITS = 100         # ... on numbers of about 2 d log2(C) bits
_MAX_RANKED_CLASSES = 6           # 6! = 720 exact programs

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
    occur).  There are C! of them: more than 6 classes raise InputError.
    The programs work in the span of the rows (rank <= C - 1), so a large
    d costs little.

    >>> [r.order for r in realized_rankings([[0], [1]]) if r.witness]
    [(0, 1), (1, 0)]
    """
    rows, biases = exact_layer(weights, bias)
    if len(rows) > _MAX_RANKED_CLASSES:
        raise InputError("realized_rankings: %d classes have %d! rankings; at most %d classes"
                         " (%d rankings) are enumerated"
                         % (len(rows), len(rows), _MAX_RANKED_CLASSES,
                            math.factorial(_MAX_RANKED_CLASSES)))
    biases = biases or [Fraction(0)] * len(rows)
    if len(rows) == 1:
        return [Ranking((0,), tuple(Fraction(0) for _ in rows[0]), None)]
    span = _Span([[a - b for a, b in zip(row, rows[0])] for row in rows[1:]])
    reduced = [[Fraction(0)] * span.rank] + [span.coordinates(v) for v in span.vectors]
    result = []
    for order in itertools.permutations(range(len(rows))):
        pairs = list(zip(order, order[1:]))
        decision = decide([[a - b for a, b in zip(reduced[hi], reduced[lo])] for hi, lo in pairs],
                          [biases[hi] - biases[lo] for hi, lo in pairs])
        witness = decision.witness and span.point(decision.witness, len(rows[0]))
        result.append(Ranking(order, witness, decision.combination))
    return result


class _Span:
    """The span of the differences w_j - w_0, in coordinates of a basis of them.

    Logit differences only see the span's part of x: with x = any point
    whose products with the basis are y, (w_j - w_0) . x = c_j . y for c_j
    the coordinates of w_j - w_0.  So the programs have rank <= C - 1
    unknowns however large d is, with the small numbers c_j (unit vectors
    for the basis itself), and a combination of the c_j is one of the
    w_j - w_0 with the same weights.
    """

    def __init__(self, vectors):
        self.vectors = vectors
        self.basis, self.pivots, echelon = [], [], []
        for vector in vectors:
            reduced = list(vector)
            for pivot, row in echelon:
                if reduced[pivot]:
                    factor = reduced[pivot] / row[pivot]
                    reduced = [a - factor * b for a, b in zip(reduced, row)]
            pivot = next((q for q, v in enumerate(reduced) if v), None)
            if pivot is not None:
                echelon.append((pivot, reduced))
                self.basis.append(vector)
                self.pivots.append(pivot)
        # Equal rows: one coordinate, always 0, keeps every program well formed.
        self.rank = max(len(self.basis), 1)

    def coordinates(self, vector):
        """c with sum_k c_k basis_k = vector (in the span), read on the pivot columns."""
        if not self.basis:
            return [Fraction(0)]
        return solve_square([[u[q] for q in self.pivots] for u in self.basis],
                            [vector[q] for q in self.pivots])

    def point(self, y, dim):
        """An x in R^dim, zero off the pivot columns, with basis_k . x = y_k."""
        x = [Fraction(0)] * dim
        if self.basis:
            values = solve_square([[u[q] for u in self.basis] for q in self.pivots], y)
            for q, value in zip(self.pivots, values):
                x[q] = value
        return tuple(x)
