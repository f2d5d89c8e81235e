"""The decimal fallback of the correctly rounded softmax functions.

reviews.rounded.kernels decides almost every result in double-double
arithmetic; the few it cannot decide (about once in 2**23, or inputs built
to lie next to a rounding midpoint) come here.  Each is recomputed in
``decimal`` at rising precision, where an enclosure [lo, hi] of the value
is computed from decimal's correctly rounded ``exp`` and ``ln``, until lo
and hi round to the same float.  That loop ends because every result that
is not computed exactly up front (a masked class, one finite logit, all
logits tied) is transcendental for rational logits
(Lindemann-Weierstrass), so it is not a rounding midpoint.

How close to a midpoint a result can lie is limited by the logits' exact
values: floats need a few dozen digits at most, but a Fraction of 65,000
bits can be built to lie within 2**-65000 of one, and deciding it would
take some 20,000 digits and minutes.  So the precision stops at
MAX_DIGITS (2,560 digits, seconds): past it InputError says the result
lies too close to a rounding midpoint to decide.  No float is returned
that is not correctly rounded.

    slow_results        {index: correctly rounded value} for checked logits
    slow_exp            exp of a float, correctly rounded
    slow_path_runs      how many times the fallback has run in this process
    decimal_context     a decimal context with a wide exponent range
    decimal_ln1p        ln(1 + x) in decimal, to the context's precision
    MAX_DIGITS          the most digits the fallback works with
"""

import decimal
import math
from fractions import Fraction

from reviews.errors import InputError
from reviews.exact import to_decimal, to_float

__all__ = ["slow_results", "slow_exp", "slow_path_runs", "decimal_context", "decimal_ln1p",
           "MAX_DIGITS"]

_INF = math.inf
_SLOW = [0]
# 40 doubled six times: about 8,500 bits, a few seconds of decimal exp and ln.
MAX_DIGITS = 2560
# Large enough for e**-1e6 and far smaller; portable to 32-bit builds.
_EXPONENT_LIMIT = 425000000


def slow_path_runs():
    """How many times the decimal fallback has run in this process."""
    return _SLOW[0]


def decimal_context(digits):
    """A decimal context of ``digits`` digits reaching e**-1e8 and beyond.

    >>> decimal_context(5).exp(-1000000)
    Decimal('3.2968E-434295')
    """
    return decimal.Context(prec=digits, Emax=_EXPONENT_LIMIT, Emin=-_EXPONENT_LIMIT)


def decimal_ln1p(ctx, x):
    """ln(1 + x) for a Decimal x >= 0, to ``ctx``'s relative precision.

    >>> decimal_ln1p(decimal_context(5), decimal.Decimal("1e-30"))
    Decimal('1.0000E-30')
    """
    if x == 0:
        return x
    if x.adjusted() < -ctx.prec:
        # x*x/2 is below the last digit of x: two series terms are exact.
        return ctx.subtract(x, ctx.divide(ctx.multiply(x, x), 2))
    wide = decimal_context(ctx.prec - min(x.adjusted(), 0) + 5)
    return ctx.plus(wide.ln(wide.add(1, x)))


def slow_exp(x):
    """exp(x) for a float x, correctly rounded, from decimal."""
    _SLOW[0] += 1
    digits = 40
    while True:
        value = decimal_context(digits).exp(decimal.Decimal(x))
        result = _rounded(value, value.copy_abs() * decimal.Decimal(10) ** (1 - digits))
        if result is not None:
            return result
        digits *= 2


def slow_results(z, kind, indices):
    """{index: correctly rounded value} for ``kind`` at ``indices``, in decimal.

    kind is "softmax", "log_softmax" or "logsumexp" (whose one index is 0).
    """
    _SLOW[0] += 1
    exact = [None if x == -_INF else Fraction(x) for x in z]
    a = max(x for x in exact if x is not None)
    top = exact.index(a)
    d = [None if x is None else x - a for x in exact]
    rest = [k for k, x in enumerate(d) if x is not None and k != top]
    largest = max(d[k] for k in rest)
    results = {}
    pending = []
    for i in indices:
        if kind == "logsumexp":
            pending.append(i)
        elif d[i] is None:
            results[i] = 0.0 if kind == "softmax" else -_INF
        elif kind == "softmax" and d[i] < -746:
            # e**-746 < 2**-1076, below half the smallest subnormal.
            results[i] = 0.0
        else:
            pending.append(i)
    if kind != "softmax" and largest < -200000:
        # ln S < n e**-200000 < 2**-140000, while a value that is not itself
        # a rounding midpoint is at least 2**-132147 from one (its
        # denominator has at most 131,072 bits; a midpoint's 1075).
        below = Fraction(1, 2 ** 140000)
        for i in pending:
            if kind == "logsumexp":
                results[i] = to_float(a + below)
            else:
                results[i] = -0.0 if i == top else to_float(d[i] - below)
        return results
    digits = 40
    while pending:
        if digits > MAX_DIGITS:
            raise InputError("%s: the exact result lies within a relative 10**-%d of a"
                             " rounding midpoint (two floats' mean); deciding its rounding"
                             " needs more than %d digits, the limit (logits of thousands of"
                             " bits)" % (kind, digits // 2 - 10, MAX_DIGITS))
        decided = _attempt(kind, d, top, rest, largest, a, pending, digits)
        results.update(decided)
        pending = [i for i in pending if i not in decided]
        digits *= 2
    return results


def _attempt(kind, d, top, rest, largest, a, pending, digits):
    """The pending results that ``digits`` digits decide, as {index: float}.

    Every decimal operation here is correctly rounded, so its relative
    error is at most unit / 2; the bounds below add them up generously.
    """
    ctx = decimal_context(digits)
    wide = decimal_context(digits + 25)
    unit = decimal.Decimal(10) ** (1 - digits)
    # Terms far below the largest of the rest add less than
    # 10**-digits e**-20 of it together.
    cut = largest - Fraction(digits * 231 // 100 + 20 + len(d).bit_length())
    rest_sum = decimal.Decimal(0)
    for k in rest:
        if d[k] >= cut:
            rest_sum = ctx.add(rest_sum, ctx.exp(to_decimal(d[k], wide)))
    # The relative error of rest_sum, and of the total 1 + rest_sum.
    rho = unit * (len(d) + 2)
    decided = {}
    if kind == "softmax":
        total = ctx.add(1, rest_sum)
        for i in pending:
            e = decimal.Decimal(1) if i == top else ctx.exp(to_decimal(d[i], wide))
            value = ctx.divide(e, total)
            _decide(decided, i, value, value.copy_abs() * (rho + 3 * unit) * 2)
        return decided
    log = decimal_ln1p(ctx, rest_sum)
    log_error = log * (rho + 2 * unit) * 2
    for i in pending:
        if kind == "logsumexp":
            base = to_decimal(a, wide)
            value = ctx.add(base, log)
        else:
            base = to_decimal(d[i], wide)
            value = ctx.subtract(base, log)
        error = log_error + value.copy_abs() * unit + base.copy_abs() * unit / 10 ** 20
        _decide(decided, i, value, error)
    return decided


def _decide(decided, i, value, error):
    result = _rounded(value, error)
    if result is not None:
        decided[i] = result


def _rounded(value, error):
    """The float nearest every number in value +- error, or None."""
    exact, width = Fraction(value), Fraction(error)
    low, high = to_float(exact - width), to_float(exact + width)
    if low == high and math.copysign(1.0, low) == math.copysign(1.0, high):
        return low
    return None
