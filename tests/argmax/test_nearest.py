"""Tests of reviews.argmax.strategy.nearest: Wolfe's nearest point, apart or holding the origin."""

import math
import random
import unittest

from reviews.argmax.strategy.nearest import NearestPoint


class TestNearestPoint(unittest.TestCase):

    def test_points_on_one_side_are_apart(self):
        kind, y = NearestPoint([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]).search()
        self.assertEqual(kind, "apart")
        self.assertTrue(y[0] > 0 and y[1] > 0)

    def test_a_triangle_around_the_origin_holds_it_with_its_barycentric_weights(self):
        near = NearestPoint([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
        kind, corral = near.search()
        self.assertEqual(kind, "origin")
        weights = dict(corral)
        self.assertEqual(sorted(weights), [0, 1, 2])
        # Unit points (1, 0), (0, 1), -(1, 1)/sqrt 2: weights 1 : 1 : sqrt 2.
        self.assertAlmostEqual(weights[2] / weights[0], math.sqrt(2), places=12)

    def test_added_points_continue_from_the_last_corral(self):
        near = NearestPoint([[1.0, 0.0], [0.0, 1.0]])
        self.assertEqual(near.search()[0], "apart")
        steps = near.steps
        near.add([[-1.0, -1.0]])
        self.assertEqual(near.search()[0], "origin")
        self.assertGreater(near.steps, steps)

    def test_opposite_points_hold_the_origin(self):
        kind, corral = NearestPoint([[2.0, 1.0], [-4.0, -2.0]]).search()
        self.assertEqual(kind, "origin")
        self.assertEqual(sorted(n for n, _ in corral), [0, 1])

    def test_every_answer_is_apart_or_a_corral_holding_the_origin(self):
        rng = random.Random(4)
        for _ in range(60):
            dim, count = rng.randint(2, 12), rng.randint(1, 40)
            shift = [rng.gauss(0, 1) for _ in range(dim)]
            points = [[rng.gauss(0, 1) + s for s in shift] for _ in range(count)]
            found = NearestPoint(points).search()
            self.assertIsNotNone(found)
            kind, value = found
            units = [[v / math.sqrt(sum(x * x for x in p)) for v in p] for p in points]
            if kind == "apart":
                self.assertTrue(all(sum(a * b for a, b in zip(p, value)) > 0 for p in units))
            else:
                self.assertLessEqual(len(value), dim + 1)
                total = [sum(w * units[n][q] for n, w in value) for q in range(dim)]
                self.assertLess(max(map(abs, total)), 1e-9)
                self.assertAlmostEqual(sum(w for _, w in value), 1.0, places=12)


if __name__ == "__main__":
    unittest.main()
