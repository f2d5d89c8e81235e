"""The question a check asks of every class of a layer, as one value.

Class i is asked whether some input x makes it strictly the largest logit;
the question narrows where x may be and how robustly i must win:

* the box R > 0: x only with |x_k| <= R (None: all of R^d);
* the tolerance T >= 0: a ball of radius above T, its centre in the box
  (or the inputs), where i wins (0: a single point is enough);
* the inputs [low, high]: x only with low <= x_k <= high
  (reviews.argmax.domain moves them to a box or the orthant).  The
  interval [-R, R] is the box R, and (-inf, inf) all of R^d: either is
  asked as such, so that one question has one form.

Each is taken exactly and checked once, where a public function is called
(check_layer, verify, verify_all, radii, or the command line), then passed
down whole as this one value, and each result carries the question it
answers (reviews.argmax.result).  What a domain means for a certificate
lives here too: whether a witness lies in it (``contains``) and the
largest value of a linear function over it (``largest``), which is all a
combination's check needs of it.

    Question        box (a Fraction, or None), tolerance (a Fraction), inputs (Inputs or None)
    Inputs          the interval [low, high] of every coordinate (None: no end)
    ANYWHERE        Question(): all of R^d, at tolerance 0
    box_value       the bound R of the box, validated, as a Fraction
    tolerance_value the tolerance T, validated, as a Fraction
    inputs_value    Inputs from two numbers (None or an infinity: no end), taken exactly
"""

import decimal
import math
import numbers
from collections import namedtuple
from fractions import Fraction

from reviews.argmax.kernels.layer_input import finite
from reviews.errors import InputError
from reviews.exact import exact_text, real_number

__all__ = ["Question", "Inputs", "ANYWHERE", "box_value", "tolerance_value", "inputs_value"]


class Inputs(namedtuple("Inputs", "low high")):
    """Every coordinate of x in [low, high]: each end a Fraction, or None
    where the interval has no end on that side.

    >>> Inputs(Fraction(0), Fraction(2)).middle, Inputs(Fraction(0), None).bounded
    (Fraction(1, 1), False)
    """

    __slots__ = ()

    @property
    def bounded(self):
        """Whether both ends are finite (a box about ``middle``)."""
        return self.low is not None and self.high is not None

    @property
    def middle(self):
        return (self.low + self.high) / 2


def box_value(box):
    """The bound R of the box |x_k| <= R: a positive number, taken exactly.

    >>> box_value(100), box_value(0.1), box_value(decimal.Decimal("2.5"))
    (Fraction(100, 1), Fraction(3602879701896397, 36028797018963968), Fraction(5, 2))
    >>> box_value(-1)
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: box is negative; the box's bound R must be positive
    """
    if isinstance(box, bool) or not isinstance(box, (numbers.Real, decimal.Decimal)):
        raise TypeError("box must be a positive number (the bound R of |x_k| <= R), not %s"
                        % type(box).__name__)
    bound = Fraction(finite(box, "box", "the box's bound R"))
    if bound <= 0:
        raise InputError("box is %s; the box's bound R must be positive"
                         % ("0" if bound == 0 else "negative"))
    return bound


def tolerance_value(tolerance):
    """The tolerance T >= 0, any real number taken exactly, as a Fraction.

    >>> tolerance_value(0), tolerance_value(decimal.Decimal("1e-8"))
    (Fraction(0, 1), Fraction(1, 100000000))
    >>> tolerance_value(-1)
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: tolerance is negative; it must be 0 or more
    """
    if isinstance(tolerance, bool) or not isinstance(tolerance, (numbers.Real, decimal.Decimal)):
        raise TypeError("tolerance must be a number of 0 or more, not %s"
                        % type(tolerance).__name__)
    value = Fraction(finite(tolerance, "tolerance", "the tolerance"))
    if value < 0:
        raise InputError("tolerance is negative; it must be 0 or more")
    return value


def _end(value, what, infinity):
    """An end of the interval: a Fraction, or None for ``infinity`` (-1 or 1)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, decimal.Decimal)):
        raise TypeError("inputs' %s end must be a number, or None for no end, not %s"
                        % (what, type(value).__name__))
    exact = real_number(value, "inputs' %s end" % what)
    if isinstance(exact, float) and math.isinf(exact):
        if (exact > 0) != (infinity > 0):
            raise InputError("inputs' %s end is %s: no x is there" % (what, exact))
        return None
    return Fraction(exact)


def inputs_value(inputs):
    """Inputs(low, high) of a pair of numbers, taken exactly; None, -inf
    (low) and inf (high) leave that side open.

    >>> inputs_value((0, float("inf")))
    Inputs(low=Fraction(0, 1), high=None)
    >>> inputs_value((1, -1))
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: inputs: the low end 1 is not below the high end -1
    """
    if isinstance(inputs, (str, bytes)) or not hasattr(inputs, "__len__") or len(inputs) != 2:
        raise TypeError("inputs must be a pair (low, high), not %s" % type(inputs).__name__)
    low, high = _end(inputs[0], "low", -1), _end(inputs[1], "high", 1)
    if low is not None and high is not None and low >= high:
        raise InputError("inputs: the low end %s is not below the high end %s"
                         % (exact_text(low), exact_text(high)))
    return Inputs(low, high)


class Question(namedtuple("Question", "box tolerance inputs")):
    """The box R (a positive Fraction, or None for R^d), the tolerance T
    (a Fraction >= 0) and the inputs (Inputs, or None for the box or
    R^d), from any real numbers taken exactly.

    >>> Question(100, 1e-8).box, Question(None).tolerance
    (Fraction(100, 1), Fraction(0, 1))
    >>> Question(inputs=(-2, 2)), Question(inputs=(0, float("inf"))).inputs
    (Question(box=Fraction(2, 1)), Inputs(low=Fraction(0, 1), high=None))
    >>> Question(0)
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: box is 0; the box's bound R must be positive
    """

    __slots__ = ()

    def __new__(cls, box=None, tolerance=0, inputs=None):
        box = None if box is None else box_value(box)
        tolerance = tolerance_value(tolerance)
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

    @classmethod
    def exact(cls, box=None, tolerance=Fraction(0), inputs=None):
        """The Question of values validated already (Fractions, Inputs), as
        a moved question's are: no conversion, no check."""
        return super().__new__(cls, box, tolerance, inputs)

    def __repr__(self):
        shown = ["%s=%r" % (name, value) for name, value, plain
                 in zip(self._fields, self, (None, 0, None)) if value != plain]
        return "Question(%s)" % ", ".join(shown)

    def at(self, tolerance):
        """The same domain at the tolerance ``tolerance`` (a Fraction)."""
        return self._replace(tolerance=tolerance)

    def contains(self, x):
        """Whether the point x (Fractions) lies in the domain.

        >>> Question(1).contains([Fraction(1), Fraction(-1)]), Question(inputs=(0, None)).contains([-1])
        (True, False)
        """
        if self.box is not None:
            return max(map(abs, x)) <= self.box
        if self.inputs is None:
            return True
        low, high = self.inputs
        return all((low is None or low <= v) and (high is None or v <= high) for v in x)

    def largest(self, combined):
        """The largest value of -A . x over the domain, A the coordinates
        ``combined``, or None where it has none (a linear function is
        bounded above on R^d only where it is 0, on a half-line only where
        it does not grow towards the open end).

        >>> Question().largest([0, 0]), Question().largest([1, 0]), Question(2).largest([1, -3])
        (0, None, Fraction(8, 1))
        >>> Question(inputs=(0, None)).largest([1, 2]), Question(inputs=(0, None)).largest([-1])
        (Fraction(0, 1), None)
        """
        if self.box is not None:
            return self.box * sum(map(abs, combined))
        if self.inputs is None:
            return None if any(combined) else 0
        low, high = self.inputs
        largest = 0
        for v in combined:
            end = low if v > 0 else high
            if v:
                if end is None:
                    return None
                largest -= v * end
        return largest


ANYWHERE = Question.exact()
