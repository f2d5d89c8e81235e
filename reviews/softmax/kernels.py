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

"Checked logits" are what ``reviews.softmax`` passes: a non-empty list of
floats and Fractions, with no NaN, no +inf and at least one finite entry;
``floats=True`` says that they are all floats.

The method is Ziv's.  A fast evaluation in double-double arithmetic gives
an approximation y = H + L of each result v with a proven bound |y - v| <= B.
If every number within 2B of y rounds to the same float, that float is
the correctly rounded v.  Otherwise (about once in 2**23 results) the
result is recomputed in ``decimal`` at rising precision by
reviews.softmax.fallback, which says why that always ends.

Notation: u = 2**-53; x = h + l is an exact offset z_i - max(z) (TwoSum).

The exp kernel, exp(x) = 2**m * T_j * exp(r) for -1500 <= x <= 710.  With
N = round(x * 4096 / ln 2), m = N // 4096, j = N % 4096 and
r = x - N ln2/4096, |r| <= ln2/8192 * (1 + 2**-28) < 2**-13.5:

1. r = rh + rl.  ln2/4096 = C1 + C2 + C3 where C1 and C2 have 29 bits and
   C3 is rounded (error below 2**-125 relative); |N| < 2**24, so N*C1 and
   N*C2 are exact, h - N*C1 is exact (Sterbenz), and TwoSum makes
   (h - N*C1) - N*C2 = rh + re exactly.  rl = re + (l - N*C3) rounds three
   times terms below 2**-42, and N*C3's error and C's truncation are below
   2**-100: |r - (rh + rl)| <= 2**-94, a relative error below 2**-93.9
   of exp(r).  |rl| < 2**-42.9.
2. exp(rh) = 1 + rh + q with q = rh**2 (1/2 + rh/6 + rh**2/24 + rh**3/120)
   + R, |R| <= (2**-13.5)**6 / 720 < 2**-90.5.  q <= 2**-28 is computed in
   floats with three roundings and coefficient errors, so its error is at
   most 3.1 u q < 2**-79.4.
3. 1 + rh = p1 + e1 and p1 + q = ph + e2 (Fast2Sum, exact).  exp(r) =
   exp(rh)(1 + rl + rl**2/2 + ...): lo = (e1 + e2) + rl*ph adds terms below
   2**-42.5 with four roundings (2**-93.9); using ph for exp(rh) in rl*ph
   costs below 2**-95.9 and dropping rl**2/2 below 2**-86.8.  So
   |ph + lo - exp(r)| < 2**-79.3.
4. T_j = 2**(j/4096) = Th + Tl from a 200-bit fixed-point power (error
   below 2**-186, and below 2**-105 after rounding to two floats).
   Th * ph = eh + pe exactly (Dekker's product, Th split at import),
   el = pe + (Th*lo + Tl*ph) with roundings and the dropped Tl*lo below
   2**-92.

So eh + el = exp(x) 2**-m (1 + theta) with |theta| <= beta = 2**-79 (the
code uses 2**-78).  exp(0) is exactly (1.0, 0.0, 0).

The log kernel, ln(S) for S = Sh + Sl >= 1 + 2**-21 (double-double):
S = 2**k (y + yl) with y in [2**-0.5, 2**0.5); r_j is a 14-bit reciprocal
of the 1/512-wide bin of y (r_j = 1 for the bin [1, 1 + 1/512)), so that
y*r_j is exact in two products (y split at 2**-38) and t = (y + yl) r_j - 1
= th + tl to 2**-105, |t| <= 2**-9 (checked as the table is built).  Then
ln S = k ln 2 - ln r_j + ln(1 + t), with k ln 2 in three pieces (exact
products), -ln r_j from a 60-digit table (2**-106), and
ln(1 + t) = th - th**2/2 + th**3/3 + th**4 P(th) + tl/(1 + th), the last as
tl (1 - th + th**2 - th**3 + th**4) (|tl| <= 2**-53, so the rest is below
2**-89 of th):
th**2 and th**3/3 as exact products (Dekker; 1/3 as two floats), P the
series to t**10 (truncation below 2**-99), the th**4 P term (below
2**-38) in floats (error below 2**-88), and the tl terms in floats.
Everything is summed exactly by ``math.fsum``.  For k = 0 and r_j = 1 the
errors scale with t, so the relative error alpha of ln S is below 2**-80
everywhere in its domain (the code uses 2**-78; the tests measure 2**-81).

For S < 1 + 2**-20 the log is ln(1 + s) = s - s**2/2 + s**3/3 - ... with
the rest s = S - 1 kept as 2**M (sh + sl), the square exact (Dekker) and
the terms from s**3 on in floats (relative 2**-90).

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

import decimal
import math
from fractions import Fraction

from reviews.exact import to_float
from reviews.softmax.fallback import slow_exp, slow_results

__all__ = ["rounded_softmax", "rounded_log_softmax", "rounded_logsumexp", "rounded_exp"]

_INF = math.inf
_SPLITTER = 134217729.0          # 2**27 + 1: Veltkamp's splitting constant
_MAGIC = 6755399441055744.0      # 1.5 * 2**52: x + _MAGIC - _MAGIC rounds x to an integer
_TABLE = decimal.Context(prec=60)
# 40 digits: below 2**-129 relative, and faster for the 363 logs.
_LOGS = decimal.Context(prec=40)
_LN2 = Fraction(_TABLE.ln(2))
# The exp table's fixed point: 200 bits, its step 2**(1/4096) from 80 digits.
_FIXED_BITS = 200
_STEP_CONTEXT = decimal.Context(prec=80)
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


# ---- tables, built once from decimal -------------------------------------

def _two_floats(value):
    """A Decimal (or a rational) as high + low, each rounded to nearest.

    A double in [2**-60, 2) has at most 60 significant digits, so the
    difference is exact at _TABLE's precision.
    """
    if isinstance(value, Fraction):
        high = float(value)
        return high, float(value - Fraction(high))
    high = float(value)
    return high, float(_TABLE.subtract(value, decimal.Decimal(high)))


def _split(x):
    scaled = _SPLITTER * x
    high = scaled - (scaled - x)
    return high, x - high


def _short(value, bits):
    """A positive rational rounded to a float of at most ``bits`` bits."""
    exponent = value.numerator.bit_length() - value.denominator.bit_length()
    scale = Fraction(2) ** (bits - exponent)
    return float(round(value * scale) / scale)


def _exp_table():
    # T_j = 2**(j/4096) in fixed point with _FIXED_BITS fraction bits: each
    # product is truncated, so T_j is low by at most 4096 * 3 units of
    # 2**-_FIXED_BITS, and an int converts to the nearest float.
    context = _STEP_CONTEXT
    step = int(context.multiply(context.exp(context.divide(context.ln(2), 4096)),
                                2 ** _FIXED_BITS))
    value = 1 << _FIXED_BITS
    highs, lows, tops, bottoms = [], [], [], []
    for _ in range(4096):
        high = math.ldexp(float(value), -_FIXED_BITS)
        rest = value - int(math.ldexp(high, _FIXED_BITS))
        top, bottom = _split(high)
        highs.append(high)
        lows.append(math.ldexp(float(rest), -_FIXED_BITS))
        tops.append(top)
        bottoms.append(bottom)
        value = value * step >> _FIXED_BITS
    return highs, lows, tops, bottoms


_TH, _TL, _TH1, _TH2 = _exp_table()
_STEP = _LN2 / 4096
_C1 = _short(_STEP, 29)
_C2 = _short(_STEP - Fraction(_C1), 29)
_C3 = float(_STEP - Fraction(_C1) - Fraction(_C2))
_INV_STEP = float(1 / _STEP)
# Powers 2**-k for 0 <= k <= 1100, exact.
_DOWN = [2.0 ** -k for k in range(1101)]
_SCALE = _DOWN[:831] + [0.0] * 1300
# (T_j high, its two halves, T_j low): one subscript in _terms.
_T4 = list(zip(_TH, _TH1, _TH2, _TL))


# Built on first use: most runs (the claims' among them) take no logarithm
# and need not pay for its 363 decimal logarithms.
_LOG_TABLE = None


def _log_table():
    """(r_j, high and low parts of -ln r_j) by bin j, built on the first call."""
    global _LOG_TABLE
    if _LOG_TABLE is None:
        reciprocals, highs, lows = {}, {}, {}
        for j in range(362, 725):
            if j == 512:
                r = 1.0
            else:
                r = float(round(Fraction(2 ** 13 * 1024, 2 * j + 1)) / 2 ** 13)
            low_end, high_end = Fraction(j, 512), Fraction(j + 1, 512)
            worst = max(abs(low_end * Fraction(r) - 1), abs(high_end * Fraction(r) - 1))
            if worst > Fraction(1, 512):
                raise RuntimeError("log table: |t| bound fails at bin %d" % j)
            reciprocals[j] = r
            highs[j], lows[j] = _two_floats(-_LOGS.ln(decimal.Decimal(r)))
        _LOG_TABLE = reciprocals, highs, lows
    return _LOG_TABLE


_L2_1 = _short(_LN2, 42)
_L2_2 = _short(_LN2 - Fraction(_L2_1), 42)
_L2_3 = float(_LN2 - Fraction(_L2_1) - Fraction(_L2_2))
_THIRD_H, _THIRD_L = _two_floats(Fraction(1, 3))
_THIRD_1, _THIRD_2 = _split(_THIRD_H)
_SQRT_HALF = 0.7071067811865476   # rounded up: y = 2f >= 2**0.5 * (1 - u) at most


# ---- kernels ---------------------------------------------------------------

def _exp_parts(h, l):
    """exp(h + l) = (eh + el) * 2**m (1 + theta), |theta| <= beta."""
    n = h * _INV_STEP + _MAGIC - _MAGIC
    a1 = h - n * _C1
    b = n * _C2
    rh = a1 - b
    v = rh - a1
    rl = ((a1 - (rh - v)) + (-b - v)) + (l - n * _C3)
    p1 = 1.0 + rh
    e1 = rh - (p1 - 1.0)
    q = rh * rh * (0.5 + rh * (0.16666666666666666 + rh * (0.041666666666666664
                                                        + rh * 0.008333333333333333)))
    ph = p1 + q
    lo = (e1 + (q - (ph - p1))) + rl * ph
    k = int(n)
    j = k & 4095
    th = _TH[j]
    scaled = _SPLITTER * ph
    top = scaled - (scaled - ph)
    bottom = ph - top
    t1 = _TH1[j]
    t2 = _TH2[j]
    eh = th * ph
    el = (((t1 * top - eh) + t1 * bottom + t2 * top) + t2 * bottom) + (th * lo + _TL[j] * ph)
    return eh, el, k >> 12


def _two_product(x, y):
    p = x * y
    xh, xl = _split(x)
    yh, yl = _split(y)
    return p, ((xh * yh - p) + xh * yl + xl * yh) + xl * yl


def _ln(sh, sl):
    """ln(sh + sl) as parts summing to it within alpha (sh + sl >= 1 + 2**-21)."""
    f, k = math.frexp(sh)
    if f < _SQRT_HALF:
        f *= 2.0
        k -= 1
    y = f
    yl = math.ldexp(sl, -k)
    j = int(y * 512.0)
    reciprocals, highs, lows = _LOG_TABLE or _log_table()
    r = reciprocals[j]
    y1 = (y + 24576.0) - 24576.0
    a = y1 * r - 1.0
    b = (y - y1) * r
    th = a + b
    v = th - a
    tl = ((a - (th - v)) + (b - v)) + yl * r
    # Dekker's products th*th, sq*th and cube*(1/3), inline for speed.
    scaled = _SPLITTER * th
    t1 = scaled - (scaled - th)
    t2 = th - t1
    sq = th * th
    sqe = ((t1 * t1 - sq) + 2.0 * t1 * t2) + t2 * t2
    scaled = _SPLITTER * sq
    q1 = scaled - (scaled - sq)
    q2 = sq - q1
    cube = sq * th
    cube_e = ((q1 * t1 - cube) + q1 * t2 + q2 * t1) + q2 * t2
    scaled = _SPLITTER * cube
    c1 = scaled - (scaled - cube)
    c2 = cube - c1
    c3 = cube * _THIRD_H
    c3e = ((c1 * _THIRD_1 - c3) + c1 * _THIRD_2 + c2 * _THIRD_1) + c2 * _THIRD_2
    c3_low = c3e + cube * _THIRD_L + (cube_e + sqe * th) * _THIRD_H
    tail = sq * sq * (-0.25 + th * (0.2 + th * (-0.16666666666666666 + th * (
        0.14285714285714285 + th * (-0.125 + th * (0.1111111111111111 - th * 0.1))))))
    parts = [th, -0.5 * sq, -0.5 * sqe, c3, c3_low,
             tl * (1.0 - th * (1.0 - th * (1.0 - th * (1.0 - th)))), tail]
    if j != 512:
        parts += [highs[j], lows[j]]
    if k:
        parts += [k * _L2_1, k * _L2_2, k * _L2_3]
    return parts


def _fsum2(parts):
    high = math.fsum(parts)
    parts.append(-high)
    return high, math.fsum(parts)


def _near(h, l, eps):
    """The float nearest h + l if all of (h + l) +- eps round alike, else None.

    Needs |h| >= 2**-900 and |l| < |h|; eps, twice the error bound of
    h + l, is widened by |L'| 2**-51 for the roundings of L' +- eps.
    """
    r = h + l
    lp = (h - r) + l
    eps += abs(lp) * 2.0 ** -51
    if r + (lp + eps) == r and r + (lp - eps) == r and r - r == 0.0:
        return r
    return None


def _near_scaled(h, l, eps, k):
    """The float nearest (h + l) 2**k, for a result below 2**-900, or None.

    eps bounds the error of h + l (it is doubled here).  After h + l is
    renormalized (Fast2Sum, exact), r, h 2**k rounded,
    moves to a neighbour if l carries h + l past a midpoint; then r is
    decided when the offset of h + l from it, +- 2 eps, stays within half
    the spacing on either side, all measured in the scaled copy (where
    h - r 2**-k is exact by Sterbenz's lemma, or r is 0).
    """
    high = h + l
    l -= high - h
    h = high
    r = math.ldexp(h, k)
    off = (h - math.ldexp(r, -k)) + l
    for _ in range(2):
        below, above = math.nextafter(r, -_INF), math.nextafter(r, _INF)
        half_down, half_up = math.ldexp(r - below, -1 - k), math.ldexp(above - r, -1 - k)
        if off > half_up:
            r, off = above, off - 2.0 * half_up
        elif off < -half_down:
            r, off = below, off + 2.0 * half_down
        else:
            slack = 2.0 * eps + abs(off) * 2.0 ** -51
            if off + slack < half_up and off - slack > -half_down:
                return r
            return None
    return None


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
                eh, el, m = _exp_parts(h, ls[-1])
                ehs.append(eh)
                els.append(el)
                ms.append(m)

    def total(self):
        """S = sum of the exp terms, as (Sh, Sl)."""
        down = _DOWN
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
        down = _DOWN
        floor = largest - 140
        parts = [eh * down[largest - m] for eh, m in zip(self.eh, ms) if m >= floor]
        parts += [el * down[largest - m] for el, m in zip(self.el, ms) if m >= floor]
        ms[top] = 0
        return _fsum2(parts)


def _terms(z, a):
    """[E_0h, E_0l, E_1h, E_1l, ...]: exp(z_i - a) = E_ih + E_il within beta.

    The exp kernel of the module docstring, inline for speed.  Each term
    is scaled by its 2**m, exactly, for an offset h_i >= _FAST (m >= -830);
    a term below that, or masked, is (0.0, 0.0) here: _OUT stands in for
    its offset, and _SCALE holds its 2**m as 0.0.
    """
    na = -a
    fast, out = _FAST, _OUT
    inv, c1, nc2, c3, magic, splitter = _INV_STEP, _C1, -_C2, _C3, _MAGIC, _SPLITTER
    table, scale = _T4, _SCALE
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
    sh, sl = _fsum2(parts)
    if sh >= _TINY_REST:
        return 0, _ln(*_fsum2([1.0, sh, sl]))
    parts = _significant(terms, z, a, sh * 2.0 ** -161) if sh >= 2.0 ** -100 else terms[:]
    parts.append(-1.0)
    sh, sl = _fsum2(parts)
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
            return 0, _ln(high, low)
    sh, sl = vector.rest(largest)
    m = largest
    s = math.ldexp(sh, m)
    if s >= _TINY_REST:
        # Many small terms: their sum is not small.
        return 0, _ln(*_fsum2([1.0, s, math.ldexp(sl, m)]))
    return _ln1p_small(sh, sl, m)


def _ln1p_small(sh, sl, m):
    """ln(1 + s) as (m, parts) for s = 2**m (sh + sl) < 2**-20."""
    s = math.ldexp(sh, m)
    # ln(1 + s) = s - s**2/2 + s**3 (1/3 - s/4 + s**2/5), in units of 2**m.
    sq, sqe = _two_product(sh, sh)
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
    sh, sl = _fsum2(_significant(terms, z, a))
    ih = 1.0 / sh
    p, pe = _two_product(ih, sh)
    il = ((1.0 - p) - pe - ih * sl) * ih
    scaled = _SPLITTER * ih
    i1 = scaled - (scaled - ih)
    i2 = ih - i1
    splitter = _SPLITTER
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
                result[i] = _quotient(*_exp_parts(h, l), ih, il)
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
    q, qe = _two_product(eh, ih)
    ql = qe + (el * ih + eh * il)
    if m >= -900:
        scale = _DOWN[-m]
        h = q * scale
        if h >= _SMALL:
            return _near(h, ql * scale, h * _SOFTMAX_EPS)
    return _near_scaled(q, ql, q * (_SOFTMAX_RATE / 2), m)


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
        lh, ll = _fsum2(parts)
        big, small = math.ldexp(lh, m), math.ldexp(ll, m)
        eps_big = big * _LOG_EPS + 2.0 ** -1000
        if big >= _SMALL:
            top_value = _near(-big, -small, big * _LOG_EPS)
        else:
            top_value = _near_scaled(-lh, -ll, lh * (_LOG_EPS / 2), m)
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
        lh, ll = _fsum2(parts)
        big, small = math.ldexp(lh, m), math.ldexp(ll, m)
        if a == 0.0:
            if big >= _SMALL:
                value = _near(big, small, big * _LOG_EPS)
            else:
                value = _near_scaled(lh, ll, lh * (_LOG_EPS / 2), m)
        else:
            r = a + big
            v = r - a
            low = ((a - (r - v)) + (big - v)) + small
            if abs(r) >= _SMALL:
                value = _near(r, low, big * _LOG_EPS + 2.0 ** -1000)
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
    eh, el, m = _exp_parts(x, 0.0)
    value = None
    if -900 <= m < 1023:
        h = math.ldexp(eh, m)
        value = _near(h, math.ldexp(el, m), h * 2.0 ** -76)
    elif m < -900:
        value = _near_scaled(eh, el, eh * 2.0 ** -77, m)
    if value is None:
        value = slow_exp(x)
    return value
