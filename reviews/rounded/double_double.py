"""Double-double exp and log kernels, with proven error bounds, without libm.

A double-double is an unevaluated sum h + l of two floats; these kernels
compute exp and ln in that arithmetic from tables built once from
``decimal``, with bounds that reviews.rounded.kernels turns into Ziv's
rounding test.  Only ``+ - * /``, ``math.fsum``, ``frexp`` and ``ldexp``
are used, which IEEE 754 and CPython define exactly.

    exp_parts       exp(h + l) as (eh, el, m): 2**m (eh + el), within beta
    ln              ln(sh + sl) as a double-double, within alpha
    two_product     Dekker's exact product of two floats
    fsum2           math.fsum's result and remainder, as a double-double
    near, near_scaled   whether every value within a bound rounds alike
    C1, C2, C3, T4, INV_STEP, MAGIC, SPLITTER, DOWN, SCALE
                    the splitting constants and tables the loops share

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
"""

import decimal
import math
from fractions import Fraction

__all__ = ["exp_parts", "ln", "two_product", "fsum2", "near", "near_scaled", "C1", "C2", "C3",
           "T4", "INV_STEP", "MAGIC", "SPLITTER", "DOWN", "SCALE"]


_INF = math.inf
SPLITTER = 134217729.0          # 2**27 + 1: Veltkamp's splitting constant
MAGIC = 6755399441055744.0      # 1.5 * 2**52: x + MAGIC - MAGIC rounds x to an integer
_TABLE = decimal.Context(prec=60)
# 40 digits: below 2**-129 relative, and faster for the 363 logs.
_LOGS = decimal.Context(prec=40)
_LN2 = Fraction(_TABLE.ln(2))
# The exp table's fixed point: 200 bits, its step 2**(1/4096) from 80 digits.
_FIXED_BITS = 200
_STEP_CONTEXT = decimal.Context(prec=80)

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
    scaled = SPLITTER * x
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
C1 = _short(_STEP, 29)
C2 = _short(_STEP - Fraction(C1), 29)
C3 = float(_STEP - Fraction(C1) - Fraction(C2))
INV_STEP = float(1 / _STEP)
# Powers 2**-k for 0 <= k <= 1100, exact.
DOWN = [2.0 ** -k for k in range(1101)]
SCALE = DOWN[:831] + [0.0] * 1300
# (T_j high, its two halves, T_j low): one subscript in _terms.
T4 = list(zip(_TH, _TH1, _TH2, _TL))


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

def exp_parts(h, l):
    """exp(h + l) = (eh + el) * 2**m (1 + theta), |theta| <= beta."""
    n = h * INV_STEP + MAGIC - MAGIC
    a1 = h - n * C1
    b = n * C2
    rh = a1 - b
    v = rh - a1
    rl = ((a1 - (rh - v)) + (-b - v)) + (l - n * C3)
    p1 = 1.0 + rh
    e1 = rh - (p1 - 1.0)
    q = rh * rh * (0.5 + rh * (0.16666666666666666 + rh * (0.041666666666666664
                                                        + rh * 0.008333333333333333)))
    ph = p1 + q
    lo = (e1 + (q - (ph - p1))) + rl * ph
    k = int(n)
    j = k & 4095
    th = _TH[j]
    scaled = SPLITTER * ph
    top = scaled - (scaled - ph)
    bottom = ph - top
    t1 = _TH1[j]
    t2 = _TH2[j]
    eh = th * ph
    el = (((t1 * top - eh) + t1 * bottom + t2 * top) + t2 * bottom) + (th * lo + _TL[j] * ph)
    return eh, el, k >> 12


def two_product(x, y):
    p = x * y
    xh, xl = _split(x)
    yh, yl = _split(y)
    return p, ((xh * yh - p) + xh * yl + xl * yh) + xl * yl


def ln(sh, sl):
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
    scaled = SPLITTER * th
    t1 = scaled - (scaled - th)
    t2 = th - t1
    sq = th * th
    sqe = ((t1 * t1 - sq) + 2.0 * t1 * t2) + t2 * t2
    scaled = SPLITTER * sq
    q1 = scaled - (scaled - sq)
    q2 = sq - q1
    cube = sq * th
    cube_e = ((q1 * t1 - cube) + q1 * t2 + q2 * t1) + q2 * t2
    scaled = SPLITTER * cube
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


def fsum2(parts):
    high = math.fsum(parts)
    parts.append(-high)
    return high, math.fsum(parts)


def near(h, l, eps):
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


def near_scaled(h, l, eps, k):
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
