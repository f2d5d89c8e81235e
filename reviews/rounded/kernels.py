"""Correctly rounded softmax, log_softmax, logsumexp and exp, without libm.

Each function returns the exact value rounded to the nearest float, ties to
even: past the float range that is +-inf, in the subnormal range it is
rounded at the subnormal spacing, and a negative value that rounds to zero
is -0.0.  No result depends on the platform's ``math.exp``, ``log``,
``log1p``, ``expm1`` or ``pow``: the only float operations used are
``+ - * /``, ``math.fsum``, ``frexp``, ``ldexp``, ``nextafter`` and
``ulp``, which IEEE 754 and CPython define exactly, so every platform gives
the same bits.

    rounded_softmax      softmax of checked logits
    rounded_log_softmax  log_softmax of checked logits
    rounded_logsumexp    logsumexp of checked logits
    rounded_exp          exp of a float (for the textbook formula)

"Checked logits" are what ``reviews.rounded`` passes: a non-empty list of
floats and Fractions, with no NaN, no +inf and at least one finite entry;
``floats=True`` says that they are all floats.

The method is Ziv's.  A fast evaluation in double-double arithmetic gives
an approximation y = H + L of each result v with a proven bound |y - v| <= B.
If every number within 2B of y rounds to the same float, that float is
the correctly rounded v.  Otherwise (about once in 2**23 results) the
result is recomputed in ``decimal`` at rising precision by
reviews.rounded.fallback, which says why that always ends.

The double-double arithmetic (the exp and log kernels, with the proofs of
their error bounds beta and alpha) is reviews.rounded.double_double.

Sums: S = 1 + sum of the other exp terms, added by ``math.fsum``
(exactly rounded, then its remainder: 2**-105).  n < 2**39 (any n that
fits in memory).  For an offset h >= -575 (m >= -830, E >= e**-576 >
2**-832) ``_terms`` scales eh and el by 2**m: exactly, but that a low
part below 2**-1022 may round, by 2**-1075 < 2**-243 E.  The other terms
(masked, or offsets below -575) are left out: together below n e**-575
< 2**-790.  When some offset is below -100, the parts below 2**-160 are
left out too (below 2n 2**-160 < 2**-120), so that fsum stays fast.
Relative to S >= 1, and to S - 1 when S - 1 >= 2**-20, that is below
2**-100.  A smaller S - 1 (whose first sum is within 2**-119 of it) is
summed again: from 2**-100 on, without the parts below 2**-161 of the
first sum (below 2**-120 of S - 1 together; the terms left out are below
2**-690 of it), else from every part; when it is below 2**-690 with
terms left out, the vector goes to ``_Vector``: every term scaled to a
common power of two, those below 2**-139 of the largest dropped
(n 2**-139 < 2**-100).
Every term has relative error beta, so S does too, plus 2**-104, and
ln(S) has relative error beta + alpha + 2**-100 (since ln(1 + s(1 + e)) -
ln(1 + s) <= e s / (1 + s) <= e ln(1 + s)).  softmax_i = E_i / S has
relative error 2 beta + 2**-100 (a double-double division).

The rounding test: with R = fl(H + L) and L' = (H - R) + L, the result is
R when fl(R + (L' + eps)) == R == fl(R + (L' - eps)), where eps is twice
the proven bound plus |L'| 2**-51 (for the roundings of L' +- eps).
Rounding is monotone and the midpoints next to R are representable, so
this proves that every value within the bound rounds to R.  Results below
2**-900 are tested in a scaled copy against the subnormal spacing.

The loops of softmax and log_softmax use a cheaper test on H + L as it
comes, not renormalized: R = fl(H + fl(L + eps)) == fl(H + fl(L - eps)),
where eps is the bound B plus every rounding in L and in L +- eps.  Then
H + fl(L + eps) >= v >= H + fl(L - eps), and rounding is monotone (also
past the float range), so R is v rounded.  In softmax H + L = q + ql
(Dekker's product E_h * (1/S)_h, the double-double division above), q >=
e**-576 / n > 2**-871 so every product is normal, |ql| < 2**-51 q, and
the roundings of ql +- eps are below 2**-104 q + 2**-53 eps: eps = q
(2 (2 beta + 2**-100) + 2**-103).  In log_softmax H + L = r + lo with
r = fl(h - Lh) (TwoSum), lo = err + (l - Ll), ln S = Lh + Ll; as h <= 0
<= Lh, |r| >= |h|, Lh, so |l|, |Ll| <= 2**-53 |r|, |lo| < 2**-51 |r|, and
the roundings of l - Ll, of lo and of lo +- eps are below 2**-101 |r| +
2**-53 eps: eps = 2 (the bound on ln S) + 2**-1000 + |r| 2**-100 (the
2**-1000 covers results near the subnormal range and an Ll that
underflowed), and r <= 0 as the sum of two numbers <= 0.

One case has a structure of its own: log_softmax_i = (z_i - max) - ln S
where the exact offset is itself a rounding midpoint (z_i and max in two
binades: 54 bits) and ln S is tiny.  Then the sign of ln S alone decides,
and ``_beside_tiny`` proves it from the position of the offset's low part.

>>> rounded_softmax([1.0, 0.0])
[0.7310585786300049, 0.2689414213699951]
>>> rounded_exp(1.0)
2.718281828459045
"""
import math

from reviews.exact import to_float
from reviews.rounded.double_double import (C1, C2, C3, DOWN, INV_STEP, MAGIC, SCALE, SPLITTER, T4,
                                           exp_parts, fsum2, ln, near, near_scaled, two_product)
from reviews.rounded.fallback import slow_exp, slow_results

__all__ = ["rounded_softmax", "rounded_log_softmax", "rounded_logsumexp", "rounded_exp"]

_INF = math.inf
# Bounds of the analysis above, with margin.
_BETA = 2.0 ** -78
_ALPHA = 2.0 ** -78
# Twice the relative bounds: softmax 2 beta + 2**-100, ln S beta + alpha + 2**-100.
_SOFTMAX_EPS = 2 * (2 * _BETA + 2.0 ** -100)
# With the allowance for |L'| 2**-51 <= 2**-103.9 r in softmax's test.
_SOFTMAX_RATE = _SOFTMAX_EPS + 2.0 ** -103
_LOG_EPS = 2 * (_BETA + _ALPHA + 2.0 ** -100)
# Offsets below this are "vanishing": e**-1500 < 2**-2164.
_VANISH = -1500.0
# Offsets from here to 0 have exp terms scaled exactly into one list:
# e**-575 > 2**-830.  Below it, _OUT stands in: its 2**m is 2**-2020,
# which _SCALE holds as 0.0.
_FAST = -575.0
_CUT = 2.0 ** -160
_OUT = -1400.0
_SMALL = 2.0 ** -900
_TINY_REST = 2.0 ** -20
_FLOAT_ONLY = {float}


# ---- the fast path -----------------------------------------------------------

_GONE = -5000   # the exponent recorded for a masked or vanishing term


class _Vector:
    """A float vector's exact offsets z_i - a = h_i + l_i and exp terms.

    exp(h_i + l_i) = (eh_i + el_i) 2**m_i within beta; m_i is _GONE for a
    masked class and below e**-1500 (then eh_i = el_i = 0).  Only the rare
    vectors that ``_terms`` cannot serve come here, so the kernel is called.
    """

    __slots__ = ("a", "top", "h", "l", "eh", "el", "m")

    def __init__(self, z):
        self.a = a = max(z)
        self.top = z.index(a)
        self.h = hs = []
        self.l = ls = []
        self.eh = ehs = []
        self.el = els = []
        self.m = ms = []
        for x in z:
            h = x - a
            hs.append(h)
            if h == -_INF:
                ls.append(0.0)
            else:
                v = h - x
                ls.append((x - (h - v)) + (-a - v))
            if h < _VANISH:
                ehs.append(0.0)
                els.append(0.0)
                ms.append(_GONE)
            else:
                eh, el, m = exp_parts(h, ls[-1])
                ehs.append(eh)
                els.append(el)
                ms.append(m)

    def total(self):
        """S = sum of the exp terms, as (Sh, Sl)."""
        down = DOWN
        # S >= 1: the terms below 2**-139 add less than n 2**-139 <= 2**-100.
        parts = [part for eh, el, m in zip(self.eh, self.el, self.m) if m >= -140
                 for part in (eh * down[-m], el * down[-m])]
        high = math.fsum(parts)
        parts.append(-high)
        return high, math.fsum(parts)

    def largest_rest(self):
        """The largest exponent m_i of the terms other than the top's."""
        ms = self.m
        top = self.top
        ms[top] = _GONE
        largest = max(ms)
        ms[top] = 0
        return largest

    def rest(self, largest):
        """The rest S - 1 = 2**largest (sh + sl), as (sh, sl)."""
        ms = self.m
        top = self.top
        ms[top] = _GONE
        down = DOWN
        floor = largest - 140
        parts = [eh * down[largest - m] for eh, m in zip(self.eh, ms) if m >= floor]
        parts += [el * down[largest - m] for el, m in zip(self.el, ms) if m >= floor]
        ms[top] = 0
        return fsum2(parts)


def _terms(z, a):
    """[E_0h, E_0l, E_1h, E_1l, ...]: exp(z_i - a) = E_ih + E_il within beta.

    The exp kernel of the module docstring, inline for speed.  Each term
    is scaled by its 2**m, exactly, for an offset h_i >= _FAST (m >= -830);
    a term below that, or masked, is (0.0, 0.0) here: _OUT stands in for
    its offset, and SCALE holds its 2**m as 0.0.
    """
    na = -a
    fast, out = _FAST, _OUT
    inv, c1, nc2, c3, magic, splitter = INV_STEP, C1, -C2, C3, MAGIC, SPLITTER
    table, scale = T4, SCALE
    # terms.append, not a bound method: CPython 3.11+ specializes it.
    terms = []
    for x in z:
        h = x + na
        if h >= fast:
            v = h - x
            l = (x - (h - v)) + (na - v)
        else:
            h = out
            l = 0.0
        n = h * inv + magic - magic
        a1 = h - n * c1
        b = n * nc2
        rh = a1 + b
        v = rh - a1
        rl = ((a1 - (rh - v)) + (b - v)) + (l - n * c3)
        p1 = 1.0 + rh
        q = rh * rh * (0.5 + rh * (0.16666666666666666 + rh * (0.041666666666666664
                                                            + rh * 0.008333333333333333)))
        ph = p1 + q
        lo = ((rh - (p1 - 1.0)) + (q - (ph - p1))) + rl * ph
        k = int(n)
        th, t1, t2, tl = table[k & 4095]
        sc = scale[-(k >> 12)]
        scaled = splitter * ph
        top = scaled - (scaled - ph)
        bottom = ph - top
        eh = th * ph
        terms.append(eh * sc)
        terms.append(((((t1 * top - eh) + t1 * bottom + t2 * top) + t2 * bottom)
                      + (th * lo + tl * ph)) * sc)
    return terms


def _significant(terms, z, a, cut=_CUT):
    """A copy of ``terms`` for a sum, without those below ``cut`` in magnitude.

    Together they are below 2n cut, at most 2**-120 for the default.  Only
    a vector with offsets below -100 has parts below 2**-160 in any
    number; leaving them out keeps ``math.fsum`` fast, whose partials grow
    with the spread of the magnitudes.
    """
    if min(z) - a > -100.0:
        return terms[:]
    low = -cut
    return [t for t in terms if t > cut or t < low]


def _log_sum(z, a, terms):
    """ln S as (M, parts), like ``_log_total``, from ``_terms(z, a)``.

    S - 1 = sh + sl is summed exactly rounded (the top's term is exactly
    1.0).  The terms left out (offsets below _FAST) add less than
    n e**-575 < 2**-790, and those below 2**-160 less than 2**-120:
    relative to S - 1 >= 2**-20 below 2**-100.  A smaller S - 1 is summed
    again: when it is at least 2**-100, without the parts below 2**-161 of
    it (2**-120 of it together), else from every part; when it is below
    2**-690 with terms left out, the vector goes to ``_Vector``.
    """
    parts = _significant(terms, z, a)
    parts.append(-1.0)
    sh, sl = fsum2(parts)
    if sh >= _TINY_REST:
        return 0, ln(*fsum2([1.0, sh, sl]))
    parts = _significant(terms, z, a, sh * 2.0 ** -161) if sh >= 2.0 ** -100 else terms[:]
    parts.append(-1.0)
    sh, sl = fsum2(parts)
    if sh < 2.0 ** -690 and terms[::2].count(0.0) > z.count(-_INF):
        return _log_total(_Vector(z))
    m = math.frexp(sh)[1]
    return _ln1p_small(math.ldexp(sh, -m), math.ldexp(sl, -m), m)


def _log_total(vector, total=None):
    """ln S as (M, parts): ln S = 2**M * fsum(parts) within the relative bound.

    None when every other term is below e**-1390 (or masked): then
    ln S < n e**-1390 < 2**-1100.
    """
    largest = vector.largest_rest()
    if largest < -2000:
        return None
    if largest >= -21:
        high, low = total or vector.total()
        if high - 1.0 >= _TINY_REST:
            return 0, ln(high, low)
    sh, sl = vector.rest(largest)
    m = largest
    s = math.ldexp(sh, m)
    if s >= _TINY_REST:
        # Many small terms: their sum is not small.
        return 0, ln(*fsum2([1.0, s, math.ldexp(sl, m)]))
    return _ln1p_small(sh, sl, m)


def _ln1p_small(sh, sl, m):
    """ln(1 + s) as (m, parts) for s = 2**m (sh + sl) < 2**-20."""
    s = math.ldexp(sh, m)
    # ln(1 + s) = s - s**2/2 + s**3 (1/3 - s/4 + s**2/5), in units of 2**m.
    sq, sqe = two_product(sh, sh)
    half = math.ldexp(-0.5, m)
    return m, [sh, sl, sq * half, sqe * half, 2.0 * sh * sl * half,
               sh * s * s * (0.3333333333333333 - 0.25 * s + 0.2 * s * s)]


# ---- public functions --------------------------------------------------------

def _all_floats(z):
    return set(map(type, z)) == _FLOAT_ONLY


def _as_list(results, n):
    return [results[i] for i in range(n)]


def rounded_softmax(z, floats=None):
    """softmax of checked logits, correctly rounded.

    Ties need no special case: their terms are exactly 1, and 1/count is
    not a midpoint (it is a float when count is a power of two).

    >>> rounded_softmax([0.0, -math.inf, 0.0])
    [0.5, 0.0, 0.5]
    """
    if len(z) - z.count(-_INF) == 1:
        return [0.0 if x == -_INF else 1.0 for x in z]
    if not (floats or _all_floats(z)):
        return _as_list(slow_results(z, "softmax", range(len(z))), len(z))
    a = max(z)
    terms = _terms(z, a)
    sh, sl = fsum2(_significant(terms, z, a))
    ih = 1.0 / sh
    p, pe = two_product(ih, sh)
    il = ((1.0 - p) - pe - ih * sl) * ih
    scaled = SPLITTER * ih
    i1 = scaled - (scaled - ih)
    i2 = ih - i1
    splitter = SPLITTER
    rate = _SOFTMAX_RATE
    pairs = iter(terms)
    result = []
    # E / S = q + ql (Dekker's product, inline) and the cheaper test of
    # the module docstring: every quotient here is above 2**-871.
    for eh, el in zip(pairs, pairs):
        q = eh * ih
        scaled = splitter * eh
        s1 = scaled - (scaled - eh)
        s2 = eh - s1
        ql = (((s1 * i1 - q) + s1 * i2 + s2 * i1) + s2 * i2) + (el * ih + eh * il)
        eps = q * rate
        r = q + (ql + eps)
        result.append(r if r == q + (ql - eps) else None)
    highs = terms[::2]
    if 0.0 in highs:
        # Offsets below _FAST, each by the kernel and a scaled test.
        i = -1
        for _ in range(highs.count(0.0)):
            i = highs.index(0.0, i + 1)
            h, l = _offset(z[i], a)
            if h < _VANISH:
                result[i] = 0.0
            else:
                result[i] = _quotient(*exp_parts(h, l), ih, il)
    if None in result:
        undecided = [i for i, value in enumerate(result) if value is None]
        for i, value in slow_results(z, "softmax", undecided).items():
            result[i] = value
    return result


def _offset(x, a):
    """x - a as h + l, exactly (TwoSum)."""
    h = x - a
    if h == -_INF:
        return h, 0.0
    v = h - x
    return h, (x - (h - v)) + (-a - v)


def _quotient(eh, el, m, ih, il):
    """The float nearest (eh + el) 2**m (ih + il), within the softmax bound, or None."""
    if m < -1076:
        # Below 2 * 2**-1076: rounds to 0.
        return 0.0
    q, qe = two_product(eh, ih)
    ql = qe + (el * ih + eh * il)
    if m >= -900:
        scale = DOWN[-m]
        h = q * scale
        if h >= _SMALL:
            return near(h, ql * scale, h * _SOFTMAX_EPS)
    return near_scaled(q, ql, q * (_SOFTMAX_RATE / 2), m)


def rounded_log_softmax(z, floats=None):
    """log_softmax of checked logits, correctly rounded.

    >>> rounded_log_softmax([0.0, -math.inf])
    [0.0, -inf]
    """
    if len(z) - z.count(-_INF) == 1:
        return [-_INF if x == -_INF else 0.0 for x in z]
    if not (floats or _all_floats(z)):
        return _as_list(slow_results(z, "log_softmax", range(len(z))), len(z))
    a = max(z)
    log = _log_sum(z, a, _terms(z, a))
    if log is None:
        # ln S < 2**-1100: the top class rounds to -0.0, the others to
        # h + l unless that is a midpoint.
        big = small = 0.0
        eps_big = 2.0 ** -1000
        top_value = -0.0
    else:
        m, parts = log
        lh, ll = fsum2(parts)
        big, small = math.ldexp(lh, m), math.ldexp(ll, m)
        eps_big = big * _LOG_EPS + 2.0 ** -1000
        if big >= _SMALL:
            top_value = near(-big, -small, big * _LOG_EPS)
        else:
            top_value = near_scaled(-lh, -ll, lh * (_LOG_EPS / 2), m)
    na, nbig, tiny = -a, -big, 2.0 ** -100
    # (z_i - a) - ln S: TwoSum twice and the cheaper test of the module
    # docstring, with the rounding allowance |r| 2**-100.
    result = []
    for x in z:
        h = x + na
        v = h - x
        l = (x - (h - v)) + (na - v)
        r = h + nbig
        v = r - h
        lo = ((h - (r - v)) + (nbig - v)) + (l - small)
        eps = eps_big - r * tiny
        y = r + (lo + eps)
        result.append(y if y == r + (lo - eps) else None)
    if None in result:
        undecided = []
        for i, value in enumerate(result):
            if value is not None:
                continue
            h, l = _offset(z[i], a)
            if h == 0.0:
                value = top_value
            elif h == -_INF:
                value = h
            else:
                most = big + abs(small) + eps_big
                if most < 0.25 * math.ulp(h):
                    value = _beside_tiny(h, l, most)
            if value is None:
                undecided.append(i)
            result[i] = value
        if undecided:
            for i, value in slow_results(z, "log_softmax", undecided).items():
                result[i] = value
    return result


def rounded_logsumexp(z, floats=None):
    """logsumexp of checked logits, correctly rounded.

    >>> rounded_logsumexp([0.0, 0.0])
    0.6931471805599453
    """
    if len(z) - z.count(-_INF) == 1:
        return to_float(max(z))
    if not (floats or _all_floats(z)):
        return slow_results(z, "logsumexp", [0])[0]
    a = max(z)
    log = _log_sum(z, a, _terms(z, a))
    value = None
    if log is None:
        # ln S < 2**-1100, below half an ulp of any a but a tiny one.
        if a == 0.0:
            value = 0.0
        elif abs(a) >= 2.0 ** -1000:
            value = a
    else:
        m, parts = log
        lh, ll = fsum2(parts)
        big, small = math.ldexp(lh, m), math.ldexp(ll, m)
        if a == 0.0:
            if big >= _SMALL:
                value = near(big, small, big * _LOG_EPS)
            else:
                value = near_scaled(lh, ll, lh * (_LOG_EPS / 2), m)
        else:
            r = a + big
            v = r - a
            low = ((a - (r - v)) + (big - v)) + small
            if abs(r) >= _SMALL:
                value = near(r, low, big * _LOG_EPS + 2.0 ** -1000)
    if value is None:
        value = slow_results(z, "logsumexp", [0])[0]
    return value


def _beside_tiny(h, l, most):
    """The float nearest h + l - L for h < 0, 0 < L <= most < ulp(h)/4, or None.

    h + l = z_i - max is exact and often a rounding midpoint itself (the
    difference of floats of two binades needs 54 bits); then the small L
    decides the rounding, however small it is, and no error bound on L can
    show that.  The rounding interval of h reaches hb = ulp(h)/2 below it;
    TwoSum puts l inside it, so h + l - L < h + (its upper half-gap), and
    h + l - L rounds to h when L < l + hb, to the float below h when
    l = -hb.  l + hb is rounded down (times 1 - 2**-52) to stay a bound.
    """
    hb = 0.5 * math.ulp(h)
    if l == -hb:
        return math.nextafter(h, -_INF)
    if most < (l + hb) * (1.0 - 2.0 ** -52):
        return h
    return None


def rounded_exp(x):
    """exp of a float, correctly rounded (+inf past the float range).

    >>> rounded_exp(-745.2), rounded_exp(709.79), rounded_exp(0.0)
    (0.0, inf, 1.0)
    """
    if x != x:
        return x
    if x > 709.79:
        return _INF
    if x < -745.2:
        return 0.0
    eh, el, m = exp_parts(x, 0.0)
    value = None
    if -900 <= m < 1023:
        h = math.ldexp(eh, m)
        value = near(h, math.ldexp(el, m), h * 2.0 ** -76)
    elif m < -900:
        value = near_scaled(eh, el, eh * 2.0 ** -77, m)
    if value is None:
        value = slow_exp(x)
    return value
