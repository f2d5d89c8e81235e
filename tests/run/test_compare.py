"""Tests of reviews.run.compare: two reports of the same classes give
exactly the classes whose verdict differs, or one error naming why they
cannot be compared."""

import math
import unittest
from fractions import Fraction as F

from reviews.argmax.check import check_layer
from reviews.errors import InputError
from reviews.record import LayerReport, Provenance
from reviews.run.compare import VERDICTS, compare_shards, verdict
from reviews.run.shards import read_shard

PROVENANCE = Provenance("review-counterexamples 0.5.0 (Python 3.11.7)",
                        [("w.csv", 40, "ab12")], None, None, False)
# A layer as stored at 16 bits, and rounded to one decimal: class 3 leaves
# the hull's edge for a point on it, class 4 a point inside for a vertex.
FINE = [[0, 0], [4, 0], [0, F("4.04")], [F("2.02"), F("2.02")], [F("2.96"), F("1.06")]]
COARSE = [[0, 0], [4, 0], [0, 4], [2, 2], [3, F("1.1")]]
TOKENS = {0: "alpha", 1: "beta", 2: "gamma", 3: "delta", 4: "epsilon"}


def shard(path, weights, bias=None, classes=None, certificates="all", tokens=None, **question):
    """The report check-layer writes of ``weights``, read back as compare reads it."""
    results = check_layer(weights, bias, classes=classes, **question)
    text = LayerReport("w.csv", results, 2, bias is not None, None, tokens, PROVENANCE,
                       len(weights), classes is not None).to_json(certificates)
    return read_shard(path, text)


class TestChanges(unittest.TestCase):

    def test_rounding_changes_one_class_each_way(self):
        compared = compare_shards(shard("f16.json", FINE), shard("q4.json", COARSE))
        self.assertEqual(compared.changes, [(3, "argmaxable", "unargmaxable"),
                                            (4, "unargmaxable", "argmaxable")])
        self.assertEqual(compared.ways, [("argmaxable", "unargmaxable", 1),
                                         ("unargmaxable", "argmaxable", 1)])
        self.assertEqual((compared.classes, compared.tokens, compared.note),
                         ([0, 1, 2, 3, 4], None, None))

    def test_the_other_way_round_swaps_every_verdict(self):
        forth = compare_shards(shard("a.json", FINE), shard("b.json", COARSE))
        back = compare_shards(shard("b.json", COARSE), shard("a.json", FINE))
        self.assertEqual(back.changes, [(i, b, a) for i, a, b in forth.changes])

    def test_a_report_against_itself_changes_nothing(self):
        compared = compare_shards(shard("a.json", FINE), shard("a.json", FINE))
        self.assertEqual((compared.changes, compared.ways), ([], []))

    def test_masked_is_a_verdict_of_its_own(self):
        bias = [0, 0, 0, 0, 0]
        masked = [0, 0, 0, -math.inf, -math.inf]
        compared = compare_shards(shard("a.json", FINE, bias), shard("b.json", FINE, masked))
        self.assertEqual(compared.changes, [(3, "argmaxable", "masked"),
                                            (4, "unargmaxable", "masked")])
        self.assertEqual([verdict(r) for r in compared.b.report.results],
                         ["argmaxable"] * 3 + ["masked"] * 2)

    def test_ways_are_counted_in_the_order_of_the_verdicts(self):
        compared = compare_shards(shard("a.json", COARSE, [0, 0, 0, -math.inf, 0]),
                                  shard("b.json", FINE, [0, 0, 0, 0, -math.inf]))
        self.assertEqual(compared.ways, [("argmaxable", "masked", 1),
                                         ("masked", "argmaxable", 1)])
        self.assertEqual(VERDICTS, ("argmaxable", "unargmaxable", "masked"))

    def test_a_report_of_the_unargmaxable_only_has_every_verdict(self):
        compared = compare_shards(shard("a.json", FINE, certificates="unargmaxable"),
                                  shard("b.json", COARSE))
        self.assertEqual([i for i, _, _ in compared.changes], [3, 4])

    def test_tokens_of_the_changed_classes_from_either_report(self):
        a = shard("a.json", FINE, certificates="unargmaxable", tokens=TOKENS)
        self.assertEqual(a.report.tokens, {4: "epsilon"})   # the only class it lists
        compared = compare_shards(a, shard("b.json", COARSE, certificates="unargmaxable",
                                           tokens=TOKENS))
        self.assertEqual(compared.tokens, {3: "delta", 4: "epsilon"})
        compared = compare_shards(shard("a.json", FINE, tokens=TOKENS), shard("b.json", COARSE))
        self.assertEqual(compared.tokens, {3: "delta", 4: "epsilon"})

    def test_shards_of_the_same_classes_compare(self):
        compared = compare_shards(shard("a.json", FINE, classes=[3, 4]),
                                  shard("b.json", COARSE, classes=[3, 4]))
        self.assertEqual((compared.classes, len(compared.changes)), ([3, 4], 2))


class TestQuestions(unittest.TestCase):

    def test_other_questions_compare_with_a_note(self):
        compared = compare_shards(shard("a.json", FINE),
                                  shard("b.json", FINE, box=100, tolerance=F(1, 10 ** 8)))
        self.assertEqual(compared.note,
                         "the reports ask different questions (A: no box, tolerance T = 0;"
                         " B: box R = 100, tolerance T = 1e-8): a verdict may change with the"
                         " question as well as with the layer")

    def test_the_same_question_needs_no_note(self):
        compared = compare_shards(shard("a.json", FINE, box=2), shard("b.json", COARSE, box=2))
        self.assertIsNone(compared.note)


class TestRefusals(unittest.TestCase):

    def assertRefused(self, a, b, message):
        with self.assertRaises(InputError) as caught:
            compare_shards(a, b)
        self.assertEqual(str(caught.exception), message)

    def test_other_class_counts(self):
        self.assertRefused(shard("f16.json", FINE), shard("q4.json", COARSE[:4]),
                           "f16.json has 5 classes, q4.json has 4: compare needs reports of"
                           " the same classes")

    def test_shards_of_other_classes(self):
        self.assertRefused(shard("a.json", FINE, classes=[0, 1, 2]), shard("b.json", COARSE),
                           "a.json holds classes 0:3 of 5, b.json classes 0:5: compare needs"
                           " reports of the same classes (merge each one's shards first)")

    def test_other_tokens_for_one_class(self):
        self.assertRefused(shard("a.json", FINE, tokens=TOKENS),
                           shard("b.json", COARSE, tokens={**TOKENS, 2: "GAMMA"}),
                           "class 2 is 'gamma' in a.json and 'GAMMA' in b.json: compare needs"
                           " reports of the same classes")


if __name__ == "__main__":
    unittest.main()
