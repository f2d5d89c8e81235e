"""The question a check asks of every class of a layer, as one value.

Class i is asked whether some input x makes it strictly the largest logit;
the question narrows where x may be and how robustly i must win:

* the box R > 0: x only with |x_k| <= R (None: all of R^d);
* the tolerance T >= 0: a ball of radius above T, its centre in the box
  (or the inputs), where i wins (0: a single point is enough);
* the inputs [low, high]: x only with low <= x_k <= high
  (reviews.argmax.domain).  The interval [-R, R] is the box R, and
  (-inf, inf) all of R^d: either is asked as such, so that one question
  has one form.

Each is taken exactly and checked once, where a check starts
(reviews.argmax.check), then passed down as this one value.

    Question    box (a Fraction, or None), tolerance (a Fraction), inputs (Inputs or None)
"""

from collections import namedtuple

from reviews.argmax.domain import inputs_value
from reviews.argmax.kernels.layer_input import box_bound
from reviews.argmax.kernels.norms import tolerance_bound
from reviews.errors import InputError

__all__ = ["Question"]


class Question(namedtuple("Question", "box tolerance inputs")):
    """The box R (a positive Fraction, or None for R^d), the tolerance T
    (a Fraction >= 0) and the inputs (reviews.argmax.domain.Inputs, or
    None for the box or R^d), from any real numbers taken exactly.

    >>> Question(100, 1e-8).box, Question(None).tolerance
    (Fraction(100, 1), Fraction(0, 1))
    >>> Question(inputs=(-2, 2)).box, Question(inputs=(0, float("inf"))).inputs
    (Fraction(2, 1), Inputs(low=Fraction(0, 1), high=None))
    >>> Question(0)
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: box is 0; the box's bound R must be positive
    """

    __slots__ = ()

    def __new__(cls, box=None, tolerance=0, inputs=None):
        box = None if box is None else box_bound(box)
        tolerance = tolerance_bound(tolerance)
        if inputs is not None:
            if box is not None:
                raise InputError("ask for the box or for the inputs, not both (the box R is"
                                 " the inputs -R to R)")
            inputs = inputs_value(inputs)
            if inputs.low is None and inputs.high is None:
                inputs = None
            elif inputs.bounded and inputs.low == -inputs.high:
                box, inputs = inputs.high, None
        return super().__new__(cls, box, tolerance, inputs)
