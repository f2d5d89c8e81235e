"""The question a check asks of every class of a layer, as one value.

Class i is asked whether some input x makes it strictly the largest logit;
the question narrows where x may be and how robustly i must win:

* the box R > 0: x only with |x_k| <= R (None: all of R^d);
* the tolerance T >= 0: a ball of radius above T, its centre in the box,
  where i wins (0: a single point is enough).

Both are taken exactly and checked once, where a check starts
(reviews.argmax.check), then passed down as this one value.

    Question    box (a Fraction, or None) and tolerance (a Fraction)
"""

from collections import namedtuple

from reviews.argmax.kernels.layer_input import box_bound
from reviews.argmax.kernels.norms import tolerance_bound

__all__ = ["Question"]


class Question(namedtuple("Question", "box tolerance")):
    """The box R (a positive Fraction, or None for R^d) and the tolerance T
    (a Fraction >= 0), from any real numbers taken exactly.

    >>> Question(100, 1e-8).box, Question(None).tolerance
    (Fraction(100, 1), Fraction(0, 1))
    >>> Question(0)
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: box is 0; the box's bound R must be positive
    """

    __slots__ = ()

    def __new__(cls, box=None, tolerance=0):
        return super().__new__(cls, None if box is None else box_bound(box),
                               tolerance_bound(tolerance))
