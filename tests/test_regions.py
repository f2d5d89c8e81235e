"""Tests of reviews.regions: the formula, Stirling numbers, enumeration."""

import math
import random
import unittest

from reviews.errors import InputError
from reviews.feasibility import is_combination, is_witness
from reviews.regions import realized_rankings, region_count, stirling_first


class TestFormula(unittest.TestCase):

    def test_spot_values_from_the_reference(self):
        self.assertEqual((region_count(4, 2), region_count(4, 2, bias=False)), (18, 12))
        self.assertEqual((region_count(5, 3), region_count(5, 3, bias=False)), (96, 72))

    def test_factorial_once_d_reaches_c_minus_1(self):
        for c in range(1, 11):
            for d in range(max(c - 1, 1), 12):
                for bias in (True, False):
                    self.assertEqual(region_count(c, d, bias), math.factorial(c))

    def test_points_on_a_line(self):
        # C points on a line with bias: C(C - 1)/2 + 1 orderings.
        self.assertEqual([region_count(c, 1) for c in range(1, 8)], [1, 2, 4, 7, 11, 16, 22])
        self.assertEqual([region_count(c, 1, bias=False) for c in range(2, 8)], [2] * 6)

    def test_oeis_a071223_no_bias_d2(self):
        self.assertEqual([region_count(c, 2, bias=False) for c in range(2, 8)],
                         [2, 6, 12, 20, 30, 42])

    def test_stirling_numbers(self):
        self.assertEqual([stirling_first(5, k) for k in range(6)], [0, 24, 50, 35, 10, 1])
        self.assertEqual(stirling_first(0, 0), 1)
        self.assertEqual(stirling_first(3, 7), 0)

    def test_arguments_must_be_positive_integers(self):
        for arguments in ((0, 1), (1, 0), (2.0, 1), (True, 1)):
            with self.subTest(arguments=arguments):
                with self.assertRaisesRegex(InputError, "must be a positive integer"):
                    region_count(*arguments)


class TestEnumeration(unittest.TestCase):

    def test_gaussian_layers_match_the_formula(self):
        rng = random.Random(4)
        for c in range(2, 5):
            for d in range(1, c + 1):
                for bias in (True, False):
                    weights = [[rng.gauss(0, 1) for _ in range(d)] for _ in range(c)]
                    biases = [rng.gauss(0, 1) for _ in range(c)] if bias else None
                    found = sum(1 for r in realized_rankings(weights, biases) if r.witness)
                    self.assertEqual(found, region_count(c, d, bias))

    def test_every_ranking_has_a_checked_certificate(self):
        weights, bias = [[0, 1], [1, 0], [1, 1]], [0, 0, -1]
        for ranking in realized_rankings(weights, bias):
            pairs = list(zip(ranking.order, ranking.order[1:]))
            rows = [[a - b for a, b in zip(weights[hi], weights[lo])] for hi, lo in pairs]
            offsets = [bias[hi] - bias[lo] for hi, lo in pairs]
            if ranking.witness is not None:
                self.assertTrue(is_witness(rows, offsets, ranking.witness))
            else:
                self.assertTrue(is_combination(rows, offsets, ranking.combination))

    def test_one_class(self):
        self.assertEqual(len(realized_rankings([[5]])), 1)


if __name__ == "__main__":
    unittest.main()
