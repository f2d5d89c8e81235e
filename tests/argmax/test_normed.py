"""Tests of check_layer on a final norm's outputs (reviews.argmax.normed):
exact verdicts on the ball a LayerNorm or an RMSNorm gives, each against
an oracle written here, and their certificates."""

import math
import random
import unittest
from fractions import Fraction as F
from unittest import mock

from reviews.argmax import normed
from reviews.argmax.check import check_layer
from reviews.argmax.certified import verify_all
from reviews.argmax.question import LayerNorm, Question, RMSNorm
from reviews.argmax.tolerance import radii
from reviews.argmax.verify import verify
from reviews.errors import InputError


def _line_oracle(weights, bias, norm, i):
    """Whether class i wins somewhere on the norm's outputs where they are a
    segment: a LayerNorm of d = 2 (z = t (1, -1), |t| < 1) or an RMSNorm of
    d = 1 (z = t, |t| < 1).  Each rival gives an open half-line in t; the
    class wins iff their intersection meets (-1, 1)."""
    gains = norm.weight or [1] * len(weights[0])
    shifts = norm.bias or [0] * len(weights[0])
    direction = [1, -1] if isinstance(norm, LayerNorm) else [1]
    bias = bias or [0] * len(weights)

    def logit(j):
        """(slope, value at t = 0) of class j's logit along the segment."""
        row = weights[j]
        slope = sum(F(w) * g * e for w, g, e in zip(row, gains, direction))
        return slope, sum(F(w) * s for w, s in zip(row, shifts)) + F(bias[j])

    low, high = F(-1), F(1)
    slope_i, value_i = logit(i)
    for j in range(len(weights)):
        if j == i:
            continue
        slope, value = logit(j)
        a, c = slope_i - slope, value_i - value       # i beats j where a t + c > 0
        if a > 0:
            low = max(low, -c / a)
        elif a < 0:
            high = min(high, -c / a)
        elif c <= 0:
            return False
    return low < high


def _random_layer(rng, classes, dim):
    weights = [[F(rng.randint(-8, 8), rng.choice((1, 2, 4))) for _ in range(dim)]
               for _ in range(classes)]
    bias = [F(rng.randint(-6, 6), rng.choice((1, 3))) for _ in range(classes)]
    return weights, bias


class TestAgainstTheSegment(unittest.TestCase):
    """Where the norm's outputs are a segment, every verdict is the oracle's."""

    def assertOracles(self, seed, dim, norm_of):
        """60 seeded layers of dimension ``dim``, each on the norm
        ``norm_of(rng)``: every verdict the oracle's, every certificate held."""
        rng = random.Random(seed)
        for trial in range(60):
            weights, bias = _random_layer(rng, rng.randint(2, 7), dim)
            norm = norm_of(rng).exact()
            with self.subTest(trial=trial):
                results = check_layer(weights, bias, inputs=norm)
                self.assertEqual([r.argmaxable for r in results],
                                 [_line_oracle(weights, bias, norm, i)
                                  for i in range(len(weights))])
                self.assertTrue(all(verify_all(weights, bias, results, inputs=norm)))

    def test_layernorm_of_two_dimensions(self):
        self.assertOracles(56, 2, lambda rng: LayerNorm(
            [F(rng.randint(-3, 3), 2) for _ in range(2)],
            [F(rng.randint(-4, 4), 3) for _ in range(2)]))

    def test_rmsnorm_of_one_dimension(self):
        self.assertOracles(57, 1, lambda rng: RMSNorm([F(rng.randint(-3, 3), 2)]))


class TestPlanted(unittest.TestCase):

    def test_a_class_that_wins_only_outside_the_ball(self):
        # Class 1 wins for x_0 > 5 only: over R^3 yes, on the norm's ball
        # (|x|^2 < 3) never; its certificate is the ball's.
        weights, bias = [[0, 0, 0], [1, 0, 0]], [0, -5]
        self.assertEqual([r.argmaxable for r in check_layer(weights, bias)], [True, True])
        for norm in (RMSNorm(), LayerNorm()):
            with self.subTest(norm=norm.kind):
                result = check_layer(weights, bias, inputs=norm)[1]
                self.assertEqual((result.argmaxable, result.terms), (False, ((0, F(1)),)))
                self.assertTrue(verify(weights, bias, result, inputs=norm))
                self.assertFalse(verify(weights, bias, result))

    def test_a_class_that_wins_only_off_the_hyperplane(self):
        # Class 1's logit is x_0 + x_1 + x_2 - 1: 0 - 1 on sum x = 0, where it
        # never wins; on an RMSNorm's ball (x = (0.9, 0.9, 0.9)) it does.
        weights, bias = [[0, 0, 0], [1, 1, 1]], [0, -1]
        self.assertFalse(check_layer(weights, bias, inputs="layernorm")[1].argmaxable)
        found = check_layer(weights, bias, inputs="rmsnorm")[1]
        self.assertTrue(found.argmaxable)
        self.assertLess(sum(v * v for v in found.witness), 3)

    def test_the_ball_is_open(self):
        # On y = (1, -1) + t (1, -1), class 0 (w = 0) beats class 1 (logit
        # 4 (1 + t)) only for t < -1: the boundary, |z|^2 = 2 = d, is not
        # reached, and its certificate is tight.
        weights = [[0, 0], [4, 0]]
        result = check_layer(weights, inputs=LayerNorm(bias=[1, -1]))[0]
        self.assertEqual((result.argmaxable, result.terms), (False, ((1, F(1)),)))
        # With beta_0 = 0.99 class 0 wins for -1 < t < -0.99: the same weights fail.
        nearer = LayerNorm(bias=[F(99, 100), -1])
        self.assertFalse(verify(weights, None, result, inputs=nearer))
        self.assertTrue(check_layer(weights, inputs=nearer)[0].argmaxable)

    def test_a_class_never_argmaxable_stays_so_with_its_r_d_certificate(self):
        weights = [[-2, -2], [1, 2], [F(9, 5), F(-4, 5)], [F(9, 10), F(1, 5)]]
        free = check_layer(weights)[3]
        for norm in ("layernorm", "rmsnorm"):
            with self.subTest(norm=norm):
                self.assertFalse(check_layer(weights, inputs=norm)[3].argmaxable)
                self.assertTrue(verify(weights, None, free, inputs=norm))


class TestHomogeneous(unittest.TestCase):

    def test_without_any_bias_the_answer_is_that_of_r_d_for_the_rows_times_g(self):
        rng = random.Random(58)
        for trial in range(20):
            weights = [[F(rng.randint(-5, 5)) for _ in range(4)] for _ in range(9)]
            gains = [F(rng.randint(0, 3), 2) for _ in range(4)]
            scaled = [[w * g for w, g in zip(row, gains)] for row in weights]
            with self.subTest(trial=trial):
                results = check_layer(weights, inputs=RMSNorm(gains))
                self.assertEqual([r.argmaxable for r in results],
                                 [r.argmaxable for r in check_layer(scaled)])
                self.assertTrue(all(verify_all(weights, None, results,
                                               inputs=RMSNorm(gains))))
                self.assertTrue(all(sum(v * v for v in r.witness) < 16
                                    for r in results if r.argmaxable and all(gains)))


class TestGeneral(unittest.TestCase):

    def test_every_certificate_holds_on_layers_of_more_dimensions(self):
        rng = random.Random(59)
        for trial in range(30):
            dim = rng.randint(3, 5)
            weights, bias = _random_layer(rng, rng.randint(4, 10), dim)
            weights = [[v * 4 for v in row] for row in weights]
            for norm in (LayerNorm([F(rng.randint(0, 4), 2) for _ in range(dim)],
                                   [F(rng.randint(-2, 2)) for _ in range(dim)]),
                         RMSNorm([F(rng.randint(0, 4), 2) for _ in range(dim)])):
                with self.subTest(trial=trial, norm=norm.kind):
                    results = check_layer(weights, bias, inputs=norm)
                    self.assertTrue(all(verify_all(weights, bias, results, inputs=norm)))
                    # The ball lies in R^d: never more argmaxable than over R^d.
                    free = check_layer(weights, bias)
                    self.assertFalse(any(r.argmaxable and not f.argmaxable
                                         for r, f in zip(results, free)))

    def test_the_exact_walk_alone_gives_the_same_verdicts(self):
        # Where the float walk's tight rivals do not check, the exact walk decides.
        weights, bias = _random_layer(random.Random(61), 14, 4)
        norm = LayerNorm([1, 2, F(1, 2), 1], [0, 1, -1, F(1, 4)])
        guided = check_layer(weights, bias, inputs=norm)
        with mock.patch.object(normed._FloatWalk, "worst", side_effect=normed._Stuck):
            exact = check_layer(weights, bias, inputs=norm)
        self.assertEqual([r.argmaxable for r in exact], [r.argmaxable for r in guided])
        self.assertTrue(all(verify_all(weights, bias, exact, inputs=norm)))
        self.assertIn(False, [r.argmaxable for r in exact])

    def test_masked_classes_stay_masked(self):
        weights, bias = [[0, 0], [4, 0], [2, 0]], [0, -math.inf, 1]
        results = check_layer(weights, bias, inputs="layernorm")
        self.assertEqual([r.masked for r in results], [False, True, False])
        self.assertTrue(all(verify_all(weights, bias, results, inputs="layernorm")))

    def test_workers_and_classes_give_the_same_results(self):
        weights, bias = _random_layer(random.Random(60), 12, 3)
        norm = LayerNorm([1, 2, F(1, 2)], [0, 1, -1])
        whole = check_layer(weights, bias, inputs=norm)
        self.assertEqual(check_layer(weights, bias, inputs=norm, jobs=2), whole)
        self.assertEqual(check_layer(weights, bias, inputs=norm, classes=[3, 7]),
                         [whole[3], whole[7]])


class TestQuestion(unittest.TestCase):

    def test_the_result_states_the_norm(self):
        result = check_layer([[0], [1]], [0, -2], inputs=RMSNorm([2]))[1]
        self.assertEqual(result.question, Question(inputs=RMSNorm([2])))
        self.assertIn("question=Question(inputs=RMSNorm(weight=(Fraction(2, 1),), bias=None",
                      repr(result))

    def test_bad_norms_are_one_clear_error(self):
        weights = [[0, 0], [1, 0]]
        for inputs, error, message in (
                (LayerNorm([1, 2, 3]), InputError, "the norm's weight has 3 values, and the"
                                                   " head's inputs 2"),
                (LayerNorm(bias=[1]), InputError, "the norm's bias has 1 values"),
                (LayerNorm(eps=0), InputError, "the norm's eps is 0; a norm's eps must be"
                                               " positive"),
                (RMSNorm(eps=-1e-6), InputError, "eps is -9.99999"),
                (LayerNorm(["1", 2]), InputError, "the norm's weight\\[0\\] is '1', not a real"
                                                  " number"),
                (LayerNorm([math.nan, 1]), InputError, "weight\\[0\\]"),
                (LayerNorm(weight="12"), TypeError, "a sequence of numbers, not str"),
                ("batchnorm", TypeError, "'batchnorm'")):
            with self.subTest(inputs=inputs):
                with self.assertRaisesRegex(error, message or ""):
                    check_layer(weights, None, inputs=inputs)
        with self.assertRaisesRegex(InputError, "an RMSNorm has no bias"):
            Question(inputs=RMSNorm()._replace(bias=(1, 2)))

    def test_a_tolerance_and_radii_are_refused_in_one_line(self):
        with self.assertRaisesRegex(InputError, "a tolerance is not asked of a norm's outputs"):
            check_layer([[0], [1]], inputs="layernorm", tolerance=1e-8)
        results = check_layer([[0], [1]], [0, 1], inputs="rmsnorm")
        with self.assertRaisesRegex(InputError, "radii are not given for a norm's outputs"):
            radii([[0], [1]], [0, 1], results)
        with self.assertRaisesRegex(InputError, "ask for the box or for the inputs"):
            check_layer([[0], [1]], box=1, inputs="layernorm")


if __name__ == "__main__":
    unittest.main()
