"""Tests of reviews.rounded.kernels: kernel bounds, the rounding test, no libm."""

import decimal
import json
import math
import random
import subprocess
import sys
import unittest
from fractions import Fraction

from reviews.rounded import double_double, kernels as rounding
from reviews.exact import to_decimal, to_float
from reviews.rounded.kernels import (
    rounded_exp,
    rounded_log_softmax,
    rounded_logsumexp,
    rounded_softmax,
)
from reviews.rounded.fallback import slow_path_runs
from reviews.rounded import log_softmax, logsumexp, softmax, softmax_naive
from reviews.rounded import logsumexp_exact, softmax_exact
from tests.support import ROOT, fresh_python
from tests.support.softmax import correctly_rounded, grid_vectors
from tests.support.softmax import rounded_log_softmax as reference_log_softmax


WORK = decimal.Context(prec=80, Emax=10 ** 6, Emin=-10 ** 6)
SEED = 8080


def exact_exp(x):
    return Fraction(WORK.exp(to_decimal(x, WORK)))


def ln(x):
    return WORK.ln(to_decimal(x, WORK))


def midpoint_above(value):
    """The midpoint between the float ``value`` and the next one up."""
    return (Fraction(value) + Fraction(math.nextafter(value, math.inf))) / 2


def steer(function, target):
    """The float g near 0 for which function(g), a Decimal, is nearest target.

    function must have a slope away from 0 near g = 0; a few Newton steps
    in decimal, then g is rounded: its spacing near 0 is far finer than
    the steps of function's value.
    """
    target = to_decimal(target, WORK)
    g = decimal.Decimal(0)
    step = decimal.Decimal("1e-40")
    for _ in range(6):
        slope = WORK.divide(WORK.subtract(function(g + step), function(g - step)), 2 * step)
        g = WORK.subtract(g, WORK.divide(WORK.subtract(function(g), target), slope))
    return float(g)


class TestKernels(unittest.TestCase):

    def test_exp_kernel_is_within_its_bound_over_its_domain(self):
        rng = random.Random(SEED)
        points = [rng.uniform(-1500, 710) for _ in range(300)]
        points += [rng.uniform(-1, 1) * 10 ** -rng.randint(0, 15) for _ in range(100)]
        points += [0.5 * k * float(Fraction(math.log(2)) / 4096) for k in range(-9, 10)]
        for x in points:
            eh, el, m = double_double.exp_parts(x, 0.0)
            got = (Fraction(eh) + Fraction(el)) * Fraction(2) ** m
            want = exact_exp(x)
            with self.subTest(x=x):
                self.assertLessEqual(abs(got - want), Fraction(2) ** -79 * want)

    def test_exp_kernel_of_zero_is_exactly_one(self):
        self.assertEqual(double_double.exp_parts(0.0, 0.0), (1.0, 0.0, 0))

    def test_log_kernel_is_within_its_bound(self):
        rng = random.Random(SEED)
        values = [1 + 2.0 ** -21, 1 + 2.0 ** -9, 2 ** 0.5, 1.5, 2.0, 3.0, 1e6, 2.0 ** 40]
        values += [1 + 2.0 ** -rng.uniform(0, 21) for _ in range(100)]
        values += [2.0 ** rng.uniform(0, 40) for _ in range(100)]
        for s in values:
            # The low part of a double-double sum: up to half an ulp.
            low = rng.uniform(-0.5, 0.5) * math.ulp(s)
            got = sum(map(Fraction, double_double.ln(s, low)))
            want = Fraction(ln(Fraction(s) + Fraction(low)))
            with self.subTest(s=s):
                self.assertLessEqual(abs(got - want), Fraction(2) ** -80 * want)

    def test_exp_table_is_two_to_the_j_over_4096_within_2_to_the_minus_105(self):
        context = decimal.Context(prec=60)
        step = context.exp(context.divide(context.ln(2), 4096))
        power = decimal.Decimal(1)
        for j, (high, low) in enumerate(zip(double_double._TH, double_double._TL)):
            error = context.subtract(context.add(decimal.Decimal(high), decimal.Decimal(low)),
                                     power)
            if abs(error) > context.multiply(power, decimal.Decimal(2) ** -105):
                self.fail("T_%d is off by %s" % (j, error))
            self.assertEqual(high, float(power))
            power = context.multiply(power, step)

    def test_log_table_is_built_at_the_first_logarithm_not_at_import(self):
        done = fresh_python("from reviews.rounded import double_double, kernels as rounding;"
                            " before = double_double._LOG_TABLE is None;"
                            " rounding.rounded_logsumexp([0.0, 1.0]);"
                            " print(before, len(double_double._LOG_TABLE[0]))")
        self.assertEqual((done.returncode, done.stdout), (0, "True 363\n"), done.stderr)


class TestExp(unittest.TestCase):

    def test_exp_is_correctly_rounded_near_the_range_limits_and_at_random(self):
        rng = random.Random(SEED)
        points = [709.78, 709.782712893384, 709.7827128933841, -745.13, -745.1332191019411,
                  -745.1332191019412, -708.4, -720.5, 1e-300, -1e-20, 1.0, -1.0]
        points += [rng.uniform(-745, 709) for _ in range(200)]
        for x in points:
            with self.subTest(x=x):
                self.assertEqual(rounded_exp(x), to_float(exact_exp(x)))

    def test_exp_overflows_to_inf_exactly_past_the_threshold(self):
        # ln(2**1024 - 2**970) = 709.782712893384 lies between these two.
        self.assertEqual(rounded_exp(709.782712893384), 1.7976931348622732e308)
        self.assertEqual(rounded_exp(709.7827128933841), math.inf)

    def test_textbook_formula_uses_the_correctly_rounded_exp(self):
        z = [0.1, 0.2, 0.3]
        exps = [to_float(exact_exp(x)) for x in z]
        self.assertEqual(softmax_naive(z), [e / sum(exps) for e in exps])


class TestMidpoints(unittest.TestCase):
    """Exact results within 2**-40 ulp of a rounding midpoint.

    Logits [-5.0, g] with g near 0, whose spacing is fine: g is steered so
    that the result lies on a midpoint to about 2**-50 ulp.  The fast path
    cannot decide; the decimal fallback must run and round right.
    """

    def check(self, function, value, index, target):
        g = steer(lambda t: value(t), target)
        z = [-5.0, g]
        got_exact = Fraction(value(decimal.Decimal(g)))
        spacing = Fraction(math.ulp(float(target)))
        self.assertLess(abs(got_exact - target), spacing * Fraction(2) ** -40)
        before = slow_path_runs()
        got = function(z)
        self.assertGreater(slow_path_runs(), before)
        got = got[index] if isinstance(got, list) else got
        self.assertEqual(got, to_float(got_exact))
        self.assertNotEqual(got_exact, target)

    def test_softmax_next_to_a_midpoint(self):
        # p1 = 1 / (1 + e**(g + 5)); the midpoint above the float nearest it.
        def value(g):
            return WORK.divide(1, WORK.add(1, WORK.exp(WORK.add(g, 5))))
        target = midpoint_above(to_float(Fraction(value(decimal.Decimal(0)))))
        self.check(softmax, value, 0, target)

    def test_log_softmax_next_to_a_midpoint(self):
        # log p1 = -5 - g - ln(1 + e**(-5 - g)).
        def value(g):
            u = WORK.subtract(-5, g)
            return WORK.subtract(u, WORK.ln(WORK.add(1, WORK.exp(u))))
        target = midpoint_above(to_float(Fraction(value(decimal.Decimal(0)))))
        self.check(log_softmax, value, 0, target)

    def test_logsumexp_next_to_a_midpoint(self):
        # g + ln(1 + e**(-5 - g)).
        def value(g):
            return WORK.add(g, WORK.ln(WORK.add(1, WORK.exp(WORK.subtract(-5, g)))))
        target = midpoint_above(to_float(Fraction(value(decimal.Decimal(0)))))
        self.check(logsumexp, value, None, target)


class TestTinyBesideMidpoint(unittest.TestCase):

    def test_offset_on_a_midpoint_rounds_by_the_sign_of_a_tiny_log(self):
        z = [167.71648705496025, -65.64995727601284]
        offset = Fraction(z[1]) - Fraction(z[0])
        below = math.nextafter(to_float(offset), -math.inf)
        # The exact offset is the midpoint of two floats (it needs 54 bits) ...
        self.assertEqual(offset, (Fraction(to_float(offset)) + Fraction(below)) / 2)
        # ... so offset - ln(1 + e**offset), 4.5e-102 below it, rounds down:
        # 60 digits could not tell, 400 do.
        self.assertEqual(log_softmax(z)[1], below)
        self.assertEqual(below, -233.3664443309731)


class TestWithoutLibm(unittest.TestCase):

    def test_libm_one_ulp_off_gives_identical_bits(self):
        child = r"""
import json, math, sys
sys.path.insert(0, sys.argv[1])
def off(function):
    def wrong(*args):
        y = function(*args)
        return math.nextafter(y, math.inf) if math.isfinite(y) else y
    return wrong
for name in ("exp", "log", "log1p", "expm1", "log2", "log10", "pow"):
    setattr(math, name, off(getattr(math, name)))
from reviews.rounded import softmax, log_softmax, logsumexp, softmax_naive
grid = [[float.fromhex(x) for x in z] for z in json.load(sys.stdin)]
print(json.dumps(run(grid)))
"""
        # The grid itself uses math.log and float **: make it here, send it as hex.
        grid = [[float(x) for x in z] for z in grid_vectors(seed=77, size=400)]
        code = child.replace("print(json.dumps(run(grid)))", RUN + "print(json.dumps(run(grid)))")
        done = subprocess.run([sys.executable, "-c", code, ROOT], capture_output=True,
                              text=True, timeout=120,
                              input=json.dumps([[x.hex() for x in z] for z in grid]))
        self.assertEqual(done.returncode, 0, done.stderr[-2000:])
        outside = json.loads(done.stdout)
        namespace = {"softmax": softmax, "log_softmax": log_softmax, "logsumexp": logsumexp,
                     "softmax_naive": softmax_naive, "math": math}
        exec(RUN, namespace)
        inside = namespace["run"](grid)
        # The child's libm really is off: exp(1) differs in the last bit.
        self.assertNotEqual(outside.pop(), inside.pop())
        self.assertEqual(outside, inside)


# Shared by the test and its child: every result on a grid, as exact text.
RUN = r"""
def run(grid):
    rows = []
    for z in grid:
        rows.append([list(map(float.hex, softmax(z))), list(map(float.hex, log_softmax(z))),
                     logsumexp(z).hex(), list(map(float.hex, softmax_naive(z)))])
    rows.append(math.exp(1.0).hex())
    return rows
"""


class TestFastPath(unittest.TestCase):
    """The list of scaled exp terms, what is left out of S, and the limits."""

    def test_terms_are_the_kernel_scaled_exactly_and_zero_past_the_fast_range(self):
        z = [0.0, -1e-17, -0.3, -1.0 / 3, -99.9, -574.99, -575.01, -700.0, -1600.0, -math.inf]
        terms = rounding._terms(z, 0.0)
        self.assertEqual(len(terms), 2 * len(z))
        for i, x in enumerate(z):
            with self.subTest(x=x):
                if x >= rounding._FAST:
                    eh, el, m = double_double.exp_parts(x, 0.0)
                    self.assertEqual(terms[2 * i:2 * i + 2], [eh * 2.0 ** m, el * 2.0 ** m])
                else:
                    self.assertEqual(terms[2 * i:2 * i + 2], [0.0, 0.0])

    def check(self, z):
        self.assertEqual(rounded_softmax(z), correctly_rounded(softmax_exact, z))
        self.assertEqual(rounded_log_softmax(z), reference_log_softmax(z))
        self.assertEqual(rounded_logsumexp(z), correctly_rounded(logsumexp_exact, z))

    def test_offsets_on_both_sides_of_the_fast_range_round_right(self):
        for shift in (0.0, 3.5, -1e5):
            for z in ([0.0, -574.99, -575.01, -600.0, -745.0, -745.2, -1200.0, -math.inf],
                      [0.0, -600.0], [-1.0, 0.0, -740.0], [2.0, -1600.0, 2.0]):
                with self.subTest(z=z, shift=shift):
                    self.check([x + shift for x in z])

    def test_many_terms_below_the_sum_cut_round_right(self):
        # Offsets past -100 leave parts below 2**-160 out of fsum.
        rng = random.Random(SEED)
        z = [0.0, -1.0, -30.0] + [rng.uniform(-600, -100) for _ in range(300)]
        self.check(z)

    def test_left_out_terms_that_make_all_of_s_minus_1_are_counted(self):
        # S - 1 = e**-600 + e**-601: only left-out terms, so the top's
        # log-probability is -3.6e-261, not -0.0.
        z = [0.0, -600.0, -601.0]
        self.check(z)
        self.assertEqual(rounded_log_softmax(z)[0], -3.625422955806254e-261)
        self.assertEqual(rounded_logsumexp(z), 3.625422955806254e-261)

    def test_small_s_minus_1_with_left_out_terms_rounds_right(self):
        for z in ([0.0, -40.0, -600.0], [0.0, -500.0, -600.0], [0.0, -15.0, -700.0, -math.inf]):
            with self.subTest(z=z):
                self.check(z)


class TestFallbackInputs(unittest.TestCase):

    def test_fractions_are_rounded_from_their_exact_value(self):
        third = Fraction(1, 3)
        want = to_float(1 / (1 + exact_exp(-third)))
        self.assertEqual(rounded_softmax([third, Fraction(0)])[0], want)

    def test_ties_are_one_over_the_count(self):
        self.assertEqual(rounded_softmax([2.0, -math.inf, 2.0, 2.0]),
                         [1 / 3, 0.0, 1 / 3, 1 / 3])

    def test_tiny_negative_results_are_minus_zero(self):
        self.assertEqual(math.copysign(1.0, rounded_log_softmax([1000.0, 0.0])[0]), -1.0)
        self.assertEqual(math.copysign(1.0, rounded_logsumexp([0.0, -1e6])), 1.0)

    def test_logsumexp_near_zero_takes_the_slow_path_and_rounds_right(self):
        before = slow_path_runs()
        self.assertEqual(rounded_logsumexp([-math.log(2)] * 2), 2.3190468138462996e-17)
        self.assertGreater(slow_path_runs(), before)


if __name__ == "__main__":
    unittest.main()
