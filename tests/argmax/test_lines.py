"""Tests of reviews.argmax.strategy.lines and of check_layer on one-dimensional layers."""

import random
import unittest
from fractions import Fraction as F
from unittest import mock

from reviews.argmax import check as argmaxable
from reviews.argmax.check import check_layer
from reviews.argmax.result import ClassResult
from reviews.argmax.certified import verify_all
from reviews.argmax.verify import verify
from reviews.argmax.strategy.feasibility import decide_system
from reviews.argmax.strategy.lines import upper_envelope


class TestUpperEnvelope(unittest.TestCase):

    def test_without_bias_only_the_extreme_slopes_win(self):
        results = upper_envelope([3, -1, 7, 0], None)
        self.assertEqual(results[1], ((F(-1),), None))
        self.assertEqual(results[2], ((F(1),), None))
        self.assertEqual(results[0], (None, ((1, F(1, 2)), (2, F(1, 2)))))
        self.assertEqual(results[3], (None, ((1, F(7, 8)), (2, F(1, 8)))))

    def test_a_point_on_a_hull_edge_only_ties(self):
        # (1, 1) is the midpoint of (0, 0) and (2, 2): its line never wins alone.
        self.assertEqual(upper_envelope([0, 1, 2], [0, 1, 2])[1],
                         (None, ((0, F(1, 2)), (2, F(1, 2)))))

    def test_a_vertex_wins_between_its_neighbours_crossings(self):
        # Lines 0, x + 1, 2x - 3 cross the middle one at x = -1 and x = 4.
        self.assertEqual(upper_envelope([0, 1, 2], [0, 1, -3])[1], ((F(3, 2),), None))

    def test_a_lone_line_wins_at_zero(self):
        self.assertEqual(upper_envelope([5], [2]), [((F(0),), None)])

    def test_agrees_with_the_exact_program_and_every_certificate_checks(self):
        rng = random.Random(11)
        for _ in range(150):
            size = rng.randint(1, 8)
            slopes = rng.sample(range(-15, 16), size)
            bias = [rng.randint(-6, 6) for _ in range(size)] if rng.random() < 0.7 else None
            weights = [[w] for w in slopes]
            for i, (witness, terms) in enumerate(upper_envelope(slopes, bias)):
                result = ClassResult(i, terms is None, witness, terms, size)
                others = [j for j in range(size) if j != i]
                offsets = [0 if bias is None else bias[i] - bias[j] for j in others]
                expected = size == 1 or decide_system([[slopes[i] - slopes[j]] for j in others],
                                                offsets).witness is not None
                with self.subTest(slopes=slopes, bias=bias, i=i):
                    self.assertEqual(result.argmaxable, expected)
                    self.assertTrue(verify(weights, bias, result))


class TestOneDimensionalLayers(unittest.TestCase):

    def test_no_class_goes_to_the_linear_program(self):
        weights = [[j] for j in range(400)]
        with mock.patch.object(argmaxable, "decide", wraps=argmaxable.decide) as spy:
            results = check_layer(weights)
        self.assertEqual(spy.call_count, 0)
        self.assertEqual([j for j, r in enumerate(results) if r.argmaxable], [0, 399])
        self.assertEqual(results[100].terms, ((0, F(299, 399)), (399, F(100, 399))))
        self.assertTrue(all(verify_all(weights, None, results)))

    def test_repeated_slopes_with_biases_keep_their_class_numbers(self):
        weights, bias = [[1], [0], [1], [2], [0.5]], [0, 0, 1, -3, 0.5]
        results = check_layer(weights, bias)
        self.assertEqual([r.argmaxable for r in results], [False, True, True, True, False])
        self.assertEqual(results[0].terms, ((2, F(1)),))
        self.assertEqual(results[4].terms, ((1, F(1, 2)), (2, F(1, 2))))
        self.assertTrue(all(verify_all(weights, bias, results)))

    def test_a_boxed_layer_with_bias_still_goes_to_the_program(self):
        # In a box the envelope alone does not decide (class 1 wins only for x > 2).
        weights, bias = [[0], [1]], [0, -2]
        with mock.patch.object(argmaxable, "decide", wraps=argmaxable.decide) as spy:
            results = check_layer(weights, bias, box=1)
        self.assertEqual(spy.call_count, 2)
        self.assertEqual([r.argmaxable for r in results], [True, False])


if __name__ == "__main__":
    unittest.main()
