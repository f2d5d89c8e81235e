"""Tests of reviews.argmax.strategy.candidates: float proposals, checked exactly."""

import collections
import random
import unittest
from unittest import mock

from reviews.argmax.strategy import decide
from reviews.argmax.strategy.braid import reflected_witness, reflections
from reviews.argmax.strategy.candidates import SharedDirection
from reviews.argmax.check import check_layer
from reviews.argmax.strategy.decide import PreparedLayer
from reviews.argmax.kernels.packed import Packed
from reviews.argmax.certified import verify_all


def shared_direction_layer(classes, dim, seed):
    """Integer rows s * (a * mu + noise), mean cosine about 0.86, log-normal s."""
    rng = random.Random(seed)
    mu = [rng.gauss(0, 1) for _ in range(dim)]
    a = 6 ** 0.5 / sum(v * v for v in mu) ** 0.5
    rows = []
    for _ in range(classes):
        size = rng.lognormvariate(0, 0.5)
        rows.append([round(1000 * size * (a * m + rng.gauss(0, dim ** -0.5))) for m in mu])
    return rows


class TestReflectedWitness(unittest.TestCase):

    def test_rows_sharing_a_direction_need_no_program(self):
        # Many rivals beat x = w_i and x = w_i - mean here (30 of these 100
        # classes reached the program before the reflections with patience).
        weights = shared_direction_layer(100, 32, 1)
        with mock.patch.object(decide, "clarkson", side_effect=AssertionError("program")):
            results = check_layer(weights)
        self.assertTrue(all(r.argmaxable for r in results))
        self.assertTrue(all(verify_all(weights, None, results)))

    def test_the_candidate_found_is_a_witness(self):
        weights = shared_direction_layer(100, 16, 1)
        layer = PreparedLayer(weights, None, 1)
        found = 0
        for i in range(100):
            start = [v - m for v, m in zip(layer.float_weights[i], layer.centre())]
            beaten = layer.packed.beaten_by(i, layer.candidate(start)[0], 1)
            if beaten:
                candidate = reflected_witness(layer, i, start, beaten[0])
                self.assertIsNotNone(candidate)
                self.assertEqual(layer.packed.beaten_by(i, candidate[0], 1), [])
                found += 1
        self.assertGreater(found, 50)

    def test_no_witness_for_a_class_inside_the_others(self):
        layer = PreparedLayer([[0, 0], [2, 0], [-2, 0], [0, 2], [0, -2]], None, 1)
        self.assertIsNone(reflected_witness(layer, 0, [1.0, 0.0], 1, patience=100))

    def test_reflections_grow_with_the_dimension(self):
        self.assertEqual([reflections(d) for d in (1, 4, 7, 8, 64, 128, 129, 768)],
                         [0, 0, 0, 1, 8, 16, 16, 16])

    def test_patience_bounds_the_reflections(self):
        layer = PreparedLayer([[0, 0], [2, 0], [-2, 0], [0, 2], [0, -2]], None, 1)
        with mock.patch.object(layer.packed, "beaten_by", wraps=layer.packed.beaten_by) as check:
            self.assertIsNone(reflected_witness(layer, 0, [1.0, 0.0], 1, patience=3))
        self.assertEqual(check.call_count, 3)

class TestSharedDirection(unittest.TestCase):

    def winners(self, layer, point):
        return sum(not layer.packed.beaten_by(i, layer.candidate(point(i))[0], 1)
                   for i in range(layer.class_count))

    def test_whitened_candidates_win_where_x_equal_w_i_does_not(self):
        layer = PreparedLayer(shared_direction_layer(200, 64, 1), None, 1)
        shared = SharedDirection(layer)
        self.assertGreater(shared.shrink, 0.98)
        centred = [lambda i: [v - m for v, m in zip(layer.float_weights[i], layer.centre())]]
        self.assertEqual(self.winners(layer, shared.point), 190)
        self.assertEqual(self.winners(layer, centred[0]), 46)
        self.assertEqual(self.winners(layer, layer.float_weights.__getitem__), 1)

    def test_isotropic_rows_get_no_candidate(self):
        rng = random.Random(2)
        rows = [[round(1000 * rng.gauss(0, 1)) for _ in range(16)] for _ in range(200)]
        layer = PreparedLayer(rows, None, 1)
        # Nor a pass over all the rows for their mean (GPT-2's shape: seconds).
        with mock.patch.object(layer, "centre", side_effect=AssertionError("mean")):
            shared = SharedDirection(layer)
        self.assertEqual([shared.point(i) for i in range(200)], [None] * 200)

    def test_rows_at_their_mean_or_in_one_dimension_get_no_candidate(self):
        for rows in ([[1, 2], [1, 2], [-1, -2], [-1, -2]], [[1], [2], [3]]):
            self.assertIsNone(SharedDirection(PreparedLayer(rows, None, 1)).point(0))

    def test_the_layer_is_settled_with_few_checks(self):
        results, checks = _checks_per_class(shared_direction_layer(200, 64, 1))
        self.assertTrue(all(r.argmaxable for r in results))
        # One check for each of the 190 classes the first candidate settles.
        self.assertLess(sum(checks.values()), 250)

    def test_a_class_the_shared_candidate_misses_is_settled_by_its_reflections(self):
        # The shared direction's candidate settles 194 of these 300 classes
        # in one check; the rest are reflected from it at once (before, x =
        # w_i and x = w_i - mean were tried first: 611 checks, up to 5 a class).
        results, checks = _checks_per_class(shared_direction_layer(300, 32, 1))
        self.assertTrue(all(r.argmaxable for r in results))
        self.assertEqual(max(checks.values()), 3)
        self.assertEqual(sum(checks.values()), 413)


def _checks_per_class(weights):
    """(check_layer's results, a Counter of the exact candidate checks per
    class), the dense candidates alone (no sparse witness)."""
    with mock.patch("reviews.argmax.kernels.packed.Packed.beaten_by", autospec=True,
                    side_effect=Packed.beaten_by) as check, \
            mock.patch("reviews.argmax.strategy.decide._SPARSE_FROM", 1 << 30):
        results = check_layer(weights)
    return results, collections.Counter(call.args[1] for call in check.call_args_list)

if __name__ == "__main__":
    unittest.main()
