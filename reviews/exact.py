"""Exact values from user input.

Every number the suite reads is taken at its exact value: a float is the
dyadic rational it stores, an int or Fraction is itself, and a Decimal (or
number text such as 0.9) is the decimal fraction it spells.

    real_number         one input number, exact, or InputError naming where
    check_size          InputError if a rational is past the size limit
    decimal_size_error  the same test for a Decimal, without materializing it
    common_denominator  the least common denominator of rationals
    to_float            a rational rounded to the nearest float, +-inf beyond
    to_decimal          a rational rounded in a given decimal context
    rational_text       "p" or "p/q" for any rational, however many digits
    rational_from_text  the rational that rational_text wrote, or InputError
    exact_text          a rational as its finite decimal digits, else "p/q"

The size limit: an exact value's numerator and denominator (in lowest
terms) may have at most ``MAX_BITS`` = 65,536 bits each, about 19,700
decimal digits, so magnitudes from about 1e-19728 to 1e19728 are accepted
with any precision a file of that size can spell.  A number past it is
refused with a message naming the limit: ``1e999999999`` is 14 bytes of
text, but its exact value has a billion digits, and would cost minutes
and gigabytes to materialize.  Every float is well inside the limit.
"""

import decimal
import math
import numbers
import re
from fractions import Fraction

from reviews.errors import InputError
from reviews.shown import shown_value

__all__ = ["MAX_BITS", "real_number", "check_size", "decimal_size_error",
           "common_denominator", "to_float", "to_decimal", "rational_text", "rational_from_text",
           "exact_text"]

MAX_BITS = 65536
# A decimal coefficient of this many digits may still be below 2**MAX_BITS.
_MAX_DIGITS = int(MAX_BITS * math.log10(2)) + 1
# Below this, str() of an int is within every interpreter's digit limit.
_PLAIN_INT = 10 ** 4000


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
    >>> real_number(decimal.Decimal("1e999999999"), "bias[0]")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: bias[0] is Decimal('1E+999999999'), past the size limit: ...
    """
    if isinstance(x, bool) or not isinstance(x, (numbers.Real, decimal.Decimal)):
        raise InputError("%s is %s, not a real number" % (where, shown_value(x)))
    if isinstance(x, decimal.Decimal):
        if x.is_nan():
            raise InputError("%s is NaN" % where)
        if not x.is_finite():
            return math.inf if x > 0 else -math.inf
        problem = decimal_size_error(x)
        if problem:
            raise InputError("%s is %s, %s" % (where, shown_value(x), problem))
        return check_size(Fraction(x), where)
    if isinstance(x, numbers.Rational):
        try:
            numerator, denominator = int(x.numerator), int(x.denominator)
        except (TypeError, ValueError, OverflowError):
            raise InputError("%s is %s, not a usable rational" % (where, shown_value(x))) from None
        return check_size(Fraction(numerator, denominator), where)
    if not isinstance(x, float) and hasattr(x, "as_integer_ratio"):
        return _exact_ratio(x, where)
    try:
        value = float(x)
    except (TypeError, ValueError, OverflowError):
        raise InputError("%s is %s, not convertible to a float" % (where, shown_value(x))) from None
    if math.isnan(value):
        raise InputError("%s is NaN" % where)
    return value


def _exact_ratio(x, where):
    """A real of another type (numpy's longdouble, float32, ...) at its exact
    value, which float() would round: as a float where that is exact, else as
    a Fraction."""
    try:
        numerator, denominator = x.as_integer_ratio()
    except OverflowError:
        return math.inf if x > 0 else -math.inf
    except ValueError:
        raise InputError("%s is NaN" % where) from None
    except (TypeError, ArithmeticError):
        raise InputError("%s is %s, not a usable real number" % (where, shown_value(x))) from None
    if not (isinstance(numerator, int) and isinstance(denominator, int) and denominator > 0):
        raise InputError("%s is %s, whose as_integer_ratio() is not two integers"
                         % (where, shown_value(x)))
    exact = check_size(Fraction(numerator, denominator), where)
    try:
        nearest = float(exact)
    except OverflowError:
        return exact
    return nearest if Fraction(nearest) == exact else exact


def _limit_text():
    return ("past the size limit: an exact value's numerator and denominator may have"
            " at most %d bits each (about 1e-%d to 1e%d)"
            % (MAX_BITS, _MAX_DIGITS - 1, _MAX_DIGITS - 1))


def decimal_size_error(value):
    """None if a finite Decimal is within the size limit, else the reason.

    Decided from the digits and the exponent, without materializing the
    value, so that ``1e999999999`` costs nothing.

    >>> decimal_size_error(decimal.Decimal("1e300")) is None
    True
    >>> decimal_size_error(decimal.Decimal("1e-30000"))[:22]
    'past the size limit: a'
    """
    if not value:
        return None
    sign, digits, exponent = value.as_tuple()
    if len(digits) + max(exponent, 0) > _MAX_DIGITS or -exponent > _MAX_DIGITS + len(digits):
        return _limit_text()
    exact = Fraction(value)
    if exact.numerator.bit_length() > MAX_BITS or exact.denominator.bit_length() > MAX_BITS:
        return _limit_text()
    return None


def check_size(value, where):
    """``value`` (a Fraction) if it is within the size limit, else InputError.

    >>> check_size(Fraction(1, 3), "x")
    Fraction(1, 3)
    """
    if value.numerator.bit_length() > MAX_BITS or value.denominator.bit_length() > MAX_BITS:
        raise InputError("%s is %s" % (where, _limit_text()))
    return value


def rational_text(value):
    """An exact rational as "p" or "p/q", however many digits it has; a p
    or q ending in 20 zeros or more is written short, "12e400" for 12 * 10**400.

    Python 3.11 and later (and some 3.9 and 3.10 releases) refuse to print
    an int of more than 4,300 digits by default; Decimal has no such limit,
    and this leaves the interpreter's global setting alone.

    >>> rational_text(Fraction(-3, 4)), rational_text(5), rational_text(10 ** 20)
    ('-3/4', '5', '1e20')
    >>> rational_text(Fraction(1, 10 ** 19700)), len(rational_text(10 ** 5000 + 1))
    ('1/1e19700', 5001)
    """
    return _rational_text(Fraction(value), _short_integer_text)


def _rational_text(value, integer_text):
    numerator = integer_text(value.numerator)
    if value.denominator == 1:
        return numerator
    return "%s/%s" % (numerator, integer_text(value.denominator))


def _short_integer_text(n):
    """An int as its digits, or "me z" (m * 10**z) where it ends in _SHORT_ZEROS zeros or more."""
    if n and n % 10 ** _SHORT_ZEROS == 0:
        zeros = _trailing_zeros(n)
        return "%se%d" % (_integer_text(n // 10 ** zeros), zeros)
    return _integer_text(n)


def _trailing_zeros(n):
    """How many zeros the decimal digits of the nonzero int ``n`` end in."""
    zeros, step = 0, 1
    while n % 10 == 0:
        # Doubling steps: 1e19700 takes 15 divisions, not 19,700.
        while n % 10 ** step == 0:
            n //= 10 ** step
            zeros += step
            step *= 2
        step = 1
    return zeros


# An integer that ends in this many zeros or more is written short, "1e400".
_SHORT_ZEROS = 20
_INTEGER = r"[0-9]{1,%d}(?:e[0-9]{1,%d})?" % (_MAX_DIGITS, len(str(_MAX_DIGITS)))
_RATIONAL_TEXT = re.compile(r"(-?%s)(?:/(%s))?" % (_INTEGER, _INTEGER), re.ASCII)


def rational_from_text(text, where):
    """The rational that ``rational_text`` wrote as ``text``: "p" or "p/q"
    in lowest terms, within the size limit; else InputError naming ``where``.

    >>> rational_from_text("-3/4", "x"), rational_from_text(rational_text(10 ** 5000), "x") == 10 ** 5000
    (Fraction(-3, 4), True)
    >>> rational_from_text("2/4", "x")
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: x is '2/4', not an exact number in lowest terms ("p" or "p/q")
    """
    match = _RATIONAL_TEXT.fullmatch(text) if isinstance(text, str) else None
    value = None
    if match:
        numerator, denominator = (_integer_from_text(part) for part in match.groups("1"))
        if numerator is not None and denominator:
            value = Fraction(numerator, denominator)
    # Written short, or in full as versions up to 0.5.0 wrote it: in lowest terms.
    if value is None or text not in (rational_text(value), _rational_text(value, _integer_text)):
        raise InputError('%s is %s, not an exact number in lowest terms ("p" or "p/q")'
                         % (where, shown_value(text)))
    return check_size(value, where)


def _integer_from_text(text):
    """The int that "digits" or "digitse zeros" spells, None past the size limit."""
    digits, _, zeros = text.partition("e")
    if zeros and len(digits.lstrip("-")) + int(zeros) > _MAX_DIGITS:
        return None
    # Decimal reads any number of digits; int() refuses past 4,300 on 3.11+.
    number = int(digits) if len(digits) < 4000 else int(decimal.Decimal(digits))
    return number * 10 ** int(zeros) if zeros else number


def exact_text(value):
    """An exact rational as a person writes it: its decimal digits when it
    has finitely many ("0.9999999", "1e+19700"), else "p/q"; never rounded.

    >>> exact_text(Fraction(9999999, 10 ** 7)), exact_text(Fraction(1, 3))
    ('0.9999999', '1/3')
    >>> exact_text(100000001), exact_text(Fraction(1, 10 ** 8)), exact_text(2.5)
    ('100000001', '1e-8', '2.5')
    >>> exact_text(10 ** 400), exact_text(Fraction(10 ** 400, 3)), exact_text(0)
    ('1e+400', '1e400/3', '0')
    """
    value = Fraction(value)
    denominator, twos, fives = value.denominator, 0, 0
    while denominator % 2 == 0:
        denominator, twos = denominator // 2, twos + 1
    while denominator % 5 == 0:
        denominator, fives = denominator // 5, fives + 1
    if denominator != 1:
        return rational_text(value)
    places = max(twos, fives)
    digits = abs(value.numerator) * 10 ** places // value.denominator
    while places and digits % 10 == 0:
        digits, places = digits // 10, places - 1
    if not places and digits and digits % 10 ** _SHORT_ZEROS == 0:
        zeros = _trailing_zeros(digits)
        digits, places = digits // 10 ** zeros, -zeros
    sign = 1 if value < 0 else 0
    return str(decimal.Decimal((sign, tuple(map(int, _integer_text(digits))), -places))).lower()


def _integer_text(n):
    return str(n) if -_PLAIN_INT < n < _PLAIN_INT else str(decimal.Decimal(n))


def common_denominator(values, max_bits=None):
    """The least common denominator of ints and Fractions; with
    ``max_bits``, InputError as soon as it has more bits than that (so that
    many unrelated denominators cost no more than the limit).

    >>> common_denominator([Fraction(1, 4), Fraction(5, 6), 2])
    12
    >>> common_denominator([Fraction(1, 2 ** 40 + 1), Fraction(1, 2 ** 40 - 1)], 64)
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: a common denominator past 64 bits
    """
    common = 1
    for v in values:
        d = Fraction(v).denominator
        common = common * d // math.gcd(common, d)
        if max_bits is not None and common.bit_length() > max_bits:
            raise InputError("a common denominator past %d bits" % max_bits)
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
