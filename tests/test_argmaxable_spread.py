"""check_layer on layers whose entries span hundreds of orders of magnitude.

One scale for the whole layer leaves most rows of the float program zero;
scaled row by row (reviews.feasibility.scaled_floats), floats still find
the basis, which is then checked exactly, and the exact program is not
needed.
"""

import unittest
from fractions import Fraction as F
from unittest import mock

from reviews import feasibility
from reviews.argmaxable import check_layer, verify

# Entries from 2**-259 to 2**297: a spread of 556 bits.
SPREAD = [[F(2) ** -259, F(2) ** 223], [F(2) ** 114, F(2) ** 188],
          [F(2) ** 297, -F(2) ** 216], [-F(2) ** -12, -F(2) ** -203]]


class TestWideSpread(unittest.TestCase):

    def exact_programs(self, weights, bias=None):
        """The results, and how many exact programs they took."""
        created = []
        original = feasibility.Program.__init__

        def counting(program, *args, **keywords):
            created.append(keywords.get("exact", False))
            original(program, *args, **keywords)

        with mock.patch.object(feasibility.Program, "__init__", counting):
            results = check_layer(weights, bias)
        return results, sum(created)

    def test_floats_decide_a_layer_spanning_556_bits(self):
        results, exact = self.exact_programs(SPREAD)
        self.assertEqual(exact, 0)
        self.assertEqual([r.argmaxable for r in results], [True, False, True, True])
        self.assertTrue(all(verify(SPREAD, None, r) for r in results))

    def test_the_answer_does_not_depend_on_the_float_scaling(self):
        # The same layer times 2**-40 and with a bias: exact answers, checked.
        weights = [[v * F(2) ** -40 for v in row] for row in SPREAD]
        bias = [F(2) ** 100, -F(2) ** -100, 0, 1]
        results, _ = self.exact_programs(weights, bias)
        self.assertTrue(all(verify(weights, bias, r) for r in results))
        self.assertEqual([r.argmaxable for r in results],
                         [r.argmaxable for r in check_layer(weights, bias, box=F(2) ** 400)])


if __name__ == "__main__":
    unittest.main()
