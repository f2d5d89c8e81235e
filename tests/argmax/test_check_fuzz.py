"""Seeded fuzz test of reviews.argmax.check on layers with extreme numbers.

Small layers (C from 1 to 8, d from 1 to 5) whose entries span 1e-300 to
1e300, integers near 2**200, Decimals past the float range, Fractions,
zeros, duplicate and zero rows, with a bias or not: every class must be
decided, every certificate must pass ``verify`` and an independent check
written here, and the decisions must agree with reviews.argmax.strategy.feasibility.decide_system
asked about each class separately.  Each layer is also checked in a box
|x_k| <= R, R from 1e-30 to 1e400, with the same checks, and the boxed
answer must never say argmaxable where the answer for R^d says not.
"""

import random
import unittest
from decimal import Decimal
from fractions import Fraction as F

from reviews.argmax.check import check_layer

from reviews.argmax.kernels.layer_input import exact_layer

from reviews.argmax.verify import verify
from reviews.argmax.strategy.feasibility import decide_system

SEED = 7
LAYERS = 240
BOXES = (1, F(1, 3), 100, 1e-30, 2.5, 10 ** 30, Decimal("1e400"))


def _number(rng):
    kind = rng.randrange(6)
    if kind == 0:
        return rng.choice([1, -1]) * 10 ** rng.uniform(-300, 300)
    if kind == 1:
        return rng.choice([1, -1]) * 2 ** 200 + rng.randint(-3, 3)
    if kind == 2:
        return Decimal("%de%d" % (rng.randint(-9, 9), rng.randint(-400, 400)))
    if kind == 3:
        return 0
    if kind == 4:
        return F(rng.randint(-5, 5), rng.randint(1, 5))
    return rng.gauss(0, 1)


def _layer(rng):
    classes, dim = rng.randint(1, 8), rng.randint(1, 5)
    weights = []
    for _ in range(classes):
        kind = rng.random()
        if weights and kind < 0.15:
            weights.append(list(rng.choice(weights)))
        elif kind < 0.25:
            weights.append([0] * dim)
        else:
            weights.append([_number(rng) for _ in range(dim)])
    bias = [_number(rng) for _ in range(classes)] if rng.random() < 0.5 else None
    return weights, bias


def _layers():
    rng = random.Random(SEED)
    return [_layer(rng) + (rng.choice(BOXES),) for _ in range(LAYERS)]


def _certificate_holds(rows, biases, result, box=None):
    """The certificate checked from its definition, in Fractions (in the box, if any)."""
    i = result.index
    if result.argmaxable:
        x = result.witness
        logits = [sum(w * v for w, v in zip(row, x)) + b for row, b in zip(rows, biases)]
        return ((box is None or max(map(abs, x)) <= F(box))
                and all(logits[j] < logits[i] for j in range(len(rows)) if j != i))
    lam = dict(result.terms)
    if i in lam or any(v < 0 for v in lam.values()) or sum(lam.values()) != 1:
        return False
    combined = [sum(lam[j] * (rows[j][q] - rows[i][q]) for j in lam) for q in range(len(rows[0]))]
    lead = sum(lam[j] * (biases[j] - biases[i]) for j in lam)
    if box is None:
        return not any(combined) and lead >= 0
    return lead >= F(box) * sum(map(abs, combined))


class TestExtremeLayers(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        layers = _layers()
        cls.cases = [(w, b, check_layer(w, b)) for w, b, _ in layers]
        cls.boxed = [(w, b, box, check_layer(w, b, box=box)) for w, b, box in layers]

    def test_every_class_is_decided_once(self):
        for weights, bias, results in self.cases:
            with self.subTest(weights=weights, bias=bias):
                self.assertEqual([r.index for r in results], list(range(len(weights))))
                for r in results:
                    self.assertEqual(r.witness is None, not r.argmaxable)
                    self.assertEqual(r.terms is None, r.argmaxable)

    def test_every_certificate_verifies(self):
        for weights, bias, results in self.cases:
            for r in results:
                with self.subTest(weights=weights, bias=bias, index=r.index):
                    self.assertIs(verify(weights, bias, r), True)

    def test_every_certificate_holds_by_its_definition(self):
        for weights, bias, results in self.cases:
            rows, biases = exact_layer(weights, bias)
            biases = biases or [F(0)] * len(rows)
            for r in results:
                with self.subTest(weights=weights, bias=bias, index=r.index):
                    self.assertTrue(_certificate_holds(rows, biases, r))

    def test_combinations_are_sparse(self):
        # A basic solution has at most rank + 1 <= d + 1 nonzero weights.
        for weights, bias, results in self.cases:
            for r in results:
                if not r.argmaxable:
                    self.assertLessEqual(len(r.terms), len(weights[0]) + 1)

    def assertAgreeWithOneSystemPerClass(self, weights, bias, results, box=None):
        # Class i is argmaxable iff (w_i - w_j) . x + b_i - b_j > 0 for all j != i.
        rows, biases = exact_layer(weights, bias)
        biases = biases or [F(0)] * len(rows)
        for r in results:
            i = r.index
            rivals = [j for j in range(len(rows)) if j != i]
            if not rivals:
                continue
            decision = decide_system([[p - q for p, q in zip(rows[i], rows[j])] for j in rivals],
                              [biases[i] - biases[j] for j in rivals],
                              box=None if box is None else F(box))
            with self.subTest(weights=weights, bias=bias, box=box, index=i):
                self.assertEqual(decision.witness is not None, r.argmaxable)

    def test_decisions_agree_with_one_system_per_class(self):
        for weights, bias, results in self.cases[:LAYERS // 3]:
            self.assertAgreeWithOneSystemPerClass(weights, bias, results)

    def test_every_boxed_certificate_verifies_and_holds_by_its_definition(self):
        for weights, bias, box, results in self.boxed:
            rows, biases = exact_layer(weights, bias)
            biases = biases or [F(0)] * len(rows)
            for r in results:
                with self.subTest(weights=weights, bias=bias, box=box, index=r.index):
                    self.assertEqual(r.box, F(box))
                    self.assertIs(verify(weights, bias, r, box=box), True)
                    self.assertTrue(_certificate_holds(rows, biases, r, box))

    def test_the_box_never_makes_a_class_argmaxable(self):
        for (weights, bias, plain), (_, _, box, boxed) in zip(self.cases, self.boxed):
            for p, q in zip(plain, boxed):
                with self.subTest(weights=weights, bias=bias, box=box, index=p.index):
                    self.assertTrue(p.argmaxable or not q.argmaxable)

    def test_boxed_decisions_agree_with_one_boxed_system_per_class(self):
        for weights, bias, box, results in self.boxed[:LAYERS // 3]:
            self.assertAgreeWithOneSystemPerClass(weights, bias, results, box)

    def test_the_mix_is_extreme(self):
        # The fuzz is only worth something if it holds what it claims to.
        entries = [v for w, b, _ in self.cases for row in w for v in row]
        self.assertTrue(any(isinstance(v, float) and 0 < abs(v) < 1e-250 for v in entries))
        self.assertTrue(any(isinstance(v, float) and abs(v) > 1e250 for v in entries))
        self.assertTrue(any(isinstance(v, Decimal) and abs(v) > Decimal("1e308") for v in entries))
        self.assertTrue(any(isinstance(v, int) and abs(v) > 2 ** 199 for v in entries))
        self.assertTrue(any(len(w) - 1 < len(w[0]) for w, _, _ in self.cases))
        self.assertTrue(any(not r.argmaxable for _, _, rs in self.cases for r in rs))
        # ... and the boxes change some verdicts.
        self.assertTrue(any(p.argmaxable and not q.argmaxable
                            for (_, _, plain), (_, _, _, boxed) in zip(self.cases, self.boxed)
                            for p, q in zip(plain, boxed)))


if __name__ == "__main__":
    unittest.main()
