"""Tests of reviews.argmax.strategy.feasibility: the exact alternative and its certificates."""

import decimal
import math
import random
import unittest
from decimal import Decimal
from fractions import Fraction as F
from unittest import mock

from reviews.argmax.strategy import feasibility
from reviews.argmax.kernels.arithmetic import EXACT, Decimals
from reviews.errors import InputError
from reviews.argmax.strategy.feasibility import (
    Program, basis_combination, decide_system, is_combination, is_witness, solve_square,
)


def random_system(rng, most_rows, most_dim, entry=None, offset=None, number=None):
    """Rows and offsets of a random system: 1..most_rows rows in 1..most_dim
    dimensions, integers up to ``entry`` and ``offset`` in size, or each
    drawn by ``number()``."""
    n, d = rng.randint(1, most_rows), rng.randint(1, most_dim)
    row_number = number or (lambda: rng.randint(-entry, entry))
    offset_number = number or (lambda: rng.randint(-offset, offset))
    return ([[row_number() for _ in range(d)] for _ in range(n)],
            [offset_number() for _ in range(n)])


class TestDecide(unittest.TestCase):

    def test_opposite_rows_give_the_half_half_combination(self):
        self.assertEqual(decide_system([[1], [-1]], [0, 0]), (None, (F(1, 2), F(1, 2))))

    def test_offsets_can_rescue_opposite_rows(self):
        decision = decide_system([[1], [-1]], [1, 1])
        self.assertIsNone(decision.combination)
        self.assertTrue(is_witness([[1], [-1]], [1, 1], decision.witness))

    def test_exactly_one_certificate_and_it_checks(self):
        rng = random.Random(3)
        for _ in range(400):
            rows, offsets = random_system(rng, 6, 4, 3, 3)
            witness, combination = decide_system(rows, offsets)
            with self.subTest(rows=rows, offsets=offsets):
                self.assertEqual(witness is None, combination is not None)
                if witness is None:
                    self.assertTrue(is_combination(rows, offsets, combination))
                else:
                    self.assertTrue(is_witness(rows, offsets, witness))

    def test_zero_row_with_zero_offset_is_infeasible(self):
        self.assertEqual(decide_system([[0, 0]], [0]).combination, (F(1),))

    def test_a_witness_past_1e100_is_found(self):
        # x_2 > 1e100 is needed; the exact program's box must grow that far.
        rows, offsets = [[0, F(1e-100)], [1, F(1e-100)]], [-1, -1]
        witness = decide_system(rows, offsets).witness
        self.assertIsNotNone(witness)
        self.assertTrue(is_witness(rows, offsets, witness))

    def test_extreme_systems_always_decide(self):
        rng = random.Random(4)
        for _ in range(60):
            rows, offsets = random_system(
                rng, 4, 3, number=lambda: rng.choice([0, 1, -1]) * F(10) ** rng.randint(-120, 120))
            witness, combination = decide_system(rows, offsets)
            with self.subTest(rows=rows, offsets=offsets):
                if witness is None:
                    self.assertTrue(is_combination(rows, offsets, combination))
                else:
                    self.assertTrue(is_witness(rows, offsets, witness))

    def test_empty_system_is_an_error(self):
        with self.assertRaisesRegex(InputError, "at least one row"):
            decide_system([], [])


class TestProgram(unittest.TestCase):

    def test_exact_program_finds_the_barycentric_combination(self):
        rows = [[F(-1), F(0)], [F(1), F(-1)], [F(1), F(1)]]
        relaxed = Program(rows, [0, 0, 0], F(4), EXACT).solve()
        self.assertEqual(relaxed.value, 0)
        self.assertFalse(relaxed.slack)
        self.assertEqual(basis_combination(rows, [0, 0, 0], relaxed.basis),
                         (F(1, 2), F(1, 4), F(1, 4)))

    def test_adding_rows_keeps_solving_from_the_last_basis(self):
        program = Program([[1.0]], [0.0], 4.0)
        self.assertGreater(program.solve().value, 0)
        program.add([[-1.0]], [0.0])
        self.assertEqual(program.solve().value, 0)

    def test_raising_the_penalty_reaches_a_far_witness(self):
        # x > 10 is needed: the box |x| <= 4 cannot hold a witness.
        rows, offsets = [[1.0], [0.0]], [-10.0, 1.0]
        program = Program(rows, offsets, 4.0)
        self.assertLessEqual(program.solve().value, 0)
        self.assertTrue(program.solve().slack)
        program.raise_penalty(64.0)
        relaxed = program.solve()
        self.assertGreater(relaxed.value, 0)
        self.assertTrue(is_witness(rows, offsets, [F(v) for v in relaxed.x]))


class TestDecimalProgram(unittest.TestCase):
    """Program(..., Decimals(n)): the float tableau in Decimals with a wide exponent range."""

    ROWS = [[1, F(1, 10 ** 400)], [-1, F(1, 10 ** 400)]]

    def test_decimals_keep_the_entries_floats_drop(self):
        # Only x_2 separates the rows, by 1e-400 per unit: floats see 0.
        # Sums mix 1 and 1e-400, so the digits must cover the spread.
        float_rows = [[float(v) for v in row] for row in self.ROWS]
        self.assertEqual(Program(float_rows, [0.0, 0.0], 4.0).solve().value, 0)
        program = Program(self.ROWS, [0, 0], 4, Decimals(440))
        relaxed = program.solve()
        self.assertEqual(relaxed.value, 4 * Decimal("1e-400"))
        self.assertTrue(is_witness(self.ROWS, [0, 0], [F(v) for v in relaxed.x]))

    def test_its_arithmetic_leaves_the_callers_context_alone(self):
        program = Program(self.ROWS, [0, 0], 4, Decimals(30))
        with decimal.localcontext() as outside:
            outside.prec = 5
            program.solve()
            self.assertEqual(decimal.getcontext().prec, 5)
        self.assertEqual(str(program.penalty), "4")

    def test_the_penalty_is_squared_up_to_its_limit(self):
        program = Program(self.ROWS, [0, 0], 4, Decimals(30))
        with mock.patch.object(feasibility, "_WIDE_PENALTY_LIMIT", Decimal(100)):
            self.assertTrue(program.grow_penalty())
            self.assertEqual(program.penalty, 16)
            self.assertTrue(program.grow_penalty())
            self.assertEqual(program.penalty, 256)
            self.assertFalse(program.grow_penalty())
            self.assertEqual(program.penalty, 256)


class TestExactProgramEnds(unittest.TestCase):
    """The bound of the module docstring: past it, one exact solve decides."""

    @staticmethod
    def bound(rows, offsets):
        size = max(math.isqrt(sum(v * v for v in a) + c * c) + 1 for a, c in zip(rows, offsets))
        return (size + 2) ** (len(rows[0]) + 1) + 1

    def test_a_penalty_past_the_bound_leaves_no_slack_or_finds_a_witness(self):
        rng = random.Random(5)
        for _ in range(300):
            rows, offsets = random_system(rng, 5, 3, 4, 40)
            relaxed = Program(rows, offsets, self.bound(rows, offsets), EXACT).solve()
            with self.subTest(rows=rows, offsets=offsets):
                self.assertTrue(relaxed.value > 0 or not relaxed.slack)

    def test_the_combination_is_of_the_rows_as_given(self):
        # Rows are divided by their gcds inside; the weights come back for the rows given.
        rows, offsets = [[6], [-2]], [0, 0]
        program = Program(rows, offsets, 4, EXACT)
        relaxed = program.solve()
        self.assertFalse(relaxed.slack)
        self.assertEqual(program.row_weights(), [F(1, 4), F(3, 4)])

    def test_one_growth_reaches_past_the_largest_offset(self):
        # x > 2**1000 is needed; squaring from 4 took 9 re-solves to get there.
        program = Program([[1], [3]], [-2 ** 1000, 0], 4, EXACT)
        growths = 0
        while True:
            relaxed = program.solve()
            if relaxed.value > 0 or not relaxed.slack:
                break
            program.grow_penalty()
            growths += 1
        self.assertEqual(growths, 1)
        self.assertTrue(is_witness([[1], [3]], [-2 ** 1000, 0], relaxed.x))

    def test_the_exact_ratio_test_builds_no_fractions(self):
        # A Fraction per candidate row costs a gcd of numbers of up to
        # hundreds of thousands of bits; only the optimum (d + 1 values) needs them.
        rows = [[3, 1], [-1, 2], [-2, -5], [1, -1], [4, 4]]
        program = Program(rows, [1, 2, -3, 0, -1], 4, EXACT)
        with mock.patch.object(feasibility, "Fraction", wraps=F) as spy:
            relaxed = program.solve()
        self.assertEqual(spy.call_count, 3)
        self.assertEqual(relaxed.value, F(-7, 11))

    def test_an_exact_program_takes_integers(self):
        with self.assertRaisesRegex(InputError, "integers, not 1/2"):
            Program([[F(1, 2)]], [0], 4, EXACT)


def _feasible_on_a_segment(rows, offsets, box):
    """Whether a_k x + c_k > 0 for all k at some x in [-box, box] (d = 1), from the lines."""
    low, high = -box, box
    strict_low = strict_high = False
    for (a,), c in zip(rows, offsets):
        if a == 0:
            if c <= 0:
                return False
        elif a > 0 and F(-c, a) >= low:
            low, strict_low = F(-c, a), True
        elif a < 0 and F(-c, a) <= high:
            high, strict_high = F(-c, a), True
    return low < high or (low == high and not (strict_low or strict_high))


class TestBoxedDecide(unittest.TestCase):
    """The alternative with |x_q| <= M: a witness in the box or a boxed combination."""

    def test_exactly_one_certificate_and_it_checks(self):
        rng = random.Random(5)
        for _ in range(300):
            rows, offsets = random_system(rng, 6, 3, 3, 6)
            box = rng.choice([F(1, 2), 1, 3, F(7, 3)])
            witness, combination = decide_system(rows, offsets, box=box)
            with self.subTest(rows=rows, offsets=offsets, box=box):
                self.assertEqual(witness is None, combination is not None)
                if witness is None:
                    self.assertIs(is_combination(rows, offsets, combination, box), True)
                else:
                    self.assertIs(is_witness(rows, offsets, witness, box), True)

    def test_one_dimension_agrees_with_the_segment(self):
        rng = random.Random(6)
        for _ in range(300):
            n = rng.randint(1, 5)
            rows = [[rng.randint(-3, 3)] for _ in range(n)]
            offsets = [rng.randint(-6, 6) for _ in range(n)]
            box = rng.choice([F(1, 2), 1, 2, F(5, 3)])
            with self.subTest(rows=rows, offsets=offsets, box=box):
                self.assertEqual(decide_system(rows, offsets, box=box).witness is not None,
                                 _feasible_on_a_segment(rows, offsets, box))

    def test_a_tie_at_the_edge_is_no_witness(self):
        # x > 2 is needed; the box [-2, 2] only reaches the tie.
        self.assertEqual(decide_system([[1]], [-2], box=2), (None, (F(1),)))
        self.assertEqual(decide_system([[1]], [-2], box=F(5, 2)).witness, (F(5, 2),))

    def test_a_combination_without_residual_proves_every_box(self):
        lam = decide_system([[1], [-1]], [0, 0]).combination
        for box in (F(1, 10 ** 9), 1, 10 ** 9):
            self.assertIs(is_combination([[1], [-1]], [0, 0], lam, box), True)

    def test_a_boxed_combination_is_not_one_for_a_larger_box_or_for_r_d(self):
        lam = decide_system([[1]], [-2], box=2).combination
        self.assertIs(is_combination([[1]], [-2], lam, 2), True)
        self.assertIs(is_combination([[1]], [-2], lam, F(201, 100)), False)
        self.assertIs(is_combination([[1]], [-2], lam), False)

    def test_a_witness_outside_the_box_does_not_count(self):
        self.assertIs(is_witness([[1]], [-2], [3]), True)
        self.assertIs(is_witness([[1]], [-2], [3], box=F(5, 2)), False)

    def test_boxes_past_the_float_range_decide_exactly(self):
        for box in (F(10) ** 400, F(1, 10 ** 400)):
            with self.subTest(box=box):
                witness, combination = decide_system([[1], [1]], [0, -1], box=box)
                self.assertEqual(witness is not None, box > 1)
                if witness is None:
                    self.assertIs(is_combination([[1], [1]], [0, -1], combination, box), True)
                else:
                    self.assertIs(is_witness([[1], [1]], [0, -1], witness, box), True)


class TestSolveSquare(unittest.TestCase):

    def test_exact_rational_solution(self):
        self.assertEqual(solve_square([[3, 1], [1, 2]], [9, 8]), [F(2), F(3)])

    def test_fraction_entries(self):
        self.assertEqual(solve_square([[F(1, 2)]], [F(1, 3)]), [F(2, 3)])

    def test_singular_is_none(self):
        self.assertIsNone(solve_square([[1, 2], [2, 4]], [1, 1]))


if __name__ == "__main__":
    unittest.main()
