"""Tests of check-layer --inputs LO:HI: the question, its report, its shards and its checkpoint."""

import json
import os
import unittest

from reviews.argmax.verify import verify
from reviews.formats.layers import read_layer
from reviews.run.shards import read_shard
from tests.support import FileTestCase
from tests.support.commands import in_process

# Class 1 wins only where x_0 < -1/2, over R^2 but not over x >= 0, where
# class 0 never beats class 2 either.
LAYER = "0,0\n-2,0\n0,1\n1,-1\n"
BIAS = "0\n-1\n0\n0\n"


class TestQuestion(FileTestCase):

    def setUp(self):
        super().setUp()
        self.layer = [self.write("w.csv", LAYER), "--bias", self.write("b.csv", BIAS)]

    def test_minus_r_to_r_is_the_box_byte_for_byte_however_typed(self):
        for format in ("text", "json"):
            with self.subTest(format=format):
                boxed = in_process("check-layer", *self.layer, "--box", "1", "--format", format)
                for typed in (("--inputs", "-1:1"), ("--inputs=-1:1",), ("--inputs", "-1.0:1")):
                    self.assertEqual(in_process("check-layer", *self.layer, *typed,
                                                "--format", format), boxed)

    def test_the_whole_line_is_no_option(self):
        self.assertEqual(in_process("check-layer", *self.layer, "--inputs", "-inf:inf"),
                         in_process("check-layer", *self.layer))

    def test_the_relu_image_is_shown_and_recorded_and_its_certificates_hold(self):
        status, out, _ = in_process("check-layer", *self.layer, "--inputs", "0:inf")
        self.assertEqual(status, 0)
        self.assertIn("options: inputs x >= 0\n", out)
        self.assertIn("4 classes, d = 2, with bias; inputs x >= 0; classes numbered from 0\n",
                      out)
        self.assertIn("  class 1: l[1] <= l[2]\n", out)
        _, out, _ = in_process("check-layer", *self.layer, "--inputs", "0:", "--format", "json")
        report = json.loads(out)
        self.assertEqual((report["inputs"], report["box"], report["unargmaxable"]),
                         (["0", None], None, [0, 1]))
        weights, bias = read_layer(self.layer[0], self.layer[2])
        for result in read_shard("r.json", out).report.results:
            self.assertTrue(verify(weights, bias, result, inputs=(0, None)))
            self.assertFalse(result.argmaxable and min(result.witness) < 0)

    def test_mistakes_are_one_line_and_exit_2(self):
        for typed, message in [
                (("--inputs", "1:-1"), "inputs: the low end 1 is not below the high end -1"),
                (("--inputs", "5"), "expected LO:HI"),
                (("--inputs", "0:x"), "expected a number, or inf, got 'x'"),
                (("--inputs", "0:1", "--box", "2"), "ask for the box or for the inputs, not both")]:
            with self.subTest(typed=typed):
                status, out, err = in_process("check-layer", *self.layer, *typed)
                self.assertEqual((status, out, err.count("\n")), (2, "", 1))
                self.assertRegex(err, "^counterexamples: error: .*" + message)


class TestShardsAndCheckpoints(FileTestCase):

    def setUp(self):
        super().setUp()
        self.layer = [self.write("w.csv", LAYER), "--bias", self.write("b.csv", BIAS)]

    def shard(self, name, classes, inputs="0:inf", tolerance="0"):
        path = os.path.join(self.folder.name, name)
        status, _, _ = in_process("check-layer", *self.layer, "--inputs", inputs, "--classes",
                                  classes, "--tolerance", tolerance, "--format", "json",
                                  "--output", path)
        self.assertEqual(status, 0)
        return path

    def test_merged_shards_are_the_whole_run(self):
        whole = in_process("check-layer", *self.layer, "--inputs", "0:inf")
        status, out, _ = in_process("merge", self.shard("a.json", "0:2"),
                                    self.shard("b.json", "2:4"))
        self.assertEqual((status, out), (0, whole[1]))

    def test_a_tolerance_on_a_half_line_is_decided_with_radii_and_merged(self):
        # Classes 2 and 3 win on unbounded parts of x >= 0: their radii are
        # their witnesses' bounds (from the box [0, 1000]^2 asked first).
        asked = ("--inputs", "0:inf", "--tolerance", "0.5", "--format", "json")
        status, out, _ = in_process("check-layer", *self.layer, *asked)
        self.assertEqual(status, 0)
        report = json.loads(out)
        self.assertEqual((report["inputs"], report["tolerance"], report["unargmaxable"]),
                         (["0", None], "1/2", [0, 1]))
        self.assertEqual([r.get("radius") for r in report["results"]], [None, None, "225", "222"])
        weights, bias = read_layer(self.layer[0], self.layer[2])
        for result in read_shard("r.json", out).report.results:
            self.assertTrue(verify(weights, bias, result, inputs=(0, None), tolerance=0.5))
        merged = in_process("merge", self.shard("a.json", "0:2", "0:inf", "0.5"),
                            self.shard("b.json", "2:4", "0:inf", "0.5"), "--format", "json")
        self.assertEqual(merged, (0, out, ""))

    def test_merged_shards_of_finite_inputs_keep_their_radii(self):
        whole = in_process("check-layer", *self.layer, "--inputs", "-1:2", "--format", "json")
        self.assertIn('"radius"', whole[1])
        status, out, _ = in_process("merge", self.shard("a.json", "0:3", "-1:2"),
                                    self.shard("b.json", "3:4", "-1:2"), "--format", "json")
        self.assertEqual((status, out), (0, whole[1]))

    def test_shards_of_other_inputs_are_refused(self):
        status, _, err = in_process("merge", self.shard("a.json", "0:2"),
                                    self.shard("b.json", "2:4", "0:1"))
        self.assertEqual(status, 2)
        self.assertIn("is not a shard of the layer and options of", err)
        self.assertIn("--inputs differ", err)

    def test_a_checkpoint_resumes_the_same_inputs_only(self):
        checkpoint = os.path.join(self.folder.name, "run.checkpoint")
        first = in_process("check-layer", *self.layer, "--inputs", "0:inf", "--checkpoint",
                           checkpoint)
        again = in_process("check-layer", *self.layer, "--inputs", "0:inf", "--checkpoint",
                           checkpoint)
        self.assertEqual(again[1], first[1])
        self.assertIn("4 classes kept from an earlier run", again[2])
        status, _, err = in_process("check-layer", *self.layer, "--inputs", "0:1",
                                    "--checkpoint", checkpoint)
        self.assertEqual(status, 2)
        self.assertIn('its "inputs" differs', err)


if __name__ == "__main__":
    unittest.main()
