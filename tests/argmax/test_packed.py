"""Tests for reviews.argmax.packed: the packed check is exact where its rounding is not."""

import random
import unittest

from reviews.argmax import packed
from reviews.argmax.packed import Packed, dot


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

    def test_rows_of_every_length_in_many_dimensions_with_both_levels(self):
        # Norms from 1 to 2**40 in one layer: each block rounds by its own
        # power of 2; near-ties (a candidate close to its row) make the
        # coarse fields flag many rows, which the fine ones then decide.
        rng = random.Random(11)
        for prune in (False, True):
            rows = []
            for _ in range(1500):
                size = 2 ** rng.randint(0, 40)
                rows.append([rng.randint(-size, size) for _ in range(20)])
            layer = Packed(rows, prune)
            for i in (0, 7, 700, 1499):
                for spread in (0, 3, 2 ** 20):
                    candidate = [v + rng.randint(-spread, spread) for v in rows[i]]
                    with self.subTest(prune=prune, i=i, spread=spread):
                        self.assertEqual(sorted(layer.beaten_by(i, candidate, 5000)),
                                         _beaten_exactly(rows, i, candidate))

    def test_a_handicap_lowers_the_class_s_own_logit_exactly(self):
        # Rivals within the handicap of the class's logit, ties included,
        # however far below the rounding the handicap is.
        rng = random.Random(8)
        rows = [[rng.randint(-2 ** 30, 2 ** 30) for _ in range(4)] for _ in range(1100)]
        for prune in (False, True):
            packed = Packed(rows, prune)
            for i in (0, 600, 1099):
                candidate = [v + rng.randint(-9, 9) for v in rows[i]]
                own = dot(rows[i], candidate)
                gaps = sorted(own - dot(row, candidate) for j, row in enumerate(rows) if j != i)
                gaps = [g for g in gaps if g > 0]
                for handicap in (0, 1, gaps[0] - 1, gaps[0], gaps[10], gaps[-1]):
                    wanted = [j for j, row in enumerate(rows)
                              if j != i and dot(row, candidate) >= own - handicap]
                    with self.subTest(prune=prune, i=i, handicap=handicap):
                        self.assertEqual(sorted(packed.beaten_by(i, candidate, 5000, handicap)),
                                         wanted)

    def test_a_class_far_below_every_rival_finds_them_all(self):
        # The class's own logit is far below what any field of the long
        # rows' block could hold: every row of that block is a suspect.
        rows = [[2 ** 30 + j, 2 ** 30 - j] + [0] * 14 for j in range(600)] + [[-1] + [0] * 15]
        for prune in (False, True):
            with self.subTest(prune=prune):
                layer = Packed(rows, prune)
                self.assertEqual(sorted(layer.beaten_by(600, [2 ** 40, 2 ** 40] + [0] * 14, 700)),
                                 list(range(600)))

    def test_a_near_tie_block_is_decided_with_the_fine_fields(self):
        # Sixty rows within rounding of the candidate's own logit: more than
        # the coarse fields leave to exact checks, so the block is redone.
        rows = [[1000 + (j % 3) - 1] * 16 for j in range(60)] + [[1000] * 16]
        layer = Packed(rows, prune=False)
        coarse, fine = layer.levels
        candidate = [1] * 16
        rounded = coarse.rounded(candidate, dot(candidate, candidate))
        self.assertIsNone(coarse.suspects(0, rounded, dot(rows[60], candidate), 60, refine=True))
        self.assertEqual(sorted(layer.beaten_by(60, candidate, 100)),
                         _beaten_exactly(rows, 60, candidate))

    def test_fields_are_two_bytes_in_many_dimensions_and_grow_past_them(self):
        self.assertEqual([level.size for level in Packed([[1] * 64, [2] * 64], True).levels],
                         [2, 4])
        self.assertEqual([level.size for level in Packed([[1] * 4, [2] * 4], True).levels], [4])
        # In 10,000 dimensions a candidate rounded to a 2-norm of
        # sqrt(budget) may have a 1-norm of sqrt(10,000 * budget): a bound
        # past half the budget of 2 bytes: 4, and 8 for the fine level.
        rng = random.Random(2)
        rows = [[rng.choice((-1, 1)) * 2 ** 20 for _ in range(10000)] for _ in range(2)]
        wide = Packed(rows, prune=False)
        self.assertEqual([level.size for level in wide.levels], [4, 8])
        self.assertEqual(wide.beaten_by(0, rows[1], 2), [1])
        self.assertEqual(wide.beaten_by(1, rows[1], 2), [])


class TestRoundingShift(unittest.TestCase):

    def test_the_rounded_vector_stays_within_the_budget(self):
        rng = random.Random(3)
        for _ in range(300):
            width = rng.randint(1, 50)
            vector = [rng.randint(-2 ** 60, 2 ** 60) >> rng.randint(0, 60) for _ in range(width)]
            budget = 2 ** rng.randint(8, 30)
            shift = packed._rounding_shift(dot(vector, vector), budget, width)
            rounded = packed._rounded(vector, shift)
            self.assertLessEqual(dot(rounded, rounded), budget)
            if shift > 1:
                # Not far from the least shift: two fewer bits would not do.
                looser = packed._rounded(vector, shift - 2)
                self.assertGreater(dot(looser, looser), budget // 4)


if __name__ == "__main__":
    unittest.main()
