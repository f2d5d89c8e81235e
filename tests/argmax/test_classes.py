"""Tests of check_layer's classes=: some classes decided, each against every row."""

import random
import unittest
from fractions import Fraction as F
from unittest import mock

from reviews.argmax import check as argmaxable
from reviews.argmax.check import check_layer
from reviews.argmax.certified import verify_all
from reviews.argmax.verify import verify
from reviews.argmax.kernels.layer_input import asked_classes
from reviews.argmax.tolerance import radii
from reviews.errors import InputError

FIGURE_1 = [[-2, -2], [1, 2], [F(9, 5), F(-4, 5)], [F(9, 10), F(1, 5)]]
MINUS_INFINITY = float("-inf")


def gaussian(seed, classes, dim, bias):
    rng = random.Random(seed)
    weights = [[rng.gauss(0, 1) for _ in range(dim)] for _ in range(classes)]
    return weights, [rng.gauss(0, 1) for _ in range(classes)] if bias else None


class TestSomeClassesAreThoseOfTheWholeCheck(unittest.TestCase):

    def assertAsWhole(self, weights, bias, classes, **options):
        whole = check_layer(weights, bias, **options)
        some = check_layer(weights, bias, classes=classes, **options)
        self.assertEqual(some, [whole[i] for i in sorted(set(classes))])
        return some

    def test_the_unargmaxable_class_of_figure_1_alone(self):
        (result,) = self.assertAsWhole(FIGURE_1, None, [3])
        self.assertEqual(result.terms, ((0, F(43, 290)), (1, F(61, 145)), (2, F(25, 58))))
        self.assertTrue(verify(FIGURE_1, None, result))

    def test_results_come_in_increasing_order_each_class_once(self):
        some = self.assertAsWhole(FIGURE_1, None, [3, 1, 3, 1])
        self.assertEqual([r.index for r in some], [1, 3])

    def test_a_range_is_taken_as_its_ids(self):
        weights, bias = gaussian(3, 40, 3, True)
        self.assertEqual([r.index for r in self.assertAsWhole(weights, bias, range(30, 10, -2))],
                         list(range(12, 31, 2)))

    def test_twins_are_settled_by_their_twin_even_when_it_is_not_asked(self):
        weights = [[1, 0], [0, 1], [-1, -1], [1, 0]]
        first, second = self.assertAsWhole(weights, None, [0, 3])
        self.assertEqual((first.terms, second.terms), (((3, 1),), ((0, 1),)))

    def test_a_masked_class_and_the_others_around_it(self):
        # Class 0 would beat every other one; masked, Figure 1's layer is left.
        weights, bias = [[5, 5]] + FIGURE_1, [MINUS_INFINITY, 0, 0, 0, 0]
        some = self.assertAsWhole(weights, bias, [4, 0])
        self.assertTrue(some[0].masked)
        self.assertEqual(some[1].terms, ((1, F(43, 290)), (2, F(61, 145)), (3, F(25, 58))))
        self.assertTrue(all(verify_all(weights, bias, some)))
        (only,) = self.assertAsWhole(weights, bias, [0])
        self.assertTrue(only.masked)
        self.assertEqual(self.assertAsWhole(weights, bias, [2])[0].witness, (1, 2))

    def test_a_box_and_a_tolerance(self):
        weights, bias = gaussian(11, 30, 3, True)
        asked = [0, 5, 24, 29]
        some = self.assertAsWhole(weights, bias, asked, box=100, tolerance=F(1, 10 ** 8))
        self.assertTrue(all(verify_all(weights, bias, some, box=100, tolerance=F(1, 10 ** 8))))

    def test_the_tolerance_pass_names_the_layer_s_class_count(self):
        # Class 1 wins only for |x| < 1e-9: at T = 1e-8 its terms count all 3 classes.
        (result,) = check_layer([[0], [1], [2]], [0, F(1, 10 ** 9), 0], classes=[1],
                                tolerance=F(1, 10 ** 8))
        self.assertEqual((result.argmaxable, result.class_count), (False, 3))

    def test_one_dimension_with_and_without_a_box(self):
        weights, bias = gaussian(5, 50, 1, True)
        self.assertAsWhole(weights, bias, [0, 7, 49])
        self.assertAsWhole(weights, bias, [0, 7, 49], box=1)

    def test_worker_processes_give_the_same_results(self):
        weights, bias = gaussian(7, 300, 3, True)
        asked = range(1, 300, 3)
        self.assertEqual(check_layer(weights, bias, classes=asked, jobs=2),
                         check_layer(weights, bias, classes=asked))

    def test_only_the_asked_classes_are_decided(self):
        weights, bias = gaussian(9, 60, 3, True)
        decided = []
        original = argmaxable.decide

        def counting(layer, i):
            decided.append(i)
            return original(layer, i)

        with mock.patch.object(argmaxable, "decide", counting):
            check_layer(weights, bias, classes=[2, 40])
        self.assertEqual(sorted(decided), [2, 40])

    def test_radii_of_some_classes(self):
        weights, bias = [[0], [1], [2]], [0, F(1, 10 ** 9), 0]
        some = check_layer(weights, bias, box=100, classes=[1, 2])
        self.assertEqual([r and r.value for r in radii(weights, bias, some)][0],
                         F(1, 10 ** 9))


class TestAskedClassesAreValidated(unittest.TestCase):

    def test_none_asks_for_every_class(self):
        self.assertEqual(asked_classes(None, 4), range(4))
        self.assertEqual(len(check_layer(FIGURE_1, classes=None)), 4)

    def test_an_id_past_the_layer_is_named(self):
        with self.assertRaisesRegex(InputError, r"classes\[1\] is 4, not a class of this layer"
                                                r" \(0 to 3\)"):
            check_layer(FIGURE_1, classes=[0, 4])
        with self.assertRaisesRegex(InputError, "classes' last id is 4"):
            check_layer(FIGURE_1, classes=range(5))
        with self.assertRaisesRegex(InputError, r"classes\[0\] is -1"):
            check_layer(FIGURE_1, classes=[-1])

    def test_no_class_at_all_is_an_error(self):
        for empty in ([], range(0), iter(())):
            with self.assertRaisesRegex(InputError, "asks for no class"):
                check_layer(FIGURE_1, classes=empty)

    def test_ids_must_be_ints(self):
        for wrong, message in ((["1"], "must be an int, not str"),
                               ([1.0], "must be an int, not float"),
                               ([True], "must be an int, not bool"),
                               ("0:2", "not text"), (3, "not int")):
            with self.assertRaisesRegex(TypeError, message):
                check_layer(FIGURE_1, classes=wrong)

    def test_a_masked_layer_validates_them_too(self):
        with self.assertRaisesRegex(InputError, r"classes\[0\] is 9"):
            check_layer(FIGURE_1, [0, 0, MINUS_INFINITY, 0], classes=[9])


if __name__ == "__main__":
    unittest.main()
