"""Classes that share their weight row, decided at once from a hash of the rows.

Two classes j and k with the same weights w_j = w_k differ only by their
biases: at every input the one with the larger bias has the larger logit,
and with equal biases they tie.  So in a group of classes with the same
row, only the member with the unique largest bias can be argmaxable, and
every other member j is not: the combination with weight 1 on a member k
!= j with b_k >= b_j proves it (sum lam w = w_k = w_j and b_k >= b_j; in
a box, b_k - b_j >= 0 = R * |w_k - w_j|_1).

The rest of the layer is decided on its representatives, one class per
distinct row (the first with the group's largest bias): a witness there
is one in the layer, as each class of a group has a logit at most its
representative's, and a combination there is one in the layer.  Grouping
hashes the exact rows, so it costs O(C * d) (expected), where a check
class by class would compare every duplicate with every other.

    Twins   the representatives, and the twin that defeats each other class,
            as a Reduction (reviews.argmax.reductions.reduction)
"""

from fractions import Fraction

from reviews.argmax.reductions.reduction import Reduction
from reviews.argmax.result import ClassResult

__all__ = ["Twins"]


class Twins(Reduction):
    """The classes of an exact layer grouped by weight row, as a Reduction.

    ``kept``: one class per distinct weight row, in increasing order (the
    representatives); ``position``: class -> its index among them, for the
    representatives; ``twin``: class j -> a class k != j with w_k = w_j
    and b_k >= b_j, for every class that cannot be argmaxable so, and is
    ``settled`` by it.

    >>> from reviews.argmax.question import ANYWHERE
    >>> twins = Twins([[1, 0], [2, 0], [1, 0], [1, 0]], [0, 5, 3, 3])
    >>> twins.kept, twins.twin
    ([1, 2], {0: 2, 2: 3, 3: 2})
    >>> twins.settled(0, ANYWHERE).terms
    ((2, Fraction(1, 1)),)
    >>> Twins([[1], [2]], None).twin
    {}
    """

    def __init__(self, weights, bias):
        classes = len(weights)
        bias = bias if bias is not None else [0] * classes
        self.twin = {}
        representatives = []
        for members in _equal_rows(weights):
            top = max(bias[j] for j in members)
            best = [j for j in members if bias[j] == top]
            representatives.append(best[0])
            for j in members:
                # The first top member defeats every other; the second defeats the first.
                self.twin[j] = best[0] if j != best[0] else (best[1] if len(best) > 1 else j)
            if self.twin[best[0]] == best[0]:
                del self.twin[best[0]]
        super().__init__(classes, sorted(representatives))

    def settled(self, i, question):
        """The result of class i for ``question`` if a twin defeats it
        (weight 1 on the twin, in any domain and at any tolerance), else
        None."""
        if i not in self.twin:
            return None
        return ClassResult(i, False, None, ((self.twin[i], Fraction(1)),), self.class_count,
                           question)


def _equal_rows(rows):
    """The classes grouped by equal rows, each group in increasing order.

    Keyed by a hash of each row, so that the rows are read once and not
    kept (a large float layer's are made when read); rows whose hashes
    collide are then told apart exactly.  The order of the groups decides
    nothing (Twins sorts the representatives).

    >>> _equal_rows([[1, 2], [3], [1, 2], [3]])
    [[0, 2], [1, 3]]
    """
    # Rows that key themselves more cheaply than as integers (FloatRows.row_keys) are asked to.
    keys = getattr(rows, "row_keys", None)
    by_hash = {}
    for j, key in enumerate(keys() if keys else map(tuple, rows)):
        by_hash.setdefault(hash(key), []).append(j)
    groups = []
    for members in by_hash.values():
        if len(members) == 1:
            groups.append(members)
            continue
        apart = {}
        for j in members:
            apart.setdefault(tuple(rows[j]), []).append(j)
        groups.extend(apart.values())
    return groups
