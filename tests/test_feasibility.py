"""Tests of reviews.feasibility: the exact alternative and its certificates."""

import random
import unittest
from fractions import Fraction as F

from reviews.errors import InputError
from reviews.feasibility import (
    Program, basis_combination, decide, is_combination, is_witness, solve_square,
)


class TestDecide(unittest.TestCase):

    def test_opposite_rows_give_the_half_half_combination(self):
        self.assertEqual(decide([[1], [-1]], [0, 0]), (None, (F(1, 2), F(1, 2))))

    def test_offsets_can_rescue_opposite_rows(self):
        decision = decide([[1], [-1]], [1, 1])
        self.assertIsNone(decision.combination)
        self.assertTrue(is_witness([[1], [-1]], [1, 1], decision.witness))

    def test_exactly_one_certificate_and_it_checks(self):
        rng = random.Random(3)
        for _ in range(400):
            n, d = rng.randint(1, 6), rng.randint(1, 4)
            rows = [[rng.randint(-3, 3) for _ in range(d)] for _ in range(n)]
            offsets = [rng.randint(-3, 3) for _ in range(n)]
            witness, combination = decide(rows, offsets)
            with self.subTest(rows=rows, offsets=offsets):
                self.assertEqual(witness is None, combination is not None)
                if witness is None:
                    self.assertTrue(is_combination(rows, offsets, combination))
                else:
                    self.assertTrue(is_witness(rows, offsets, witness))

    def test_zero_row_with_zero_offset_is_infeasible(self):
        self.assertEqual(decide([[0, 0]], [0]).combination, (F(1),))

    def test_empty_system_is_an_error(self):
        with self.assertRaisesRegex(InputError, "at least one row"):
            decide([], [])


class TestProgram(unittest.TestCase):

    def test_exact_program_finds_the_barycentric_combination(self):
        rows = [[F(-1), F(0)], [F(1), F(-1)], [F(1), F(1)]]
        relaxed = Program(rows, [0, 0, 0], F(4), exact=True).solve()
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


class TestSolveSquare(unittest.TestCase):

    def test_exact_rational_solution(self):
        self.assertEqual(solve_square([[3, 1], [1, 2]], [9, 8]), [F(2), F(3)])

    def test_fraction_entries(self):
        self.assertEqual(solve_square([[F(1, 2)]], [F(1, 3)]), [F(2, 3)])

    def test_singular_is_none(self):
        self.assertIsNone(solve_square([[1, 2], [2, 4]], [1, 1]))


if __name__ == "__main__":
    unittest.main()
