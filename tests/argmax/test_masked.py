"""Tests of reviews.argmax.reductions.masked: classes masked by a bias of -inf are
never argmaxable and the others are decided as if they were absent."""

import array
import math
import numbers
import unittest
from decimal import Decimal
from fractions import Fraction

from reviews.argmax.check import check_layer

from reviews.argmax.result import ClassResult

from reviews.argmax.certified import verify_all
from reviews.argmax.verify import verify
from reviews.argmax.tolerance import Radius, radii
from reviews.errors import InputError
from reviews.formats.layers import read_layer
from tests.support.arrays import npy_bytes
from tests.support import FileTestCase
from tests.support.commands import in_process

INF = float("inf")
# The middle of three points on a line is unargmaxable, unless one end is masked.
LINE = [[0, 0], [1, 1], [2, 2]]


class TestChecking(unittest.TestCase):

    def test_the_others_are_decided_as_if_the_masked_class_were_absent(self):
        self.assertEqual([r.argmaxable for r in check_layer(LINE, [0, 0, 0])],
                         [True, False, True])
        results = check_layer(LINE, [0, 0, -INF])
        self.assertEqual([(r.argmaxable, r.masked) for r in results],
                         [(True, False), (True, False), (False, True)])
        self.assertTrue(all(verify_all(LINE, [0, 0, -INF], results)))

    def test_minus_infinity_masks_in_any_sequence_and_any_real_type(self):
        # An array of doubles, a memoryview of one, and a numpy-like scalar
        # (a numbers.Real that is no float) as numpy arrays hold them.
        class Float32:
            def __init__(self, value):
                self.value = value

            def __float__(self):
                return self.value

            def __eq__(self, other):
                return self.value == other

            __hash__ = None

        numbers.Real.register(Float32)
        doubles = array.array("d", [0, 0, -INF])
        for bias in (doubles, memoryview(doubles), (0, 0, -INF),
                     [0, Float32(0.0), Float32(-INF)]):
            with self.subTest(bias=type(bias).__name__):
                results = check_layer(LINE, bias)
                self.assertEqual([(r.argmaxable, r.masked) for r in results],
                                 [(True, False), (True, False), (False, True)])
                self.assertTrue(all(verify_all(LINE, bias, results)))
                self.assertIsNone(radii(LINE, bias, results)[2])

    def test_rows_or_a_bias_read_in_key_or_hash_order_are_refused(self):
        for weights, bias, message in (
                (LINE, {0: 0, 1: 0, 2: -INF}, "^bias must be an ordered sequence of numbers,"
                                             " not dict \\(its keys would be read\\)$"),
                (LINE, {0, 1, 2}, "^bias must be .* not set \\(unordered\\)$"),
                ({0: [0, 0], 1: [1, 1]}, None, "^weights must be .* not dict"),
                ([[0, 0], {1, 2}], None, "^weights row 1 must be .* not set"),
                ([frozenset([0, 1])], None, "^weights row 0 must be .* not frozenset")):
            with self.subTest(message=message):
                with self.assertRaisesRegex(TypeError, message):
                    check_layer(weights, bias)
                with self.assertRaisesRegex(TypeError, message):
                    verify(weights, bias, ClassResult(0, True, (0, 0)))

    def test_a_tolerance_is_asked_of_the_classes_left(self):
        # Class 1 wins on a sliver 1e-9 / sqrt(2) wide: argmaxable at T = 0 only.
        weights, bias = [[0, 0], [1, 1], [2, 2], [5, 5]], [0, Fraction(1, 10 ** 9), 0, -INF]
        tolerance = Fraction(1, 10 ** 8)
        results = check_layer(weights, bias, tolerance=tolerance)
        self.assertEqual([(r.argmaxable, r.masked, r.tolerance) for r in results],
                         [(True, False, tolerance), (False, False, tolerance),
                          (True, False, tolerance), (False, True, tolerance)])
        self.assertTrue(all(verify_all(weights, bias, results, tolerance=tolerance)))
        # The witness of T = 0 proves nothing at T.
        self.assertFalse(verify(weights, bias, check_layer(weights, bias)[1],
                                tolerance=tolerance))

    def test_a_masked_class_says_the_box_and_tolerance_asked(self):
        # A report reads the question off any result, the first one included.
        results = check_layer([[0, 0], [1, 0], [0, 1]], [-INF, 0, 0], box=1,
                              tolerance=Fraction(1, 1000))
        self.assertEqual([(r.masked, r.box, r.tolerance) for r in results],
                         [(True, 1, Fraction(1, 1000)), (False, 1, Fraction(1, 1000)),
                          (False, 1, Fraction(1, 1000))])

    def test_combinations_keep_the_layers_own_class_numbers(self):
        weights = [[0, 0], [9, 9], [2, 0], [1, 0]]
        bias = [0, Decimal("-Infinity"), 0, 0]
        result = check_layer(weights, bias)[3]
        self.assertEqual(result.terms, ((0, Fraction(1, 2)), (2, Fraction(1, 2))))
        self.assertTrue(verify(weights, bias, result))
        self.assertEqual(check_layer(weights, bias, box=1)[3].terms[0][0], 0)

    def test_verify_refuses_what_the_mask_does_not_prove(self):
        bias = [0, 0, -INF]
        self.assertFalse(verify(LINE, bias, ClassResult(0, False, masked=True)))
        self.assertFalse(verify(LINE, bias, ClassResult(2, True, (Fraction(5), Fraction(5)))))
        self.assertFalse(verify([[0, 0], [1, 1], [2, 2], [1, 1]], [0, 0, -INF, 0],
                                ClassResult(1, False, None, ((2, Fraction(1)),))))
        self.assertTrue(verify(LINE, bias, ClassResult(2, False, masked=True)))

    def test_a_decimal_past_the_float_range_is_not_a_mask(self):
        # float(Decimal("-3E+391")) is -inf; the number is finite.
        results = check_layer([[0], [1], [2]], [0, Decimal("-3E+391"), 0])
        self.assertEqual([(r.argmaxable, r.masked) for r in results],
                         [(True, False), (False, False), (True, False)])

    def test_every_class_masked(self):
        results = check_layer(LINE, [-INF] * 3)
        self.assertEqual([(r.argmaxable, r.masked) for r in results], [(False, True)] * 3)

    def test_every_class_masked_is_verifiable_and_its_numbers_still_checked(self):
        results = check_layer(LINE, [-INF] * 3)
        self.assertEqual([verify(LINE, [-INF] * 3, r) for r in results], [True] * 3)
        self.assertFalse(verify(LINE, [-INF] * 3, ClassResult(0, True, (0,))))
        with self.assertRaisesRegex(InputError, r"weights\[1\]\[0\] is 'x'"):
            verify([[0], ["x"], [2]], [-INF] * 3, results[0])

    def test_plus_infinity_and_nan_stay_errors(self):
        # Named by their own class, not by their place among the unmasked.
        for value, shown in ((INF, "inf"), (math.nan, "NaN")):
            with self.subTest(value=value):
                with self.assertRaisesRegex(InputError, "^bias\\[1\\] is %s" % shown):
                    check_layer(LINE, [-INF, value, 0])
        with self.assertRaisesRegex(InputError, "^weights\\[1\\]\\[0\\] is inf"):
            check_layer([[0, 0], [INF, 0], [1, 1]], [-INF, 0, 0])


class TestRadii(FileTestCase):

    def test_the_others_radii_are_those_of_the_layer_without_the_masked(self):
        weights, bias = [[0, 0], [1, 1], [2, 2], [5, 5]], [0, Fraction(1, 10 ** 9), 0, -INF]
        found = radii(weights, bias, check_layer(weights, bias))
        self.assertEqual(found[:3], radii(weights[:3], bias[:3],
                                          check_layer(weights[:3], bias[:3])))
        self.assertEqual(found[1], Radius(Fraction(707, 10 ** 12), True, Fraction(708, 10 ** 12)))
        self.assertIsNone(found[3])
        self.assertEqual(radii(LINE, [-INF] * 3, check_layer(LINE, [-INF] * 3)), [None] * 3)

    def test_the_command_reports_a_masked_layer_with_its_radii(self):
        # It stopped at "bias[3] is -inf; weights and biases must be finite", exit 2.
        weights = self.write("weights.csv", "0,0\n1,1\n2,2\n5,5\n")
        bias = self.write("bias.csv", "0\n1e-9\n0\n-inf\n")
        status, out, err = in_process("check-layer", weights, "--bias", bias)
        self.assertEqual((status, err), (0, ""))
        self.assertIn("\n  class 3: masked: b[3] = -inf\n", out)
        self.assertIn("\n  class 1: largest radius between 7.07e-10 and 7.08e-10\n", out)


class TestReading(FileTestCase):

    def test_minus_infinity_in_every_bias_format(self):
        layer = self.write("w.csv", "0,0\n1,1\n2,2\n")
        for name, content in (("b.csv", "0\n-inf\n-Infinity\n"), ("b.txt", "0 -INF -infinity\n"),
                              ("b.json", "[0, -Infinity, -Infinity]"),
                              ("b.npy", npy_bytes([0, -INF, -INF], (3,)))):
            with self.subTest(name=name):
                bias = read_layer(layer, self.write(name, content))[1]
                self.assertEqual(bias[1:], [-INF, -INF])
        path = self.write("l.json", '{"weights": [[0], [1]], "bias": [-Infinity, 0]}')
        self.assertEqual(read_layer(path)[1], [-INF, 0])

    def test_other_infinities_are_refused_where_they_are(self):
        layer = self.write("w.csv", "0,0\n1,1\n")
        for name, content, message in (
                ("b.csv", "0\ninf\n", "line 2, column 1: 'inf' is not a finite number"),
                ("b.json", "[0, Infinity]", r"bias\[1\] is 'Infinity'"),
                ("b.npy", npy_bytes([0, INF], (2,)), r"bias\[1\] is inf")):
            with self.subTest(name=name):
                with self.assertRaisesRegex(InputError, message):
                    read_layer(layer, self.write(name, content))
        with self.assertRaisesRegex(InputError, "line 1, column 1: '-inf' is not a finite"):
            read_layer(self.write("w.csv", "-inf,0\n1,1\n"))


if __name__ == "__main__":
    unittest.main()
