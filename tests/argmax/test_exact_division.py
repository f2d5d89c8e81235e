"""Tests of reviews.argmax.kernels.exact_division: n // d for exact multiples, in multiplication time."""

import random
import unittest

from reviews.argmax.kernels.exact_division import exact_divider


class TestExactDivider(unittest.TestCase):

    def check(self, divisor, quotients):
        divide = exact_divider(divisor)
        for q in quotients:
            self.assertEqual(divide(q * divisor), q)

    def test_every_size_and_sign_of_divisor_and_quotient_comes_back(self):
        rng = random.Random(11)
        for divisor_bits in (1, 64, 4095, 4097, 9000, 40000):
            for quotient_bits in (0, 1, 100, 4095, 4097, 20000, 70000):
                divisor = rng.getrandbits(divisor_bits) | (1 << (divisor_bits - 1))
                quotient = rng.getrandbits(quotient_bits) if quotient_bits else 0
                for sign_d in (1, -1):
                    for sign_q in (1, -1):
                        self.check(sign_d * divisor, [sign_q * quotient])

    def test_divisors_with_many_factors_of_two(self):
        # The odd part is inverted; the power of two is a shift.
        rng = random.Random(12)
        for shift in (1, 63, 64, 5000):
            divisor = (rng.getrandbits(6000) | 1) << shift
            self.check(divisor, [rng.getrandbits(8000) - 2 ** 7999 for _ in range(5)])
        self.check(2 ** 9000, [3 ** 6000, -(3 ** 6000), 1, -1, 0])

    def test_quotients_at_the_edge_of_their_bit_count(self):
        # |q| just below a power of two is where a wrong sign bit would show.
        divisor = 7 ** 3000
        edges = [2 ** k - 1 for k in (4096, 4097, 8192, 10000)]
        self.check(divisor, edges + [-v for v in edges] + [2 ** 10000, -(2 ** 10000)])

    def test_one_divider_serves_growing_quotients(self):
        divide = exact_divider(3 ** 5000)
        for bits in (5000, 20000, 9000, 60000):
            q = 5 ** (bits // 3)
            self.assertEqual(divide(-q * 3 ** 5000), -q)

    def test_a_zero_divisor_is_a_value_error(self):
        with self.assertRaises(ValueError):
            exact_divider(0)

    def test_a_divisor_that_is_not_an_int_is_a_type_error(self):
        for bad in (2.0, None, "12"):
            with self.assertRaises(TypeError):
                exact_divider(bad)


if __name__ == "__main__":
    unittest.main()
