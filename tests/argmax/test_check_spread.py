"""check_layer on layers whose entries span hundreds of orders of magnitude.

One scale for the whole layer leaves most rows of the float program zero.
Scaled row by row (reviews.argmax.strategy.feasibility.scaled_floats) and held in Decimals
of as many digits as the layer's spread, the inexact program still finds
the basis, which is then checked exactly, and the exact program (whose
numbers are determinants of d + 1 rows, each thousands of bits long) is
not needed.
"""

import random
import unittest
from decimal import Decimal
from fractions import Fraction as F
from unittest import mock

from reviews.argmax.strategy import feasibility
from reviews.argmax.kernels import arithmetic
from reviews.argmax.check import check_layer
from reviews.argmax.certified import verify_all

# Entries from 2**-259 to 2**297: a spread of 556 bits.
SPREAD = [[F(2) ** -259, F(2) ** 223], [F(2) ** 114, F(2) ** 188],
          [F(2) ** 297, -F(2) ** 216], [-F(2) ** -12, -F(2) ** -203]]


def random_exponents(classes, dim, exponent, seed):
    """Weights and a bias +-D.DDDeK with K uniform in [-exponent, exponent]."""
    rng = random.Random(seed)

    def number():
        return Decimal("%s%d.%03de%d" % (rng.choice("-+"), rng.randint(1, 9),
                                        rng.randint(0, 999), rng.randint(-exponent, exponent)))
    return [[number() for _ in range(dim)] for _ in range(classes)], [number() for _ in range(classes)]


class TestWideSpread(unittest.TestCase):

    def exact_programs(self, weights, bias=None):
        """The results, and how many exact programs they took."""
        created = []
        original = feasibility.Program.__init__

        def counting(program, *args, **keywords):
            original(program, *args, **keywords)
            created.append(program.arithmetic.exact)

        with mock.patch.object(feasibility.Program, "__init__", counting):
            results = check_layer(weights, bias)
        return results, sum(created)

    def test_decimals_decide_a_layer_spanning_556_bits(self):
        results, exact = self.exact_programs(SPREAD)
        self.assertEqual(exact, 0)
        self.assertEqual([r.argmaxable for r in results], [True, False, True, True])
        self.assertTrue(all(verify_all(SPREAD, None, results)))

    def test_the_answer_does_not_depend_on_the_float_scaling(self):
        # The same layer times 2**-40 and with a bias: exact answers, checked.
        weights = [[v * F(2) ** -40 for v in row] for row in SPREAD]
        bias = [F(2) ** 100, -F(2) ** -100, 0, 1]
        results, _ = self.exact_programs(weights, bias)
        self.assertTrue(all(verify_all(weights, bias, results)))
        self.assertEqual([r.argmaxable for r in results],
                         [r.argmaxable for r in check_layer(weights, bias, box=F(2) ** 400)])

    def assert_decided_without_the_exact_program(self, weights, bias, argmaxable):
        results, exact = self.exact_programs(weights, bias)
        self.assertEqual(exact, 0)
        self.assertEqual(sum(r.argmaxable for r in results), argmaxable)
        self.assertTrue(all(verify_all(weights, bias, results)))

    def test_decimals_decide_random_exponents_up_to_1e300_without_the_exact_program(self):
        # Floats alone left 6 of these 12 classes to the exact program.
        self.assert_decided_without_the_exact_program(*random_exponents(12, 4, 300, seed=3), 10)

    def test_decimals_take_over_where_floats_fail_within_the_float_spread(self):
        # A spread of about 170 bits: floats are tried first, and fail on 16 classes.
        self.assert_decided_without_the_exact_program(*random_exponents(30, 8, 25, seed=4), 16)

    def test_a_decimal_overflow_leaves_the_class_to_the_exact_program(self):
        weights, bias = random_exponents(12, 4, 300, seed=3)
        expected = [r.argmaxable for r in check_layer(weights, bias)]
        with mock.patch.object(arithmetic, "WIDE_EXPONENT", 5):
            results, exact = self.exact_programs(weights, bias)
        self.assertGreater(exact, 0)
        self.assertEqual([r.argmaxable for r in results], expected)
        self.assertTrue(all(verify_all(weights, bias, results)))


if __name__ == "__main__":
    unittest.main()
