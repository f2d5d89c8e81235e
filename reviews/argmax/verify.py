"""An exact, independent check of a class's certificate: ``verify``.

Whatever found a certificate (reviews.argmax.check, a file, another tool),
``verify`` checks it from the layer alone in exact arithmetic: a witness
against every logit, a combination by its sums (reviews.argmax.strategy.feasibility),
either at a tolerance by its exact norms (reviews.argmax.tolerance).

    verify      True if a ClassResult's certificate proves it
    Verifier    verify's layer made exact once, for many results of it, for one Question
"""

from reviews.argmax.kernels.layer_input import (certificate_number, class_index, integer_layer,
                                                sequence)
from reviews.argmax.kernels.norms import holds_at
from reviews.argmax.kernels.packed import Packed
from reviews.argmax.question import ANYWHERE, Question
from reviews.argmax.reductions.masked import Masks
from reviews.argmax.result import ClassResult
from reviews.argmax.tolerance import Geometry
from reviews.errors import InputError
from reviews.exact import common_denominator

__all__ = ["verify", "Verifier"]


def verify(weights, bias, result, box=None, tolerance=0, inputs=None):
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
    result for T proves nothing about a smaller T.  With ``inputs`` =
    (low, high), a witness must lie in [low, high]^d and terms must prove
    that no point of it wins (reviews.argmax.kernels.norms.holds_at); with
    ``inputs`` a LayerNorm or an RMSNorm (reviews.argmax.question), a
    witness must be one of its outputs and terms must prove that none
    wins.  A malformed
    argument raises: TypeError if ``result`` is not a ClassResult or
    ``box`` not a number, InputError (a ValueError) for an index that is
    not a class, a witness that is not d finite numbers, terms that are
    not (class, finite number) pairs in increasing class order, or a box
    that is not positive and finite.

    >>> from reviews.argmax.check import check_layer
    >>> W = [[0, 0], [1, 0], [2, 0]]
    >>> all(verify(W, None, r) for r in check_layer(W))
    True
    >>> verify(W, None, ClassResult(1, True, (5, 0)))
    False
    >>> boxed = check_layer([[0], [1]], [0, -2], box=1)[1]
    >>> verify([[0], [1]], [0, -2], boxed, box=1), verify([[0], [1]], [0, -2], boxed)
    (True, False)
    >>> relu = check_layer([[0], [-1]], [0, -1], inputs=(0, None))[1]
    >>> verify([[0], [-1]], [0, -1], relu, inputs=(0, None)), verify([[0], [-1]], [0, -1], relu)
    (True, False)
    """
    return Verifier(weights, bias, Question(box, tolerance, inputs)).holds(result)


class Verifier:
    """The layer of ``verify`` made exact once, as integers over one
    denominator: ``holds(result)`` is verify(weights, bias, result, box,
    tolerance, inputs) for the Question (reviews.argmax.question) of those
    three, at the cost of one pass of integer products a result.  The
    layer times a positive number gives every comparison the same answer
    (a witness's margins and its rows' distances scale alike; so do both
    sides of a combination's inequality).

    >>> checker = Verifier([[0], [1]], [0, -2], Question(box=1))
    >>> checker.holds(ClassResult(0, True, (0,))), checker.holds(ClassResult(1, True, (1,)))
    (True, False)
    """

    def __init__(self, weights, bias, question=ANYWHERE):
        self.masks = Masks(weights, bias)
        every_masked = self.masks.masked and len(self.masks.masked) == len(bias)
        if every_masked:
            # Every class masked: each is proved by its bias alone, and no
            # row is left to make exact once the numbers are checked.
            Masks(weights, bias, validate=True)
        elif self.masks.masked:
            weights, bias = self.masks.select(weights), self.masks.select(bias)
        self.question = question
        if question.normed and weights:
            error = question.inputs.dimension_error(len(weights[0]))
            if error is not None:
                raise InputError(error)
        rows, biases, _ = ([], None, 1) if every_masked else integer_layer(weights, bias)
        self.rows, self.biases = rows, biases or [0] * len(rows)
        # A witness at a tolerance is checked with the layer's geometry.
        self._geometry = Geometry(rows, biases, None) if rows and question.tolerance else None
        self._packed = None

    def holds_all(self, results):
        """[self.holds(r) for r in results]: what verify_all gives."""
        return [self.holds(result) for result in results]

    def holds(self, result):
        """Whether ``result``'s certificate proves it (verify)."""
        if not isinstance(result, ClassResult):
            raise TypeError("result must be a ClassResult, not %s" % type(result).__name__)
        masks = self.masks
        if masks.masked:
            # A masked class is proved by its bias, the others on the layer
            # without the masked classes (whose logits are -inf).
            if result.index in masks.masked:
                return result.masked and not result.argmaxable
            result = masks.restricted(result)
            if result is None:
                return False
        rows, biases = self.rows, self.biases
        i = class_index(result.index, len(rows), "result.index")
        if result.argmaxable:
            return self._witness_holds(i, result.witness)
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
        return bool(support) and holds_at([[a - b for a, b in zip(rows[j], rows[i])]
                                           for j in support],
                                          [biases[j] - biases[i] for j in support], lam,
                                          self.question)

    def _witness_holds(self, i, witness):
        rows, tolerance = self.rows, self.question.tolerance
        if witness is None:
            raise InputError("result %d is argmaxable but has no witness" % i)
        x = sequence(witness, "result.witness")
        if len(x) != len(rows[0]):
            raise InputError("result.witness has length %d for d = %d" % (len(x), len(rows[0])))
        x = [certificate_number(v, "result.witness[%d]" % k, "a witness")
             for k, v in enumerate(x)]
        if not self.question.contains(x):
            return False
        # x = p / q: the logits times q, in integers.
        q = common_denominator(x)
        p = [int(v * q) for v in x]
        if tolerance:
            # Exact: no rival whose margin fails to clear T n_j; the
            # triangle inequality settles most in one packed product.
            return not self._geometry.short(i, p, q, tolerance)
        return not self.packed().beaten_by(i, p + [q], 1)

    def packed(self):
        """The rows and biases packed (reviews.argmax.kernels.packed), when a
        witness first needs them: one packed product settles most rivals."""
        if self._packed is None:
            self._packed = Packed([list(row) + [b] for row, b in zip(self.rows, self.biases)],
                                  prune=False)
        return self._packed

