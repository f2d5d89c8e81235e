"""Tests of reviews.argmax.tolerance: the tolerance question (the released LP's) at T, exactly."""

import math
import random
import unittest
from decimal import Decimal
from fractions import Fraction as F
from unittest import mock

from reviews.argmax.check import check_layer
from reviews.argmax.result import ClassResult
from reviews.argmax.certified import verify_all
from reviews.argmax.verify import verify
from reviews.argmax.strategy.feasibility import Program
from reviews.argmax.kernels.layer_input import integer_layer
from reviews.argmax.kernels.packed import dot
from reviews.argmax.kernels.norms import _at_least_zero, holds_at
from reviews.argmax.question import Question, tolerance_value
from reviews.argmax.tolerance import Geometry, Radius, _integers, radii
from reviews.errors import InputError

DETECTOR = F(1, 10 ** 8)


def gaussian(seed, classes, dim, bias):
    rng = random.Random(seed)
    weights = [[rng.gauss(0, 1) for _ in range(dim)] for _ in range(classes)]
    return weights, ([rng.gauss(0, 1) for _ in range(classes)] if bias else None)


def sliver(width):
    """Three classes in d = 1; class 1 wins exactly for |x| < width: its largest radius."""
    return [[0], [1], [2]], [0, width, 0]


def diagonal(width):
    """The same in d = 2 along (1, 1): class 1's largest radius is width / sqrt(2)."""
    return [[0, 0], [1, 1], [2, 2]], [0, width, 0]


def float_chebyshev_radius(weights, bias, i, box):
    """The detector's LP in floats: max over |x_k| <= box of min_j m_j(x) / n_j.

    It is the value of the project's float program over the rows
    (w_i - w_j) / n_j with offsets (b_i - b_j) / n_j and its penalty fixed
    at the box (reviews.argmax.strategy.feasibility): a float reference, not a proof.
    """
    bias = bias or [0.0] * len(weights)
    rows, offsets = [], []
    for j, (w, b) in enumerate(zip(weights, bias)):
        if j != i:
            difference = [p - q for p, q in zip(weights[i], w)]
            norm = math.sqrt(sum(v * v for v in difference))
            rows.append([v / norm for v in difference])
            offsets.append((bias[i] - b) / norm)
    return Program(rows, offsets, float(box)).solve().value


class TestBothCertificatesAreCheckedExactly(unittest.TestCase):

    def test_every_certificate_verifies_at_its_tolerance_on_seeded_layers(self):
        for seed, classes, dim, bias, box in ((1, 30, 2, True, 100), (2, 25, 3, False, 100),
                                             (3, 20, 2, True, None), (4, 12, 3, False, None),
                                             (5, 40, 3, True, 1)):
            weights, biases = gaussian(seed, classes, dim, bias)
            for tolerance in (F(1, 10 ** 8), F(1, 100), F(1, 2)):
                with self.subTest(seed=seed, tolerance=tolerance):
                    results = check_layer(weights, biases, box=box, tolerance=tolerance)
                    self.assertTrue(all(r.tolerance == tolerance for r in results))
                    self.assertTrue(all(verify_all(weights, biases, results, box=box,
                                                   tolerance=tolerance)))

    def test_a_larger_tolerance_never_adds_an_argmaxable_class(self):
        weights, biases = gaussian(6, 40, 2, True)
        counts = [sum(r.argmaxable for r in check_layer(weights, biases, box=100, tolerance=t))
                  for t in (0, F(1, 100), F(1, 10), F(1, 2), F(2))]
        self.assertEqual(counts, sorted(counts, reverse=True))
        self.assertGreater(counts[0], counts[-1])

    def test_a_witness_must_clear_the_tolerance_and_terms_must_hold_at_it(self):
        weights, biases = sliver(F(1, 10 ** 9))
        plain = check_layer(weights, biases, box=100)[1]
        self.assertTrue(plain.argmaxable)
        self.assertTrue(verify(weights, biases, plain, box=100))
        self.assertFalse(verify(weights, biases, plain, box=100, tolerance=DETECTOR))
        failed = check_layer(weights, biases, box=100, tolerance=DETECTOR)[1]
        self.assertFalse(failed.argmaxable)
        self.assertFalse(verify(weights, biases, failed, box=100))
        self.assertTrue(verify(weights, biases, failed, box=100, tolerance=DETECTOR))
        # Those terms prove T = 1e-8, not T = 1e-9 - 1e-30.
        self.assertFalse(verify(weights, biases, failed, box=100,
                                tolerance=F(1, 10 ** 9) - F(1, 10 ** 30)))

    def test_a_failure_at_0_keeps_its_terms_at_every_tolerance(self):
        weights, biases = gaussian(7, 30, 2, True)
        plain = check_layer(weights, biases, box=100)
        tolerant = check_layer(weights, biases, box=100, tolerance=F(1, 3))
        for p, t in zip(plain, tolerant):
            if not p.argmaxable:
                self.assertEqual(t.terms, p.terms)


class TestExactThresholds(unittest.TestCase):

    def test_a_rational_radius_equal_to_the_tolerance_fails(self):
        # The largest radius is exactly 1e-9, attained only at x = 0: strictly
        # above T is needed.
        weights, biases = sliver(F(1, 10 ** 9))
        for tolerance, expected in ((F(1, 10 ** 9), False), (F(1, 10 ** 9) - F(1, 10 ** 40), True)):
            with self.subTest(tolerance=tolerance):
                result = check_layer(weights, biases, box=100, tolerance=tolerance)[1]
                self.assertIs(result.argmaxable, expected)
                self.assertTrue(verify(weights, biases, result, box=100, tolerance=tolerance))

    def test_an_irrational_radius_is_decided_within_1e_50(self):
        # Radius width / sqrt(2); the first bounds on sqrt(2) (64 bits) leave
        # T within 1e-50 of it open, and the bounds are tightened until they decide.
        width = F(1, 1000)
        scaled = 10 ** 50
        below = F(math.isqrt(scaled * scaled // 2 // 10 ** 6), scaled)
        for tolerance, expected in ((below, True), (below + F(1, scaled), False)):
            for box in (None, 100):
                with self.subTest(tolerance=tolerance, box=box):
                    weights, biases = diagonal(width)
                    result = check_layer(weights, biases, box=box, tolerance=tolerance)[1]
                    self.assertIs(result.argmaxable, expected)
                    self.assertTrue(verify(weights, biases, result, box=box,
                                           tolerance=tolerance))

    def test_the_sign_of_a_sum_of_roots(self):
        self.assertFalse(_at_least_zero(-3, [(1, 2), (1, 2)]))          # 2 sqrt(2) < 3
        self.assertTrue(_at_least_zero(F(-2828427, 10 ** 6), [(2, 2)]))
        self.assertTrue(_at_least_zero(-2, [(1, 4)]))                   # exactly 0
        self.assertFalse(_at_least_zero(F(-2) - F(1, 10 ** 60), [(1, 4)]))
        self.assertFalse(_at_least_zero(-5, [(1, 2), (1, 3), (1, F(1, 4))]))  # 3.646...

    def test_holds_at_weighs_the_norms_exactly(self):
        # Class i's bias is 1 above two rivals at w_i +- (1, 1): the rivals'
        # mean logit is l_i - 1, so T passes the terms iff T sqrt(2) >= 1.
        rows, offsets, lam = [[1, 1], [-1, -1]], [-1, -1], [F(1, 2)] * 2
        self.assertFalse(holds_at(rows, offsets, lam, Question(tolerance=F(7, 10))))
        self.assertTrue(holds_at(rows, offsets, lam, Question(tolerance=F(71, 100))))
        # sum lam (w_j - w_i) != 0, then 5 >= 2 * |(1, 1)|_1:
        self.assertFalse(holds_at(rows[:1], offsets[:1], [F(1)], Question(tolerance=5)))
        self.assertTrue(holds_at(rows[:1], [5], [F(1)], Question(box=2)))


class TestTheLinearProgramsQuestion(unittest.TestCase):
    """--box 100 --tolerance 1e-8 against a float Chebyshev LP, where its radius is far from T."""

    def test_agreement_with_the_float_lp_away_from_the_threshold(self):
        compared = thin = changed = 0
        # Seeds where class 6, on a face of classes 0, 3 and 8 in exact
        # arithmetic, is argmaxable on a sliver as stored in float64.
        for seed, bias in ((13, False), (20, False), (24, False), (8, True), (13, True)):
            weights, biases = gaussian(seed, 12, 4, bias)
            weights[6] = [0.2 * p + 0.3 * q + 0.5 * r
                          for p, q, r in zip(weights[0], weights[3], weights[8])]
            if biases:
                biases[6] = 0.2 * biases[0] + 0.3 * biases[3] + 0.5 * biases[8]
            plain = check_layer(weights, biases, box=100)
            results = check_layer(weights, biases, box=100, tolerance=DETECTOR)
            changed += sum(p.argmaxable != r.argmaxable for p, r in zip(plain, results))
            for i, result in enumerate(results):
                radius = float_chebyshev_radius(weights, biases, i, 100)
                # Far: a hundred times T or more, or below T / 100 (a class
                # without a bias that no ball fits has radius 0, at x = 0).
                if not 1e-10 <= radius <= 1e-6:
                    compared += 1
                    with self.subTest(seed=seed, i=i, radius=radius):
                        self.assertIs(result.argmaxable, radius > 1e-8)
                else:
                    thin += 1
        self.assertEqual((compared, thin, changed), (60, 0, 5))


class TestToleranceZeroIsTodaysCheck(unittest.TestCase):

    def test_tolerance_0_takes_todays_path_and_results(self):
        weights, biases = gaussian(21, 50, 3, True)
        with mock.patch.object(Geometry, "carried") as carried:
            for zero in (0, 0.0, Decimal(0), F(0)):
                self.assertEqual(check_layer(weights, biases, box=100, tolerance=zero),
                                 check_layer(weights, biases, box=100))
        carried.assert_not_called()
        self.assertEqual({r.tolerance for r in check_layer(weights, biases)}, {0})


class TestAWideWitnessCostsOnePackedProduct(unittest.TestCase):

    def test_classes_whose_witness_clears_the_tolerance_need_no_exact_pass(self):
        # Every witness clears 1e-8 by far: each class is settled by the
        # shifted packed layer, with no pass over all C rivals' margins.
        weights, biases = gaussian(31, 300, 4, True)
        results = check_layer(weights, biases, box=100)
        with mock.patch.object(Geometry, "_products", autospec=True,
                               side_effect=Geometry._products) as products:
            carried = check_layer(weights, biases, box=100, tolerance=DETECTOR)
        self.assertEqual(products.call_count, 0)
        self.assertEqual([r._replace(question=Question(100, DETECTOR)) for r in results], carried)
        self.assertEqual(sum(r.argmaxable for r in carried), 86)

    def test_the_shifted_check_finds_exactly_the_rivals_a_witness_does_not_clear(self):
        # Against each margin compared with T * n_j one rival at a time,
        # ordered by m_j / n_j (then index), for tolerances from 1e-8 to 1,
        # twins and rows on the witness's tie included.
        weights, biases = gaussian(32, 40, 3, True)
        weights += [weights[0], [2 * v for v in weights[1]]]
        biases += [biases[0] - 1, 2 * biases[1]]
        rows, integer_biases, _ = integer_layer(weights, biases)
        geometry = Geometry(rows, integer_biases, None)
        results = check_layer(weights, biases)
        for result in results:
            if not result.argmaxable:
                continue
            i = result.index
            numerators, s = _integers(result.witness)
            top = dot(rows[i], numerators) + integer_biases[i] * s
            for t in (F(1, 10 ** 8), F(1, 100), F(1, 3), F(1)):
                wanted = []
                for j, (row, b) in enumerate(zip(rows, integer_biases)):
                    margin = top - dot(row, numerators) - b * s
                    square = sum((p - q) ** 2 for p, q in zip(rows[i], row))
                    if j != i and not (margin > 0 and margin ** 2 > (t * s) ** 2 * square):
                        wanted.append((F(margin ** 2, square) if square and margin > 0
                                       else -1 if margin <= 0 else math.inf, j))
                with self.subTest(i=i, t=t):
                    self.assertEqual(geometry.short(i, numerators, s, t),
                                     [j for _, j in sorted(wanted)])


    def test_lengths_about_the_rows_mean_round_up_and_bound_every_distance(self):
        # Rows sharing a long direction: their lengths about the mean are
        # ceil(|w_j - c|) exactly, far below |w_j|, and L_i + L_j >= |w_i - w_j|.
        generator = random.Random(33)
        rows = [[1000 + generator.randrange(-9, 10), generator.randrange(-9, 10),
                 generator.randrange(-9, 10)] for _ in range(25)]
        geometry = Geometry(rows, None, None)
        centre = [F(sum(column), len(rows)) for column in zip(*rows)]
        for row, length in zip(rows, geometry.lengths):
            square = sum((v - c) ** 2 for v, c in zip(row, centre))
            self.assertTrue((length - 1) ** 2 < square <= length ** 2)
            self.assertLess(length, 20)
        for a, length_a in zip(rows, geometry.lengths):
            for b, length_b in zip(rows, geometry.lengths):
                self.assertLessEqual(sum((p - q) ** 2 for p, q in zip(a, b)),
                                     (length_a + length_b) ** 2)


class TestRadius(unittest.TestCase):

    def test_results_of_another_layer_are_refused(self):
        # Their witnesses prove nothing here; the search for a largest
        # radius below a witness that is none ran for minutes.
        weights, biases = sliver(F(3, 10 ** 9))
        other = [[-w for w in row] for row in weights]
        results = check_layer(other, biases, box=100)
        with self.assertRaisesRegex(InputError, "radii needs the layer's own results"):
            radii(weights, biases, results)
        with self.assertRaisesRegex(InputError, "not a class of this layer"):
            radii(weights[:2], biases[:2], check_layer(weights, biases, box=100))
        with self.assertRaisesRegex(InputError, "its witness has 1 coordinates, not the layer's 2"):
            radii([row + [0] for row in weights], biases, results)

    def test_a_thin_class_gets_its_largest_radius_rounded_down(self):
        for width, shown, upper in ((F(3, 10 ** 9), F(3, 10 ** 9), F(3, 10 ** 9)),
                                    (F(12345, 10 ** 14), F(123, 10 ** 12), F(124, 10 ** 12))):
            with self.subTest(width=width):
                weights, biases = sliver(width)
                found = radii(weights, biases, check_layer(weights, biases, box=100))
                self.assertEqual(found[1], Radius(shown, True, upper))

    def test_a_radius_past_the_float_range_is_found_exactly(self):
        weights, biases = sliver(Decimal("2.5e-3000"))
        found = radii(weights, biases, check_layer(weights, biases, box=100))
        self.assertEqual(found[1], Radius(F(25, 10 ** 3001), True, F(25, 10 ** 3001)))

    def test_a_witness_near_its_largest_ball_takes_one_decision_past_the_threshold(self):
        # The tester's 60-byte layer (bias 3e-12000) took seconds: a bisection
        # of 24 exact decisions over 12,000 decades, though its witness's
        # bound was already within a grid step of the answer.  Here 3e-300:
        # 19 decisions before, 3 now (the threshold's, the grid step's, then
        # whether the witness's bound is the largest radius itself).
        weights, biases = [[0, 0], [1, 1], [2, 2], [0, 1]], [0, Decimal("3e-300"), 0, -5]
        results = check_layer(weights, biases)
        decided = []
        original = Geometry.decide_at

        def counted(geometry, i, tolerance, working):
            decided.append(tolerance)
            return original(geometry, i, tolerance, working)

        with mock.patch.object(Geometry, "decide_at", counted):
            found = radii(weights, biases, results)
        # 3e-300 / sqrt(2) = 2.1213...e-300.
        self.assertEqual(found[1], Radius(F(212, 10 ** 302), True, F(213, 10 ** 302)))
        self.assertEqual(decided, [DETECTOR, F(213, 10 ** 302), F(212, 10 ** 302)])

    def test_an_irrational_largest_radius_is_rounded_down(self):
        # 1e-9 / sqrt(2) = 7.0710678...e-10.
        weights, biases = diagonal(F(1, 10 ** 9))
        found = radii(weights, biases, check_layer(weights, biases, box=100))
        self.assertEqual(found[1], Radius(F(707, 10 ** 12), True, F(708, 10 ** 12)))

    def test_a_largest_radius_of_three_digits_is_bracketed_not_shown_a_step_low(self):
        # Region x1 in (-1e-8, 0), distances 1 and 2: r* = 5e-9 exactly.
        weights, biases = [[0, 0], [1, 0], [3, 0]], [0, F(1, 10 ** 8), F(1, 10 ** 8)]
        found = radii(weights, biases, check_layer(weights, biases))
        self.assertEqual(found[1], Radius(F(499, 10 ** 11), True, F(5, 10 ** 9)))

    def test_a_largest_radius_of_exactly_the_threshold_is_thin(self):
        weights, biases = [[0], [1], [2]], [0, F(1, 10 ** 8), 0]
        found = radii(weights, biases, check_layer(weights, biases))
        self.assertEqual(found[1], Radius(F(1, 10 ** 8), True, F(1, 10 ** 8)))

    def test_a_class_that_passes_a_tolerance_gets_a_radius_above_it(self):
        weights, biases = [[0], [1], [2]], [0, F("3.0000001e-9"), 0]
        results = check_layer(weights, biases, box=100, tolerance=F(3, 10 ** 9))
        found = radii(weights, biases, results)
        self.assertEqual(found[1], Radius(F("3.00000009e-9"), True, F("3.0000001e-9")))
        self.assertGreater(found[1].value, F(3, 10 ** 9))

    def test_a_poor_witness_does_not_put_a_wide_class_on_the_list(self):
        # Class 1 wins for every x > 0; a witness at 1e-12 bounds its radius by 1e-12 only.
        weights, biases = [[0], [1]], [0, 0]
        poor = [ClassResult(0, True, (F(-1),), question=Question(F(100))),
                ClassResult(1, True, (F(1, 10 ** 12),), question=Question(F(100)))]
        self.assertTrue(verify(weights, biases, poor[1], box=100))
        found = radii(weights, biases, poor)
        self.assertFalse(found[1].exact)
        self.assertGreaterEqual(found[1].value, DETECTOR)

    def test_the_bound_is_the_witness_s_distance_to_its_nearest_tie(self):
        # Figure 1 with a bias: x = w_2 is 3.68 / sqrt(8.48) = 1.2637... from the tie with class 1.
        weights = [[-2, -2], [1, 2], [F(9, 5), F(-4, 5)], [F(9, 10), F(1, 5)]]
        result = ClassResult(2, True, (F(9, 5), F(-4, 5)))
        self.assertEqual(radii(weights, [0, 0, 0, 0], [result]), [Radius(F(126, 100), False)])

    def test_without_a_bias_a_class_region_is_a_cone(self):
        weights = [[-2, -2], [1, 2], [F(9, 5), F(-4, 5)]]
        unbounded = radii(weights, None, check_layer(weights))
        self.assertEqual(unbounded, [Radius(None, False)] * 3)
        # In the box the witness goes to its edge: (9/5, -4/5) * 100 / (9/5).
        boxed = radii(weights, None, check_layer(weights, box=100))
        self.assertEqual(boxed[2], Radius(F(702, 10), False))

    def test_every_bound_is_below_the_float_lp_radius(self):
        weights, biases = gaussian(31, 30, 2, True)
        results = check_layer(weights, biases, box=100)
        for result, radius in zip(results, radii(weights, biases, results)):
            if radius is not None:
                self.assertLessEqual(radius.value, float_chebyshev_radius(
                    weights, biases, result.index, 100) * (1 + 1e-9))


class TestInput(unittest.TestCase):

    def test_tolerance_must_be_a_number_of_0_or_more(self):
        self.assertEqual(tolerance_value(Decimal("1e-8")), DETECTOR)
        for bad, error in ((-1, InputError), (float("nan"), InputError),
                           (float("inf"), InputError), ("1e-8", TypeError), (True, TypeError)):
            with self.subTest(bad=bad):
                with self.assertRaises(error):
                    check_layer([[0], [1]], tolerance=bad)
                with self.assertRaises(error):
                    verify([[0], [1]], None, ClassResult(1, True, (F(1),)), tolerance=bad)


class TestWorkers(unittest.TestCase):

    def test_jobs_give_the_same_results_as_one_process(self):
        # 300 classes on the unit circle, bias -1/2: each wins near its own
        # weights (Appendix D); every tenth is replaced by its neighbours'
        # midpoint, bias raised by 1e-12: a sliver, re-decided at T.
        weights = [[math.cos(k / 50), math.sin(k / 50)] for k in range(300)]
        biases = [-0.5] * 300
        for n in range(5, 300, 10):
            weights[n] = [(p + q) / 2 for p, q in zip(weights[n - 1], weights[n + 1])]
            biases[n] = (biases[n - 1] + biases[n + 1]) / 2 + 1e-12
        tolerance = F(1, 10 ** 9)
        one = check_layer(weights, biases, box=100, tolerance=tolerance)
        self.assertEqual(check_layer(weights, biases, box=100, tolerance=tolerance, jobs=2), one)
        plain = check_layer(weights, biases, box=100)
        self.assertEqual([p.index for p, t in zip(plain, one) if p.argmaxable != t.argmaxable],
                         list(range(5, 300, 10)))
