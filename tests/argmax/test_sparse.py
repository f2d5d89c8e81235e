"""Tests of reviews.argmax.kernels.sparse and reviews.argmax.strategy.supports:
candidates with few nonzero coordinates, checked exactly against every row."""

import random
import unittest
from array import array
from fractions import Fraction as F
from unittest import mock

from reviews.argmax.certified import verify_all
from reviews.argmax.check import check_layer
from reviews.argmax.kernels import sparse
from reviews.argmax.kernels.layer_input import FloatRows, integer_layer
from reviews.argmax.kernels.sparse import MOST_TERMS, SparseColumns, _floor_log2
from reviews.argmax.strategy import decide
from reviews.argmax.strategy.supports import Supports


def _logit(rows, biases, j, support, signs, e):
    p, q = (1 << e, 1) if e >= 0 else (1, 1 << -e)
    value = p * sum(rows[j][k] * s for k, s in zip(support, signs))
    return value + (q * biases[j] if biases is not None else 0)


def _exact_rivals(rows, biases, i, support, signs, e):
    own = _logit(rows, biases, i, support, signs, e)
    return [j for j in range(len(rows)) if j != i
            and _logit(rows, biases, j, support, signs, e) >= own]


def _column_bytes(layer, k):
    """Column k's bytes r + 128, a row each, from the fields kept."""
    column = layer.columns[k]
    evens, odds = column if type(column) is tuple else layer._halves(column)
    return bytes((odds if j & 1 else evens) >> (16 * (j >> 1)) & 0xFF
                 for j in range(layer.class_count))


class TestBeatenBy(unittest.TestCase):

    def test_the_rivals_are_every_row_at_or_above_the_class_exactly(self):
        # Entries and biases spread over many orders of magnitude, repeated
        # rows, every scale: the rounded fields only choose which rows are
        # compared exactly.
        rng = random.Random(5)
        for trial in range(60):
            classes, dim = rng.randint(2, 80), rng.randint(1, 40)
            scale = rng.choice([1, 2.0 ** -10, 2.0 ** 20, 1e-30])
            weights = [[rng.gauss(0, 1) * scale * rng.choice([1, 1, 100]) for _ in range(dim)]
                       for _ in range(classes)]
            weights.append(list(weights[0]))
            bias = (None if trial % 3 == 0 else
                    [rng.gauss(0, 1) * rng.choice([1, 1e-6, 1e6]) for _ in weights])
            rows, biases, _ = integer_layer(weights, bias)
            layer = SparseColumns(rows, biases)
            for _ in range(10):
                i, size = rng.randrange(len(rows)), rng.randint(1, min(dim, MOST_TERMS))
                support = rng.sample(range(dim), size)
                signs = [rng.choice([1, -1]) for _ in support]
                e = rng.randint(-40, 40)
                with self.subTest(trial=trial, i=i, support=support, e=e):
                    self.assertEqual(sorted(layer.beaten_by(i, support, signs, e, len(rows))),
                                     _exact_rivals(rows, biases, i, support, signs, e))

    def test_a_column_is_a_byte_a_row_within_a_unit_or_its_even_and_odd_rows_fields(self):
        rows = [[300, -300], [-1, 77], [127, 0]]
        for wide in (6, 5):
            with mock.patch.object(sparse, "_WIDE_ENTRIES", wide):
                layer = SparseColumns(rows)
            self.assertEqual(layer.shift, 2)
            self.assertEqual([_column_bytes(layer, k) for k in (0, 1)],
                             [bytes([128 + 75, 127, 128 + 31]), bytes([128 - 75, 128 + 19, 128])])
        self.assertEqual(type(layer.columns[0]), int)
        self.assertEqual(layer.columns[0].to_bytes(3, "little"), bytes([128 + 75, 127, 128 + 31]))

    def test_columns_kept_either_way_find_the_same_rivals(self):
        rng = random.Random(8)
        rows = [[rng.randint(-10 ** 6, 10 ** 6) for _ in range(40)] for _ in range(31)]
        biases = [rng.randint(-10 ** 7, 10 ** 7) for _ in rows]
        wide = SparseColumns(rows, biases)
        with mock.patch.object(sparse, "_WIDE_ENTRIES", 0):
            narrow = SparseColumns(rows, biases)
        self.assertEqual((type(wide.columns[0]), type(narrow.columns[0])), (tuple, int))
        for i in range(31):
            support = rng.sample(range(40), 9)
            signs = [rng.choice([1, -1]) for _ in support]
            self.assertEqual(wide.beaten_by(i, support, signs, -3, 31),
                             narrow.beaten_by(i, support, signs, -3, 31))
            self.assertEqual(wide.won(i, support, signs, wide.scales()),
                             narrow.won(i, support, signs, narrow.scales()))

    def test_past_the_first_flagged_rows_the_largest_rounded_logits_come_first(self):
        # 40 rows within the rounding of class 0 that do not reach it, then
        # the 5 that beat it: past the first 32 flagged, the largest first.
        rows = [[1000, 1000]] + [[999, 1000]] * 40 + [[1001, 1000]] * 5
        layer = SparseColumns(rows)
        self.assertEqual(sorted(layer.beaten_by(0, [0, 1], [1, 1], 0, 5)), list(range(41, 46)))

    def test_biases_far_above_the_weights_are_compared_one_by_one(self):
        # At the scale 2**0 the biases 10**6 round past the fields' limit.
        rows, biases = [[1, 0], [0, 1], [2, 2]], [10 ** 6, 0, 0]
        layer = SparseColumns(rows, biases)
        self.assertEqual(layer.beaten_by(2, [0, 1], [1, 1], 0, 2), [0])
        self.assertEqual(layer.beaten_by(2, [0, 1], [1, 1], 20, 2), [])

    def test_a_scale_with_many_biases_past_the_limit_is_not_tried(self):
        rows, biases = [[1]] * 20, [10 ** 9] * 19 + [0]
        layer = SparseColumns(rows, biases)
        self.assertIsNone(layer._bias_column(0))
        # Class 19 loses to every row at x = 1; the untried scale proves nothing.
        self.assertIsNone(layer.won(19, [0], [1], [0]))
        self.assertEqual(layer.beaten_by(19, [0], [1], 0, 20), list(range(19)))

    def test_in_a_box_a_class_below_many_huge_biases_is_not_a_sparse_winner(self):
        # In the box [-1, 1]^40 only the scale 2**0 is allowed, where the
        # 10 biases of 10**30 round past the limit: class 0 (bias 0) never
        # wins, and every witness found holds exactly in the box.
        rng = random.Random(11)
        weights = [[rng.randint(-3, 3) for _ in range(40)] for _ in range(30)]
        bias = [0] * 20 + [10 ** 30] * 10
        results = check_layer(weights, bias, box=1)
        self.assertFalse(results[0].argmaxable)
        self.assertEqual(verify_all(weights, bias, results, box=1), [True] * 30)

    def test_the_scales_round_the_biases_to_a_few_units_within_the_box(self):
        layer = SparseColumns([[127, 0], [0, 1]], [2 ** 20, 0])
        self.assertEqual(layer.scales(), [17, 13, 9])
        self.assertEqual(layer.scales(F(1000)), [9])
        self.assertEqual(SparseColumns([[1, 0]]).scales(F(1, 3)), [0])
        self.assertEqual(SparseColumns([[1, 0]], [0]).scales(), [0])

    def test_the_floor_of_the_logarithm_is_exact(self):
        for value in (F(1), F(2), F(3), F(1, 2), F(1, 3), F(10 ** 30), F(1, 10 ** 30)):
            e = _floor_log2(value)
            self.assertTrue(F(2) ** e <= value < F(2) ** (e + 1), value)

    def test_float_rows_give_the_same_columns_within_a_unit(self):
        rng = random.Random(3)
        floats = [array("f", [rng.gauss(0, 0.02) for _ in range(40)]) for _ in range(30)]
        rows, _, _ = integer_layer([list(row) for row in floats], None)
        kept = FloatRows(floats, float(integer_layer(floats, None)[2]))
        exact, from_floats = SparseColumns(rows), SparseColumns(kept)
        self.assertEqual(exact.shift, from_floats.shift)
        for k in range(40):
            for j in range(30):
                a, b = (_column_bytes(layer, k)[j] for layer in (exact, from_floats))
                self.assertLessEqual(abs(a - b), 1)
        for i in range(30):
            order, signs = next(Supports(exact).of(i))
            self.assertEqual(exact.won(i, order, signs), from_floats.won(i, order, signs))


class TestSparseWitnesses(unittest.TestCase):

    def test_a_gaussian_head_is_decided_by_sparse_witnesses_alone(self):
        rng = random.Random(7)
        weights = [[rng.gauss(0, 1) for _ in range(96)] for _ in range(400)]
        with mock.patch.object(decide, "_shared_direction", side_effect=AssertionError("dense")):
            results = check_layer(weights)
        self.assertTrue(all(r.argmaxable for r in results))
        self.assertLessEqual(max(sum(map(bool, r.witness)) for r in results), 8)
        self.assertTrue(all(verify_all(weights, None, results)))

    def test_a_layer_with_a_bias_in_a_box_gets_witnesses_in_the_box(self):
        rng = random.Random(8)
        weights = [[rng.gauss(0, 1) for _ in range(64)] for _ in range(300)]
        bias = [rng.gauss(0, 1) for _ in weights]
        results = check_layer(weights, bias, box=F(1, 4))
        self.assertTrue(all(verify_all(weights, bias, results, box=F(1, 4))))
        self.assertEqual(results, check_layer(weights, bias, box=F(1, 4), jobs=2))

    def test_verdicts_match_the_dense_chain(self):
        rng = random.Random(9)
        weights = [[rng.gauss(0, 1) for _ in range(32)] for _ in range(150)]
        weights += [[(a + b) / 2 for a, b in zip(weights[0], weights[1])]]
        bias = [rng.gauss(0, 0.1) for _ in weights]
        for question in ({}, {"box": 2}, {"inputs": (0, None)}):
            with self.subTest(**question):
                results = check_layer(weights, bias, **question)
                with mock.patch.object(decide, "_SPARSE_FROM", 1 << 30):
                    dense = check_layer(weights, bias, **question)
                self.assertEqual([r.argmaxable for r in results], [r.argmaxable for r in dense])
                self.assertTrue(all(verify_all(weights, bias, results, **question)))


class TestSupports(unittest.TestCase):

    def test_rows_sharing_a_direction_get_it_shrunk_first(self):
        rng = random.Random(1)
        direction = [rng.gauss(0, 1) for _ in range(32)]
        rows = [[round(1000 * s * (4 * m + rng.gauss(0, 1))) for m in direction]
                for s in (rng.lognormvariate(0, 0.5) for _ in range(200))]
        supports = Supports(SparseColumns(rows))
        self.assertGreater(supports.shrink, 0.5)
        self.assertEqual(len(list(supports.of(0))), 2)
        isotropic = [[rng.randint(-99, 99) for _ in range(32)] for _ in range(200)]
        self.assertIsNone(Supports(SparseColumns(isotropic)).direction)

    def test_a_support_is_the_largest_departures_from_the_mean_with_their_signs(self):
        rows = [[0, 0, 0, 0], [8, -9, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
        # The last support is w_i - mean itself; whether a shared direction
        # is found first here rests on a float sum that Python 3.12 compensates.
        order, signs = list(Supports(SparseColumns(rows)).of(1))[-1]
        self.assertEqual((order, signs), ([1, 0, 2, 3], [-1, 1, 1, 1]))


if __name__ == "__main__":
    unittest.main()
