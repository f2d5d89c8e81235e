"""Softmax references for the tests: seeded grids of logits and the exact values rounded."""

import decimal
import math
import random
from fractions import Fraction

from reviews.exact import to_float
from reviews.rounded import (log_softmax, log_softmax_exact, logsumexp, logsumexp_exact, softmax,
                             softmax_exact, ulp_distance)

INF = math.inf
GRID_SEED = 20260
GRID_SIZE = 600


def grid_vectors(seed=GRID_SEED, size=GRID_SIZE):
    """Seeded logit vectors covering the hard cases of the accuracy claim."""
    rng = random.Random(seed)
    makers = [
        lambda n: [rng.gauss(0, 1) for _ in range(n)],
        lambda n: [rng.gauss(0, 100) for _ in range(n)],
        # z_i - max is not exact in floats here.
        lambda n: [1e15 + rng.uniform(-10, 10) for _ in range(n)],
        lambda n: [rng.uniform(-800, 0) for _ in range(n)],
        # exact and near ties
        lambda n: [0.7 + rng.choice([0, 1e-16, -1e-16, 5e-324, 1e-10]) for _ in range(n)],
        # magnitudes up to 1e308
        lambda n: [rng.choice([-1, 1]) * 10 ** rng.uniform(-300, 308) for _ in range(n)],
        # subnormal probabilities
        lambda n: [0.0] + [rng.uniform(-745, -700) for _ in range(n - 1)],
        # logsumexp near 0: max close to -log n
        lambda n: [-math.log(n) + rng.choice([0, 0, 1e-12, -1e-9]) for _ in range(n)],
        lambda n: [-3.15 + rng.uniform(-1e-3, 1e-3) for _ in range(27)],
        lambda n: [rng.choice([-1e308, 1e308, 0.0, -1.5, 3.0]) for _ in range(n)],
    ]
    for index in range(size):
        n = rng.choice([1, 2, 2, 3, 4, 5, 8, 16, 50])
        yield makers[index % len(makers)](n)


def correctly_rounded(exact, z):
    """exact(z) rounded to floats, from decimal at rising precision.

    The reference is correct to ``digits`` digits (an error below one unit
    in its last digit), so a float is certain once the value minus and plus
    that unit round to it; 60 digits decide nearly always, but an offset
    that is itself a rounding midpoint can need 100 or more.
    """
    digits = 60
    while True:
        values = exact(z, digits=digits)
        single = not isinstance(values, list)
        rounded = []
        for value in [values] if single else values:
            if not value.is_finite() or not -400 < value.adjusted() < 400:
                # Far past the float range either way: 0.0 or inf at once.
                rounded.append(float(value))
                continue
            unit = Fraction(decimal.Decimal((0, (1,), value.adjusted() - digits + 1)))
            low, high = to_float(Fraction(value) - unit), to_float(Fraction(value) + unit)
            rounded.append(low if low == high else None)
        if None not in rounded:
            return rounded[0] if single else rounded
        digits *= 2


def rounded_log_softmax(z):
    """log_softmax(z) correctly rounded, from exact offsets and ln S.

    log_softmax_i = (z_i - max) - ln S, where the offset is an exact
    rational that is often a rounding midpoint itself (a difference of
    floats of two binades), and ln S = -log_softmax_exact(z)[top] may be as
    small as e**-1e6 (or below decimal's range), too small for any number
    of digits to decide beside it.  Below 1e-400 it only says which way the
    midpoint rounds: an offset is at least 2**-1130 from a midpoint it is
    not on, so subtracting 2**-1400 instead rounds alike.
    """
    a = max(z)
    top = z.index(a)
    finite = sum(1 for x in z if x != -INF)
    minus_log = log_softmax_exact(z, digits=60)[top]
    tiny = finite > 1 and (minus_log == 0 or minus_log.adjusted() < -400)
    if not tiny:
        unit = Fraction(decimal.Decimal((0, (1,), minus_log.adjusted() - 59)))
    result = []
    for x in z:
        offset = None if x == -INF else Fraction(x) - Fraction(a)
        if offset is None:
            result.append(-INF)
        elif tiny:
            result.append(-0.0 if offset == 0 else to_float(offset - Fraction(1, 2 ** 1400)))
        elif minus_log == 0:
            result.append(to_float(offset))    # one finite logit: ln S = 0
        else:
            low = to_float(offset + Fraction(minus_log) - unit)
            high = to_float(offset + Fraction(minus_log) + unit)
            if low != high:
                raise AssertionError("reference undecided at %r" % (z,))
            result.append(low)
    return result


def worst_distances(vectors):
    """Worst ulp distance of softmax, log_softmax and logsumexp from exact."""
    worst = dict.fromkeys(("softmax", "log_softmax", "logsumexp"), decimal.Decimal(0))
    for z in vectors:
        for name, fast, exact in (("softmax", softmax, softmax_exact),
                                  ("log_softmax", log_softmax, log_softmax_exact)):
            for value, reference in zip(fast(z), exact(z)):
                worst[name] = max(worst[name], ulp_distance(value, reference))
        worst["logsumexp"] = max(worst["logsumexp"],
                                 ulp_distance(logsumexp(z), logsumexp_exact(z)))
    return worst
