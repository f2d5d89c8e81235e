"""Tests for reviews.argmax.kernels.packed: the packed check is exact where its rounding is not."""

import copy
import random
import unittest
from unittest import mock

from reviews.argmax.kernels import packed
from reviews.argmax.kernels.packed import Packed, dot


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


def _unscreened(layer):
    """The packed ``layer`` without its screen: every block goes to the levels
    (its levels shared, its own tally of the screen's use)."""
    plain = copy.copy(layer)
    plain.head, plain.tally = None, [0, 0, 0]
    return plain


def _recorded(function, results):
    """``function``, appending what it returns to ``results``."""
    def recorded(*arguments):
        results.append(function(*arguments))
        return results[-1]
    return recorded


class TestScreen(unittest.TestCase):
    """The head coordinates and a bound for the rest clear most blocks in
    many dimensions; the rivals found, and their order, stay those of the
    levels alone."""

    @staticmethod
    def _layer(rival):
        # Class 0 along the first column; 30 rows spread over the 32 head
        # columns (0 to 30 and the last); row 31 long in column 40, row 32
        # in column 50, outside the head, where the candidate is long too.
        rng = random.Random(1)
        rows = [[0] * 64 for _ in range(33)]
        rows[0][0] = 10000
        for row in rows[1:31]:
            for k in list(range(31)) + [63]:
                row[k] = rng.randint(-3000, 3000)
        rows[31][40], rows[32][50] = 2000, rival
        candidate = [1000] + [0] * 49 + [10 ** 4] + [0] * 13
        return rows, candidate

    @staticmethod
    def _screen(layer, rows, candidate):
        """(the classes the screen leaves in block 0, whether it clears the block) for class 0."""
        screened = layer.screen.rounded(*packed._screened(candidate, dot(candidate, candidate),
                                                          layer.head))
        logit = dot(rows[0], candidate)
        centred = logit - dot(layer.mean, candidate)
        numbers, _ = layer.screen.suspects(0, screened, centred, layer.rank[0])
        cleared = layer._cleared(0, screened, centred, layer.rank[0], candidate, logit)
        return sorted(layer.order[n] for n in numbers), cleared

    def test_the_head_is_the_widest_columns_and_the_last(self):
        rows, _ = self._layer(1000)
        self.assertEqual(Packed(rows, prune=True).head, list(range(31)) + [63])
        self.assertIsNone(Packed([row[:63] for row in rows], prune=True).head)

    def test_rows_the_screen_leaves_are_checked_one_by_one(self):
        # Row 32's logit, 999 * 10**4, is just below class 0's, 10**7, and
        # row 31's is 0, yet both rest norms times the candidate's pass it.
        rows, candidate = self._layer(999)
        for prune in (False, True):
            layer = Packed(rows, prune)
            with self.subTest(prune=prune):
                self.assertEqual(self._screen(layer, rows, candidate), ([31, 32], True))
                self.assertEqual(layer.beaten_by(0, candidate, 5), [])

    def test_a_rival_the_screen_leaves_is_found_by_the_levels_even_at_a_tie(self):
        # Row 32's logit equals class 0's: a rival, which the screen cannot clear.
        rows, candidate = self._layer(1000)
        self.assertEqual(dot(rows[32], candidate), dot(rows[0], candidate))
        for prune in (False, True):
            layer = Packed(rows, prune)
            with self.subTest(prune=prune):
                self.assertEqual(self._screen(layer, rows, candidate), ([31, 32], False))
                self.assertEqual(layer.beaten_by(0, candidate, 5), [32])
                self.assertEqual(layer.beaten_by(0, candidate, 5, handicap=1), [32])

    def test_screened_rivals_and_their_order_are_those_of_the_levels(self):
        # Rows sharing a direction, some repeated (ties), in two widths;
        # candidates near a row, between two, and anywhere.
        rng = random.Random(4)
        cleared = []
        for width in (64, 100):
            # getrandbits: rows of the same kind as randint's in a fifth of the time.
            shared = [rng.getrandbits(21) - 2 ** 20 for _ in range(width)]
            rows = [[(1 + rng.getrandbits(2) % 3) * m + rng.getrandbits(22) - 2 ** 21
                     for m in shared] for _ in range(1100)]
            rows += rows[:20]
            for prune in (False, True):
                layer = Packed(rows, prune)
                plain = _unscreened(layer)
                layer._cleared = _recorded(layer._cleared, cleared)
                for i in (5, 700, 1119):
                    j = rng.randrange(len(rows))
                    for candidate in ([v + rng.randint(-9, 9) for v in rows[i]],
                                      [2 * a + b for a, b in zip(rows[i], rows[j])],
                                      [rng.randint(-2 ** 20, 2 ** 20) for _ in range(width)]):
                        for wanted in (1, 8, 5000):
                            with self.subTest(width=width, prune=prune, i=i, wanted=wanted):
                                self.assertEqual(layer.beaten_by(i, candidate, wanted),
                                                 plain.beaten_by(i, candidate, wanted))
                        self.assertEqual(sorted(layer.beaten_by(i, candidate, 5000)),
                                         _beaten_exactly(rows, i, candidate))
        # The screen did clear blocks, and left others to the levels.
        self.assertIn(True, cleared)
        self.assertIn(False, cleared)

    def test_the_screen_rests_where_it_clears_few_blocks(self):
        rows, _ = self._layer(1000)
        layer = Packed(rows, prune=True)
        self.assertTrue(layer._screens())
        # Cleared 2 blocks of 3 tried: one block in 17 is still screened.
        layer.tally = [2, 3, 0]
        self.assertEqual([layer._screens() for _ in range(18)], [False] * 16 + [True, False])
        layer.tally = [3, 4, 0]
        self.assertTrue(layer._screens())
        self.assertFalse(_unscreened(Packed(rows, prune=True))._screens())


class TestSkippingWithABias(unittest.TestCase):

    def test_blocks_of_short_rows_are_skipped_without_centring(self):
        # With a bias the rows are packed as they are (prune False), yet the
        # 600 short rows, two blocks, cannot reach a long row's logit.
        rng = random.Random(6)
        rows = [[rng.randint(-2 ** 30, 2 ** 30) for _ in range(5)] for _ in range(500)]
        rows += [[rng.randint(-2 ** 10, 2 ** 10) for _ in range(5)] for _ in range(600)]
        layer = Packed(rows, prune=False)
        (level,) = layer.levels
        with mock.patch.object(level, "suspects", wraps=level.suspects) as asked:
            for i in (0, 250, 499):
                candidate = [v + rng.randint(-2 ** 20, 2 ** 20) for v in rows[i]]
                self.assertEqual(sorted(layer.beaten_by(i, candidate, 5000)),
                                 _beaten_exactly(rows, i, candidate))
        self.assertEqual({call.args[0] for call in asked.call_args_list}, {0})


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


class TestGroupedTerms(unittest.TestCase):

    def test_grouped_terms_give_the_sum_of_the_products_exactly(self):
        rng = random.Random(5)
        for _ in range(300):
            # Few magnitudes (grouped) or many (every term a product), past 2**40 too.
            y = [rng.choice([0, rng.randint(-3, 3), rng.randint(-2 ** 40, 2 ** 40)])
                 for _ in range(rng.randint(1, 60))]
            columns = [rng.getrandbits(rng.randint(1, 300)) for _ in y]
            singles, groups = packed._grouped(y)
            self.assertEqual(sum(v * columns[k] for v, k in singles)
                             + sum(v * (sum(columns[k] for k in plus)
                                        - sum(columns[k] for k in minus))
                                   for v, plus, minus in groups), dot(y, columns))
            # Each non-zero coordinate once; a group shares its magnitude among two or more.
            self.assertEqual(sorted([k for _, k in singles]
                                    + [k for _, plus, minus in groups for k in plus + minus]),
                             [k for k, v in enumerate(y) if v])
            self.assertTrue(all(v > 0 and len(plus) + len(minus) > 1 for v, plus, minus in groups))

    def test_terms_are_grouped_only_where_magnitudes_repeat(self):
        # 8 coordinates of 2 magnitudes: 4 a magnitude, grouped; 4 of 4: 1 each, not.
        self.assertEqual(packed._grouped([1, -1, 1, 1, 1, 1, 1, 0, 3]),
                         ([(3, 8)], [(1, [0, 2, 3, 4, 5, 6], [1])]))
        self.assertEqual(packed._grouped([1, -1, 2, 3, 0]), ([(1, 0), (-1, 1), (2, 2), (3, 3)], []))


if __name__ == "__main__":
    unittest.main()
