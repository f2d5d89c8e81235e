"""Tests of reviews.report.shards: a shard reads back as the results it was
written from, and join puts shards of one layer together or says why not."""

import unittest
from fractions import Fraction as F

from reviews.argmax.check import check_layer, iter_check_layer
from reviews.errors import InputError
from reviews.report.layer import Provenance, layer_json
from reviews.report.shards import join, read_shard

VERSION = "review-counterexamples 0.3.0"
PROVENANCE = Provenance(VERSION + " (Python 3.11.7)", [("w.csv", 40, "ab12")], None, None,
                        False)
WEIGHTS = [[0, 0], [4, 0], [0, 4], [1, 1], [F(1, 3), F(-7, 2)]]


def shard(classes, radii=True, provenance=PROVENANCE, **options):
    checked = list(iter_check_layer(WEIGHTS, classes=classes, radii=radii, **options))
    return read_shard("s.json", layer_json(
        "w.csv", [c.result for c in checked], 2, False,
        [c.radius for c in checked] if radii else None, provenance=provenance,
        classes=len(WEIGHTS)))


class TestReadShard(unittest.TestCase):

    def test_results_and_radii_read_back_exactly(self):
        checked = list(iter_check_layer(WEIGHTS, box=2, radii=True))
        read = shard(range(5), box=2)
        self.assertEqual(read.results, [c.result._replace(classes=c.result.terms and 5)
                                        for c in checked])
        self.assertEqual(read.radii, [c.radius for c in checked])
        self.assertEqual((read.classes, read.dim, read.box, read.tolerance), (5, 2, 2, 0))

    def test_a_witness_keeps_every_digit(self):
        read = shard([4])
        self.assertEqual(read.results[0].witness, check_layer(WEIGHTS)[4].witness)


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
                                                            " 0.3.0 .*, not review-counterexamples 9"):
                        join(shards, "review-counterexamples 9")


if __name__ == "__main__":
    unittest.main()
