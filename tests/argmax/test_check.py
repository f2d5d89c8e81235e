"""Tests of reviews.argmax.check: certificates, degenerate layers, errors."""

import random
import unittest
from decimal import Decimal
from fractions import Fraction as F
from unittest import mock

from reviews.argmax.strategy import decide as deciding, programs
from reviews.argmax.strategy.braid import braid_reflect
from reviews.argmax.check import check_layer
from reviews.argmax.kernels.layer_input import check_spread, exact_layer, integer_layer
from reviews.argmax.result import ClassResult
from reviews.argmax.certified import verify_all
from reviews.argmax.verify import verify
from reviews.errors import InputError
from tests.support.layers import FIGURE_1, decisions


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
        self.assertTrue(all(verify_all(floats, None, results)))
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
            self.assertTrue(all(verify_all(weights, biases, results)))
            self.assertTrue(any(r.argmaxable for r in results))
            self.assertTrue(any(not r.argmaxable for r in results))

    def test_biases_far_larger_than_weights_still_decide_exactly(self):
        rng = random.Random(13)
        for weight_size, bias_size in ((1e-8, 1e8), (1e8, 1e-8)):
            weights = [[rng.gauss(0, weight_size) for _ in range(3)] for _ in range(40)]
            bias = [rng.gauss(0, bias_size) for _ in range(40)]
            results = check_layer(weights, bias)
            self.assertTrue(all(verify_all(weights, bias, results)))

    def test_magnitudes_from_1e_minus_300_to_1e300(self):
        rng = random.Random(14)
        weights = [[rng.choice([1, -1]) * 10 ** rng.uniform(-300, 300) for _ in range(3)]
                   for _ in range(15)]
        results = check_layer(weights)
        self.assertTrue(all(verify_all(weights, None, results)))

    def test_verify_rejects_a_wrong_witness_and_a_wrong_combination(self):
        self.assertFalse(verify(FIGURE_1, None, ClassResult(3, True, (F(1), F(0)), None)))
        self.assertFalse(verify(FIGURE_1, None,
                                ClassResult(3, False, None, tuple((j, F(1, 3)) for j in range(3)))))
        self.assertFalse(verify(FIGURE_1, None, ClassResult(0, True, (F(1), F(1)), None)))

    def test_progress_is_reported_for_every_class(self):
        seen = []
        check_layer(FIGURE_1, progress=lambda done, total: seen.append((done, total)))
        self.assertEqual(seen, [(1, 4), (2, 4), (3, 4), (4, 4)])


class TestExactFallbackAlwaysDecides(unittest.TestCase):
    """Legal layers where the exact program gave up."""

    def test_a_witness_past_1e100_is_found(self):
        # Class 2 needs x_2 > 1e100: the exact program's box must grow past it.
        weights, bias = [[1, 0], [-1, 0], [0, 1e-100]], [0, 0, -1]
        results = check_layer(weights, bias)
        self.assertEqual([r.argmaxable for r in results], [True, True, True])
        self.assertTrue(all(verify_all(weights, bias, results)))
        x = results[2].witness
        self.assertGreater(x[1] * F(1e-100) - 1, abs(x[0]))

    def test_integers_near_2_to_the_200(self):
        n = 2 ** 200
        weights = [[n + 1, n + 2], [n - 2, -n + 1], [n - 2, -n + 3]]
        bias = [-3, n - 3, -3]
        results = check_layer(weights, bias)
        self.assertEqual([r.argmaxable for r in results], [True, True, True])
        self.assertTrue(all(verify_all(weights, bias, results)))

    def test_spreads_from_1e_minus_80_to_1e_minus_300_all_decide(self):
        for exponent in (80, 85, 150, 300):
            weights, bias = [[1, 0], [-1, 0], [0, 10.0 ** -exponent]], [0, 0, -1]
            with self.subTest(exponent=exponent):
                results = check_layer(weights, bias)
                self.assertTrue(results[2].argmaxable)
                self.assertTrue(verify(weights, bias, results[2]))


def _hull_layer(seed, classes, dim, bias):
    """Seeded rows, every other one shrunk into the hull: many classes the search leaves."""
    rng = random.Random(seed)
    weights = [[rng.gauss(0, 1) * (0.5 if k % 2 else 1) for _ in range(dim)]
               for k in range(classes)]
    return weights, ([rng.gauss(0, 0.1) for _ in range(classes)] if bias else None)


class TestNearestPoint(unittest.TestCase):
    """From 12 dimensions the nearest point decides what the search leaves."""

    def _decided(self, weights, bias):
        calls = []
        nearest = deciding.nearest

        def counted(layer, i, working):
            result = nearest(layer, i, working)
            calls.append(result is not None)
            return result

        with mock.patch.object(deciding, "nearest", counted):
            results = check_layer(weights, bias)
        return results, calls

    def test_its_verdicts_are_the_programs_and_its_certificates_hold(self):
        for bias in (False, True):
            weights, biases = _hull_layer(12, 160, 16, bias)
            results, calls = self._decided(weights, biases)
            self.assertGreater(sum(calls), 10)
            with mock.patch.object(deciding, "nearest", lambda layer, i, working: None):
                programs = check_layer(weights, biases)
            self.assertEqual([r.argmaxable for r in results], [r.argmaxable for r in programs])
            self.assertTrue(all(verify_all(weights, biases, results)))
            self.assertIn(False, [r.argmaxable for r in results])

    def test_a_combination_has_at_most_d_plus_two_terms(self):
        weights, biases = _hull_layer(13, 300, 16, True)
        results, _ = self._decided(weights, biases)
        unargmaxable = [r for r in results if not r.argmaxable]
        self.assertTrue(unargmaxable)
        # d + 1 coordinates with the bias, and the weights summing to 1.
        self.assertLessEqual(max(len(r.terms) for r in unargmaxable), 18)

    def test_fewer_dimensions_keep_the_program(self):
        weights, biases = _hull_layer(14, 120, 11, True)
        _, calls = self._decided(weights, biases)
        self.assertFalse(any(calls))

    def test_a_box_keeps_the_program(self):
        weights, biases = _hull_layer(15, 120, 16, True)
        calls = []
        with mock.patch.object(programs, "NearestPoint",
                               side_effect=lambda rows: calls.append(rows)):
            results = check_layer(weights, biases, box=100)
        self.assertEqual(calls, [])
        self.assertTrue(all(verify_all(weights, biases, results, box=100)))


class TestNumbersPastTheFloatRange(unittest.TestCase):
    """Exact values beyond the float range are legal."""

    def test_layers_past_the_float_range_decide(self):
        cases = [
            ([[1], [2], [3]], [0, 1, Decimal("1e400")], [True, False, True]),
            ([[Decimal("1e309")] * 3], None, [True]),
            ([[Decimal("1e309")] * 3, [1, 2, 3]], None, [True, True]),
            ([[1e-160], [2e-160], [3e-160]], [1e160, 0, -1e160], [True, False, True]),
            ([[10 ** 400, 1], [1, 10 ** 400], [0, 0]], [0, 0, 10 ** 399], [True, True, True]),
            ([[0], [1], [Decimal("1e4400")]], None, [True, False, True]),
        ]
        for weights, bias, expected in cases:
            with self.subTest(weights=weights, bias=bias):
                results = check_layer(weights, bias)
                self.assertEqual([r.argmaxable for r in results], expected)
                self.assertTrue(all(verify_all(weights, bias, results)))

    def test_a_witness_longer_than_the_input_size_limit_still_verifies(self):
        # Class 2 needs x_2 > 1e19000: more bits than an input number may have.
        weights, bias = [[1, 0], [-1, 0], [0, Decimal("1e-19000")]], [0, 0, -1]
        result = check_layer(weights, bias)[2]
        self.assertTrue(result.argmaxable)
        self.assertGreater(result.witness[1], 10 ** 19000)
        self.assertIs(verify(weights, bias, result), True)

    def test_braid_reflect_gives_up_quietly_past_the_float_range(self):
        self.assertIsNone(braid_reflect([[1], [2], [3]], [0, 1, Decimal("1e400")], 0))
        self.assertIsNone(braid_reflect([[Decimal("1e309")], [0]], None, 1))


class TestSpreadLimit(unittest.TestCase):
    """A few kilobytes of widely spread numbers are refused, not minutes."""

    def test_the_limit_is_entries_times_span_past_2100_bits(self):
        # 256 entries spanning 4,096 bits: exactly 2**20 is allowed.
        allowed = [[2 ** 4096, 1]] + [[2 ** 4096, 2 ** 4096]] * 127
        self.assertIsNone(check_spread(allowed, None, 2 ** 4096))
        with self.assertRaisesRegex(InputError, "the layer's 258 numbers span 4,096 bits"
                                    r" \(magnitudes about 1e-1233 to 1\); .* this one has"
                                    " 1,056,768, and its exact check would take minutes"):
            check_spread(allowed + allowed[-1:], None, 2 ** 4096)

    def test_a_float_layer_is_never_refused(self):
        # The widest float layer spans 2,097 bits: under the 2,100 past which the limit holds.
        weights = [[5e-324, 1.7e308]] * 1000
        rows, biases, denominator = integer_layer(weights, [1.0] * 1000)
        self.assertEqual(denominator, 2 ** 1074)
        self.assertIsNone(check_spread(rows, biases, denominator))

    def test_the_check_refuses_before_any_work(self):
        weights = [[Decimal("1e5000"), Decimal("-1e-5000"), k] for k in range(12)]
        with mock.patch("reviews.argmax.check.PreparedLayer") as layer:
            with self.assertRaisesRegex(InputError, "the layer's 36 numbers span 33,219 bits"):
                check_layer(weights)
        layer.assert_not_called()

    def test_repeated_rows_are_not_counted(self):
        # 40 copies of one row: 80 numbers spanning 13,287 bits (1,062,960),
        # but one row is decided, and its copies by their twins.
        weights = [[Decimal("1e2000"), Decimal("1e-2000")]] * 40
        results = check_layer(weights)
        self.assertEqual([r.argmaxable for r in results], [False] * 40)
        self.assertTrue(all(verify_all(weights, None, results)))

    def test_a_box_counts_as_the_weights_times_its_bound_in_a_wide_layer(self):
        # Spanning 1e-700 to 12 on its own (36 x 2,329 bits): within the limit.
        weights = [[k, k * Decimal("1e-700")] for k in range(1, 13)]
        bias = list(range(12))
        self.assertEqual(len(check_layer(weights, bias, box=100)), 12)
        with self.assertRaisesRegex(InputError, "the layer's 36 numbers span 63,1.. bits with"
                                    " its weights times the box bound"):
            check_layer(weights, bias, box=Decimal("1e19000"))

    def test_a_float_layer_takes_any_box(self):
        # Floats decide it: a box of 1e-19000 or 1e19000 costs nothing more.
        weights = [[k, k * k % 7] for k in range(1, 31)]
        for box in (Decimal("1e-19000"), Decimal("1e19000")):
            with self.subTest(box=box):
                results = check_layer(weights, list(range(30)), box=box)
                self.assertTrue(all(verify_all(weights, list(range(30)), results, box=box)))

    def test_a_tolerance_above_the_layer_counts_beside_it_even_for_floats(self):
        # T = 1e19700 made a 200 x 4 float layer take 200 s instead of 1.25;
        # here 12 classes of d = 3 with a bias: 48 numbers from 1 to 1e19000.
        weights = [[k, k * k % 7, 1.5] for k in range(1, 13)]
        with mock.patch("reviews.argmax.check.PreparedLayer") as layer, \
                self.assertRaisesRegex(InputError, "^the layer's 48 numbers span 63,11. bits with"
                                       r" the tolerance \(magnitudes about 1 to 1e19000\); "):
            check_layer(weights, list(range(12)), tolerance=Decimal("1e19000"))
        layer.assert_not_called()
        with self.assertRaisesRegex(InputError, "span 63,1.. bits with its weights times the"
                                    " box bound, and the tolerance"):
            check_layer(weights, list(range(12)), box=100, tolerance=Decimal("1e19000"))

    def test_a_finite_end_of_the_inputs_counts_beside_the_layer_on_a_half_line_too(self):
        # x >= 1e-19000 moves every bias by 1e-19000 W 1: numbers of 63,000 bits
        # that took a 330-number layer 52 s; the same as 1e-19000 <= x <= 1.
        weights = [[k, k * k % 7, 1.5] for k in range(1, 13)]
        for inputs in ((Decimal("1e-19000"), None), (Decimal("1e-19000"), 1),
                       (None, Decimal("-1e19000"))):
            with self.subTest(inputs=inputs), \
                    mock.patch("reviews.argmax.check.PreparedLayer") as layer, \
                    self.assertRaisesRegex(InputError, "^the layer's 48 numbers span 63,1.. bits"
                                           " with the inputs' ends"):
                check_layer(weights, list(range(12)), inputs=inputs)
            layer.assert_not_called()
        # An end of 0, or one within the float range of the layer's numbers, costs nothing.
        for inputs in ((0, None), (Decimal("1e-300"), None)):
            with self.subTest(inputs=inputs):
                self.assertEqual(len(check_layer(weights, list(range(12)), inputs=inputs)), 12)

    def test_a_tolerance_below_the_layer_is_not_counted(self):
        # Every witness of T = 0 clears a T that small: no more work.
        weights = [[k, k * k % 7] for k in range(1, 31)]
        tolerance = Decimal("1e-19000")
        results = check_layer(weights, list(range(30)), tolerance=tolerance)
        self.assertEqual(sum(r.argmaxable for r in results),
                         sum(r.argmaxable for r in check_layer(weights, list(range(30)))))
        self.assertTrue(all(verify_all(weights, list(range(30)), results, tolerance=tolerance)))


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
            (([[1], [2]], [0, float("inf")]), r"bias\[1\] is inf"),
        ]
        for arguments, message in cases:
            with self.subTest(arguments=arguments):
                with self.assertRaisesRegex(InputError, message):
                    check_layer(*arguments)

    def test_a_layer_that_is_not_a_sequence_is_a_type_error(self):
        cases = [
            ((5,), "weights must be a sequence of numbers, not int"),
            (("abc",), "weights must be a sequence of numbers, not text"),
            (([[1], 2],), "weights row 1 must be a sequence of numbers, not int"),
            (([[1]], "1"), "bias must be a sequence of numbers, not text"),
        ]
        for arguments, message in cases:
            with self.subTest(arguments=arguments):
                with self.assertRaisesRegex(TypeError, message):
                    check_layer(*arguments)

    def test_progress_must_be_callable(self):
        with self.assertRaisesRegex(TypeError, "progress must be a function .* not int"):
            check_layer(FIGURE_1, progress=5)

    def test_verify_raises_for_a_malformed_result(self):
        cases = [
            (None, TypeError, "result must be a ClassResult, not NoneType"),
            (ClassResult(4, True, (F(0), F(0))), InputError,
             r"result.index is 4, not a class of this layer \(0 to 3\)"),
            (ClassResult(-1, True, (F(0), F(0))), InputError, "result.index is -1"),
            (ClassResult("0", True, (F(0), F(0))), TypeError, "result.index must be an int"),
            (ClassResult(0, True, (float("inf"), 0)), InputError,
             r"result.witness\[0\] is inf; a witness must be finite"),
            (ClassResult(0, True, (1,)), InputError, "result.witness has length 1 for d = 2"),
            (ClassResult(0, True, None), InputError, "argmaxable but has no witness"),
            (ClassResult(3, False, None, None, 4), InputError, "not argmaxable but has no terms"),
            (ClassResult(3, False, None, ((0, F(1, 2), 1), (1, F(1, 2))), 4), InputError,
             r"result.terms\[0\] has 3 entries, not 2"),
            (ClassResult(3, False, None, ((-1, F(1, 2)), (1, F(1, 2))), 4), InputError,
             r"result.terms\[0\]'s class is -1, not a class"),
            (ClassResult(3, False, None, ((1, F(1, 2)), (1, F(1, 2))), 4), InputError,
             "class 1 does not follow class 1"),
            (ClassResult(3, False, None, ((0, "x"),), 4), InputError, "is 'x', not a real number"),
        ]
        for result, error, message in cases:
            with self.subTest(result=result):
                with self.assertRaisesRegex(error, message):
                    verify(FIGURE_1, None, result)

    def test_a_dense_combination_needs_terms_within_the_classes(self):
        with self.assertRaisesRegex(InputError, "class 0: its terms name class 5 of only 3"):
            ClassResult(0, False, None, ((5, F(1)),), 3).combination

    def test_verify_is_false_for_a_well_formed_wrong_certificate(self):
        wrong = [
            ClassResult(3, True, (F(0), F(0))),
            ClassResult(3, False, None, ((0, F(1, 2)), (1, F(1, 2))), 4),
            ClassResult(3, False, None, ((0, F(43, 290)), (1, F(61, 145)), (3, F(25, 58))), 4),
            ClassResult(3, False, None, (), 4),
            ClassResult(3, False, None, ((0, F(-1)), (1, F(2))), 4),
        ]
        for result in wrong:
            with self.subTest(result=result):
                self.assertIs(verify(FIGURE_1, None, result), False)

    def test_exact_layer_keeps_exact_values(self):
        self.assertEqual(exact_layer([[0.5, Decimal("0.1")]], [3]),
                         ([[F(1, 2), F(1, 10)]], [F(3)]))


class TestHugeArguments(unittest.TestCase):

    def test_a_dense_combination_of_too_many_classes_is_refused_by_name(self):
        for classes in (10 ** 12, 10 ** 5000):
            with self.subTest(classes=classes):
                with self.assertRaisesRegex(InputError, "at most 2\\*\\*26 classes"):
                    ClassResult(0, False, None, ((1, F(1)),), classes).combination

    def test_a_huge_index_is_named_by_its_size_not_printed(self):
        results = (ClassResult(10 ** 5000, True, (1,), None, 2),
                   ClassResult(0, False, None, ((10 ** 5000, F(1)),), 2))
        for result in results:
            with self.subTest(result=result.index):
                with self.assertRaisesRegex(InputError, "is an int of 16610 bits, not a class"):
                    verify([[0], [1]], None, result)


if __name__ == "__main__":
    unittest.main()
