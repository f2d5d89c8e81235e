"""How many rankings of its classes a softmax layer can produce.

A layer with C classes in dimension d ranks the classes by their logits;
each ranking it can produce is a region of input space.  For a generic
layer the number of regions depends only on C, d and whether there is a
bias (Good & Tideman 1977; the appendix tables of Grivas, Bogoychev & Lopez
2022).  With c(n, k) the unsigned Stirling numbers of the first kind:

    with bias:     sum over nu = 0..d of c(C, C - nu)
    without bias:  sum over nu = 0..d, nu = d - 1 (mod 2), of 2 c(C, C - nu)

``realized_rankings`` enumerates the rankings a given layer produces, each
decided exactly with its certificate (reviews.feasibility), so the formula
can be checked against an actual layer.

    region_count        the formula, an exact int
    stirling_first      unsigned Stirling numbers of the first kind
    realized_rankings   every ranking of a layer, decided exactly
"""

import itertools
from collections import namedtuple
from fractions import Fraction

from reviews.argmaxable import exact_layer
from reviews.errors import InputError
from reviews.feasibility import decide

__all__ = ["region_count", "stirling_first", "realized_rankings", "Ranking"]

Ranking = namedtuple("Ranking", "order witness combination")
Ranking.__doc__ = """A ranking of classes (largest logit first) and its certificate.

witness: an input giving exactly this strict order (tuple of Fraction), or
None; combination: weights on the consecutive pairs proving it impossible.
"""


def _positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError("%s must be a positive integer, not %r" % (name, value))
    return value


def stirling_first(n, k):
    """Unsigned Stirling number of the first kind c(n, k).

    >>> [stirling_first(4, k) for k in range(5)]
    [0, 6, 11, 6, 1]
    """
    row = [1]
    for m in range(n):
        row = [(m * row[j] if j < len(row) else 0) + (row[j - 1] if j else 0)
               for j in range(len(row) + 1)]
    return row[k] if 0 <= k < len(row) else 0


def region_count(classes, dim, bias=True):
    """Rankings of ``classes`` classes a generic layer of dimension ``dim`` produces.

    >>> region_count(4, 2), region_count(4, 2, bias=False)
    (18, 12)
    >>> region_count(5, 3), region_count(5, 3, bias=False)
    (96, 72)
    """
    _positive_int(classes, "classes")
    _positive_int(dim, "dim")
    if classes == 1:
        return 1
    if bias:
        return sum(stirling_first(classes, classes - nu) for nu in range(dim + 1))
    return sum(2 * stirling_first(classes, classes - nu)
               for nu in range(dim + 1) if (nu - dim + 1) % 2 == 0)


def realized_rankings(weights, bias=None):
    """Every ordering of the classes, with whether the layer produces it.

    A list of Ranking, one per permutation in lexicographic order; each is
    decided exactly (a witness input, or a combination proving it cannot
    occur).

    >>> [r.order for r in realized_rankings([[0], [1]]) if r.witness]
    [(0, 1), (1, 0)]
    """
    rows, biases = exact_layer(weights, bias)
    biases = biases or [Fraction(0)] * len(rows)
    if len(rows) == 1:
        return [Ranking((0,), tuple(Fraction(0) for _ in rows[0]), None)]
    result = []
    for order in itertools.permutations(range(len(rows))):
        pairs = list(zip(order, order[1:]))
        decision = decide([[a - b for a, b in zip(rows[hi], rows[lo])] for hi, lo in pairs],
                          [biases[hi] - biases[lo] for hi, lo in pairs])
        result.append(Ranking(order, decision.witness, decision.combination))
    return result
