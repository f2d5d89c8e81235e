"""Correctly rounded softmax in floats, and an exact reference to certify it.

``softmax``, ``log_softmax`` and ``logsumexp`` return, for every input, the
exact value rounded to the nearest float, ties to even: the unique best
float, so every platform gives the same bits.  They do not call the
platform's ``math.exp`` or ``math.log`` (whose last bit differs between C
libraries); ``reviews.rounded.kernels`` holds the kernels and their proven
error bounds, ``reviews.rounded.fallback`` the decimal fallback.  The shift ``z_i - a`` by the maximum is
carried exactly (TwoSum), as Blanchard, Higham & Higham recommend
("Accurately computing the log-sum-exp and softmax functions", IMA J.
Numer. Anal. 41(4), 2021), so ``1e15 + 0.3`` minus ``1e15`` loses nothing.

Float functions (a list of floats out, any iterable of real numbers in):

    softmax         probabilities
    log_softmax     log-probabilities, finite wherever the exact value is
    logsumexp       log of the sum of exponentials
    softmax_naive   the textbook exp(z)/sum(exp(z)), to show what it does

Exact reference, in ``decimal`` with a local context:

    softmax_exact, log_softmax_exact, logsumexp_exact
    ulp_distance    a float's distance from an exact value, in ulp

Semantics: ``-inf`` is a masked class (probability 0.0, log-probability
-inf); a single ``+inf`` takes all the mass (the limit).  Empty input, NaN,
more than one ``+inf`` and all ``-inf`` raise ``InputError``, except that
``logsumexp`` is +inf and -inf for the last two.

>>> softmax([0, 0])
[0.5, 0.5]
>>> log_softmax([50, 0])[0]
-1.9287498479639178e-22
"""

import collections.abc
import decimal
import math
import numbers
from fractions import Fraction

from reviews.errors import InputError
from reviews.exact import real_number, to_decimal, to_float
from reviews.rounded.fallback import decimal_context as _context, decimal_ln1p as _ln1p
from reviews.rounded.kernels import (
    rounded_exp,
    rounded_log_softmax,
    rounded_logsumexp,
    rounded_softmax,
)
from reviews.shown import shown_value

__all__ = [
    "softmax",
    "log_softmax",
    "logsumexp",
    "softmax_naive",
    "softmax_exact",
    "log_softmax_exact",
    "logsumexp_exact",
    "ulp_distance",
    "REFERENCE_DIGITS",
    "MAX_DIGITS",
]

REFERENCE_DIGITS = 40
# One decimal exp at 1,000 digits takes about 10 ms; at 10,000 about 3 s.
MAX_DIGITS = 1000

_INF = math.inf
_DISTANCE = decimal.Context(prec=20)
_FLOAT_ONLY = {float}
# The distance is computed at 60 digits; every power of two in the float
# range is exact at 1,200.
_WORK = decimal.Context(prec=60, Emax=10 ** 6, Emin=-10 ** 6)
_POWERS = decimal.Context(prec=1200, Emax=10 ** 6, Emin=-10 ** 6)


# ---- input --------------------------------------------------------------

# A set or a mapping iterates in an order that depends on hashing, so the
# output's order would too; text and bytes are not numbers.
_REFUSED = (collections.abc.Set, collections.abc.Mapping, str, bytes, bytearray, memoryview)
_REFUSED_WHY = {set: " (unordered)", frozenset: " (unordered)", dict: " (unordered keys)"}

def _as_exact(x, position):
    """A float when x is exactly one (or is infinite), else a Fraction."""
    value = real_number(x, "entry %d" % position)
    if isinstance(value, float):
        return value
    try:
        as_float = float(value)
    except OverflowError:
        return value
    return as_float if as_float == value else value


def _all_floats(items):
    """True if every item is a float and none is NaN."""
    if set(map(type, items)) != _FLOAT_ONLY:
        return False
    # A sum is NaN if an item is (or if +inf meets -inf: then look closer).
    total = sum(items)
    return total == total or not any(map(math.isnan, items))


def _logits(values):
    return _read(values)[0]


def _read(values):
    """(the logits as floats and Fractions, whether all are floats)."""
    if type(values) is not list and isinstance(values, _REFUSED):
        raise TypeError("logits must be an ordered sequence of real numbers, not %s%s"
                        % (type(values).__name__, _REFUSED_WHY.get(type(values), "")))
    try:
        items = list(values)
    except TypeError:
        raise InputError("logits must be an iterable of real numbers, not %s"
                         % type(values).__name__) from None
    floats = _all_floats(items)
    if floats:
        # The common case, a list of floats: nothing to convert.
        z = items
    else:
        z = [_as_exact(x, position) for position, x in enumerate(items)]
    if not z:
        raise InputError("logits are empty; softmax needs at least one class")
    return z, floats


# ---- the float functions ------------------------------------------------

def _special(z):
    """For +inf or all -inf input, the limit distribution; else None."""
    if _INF in z:
        plus = [k for k, v in enumerate(z) if v == _INF]
        if len(plus) > 1:
            raise InputError("more than one logit is +inf (entries %s); the limit is undefined"
                             % ", ".join(map(str, plus)))
        return [1.0 if k == plus[0] else 0.0 for k in range(len(z))]
    if z.count(-_INF) == len(z):
        raise InputError("every logit is -inf; nothing is left to normalize")
    return None


def softmax(logits):
    """Probabilities exp(z_i) / sum_j exp(z_j), correctly rounded.

    >>> softmax([50, 0])
    [1.0, 1.9287498479639178e-22]
    >>> softmax([0, float('-inf')])
    [1.0, 0.0]
    """
    z, floats = _read(logits)
    limit = _special(z)
    if limit is not None:
        return limit
    return rounded_softmax(z, floats)


def log_softmax(logits):
    """Log-probabilities z_i - log(sum_j exp(z_j)), correctly rounded.

    Finite wherever the exact value is, even where softmax underflows; a
    negative value too small for a float is -0.0.

    >>> log_softmax([1000, 0])
    [-0.0, -1000.0]
    >>> log_softmax([0, float('-inf')])
    [0.0, -inf]
    """
    z, floats = _read(logits)
    limit = _special(z)
    if limit is not None:
        return [0.0 if p == 1.0 else -_INF for p in limit]
    return rounded_log_softmax(z, floats)


def logsumexp(logits):
    """log(sum_j exp(z_j)), correctly rounded, also where it is near 0.

    +inf if any logit is +inf, -inf if all are -inf.

    >>> logsumexp([0, 0])
    0.6931471805599453
    >>> logsumexp([1e308, 1e308])
    1e+308
    """
    z, floats = _read(logits)
    if any(v == _INF for v in z):
        return _INF
    if all(v == -_INF for v in z):
        return -_INF
    return rounded_logsumexp(z, floats)


def softmax_naive(logits):
    """The textbook exp(z_i) / sum_j exp(z_j) in IEEE arithmetic.

    Not for use: it shows what the formula does in floats, as numpy or C
    evaluate it, with each exp correctly rounded (as IEEE 754 recommends)
    so that the result is the same on every platform.  exp overflows to
    inf above 709.78, and inf / inf is nan.

    >>> softmax_naive([710, 0])
    [nan, 0.0]
    """
    z = [v if isinstance(v, float) else to_float(v) for v in _logits(logits)]
    exps = [rounded_exp(v) for v in z]
    total = sum(exps)
    return [e / total if total else math.nan for e in exps]


# ---- the exact reference ------------------------------------------------

def _checked_digits(digits):
    if isinstance(digits, bool) or not isinstance(digits, int):
        raise TypeError("digits must be an int, not %s" % type(digits).__name__)
    if not 1 <= digits <= MAX_DIGITS:
        raise InputError("digits must be from 1 to %d, not %s"
                         % (MAX_DIGITS, shown_value(digits)))
    return digits


def _exact_parts(z, digits):
    """Context, shifts z_j - max, their exps, the sum, and ln of the sum."""
    ctx = _context(digits + 25)
    a = max(z)
    shifts = []
    for v in z:
        if v == -_INF:
            shifts.append(None)
        else:
            shifts.append(to_decimal(Fraction(v) - Fraction(a), ctx))
    exps = [None if s is None else ctx.exp(s) for s in shifts]
    top = z.index(a)
    rest = decimal.Decimal(0)
    for k, e in enumerate(exps):
        if e is not None and k != top:
            rest = ctx.add(rest, e)
    return ctx, shifts, exps, ctx.add(1, rest), _ln1p(ctx, rest)


def _rounded(value, digits):
    return _context(digits).plus(value)


def softmax_exact(logits, digits=REFERENCE_DIGITS):
    """softmax as Decimals correct to ``digits`` significant digits.

    >>> softmax_exact([50, 0], digits=20)[1]
    Decimal('1.9287498479639177830E-22')
    """
    digits = _checked_digits(digits)
    z = _logits(logits)
    limit = _special(z)
    if limit is not None:
        return [decimal.Decimal(int(p)) for p in limit]
    ctx, _, exps, total, _ = _exact_parts(z, digits)
    return [decimal.Decimal(0) if e is None else _rounded(ctx.divide(e, total), digits)
            for e in exps]


def log_softmax_exact(logits, digits=REFERENCE_DIGITS):
    """log_softmax as Decimals correct to ``digits`` significant digits.

    >>> log_softmax_exact([50, 0], digits=20)[0]
    Decimal('-1.9287498479639177830E-22')
    """
    digits = _checked_digits(digits)
    z = _logits(logits)
    limit = _special(z)
    if limit is not None:
        return [decimal.Decimal(0) if p else decimal.Decimal("-Infinity")
                for p in limit]
    ctx, shifts, _, _, log_total = _exact_parts(z, digits)
    return [decimal.Decimal("-Infinity") if s is None
            else _rounded(ctx.subtract(s, log_total), digits) for s in shifts]


def logsumexp_exact(logits, digits=REFERENCE_DIGITS):
    """logsumexp as a Decimal correct to ``digits`` significant digits.

    >>> logsumexp_exact([0, 0], digits=20)
    Decimal('0.69314718055994530942')
    """
    digits = _checked_digits(digits)
    z = _logits(logits)
    if any(v == _INF for v in z):
        return decimal.Decimal("Infinity")
    if all(v == -_INF for v in z):
        return decimal.Decimal("-Infinity")
    extra = 0
    while True:
        ctx, _, _, _, log_total = _exact_parts(z, digits + extra)
        top = to_decimal(max(z), ctx)
        total = ctx.add(top, log_total)
        if not top or not log_total:
            return _rounded(total, digits)
        # The max and the log of the sum may cancel (max near -log n): the
        # digits lost to cancellation are bought back with more precision.
        lost = max(top.adjusted(), log_total.adjusted()) - total.adjusted() if total else ctx.prec
        if lost <= extra + 15:
            return _rounded(total, digits)
        extra = lost + 10


def _ulp_of(exact):
    """The spacing of binary64 floats at the finite Decimal |exact|."""
    magnitude = exact.copy_abs()
    nearest = float(magnitude)
    exponent = -1022
    if nearest:
        exponent = math.frexp(nearest)[1] - 1
        if _POWERS.power(2, exponent) > magnitude:
            exponent -= 1
    return _POWERS.power(2, max(exponent, -1022) - 52)


def _far_outside(exact):
    """True for a Decimal far outside the float range, of a modest size."""
    if not isinstance(exact, decimal.Decimal) or not exact.is_finite() or not exact:
        return False
    sign, digits, exponent = exact.as_tuple()
    return 400 < abs(exact.adjusted()) < 10 ** 8 and len(digits) <= MAX_DIGITS


def ulp_distance(value, exact):
    """|value - exact| in units of the float spacing at ``exact``.

    ``value`` is a float.  ``exact`` is a Decimal, int, float or Fraction
    (within the size limit of ``reviews.exact``), or an infinity; a
    Fraction is taken to 60 digits.  A Decimal of at most 1,000 digits far
    outside the float range (beyond 1e+-400, such as e**-1e6) is accepted
    without materializing it.  A float that is the correct rounding
    of an exact value beyond the float range (+-inf) is at distance 0.  The
    distance is a Decimal, computed to 60 digits and rounded to 20.

    >>> ulp_distance(0.1, decimal.Decimal(1) / 10)
    Decimal('0.4')
    >>> ulp_distance(0.3333333333333333, Fraction(1, 3))
    Decimal('0.33333333333333333333')
    """
    if not isinstance(value, float):
        raise TypeError("ulp_distance: value must be a float, not %s" % type(value).__name__)
    if isinstance(exact, bool) or not isinstance(exact, (numbers.Rational, float, decimal.Decimal)):
        raise TypeError("ulp_distance: exact must be a Decimal, int, float or Fraction, not %s"
                        % type(exact).__name__)
    if math.isnan(value):
        raise InputError("ulp_distance is undefined for NaN")
    if _far_outside(exact):
        # Like e**-1e6 from softmax_exact: decided without materializing it.
        if exact.adjusted() > 0:
            rounded = math.copysign(_INF, exact)
            return decimal.Decimal(0) if rounded == value else decimal.Decimal("Infinity")
        ctx = _context(60)
        difference = ctx.subtract(decimal.Decimal(value), exact).copy_abs()
        return _DISTANCE.plus(ctx.divide(difference, _ulp_of(decimal.Decimal(0))))
    checked = real_number(exact, "ulp_distance: exact")
    rounded = to_float(checked)
    if math.isinf(value) or math.isinf(rounded):
        return decimal.Decimal(0) if rounded == value else decimal.Decimal("Infinity")
    if not isinstance(exact, decimal.Decimal):
        exact = to_decimal(checked, _WORK)
    difference = _WORK.subtract(decimal.Decimal(value), exact).copy_abs()
    return _DISTANCE.plus(_WORK.divide(difference, _ulp_of(exact)))
