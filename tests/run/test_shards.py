"""Tests of reviews.run.shards: a shard reads back as the results it was
written from, and join puts shards of one layer together or says why not."""

import unittest
from fractions import Fraction as F

from reviews.argmax.check import check_layer, iter_check_layer
from reviews.argmax.question import Question
from reviews.errors import InputError
from reviews.exact import rational_text
from reviews.record import LayerReport, Provenance
from reviews.run.shards import join, read_shard

VERSION = "review-counterexamples 0.4.0"
PROVENANCE = Provenance(VERSION + " (Python 3.11.7)", [("w.csv", 40, "ab12")], None, None,
                        False)
WEIGHTS = [[0, 0], [4, 0], [0, 4], [1, 1], [F(1, 3), F(-7, 2)]]
# Class 3's combination, as the check gives it.
TERMS = '"terms": [[1, "39/172", "0.226744"], [2, "85/172", "0.494186"], [4, "12/43", "0.279070"]]'


def report(classes, radii=True, provenance=PROVENANCE, certificates="all", tokens=None,
           **options):
    checked = list(iter_check_layer(WEIGHTS, classes=classes, radii=radii, **options))
    results = [c.result for c in checked]
    return LayerReport("w.csv", results, 2, False, [c.radius for c in checked] if radii else None,
                       tokens, provenance, len(WEIGHTS), len(results) < len(WEIGHTS)
                       ).to_json(certificates)


def shard(classes, **options):
    return read_shard("s.json", report(classes, **options))


def read(classes, **options):
    return shard(classes, **options).report


def edited(text, old, new):
    if old not in text:
        raise AssertionError("%r is not in the report" % old)
    return text.replace(old, new, 1)


class TestReadShard(unittest.TestCase):

    def test_results_and_radii_read_back_exactly(self):
        checked = list(iter_check_layer(WEIGHTS, box=2, radii=True))
        report = read(range(5), box=2)
        self.assertEqual(report.results, [c.result._replace(class_count=c.result.terms and 5)
                                          for c in checked])
        self.assertEqual(report.radii, [c.radius for c in checked])
        self.assertEqual((report.class_count, report.dim, report.question), (5, 2, Question(2)))

    def test_a_report_read_and_written_again_is_the_same_text(self):
        for options in ({}, {"box": 2, "tolerance": F(1, 10)}, {"inputs": (0, None)},
                        {"certificates": "unargmaxable", "radii": False}):
            with self.subTest(options=options):
                text = report(range(5), **options)
                self.assertEqual(LayerReport.from_json(text, "s.json").to_json(), text)
        text = report([1, 3])
        self.assertEqual(LayerReport.from_json(text, "s.json").to_json(), text)

    def test_a_witness_keeps_every_digit(self):
        self.assertEqual(read([4]).results[0].witness, check_layer(WEIGHTS)[4].witness)


class TestRefusedShards(unittest.TestCase):

    def assertRefused(self, text, message):
        with self.assertRaisesRegex(InputError, message):
            read_shard("s.json", text)

    def test_a_combination_that_no_check_gives(self):
        text = report([3])
        self.assertIn(TERMS, text)
        for old, new, message in (('[1, "39/172"', '[1, "-39/172"', "not positive weights"),
                                  ('[4, "12/43"', '[3, "12/43"', "not positive weights"),
                                  ('[1, "39/172"', '[1, "38/172"', "not an exact number"),
                                  ('[1, "39/172"', '[1, "19/86"', "do not sum to 1")):
            with self.subTest(new=new):
                self.assertRefused(edited(text, old, new), message)

    def test_weights_past_any_common_denominator_cost_nothing(self):
        # Four weights over coprime denominators of 20,000 bits: their product passes the limit.
        weights = ", ".join('[%d, "1/%s", "0"]' % (j, rational_text(2 ** 20000 + 1 + 2 * j))
                            for j in (0, 1, 2, 4))
        self.assertRefused(edited(report([3]), TERMS[len('"terms": '):], "[%s]" % weights),
                           "common denominator past 65536 bits")

    def test_a_small_file_claims_no_huge_layer(self):
        text = report([0, 1], certificates="unargmaxable", radii=False)
        self.assertRefused(edited(text, '"classes": 5', '"classes": %d' % 10 ** 15),
                           "past the limit of 2147483648 values")
        huge = edited(edited(text, '"classes": 5', '"classes": 1000000000'),
                      '"asked": "0:2"', '"asked": "0:1000000000"')
        self.assertRefused(huge, '"asked" names more classes than the report holds')

    def test_a_question_has_one_form(self):
        # A box and inputs together, and inputs that are a box or all of R^d,
        # are not what check-layer writes: compare would call them apart.
        boxed = report(range(5), box=3)
        self.assertRefused(edited(boxed, '"box": "3",', '"box": "3",\n  "inputs": ["0", null],'),
                           'names both a "box" and "inputs"')
        self.assertRefused(edited(boxed, '"box": "3",', '"box": null,\n  "inputs": ["-3", "3"],'),
                           '"inputs" is \\["-3", "3"\\], which a report names as its box')
        self.assertRefused(edited(boxed, '"box": "3",', '"box": null,\n  "inputs": [null, null],'),
                           "which a report names as R\\^d")

    def test_asked_is_ids_and_ranges_only(self):
        for asked in ("@ids.txt", "1,0", "0:2,1", "0:"):
            with self.subTest(asked=asked):
                self.assertRefused(edited(report([0, 1]), '"asked": "0:2"', '"asked": "%s"' % asked),
                                   '"asked" is')

    def test_repeated_keys_and_thin_unargmaxable_classes(self):
        text = report([3])
        self.assertRefused(edited(text, '"dim": 2,', '"dim": 2, "dim": 3,'),
                           'the key "dim" is there twice')
        self.assertRefused(edited(text, '"thinner_than_1e-8": []', '"thinner_than_1e-8": [3]'),
                           "names an unargmaxable class")


class TestJoin(unittest.TestCase):

    def test_shards_in_any_order_give_every_class_in_order(self):
        joined = join([shard([3, 4]), shard([0, 1, 2])], VERSION)
        self.assertEqual([r.index for r in joined.results], [0, 1, 2, 3, 4])
        self.assertEqual([r.argmaxable for r in joined.results],
                         [r.argmaxable for r in check_layer(WEIGHTS)])

    def test_radii_are_left_out_when_the_whole_run_gives_none(self):
        self.assertIsNone(join([shard(range(5))], VERSION, radii=False).radii)
        with self.assertRaisesRegex(InputError, "its shards need them"):
            join([shard(range(5), radii=False)], VERSION)

    def test_tokens_come_from_any_shard_that_lists_a_class(self):
        tokens = {i: "t%d" % i for i in range(5)}
        shards = [shard(classes, certificates="unargmaxable", radii=False, tokens=tokens)
                  for classes in ([0, 1, 2], [3, 4])]
        self.assertIsNone(shards[0].report.tokens)   # every class of it argmaxable: none listed
        for ordered in (shards, shards[::-1]):
            self.assertEqual(join(ordered, VERSION, radii=False).tokens, {3: "t3"})

    def test_a_claimed_layer_of_a_billion_classes_is_a_gap_at_once(self):
        claimed = read_shard("s.json", edited(report(range(5)), '"classes": 5',
                                              '"classes": 1000000000'))
        with self.assertRaisesRegex(InputError, "classes 5:1000000000 are in no shard"):
            join([claimed], VERSION, radii=False)

    def test_shards_of_standard_input_are_not_joined(self):
        piped = PROVENANCE._replace(files=[("<stdin>", None, None)])
        with self.assertRaisesRegex(InputError, "read from standard input"):
            join([shard([0, 1, 2], provenance=piped), shard([3, 4], provenance=piped)],
                 VERSION)
        self.assertEqual(len(join([shard(range(5), provenance=piped)], VERSION).results), 5)

    def test_the_same_files_by_other_names_are_named_so(self):
        moved = PROVENANCE._replace(files=[("./w.csv", 40, "ab12")])
        with self.assertRaisesRegex(InputError, "the files' names"):
            join([shard([0, 1, 2]), shard([3, 4], provenance=moved)], VERSION)

    def test_gaps_overlaps_and_strangers_are_named(self):
        for shards, message in (
                ([shard([0, 1]), shard([3])], "classes 2,4 are in no shard"),
                ([shard([0, 1, 2]), shard([2, 3, 4])], "class 2 is in more than one"),
                ([shard([0, 1, 2]), shard([3, 4], box=1)], "--box differ"),
                ([shard([0, 1, 2]), shard([3, 4], provenance=PROVENANCE._replace(
                    files=[("w.csv", 40, "ab13")]))], "the files"),
                ([shard(range(5))], "")):
            with self.subTest(message=message):
                if message:
                    with self.assertRaisesRegex(InputError, message):
                        join(shards, VERSION)
                else:
                    with self.assertRaisesRegex(InputError, "made by review-counterexamples"
                                                            " 0.4.0 .*, not review-counterexamples 9"):
                        join(shards, "review-counterexamples 9")


if __name__ == "__main__":
    unittest.main()
