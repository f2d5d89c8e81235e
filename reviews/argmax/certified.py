"""Many certificates of one layer checked at once, exactly.

``verify`` (reviews.argmax.check) checks one result from scratch and
makes the whole layer exact to do it: for every class of a layer of a
thousand classes that is a million Fractions a class.  ``verify_all``
makes the layer exact once, as integers over one denominator, and then
checks each witness against all C classes by one packed product
(reviews.argmax.kernels.packed: rounded logits with a rigorous bound, the
undecided classes in exact integers) and each combination on its few
terms in exact integers.  The question is verify's for R^d or for a box;
with a tolerance, or classes masked by a bias of -inf, each result is
checked as verify does, the layer made exact once.

    verify_all    verify(weights, bias, r, box, tolerance, inputs) for every result r
"""

from fractions import Fraction

from reviews.errors import InputError
from reviews.exact import common_denominator
from reviews.argmax.kernels.norms import holds_at
from reviews.argmax.kernels.layer_input import box_bound, class_index, integer_layer
from reviews.argmax.reductions.masked import masked_classes
from reviews.argmax.kernels.packed import Packed
from reviews.argmax.verify import Verifier

__all__ = ["verify_all"]


def verify_all(weights, bias, results, box=None, tolerance=0, inputs=None):
    """[verify(weights, bias, r, box, tolerance, inputs) for r in results].

    A witness x is taken exactly, as the integer candidate x q (q its least
    common denominator, then q itself for the bias): its logits are the
    layer's times a positive number, so the comparisons are those at x; in
    the box it must lie in it too.  A combination holds when its weights
    are positive, sum to 1, leave out its class and give w_i and a bias of
    at least b_i (in the box: reviews.argmax.kernels.norms.holds_at).
    With a tolerance, inputs or a masked class, each result is verify's.

    >>> from reviews.argmax.result import ClassResult
    >>> W = [[0, 0], [1, 0], [2, 0]]
    >>> verify_all(W, None, [ClassResult(2, True, (1, 0)), ClassResult(2, True, (-1, 0)),
    ...                      ClassResult(1, False, None, ((0, Fraction(1, 2)), (2, Fraction(1, 2))))])
    [True, False, True]
    """
    if tolerance or inputs is not None or masked_classes(bias):
        checker = Verifier(weights, bias, box, tolerance, inputs)
        return [checker.holds(result) for result in results]
    bound = None if box is None else box_bound(box)
    rows, biases, _ = integer_layer(weights, bias)
    packed = None
    found = []
    for result in results:
        i = class_index(result.index, len(rows), "a result's index")
        if result.argmaxable:
            if packed is None:
                packed = Packed(rows if biases is None else
                                [list(row) + [b] for row, b in zip(rows, biases)],
                                prune=biases is None)
            found.append(_witness_holds(packed, i, result.witness, len(rows[0]),
                                        biases is not None, bound))
        else:
            found.append(_combination_holds(rows, biases or [0] * len(rows), i,
                                            result.terms or (), bound))
    return found


def _witness_holds(packed, i, witness, dim, has_bias, bound):
    x = [Fraction(v) for v in witness]
    if len(x) != dim:
        raise InputError("class %d: its witness has %d coordinates, not the layer's %d"
                         % (i, len(x), dim))
    if bound is not None and max(map(abs, x)) > bound:
        return False
    q = common_denominator(x)
    return not packed.beaten_by(i, [int(v * q) for v in x] + [q] * has_bias, 1)


def _combination_holds(rows, biases, i, terms, bound):
    if not terms:
        return False
    lam = [(class_index(j, len(rows), "a term's class"), Fraction(v)) for j, v in terms]
    if any(j == i or v <= 0 for j, v in lam) or sum(v for _, v in lam) != 1:
        return False
    # The integer layer is the exact one times a positive number, as is either side.
    return holds_at([[a - b for a, b in zip(rows[j], rows[i])] for j, _ in lam],
                    [biases[j] - biases[i] for j, _ in lam], [v for _, v in lam], 0, bound)
