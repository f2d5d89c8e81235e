"""Tests of reviews.argmax.released: the released search's rule, in exact arithmetic."""

import unittest
from fractions import Fraction as F

from reviews.argmax.check import check_layer
from reviews.argmax.released import BOX, PATIENCE, lowest_argmax, released_search
from reviews.errors import InputError

MEAN = [[F(1, 2), F(1, 2)], [1, 0], [0, 1], [-1, -1]]


class TestTheTieRule(unittest.TestCase):

    def test_the_argmax_gives_a_tie_to_the_lowest_index(self):
        self.assertEqual([lowest_argmax(v) for v in ([1, 3, 3], [2, 2, 2], [0, -1], [5])],
                         [1, 0, 0, 0])

    def test_a_class_that_ties_at_its_own_weights_is_accepted(self):
        found = released_search(MEAN, None, 0)
        self.assertEqual(found, (True, (F(1, 2), F(1, 2)), 0, 0, 0, 0, "argmax"))
        self.assertFalse(check_layer(MEAN)[0].argmaxable)

    def test_a_later_class_in_the_tie_is_not(self):
        # Class 1 is class 0's twin: their tie at every x goes to class 0.
        layer = [[1, 0], [1, 0], [0, 1]]
        first, second = released_search(layer, None, 0), released_search(layer, None, 1)
        self.assertEqual((first.accepted, first.margin), (True, 0))
        self.assertEqual((second.accepted, second.stop, second.last), (False, "zero normal", 0))

    def test_the_released_defaults(self):
        self.assertEqual((PATIENCE, BOX), (100, 100))


class TestTheReflections(unittest.TestCase):

    def test_a_reflection_moves_the_point_across_the_tie(self):
        # Class 0 loses at x = w_0 = 0 to class 1 and wins at x = -1, the
        # reflection of 0 across the tie x = -1/2.
        found = released_search([[0], [1], [1]], [F(-1, 2), 0, 0], 0)
        self.assertEqual((found.accepted, found.point, found.reflections, found.margin),
                         (True, (F(-1),), 1, F(1, 2)))

    def test_a_point_outside_the_box_is_not_accepted(self):
        # Class 1 wins only for x > 200: reached by one reflection, outside the box.
        found = released_search([[0], [1]], [0, -200], 1)
        self.assertEqual((found.accepted, found.last, found.point, found.stop),
                         (False, 1, (F(399),), "argmax"))
        self.assertTrue(released_search([[0], [1]], [0, -200], 1, box=400).accepted)

    def test_patience_bounds_the_reflections(self):
        # Class 0 of this layer is argmaxable, but the search from w_0 circles
        # (at every point it took, the largest logit led the next by 11 or more).
        weights = [[1, -8], [-9, 0], [-7, -9], [7, -4], [-2, -1], [4, 2], [8, -1], [8, -7],
                   [9, 4], [6, 3], [2, 3], [-2, 3]]
        bias = [-4, -6, 7, 6, -3, 7, 0, -4, 6, 9, 1, 8]
        found = released_search(weights, bias, 0)
        self.assertEqual((found.accepted, found.reflections, found.stop, found.closest),
                         (False, 100, "patience", 11))
        self.assertEqual(released_search(weights, bias, 0, patience=7).reflections, 7)
        self.assertTrue(check_layer(weights, bias, box=100)[0].argmaxable)

    def test_no_reflection_is_taken_towards_a_twin(self):
        found = released_search([[1, 0], [0, 1], [-1, -1], [1, 0]], None, 3)
        self.assertEqual((found.accepted, found.reflections, found.stop), (False, 0,
                                                                           "zero normal"))

    def test_a_bad_index_is_an_input_error(self):
        with self.assertRaisesRegex(InputError, "index is 4, not a class"):
            released_search(MEAN, None, 4)


if __name__ == "__main__":
    unittest.main()
