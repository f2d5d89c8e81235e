"""Tests of check_layer's box: exact answers for inputs with |x_k| <= R, and their certificates."""

import random
import unittest
from decimal import Decimal
from fractions import Fraction as F

from reviews.argmax import check as argmaxable
from reviews.argmax.check import check_layer
from reviews.argmax.kernels.layer_input import exact_layer
from reviews.argmax.question import Question
from reviews.argmax.result import ClassResult
from reviews.argmax.certified import verify_all
from reviews.argmax.verify import verify
from reviews.argmax.kernels.witness import Witness
from reviews.errors import InputError
from tests.support.layers import FIGURE_1


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
    """The detector's box, |x_k| <= R."""

    # Class 1 wins only for x > 2: in the box [-2, 2] it can only tie.
    LINE = ([[0], [1]], [0, -2])

    def test_pinned_boxed_certificates(self):
        self.assertEqual(check_layer(*self.LINE, box=3), [
            ClassResult(0, True, (F(0),), None, None, Question(3)),
            ClassResult(1, True, (F(3),), None, None, Question(3)),
        ])
        self.assertEqual(check_layer(*self.LINE, box=1)[1],
                         ClassResult(1, False, None, ((0, F(1)),), 2, Question(1)))

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
        # within (|row| + 2) ** (d + 1) < 10 ** 6 (reviews.argmax.strategy.feasibility).
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
        self.assertTrue(all(verify_all(FIGURE_1, None, results, box=F(1, 10))))

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
                self.assertTrue(all(verify_all(weights, bias, results, box=box)))

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
