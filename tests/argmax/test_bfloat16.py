"""Tests of reviews.argmax.kernels.bfloat16: bfloat16 rows kept as their patterns."""

import math
import os
import pickle
import random
import struct
import tempfile
import unittest
from array import array
from unittest import mock

from reviews.argmax.check import check_layer
from reviews.argmax.certified import verify_all
from reviews.argmax.kernels import layer_input
from reviews.argmax.kernels.bfloat16 import BFloat16Rows, rounded_codes, widened
from reviews.argmax.kernels.layer_input import FloatRows, integer_layer
from reviews.argmax.reductions.masked import Masks
from reviews.errors import InputError
from reviews.formats.binary import Widened
from reviews.formats.layers import read_layer
from tests.support.arrays import safetensors_bytes


def _value(code):
    return struct.unpack("<f", struct.pack("<I", code << 16))[0]


def _codes(patterns):
    return b"".join(p.to_bytes(2, "little") for p in patterns)


def _finite_patterns():
    return [p for p in range(1 << 16) if p & 0x7F80 != 0x7F80]


def _random_head(classes, dim, seed):
    """Patterns of a head of N(0, 0.02)-like values (bfloat16 of Gaussians), a few zeros."""
    rng = random.Random(seed)
    patterns = []
    for _ in range(classes * dim):
        v = rng.gauss(0, 0.02) if rng.random() > 0.01 else 0.0
        patterns.append(struct.unpack("<I", struct.pack("<f", v))[0] >> 16)
    return patterns


class TestRoundedCodes(unittest.TestCase):

    def test_every_pattern_within_the_range_is_rounded_within_one_unit(self):
        patterns = _finite_patterns()
        for exponent in (-30, -7, 0, 5, 100):
            factor = 2.0 ** exponent
            kept = [p for p in patterns if abs(_value(p)) * factor <= 127]
            rounded = rounded_codes(_codes(kept), factor, 128)
            self.assertEqual(len(rounded), len(kept))
            worst = max(abs(_value(p) * factor - (b - 128)) for p, b in zip(kept, rounded))
            self.assertLessEqual(worst, 1)
            self.assertEqual(min(rounded), 1)
            self.assertEqual(max(rounded), 255)

    def test_values_of_a_run_share_their_byte_and_signs_mirror_it(self):
        # 64.0 .. 65.5 times 1 are one run: 65 is within 1 of each.
        run = [0x4280, 0x4281, 0x4282, 0x4283]
        self.assertEqual(rounded_codes(_codes(run + [p | 0x8000 for p in run]), 1.0, 128),
                         bytes([128 + 65] * 4 + [128 - 65] * 4))

    def test_values_below_one_unit_are_zero_of_either_sign(self):
        self.assertEqual(rounded_codes(_codes([0x3F7F, 0xBF7F, 0x0000, 0x8000, 0x0001]), 1.0, 128),
                         bytes([128] * 5))

    def test_a_unit_whose_pattern_is_not_normal_is_refused(self):
        self.assertIsNone(rounded_codes(_codes([0x0001]), 2.0 ** 140, 128))
        self.assertIsNone(rounded_codes(_codes([0x7F00]), 2.0 ** -125, 128))

    def test_pieces_join_into_the_whole(self):
        patterns = _random_head(3, 1000, 1)
        with mock.patch("reviews.argmax.kernels.bfloat16._PIECE", 7):
            pieces = rounded_codes(_codes(patterns), 2.0 ** 12, 128)
        self.assertEqual(pieces, rounded_codes(_codes(patterns), 2.0 ** 12, 128))


class TestBFloat16Rows(unittest.TestCase):

    def test_rows_are_the_widened_patterns_exactly(self):
        patterns = _random_head(4, 6, 2)
        rows = BFloat16Rows(_codes(patterns), 6)
        self.assertEqual(len(rows), 4)
        self.assertEqual([list(row) for row in rows],
                         [[_value(p) for p in patterns[6 * j:6 * j + 6]] for j in range(4)])
        self.assertEqual(rows[-1].tolist(), rows[3].tolist())
        self.assertEqual(array("f", widened(_codes([0x3F80]))).tolist(), [1.0])
        with self.assertRaises(IndexError):
            rows[4]

    def test_selected_rows_share_the_patterns(self):
        rows = BFloat16Rows(_codes(_random_head(5, 3, 3)), 3)
        chosen = rows.select([4, 0]).select([1])
        self.assertIs(chosen.codes, rows.codes)
        self.assertEqual((len(chosen), chosen[0].tolist()), (1, rows[0].tolist()))
        self.assertEqual(chosen.block_codes(0, 1), rows.row_codes(0))
        self.assertEqual(rows.select([-1]).order, [4])
        with self.assertRaises(IndexError):
            rows.select([0, 5])

    def test_extremes_are_the_least_nonzero_and_largest_magnitudes(self):
        rng = random.Random(4)
        pools = [_finite_patterns(), [0, 0x8000, 1, 0x8001, 0x0100, 0x3F80, 0x7F7F, 0xFF7F],
                 list(range(0x3A00, 0x3C00)), [0x3B00, 0x3B01, 0xBB02]]
        for pool in pools:
            for count, width, block in ((1, 1, 1), (7, 7, 1), (3000, 3000, 1), (3000, 10, 1),
                                        (3000, 100, 7), (60, 2, 3)):
                patterns = [rng.choice(pool) for _ in range(count)]
                magnitudes = [abs(_value(p)) for p in patterns if p & 0x7FFF]
                want = (min(magnitudes), max(magnitudes)) if magnitudes else (0, 0)
                with mock.patch("reviews.argmax.kernels.bfloat16._BLOCK_ROWS", block):
                    self.assertEqual(BFloat16Rows(_codes(patterns), width).extremes(), want)

    def test_extremes_of_later_blocks_beat_the_first_only_where_they_are_beyond(self):
        # Rows (blocks of one): zeros alone, a subnormal, then larger and smaller values.
        rows = [[0x0000, 0x8000], [0x0003, 0x0000], [0x3F80, 0x0000], [0x3F81, 0x3F80],
                [0x0002, 0x0000], [0xBF81, 0x0000], [0x4000, 0x0001], [0x0000, 0x0000]]
        with mock.patch("reviews.argmax.kernels.bfloat16._BLOCK_ROWS", 1):
            for end in range(1, 9):
                patterns = [p for row in rows[:end] for p in row]
                magnitudes = [abs(_value(p)) for p in patterns if p & 0x7FFF]
                want = (min(magnitudes), max(magnitudes)) if magnitudes else (0, 0)
                self.assertEqual(BFloat16Rows(_codes(patterns), 2).extremes(), want)

    def test_an_infinity_or_a_nan_is_named_by_its_place(self):
        for bad, shown in ((0x7F80, "inf"), (0xFF80, "-inf"), (0x7FC1, "nan")):
            with self.assertRaises(InputError) as caught:
                BFloat16Rows(_codes([0x3F80, 0x7F7F, 0x0000, bad]), 2).checked()
            self.assertEqual(str(caught.exception),
                             "weights[1][1] is %s, not a finite number" % shown)
        rows = BFloat16Rows(_codes([0x7F7F, 0xFF7F]), 1)
        self.assertIs(rows.checked(), rows)
        self.assertTrue(rows.select([1]).finite)

    def test_equal_rows_share_a_key_zeros_of_either_sign_too(self):
        rows = BFloat16Rows(_codes([0x3F80, 0x4000, 0x3F80, 0x4000, 0x3F80, 0x0000,
                                    0x3F80, 0x8000, 0x3F80, 0x4001]), 2)
        keys = list(rows.row_keys())
        self.assertEqual((keys[0] == keys[1], keys[2] == keys[3], keys[0] == keys[4]),
                         (True, True, False))

    def test_low_mantissa_bits_are_seen(self):
        self.assertFalse(BFloat16Rows(_codes([0x3F80, 0xC000, 0x0000]), 3).uses_low_bits())
        self.assertTrue(BFloat16Rows(_codes([0x3F80, 0xC001]), 2).uses_low_bits())

    def test_rows_pickle_as_they_are(self):
        rows = BFloat16Rows(_codes([0x3F80, 0x4000, 0x0000, 0x8000]), 2).select([1]).checked()
        copy = pickle.loads(pickle.dumps(rows))
        self.assertEqual((copy.codes, copy.order, copy.finite, copy[0].tolist()),
                         (rows.codes, [1], True, [0.0, -0.0]))

    def test_patterns_must_be_bytes_of_whole_rows(self):
        with self.assertRaises(TypeError):
            BFloat16Rows(bytearray(4), 2)
        with self.assertRaises(ValueError):
            BFloat16Rows(bytes(6), 2)
        with self.assertRaises(TypeError):
            BFloat16Rows(bytes(4), "2")


class TestLayersOfBFloat16Rows(unittest.TestCase):

    def test_the_integers_and_the_rounded_rows_are_those_of_the_float32_rows(self):
        patterns = _random_head(40, 8, 5)
        rows = BFloat16Rows(_codes(patterns), 8)
        floats = [rows[j] for j in range(40)]
        bias = [0.25 * j for j in range(40)]
        with mock.patch.object(layer_input, "FLOAT_ROWS_ENTRIES", 0):
            kept, biases, common = integer_layer(rows, bias)
            widened_rows, widened_biases, widened_common = integer_layer(floats, bias)
        self.assertIsInstance(kept, FloatRows)
        self.assertIs(kept.floats, rows)
        self.assertIsNone(kept.digests)
        self.assertEqual((list(kept), biases, common),
                         (list(widened_rows), widened_biases, widened_common))
        self.assertEqual(kept.extremes(), widened_rows.extremes())
        self.assertEqual(kept.rounded_rows(3, 17, 20, 128),
                         widened_rows.rounded_rows(3, 17, 20, 128))
        self.assertEqual(list(kept.select([5, 2])), [list(kept)[5], list(kept)[2]])

    def test_a_layer_of_bfloat16_rows_has_the_verdicts_of_its_float32_rows(self):
        patterns = _random_head(60, 40, 6)
        # Class 4 is class 3 negated and class 7 zeros, their mean: never the strict maximum.
        patterns[160:200] = [p ^ 0x8000 for p in patterns[120:160]]
        patterns[280:320] = [0] * 40
        rows = BFloat16Rows(_codes(patterns), 40)
        floats = [rows[j] for j in range(60)]
        with mock.patch.object(layer_input, "FLOAT_ROWS_ENTRIES", 0):
            kept = check_layer(rows, None)
            widened_rows = check_layer(floats, None)
        self.assertEqual(kept, widened_rows)
        self.assertIn(7, [r.index for r in kept if not r.argmaxable])
        self.assertTrue(verify_all(floats, None, kept))

    def test_masked_classes_leave_the_others_as_patterns_with_their_verdicts(self):
        patterns = _random_head(12, 40, 9)
        patterns[80:120] = [p ^ 0x8000 for p in patterns[40:80]]
        patterns[120:160] = [0] * 40
        rows = BFloat16Rows(_codes(patterns), 40)
        bias = [0.0] * 12
        bias[5] = bias[9] = -math.inf
        kept = Masks(rows, bias)
        self.assertIsInstance(kept.select(rows), BFloat16Rows)
        self.assertEqual(len(kept.select(rows)), 10)
        floats = [rows[j] for j in range(12)]
        results = check_layer(rows, bias)
        self.assertEqual(results, check_layer(floats, bias))
        self.assertEqual([r.index for r in results if not r.argmaxable], [3, 5, 9])

    def test_big_endian_patterns_are_kept_little_endian(self):
        stored = Widened(bytes.fromhex("3f80 c000"), "bf16", True)
        self.assertEqual(stored.little_endian(), bytes.fromhex("803f 00c0"))
        self.assertEqual(stored[0:2].tolist(), [1.0, -2.0])
        self.assertEqual(Widened(bytes.fromhex("803f"), "bf16", False).little_endian(),
                         bytes.fromhex("803f"))

    def test_a_safetensors_bfloat16_head_is_read_as_its_patterns(self):
        patterns = _random_head(3, 4, 7)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "head.safetensors")
            with open(path, "wb") as handle:
                handle.write(safetensors_bytes([("lm_head.weight", "BF16", (3, 4),
                                                 _codes(patterns))]))
            weights, bias = read_layer(path)
            self.assertIsInstance(weights, BFloat16Rows)
            self.assertEqual([row.tolist() for row in weights],
                             [[_value(p) for p in patterns[4 * j:4 * j + 4]] for j in range(3)])
            with open(path, "wb") as handle:
                handle.write(safetensors_bytes([("lm_head.weight", "BF16", (3, 4),
                                                 _codes(patterns[:9] + [0xFF80] + patterns[10:]))]))
            with self.assertRaises(InputError) as caught:
                read_layer(path)
            self.assertEqual(str(caught.exception),
                             "%s: weights[2][1] is -inf, not a finite number" % path)


if __name__ == "__main__":
    unittest.main()
