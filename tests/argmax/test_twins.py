"""Tests of reviews.argmax.reductions.twins and of check_layer on layers with repeated rows."""

import unittest
from array import array
from fractions import Fraction as F
from unittest import mock

from reviews.argmax import check as argmaxable
from reviews.argmax.check import check_layer
from reviews.argmax.certified import verify_all
from reviews.argmax.kernels.layer_input import FloatRows
from reviews.argmax.reductions.twins import Twins


class TestTwins(unittest.TestCase):

    def test_equal_rows_and_biases_defeat_each_other(self):
        twins = Twins([[1, 2], [1, 2], [3, 4]], [0, 0, 0])
        self.assertEqual(twins.twin, {0: 1, 1: 0})
        self.assertEqual(twins.kept, [0, 2])

    def test_the_unique_largest_bias_of_a_group_is_left_to_decide(self):
        twins = Twins([[1], [1], [1]], [2, 7, -1])
        self.assertEqual(twins.twin, {0: 1, 2: 1})
        self.assertEqual(twins.kept, [1])
        self.assertEqual(twins.position, {1: 0})

    def test_every_twin_has_the_same_row_and_at_least_the_bias(self):
        rows = [[j % 3, 0] for j in range(12)]
        bias = [j % 4 for j in range(12)]
        twins = Twins(rows, bias)
        for j, k in twins.twin.items():
            self.assertNotEqual(j, k)
            self.assertEqual(rows[j], rows[k])
            self.assertGreaterEqual(bias[k], bias[j])

    def test_distinct_rows_have_no_twins(self):
        self.assertEqual(Twins([[1], [2], [3]], None).twin, {})

    def test_rows_kept_as_floats_are_twins_as_their_integers_are(self):
        # -0.0 and 0.0 are one integer, 0; 0.5 and 0.25 are not.
        rows = FloatRows([array("f", [0.5, -0.0]), array("f", [0.25, 0.0]),
                          array("f", [0.5, 0.0])], 4.0)
        self.assertEqual(Twins(rows, [1, 0, 1]).twin, Twins([[2, 0], [1, 0], [2, 0]],
                                                            [1, 0, 1]).twin)
        self.assertEqual(Twins(rows, [1, 0, 1]).twin, {0: 2, 2: 0})


class TestRepeatedRows(unittest.TestCase):

    def decided(self, weights, bias=None, box=None):
        """The results, and how many classes went to the exact decision."""
        with mock.patch.object(argmaxable, "decide", wraps=argmaxable.decide) as spy:
            results = check_layer(weights, bias, box=box)
        return results, spy.call_count

    def test_zero_rows_need_no_decision_at_all(self):
        results, decided = self.decided([[0.0]] * 300)
        self.assertEqual(decided, 0)
        self.assertEqual(results[0].terms, ((1, F(1)),))
        self.assertEqual(results[5].terms, ((0, F(1)),))
        self.assertTrue(all(verify_all([[0.0]] * 300, None, results)))

    def test_only_one_row_per_distinct_row_is_decided(self):
        weights = [[1, 1], [1, -1], [-1, 0]] * 100
        results, decided = self.decided(weights)
        self.assertEqual(decided, 0)
        self.assertFalse(any(r.argmaxable for r in results))
        self.assertTrue(all(verify_all(weights, None, results)))

    def test_the_largest_bias_of_a_group_wins_against_the_rest(self):
        weights = [[1, 0], [1, 0], [0, 1], [-1, -1], [0, 0]]
        bias = [0, 3, 0, 0, 5]
        results, decided = self.decided(weights, bias)
        self.assertEqual(decided, 4)
        self.assertEqual(results[0].terms, ((1, F(1)),))
        self.assertEqual([r.argmaxable for r in results], [False, True, True, True, True])
        self.assertTrue(all(verify_all(weights, bias, results)))

    def test_representatives_keep_their_class_numbers_in_certificates(self):
        # Class 4 is the midpoint of classes 0 and 2; classes 1 and 3 repeat them.
        weights = [[0, 0], [0, 0], [2, 2], [2, 2], [1, 1], [5, -5]]
        results, decided = self.decided(weights)
        self.assertEqual(decided, 2)
        self.assertEqual(results[4].terms, ((0, F(1, 2)), (2, F(1, 2))))
        self.assertEqual(results[4].combination, (F(1, 2), 0, F(1, 2), 0, 0, 0))
        self.assertTrue(all(verify_all(weights, None, results)))

    def test_twins_certify_inside_a_box(self):
        weights, bias = [[1], [1], [0]], [0, -1, -50]
        results, _ = self.decided(weights, bias, box=10)
        self.assertEqual(results[1].terms, ((0, F(1)),))
        self.assertEqual([r.argmaxable for r in results], [True, False, False])
        self.assertTrue(all(verify_all(weights, bias, results, box=10)))


if __name__ == "__main__":
    unittest.main()
