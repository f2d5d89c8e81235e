"""Tests of reviews.argmax.check: certificates, degenerate layers, errors."""

import math
import random
import unittest
from decimal import Decimal
from fractions import Fraction as F
from unittest import mock

from reviews.argmax import check as argmaxable
from reviews.argmax import decide as deciding
from reviews.argmax import programs
from reviews.argmax.braid import braid_reflect
from reviews.argmax.check import check_layer
from reviews.argmax.layer_input import exact_layer
from reviews.argmax.result import ClassResult
from reviews.argmax.verify import verify
from reviews.errors import InputError
from reviews.argmax.arithmetic import EXACT
from reviews.argmax.feasibility import Program
from reviews.argmax.layer_input import check_spread, integer_layer
from reviews.argmax.span import SpanCoordinates
from reviews.argmax.witness import Witness

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


class TestExactFallbackAlwaysDecides(unittest.TestCase):
    """Issue 7, item 1: legal layers where the exact program gave up."""

    def test_a_witness_past_1e100_is_found(self):
        # Class 2 needs x_2 > 1e100: the exact program's box must grow past it.
        weights, bias = [[1, 0], [-1, 0], [0, 1e-100]], [0, 0, -1]
        results = check_layer(weights, bias)
        self.assertEqual([r.argmaxable for r in results], [True, True, True])
        self.assertTrue(all(verify(weights, bias, r) for r in results))
        x = results[2].witness
        self.assertGreater(x[1] * F(1e-100) - 1, abs(x[0]))

    def test_integers_near_2_to_the_200(self):
        n = 2 ** 200
        weights = [[n + 1, n + 2], [n - 2, -n + 1], [n - 2, -n + 3]]
        bias = [-3, n - 3, -3]
        results = check_layer(weights, bias)
        self.assertEqual([r.argmaxable for r in results], [True, True, True])
        self.assertTrue(all(verify(weights, bias, r) for r in results))

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
            self.assertTrue(all(verify(weights, biases, r) for r in results))
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
        self.assertTrue(all(verify(weights, biases, r, box=100) for r in results))


class TestIntegerLayer(unittest.TestCase):

    def test_the_integers_are_the_exact_entries_times_their_least_common_denominator(self):
        # Rows of floats are scaled in floats; past the float range, or with
        # a Fraction among them, entry by entry: the same integers.
        rng = random.Random(4)
        layers = [
            [[rng.gauss(0, 1) * 2.0 ** rng.randint(-1074, 1000) for _ in range(5)]
             for _ in range(20)],
            [[1e308, 5e-324], [1.0, 2.0]],
            [[1.5, F(1, 3)], [0.25, 2.0]],
            [[2.0 ** -1074, 1.7976931348623157e308]],
            [[0.0, -0.0], [1.0, rng.gauss(0, 1)]],
        ]
        for rows in layers:
            for bias in (None, [0.5] * len(rows)):
                entries = [F(v) for row in rows for v in row] + [F(v) for v in bias or ()]
                common = 1
                for v in entries:
                    common = common * v.denominator // math.gcd(common, v.denominator)
                with self.subTest(rows=rows, bias=bias):
                    self.assertEqual(integer_layer(rows, bias),
                                     ([[int(F(v) * common) for v in row] for row in rows],
                                      bias and [int(F(v) * common) for v in bias], common))


class TestRowCandidates(unittest.TestCase):

    def test_a_float_layers_row_candidate_is_its_float_point_rounded(self):
        # From the integers, x = w_i rounded to 30 bits as round() rounds
        # the float point: halves to even, tiny and huge rows, a bias, a box.
        rng = random.Random(8)
        halves = [1 + 2.0 ** -30, 1 + 3 * 2.0 ** -30, -(1 + 2.0 ** -30), 2.0 ** 31 + 0.5]
        for bias in (False, True):
            for box in (None, F(1, 2), F(10 ** 6)):
                rows = [[rng.gauss(0, 1) * 2.0 ** rng.randint(-60, 60) for _ in range(4)]
                        for _ in range(20)] + [halves, [0.0] * 4, [2.0 ** -1074] * 4]
                biases = [rng.gauss(0, 1) for _ in rows] if bias else None
                layer = deciding.PreparedLayer(*integer_layer(rows, biases), box=box)
                self.assertTrue(layer.binary)
                for i in range(len(rows)):
                    with self.subTest(bias=bias, box=box, i=i):
                        candidate = layer.row_candidate(i)
                        if candidate[1] == layer.denominator:
                            # Small integers (the zero row, 2**-1074's ones): x exactly.
                            self.assertLess(max(map(abs, candidate[0])), 2 ** 32)
                        else:
                            self.assertEqual(candidate, layer.candidate(layer.float_weights[i]))

    def test_small_integer_rows_are_their_own_candidates(self):
        layer = deciding.PreparedLayer(*integer_layer([[3, -4], [1, 2]], [F(1, 2), 0]))
        self.assertEqual(layer.row_candidate(0), ([6, -8, 2], 2))


class TestNumbersPastTheFloatRange(unittest.TestCase):
    """Issue 7, item 2: exact values beyond the float range are legal."""

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
                self.assertTrue(all(verify(weights, bias, r) for r in results))

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
    """Issue 7's contract: a few kilobytes of widely spread numbers are refused, not minutes."""

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
        self.assertTrue(all(verify(weights, None, r) for r in results[:3]))

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
                self.assertTrue(all(verify(weights, list(range(30)), r, box=box) for r in results))

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

    def test_a_tolerance_below_the_layer_is_not_counted(self):
        # Every witness of T = 0 clears a T that small: no more work.
        weights = [[k, k * k % 7] for k in range(1, 31)]
        tolerance = Decimal("1e-19000")
        results = check_layer(weights, list(range(30)), tolerance=tolerance)
        self.assertEqual(sum(r.argmaxable for r in results),
                         sum(r.argmaxable for r in check_layer(weights, list(range(30)))))
        self.assertTrue(all(verify(weights, list(range(30)), r, tolerance=tolerance)
                            for r in results))


def exact_rank(vectors):
    """The rank of integer or Fraction vectors, by Gaussian elimination in Fractions."""
    rows, rank = [[F(v) for v in vector] for vector in vectors], 0
    for column in range(len(rows[0]) if rows else 0):
        pivot = next((r for r in range(rank, len(rows)) if rows[r][column]), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for r in range(len(rows)):
            if r != rank and rows[r][column]:
                f = rows[r][column] / rows[rank][column]
                rows[r] = [a - f * b for a, b in zip(rows[r], rows[rank])]
        rank += 1
    return rank


class TestSpanCoordinates(unittest.TestCase):
    """Issue 7, item 4: a few classes in a high dimension, on a few of its coordinates."""

    def setUp(self):
        rng = random.Random(15)
        self.a = [F(rng.randint(-9, 9)) for _ in range(800)]
        self.b = [F(rng.randint(-9, 9)) for _ in range(800)]
        self.weights = [self.a, self.b, [(p + q) / 2 for p, q in zip(self.a, self.b)]]

    def test_the_programs_run_on_the_span(self):
        dimensions = []
        original = Program.__init__

        def recording(program, rows, *arguments, **keywords):
            dimensions.append(len(rows[0]))
            original(program, rows, *arguments, **keywords)

        with mock.patch.object(Program, "__init__", recording):
            results = check_layer(self.weights)
        self.assertEqual([r.argmaxable for r in results], [True, True, False])
        self.assertEqual(results[2].terms, ((0, F(1, 2)), (1, F(1, 2))))
        self.assertTrue(dimensions)
        self.assertLessEqual(max(dimensions), 2)

    def test_witnesses_map_back_to_the_original_coordinates(self):
        bias = [0, 0, 1]
        results = check_layer(self.weights, bias)
        self.assertEqual([r.argmaxable for r in results], [True, True, True])
        for r in results:
            self.assertEqual(len(r.witness), 800)
            self.assertTrue(verify(self.weights, bias, r))

    def test_equal_rows_in_a_high_dimension(self):
        row = list(range(1, 51))
        self.assertEqual(decisions([row, row, row]), [False, False, False])
        results = check_layer([row, row, row], [0, 2, 1])
        self.assertEqual([r.argmaxable for r in results], [False, True, False])
        self.assertTrue(all(verify([row, row, row], [0, 2, 1], r) for r in results))

    def test_the_programs_see_the_layers_own_numbers(self):
        # Exact coordinates on the span of rows of 1000 bits would have
        # about 2000 (a 2 x 2 determinant); chosen coordinates keep 1001.
        rng = random.Random(17)
        a, b, c = ([rng.randrange(-2 ** 1000, 2 ** 1000) * 3 for _ in range(40)]
                   for _ in range(3))
        weights = [a, b, c, [(p + q + r) // 3 for p, q, r in zip(a, b, c)]]
        entries = []
        original = Program.__init__

        def recording(program, rows, offsets, *arguments, **keywords):
            if EXACT in arguments:
                entries.extend(v for row in rows for v in row)
            original(program, rows, offsets, *arguments, **keywords)

        with mock.patch.object(Program, "__init__", recording), \
                mock.patch("reviews.argmax.programs._FLOAT_ROUNDS", 0):
            results = check_layer(weights)
        self.assertEqual([r.argmaxable for r in results], [True, True, True, False])
        self.assertTrue(entries)
        self.assertLessEqual(max(abs(v) for v in entries).bit_length(), 1003)

    def test_a_combination_on_too_few_coordinates_is_caught(self):
        # Modulo 3 the first coordinate's differences (0, 3) vanish, so only
        # the second is chosen, where class 2 lies between classes 0 and 1;
        # on the whole layer it is the strict maximum at x = (1, 0, ...).
        weights = [[0] * 6, [0, 10, 0, 0, 0, 0], [3, 1, 0, 0, 0, 0]]
        checked = []
        original = deciding.PreparedLayer.combination_holds

        def recording(layer, i, terms):
            checked.append((i, original(layer, i, terms)))
            return checked[-1][1]

        # No reflections, no centring, no shared-direction candidate: the
        # program is reached at once.
        with mock.patch("reviews.argmax.span._PRIME", 3), \
                mock.patch.object(deciding, "_REFLECTIONS", 0), \
                mock.patch.object(deciding.SharedDirection, "point", lambda shared, i: None), \
                mock.patch.object(deciding.PreparedLayer, "centre", lambda layer: [0.0] * 6), \
                mock.patch.object(deciding.PreparedLayer, "combination_holds", recording):
            results = check_layer(weights)
        # Then exact coordinates, which keep the rank, decide it.
        self.assertEqual(checked, [(2, False)])
        self.assertEqual([r.argmaxable for r in results], [True, True, True])
        self.assertTrue(all(verify(weights, None, r) for r in results))

    def test_differences_that_are_multiples_of_the_prime_cost_one_exact_choice(self):
        # Modulo 2**61 - 1 every difference vanishes; exact coordinates keep
        # the programs in at most C - 1 dimensions, not d = 40.
        p = 2 ** 61 - 1
        rng = random.Random(19)
        base = [[p * rng.randint(-3, 3) for _ in range(40)] for _ in range(4)]
        weights = base + [[(a + b) // 2 for a, b in zip(base[0], base[1])],
                          [(a + b) // 2 for a, b in zip(base[2], base[3])]]
        dimensions = []
        original = Program.__init__

        def recording(program, rows, *arguments, **keywords):
            dimensions.append(len(rows[0]))
            original(program, rows, *arguments, **keywords)

        for bias in (None, [1, 0, 2, 0, -5, 3]):
            with self.subTest(bias=bias), mock.patch.object(Program, "__init__", recording):
                results = check_layer(weights, bias)
                self.assertTrue(all(verify(weights, bias, r) for r in results))
        self.assertTrue(dimensions)
        self.assertLessEqual(max(dimensions), 5)

    def test_chosen_coordinates_keep_the_rank_of_the_differences(self):
        rng = random.Random(18)
        for _ in range(100):
            classes, dim = rng.randint(2, 7), rng.randint(1, 12)
            basis = [[rng.randint(-3, 3) for _ in range(dim)] for _ in range(rng.randint(1, 4))]
            weights = [[sum(rng.randint(-2, 2) * v for v in column) + rng.choice((0, 7))
                        for column in zip(*basis)] for _ in range(classes)]
            differences = [[p - q for p, q in zip(row, weights[0])] for row in weights[1:]]
            span = SpanCoordinates(weights)
            with self.subTest(weights=weights):
                self.assertEqual(exact_rank(span.restricted(differences)),
                                 exact_rank(differences))
                self.assertLessEqual(len(span.coordinates), max(1, exact_rank(differences)))

    def test_span_coordinates_are_exact_on_random_layers(self):
        rng = random.Random(16)
        for _ in range(60):
            classes, dim = rng.randint(2, 5), rng.randint(5, 9)
            basis = [[rng.randint(-3, 3) for _ in range(dim)] for _ in range(rng.randint(1, 3))]
            weights = [[sum(rng.randint(-2, 2) * v for v in column) for column in zip(*basis)]
                       for _ in range(classes)]
            bias = [rng.randint(-2, 2) for _ in range(classes)] if rng.random() < 0.5 else None
            with self.subTest(weights=weights, bias=bias):
                self.assertTrue(all(verify(weights, bias, r) for r in check_layer(weights, bias)))


def _gaussian_layer(seed, classes, dim):
    rng = random.Random(seed)
    weights = [[rng.gauss(0, 1) for _ in range(dim)] for _ in range(classes)]
    return weights, [rng.gauss(0, 1) for _ in range(classes)]


def _boxed_certificate_holds(weights, bias, result, box):
    """The boxed certificate checked from its definition, in Fractions."""
    rows, biases = exact_layer(weights, bias)
    biases = biases or [F(0)] * len(rows)
    i, box = result.index, F(box)
    if result.argmaxable:
        x = result.witness
        logits = [sum(w * v for w, v in zip(row, x)) + b for row, b in zip(rows, biases)]
        return (max(map(abs, x)) <= box
                and all(logits[j] < logits[i] for j in range(len(rows)) if j != i))
    lam = dict(result.terms)
    combined = [sum(lam[j] * (rows[j][q] - rows[i][q]) for j in lam) for q in range(len(rows[0]))]
    return (i not in lam and all(v >= 0 for v in lam.values()) and sum(lam.values()) == 1
            and sum(lam[j] * (biases[j] - biases[i]) for j in lam)
            >= box * sum(map(abs, combined)))


def _small_integer_layers(seed, count):
    rng = random.Random(seed)
    for _ in range(count):
        classes, dim = rng.randint(1, 7), rng.randint(1, 3)
        weights = [[rng.randint(-3, 3) for _ in range(dim)] for _ in range(classes)]
        yield weights, [rng.randint(-12, 12) for _ in range(classes)]


class TestBox(unittest.TestCase):
    """Issue 9: the detector's box, |x_k| <= R."""

    # Class 1 wins only for x > 2: in the box [-2, 2] it can only tie.
    LINE = ([[0], [1]], [0, -2])

    def test_pinned_boxed_certificates(self):
        self.assertEqual(check_layer(*self.LINE, box=3), [
            ClassResult(0, True, (F(0),), None, None, F(3)),
            ClassResult(1, True, (F(3),), None, None, F(3)),
        ])
        self.assertEqual(check_layer(*self.LINE, box=1)[1],
                         ClassResult(1, False, None, ((0, F(1)),), 2, F(1)))

    def test_a_tie_at_the_edge_of_the_box_is_not_argmaxable(self):
        result = check_layer(*self.LINE, box=2)[1]
        self.assertFalse(result.argmaxable)
        # Equality: sum lam (b_j - b_i) = 2 = R * |w_0 - w_1|_1.
        self.assertEqual(result.terms, ((0, F(1)),))
        self.assertIs(verify(*self.LINE, result, box=2), True)
        self.assertIs(verify(*self.LINE, result, box=F(201, 100)), False)

    def test_boxed_certificates_hold_by_their_definition_where_the_box_changes_verdicts(self):
        cases = [(*_gaussian_layer(13, 40, 2), 100)]
        cases += [(w, b, 1) for w, b in _small_integer_layers(21, 60)]
        changed = 0
        for weights, bias, box in cases:
            plain, boxed = check_layer(weights, bias), check_layer(weights, bias, box=box)
            changed += sum(p.argmaxable != q.argmaxable for p, q in zip(plain, boxed))
            for result in boxed:
                with self.subTest(weights=weights, bias=bias, index=result.index):
                    self.assertEqual(result.box, box)
                    self.assertTrue(_boxed_certificate_holds(weights, bias, result, box))
                    self.assertIs(verify(weights, bias, result, box=box), True)
        self.assertGreaterEqual(changed, 10)

    def test_the_seeded_gaussian_layer_has_a_class_only_outside_the_box(self):
        weights, bias = _gaussian_layer(13, 40, 2)
        plain, boxed = check_layer(weights, bias)[1], check_layer(weights, bias, box=100)[1]
        self.assertTrue(plain.argmaxable)
        self.assertGreater(max(map(abs, plain.witness)), 100)
        self.assertFalse(boxed.argmaxable)
        # The boxed combination proves nothing about R^d.
        self.assertIs(verify(weights, bias, boxed), False)

    def test_a_boxed_witness_never_leaves_the_box(self):
        for box in (F(1, 3), 1, 0.1, Decimal("2.5")):
            for weights, bias in _small_integer_layers(22, 30):
                for result in check_layer(weights, bias, box=box):
                    if result.argmaxable:
                        with self.subTest(weights=weights, bias=bias, box=box):
                            self.assertLessEqual(max(map(abs, result.witness)), F(box))

    def test_the_box_never_makes_a_class_argmaxable(self):
        for weights, bias in _small_integer_layers(23, 120):
            plain, boxed = check_layer(weights, bias), check_layer(weights, bias, box=F(1, 2))
            for p, q in zip(plain, boxed):
                with self.subTest(weights=weights, bias=bias, index=p.index):
                    self.assertTrue(p.argmaxable or not q.argmaxable)

    def test_a_large_enough_box_agrees_with_all_of_r_d(self):
        # Integer entries at most 12 in d <= 3: a witness, if any, has one
        # within (|row| + 2) ** (d + 1) < 10 ** 6 (reviews.argmax.feasibility).
        for weights, bias in _small_integer_layers(24, 120):
            plain = check_layer(weights, bias)
            boxed = check_layer(weights, bias, box=10 ** 6)
            with self.subTest(weights=weights, bias=bias):
                self.assertEqual([r.argmaxable for r in boxed], [r.argmaxable for r in plain])

    def test_without_bias_the_box_changes_no_verdict_and_witnesses_shrink_into_it(self):
        results = check_layer(FIGURE_1, box=F(1, 10))
        self.assertEqual([r.argmaxable for r in results], [True, True, True, False])
        self.assertEqual(results[0].witness, (F(-1, 10), F(-1, 10)))
        self.assertEqual(results[3].terms, check_layer(FIGURE_1)[3].terms)
        self.assertTrue(all(verify(FIGURE_1, None, r, box=F(1, 10)) for r in results))

    def test_an_integer_witness_is_boxed_as_its_fractions_are(self):
        # _into_box measures a Witness in integers; at the edge (largest
        # |x_k| = R) it stays, past it it is scaled, as in Fractions.
        witness = Witness((-6, 3, 0), 4)
        for box in (F(1, 2), F(3, 2), F(2)):
            fractions = ClassResult(0, True, tuple(witness), None)
            integers = ClassResult(0, True, witness, None)
            with self.subTest(box=box):
                expected = argmaxable._into_box(fractions, box)
                boxed = argmaxable._into_box(integers, box)
                self.assertEqual(boxed, expected)
                self.assertEqual(repr(boxed), repr(expected))
                self.assertEqual(max(map(abs, expected.witness)), min(box, F(3, 2)))

    def test_a_winning_own_weight_outside_the_box_is_no_witness(self):
        # x = w_1 = 10 makes class 1 win, but in [-1/4, 1/4] it never does.
        weights, bias = [[0], [10]], [0, -5]
        self.assertTrue(check_layer(weights, bias)[1].argmaxable)
        result = check_layer(weights, bias, box=F(1, 4))[1]
        self.assertFalse(result.argmaxable)
        self.assertIs(verify(weights, bias, result, box=F(1, 4)), True)

    def test_few_classes_in_a_high_dimension_keep_witnesses_in_the_box(self):
        rng = random.Random(25)
        a = [F(rng.randint(-9, 9)) for _ in range(60)]
        b = [F(rng.randint(-9, 9)) for _ in range(60)]
        weights, bias = [a, b, [(p + q) / 2 for p, q in zip(a, b)]], [0, 0, 1]
        # Class 0 beats the midpoint by (a - b) . x / 2 - 1, at most R |a - b|_1 / 2 - 1.
        reach = sum(abs(p - q) for p, q in zip(a, b)) / 2
        for box in (F(1, 1000), 1 / reach, 2 / reach, 100):
            results = check_layer(weights, bias, box=box)
            with self.subTest(box=box):
                self.assertEqual([r.argmaxable for r in results], [box * reach > 1] * 2 + [True])
                self.assertTrue(all(verify(weights, bias, r, box=box) for r in results))

    def test_an_unboxed_combination_proves_every_box(self):
        result = check_layer(FIGURE_1, [0, 0, 0, -1])[3]
        for box in (F(1, 1000), 1, 10 ** 9):
            self.assertIs(verify(FIGURE_1, [0, 0, 0, -1], result, box=box), True)

    def test_verify_rejects_a_witness_outside_the_box(self):
        witness = ClassResult(1, True, (F(3),))
        self.assertIs(verify(*self.LINE, witness), True)
        self.assertIs(verify(*self.LINE, witness, box=3), True)
        self.assertIs(verify(*self.LINE, witness, box=F(299, 100)), False)

    def test_box_values_are_taken_exactly(self):
        # 0.1 as a float is a little above 1/10: x = 0.1 exactly is inside.
        for box in (1, F(1, 3), Decimal("0.5"), 0.1, 10 ** 30):
            with self.subTest(box=box):
                results = check_layer(*self.LINE, box=box)
                self.assertEqual(results[0].box, F(box))
                self.assertEqual(results[1].argmaxable, F(box) > 2)

    def test_malformed_boxes_are_rejected(self):
        cases = [
            (0, InputError, "box is 0; the box's bound R must be positive"),
            (-1.5, InputError, "box is negative; the box's bound R must be positive"),
            (-F(10) ** 19000, InputError, "^box is negative; the box's bound R must be positive$"),
            (float("nan"), InputError, "box is NaN"),
            (float("inf"), InputError, "box is inf; the box's bound R must be finite"),
            (Decimal("1e999999999"), InputError, "box is Decimal.*past the size limit"),
            ("100", TypeError, "box must be a positive number .* not str"),
            (True, TypeError, "box must be a positive number .* not bool"),
            ([100], TypeError, "not list"),
        ]
        for box, error, message in cases:
            with self.subTest(box=box):
                with self.assertRaisesRegex(error, message):
                    check_layer(*self.LINE, box=box)
                with self.assertRaisesRegex(error, message):
                    verify(*self.LINE, ClassResult(0, True, (F(0),)), box=box)


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
