"""Tests of check_layer's inputs: exact answers for x in [low, high]^d, and their certificates."""

import array
import math
import random
from decimal import Decimal
import unittest
from unittest import mock
from fractions import Fraction as F

from reviews.argmax.check import check_layer, iter_check_layer
from reviews.argmax.domain import moved_layer, shown_inputs
from reviews.argmax.question import Inputs, Question, inputs_value
from reviews.argmax.orthant import Orthant
from reviews.argmax.kernels.norms import holds_at
from reviews.argmax.kernels.layer_input import exact_layer
from reviews.argmax.result import ClassResult
from reviews.argmax.strategy.feasibility import decide_system
from reviews.argmax.tolerance import Geometry, radii
from reviews.argmax.certified import verify_all
from reviews.argmax.verify import verify
from reviews.errors import InputError

INF = math.inf
# A ReLU's image, its mirror, a sigmoid's, a shifted interval, half-lines off 0.
DOMAINS = [(0, INF), (-INF, 0), (0, 1), (-1, 3), (F(1, 2), INF), (-INF, -2)]


def _layer(seed, classes, dim, bias=True):
    rng = random.Random(seed)
    weights = [[rng.randint(-6, 6) for _ in range(dim)] for _ in range(classes)]
    return weights, ([rng.randint(-4, 4) for _ in range(classes)] if bias else None)


def _decided_alone(weights, bias, i, domain):
    """Whether class i wins somewhere in the domain, by one exact program
    over every rival with the domain's rows added (no search, no moving)."""
    rows, biases = exact_layer(weights, bias)
    biases = biases or [0] * len(rows)
    d = len(rows[0])
    low, high = (None if math.isinf(end) else F(end) for end in domain)
    system = [[a - b for a, b in zip(rows[i], rows[j])] for j in range(len(rows)) if j != i]
    offsets = [biases[i] - biases[j] for j in range(len(rows)) if j != i]
    for k in range(d):
        unit = [F(int(q == k)) for q in range(d)]
        if low is not None:
            system.append(unit)
            offsets.append(-low)
        if high is not None:
            system.append([-v for v in unit])
            offsets.append(high)
    return decide_system(system, offsets).witness is not None


def _holds_by_definition(weights, bias, result, domain):
    """The certificate checked from its definition, in Fractions."""
    rows, biases = exact_layer(weights, bias)
    biases = biases or [F(0)] * len(rows)
    low, high = domain
    i = result.index
    if result.argmaxable:
        x = result.witness
        logits = [sum(w * v for w, v in zip(row, x)) + b for row, b in zip(rows, biases)]
        return (all(low <= v <= high for v in x)
                and all(logits[j] < logits[i] for j in range(len(rows)) if j != i))
    lam = dict(result.terms)
    # Where the combination of rivals minus i is least over the domain.
    combined = [sum(lam[j] * (rows[j][q] - rows[i][q]) for j in lam) for q in range(len(rows[0]))]
    least = 0
    for v in combined:
        end = low if v > 0 else high
        if v and math.isinf(end):
            return False
        least += v * end if v else 0
    return (i not in lam and all(v >= 0 for v in lam.values()) and sum(lam.values()) == 1
            and sum(lam[j] * (biases[j] - biases[i]) for j in lam) + least >= 0)


class TestVerdicts(unittest.TestCase):

    def test_every_verdict_is_that_of_one_program_per_class(self):
        for seed, (classes, dim) in enumerate([(7, 2), (9, 3), (12, 4), (6, 5)]):
            weights, bias = _layer(seed, classes, dim, bias=seed % 2 == 0)
            for domain in DOMAINS:
                with self.subTest(seed=seed, inputs=domain):
                    results = check_layer(weights, bias, inputs=domain)
                    self.assertEqual([r.argmaxable for r in results],
                                     [_decided_alone(weights, bias, i, domain)
                                      for i in range(classes)])

    def test_every_certificate_holds_by_its_definition_and_by_verify(self):
        for seed in range(4):
            weights, bias = _layer(10 + seed, 10, 3)
            for domain in DOMAINS:
                with self.subTest(seed=seed, inputs=domain):
                    results = check_layer(weights, bias, inputs=domain)
                    self.assertTrue(all(_holds_by_definition(weights, bias, r, domain)
                                        for r in results))
                    self.assertTrue(all(verify_all(weights, bias, results, inputs=domain)))

    def test_a_narrower_domain_never_makes_a_class_argmaxable(self):
        weights, bias = _layer(20, 14, 3)
        everywhere = [r.argmaxable for r in check_layer(weights, bias)]
        for domain in DOMAINS:
            with self.subTest(inputs=domain):
                inside = [r.argmaxable for r in check_layer(weights, bias, inputs=domain)]
                self.assertFalse(any(a and not b for a, b in zip(inside, everywhere)))

    def test_the_relu_image_changes_a_verdict(self):
        # Class 1 wins only where x < -1/2.
        weights, bias = [[0], [-2]], [0, -1]
        self.assertEqual([r.argmaxable for r in check_layer(weights, bias)], [True, True])
        relu = check_layer(weights, bias, inputs=(0, INF))
        self.assertEqual((relu[1].argmaxable, relu[1].terms), (False, ((0, F(1)),)))
        self.assertFalse(verify(weights, bias, relu[1]))

    def test_minus_r_to_r_is_the_box_and_the_whole_line_is_r_d(self):
        weights, bias = _layer(30, 9, 3)
        self.assertEqual(repr(check_layer(weights, bias, inputs=(-2, 2))),
                         repr(check_layer(weights, bias, box=2)))
        self.assertEqual(repr(check_layer(weights, bias, inputs=(-INF, None))),
                         repr(check_layer(weights, bias)))

    def test_workers_and_classes_give_the_same_results(self):
        weights, bias = _layer(40, 16, 3)
        one = check_layer(weights, bias, inputs=(0, INF))
        self.assertEqual(repr(check_layer(weights, bias, inputs=(0, INF), jobs=2)), repr(one))
        self.assertEqual(repr(check_layer(weights, bias, inputs=(0, INF), classes=[9, 2])),
                         repr([one[2], one[9]]))

    def test_a_decimal_mask_and_float_arrays_are_moved_as_they_are(self):
        weights = [array.array("f", row) for row in ([1, 0], [0, 1], [-1, -1], [2, 2])]
        bias = [Decimal(0), Decimal("-Infinity"), Decimal(1), Decimal(0)]
        for domain, expected in [((0, INF), [False, False, True, True]),
                                 ((-INF, 0), [False, False, True, False])]:
            with self.subTest(inputs=domain):
                results = check_layer(weights, bias, inputs=domain)
                self.assertEqual([r.argmaxable for r in results], expected)
                self.assertTrue(results[1].masked)
                self.assertTrue(all(verify_all(weights, bias, results, inputs=domain)))

    def test_masked_classes_and_twins_keep_their_certificates(self):
        weights = [[1, 0], [1, 0], [0, 1], [-1, -1]]
        bias = [0, 0, -INF, 1]
        results = check_layer(weights, bias, inputs=(0, INF))
        self.assertEqual([(r.argmaxable, r.masked) for r in results],
                         [(False, False), (False, False), (False, True), (True, False)])
        self.assertTrue(all(verify_all(weights, bias, results, inputs=(0, INF))))


class TestTolerance(unittest.TestCase):

    def test_a_tolerance_asks_the_moved_box_s_question_and_verify_checks_it(self):
        weights, bias = _layer(50, 12, 3)
        for domain, tolerance in [((0, 2), F(1, 10)), ((-1, 3), F(1, 2))]:
            with self.subTest(inputs=domain, tolerance=tolerance):
                results = check_layer(weights, bias, inputs=domain, tolerance=tolerance)
                moved, moved_bias, box, _ = moved_layer(weights, bias, inputs_value(domain))
                self.assertEqual([r.argmaxable for r in results],
                                 [r.argmaxable for r in check_layer(moved, moved_bias, box=box,
                                                                     tolerance=tolerance)])
                self.assertTrue(all(verify_all(weights, bias, results, inputs=domain,
                                               tolerance=tolerance)))
                self.assertTrue(all(low <= v <= high for r in results if r.argmaxable
                                    for v in r.witness for low, high in [domain]))
                # Each class that passes the tolerance passes without it.
                plain = check_layer(weights, bias, inputs=domain)
                self.assertFalse(any(a.argmaxable and not b.argmaxable
                                     for a, b in zip(results, plain)))
                self.assertIn(False, [r.argmaxable for r in results])

    def test_radii_for_finite_inputs_are_the_moved_box_s(self):
        weights, bias = _layer(60, 10, 3)
        checked = list(iter_check_layer(weights, bias, radii=True, inputs=(-1, 3)))
        moved, moved_bias, box, _ = moved_layer(weights, bias, inputs_value((-1, 3)))
        in_box = list(iter_check_layer(moved, moved_bias, radii=True, box=box))
        self.assertEqual([c.radius for c in checked], [c.radius for c in in_box])
        self.assertEqual(radii(weights, bias, [c.result for c in checked], inputs=(-1, 3)),
                         [c.radius for c in checked])
        self.assertIn(None, [c.radius for c in checked])

    def test_a_tolerance_on_a_half_line_is_that_of_an_interval_long_enough(self):
        # Small integer layers win, if at all, well within 10**6 of the end:
        # the rounds on the orthant and the moved box must agree.
        far = 10 ** 6
        changed = 0
        for seed in range(70, 74):
            weights, bias = _layer(seed, 12, 3)
            for domain, long in [((0, INF), (0, far)), ((-INF, 0), (-far, 0)),
                                 ((F(1, 2), INF), (F(1, 2), far))]:
                plain = [r.argmaxable for r in check_layer(weights, bias, inputs=domain)]
                for tolerance in (F(1, 10), F(1, 2)):
                    with self.subTest(seed=seed, inputs=domain, tolerance=tolerance):
                        results = check_layer(weights, bias, inputs=domain, tolerance=tolerance)
                        self.assertEqual([r.argmaxable for r in results],
                                         [r.argmaxable for r in check_layer(
                                             weights, bias, inputs=long, tolerance=tolerance)])
                        self.assertTrue(all(verify_all(weights, bias, results, inputs=domain,
                                                       tolerance=tolerance)))
                        self.assertFalse(any(r.argmaxable and not p
                                             for r, p in zip(results, plain)))
                        changed += [r.argmaxable for r in results] != plain
        self.assertGreater(changed, 0)

    def test_classes_that_win_only_far_out_are_decided_by_the_far_box_without_rounds(self):
        # Class 1 wins for 1e300 < x < 2e300, class 2 past 2e300: the box
        # [0, 1000] leaves both, the second box (past 3e300 over 1) holds them.
        weights, bias = [[0], [1], [2]], [0, -10 ** 300, -3 * 10 ** 300]
        with mock.patch.object(Geometry, "decide_at", side_effect=AssertionError("a round")):
            for tolerance in (0, F(1, 10 ** 8)):
                results = check_layer(weights, bias, inputs=(0, INF), tolerance=tolerance)
                self.assertEqual([r.argmaxable for r in results], [True, True, True])
                self.assertTrue(10 ** 300 < results[1].witness[0] < 2 * 10 ** 300)
                self.assertTrue(all(verify_all(weights, bias, results, inputs=(0, INF),
                                               tolerance=tolerance)))
        self.assertEqual(Orthant(weights, bias).far_half(), F(2) ** 1007)

    def test_a_tiny_tolerance_on_a_half_line_keeps_the_witness_of_t_0(self):
        # Class 1 wins where x_0 + x_1 > 1e300: decided at T = 0 first, its
        # witness clears 1e-19700 as it is, where the program at T wrote one
        # of 67,501 bits, past what merge and checkpoints read back.
        weights, bias = [[0, 0], [1, 1], [F(1, 10 ** 300), F(2, 10 ** 300)]], [0, -F(10) ** 300,
                                                                             -F(1, 10 ** 300)]
        tolerance = F(1, 10 ** 19700)
        results = check_layer(weights, bias, inputs=(0, INF), tolerance=tolerance)
        self.assertEqual([r.argmaxable for r in results], [True, True, True])
        self.assertLess(max(F(v).denominator.bit_length() + F(v).numerator.bit_length()
                            for r in results for v in r.witness), 2100)
        self.assertTrue(all(verify_all(weights, bias, results, inputs=(0, INF),
                                       tolerance=tolerance)))

    def test_radii_on_a_half_line_have_their_centre_on_it(self):
        # Class 1 wins for |x| < 1e-9: centred at x >= 5e-10, its ball reaches
        # 1e-9 within 5e-10; without a bias, radii on x >= 0 are unbounded.
        weights, bias = [[0], [1], [2]], [0, F(1, 10 ** 9), 0]
        half = (F(1, 2 * 10 ** 9), INF)
        checked = list(iter_check_layer(weights, bias, radii=True, inputs=half))
        self.assertEqual(checked[1].radius.value, F(1, 2 * 10 ** 9))
        self.assertEqual((checked[0].radius, checked[1].radius.exact), (None, True))
        self.assertEqual(radii(weights, bias, [c.result for c in checked], inputs=half),
                         [c.radius for c in checked])
        unbiased = list(iter_check_layer([[1, 0], [0, 1]], radii=True, inputs=(0, INF)))
        self.assertEqual([c.radius.value for c in unbiased], [None, None])

    def test_radii_are_measured_where_the_results_question_asks(self):
        # The results carry their inputs: radii needs no inputs= to measure there.
        weights, bias = [[0], [1], [2]], [0, F(1, 10 ** 9), 0]
        half = (F(1, 2 * 10 ** 9), INF)
        results = check_layer(weights, bias, inputs=half)
        self.assertEqual(radii(weights, bias, results)[1].value, F(1, 2 * 10 ** 9))
        self.assertEqual(radii(weights, bias, check_layer(weights, bias))[1].value,
                         F(1, 10 ** 9))

    def test_radii_take_all_of_r_d_as_check_layer_does(self):
        weights, bias = [[0], [1], [2]], [0, 1, 0]
        results = check_layer(weights, bias)
        found = radii(weights, bias, results)
        for inputs in ((-INF, INF), (None, None), (None, INF)):
            with self.subTest(inputs=inputs):
                self.assertEqual(radii(weights, bias, results, inputs=inputs), found)

    def test_a_witness_that_clears_no_tolerance_is_refused(self):
        # At x = 1 class 1 beats class 0 by 1, at x = 1/2 by 1/2: |w_1 - w_0|_2 = 1.
        weights, bias = [[0], [1]], [0, 0]
        result = ClassResult(1, True, (F(1, 2),))
        self.assertTrue(verify(weights, bias, result, inputs=(0, 1), tolerance=F(1, 4)))
        self.assertFalse(verify(weights, bias, result, inputs=(0, 1), tolerance=F(1, 2)))


class TestVerify(unittest.TestCase):

    def test_a_witness_outside_the_domain_is_refused(self):
        weights, bias = [[0], [1]], [0, 0]
        self.assertTrue(verify(weights, bias, ClassResult(1, True, (1,)), inputs=(0, 2)))
        self.assertFalse(verify(weights, bias, ClassResult(1, True, (3,)), inputs=(0, 2)))

    def test_a_combination_must_bound_the_domain_s_largest_value(self):
        # l[0] - l[1] = x - 1/2 <= 0 on x <= 1/2 only.
        weights, bias = [[1], [0]], [F(-1, 2), 0]
        result = ClassResult(0, False, None, ((1, F(1)),), 2)
        self.assertTrue(verify(weights, bias, result, inputs=(-INF, F(1, 2))))
        self.assertFalse(verify(weights, bias, result, inputs=(-INF, 1)))
        self.assertFalse(verify(weights, bias, result, inputs=(0, INF)))

    def test_a_combination_check_refuses_weights_that_are_not_a_distribution(self):
        for lam in ([F(1, 2)], [F(-1), F(2)], []):
            with self.subTest(lam=lam):
                self.assertFalse(holds_at([[0]] * len(lam), [1] * len(lam), lam,
                                          Question(inputs=(None, None))))


class TestQuestions(unittest.TestCase):

    def test_a_result_states_the_question_it_answers(self):
        # Over R^1 class 1 wins for x > 2; over [0, 1] never: the result must say which.
        result = check_layer([[0], [1]], [0, -2], inputs=(0, 1))[1]
        self.assertEqual((result.argmaxable, result.inputs, result.box),
                         (False, Inputs(F(0), F(1)), None))
        self.assertIn("question=Question(inputs=Inputs(low=Fraction(0, 1), high=Fraction(1, 1)))",
                      repr(result))
        self.assertIn("question=Question()", repr(check_layer([[0], [1]], [0, -2])[1]))

    def test_ends_are_exact_and_infinities_are_no_end(self):
        self.assertEqual(inputs_value((0.1, INF)), Inputs(F(0.1), None))
        self.assertEqual(inputs_value((None, 2)), Inputs(None, F(2)))

    def test_bad_inputs_are_one_clear_error(self):
        for inputs, error, message in [
                ((1, 1), InputError, "the low end 1 is not below the high end 1"),
                ((INF, 2), InputError, "low end is inf: no x is there"),
                ((0, -INF), InputError, "high end is -inf"),
                ((0, math.nan), InputError, "high end is NaN"),
                ((0, "1"), TypeError, "inputs' high end must be a number"),
                ((0,), TypeError, "inputs must be a pair"),
                ("01", TypeError, "inputs must be a pair")]:
            with self.subTest(inputs=inputs):
                with self.assertRaisesRegex(error, message):
                    check_layer([[0], [1]], inputs=inputs)

    def test_a_moved_layer_past_the_size_limit_is_said_to_be_the_moved_one(self):
        # Each number is within the limit; b_0 + m w_0 spans 1e-10000 to 1e10000.
        weights, bias = [[F(1, 10 ** 10000)], [1]], [2 * 10 ** 10000, 0]
        self.assertEqual(len(check_layer(weights, bias)), 2)
        for inputs, shown in [((0, 1), "0 <= x <= 1"), ((0, INF), "x >= 0")]:
            with self.subTest(inputs=inputs):
                with self.assertRaisesRegex(InputError, "^for the inputs %s, the layer moved to"
                                                        " them .*: bias.0. is past the size"
                                                        " limit" % shown):
                    check_layer(weights, bias, inputs=inputs)

    def test_the_box_and_the_inputs_together_are_refused(self):
        with self.assertRaisesRegex(InputError, "the box or for the inputs, not both"):
            check_layer([[0], [1]], box=1, inputs=(0, 1))

    def test_the_moved_layer_and_the_shown_domain(self):
        self.assertEqual(moved_layer([[1, 1]], [0], Inputs(F(-1), F(3))),
                         ([[1, 1]], [F(2)], F(2), False))
        self.assertEqual([shown_inputs(inputs_value(d)) for d in DOMAINS[:4]],
                         ["x >= 0", "x <= 0", "0 <= x <= 1", "-1 <= x <= 3"])


if __name__ == "__main__":
    unittest.main()
