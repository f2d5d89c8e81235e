"""Exact values from user input.

Every number the suite reads is taken at its exact value: a float is the
dyadic rational it stores, an int or Fraction is itself, and a Decimal (or
number text such as 0.9) is the decimal fraction it spells.

    real_number     one input number, exact, or InputError naming where
"""

import decimal
import math
import numbers
from fractions import Fraction

from reviews.errors import InputError

__all__ = ["real_number"]


def real_number(x, where):
    """``x`` as a float (which may be infinite) or an exact Fraction.

    NaN, bools and anything that is not a real number raise InputError; the
    message starts with ``where``.

    >>> real_number(0.5, "x"), real_number(decimal.Decimal("0.9"), "x")
    (0.5, Fraction(9, 10))
    >>> real_number("1", "weights[0][2]")
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: weights[0][2] is '1', not a real number
    """
    if isinstance(x, bool) or not isinstance(x, (numbers.Real, decimal.Decimal)):
        raise InputError("%s is %r, not a real number" % (where, x))
    if isinstance(x, decimal.Decimal):
        if x.is_nan():
            raise InputError("%s is NaN" % where)
        return Fraction(x) if x.is_finite() else (math.inf if x > 0 else -math.inf)
    if isinstance(x, numbers.Rational):
        return Fraction(x)
    value = float(x)
    if math.isnan(value):
        raise InputError("%s is NaN" % where)
    return value
