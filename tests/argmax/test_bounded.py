"""Tests of the bounded program: a class in a box or on the orthant of many dimensions."""

import math
import random
import unittest
from fractions import Fraction as F
from unittest import mock

from reviews.argmax.certified import verify_all
from reviews.argmax.check import check_layer
from reviews.argmax.kernels.norms import holds_at
from reviews.argmax.question import Question
from reviews.argmax.strategy import bounded
from reviews.argmax.strategy.bounded import BOUNDED_FROM, ScaledLayer, decide_bounded
from tests.argmax.test_domain import _decided_alone, _holds_by_definition

INF = math.inf


def _planted(seed, classes, dim):
    """A seeded integer layer with bias, planted: class 1 is the mean of
    classes 2 and 3 with its bias 1 lower (never the argmax anywhere),
    class 4 is class 5 less 1 in every coordinate (never the argmax where
    x >= 0, the argmax where some x_k is far below 0)."""
    rng = random.Random(seed)
    weights = [[rng.randint(-20, 20) for _ in range(dim)] for _ in range(classes)]
    bias = [rng.randint(-10, 10) for _ in range(classes)]
    weights[1] = [(a + b) / 2 for a, b in zip(weights[2], weights[3])]
    bias[1] = (bias[2] + bias[3]) / 2 - 1
    weights[4] = [v - 1 for v in weights[5]]
    bias[4] = bias[5] - 1
    return weights, bias


def _check(layer, i):
    """decide_bounded's check: class i against every row, exactly."""
    def check(point):
        logits = [sum(map(lambda w, v: w * v, row, point)) + b
                  for row, b in zip(layer.rows, layer.biases)]
        rivals = [j for j in range(len(logits)) if j != i and logits[j] >= logits[i]]
        return (None, rivals[:4]) if rivals else (tuple(point), None)
    return check


class TestVerdicts(unittest.TestCase):

    def test_every_verdict_from_32_dimensions_is_that_of_one_program_per_class(self):
        for seed, dim in enumerate([BOUNDED_FROM]):
            weights, bias = _planted(seed, 7, dim)
            for domain in [(0, INF), (-1, 1), (-INF, 0)]:
                with self.subTest(dim=dim, inputs=domain):
                    results = check_layer(weights, bias, inputs=domain)
                    self.assertEqual([r.argmaxable for r in results],
                                     [_decided_alone(weights, bias, i, domain) for i in range(7)])
                    self.assertTrue(all(_holds_by_definition(weights, bias, r, domain)
                                        for r in results))
                    self.assertTrue(all(verify_all(weights, bias, results, inputs=domain)))

    def test_the_planted_classes_lose_where_they_were_planted_to(self):
        weights, bias = _planted(7, 12, 64)
        relu = check_layer(weights, bias, inputs=(0, INF))
        everywhere = check_layer(weights, bias)
        self.assertEqual([r.index for r in relu if not r.argmaxable], [1, 4])
        self.assertEqual([r.index for r in everywhere if not r.argmaxable], [1])
        self.assertEqual(relu[4].terms, ((5, F(1)),))

    def test_the_program_decides_classes_the_searches_leave(self):
        # Every unargmaxable class in a box of 64 dimensions is proved by
        # the bounded program's basis, not by the exact program after it.
        weights, bias = _planted(8, 12, 64)
        answers = []

        def recorded(layer, i, *arguments):
            found = decide_bounded(layer, i, *arguments)
            answers.append((i, found and found[1] is not None))
            return found
        with mock.patch("reviews.argmax.strategy.decide.decide_bounded", recorded):
            results = check_layer(weights, bias, inputs=(0, 6))
        self.assertEqual([r.index for r in results if not r.argmaxable], [1, 4])
        self.assertEqual([i for i, proved in answers if proved], [1, 4])
        self.assertTrue(all(verify_all(weights, bias, results, inputs=(0, 6))))


class TestDecideBounded(unittest.TestCase):

    def setUp(self):
        rng = random.Random(3)
        dim = 64
        rows = [[rng.randint(-50, 50) for _ in range(dim)] for _ in range(6)]
        # Class 0 is rows 1, 2 and 3 combined with weights 1/2, 1/4, 1/4, its bias 6 lower.
        rows[0] = [(2 * a + b + c) for a, b, c in zip(rows[1], rows[2], rows[3])]
        rows = [[4 * v for v in row] if j else row for j, row in enumerate(rows)]
        biases = [0, 8, 4, 4, -100, -100]
        self.layer = ScaledLayer(rows, biases, 200 * 4, 100)

    def test_a_combination_comes_from_the_optimal_basis_exactly(self):
        found = decide_bounded(self.layer, 0, [1, 2, 3, 4, 5], Question(F(3)),
                               _check(self.layer, 0))
        self.assertEqual(found, (None, ((1, F(1, 2)), (2, F(1, 4)), (3, F(1, 4)))))
        rivals = [1, 2, 3]
        rows, biases = self.layer.rows, self.layer.biases
        self.assertTrue(holds_at([[a - b for a, b in zip(rows[j], rows[0])] for j in rivals],
                                 [biases[j] - biases[0] for j in rivals],
                                 [F(1, 2), F(1, 4), F(1, 4)], Question(F(3))))

    def test_rows_of_floats_are_kept_for_a_few_rivals_only(self):
        with mock.patch.object(bounded, "_KEPT_ROWS", 2):
            found = decide_bounded(self.layer, 0, [1, 2, 3, 4, 5], Question(F(3)),
                                   _check(self.layer, 0))
            self.assertLessEqual(len(self.layer._floats), 2)
        self.assertEqual(found, (None, ((1, F(1, 2)), (2, F(1, 4)), (3, F(1, 4)))))

    def test_an_optimum_of_t_at_most_0_is_not_asked_about_again(self):
        # All rivals are in the working set: the first optimum (t < 0) is
        # the answer, its basis solved at once; 64 rounds of points lost to
        # rivals already in the set took g2pM's classes 50 s each.
        check = mock.Mock(side_effect=_check(self.layer, 0))
        found = decide_bounded(self.layer, 0, [1, 2, 3, 4, 5], Question(F(3)), check)
        self.assertIsNotNone(found[1])
        self.assertLessEqual(check.call_count, 1)

    def test_a_witness_is_a_point_of_the_box_where_the_class_wins(self):
        witness, terms = decide_bounded(self.layer, 4, [0, 1], Question(F(3)),
                                        _check(self.layer, 4))
        self.assertIsNone(terms)
        self.assertTrue(all(-3 <= v <= 3 for v in witness))
        self.assertIsNone(_check(self.layer, 4)(witness)[1])

    def test_a_witness_on_the_orthant_has_no_negative_coordinate(self):
        witness, terms = decide_bounded(self.layer, 5, [0, 1, 2], Question(inputs=(0, None)),
                                        _check(self.layer, 5))
        self.assertIsNone(terms)
        self.assertTrue(all(v >= 0 for v in witness))

    def test_ends_past_the_float_range_leave_the_class_to_the_exact_methods(self):
        check = mock.Mock(side_effect=_check(self.layer, 0))
        self.assertIsNone(decide_bounded(self.layer, 0, [1, 2], Question(F(10) ** 400), check))
        self.assertEqual(check.call_count, 0)

    def test_a_program_past_its_work_leaves_the_class_to_the_exact_methods(self):
        with mock.patch.object(bounded, "_WORK", 0):
            self.assertIsNone(decide_bounded(self.layer, 0, [1, 2, 3, 4, 5], Question(F(3)),
                                             _check(self.layer, 0)))
            weights, bias = _planted(8, 12, 64)
            results = check_layer(weights, bias, inputs=(0, 6))
        self.assertEqual([r.index for r in results if not r.argmaxable], [1, 4])
        self.assertTrue(all(verify_all(weights, bias, results, inputs=(0, 6))))

    def test_a_working_set_past_half_the_dimensions_goes_to_the_exact_methods(self):
        # From one rival, the rivals the check adds would pass d / 64 = 1.
        self.assertEqual(decide_bounded(self.layer, 0, [1], Question(F(3)),
                                        _check(self.layer, 0)),
                         (None, ((1, F(1, 2)), (2, F(1, 4)), (3, F(1, 4)))))
        with mock.patch.object(bounded, "_ROWS_PER_DIMENSION", 64):
            self.assertIsNone(decide_bounded(self.layer, 0, [1], Question(F(3)),
                                             _check(self.layer, 0)))

    def test_a_box_near_the_float_range_leaves_the_class_to_the_exact_methods(self):
        # Its end is a float, but d of its products pass the range in a sum.
        self.assertIsNone(decide_bounded(self.layer, 0, [1, 2, 3, 4, 5], Question(F(10) ** 307),
                                         _check(self.layer, 0)))
        rng = random.Random(5)
        weights = [[rng.gauss(0, 1) for _ in range(33)] for _ in range(6)]
        bias = [rng.gauss(0, 1) for _ in range(6)]
        # Classes 4 and 5: means of two rows, with a bias 1/2 lower.
        for k in (0, 1):
            weights[4 + k] = [(F(a) + F(b)) / 2 for a, b in zip(weights[2 * k], weights[2 * k + 1])]
            bias[4 + k] = (F(bias[2 * k]) + F(bias[2 * k + 1])) / 2 - F(1, 2)
        results = check_layer(weights, bias, box=1e308)
        self.assertEqual([r.argmaxable for r in results], [True] * 4 + [False] * 2)
        self.assertTrue(all(verify_all(weights, bias, results, box=1e308)))

    def test_a_basis_the_floats_got_wrong_is_not_trusted(self):
        # Every exact solve of the basis fails: no answer, not a wrong one.
        with mock.patch.object(bounded, "solve_square", return_value=None):
            found = decide_bounded(self.layer, 0, [1, 2, 3, 4, 5], Question(F(3)),
                                   _check(self.layer, 0))
        self.assertIsNone(found)


if __name__ == "__main__":
    unittest.main()
