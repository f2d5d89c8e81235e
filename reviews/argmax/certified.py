"""Many certificates of one layer checked at once, exactly.

``verify`` (reviews.argmax.verify) checks one result from scratch and
makes the whole layer exact to do it: for every class of a layer of a
thousand classes that is a million Fractions a class.  ``verify_all``
makes the layer exact once (a Verifier: integers over one denominator,
each witness checked against all C classes by one packed product, each
combination on its few terms) and checks each result as verify does,
with verify's errors for a malformed one.

    verify_all    verify(weights, bias, r, box, tolerance, inputs) for every result r
"""

from reviews.argmax.question import Question
from reviews.argmax.verify import Verifier

__all__ = ["verify_all"]


def verify_all(weights, bias, results, box=None, tolerance=0, inputs=None):
    """[verify(weights, bias, r, box, tolerance, inputs) for r in results],
    the layer made exact once.

    >>> from fractions import Fraction
    >>> from reviews.argmax.result import ClassResult
    >>> W = [[0, 0], [1, 0], [2, 0]]
    >>> verify_all(W, None, [ClassResult(2, True, (1, 0)), ClassResult(2, True, (-1, 0)),
    ...                      ClassResult(1, False, None, ((0, Fraction(1, 2)), (2, Fraction(1, 2))))])
    [True, False, True]
    """
    return Verifier(weights, bias, Question(box, tolerance, inputs)).holds_all(results)
