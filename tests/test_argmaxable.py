"""Tests of reviews.argmaxable: certificates, degenerate layers, errors."""

import random
import unittest
from decimal import Decimal
from fractions import Fraction as F

from reviews.argmaxable import ClassResult, braid_reflect, check_layer, exact_layer, verify
from reviews.errors import InputError

FIGURE_1 = [[-2, -2], [1, 2], [F(9, 5), F(-4, 5)], [F(9, 10), F(1, 5)]]


def decisions(weights, bias=None):
    return [r.argmaxable for r in check_layer(weights, bias)]


class TestFigure1(unittest.TestCase):

    def test_pinned_certificates(self):
        self.assertEqual(check_layer(FIGURE_1), [
            ClassResult(0, True, (F(-2), F(-2)), None),
            ClassResult(1, True, (F(1), F(2)), None),
            ClassResult(2, True, (F(9, 5), F(-4, 5)), None),
            ClassResult(3, False, None, ((0, F(43, 290)), (1, F(61, 145)), (2, F(25, 58))), 4),
        ])

    def test_decimal_input_is_taken_as_the_decimal(self):
        decimals = [[Decimal(str(v)) for v in row] for row in
                    [[-2, -2], [1, 2], [1.8, -0.8], [0.9, 0.2]]]
        self.assertEqual(check_layer(decimals), check_layer(FIGURE_1))

    def test_float_input_is_taken_as_the_float(self):
        floats = [[-2.0, -2.0], [1.0, 2.0], [1.8, -0.8], [0.9, 0.2]]
        results = check_layer(floats)
        self.assertEqual([r.argmaxable for r in results], [True, True, True, False])
        self.assertTrue(all(verify(floats, None, r) for r in results))
        self.assertNotEqual(results[3].combination, check_layer(FIGURE_1)[3].combination)


class TestDegenerateLayers(unittest.TestCase):

    def test_one_class_is_argmaxable_everywhere(self):
        self.assertEqual(check_layer([[3, 4]]), [ClassResult(0, True, (F(0), F(0)), None)])

    def test_duplicate_rows_only_tie(self):
        results = check_layer([[1, 0], [1, 0], [0, 1]])
        self.assertEqual([r.argmaxable for r in results], [False, False, True])
        self.assertEqual(results[0].combination, (0, 1, 0))
        self.assertEqual(results[1].combination, (1, 0, 0))

    def test_duplicate_with_larger_bias_wins(self):
        self.assertEqual(decisions([[1, 0], [1, 0]], [0, 1]), [False, True])

    def test_collinear_points_middle_is_unargmaxable(self):
        results = check_layer([[0, 0], [1, 1], [2, 2]])
        self.assertEqual([r.argmaxable for r in results], [True, False, True])
        self.assertEqual(results[1].combination, (F(1, 2), 0, F(1, 2)))

    def test_zero_row_is_argmaxable_when_outside_the_hull(self):
        self.assertEqual(decisions([[0, 0], [1, 0], [0, 1]]), [True, True, True])
        self.assertEqual(decisions([[0, 0], [1, 0], [-1, 0]]), [False, True, True])

    def test_all_zero_rows_tie(self):
        self.assertEqual(decisions([[0], [0]]), [False, False])

    def test_dimension_one(self):
        self.assertEqual(decisions([[-1], [0], [2], [1]]), [True, False, True, False])
        self.assertEqual(decisions([[-1], [0], [1]], [0, 1, 0]), [True, True, True])

    def test_at_most_d_plus_1_classes_in_general_position(self):
        self.assertEqual(decisions([[1, 0, 0], [0, 1, 0], [0, 0, 1], [-1, -1, -1]]), [True] * 4)

    def test_bias_lifts_a_class_out_of_the_hull(self):
        self.assertEqual(decisions(FIGURE_1, [0, 0, 0, 1]), [True] * 4)
        self.assertEqual(decisions(FIGURE_1, [0, 0, 0, -1])[3], False)


class TestCertificates(unittest.TestCase):

    def test_every_certificate_verifies_on_random_integer_layers(self):
        rng = random.Random(11)
        for _ in range(150):
            classes, dim = rng.randint(1, 8), rng.randint(1, 3)
            weights = [[rng.randint(-2, 2) for _ in range(dim)] for _ in range(classes)]
            bias = [rng.randint(-2, 2) for _ in range(classes)] if rng.random() < 0.5 else None
            for result in check_layer(weights, bias):
                with self.subTest(weights=weights, bias=bias, index=result.index):
                    self.assertTrue(verify(weights, bias, result))

    def test_every_certificate_verifies_on_gaussian_layers(self):
        rng = random.Random(12)
        for classes, dim, bias in ((120, 3, True), (120, 5, False)):
            weights = [[rng.gauss(0, 1) for _ in range(dim)] for _ in range(classes)]
            biases = [rng.gauss(0, 1) for _ in range(classes)] if bias else None
            results = check_layer(weights, biases)
            self.assertTrue(all(verify(weights, biases, r) for r in results))
            self.assertTrue(any(r.argmaxable for r in results))
            self.assertTrue(any(not r.argmaxable for r in results))

    def test_biases_far_larger_than_weights_still_decide_exactly(self):
        rng = random.Random(13)
        for weight_size, bias_size in ((1e-8, 1e8), (1e8, 1e-8)):
            weights = [[rng.gauss(0, weight_size) for _ in range(3)] for _ in range(40)]
            bias = [rng.gauss(0, bias_size) for _ in range(40)]
            results = check_layer(weights, bias)
            self.assertTrue(all(verify(weights, bias, r) for r in results))

    def test_magnitudes_from_1e_minus_300_to_1e300(self):
        rng = random.Random(14)
        weights = [[rng.choice([1, -1]) * 10 ** rng.uniform(-300, 300) for _ in range(3)]
                   for _ in range(15)]
        results = check_layer(weights)
        self.assertTrue(all(verify(weights, None, r) for r in results))

    def test_verify_rejects_a_wrong_witness_and_a_wrong_combination(self):
        self.assertFalse(verify(FIGURE_1, None, ClassResult(3, True, (F(1), F(0)), None)))
        self.assertFalse(verify(FIGURE_1, None,
                                ClassResult(3, False, None, tuple((j, F(1, 3)) for j in range(3)))))
        self.assertFalse(verify(FIGURE_1, None, ClassResult(0, True, (F(1), F(1)), None)))

    def test_progress_is_reported_for_every_class(self):
        seen = []
        check_layer(FIGURE_1, progress=lambda done, total: seen.append((done, total)))
        self.assertEqual(seen, [(1, 4), (2, 4), (3, 4), (4, 4)])


class TestBraidReflect(unittest.TestCase):

    def test_finds_a_vertex_from_its_own_weight(self):
        self.assertEqual(braid_reflect(FIGURE_1, None, 0), (-2.0, -2.0))

    def test_gives_up_on_the_unargmaxable_class(self):
        self.assertIsNone(braid_reflect(FIGURE_1, None, 3))

    def test_reflection_reaches_a_class_that_x_equal_w_misses(self):
        # At x = w_1 = (1, 0), class 0 (2, 1) wins; one reflection fixes it.
        point = braid_reflect([[2, 1], [1, 0], [-1, 0]], None, 1)
        self.assertIsNotNone(point)
        self.assertTrue(verify([[2, 1], [1, 0], [-1, 0]], None, ClassResult(1, True, point, None)))


class TestErrors(unittest.TestCase):

    def test_messages_name_the_problem(self):
        cases = [
            (([],), "the layer has no classes"),
            (([[]],), "dimension d must be at least 1"),
            (([[1, 2], [3]],), "weights row 1 has length 1, row 0 has length 2"),
            (([[1, "a"]],), r"weights\[0\]\[1\] is 'a', not a real number"),
            (([[1, float("nan")]],), r"weights\[0\]\[1\] is NaN"),
            (([[1, float("inf")]],), r"weights\[0\]\[1\] is inf; weights and biases must be finite"),
            (([[1], [2]], [0]), "bias has length 1 for 2 classes"),
            (([[1], [2]], [0, float("-inf")]), r"bias\[1\] is -inf"),
            ((5,), "weights must be a sequence of numbers, not int"),
            (([[1], 2],), "weights row 1 must be a sequence of numbers, not int"),
            (([[1]], "1"), "bias must be a sequence of numbers, not text"),
        ]
        for arguments, message in cases:
            with self.subTest(arguments=arguments):
                with self.assertRaisesRegex(InputError, message):
                    check_layer(*arguments)

    def test_exact_layer_keeps_exact_values(self):
        self.assertEqual(exact_layer([[0.5, Decimal("0.1")]], [3]),
                         ([[F(1, 2), F(1, 10)]], [F(3)]))


if __name__ == "__main__":
    unittest.main()
