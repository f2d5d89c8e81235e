"""Accurate softmax in floats, and an exact reference to certify it.

The float functions follow Blanchard, Higham & Higham, "Accurately computing
the log-sum-exp and softmax functions" (IMA J. Numer. Anal. 41(4), 2021):
shift by the maximum ``a`` and use ``log1p`` for the rest.  Two further steps
keep every coordinate within about one unit in the last place (ulp):

* the shift ``z_i - a`` is carried exactly as a pair of floats ``h + l``
  (TwoSum), so ``1e15 + 0.3`` minus ``1e15`` loses nothing, and
  ``exp(h + l)`` is taken as ``exp(h) * (1 + l)``;
* sums are exactly rounded (``math.fsum``) and kept as double-double pairs
  through the final division and ``log1p``;
* a term below e**-600 is scaled by 2**1024 (with ln 2 split as in fdlibm)
  so that a subnormal result keeps every bit it can.

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
# Large enough for e**-1e6 and far smaller logits; portable to 32-bit builds.
_EXPONENT_LIMIT = 425000000
# ln 2 split as in fdlibm; _SCALE is a power of two, so both products are exact.
_LN2_HIGH = 6.93147180369123816490e-01
_LN2_LOW = 1.90821492927058770002e-10
_SCALE = 1024
_SCALE_FROM = -600.0
_DISTANCE = decimal.Context(prec=20)
# Veltkamp's constant 2**27 + 1 splits a double into two 26-bit halves.
_SPLITTER = 134217729.0


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


def _logits(values):
    if isinstance(values, _REFUSED):
        raise TypeError("logits must be an ordered sequence of real numbers, not %s%s"
                        % (type(values).__name__, _REFUSED_WHY.get(type(values), "")))
    try:
        items = list(values)
    except TypeError:
        raise InputError("logits must be an iterable of real numbers, not %s"
                         % type(values).__name__) from None
    z = [_as_exact(x, position) for position, x in enumerate(items)]
    if not z:
        raise InputError("logits are empty; softmax needs at least one class")
    return z


def _exact_sum(parts):
    """The sum of floats and Fractions, correctly rounded to a float."""
    if all(isinstance(p, float) for p in parts):
        try:
            return math.fsum(parts)
        except OverflowError:
            return math.copysign(_INF, sum(parts))
    return to_float(sum(Fraction(p) for p in parts))


# ---- error-free transformations -----------------------------------------

def _offset(x, a):
    """x - a as (h, l): h the rounded difference, l its exact remainder."""
    if isinstance(x, float) and isinstance(a, float):
        h, l = _two_sum(x, -a)
        if math.isinf(h):
            return h, 0.0
        if math.isfinite(l):
            return h, l
    exact = Fraction(x) - Fraction(a)
    h = to_float(exact)
    if math.isinf(h):
        return h, 0.0
    return h, to_float(exact - Fraction(h))


def _two_sum(x, y):
    """x + y as (s, e) with s the rounded sum and s + e exact (Knuth)."""
    s = x + y
    virtual = s - x
    return s, (x - (s - virtual)) + (y - virtual)


def _split(x):
    scaled = _SPLITTER * x
    high = scaled - (scaled - x)
    return high, x - high


def _two_product(x, y):
    """x * y as (p, e) with p the rounded product and p + e exact."""
    p = x * y
    xh, xl = _split(x)
    yh, yl = _split(y)
    return p, ((xh * yh - p) + xh * yl + xl * yh) + xl * yl


def _double_double_sum(terms):
    high = math.fsum(terms)
    return high, math.fsum(terms + [-high])


# ---- the float functions ------------------------------------------------

def _special(z):
    """For +inf or all -inf input, the limit distribution; else None."""
    plus = [k for k, v in enumerate(z) if v == _INF]
    if len(plus) > 1:
        raise InputError("more than one logit is +inf (entries %s); the limit is undefined"
                         % ", ".join(map(str, plus)))
    if plus:
        return [1.0 if k == plus[0] else 0.0 for k in range(len(z))]
    if all(v == -_INF for v in z):
        raise InputError("every logit is -inf; nothing is left to normalize")
    return None


def _shifted(z):
    """(index of the max, the max, exp terms, offsets (h, l) or None).

    Each exp term is (e, e*l, k) with exp(z_i - max) = (e + e*l) * 2**-k: a
    term below e**-600 is scaled up by 2**_SCALE so that it keeps all its
    bits where the unscaled value would be subnormal.
    """
    top = max(range(len(z)), key=z.__getitem__)
    a = z[top]
    offsets = [None if v == -_INF else _offset(v, a) for v in z]
    terms = []
    for pair in offsets:
        if pair is None or math.isinf(pair[0]):
            terms.append((0.0, 0.0, 0))
            continue
        h, l = pair
        k = 0
        if h < _SCALE_FROM:
            k = _SCALE
            h, carry_high = _two_sum(h, _SCALE * _LN2_HIGH)
            h, carry_low = _two_sum(h, _SCALE * _LN2_LOW)
            l = (l + carry_high) + carry_low
        e = math.exp(h)
        terms.append((e, e * l, k))
    return top, a, terms, offsets


def _unscaled(terms):
    return [math.ldexp(t, -k) for e, el, k in terms for t in (e, el)]


def _log1p_rest(top, terms):
    """log(1 + sum of the exp terms other than the max's), double-double."""
    rest = [term for k, term in enumerate(terms) if k != top and term[0]]
    if not rest:
        return 0.0, 0.0
    if all(k for _, _, k in rest):
        # Tiny: log1p(s) == s to the last bit; sum scaled, round once.
        s_high, s_low = _double_double_sum([t for e, el, _ in rest for t in (e, el)])
        return math.ldexp(s_high, -_SCALE), math.ldexp(s_low, -_SCALE)
    s_high, s_low = _double_double_sum(_unscaled(rest))
    return math.log1p(s_high), s_low / (1.0 + s_high)


def softmax(logits):
    """Probabilities exp(z_i) / sum_j exp(z_j), each within about 1 ulp.

    >>> softmax([50, 0])
    [1.0, 1.9287498479639178e-22]
    >>> softmax([0, float('-inf')])
    [1.0, 0.0]
    """
    z = _logits(logits)
    limit = _special(z)
    if limit is not None:
        return limit
    _, _, terms, _ = _shifted(z)
    d_high, d_low = _double_double_sum(_unscaled(terms))
    result = []
    for n_high, n_low, k in terms:
        q = n_high / d_high
        p, p_err = _two_product(q, d_high)
        remainder = (((n_high - p) - p_err) + n_low) - q * d_low
        result.append(math.ldexp(q + remainder / d_high, -k))
    return result


def log_softmax(logits):
    """Log-probabilities (z_i - a) - log1p(sum_{j != max} exp(z_j - a)).

    Finite wherever the exact value is, even where softmax underflows.

    >>> log_softmax([1000, 0])
    [0.0, -1000.0]
    >>> log_softmax([0, float('-inf')])
    [0.0, -inf]
    """
    z = _logits(logits)
    limit = _special(z)
    if limit is not None:
        return [0.0 if p == 1.0 else -_INF for p in limit]
    top, _, terms, offsets = _shifted(z)
    l_high, l_low = _log1p_rest(top, terms)
    result = []
    for pair in offsets:
        if pair is None or math.isinf(pair[0]):
            result.append(-_INF)
        else:
            result.append(_exact_sum([pair[0], pair[1], -l_high, -l_low]))
    return result


def logsumexp(logits):
    """log(sum_j exp(z_j)) as max + log1p(rest).

    +inf if any logit is +inf, -inf if all are -inf.

    >>> logsumexp([0, 0]) == math.log(2)
    True
    >>> logsumexp([1e308, 1e308])
    1e+308
    """
    z = _logits(logits)
    if any(v == _INF for v in z):
        return _INF
    if all(v == -_INF for v in z):
        return -_INF
    top, a, terms, _ = _shifted(z)
    l_high, l_low = _log1p_rest(top, terms)
    result = _exact_sum([a, l_high, l_low])
    if a < 0 and abs(result) < 4 * l_high:
        # a and log1p(rest) cancel: the float log1p's error, up to an ulp
        # of l_high, would be many ulp of the result.
        return to_float(Fraction(logsumexp_exact(z)))
    return result


def softmax_naive(logits):
    """exp(z_i) / sum_j exp(z_j) as IEEE arithmetic evaluates it (numpy, C).

    Not for use: it shows what the textbook formula does.  exp overflows to
    inf above 709.78, and inf / inf is nan.

    >>> softmax_naive([710, 0])
    [nan, 0.0]
    """
    z = [v if isinstance(v, float) else to_float(v) for v in _logits(logits)]
    exps = [_ieee_exp(v) for v in z]
    total = sum(exps)
    return [e / total if total else math.nan for e in exps]


def _ieee_exp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return _INF


# ---- the exact reference ------------------------------------------------

def _context(digits):
    return decimal.Context(prec=digits, Emax=_EXPONENT_LIMIT,
                           Emin=-_EXPONENT_LIMIT)


def _checked_digits(digits):
    if isinstance(digits, bool) or not isinstance(digits, int):
        raise TypeError("digits must be an int, not %s" % type(digits).__name__)
    if not 1 <= digits <= MAX_DIGITS:
        raise InputError("digits must be from 1 to %d, not %s"
                         % (MAX_DIGITS, digits if abs(digits) < 10 ** 12 else "%.3e" % digits))
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


def _ln1p(ctx, x):
    """ln(1 + x) for x >= 0, to the context's relative precision."""
    if x == 0:
        return x
    if x.adjusted() < -ctx.prec:
        # x*x/2 is below the last digit of x: two series terms are exact.
        return ctx.subtract(x, ctx.divide(ctx.multiply(x, x), 2))
    wide = _context(ctx.prec - min(x.adjusted(), 0) + 5)
    return ctx.plus(wide.ln(wide.add(1, x)))


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


def _spacing(exact):
    """The spacing of binary64 floats at the exact value |exact|, a Fraction."""
    magnitude = abs(exact)
    exponent = -1022
    if magnitude:
        exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
        if magnitude < Fraction(2) ** exponent:
            exponent -= 1
    return Fraction(2) ** (max(exponent, -1022) - 52)


def ulp_distance(value, exact):
    """|value - exact| in units of the float spacing at ``exact``.

    ``value`` is a float.  ``exact`` is a Decimal, int, float or Fraction,
    taken at its exact value (within the size limit of ``reviews.exact``),
    or an infinity.  A float that is the correct rounding of an exact value
    beyond the float range (+-inf) is at distance 0.  The distance is a
    Decimal rounded to 20 digits.

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
    exact = real_number(exact, "ulp_distance: exact")
    rounded = to_float(exact)
    if math.isinf(value) or math.isinf(rounded):
        return decimal.Decimal(0) if rounded == value else decimal.Decimal("Infinity")
    exact = Fraction(exact)
    return to_decimal(abs(Fraction(value) - exact) / _spacing(exact), _DISTANCE)
