"""Tests of reviews.rounded: exact values, semantics, errors, accuracy grid."""

import decimal
import math
import unittest
from fractions import Fraction

from reviews.errors import InputError
from reviews.rounded import (
    log_softmax,
    log_softmax_exact,
    logsumexp,
    logsumexp_exact,
    softmax,
    softmax_exact,
    MAX_DIGITS,
    softmax_naive,
    ulp_distance,
)
from tests.support.softmax import grid_vectors, correctly_rounded, rounded_log_softmax

INF = math.inf
ULP_BOUND = decimal.Decimal("0.5")


class TestExactValues(unittest.TestCase):

    def test_log_softmax_keeps_the_largest_class_below_zero_at_gap_50(self):
        self.assertEqual(log_softmax([50, 0])[0], -1.9287498479639178e-22)

    def test_softmax_at_gap_50_matches_the_correctly_rounded_value(self):
        self.assertEqual(softmax([50, 0]), [1.0, 1.9287498479639178e-22])

    def test_softmax_of_ties_is_uniform(self):
        self.assertEqual(softmax([3, 3, 3, 3]), [0.25] * 4)

    def test_large_common_offset_is_recovered_exactly(self):
        # 1e15 + 0.3 is 1000000000000000.25 in floats; the shift is -0.25.
        got = softmax([1e15 + 0.3, 1e15])
        self.assertEqual(got, [0.5621765008857981, 0.4378234991142019])
        self.assertLessEqual(ulp_distance(got[1], softmax_exact([0.25, 0])[1]), 1)

    def test_subnormal_probability_is_correctly_rounded(self):
        self.assertEqual(softmax([0, -740])[1], 4.2e-322)
        self.assertEqual(softmax([745.13, 0])[1], 5e-324)
        self.assertEqual(softmax([745.14, 0])[1], 0.0)

    def test_log_softmax_stays_finite_where_softmax_underflows(self):
        self.assertEqual(log_softmax([1e6, 0]), [0.0, -1e6])

    def test_log_softmax_beyond_the_float_range_is_minus_inf(self):
        self.assertEqual(log_softmax([1e308, -1e308]), [0.0, -INF])

    def test_logsumexp_of_two_zeros_is_log_2(self):
        self.assertEqual(logsumexp([0, 0]), math.log(2))

    def test_logsumexp_near_zero_is_accurate_relative_to_its_value(self):
        # Exact values 2.3190468138462996e-17 and -9.07129723500153e-17.
        self.assertEqual(logsumexp([-math.log(2)] * 2), 2.3190468138462996e-17)
        self.assertEqual(logsumexp([-math.log(3)] * 3), -9.07129723500153e-17)

    def test_logsumexp_at_the_top_of_the_float_range(self):
        self.assertEqual(logsumexp([1.7976931348623157e308, 0]), 1.7976931348623157e308)

    def test_one_class_has_probability_one(self):
        self.assertEqual(softmax([-7.5]), [1.0])
        self.assertEqual(log_softmax([-7.5]), [0.0])
        self.assertEqual(logsumexp([-7.5]), -7.5)


class TestInputTypes(unittest.TestCase):

    def test_ints_floats_and_fractions_mix(self):
        self.assertEqual(softmax([1, 1.0, Fraction(1)]), softmax([1.0, 1.0, 1.0]))

    def test_fraction_is_taken_at_its_exact_value(self):
        third = Fraction(1, 3)
        got = softmax([third, 0])[0]
        self.assertLessEqual(ulp_distance(got, softmax_exact([third, 0])[0]), 1)

    def test_integers_beyond_the_float_range_are_exact(self):
        self.assertEqual(softmax([10 ** 400, 10 ** 400 - 1]),
                         softmax([1.0, 0.0]))
        self.assertEqual(logsumexp([10 ** 400]), INF)

    def test_any_iterable_is_accepted(self):
        self.assertEqual(softmax(x for x in (0, 0)), [0.5, 0.5])
        self.assertEqual(softmax((0, 0)), [0.5, 0.5])

    def test_decimal_is_taken_exactly(self):
        self.assertEqual(softmax([decimal.Decimal("0.5"), 0.5]), [0.5, 0.5])


class TestInfinitiesAndErrors(unittest.TestCase):

    def test_unordered_and_non_numeric_containers_are_refused(self):
        functions = (softmax, log_softmax, logsumexp, softmax_naive,
                     softmax_exact, log_softmax_exact, logsumexp_exact)
        for logits, kind in (({1.0, 2.0}, "set"), (frozenset([1]), "frozenset"),
                             ({1: 2, 3: 4}, "dict"), (b"ab", "bytes"),
                             (bytearray(b"a"), "bytearray"), ("12", "str")):
            for function in functions:
                with self.subTest(function=function.__name__, kind=kind):
                    with self.assertRaisesRegex(TypeError, "ordered sequence of real numbers, not "
                                                + kind):
                        function(logits)

    def test_a_huge_decimal_is_refused_at_once_by_every_function(self):
        huge = decimal.Decimal("1e999999999")
        functions = (softmax, log_softmax, logsumexp, softmax_naive,
                     softmax_exact, log_softmax_exact, logsumexp_exact)
        for function in functions:
            for logits in ([huge, 0], [0, decimal.Decimal("-1e999999999")],
                           [decimal.Decimal("1e-999999999")]):
                with self.subTest(function=function.__name__, logits=logits):
                    with self.assertRaisesRegex(InputError, "entry [01] .*past the size limit"):
                        function(logits)
        for exact in (huge, decimal.Decimal("-1e999999999"), decimal.Decimal("1e-999999999")):
            with self.assertRaisesRegex(InputError, "ulp_distance: exact .*past the size limit"):
                ulp_distance(1.0, exact)

    def test_minus_inf_is_a_masked_class(self):
        self.assertEqual(softmax([0, -INF, 0]), [0.5, 0.0, 0.5])
        self.assertEqual(log_softmax([0, -INF]), [0.0, -INF])
        self.assertEqual(logsumexp([0, -INF]), 0.0)

    def test_one_plus_inf_takes_all_the_mass(self):
        self.assertEqual(softmax([INF, 0, -INF]), [1.0, 0.0, 0.0])
        self.assertEqual(log_softmax([0, INF]), [-INF, 0.0])
        self.assertEqual(logsumexp([0, INF]), INF)

    def test_logsumexp_is_defined_for_two_plus_inf_and_all_minus_inf(self):
        self.assertEqual(logsumexp([INF, INF]), INF)
        self.assertEqual(logsumexp([-INF, -INF]), -INF)

    def test_errors_name_the_problem(self):
        cases = [
            ([], "empty"),
            ([0, math.nan], "entry 1 is NaN"),
            ([INF, INF], r"more than one logit is \+inf \(entries 0, 1\)"),
            ([-INF, -INF], "every logit is -inf"),
            ([0, "1"], "entry 1 is '1', not a real number"),
            ([True, 0], "entry 0 is True, not a real number"),
        ]
        for function in (softmax, log_softmax):
            for logits, message in cases:
                with self.subTest(function=function.__name__, logits=logits):
                    with self.assertRaisesRegex(InputError, message):
                        function(logits)

    def test_logsumexp_rejects_empty_and_nan(self):
        for logits, message in (([], "empty"), ([math.nan], "entry 0 is NaN")):
            with self.assertRaisesRegex(InputError, message):
                logsumexp(logits)

    def test_not_an_iterable(self):
        with self.assertRaisesRegex(InputError, "iterable of real numbers, not int"):
            softmax(3)

    def test_input_error_is_a_value_error(self):
        with self.assertRaises(ValueError):
            softmax([])


class TestExactReference(unittest.TestCase):

    def test_softmax_exact_to_forty_digits(self):
        self.assertEqual(str(softmax_exact([50, 0])[1]),
                         "1.928749847963917783016970808929410491157E-22")

    def test_log_softmax_exact_keeps_tiny_logs(self):
        self.assertEqual(str(log_softmax_exact([200, 0], digits=20)[0]),
                         "-1.3838965267367375306E-87")

    def test_logsumexp_exact_with_large_offset(self):
        self.assertEqual(str(logsumexp_exact([1e15, 1e15], digits=25)),
                         "1000000000000000.693147181")

    def test_exact_underflow_is_positive(self):
        self.assertEqual(str(softmax_exact([1e6, 0], digits=20)[1]),
                         "3.2968314780885585790E-434295")

    def test_exact_functions_take_any_iterable(self):
        self.assertEqual(softmax_exact(x for x in (0, 0)), softmax_exact([0, 0]))
        self.assertEqual(log_softmax_exact(iter([1, 2])), log_softmax_exact([1, 2]))
        self.assertEqual(logsumexp_exact(iter([1, 2])), logsumexp_exact([1, 2]))

    def test_exact_infinities(self):
        self.assertEqual(softmax_exact([INF, 0]), [1, 0])
        self.assertEqual(log_softmax_exact([0, -INF])[1], decimal.Decimal("-Infinity"))
        self.assertEqual(logsumexp_exact([-INF]), decimal.Decimal("-Infinity"))

    def test_digits_must_be_from_one_to_the_limit(self):
        for function in (softmax_exact, log_softmax_exact, logsumexp_exact):
            for digits in (0, MAX_DIGITS + 1, 10 ** 9):
                with self.subTest(function=function.__name__, digits=digits):
                    with self.assertRaisesRegex(InputError, "digits must be from 1 to 1000"):
                        function([1, 2], digits=digits)
            with self.assertRaisesRegex(TypeError, "digits must be an int, not float"):
                function([1, 2], digits=40.0)

    def test_logsumexp_exact_keeps_its_digits_through_cancellation(self):
        # max = -log 2 rounded; the sum's log cancels it to 2.3e-17.
        self.assertEqual(str(logsumexp_exact([-math.log(2)] * 2, digits=30)),
                         "2.31904681384629961549485546388E-17")


class TestUlpDistance(unittest.TestCase):

    def test_fraction_and_int_are_taken_exactly(self):
        self.assertEqual(ulp_distance(0.3333333333333333, Fraction(1, 3)),
                         decimal.Decimal("0.33333333333333333333"))
        self.assertEqual(ulp_distance(3.0, 3), 0)

    def test_wrong_types_are_type_errors_that_say_what_is_expected(self):
        with self.assertRaisesRegex(TypeError,
                                    "exact must be a Decimal, int, float or Fraction, not str"):
            ulp_distance(1.0, "abc")
        with self.assertRaisesRegex(TypeError, "value must be a float, not str"):
            ulp_distance("x", 1)

    def test_decimal_far_below_the_float_range_needs_no_size_limit(self):
        tiny = softmax_exact([1e6, 0], digits=20)[1]
        self.assertEqual(str(ulp_distance(0.0, tiny)), "6.6728611993959571005E-433972")
        self.assertEqual(ulp_distance(5e-324, decimal.Decimal("1e-90000")), 1)
        self.assertEqual(ulp_distance(INF, decimal.Decimal("1e90000")), 0)

    def test_nan_is_an_input_error(self):
        with self.assertRaisesRegex(InputError, "NaN"):
            ulp_distance(1.0, decimal.Decimal("NaN"))

    def test_one_tenth(self):
        self.assertEqual(ulp_distance(0.1, decimal.Decimal("0.1")), decimal.Decimal("0.4"))

    def test_subnormal_spacing(self):
        self.assertEqual(ulp_distance(5e-324, decimal.Decimal(0)), 1)

    def test_value_that_rounds_to_zero_uses_the_subnormal_spacing(self):
        quarter = decimal.Context(prec=800).divide(decimal.Decimal(5e-324), 4)
        self.assertEqual(ulp_distance(0.0, quarter), decimal.Decimal("0.25"))

    def test_just_below_a_power_of_two_uses_the_lower_spacing(self):
        below = decimal.Context(prec=60).subtract(1, decimal.Decimal(2.0 ** -54))
        self.assertEqual(ulp_distance(1.0, below), decimal.Decimal("0.5"))

    def test_infinity_is_zero_from_a_value_beyond_the_range(self):
        self.assertEqual(ulp_distance(-INF, decimal.Decimal("-1e400")), 0)
        self.assertEqual(ulp_distance(INF, decimal.Decimal(1)), decimal.Decimal("Infinity"))


class TestNaive(unittest.TestCase):

    def test_naive_overflows_to_nan_at_710(self):
        self.assertTrue(math.isnan(softmax_naive([710, 0])[0]))
        self.assertFalse(any(map(math.isnan, softmax([710, 0]))))

    def test_naive_is_fine_below_the_overflow(self):
        self.assertEqual(softmax_naive([709.78, 0])[0], 1.0)


class TestAccuracyGrid(unittest.TestCase):

    def test_every_result_is_the_correctly_rounded_exact_value_on_the_grid(self):
        for z in grid_vectors():
            with self.subTest(z=z[:4]):
                self.assertEqual(softmax(z), correctly_rounded(softmax_exact, z))
                self.assertEqual(log_softmax(z), rounded_log_softmax(z))
                self.assertEqual(logsumexp(z), correctly_rounded(logsumexp_exact, z))

    def test_logsumexp_of_minus_log_n_repeated_is_correctly_rounded(self):
        for n in range(2, 40):
            z = [-math.log(n)] * n
            with self.subTest(n=n):
                self.assertEqual(logsumexp(z), correctly_rounded(logsumexp_exact, z))

    def test_softmax_sums_to_one_within_length_ulps(self):
        for z in grid_vectors(size=300):
            with self.subTest(z=z[:3]):
                self.assertLessEqual(abs(math.fsum(softmax(z)) - 1), len(z) * 2 ** -52)


class TestHugeDigits(unittest.TestCase):

    def test_digits_of_any_size_get_a_one_line_input_error(self):
        for digits in (10 ** 5000, -10 ** 5000):
            with self.subTest(sign=digits > 0):
                with self.assertRaisesRegex(InputError, "not an int of 16610 bits"):
                    softmax_exact([1, 2], digits=digits)


if __name__ == "__main__":
    unittest.main()


def _near_midpoint_logit(digits):
    """x with logsumexp([x, 0]) within a relative 10**-digits of the midpoint
    1 + 3 * 2**-53 of two floats: ln(e**m - 1) to ``digits`` digits, exactly."""
    ctx = decimal.Context(prec=digits + 10)
    m = ctx.add(1, ctx.divide(3, 2 ** 53))   # exact: 2**-53 has 53 decimal digits
    return Fraction(ctx.ln(ctx.subtract(ctx.exp(m), 1)))


class TestFallbackLimit(unittest.TestCase):

    def test_a_result_decided_within_the_limit_is_correctly_rounded(self):
        x = _near_midpoint_logit(200)
        # The rounded ln put the exact result just below the midpoint (400 digits say so).
        ctx = decimal.Context(prec=400)
        exact = ctx.ln(ctx.add(1, ctx.exp(ctx.divide(x.numerator, x.denominator))))
        self.assertLess(Fraction(exact), 1 + Fraction(3, 2 ** 53))
        self.assertEqual(logsumexp([x, 0]), 1 + 2 ** -52)

    def test_past_the_limit_of_digits_an_input_error_not_minutes(self):
        from unittest import mock
        from reviews.rounded import fallback
        x = _near_midpoint_logit(200)
        with mock.patch.object(fallback, "MAX_DIGITS", 80):
            with self.assertRaisesRegex(InputError, "^logsumexp: the exact result lies within a"
                                        " relative 10\\*\\*-70 of a rounding midpoint"):
                logsumexp([x, 0])
