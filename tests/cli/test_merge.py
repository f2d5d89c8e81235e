"""Tests of ``merge``: shards of check-layer --classes joined into the
report of one run over every class, byte for byte, or one error line."""

import json
import os
import unittest

from tests.support import FileTestCase
from tests.support.commands import in_process

# Two classes that are one row (a twin), one in between, one a mean: every kind of result.
LAYER_CSV = "0,0\n4,0\n0,4\n1,1\n4,0\n2,2\n"
REPORTS = (["--format", "text"], ["--format", "markdown"], ["--format", "json"],
           ["--format", "json", "--certificates", "unargmaxable"])


class MergeTestCase(FileTestCase):

    def shards(self, layer, ranges, *options):
        """The JSON shard of each range of ``layer``'s classes, as files."""
        paths = []
        for classes in ranges:
            path = os.path.join(self.folder.name, "shard%d.json" % len(os.listdir(self.folder.name)))
            status, _, err = in_process("check-layer", *layer, "--classes", classes, *options,
                                        "--format", "json", "--output", path)
            self.assertEqual(status, 0, err)
            paths.append(path)
        return paths

    def assertMergedIsWhole(self, layer, ranges, *options, reports=REPORTS):
        shards = self.shards(layer, ranges, *options)
        for report in reports:
            with self.subTest(report=report, options=options):
                whole = in_process("check-layer", *layer, *options, *report)
                merged = in_process("merge", *reversed(shards), *report)
                self.assertEqual(merged[:2], whole[:2])
                self.assertEqual(merged[2], "")

    def refusal(self, *arguments):
        status, out, err = in_process("merge", *arguments)
        self.assertEqual((status, out, err.count("\n")), (2, "", 1), err)
        return err


class TestSameAsOneRun(MergeTestCase):

    def test_every_format_of_a_small_layer(self):
        layer = [self.write("w.csv", LAYER_CSV)]
        self.assertMergedIsWhole(layer, ["0:2", "2:3", "3:6"])
        self.assertMergedIsWhole(layer, ["0,2,4", "1,3,5"], "--box", "1")

    def test_a_layer_with_a_bias_tokens_and_a_thin_radius(self):
        # Class 1 wins only for |x| < 1e-9: its radius is found exactly.
        layer = [self.write("w.csv", "0\n1\n2\n1\n"), "--bias",
                 self.write("b.csv", "0\n1e-9\n0\n-1\n"),
                 "--vocab", self.write("tokens.txt", "alpha\nbeta\ngamma\ndelta\n")]
        self.assertMergedIsWhole(layer, ["0:2", "2:4"])

    def test_shards_of_w_x_alone_of_a_layer_with_a_bias(self):
        layer = [self.write("w.json", '{"weights": [[0], [1], [2]], "bias": [0, 2, 0]}'),
                 "--no-bias"]
        self.assertMergedIsWhole(layer, ["0:1", "1:3"], reports=REPORTS[2:3])
        self.assertIn("0 of 3 classes unargmaxable", in_process("merge", *self.shards(
            layer[:1], ["0:1", "1:3"]))[1])

    def test_the_released_detectors_question(self):
        layer = [self.write("w.csv", LAYER_CSV), "--bias", self.write("b.csv", "0\n0\n1\n0\n0\n-1\n")]
        self.assertMergedIsWhole(layer, ["0:4", "4:6"], "--box", "100", "--tolerance", "1e-8")

    def test_a_masked_class_keeps_the_question_of_its_shard(self):
        layer = [self.write("w.csv", LAYER_CSV), "--bias",
                 self.write("b.csv", "-inf\n0\n0\n0\n0\n-1\n")]
        self.assertMergedIsWhole(layer, ["0:1", "1:6"], "--box", "2", "--tolerance", "0.01")

    def test_shards_of_the_unargmaxable_only_give_text_and_their_json(self):
        layer = [self.write("w.csv", LAYER_CSV)]
        shards = self.shards(layer, ["0:3", "3:6"], "--certificates", "unargmaxable")
        # A layer this small has radii, which such shards leave out.
        self.assertIn("--certificates all", self.refusal(*shards))


class TestGate(MergeTestCase):

    def test_fail_on_unargmaxable_reads_the_merged_report(self):
        layer = [self.write("w.csv", LAYER_CSV)]
        shards = self.shards(layer, ["0:3", "3:6"])
        self.assertEqual(in_process("merge", *shards, "--fail-on-unargmaxable")[0], 1)
        argmaxable = self.shards([self.write("v.csv", "0,0\n1,0\n0,1\n")], ["0:1", "1:3"])
        self.assertEqual(in_process("merge", *argmaxable, "--fail-on-unargmaxable")[0], 0)

    def test_the_report_goes_to_output(self):
        shards = self.shards([self.write("w.csv", LAYER_CSV)], ["0:3", "3:6"])
        path = os.path.join(self.folder.name, "merged.json")
        self.assertEqual(in_process("merge", *shards, "--format", "json", "--output", path),
                         (0, "", ""))
        with open(path) as handle:
            self.assertEqual(json.load(handle)["unargmaxable"], [1, 3, 4, 5])


class TestRefusals(MergeTestCase):

    def setUp(self):
        super().setUp()
        self.layer = [self.write("w.csv", LAYER_CSV)]

    def test_a_missing_range(self):
        shards = self.shards(self.layer, ["0:2", "4:6"])
        self.assertIn("classes 2:4 are in no shard", self.refusal(*shards))

    def test_a_doubled_range(self):
        shards = self.shards(self.layer, ["0:4", "3:6"])
        self.assertIn("class 3 is in more than one shard", self.refusal(*shards))
        self.assertIn("more than one shard", self.refusal(shards[0], shards[0], shards[1]))

    def test_another_file(self):
        first = self.shards(self.layer, ["0:3"])
        other = self.write("w.csv", LAYER_CSV.replace("2,2", "2,3"))
        second = self.shards([other], ["3:6"])
        self.assertIn("the files (names, sizes or SHA-256) differ",
                      self.refusal(first[0], second[0]))

    def test_other_options(self):
        first = self.shards(self.layer, ["0:3"])
        for options, what in ((["--box", "1"], "--box"), (["--tolerance", "0.1"], "--tolerance")):
            with self.subTest(options=options):
                second = self.shards(self.layer, ["3:6"], *options)
                self.assertIn("%s differ" % what, self.refusal(first[0], second[0]))

    def test_another_version(self):
        shards = self.shards(self.layer, ["0:3", "3:6"])
        with open(shards[1]) as handle:
            report = json.load(handle)
        report["version"] = "review-counterexamples 0.2.0 (Python 3.11.7)"
        with open(shards[1], "w") as handle:
            json.dump(report, handle)
        self.assertIn("made by review-counterexamples 0.2.0", self.refusal(*shards))

    def test_what_is_no_shard(self):
        claims = self.write("claims.json", in_process("--format", "json", "--claim",
                                                      "memorization.masking")[1])
        for content, message in (("[]", "no \"results\""), ("{", "not a check-layer JSON"),
                                 ("[" * 100000, "nested too deep"),
                                 ('{"results": [], "classes": 1' + "0" * 30 + "}",
                                  "an integer of 31 digits"),
                                 (b"\xff\xfe", "not UTF-8")):
            with self.subTest(content=content[:10]):
                self.assertIn(message, self.refusal(self.write("bad.json", content)))
        self.assertIn("no \"results\"", self.refusal(claims))
        self.assertIn("cannot read", self.refusal(self.folder.name))

    def test_a_tampered_result(self):
        shards = self.shards(self.layer, ["0:3", "3:6"])
        with open(shards[0]) as handle:
            text = handle.read()
        for old, new, message in (('"index": 1', '"index": 0', "increasing class order"),
                                  ('["4", "4"]', '["4/1", "4"]', "not an exact number"),
                                  ('"argmaxable": true', '"argmaxable": 1', '"argmaxable" is 1'),
                                  ('"asked": "0:3"', '"asked": "0:4"', "names more classes than the report holds")):
            with self.subTest(new=new):
                self.assertIn(old, text)
                path = self.write("tampered.json", text.replace(old, new, 1))
                self.assertIn(message, self.refusal(path, shards[1]))


# Classes 0 and 1 win, class 2 is masked, class 3 is their mean.
FORGED_CSV = "0,0\n4,0\n2,2\n2,0\n"
FORGED_BIAS = "0\n0\n-inf\n0\n"


class TestShardsAreChecked(MergeTestCase):
    """A merged report is as certified as one run: every forgery is refused."""

    def setUp(self):
        super().setUp()
        self.layer = [self.write("w.csv", FORGED_CSV), "--bias", self.write("b.csv", FORGED_BIAS)]
        self.paths = self.shards(self.layer, ["0:2", "2:4"])

    def forged(self, old, new, shard=1):
        with open(self.paths[shard]) as handle:
            text = handle.read()
        self.assertIn(old, text)
        with open(self.paths[shard], "w") as handle:
            handle.write(text.replace(old, new, 1))

    def test_an_unargmaxable_class_edited_to_argmaxable_is_refused(self):
        self.forged('{"index": 3, "argmaxable": false, "terms": [[0, "1/2", "0.5"], [1, "1/2",'
                    ' "0.5"]]}', '{"index": 3, "argmaxable": true, "witness": [["0", "0"],'
                    ' ["0", "0"]], "radius": "1"}')
        self.forged('"unargmaxable": [2, 3]', '"unargmaxable": [2]')
        self.assertIn("%s: class 3's certificate does not hold on the layer" % self.paths[1],
                      self.refusal(*self.paths))

    def test_a_class_marked_masked_whose_bias_is_0_is_refused(self):
        self.forged('{"index": 3, "argmaxable": false, "terms": [[0, "1/2", "0.5"], [1, "1/2",'
                    ' "0.5"]]}', '{"index": 3, "argmaxable": false, "masked": true}')
        self.assertIn("class 3's certificate does not hold on the layer",
                      self.refusal(*self.paths))

    def test_a_result_both_argmaxable_and_masked_is_refused(self):
        self.forged('{"index": 0, "argmaxable": true, "witness"',
                    '{"index": 0, "argmaxable": true, "masked": true, "witness"', shard=0)
        self.assertIn('class 0: "masked" is true beside argmaxable', self.refusal(*self.paths))

    def test_a_combination_of_a_masked_class_alone_is_refused(self):
        self.forged('"terms": [[0, "1/2", "0.5"], [1, "1/2", "0.5"]]',
                    '"terms": [[2, "1", "1"]]')
        self.assertIn("class 3's combination uses class 2, which is masked",
                      self.refusal(*self.paths))

    def test_a_rounded_value_that_is_not_the_exact_one_rounded_is_refused(self):
        self.forged('[0, "1/2", "0.5"]', '[0, "1/2", "0.7"]')
        self.assertIn('is shown as "0.7", not as it rounds (0.5)', self.refusal(*self.paths))

    def test_a_thin_entry_of_a_wide_radius_is_refused(self):
        with open(self.paths[0]) as handle:
            text = handle.read()
        document = json.loads(text)
        self.assertEqual(document["thinner_than_1e-8"], [])
        radius = document["results"][0]["radius"]
        self.forged('"thinner_than_1e-8": []', '"thinner_than_1e-8": [0]', shard=0)
        self.forged('"radius": "%s"' % radius, '"radius": "1.84"', shard=0)
        self.assertIn('class 0: listed in "thinner_than_1e-8" with a radius of 1.84',
                      self.refusal(*self.paths))

    def test_without_the_layer_every_format_says_the_certificates_were_not_checked(self):
        os.remove(self.layer[0])
        for report in REPORTS:
            with self.subTest(report=report):
                status, out, err = in_process("merge", *self.paths, *report)
                self.assertEqual(status, 0)
                self.assertIn("the certificates were not checked against the layer", out)
                self.assertIn("(give --layer FILE)", err)

    def test_the_layer_elsewhere_is_named_with_layer(self):
        moved = os.path.join(self.folder.name, "moved.csv")
        os.rename(self.layer[0], moved)
        status, out, err = in_process("merge", *self.paths, "--layer", moved,
                                      "--bias", self.layer[2])
        self.assertEqual((status, err), (0, ""))
        self.assertNotIn("not checked", out)
        wrong = self.write("wrong.csv", "0,0\n4,0\n2,2\n2,1\n")
        self.assertIn("is not a file the shards were made from",
                      self.refusal(*self.paths, "--layer", wrong, "--bias", self.layer[2]))


if __name__ == "__main__":
    unittest.main()
