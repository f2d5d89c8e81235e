"""Tests of reviews.argmax.kernels.lifting: square and tall integer systems solved exactly."""

import random
import unittest
from fractions import Fraction as F

from reviews.argmax.strategy.feasibility import solve_square
from reviews.argmax.kernels.lifting import solve_integers


def _solution(solved):
    numerators, denominator = solved
    return [F(v, denominator) for v in numerators]


class TestSolveIntegers(unittest.TestCase):

    def test_a_unit_solution_has_denominator_one(self):
        self.assertEqual(solve_integers([[2, 1], [0, 3]], [3, 3]), ([1, 1], 1))

    def test_the_denominator_is_the_least_common_one(self):
        self.assertEqual(solve_integers([[2, 0], [0, 4]], [1, 2]), ([1, 1], 2))

    def test_it_agrees_with_fraction_free_elimination(self):
        rng = random.Random(7)
        for n in (1, 2, 5, 13, 30):
            rows = [[rng.randint(-2 ** 40, 2 ** 40) for _ in range(n)] for _ in range(n)]
            rhs = [rng.randint(-9, 9) for _ in range(n)]
            columns = [[rows[r][k] for r in range(n)] for k in range(n)]
            self.assertEqual(_solution(solve_integers(rows, rhs)), solve_square(columns, rhs))

    def test_entries_of_thousands_of_bits(self):
        rng = random.Random(8)
        rows = [[rng.randint(-2 ** 3000, 2 ** 3000) for _ in range(6)] for _ in range(6)]
        x = [F(rng.randint(-99, 99), rng.randint(1, 99)) for _ in range(6)]
        rhs = [sum(a * v for a, v in zip(row, x)) for row in rows]
        scale = 1
        for v in rhs:
            scale = scale * v.denominator // __import__("math").gcd(scale, v.denominator)
        self.assertEqual(_solution(solve_integers(rows, [int(v * scale) for v in rhs])),
                         [v * scale for v in x])

    def test_a_singular_matrix_has_none(self):
        self.assertIsNone(solve_integers([[1, 2], [2, 4]], [1, 2]))
        self.assertIsNone(solve_integers([[0, 0], [0, 0]], [0, 0]))

    def test_a_tall_system_of_full_rank_is_solved_and_checked_on_every_row(self):
        rows = [[1, 1], [2, 2], [1, -1]]
        self.assertEqual(solve_integers(rows, [1, 2, 0]), ([1, 1], 2))
        # The first independent rows are solvable, the last row is not.
        self.assertIsNone(solve_integers(rows + [[3, 1]], [1, 2, 0, 0]))

    def test_a_tall_system_of_lower_rank_has_none(self):
        self.assertIsNone(solve_integers([[1, 2], [2, 4], [3, 6]], [1, 2, 3]))

    def test_a_matrix_singular_modulo_the_first_prime_is_still_solved(self):
        p = 2 ** 62 - 57
        rows = [[p, 0], [0, 1]]
        self.assertEqual(solve_integers(rows, [p, 1]), ([1, 1], 1))


if __name__ == "__main__":
    unittest.main()
