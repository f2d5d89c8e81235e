"""Tests for reviews.packed: the packed check is exact where its rounding is not."""

import random
import unittest

from reviews.packed import Packed, dot


def _beaten_exactly(rows, i, candidate):
    """Every class j != i with logit_j >= logit_i, one dot product at a time."""
    own = dot(rows[i], candidate)
    return sorted(j for j, row in enumerate(rows) if j != i and dot(row, candidate) >= own)


class TestRoundingNeverDecides(unittest.TestCase):

    def test_rows_apart_by_less_than_the_rounding_are_told_apart(self):
        # The rows differ in their 41st bit; the packed fields keep ~10 bits.
        rows = [[2 ** 40, 0], [2 ** 40 + 1, 0]]
        packed = Packed(rows, prune=True)
        self.assertEqual(packed.beaten_by(0, [1, 0], 2), [1])
        self.assertEqual(packed.beaten_by(1, [1, 0], 2), [])

    def test_candidates_apart_by_less_than_the_rounding_are_told_apart(self):
        rows = [[1, 0], [0, 1]]
        packed = Packed(rows, prune=False)
        self.assertEqual(packed.beaten_by(0, [2 ** 40, 2 ** 40 + 1], 2), [1])
        self.assertEqual(packed.beaten_by(1, [2 ** 40, 2 ** 40 + 1], 2), [])
        self.assertEqual(packed.beaten_by(1, [2 ** 40 + 1, 2 ** 40 + 1], 2), [0])

    def test_every_rival_found_across_blocks_with_and_without_pruning(self):
        # More classes than one block holds, entries and candidates of many sizes.
        rng = random.Random(5)
        for bits in (3, 20, 70):
            rows = [[rng.randint(-2 ** bits, 2 ** bits) for _ in range(3)] for _ in range(2100)]
            for prune in (False, True):
                packed = Packed(rows, prune)
                for i in (0, 1234, 2099):
                    candidate = [v + rng.randint(-2, 2) for v in rows[i]]
                    with self.subTest(bits=bits, prune=prune, i=i):
                        self.assertEqual(sorted(packed.beaten_by(i, candidate, 5000)),
                                         _beaten_exactly(rows, i, candidate))


if __name__ == "__main__":
    unittest.main()
