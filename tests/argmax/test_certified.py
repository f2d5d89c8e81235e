"""Tests of reviews.argmax.certified: verify_all says what verify says, class by class."""

import random
import unittest
from decimal import Decimal
from fractions import Fraction as F

from reviews.argmax.certified import verify_all
from reviews.argmax.check import check_layer
from reviews.argmax.result import ClassResult
from reviews.argmax.verify import verify
from reviews.errors import InputError


def gaussian(seed, classes, dim, bias):
    rng = random.Random(seed)
    weights = [[rng.gauss(0, 1) for _ in range(dim)] for _ in range(classes)]
    return weights, [rng.gauss(0, 1) for _ in range(classes)] if bias else None


def spoiled(result):
    """The result with its certificate made wrong."""
    if result.argmaxable:
        return result._replace(witness=tuple(-v for v in result.witness))
    (j, v), *rest = result.terms
    return result._replace(terms=((j, v + F(1, 10 ** 6)),) + tuple(rest))


class TestAsVerify(unittest.TestCase):

    def test_true_certificates_hold_with_a_bias_and_without(self):
        for bias in (False, True):
            weights, biases = gaussian(4, 60, 3, bias)
            results = check_layer(weights, biases)
            self.assertEqual(verify_all(weights, biases, results), [True] * 60)

    def test_it_says_what_verify_says_of_wrong_certificates(self):
        weights, biases = gaussian(5, 40, 2, True)
        results = [spoiled(r) for r in check_layer(weights, biases)]
        self.assertEqual(verify_all(weights, biases, results),
                         [verify(weights, biases, r) for r in results])
        self.assertIn(False, verify_all(weights, biases, results))

    def test_a_combination_must_be_one(self):
        weights = [[0], [1], [2]]
        for terms in (((0, F(1, 2)), (2, F(1, 2))), ((0, F(1, 2)), (1, F(1, 2))),
                      ((0, F(2, 3)), (2, F(1, 3))), ((0, F(-1)), (2, F(2))), ()):
            result = ClassResult(1, False, None, terms)
            self.assertEqual(verify_all(weights, None, [result]),
                             [verify(weights, None, result)] if terms else [False], terms)

    def test_a_tie_is_no_witness(self):
        self.assertEqual(verify_all([[1, 0], [1, 0]], None, [ClassResult(0, True, (1, 0))]),
                         [False])

    def test_a_wrong_shape_is_refused(self):
        with self.assertRaisesRegex(InputError, "result.witness has length 2 for d = 1"):
            verify_all([[0], [1]], None, [ClassResult(1, True, (1, 0))])

    def test_a_malformed_result_raises_what_verify_raises(self):
        # verify_all's own fast path once took these as numbers, or spun
        # on Decimal("1e999999999").
        weights = [[0, 0], [1, 0], [2, 0]]
        half = F(1, 2)
        malformed = [
            (ClassResult(2, True, (Decimal("1e999999999"), 0)), {}),
            (ClassResult(2, True, (float("nan"), 0)), {}),
            (ClassResult(2, True, ("1", "0")), {}),
            (ClassResult(1, False, None, ((2, half), (0, half))), {}),
            (ClassResult(1, False, None, ((0, half, 1), (2, half))), {}),
            (ClassResult(1, False, None, None), {}),
            (None, {}),
            (ClassResult(2, True, (1, 0)), {"tolerance": None}),
        ]
        for result, question in malformed:
            with self.subTest(result=result, question=question):
                with self.assertRaises((InputError, TypeError)) as raised:
                    verify(weights, None, result, **question)
                with self.assertRaises(type(raised.exception)) as again:
                    verify_all(weights, None, [result], **question)
                self.assertEqual(str(again.exception), str(raised.exception))

    def test_a_layer_of_numpy_like_rows_with_no_truth_value_is_read(self):
        # verify once asked "if weights", which a numpy array refuses.
        class Rows(list):
            def __bool__(self):
                raise ValueError("the truth value of an array is ambiguous")
        weights = Rows([[0, 0], [1, 0], [2, 0]])
        results = check_layer([[0, 0], [1, 0], [2, 0]])
        self.assertEqual(verify_all(weights, None, results, tolerance=F(1, 10)),
                         [verify(weights, None, r, tolerance=F(1, 10)) for r in results])

    def test_in_a_box_it_says_what_verify_says(self):
        weights, biases = gaussian(6, 40, 3, True)
        results = check_layer(weights, biases, box=F(1, 2))
        self.assertIn(False, [r.argmaxable for r in results])
        wrong = [spoiled(r) for r in results]
        for listed in (results, wrong):
            self.assertEqual(verify_all(weights, biases, listed, box=F(1, 2)),
                             [verify(weights, biases, r, box=F(1, 2)) for r in listed])
        self.assertEqual(verify_all(weights, biases, results, box=F(1, 2)), [True] * 40)

    def test_a_witness_outside_the_box_proves_nothing_there(self):
        result = ClassResult(1, True, (2,))
        self.assertEqual(verify_all([[0], [1]], None, [result]), [True])
        self.assertEqual(verify_all([[0], [1]], None, [result], box=1), [False])

    def test_a_tolerance_or_a_mask_is_verifys_question(self):
        weights, bias = [[0, 0], [1, 1], [2, 2], [5, 5]], [0, F(1, 10 ** 9), 0, float("-inf")]
        tolerance = F(1, 10 ** 8)
        results = check_layer(weights, bias, tolerance=tolerance)
        self.assertEqual(verify_all(weights, bias, results, tolerance=tolerance), [True] * 4)
        loose = check_layer(weights, bias)
        self.assertEqual(verify_all(weights, bias, loose, tolerance=tolerance),
                         [verify(weights, bias, r, tolerance=tolerance) for r in loose])
        self.assertIn(False, verify_all(weights, bias, loose, tolerance=tolerance))


if __name__ == "__main__":
    unittest.main()
