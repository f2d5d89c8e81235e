"""check_layer against a decision written here from scratch: Fourier-Motzkin.

Class i is argmaxable when the strict system (w_i - w_j) . x + b_i - b_j > 0
(every j != i not masked; a masked class is never argmaxable) has a
solution.  Fourier-Motzkin elimination decides a strict system exactly, in
Fractions, with nothing shared with reviews.argmax: each variable is
eliminated by pairing every inequality where it has a positive coefficient
with every one where it has a negative one, which keeps the strictness; what
is left is constants, all positive or not.  It is exponential, so the layers
are small (C up to 6, d up to 3), with small integers so that ties, twins,
zero rows and collinear rows are frequent, and some biases -inf.
"""

import math
import random
import unittest
from fractions import Fraction as F

from reviews.argmax.check import check_layer
from reviews.argmax.certified import verify_all

SEED = 2203
LAYERS = 400


def _feasible(system):
    """Whether some x has a . x + c > 0 for every (a, c) of ``system``."""
    while system and system[0][0]:
        positive = [(a, c) for a, c in system if a[-1] > 0]
        negative = [(a, c) for a, c in system if a[-1] < 0]
        kept = [(a[:-1], c) for a, c in system if a[-1] == 0]
        for ap, cp in positive:
            for an, cn in negative:
                # (p / ap_d) + (n / -an_d): the last variable cancels.
                sp, sn = F(1, 1) / ap[-1], F(1, 1) / -an[-1]
                kept.append(([sp * u + sn * v for u, v in zip(ap[:-1], an[:-1])],
                             sp * cp + sn * cn))
        system = kept
    return all(c > 0 for _, c in system)


def _argmaxable(weights, bias, i):
    if bias[i] == -math.inf:
        return False
    rivals = [j for j in range(len(weights)) if j != i and bias[j] != -math.inf]
    return _feasible([([F(u) - F(v) for u, v in zip(weights[i], weights[j])],
                       F(bias[i]) - F(bias[j])) for j in rivals])


def _layer(rng):
    classes, dim = rng.randint(1, 6), rng.randint(1, 3)
    weights = [[rng.randint(-2, 2) for _ in range(dim)] for _ in range(classes)]
    if classes > 1 and rng.random() < 0.3:
        weights[-1] = list(weights[rng.randrange(classes - 1)])   # a twin
    bias = None
    if rng.random() < 0.6:
        bias = [rng.choice([-1, 0, 0, 1, F(1, 2), -math.inf if rng.random() < 0.1 else 0])
                for _ in range(classes)]
    return weights, bias


class TestAgainstFourierMotzkin(unittest.TestCase):

    def test_every_verdict_is_the_brute_force_decision(self):
        rng = random.Random(SEED)
        unargmaxable = 0
        for number in range(LAYERS):
            weights, bias = _layer(rng)
            with self.subTest(layer=number, weights=weights, bias=bias):
                results = check_layer(weights, bias)
                expected = [_argmaxable(weights, bias or [0] * len(weights), i)
                            for i in range(len(weights))]
                self.assertEqual([r.argmaxable for r in results], expected)
                self.assertTrue(all(verify_all(weights, bias, results)))
                unargmaxable += expected.count(False)
        # The layers exercise both answers, often.
        self.assertGreater(unargmaxable, LAYERS // 2)

    def test_the_brute_force_itself_on_layers_decided_by_hand(self):
        figure_1 = [[-2, -2], [1, 2], [F(9, 5), F(-4, 5)], [F(9, 10), F(1, 5)]]
        self.assertEqual([_argmaxable(figure_1, [0] * 4, i) for i in range(4)],
                         [True, True, True, False])
        # Twins tie everywhere; a bias breaks the tie for one of them.
        self.assertEqual([_argmaxable([[1], [1]], [0, 0], i) for i in range(2)], [False, False])
        self.assertEqual([_argmaxable([[1], [1]], [1, 0], i) for i in range(2)], [True, False])


if __name__ == "__main__":
    unittest.main()
