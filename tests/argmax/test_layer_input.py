"""Tests of reviews.argmax.kernels.layer_input: large float layers kept as floats, read as integers."""

import math
import random
import struct
import unittest
from array import array
from fractions import Fraction as F
from unittest import mock

from reviews.argmax.kernels import layer_input
from reviews.argmax.reductions import twins
from reviews.argmax.check import check_layer
from reviews.argmax.certified import verify_all
from reviews.argmax.kernels.layer_input import FloatRows, check_spread, extremes, integer_layer, validated
from reviews.argmax.reductions.twins import Twins
from reviews.argmax.question import Question
from reviews.errors import InputError


def _float_layer(classes, dim, seed):
    rng = random.Random(seed)
    weights = [[rng.gauss(0, 1) for _ in range(dim)] for _ in range(classes)]
    return weights, [rng.gauss(0, 1) for _ in range(classes)]


def _kept_from(entries):
    return mock.patch.object(layer_input, "FLOAT_ROWS_ENTRIES", entries)


class TestFloatRows(unittest.TestCase):

    def test_a_large_float_layer_keeps_its_floats_and_reads_the_same_integers(self):
        weights, bias = _float_layer(30, 5, 1)
        rows, biases, common = integer_layer(weights, bias)
        with _kept_from(150):
            kept, kept_biases, kept_common = integer_layer(weights, bias)
        self.assertIsInstance(kept, FloatRows)
        self.assertIs(kept.floats[3], weights[3])
        self.assertEqual((list(kept), kept_biases, kept_common), (rows, biases, common))
        self.assertEqual(kept[-1], rows[-1])
        self.assertEqual(kept[2:5], rows[2:5])

    def test_a_layer_below_the_size_is_lists_of_integers(self):
        weights, bias = _float_layer(30, 5, 1)
        with _kept_from(151):
            rows, _, _ = integer_layer(weights, bias)
        self.assertIs(type(rows), list)

    def test_exact_entries_or_floats_past_the_range_once_scaled_are_integers(self):
        # A Fraction, or floats whose scaled values overflow: lists of integers.
        with _kept_from(0):
            exact, _, _ = integer_layer([[0.5, F(1, 3)], [1.0, 2.0]], None)
            wide, _, common = integer_layer([[1e300, 2.0 ** -100], [1.0, 0.0]], None)
        self.assertEqual(exact, [[3, 2], [6, 12]])
        self.assertIs(type(wide), list)
        self.assertEqual(wide[0], [int(F(1e300) * common), 1 * common >> 100])

    def test_arrays_of_floats_are_taken_without_a_copy(self):
        rows = [array("d", [0.5, -1.0]), array("f", [2.0, 0.25])]
        values, _ = validated(rows, None)
        self.assertIs(values[0], rows[0])
        self.assertIs(values[1], rows[1])
        with _kept_from(0):
            kept, _, common = integer_layer(rows, None)
        self.assertEqual((list(kept), common), ([[2, -4], [8, 1]], 4))

    def test_arrays_holding_an_infinity_are_refused_by_entry(self):
        with self.assertRaisesRegex(InputError, r"weights\[1\]\[0\] is inf"):
            validated([array("d", [1.0]), array("d", [float("inf")])], None)

    def test_a_bias_column_and_a_selection_read_as_lists_do(self):
        rows = FloatRows([[0.5, 1.0], [2.0, -0.25], [1.0, 1.0]], 4.0)
        self.assertEqual(list(rows.with_column([7, 8, 9])), [[2, 4, 7], [8, -1, 8], [4, 4, 9]])
        self.assertEqual(list(rows.with_column([7, 8, 9]).select([2, 0])), [[4, 4, 9], [2, 4, 7]])

    def test_a_part_of_a_row_is_those_coordinates_of_the_row(self):
        generator = random.Random(35)
        rows = FloatRows([array("f", [generator.gauss(0, 1) for _ in range(9)])
                          for _ in range(4)], 2.0 ** 30).with_column([5, -6, 7, -8])
        for j in range(4):
            for coordinates in ([], [9], [3, 0, 9, 8], list(range(10))):
                with self.subTest(j=j, coordinates=coordinates):
                    self.assertEqual(rows.part(j, coordinates), [rows[j][k] for k in coordinates])
        rows.floats[2][1] += 1.0
        for read in (lambda: rows.part(2, [0]), lambda: list(rows.row_keys()), rows.extremes):
            with self.assertRaisesRegex(InputError, "a weights row changed"):
                read()

    def test_check_layer_decides_the_same_from_floats_as_from_integers(self):
        weights, bias = _float_layer(60, 4, 2)
        # Twins too: classes 1 and 2 share a row, so the layer's rows are selected.
        weights[2] = list(weights[1])
        for keywords in ({}, {"box": 2}, {"tolerance": F(1, 10 ** 8)}):
            with self.subTest(**keywords):
                expected = check_layer(weights, bias, **keywords)
                with _kept_from(0):
                    results = check_layer(weights, bias, **keywords)
                self.assertEqual(repr(results), repr(expected))
                self.assertTrue(all(verify_all(weights, bias, results[:5], **keywords)))

    def test_the_screen_of_many_dimensions_reads_the_same_from_floats(self):
        # From d = 64 blocks are screened on a few coordinates (FloatRows.part).
        weights = [array("f", row) for row in _float_layer(600, 64, 3)[0]]
        expected = check_layer([list(row) for row in weights], None, classes=range(0, 600, 7))
        with _kept_from(0):
            results = check_layer(weights, None, classes=range(0, 600, 7))
        # A large float32 layer's denominator is a power of 2 from its
        # bytes, not always the least: witnesses may differ, not verdicts.
        self.assertEqual([(r.index, r.argmaxable, r.terms) for r in results],
                         [(r.index, r.argmaxable, r.terms) for r in expected])
        self.assertTrue(all(verify_all(weights, None, results)))

    def test_a_row_changed_during_the_check_is_refused(self):
        # The rows are the caller's: one changed by a progress callback
        # would mix two layers in the certificates.
        weights, _ = _float_layer(60, 6, 5)

        def progress(done, total):
            if done == 1:
                weights[7][0] += 1.0

        with _kept_from(0), self.assertRaisesRegex(InputError, "a weights row changed"):
            check_layer(weights, None, progress)

    def test_a_float32_row_changed_during_the_check_is_refused_too(self):
        # The readers' rows: float32 arrays, hashed as they are stored.
        weights = [array("f", row) for row in _float_layer(60, 6, 5)[0]]

        def progress(done, total):
            if done == 1:
                weights[7][0] += 1.0

        with _kept_from(0), self.assertRaisesRegex(InputError, "a weights row changed"):
            check_layer(weights, None, progress)
        self.assertNotEqual(layer_input._digest(array("f", [1.0, 2.0])),
                            layer_input._digest(array("d", [1.0, 2.0])))
        self.assertEqual(layer_input._digest([1.0, 2.0]), layer_input._digest(array("d", [1.0, 2.0])))

    def test_the_tolerance_pass_reads_the_layer_as_the_check_did(self):
        weights, bias = _float_layer(60, 6, 5)
        original = [list(row) for row in weights]

        def progress(done, total):
            if done == 1:
                for row in weights:
                    row[:] = [0.25 - 3 * v for v in row]

        results = check_layer(weights, bias, progress, tolerance=F(1, 10 ** 8))
        self.assertEqual(repr(results), repr(check_layer(original, bias, tolerance=F(1, 10 ** 8))))

    def test_check_spread_reads_float_rows(self):
        weights, bias = _float_layer(10, 3, 3)
        with _kept_from(0):
            rows, biases, common = integer_layer(weights, bias)
        self.assertIsNone(check_spread(rows, biases, common, Question(F(100), F(1, 10 ** 8))))


class TestDenominators(unittest.TestCase):

    def test_distinct_floats_give_every_entry_s_denominator(self):
        generator = random.Random(36)
        for code in ("f", "d"):
            rows = [array(code, [generator.choice((0.5, 3.0, 2.0 ** -40, 0.1, -0.75))
                                 for _ in range(6)]) for _ in range(30)]
            with self.subTest(code=code):
                self.assertIsNotNone(layer_input._distinct_floats(rows))
                expected = {v.as_integer_ratio()[1] for row in rows for v in row} | {1024}
                self.assertEqual(layer_input._denominators(rows, [F(1, 1024)]), expected)
                self.assertEqual(integer_layer(rows, None), integer_layer(
                    [list(row) for row in rows], None))

    def test_lists_ints_and_many_distinct_values_are_read_entry_by_entry(self):
        floats = [array("d", [1.0 / n, 0.25]) for n in (1, 2, 4, 8)]
        self.assertIsNone(layer_input._distinct_floats([[0.5, 0.25]]))
        self.assertIsNone(layer_input._distinct_floats([array("i", [1, 2])]))
        with mock.patch.object(layer_input, "_FEW_DISTINCT", 3):
            self.assertIsNone(layer_input._distinct_floats(floats))
            self.assertEqual(layer_input._denominators(floats, None), {1, 2, 4, 8})
        self.assertEqual(layer_input._distinct_floats(floats), {1.0, 0.5, 0.25, 0.125})


class TestExtremes(unittest.TestCase):

    def test_rows_are_read_once(self):
        self.assertEqual(extremes(iter([[0, -12], [3, 5], [0, 0]])), (3, 12))
        self.assertEqual(extremes(iter([[0], [0]])), (0, 0))

    def test_float_rows_give_the_extremes_of_their_integers(self):
        generator = random.Random(34)
        floats = [array("f", [generator.choice((0.0, generator.gauss(0, 1) * 2.0 ** generator
                                                 .randrange(-20, 20))) for _ in range(7)])
                  for _ in range(40)] + [array("f", [0.0] * 7)]
        with _kept_from(1):
            rows, _, _ = integer_layer(floats, None)
        self.assertIsInstance(rows, FloatRows)
        integers = [list(row) for row in rows]
        self.assertEqual(rows.extremes(), extremes(iter(integers)))
        for column in ([0] * 41, [-(3 ** 60)] + [0] * 40, list(range(41))):
            with self.subTest(column=column[:2]):
                self.assertEqual(extremes(rows.with_column(column)),
                                 extremes(iter(row + [b] for row, b in zip(integers, column))))
        self.assertEqual(extremes(FloatRows([[0.0, -0.0]], 8.0)), (0, 0))

    def test_a_tolerance_above_every_magnitude_counts_beside_them(self):
        # 1e1000 beside weights of about 1: a span past the float range.
        with self.assertRaisesRegex(InputError, "with the tolerance"):
            check_spread([[1, 2]] * 300, [3] * 300, 1, Question(tolerance=F(10 ** 1000)))
        self.assertIsNone(check_spread([[1, 2]] * 300, [3] * 300, 1,
                                       Question(tolerance=F(10 ** 100))))


class TestFloat32Bytes(unittest.TestCase):
    """A large layer of float32 arrays is read off its bytes."""

    @staticmethod
    def rows(seed, count=40):
        rng = random.Random(seed)
        specials = [0.0, -0.0, 1e-45, 3e-40, 2.0 ** -126, 1.0, -1.5, 3.4e38]
        draws = [lambda: rng.gauss(0, 0.02), lambda: rng.choice(specials),
                 lambda: rng.uniform(1, 2), lambda: struct.unpack(
                     "<f", struct.pack("<I", rng.getrandbits(32) & 0x7F7FFFFF))[0]]
        return [array("f", [rng.choice([1, -1]) * rng.choice(draws)()
                            for _ in range(rng.randint(1, 300))]) for _ in range(count)]

    def test_the_extremes_of_each_row_are_those_of_its_magnitudes(self):
        for seed in range(20):
            for row in self.rows(seed):
                magnitudes = [abs(v) for v in row if v]
                self.assertEqual(layer_input._float_row_extremes(row),
                                 (min(magnitudes), max(magnitudes)) if magnitudes else (0, 0))

    def test_the_denominator_makes_every_entry_an_integer(self):
        for seed in range(20):
            rows = self.rows(seed, 4)
            smallest = layer_input._joined_all(map(layer_input._float_row_extremes, rows))[0]
            common, = layer_input._large_float32_denominators(rows, None, smallest)
            self.assertTrue(all((F(v) * common).denominator == 1 for row in rows for v in row))

    def test_the_denominator_of_bfloat16_values_is_at_most_8_bits_past_the_least(self):
        rng = random.Random(2)
        rows = [array("f", [struct.unpack("<f", struct.pack("<I", rng.getrandbits(16) << 16
                                                             & 0x3F7F0000))[0]
                            for _ in range(100)]) for _ in range(10)]
        least = max(F(v).denominator for row in rows for v in row)
        smallest = layer_input._joined_all(map(layer_input._float_row_extremes, rows))[0]
        common, = layer_input._large_float32_denominators(rows, None, smallest)
        self.assertEqual(common % least, 0)
        self.assertLessEqual(common // least, 2 ** 8)

    def test_only_float32_layers_past_the_size_are_read_so(self):
        rows = self.rows(1, 4)
        self.assertIsNone(layer_input._large_float32_extremes(rows))
        with _kept_from(0):
            self.assertIsNotNone(layer_input._large_float32_extremes(rows))
            self.assertIsNone(layer_input._large_float32_extremes(rows + [[0.5]]))

    def test_rounded_rows_are_within_a_unit_by_patterns_or_entry_by_entry(self):
        bfloat16 = [array("f", [struct.unpack("<f", struct.pack("<I", code << 16))[0]
                                for code in (0x3C00, 0xBC80, 0x3F12, 0x0000, 0xBFFF)])] * 2
        float32 = [array("f", [0.1, -0.3, 0.7, 0.0])] * 2
        for floats in (bfloat16, float32):
            rows = FloatRows(floats, 2.0 ** 40)
            got = rows.rounded_rows(0, 2, 34, 128)
            self.assertEqual(len(got), 2 * len(floats[0]))
            for v, b in zip(rows[0] + rows[1], got):
                self.assertLessEqual(abs(F(v, 2 ** 34) - (b - 128)), 1)

    def test_equal_arrays_share_a_key_and_zeros_of_either_sign_too(self):
        keys = list(FloatRows([array("f", [0.5, 2.0]), array("f", [0.5, 2.0]),
                               array("f", [0.5, -0.0]), array("f", [0.5, 0.0]),
                               array("d", [0.5, 2.0])], 4.0).row_keys())
        self.assertEqual((keys[0] == keys[1], keys[2] == keys[3], keys[0] == keys[4]),
                         (True, True, False))

    def test_an_array_with_an_infinity_is_not_finite(self):
        self.assertTrue(layer_input._all_finite(array("f", [3.4e38, -3.4e38])))
        for bad in (math.inf, -math.inf, math.nan):
            self.assertFalse(layer_input._all_finite(array("f", [1.0, bad])))
            self.assertFalse(layer_input._all_finite(array("d", [1.0, bad])))


class TestEqualRows(unittest.TestCase):

    def test_rows_whose_hashes_collide_are_told_apart_exactly(self):
        with mock.patch.object(twins, "hash", lambda row: 0, create=True):
            groups = twins._equal_rows([[1, 2], [3, 4], [1, 2], [5, 6], [3, 4]])
        self.assertEqual(sorted(groups), [[0, 2], [1, 4], [3]])

    def test_selecting_float_rows_keeps_them_float_rows(self):
        rows = FloatRows([[0.5], [0.5], [1.0]], 2.0)
        found = Twins(rows, [0, 1, 0])
        selected = found.select(rows)
        self.assertIsInstance(selected, FloatRows)
        self.assertEqual(list(selected), [[1], [2]])

    def test_with_no_twins_the_values_are_returned_as_they_are(self):
        rows = [[1], [2]]
        self.assertIs(Twins(rows, None).select(rows), rows)


class TestWhichInput(unittest.TestCase):
    """An InputError says which input it is about, for a caller naming its file."""

    def input_of(self, weights, bias):
        with self.assertRaises(InputError) as caught:
            check_layer(weights, bias)
        return caught.exception.input

    def test_a_bad_bias_entry_and_length_are_the_bias(self):
        self.assertEqual(self.input_of([[0], [1]], [0, float("nan")]), "bias")
        self.assertEqual(self.input_of([[0], [1]], [0]), "bias")

    def test_a_bad_weight_is_the_weights(self):
        self.assertEqual(self.input_of([[0], [1, 2]], None), "weights")

    def test_a_spread_too_wide_is_the_whole_layer(self):
        from decimal import Decimal
        weights = [[Decimal("1e5000"), Decimal("-1e-5000"), k] for k in range(12)]
        self.assertEqual(self.input_of(weights, [0] * 12), "layer")

    def test_the_input_survives_a_pickle_from_a_worker(self):
        import pickle
        error = pickle.loads(pickle.dumps(InputError("bias[0] is nan", input="bias")))
        self.assertEqual((str(error), error.input), ("bias[0] is nan", "bias"))


if __name__ == "__main__":
    unittest.main()
