"""Tests of the prepared layer: integers, row candidates, and decisions on a few coordinates (the span)."""

import math
import random
import unittest
from fractions import Fraction as F
from unittest import mock

from reviews.argmax.strategy import decide as deciding
from reviews.argmax.kernels.arithmetic import EXACT
from reviews.argmax.check import check_layer
from reviews.argmax.strategy.feasibility import Program
from reviews.argmax.kernels.layer_input import integer_layer
from reviews.argmax.strategy.span import SpanCoordinates
from reviews.argmax.certified import verify_all
from reviews.argmax.verify import verify
from tests.support.layers import decisions


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
    """A few classes in a high dimension, on a few of its coordinates."""

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
        self.assertTrue(all(verify_all([row, row, row], [0, 2, 1], results)))

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
                mock.patch("reviews.argmax.strategy.programs._FLOAT_ROUNDS", 0):
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
        with mock.patch("reviews.argmax.strategy.span._PRIME", 3), \
                mock.patch.object(deciding, "_REFLECTIONS", 0), \
                mock.patch.object(deciding.SharedDirection, "point", lambda shared, i: None), \
                mock.patch.object(deciding.PreparedLayer, "centre", lambda layer: [0.0] * 6), \
                mock.patch.object(deciding.PreparedLayer, "combination_holds", recording):
            results = check_layer(weights)
        # Then exact coordinates, which keep the rank, decide it.
        self.assertEqual(checked, [(2, False)])
        self.assertEqual([r.argmaxable for r in results], [True, True, True])
        self.assertTrue(all(verify_all(weights, None, results)))

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
                self.assertTrue(all(verify_all(weights, bias, results)))
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
                self.assertTrue(all(verify_all(weights, bias, check_layer(weights, bias))))
