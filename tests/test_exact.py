"""Tests of reviews.exact: input numbers taken at their exact values."""

import math
import numbers
import unittest
from fractions import Fraction as F

from reviews.argmax.check import check_layer
from reviews.argmax.certified import verify_all
from reviews.errors import InputError
from reviews.exact import exact_text, rational_from_text, rational_text, real_number


class LongDouble:
    """A stand-in for numpy.longdouble: a real number whose float() rounds
    but whose as_integer_ratio() is exact (numpy's is, for every finite value)."""

    def __init__(self, value):
        self.value = value

    def as_integer_ratio(self):
        if self.value != self.value:
            raise ValueError("cannot convert NaN to integer ratio")
        if self.value in (math.inf, -math.inf):
            raise OverflowError("cannot convert Infinity to integer ratio")
        return self.value.numerator, self.value.denominator

    def __float__(self):
        return float(self.value)

    def __gt__(self, other):
        return self.value > other


numbers.Real.register(LongDouble)


class TestOtherRealTypes(unittest.TestCase):

    def test_a_long_double_is_taken_at_its_exact_value_not_rounded_to_a_float(self):
        one_and_a_bit = F(1) + F(1, 2 ** 60)
        self.assertEqual(real_number(LongDouble(one_and_a_bit), "b[1]"), one_and_a_bit)

    def test_one_that_a_float_holds_exactly_stays_a_float(self):
        value = real_number(LongDouble(F(3, 4)), "b[0]")
        self.assertEqual((type(value), value), (float, 0.75))

    def test_a_finite_long_double_past_the_float_range_is_finite(self):
        huge = F(10) ** 400
        self.assertEqual(real_number(LongDouble(huge), "b[0]"), huge)

    def test_infinities_and_nan(self):
        self.assertEqual(real_number(LongDouble(-math.inf), "b[0]"), -math.inf)
        with self.assertRaisesRegex(InputError, r"^b\[0\] is NaN$"):
            real_number(LongDouble(math.nan), "b[0]")

    def test_a_class_that_wins_by_2_to_the_minus_60_is_argmaxable(self):
        bias = [LongDouble(F(1)), LongDouble(F(1) + F(1, 2 ** 60)), LongDouble(F(1))]
        results = check_layer([[0], [1], [2]], bias)
        self.assertEqual([r.argmaxable for r in results], [True, True, True])
        self.assertTrue(all(verify_all([[0], [1], [2]], bias, results)))

    def test_a_ratio_that_is_no_pair_of_integers_is_refused(self):
        odd = LongDouble(F(1))
        odd.as_integer_ratio = lambda: (1.5, 2)
        with self.assertRaisesRegex(InputError, "whose as_integer_ratio"):
            real_number(odd, "w[0][0]")


class TestShortExactText(unittest.TestCase):

    def test_huge_and_tiny_powers_of_ten_are_written_short_and_read_back(self):
        for value, text in ((F(10) ** 400, "1e400"), (F(1, 10 ** 19700), "1/1e19700"),
                            (F(-3 * 10 ** 25, 7), "-3e25/7"), (F(10) ** 19, "1" + "0" * 19)):
            self.assertEqual(rational_text(value), text)
            self.assertEqual(rational_from_text(text, "x"), value)

    def test_the_full_digits_of_earlier_versions_are_still_read(self):
        self.assertEqual(rational_from_text("1" + "0" * 400, "box"), F(10) ** 400)

    def test_forms_not_in_lowest_terms_or_past_the_limit_are_refused(self):
        for text in ("10e20", "2/4e30", "1e99999", "1e20/1e20"):
            with self.assertRaisesRegex(InputError, "not an exact number in lowest terms"):
                rational_from_text(text, "x")

    def test_a_person_s_form_is_short_for_huge_values_too(self):
        self.assertEqual((exact_text(10 ** 400), exact_text(F(1, 10 ** 400)), exact_text(100)),
                         ("1e+400", "1e-400", "100"))


if __name__ == "__main__":
    unittest.main()
