"""Exact values from user input.

Every number the suite reads is taken at its exact value: a float is the
dyadic rational it stores, an int or Fraction is itself, and a Decimal (or
number text such as 0.9) is the decimal fraction it spells.

    real_number         one input number, exact, or InputError naming where
    common_denominator  the least common denominator of rationals
    to_float            a rational rounded to the nearest float, +-inf beyond
    to_decimal          a rational rounded in a given decimal context
"""

import decimal
import math
import numbers
from fractions import Fraction

from reviews.errors import InputError

__all__ = ["real_number", "common_denominator", "to_float", "to_decimal"]


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


def common_denominator(values):
    """The least common denominator of ints and Fractions.

    >>> common_denominator([Fraction(1, 4), Fraction(5, 6), 2])
    12
    """
    common = 1
    for v in values:
        d = Fraction(v).denominator
        common = common * d // math.gcd(common, d)
    return common


def to_float(value):
    """A rational rounded to the nearest float; beyond the float range, +-inf.

    >>> to_float(Fraction(1, 3)), to_float(-10 ** 400)
    (0.3333333333333333, -inf)
    """
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def to_decimal(value, context):
    """A rational (int, float or Fraction) rounded to ``context``'s precision.

    >>> to_decimal(Fraction(1, 3), decimal.Context(prec=5))
    Decimal('0.33333')
    """
    value = Fraction(value)
    return context.divide(decimal.Decimal(value.numerator), decimal.Decimal(value.denominator))
