"""Tests of reviews.argmax.regions: the formula, Stirling numbers, enumeration."""

import itertools
import math
import random
import unittest
from fractions import Fraction as F
from unittest import mock

from reviews.argmax import regions
from reviews.errors import InputError
from reviews.argmax.strategy.feasibility import is_combination, is_witness
from reviews.argmax.regions import realized_rankings, region_count, stirling_first


def three_terms_with_bias(n):
    """1 + c(n, n-1) + c(n, n-2) + c(n, n-3), from their closed forms."""
    return (1 + math.comb(n, 2) + (3 * n - 1) * math.comb(n, 3) // 4
            + math.comb(n, 2) * math.comb(n, 4))


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
        self.assertEqual(stirling_first(3, -1), 0)

    def test_arguments_must_be_ints(self):
        for arguments in ((2.0, 1), (True, 1), (3, 1.5), (3, "2")):
            with self.subTest(arguments=arguments):
                with self.assertRaisesRegex(TypeError, "must be an int, not "):
                    region_count(*arguments)
        with self.assertRaisesRegex(TypeError, "n must be an int, not float"):
            stirling_first(4.0, 2)

    def test_arguments_must_be_positive(self):
        for arguments in ((0, 1), (1, 0), (-3, 2)):
            with self.subTest(arguments=arguments):
                with self.assertRaisesRegex(InputError, "must be a positive integer"):
                    region_count(*arguments)
        with self.assertRaisesRegex(InputError, "n must be at least 0"):
            stirling_first(-1, 0)

    def test_bias_must_be_a_bool(self):
        for bias in ("no", 0, None, 1.0):
            with self.subTest(bias=bias):
                with self.assertRaisesRegex(TypeError, "bias must be True or False"):
                    region_count(3, 2, bias=bias)


class TestLargeArguments(unittest.TestCase):

    def test_huge_dim_is_a_factorial_at_once(self):
        self.assertEqual(region_count(2, 10 ** 18), 2)
        self.assertEqual(region_count(2, 10 ** 18, bias=False), 2)
        self.assertEqual(region_count(3000, 3000), math.factorial(3000))

    def test_small_dim_with_many_classes_uses_the_closed_forms(self):
        for n in (10 ** 6, 10 ** 18, 2001, 2000):
            with self.subTest(n=n):
                self.assertEqual(region_count(n, 3), three_terms_with_bias(n))
                # Without bias, d = 3: nu = 0 and 2.
                self.assertEqual(region_count(n, 3, bias=False),
                                 2 + 2 * (3 * n - 1) * math.comb(n, 3) // 4)

    def test_eulerian_sum_agrees_with_the_recurrence(self):
        # c(2001, 2001 - k) (Eulerian numbers) from c(2000, .) (the recurrence).
        for k in (1, 2, 37, 100):
            with self.subTest(k=k):
                self.assertEqual(stirling_first(2001, 2001 - k),
                                 stirling_first(2000, 2000 - k)
                                 + 2000 * stirling_first(2000, 2001 - k))

    def test_impractical_arguments_name_the_limits(self):
        for arguments in ((3000, 1500), (10 ** 6, 10 ** 6), (10 ** 100, 3), (2001, 101)):
            with self.subTest(arguments=arguments):
                with self.assertRaisesRegex(InputError, r"past the limits: C! is computed for"
                                            r" C <= 100000 when d >= C - 1; otherwise C <= 2000,"
                                            r" or d <= 100 with C < 10\*\*100$"):
                    region_count(*arguments)
        with self.assertRaisesRegex(InputError, r"^stirling_first\(3000, 1000\) is past"):
            stirling_first(3000, 1000)

    def test_a_huge_argument_is_not_echoed_in_full(self):
        with self.assertRaisesRegex(InputError, r"^region_count\(an int of 16610 bits, 2\)"):
            region_count(10 ** 5000, 2)


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

    def assertCertified(self, weights, bias, rankings):
        bias = bias or [0] * len(weights)
        for ranking in rankings:
            pairs = list(zip(ranking.order, ranking.order[1:]))
            rows = [[F(a) - F(b) for a, b in zip(weights[hi], weights[lo])] for hi, lo in pairs]
            offsets = [F(bias[hi]) - F(bias[lo]) for hi, lo in pairs]
            if ranking.witness is not None:
                self.assertEqual(len(ranking.witness), len(weights[0]))
                self.assertTrue(is_witness(rows, offsets, ranking.witness), ranking)
            else:
                self.assertTrue(is_combination(rows, offsets, ranking.combination), ranking)

    def test_every_ranking_has_a_checked_certificate(self):
        weights, bias = [[0, 1], [1, 0], [1, 1]], [0, 0, -1]
        self.assertCertified(weights, bias, realized_rankings(weights, bias))

    def test_high_dimension_costs_only_the_rank(self):
        rng = random.Random(5)
        weights = [[rng.gauss(0, 1) for _ in range(300)] for _ in range(4)]
        rankings = realized_rankings(weights)
        self.assertEqual(sum(1 for r in rankings if r.witness), region_count(4, 300, False))
        self.assertCertified(weights, None, rankings)

    def test_rank_deficient_layers(self):
        cases = [
            ([[1, 2], [1, 2], [1, 2]], [0, 1, 2], 1),      # equal rows: the bias decides
            ([[1, 2], [2, 4], [3, 6], [0, 0]], None, 2),   # a line through 0: both ways
            ([[1, 2, 0], [2, 4, 0], [0, 0, 0]], [0, 1, 5], 4),  # three lines in general position
        ]
        for weights, bias, count in cases:
            with self.subTest(weights=weights):
                rankings = realized_rankings(weights, bias)
                self.assertEqual(sum(1 for r in rankings if r.witness), count)
                self.assertCertified(weights, bias, rankings)

    def test_five_classes_in_few_dimensions_match_the_formula_with_checked_certificates(self):
        # Most of these rankings are settled by carried-over combinations
        # and reflected points, not by programs of their own.
        rng = random.Random(6)
        for d in (1, 2, 3):
            for bias in (True, False):
                weights = [[rng.gauss(0, 1) for _ in range(d)] for _ in range(5)]
                biases = [rng.gauss(0, 1) for _ in range(5)] if bias else None
                with self.subTest(d=d, bias=bias):
                    rankings = realized_rankings(weights, biases)
                    self.assertEqual([r.order for r in rankings],
                                     list(itertools.permutations(range(5))))
                    self.assertEqual(sum(1 for r in rankings if r.witness),
                                     region_count(5, d, bias))
                    self.assertCertified(weights, biases, rankings)

    def test_layers_of_rank_c_minus_1_or_c_minus_2_need_no_program(self):
        rng = random.Random(7)
        for classes, d, bias, count in ((4, 4, True, 24), (4, 3, False, 24), (5, 3, True, 96),
                                        (5, 3, False, 72), (4, 2, True, 18), (3, 1, False, 2)):
            weights = [[rng.gauss(0, 1) for _ in range(d)] for _ in range(classes)]
            biases = [rng.gauss(0, 1) for _ in range(classes)] if bias else None
            with self.subTest(classes=classes, d=d, bias=bias):
                with mock.patch.object(regions, "decide_system",
                                       side_effect=AssertionError("a program ran")):
                    rankings = realized_rankings(weights, biases)
                self.assertEqual(sum(1 for r in rankings if r.witness), count)
                self.assertCertified(weights, biases, rankings)

    def test_equal_rows_leave_the_bias_to_decide_without_a_program(self):
        with mock.patch.object(regions, "decide_system", side_effect=AssertionError("a program ran")):
            rankings = realized_rankings([[1, 2], [1, 2]], [0, 1])
        self.assertEqual([(r.order, r.witness is not None) for r in rankings],
                         [((0, 1), False), ((1, 0), True)])
        self.assertEqual(rankings[0].combination, (F(1),))

    def test_without_bias_a_ranking_and_its_reverse_share_one_program(self):
        rng = random.Random(8)
        weights = [[rng.gauss(0, 1) for _ in range(2)] for _ in range(5)]
        with mock.patch.object(regions, "decide_system", wraps=regions.decide_system) as programs:
            rankings = realized_rankings(weights)
        self.assertLessEqual(programs.call_count, 60)
        realized = {r.order for r in rankings if r.witness}
        self.assertEqual(len(realized), region_count(5, 2, False))
        self.assertEqual(realized, {order[::-1] for order in realized})
        self.assertCertified(weights, None, rankings)

    def test_one_class(self):
        self.assertEqual(len(realized_rankings([[5]])), 1)

    def test_more_than_six_classes_are_refused(self):
        with self.assertRaisesRegex(InputError, r"^realized_rankings: 7 classes have 7! rankings;"
                                    r" at most 6 classes \(720 rankings\) are enumerated$"):
            realized_rankings([[j] for j in range(7)])

    def test_numbers_past_1024_bits_over_their_common_denominator_are_refused(self):
        # A hostile tester's 5 classes at 1e-4000 and 1e4000: 43 s of exact
        # programs before the limit, refused at once now.
        e, big = F(10) ** -4000, F(10) ** 4000
        with self.assertRaisesRegex(InputError, r"^realized_rankings: the layer's numbers over"
                                    r" their common denominator take 26578 bits; at most 1024"):
            realized_rankings([[big, 1], [1, e], [-big, 3 * e], [2, -big], [3 * e, 7]],
                              [e, 2, -big, 5 * big, 1])
        # 1e-150 beside 1e150 is within it.
        self.assertEqual(len(realized_rankings([[F(10) ** -150], [F(10) ** 150]])), 2)


if __name__ == "__main__":
    unittest.main()
