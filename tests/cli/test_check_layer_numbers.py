"""Tests of check-layer's --box and --tolerance: read as strictly as a layer's numbers."""

import json
from unittest import mock

from reviews.run import plan
from tests.support import FileTestCase
from tests.support.commands import FIGURE_1_JSON, SIZE_LIMIT, body, in_process


class TestBox(FileTestCase):
    # Class 1 wins only where x > 5: everywhere it can, outside the box |x| <= 1.
    LAYER = '{"weights": [[0], [1]], "bias": [0, -5]}'

    def test_a_class_that_wins_only_outside_the_box_is_unargmaxable_in_it(self):
        path = self.write("layer.json", self.LAYER)
        status, out, err = in_process("check-layer", path, "--box", "1")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out.splitlines()[2:4], [
            "options: box R = 1", "%s: 2 classes, d = 1, with bias; inputs boxed to |x_k| <= 1;"
            " classes numbered from 0" % path])
        self.assertIn("\n  class 1: l[1] <= l[0]\n", out)
        self.assertIn("\n1 of 2 classes unargmaxable, 1 argmaxable.\n", out)

    def test_without_the_box_both_classes_win(self):
        path = self.write("layer.json", self.LAYER)
        _, out, _ = in_process("check-layer", path, "--format", "json")
        self.assertEqual((json.loads(out)["box"], json.loads(out)["unargmaxable"]), (None, []))

    def test_json_names_the_box_exactly(self):
        path = self.write("layer.json", self.LAYER)
        _, out, _ = in_process("check-layer", path, "--box", "2.5", "--format", "json")
        document = json.loads(out)
        self.assertEqual((document["box"], document["unargmaxable"]), ("5/2", [1]))
        self.assertEqual(document["results"][1]["terms"], [[0, "1", "1"]])
        self.assertEqual(document["results"][0]["witness"], [["0", "0"]])

    def test_a_huge_box_and_tolerance_are_written_short_and_exact(self):
        path = self.write("layer.json", self.LAYER)
        _, out, _ = in_process("check-layer", path, "--box", "1e400", "--tolerance", "1e19700")
        self.assertIn("\noptions: box R = 1e+400, tolerance T = 1e+19700\n", out)
        _, out, _ = in_process("check-layer", path, "--box", "1e400", "--tolerance", "1e-400",
                               "--format", "json")
        document = json.loads(out)
        self.assertEqual((document["box"], document["tolerance"]), ("1e400", "1/1e400"))
        self.assertLess(len(out), 2000)

    def test_a_thin_radius_is_bracketed_and_merged_shards_keep_the_bracket(self):
        path = self.write("thin.json", '{"weights": [[0, 0], [1, 0], [3, 0]],'
                                       ' "bias": [0, 1e-8, 1e-8]}')
        _, out, _ = in_process("check-layer", path)
        self.assertIn("\n  class 1: largest radius between 4.99e-9 and 5e-9\n", out)
        _, whole, _ = in_process("check-layer", path, "--format", "json")
        self.assertEqual({k: json.loads(whole)["results"][1][k] for k in ("radius",
                                                                          "radius_at_most")},
                         {"radius": "4.99e-9", "radius_at_most": "5e-9"})
        shards = []
        for k in range(3):
            shards.append(self.write("s%d.json" % k, in_process(
                "check-layer", path, "--classes", str(k), "--format", "json")[1]))
        self.assertEqual(in_process("merge", *shards, "--format", "json")[1], whole)

    def test_jobs_give_the_same_output_as_one_process(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        one = in_process("check-layer", path, "--format", "json")
        self.assertEqual(in_process("check-layer", path, "--format", "json", "--jobs", "2"), one)
        self.assertEqual(in_process("check-layer", path, "--jobs", "x")[0], 2)

    def test_a_box_that_is_not_a_positive_number_is_a_usage_error(self):
        path = self.write("layer.json", self.LAYER)
        for text, why in (("0", ""), ("-1", ""), ("1_0", ": not a number"),
                          ("inf", ": not a finite number"), ("x", ": not a number"),
                          ("1e999999999", ": " + SIZE_LIMIT)):
            with self.subTest(box=text):
                status, out, err = in_process("check-layer", path, "--box", text)
                self.assertEqual((status, out), (2, ""))
                self.assertEqual(err, "counterexamples: error: argument --box: expected a"
                                 " positive number, got %r%s\n" % (text, why))


class TestTolerance(FileTestCase):
    # Class 1 wins exactly for |x| < 3e-9: a sliver that a tolerance of 1e-8 misses.
    LAYER = '{"weights": [[0], [1], [2]], "bias": [0, 3e-9, 0]}'

    def test_a_thin_class_is_listed_with_its_largest_radius(self):
        path = self.write("layer.json", self.LAYER)
        status, out, err = in_process("check-layer", path, "--box", "100")
        self.assertEqual((status, err), (0, ""))
        self.assertIn("\nArgmaxable only on a region thinner than 1e-8: --tolerance 1e-8, the"
                      " question\nof the released detector's linear program, calls these"
                      " unargmaxable; its\nsearch, which runs first, accepts any it finds,"
                      " with no tolerance.\n  class 1: largest radius 3e-9\n0 of 3 classes"
                      " unargmaxable, 3 argmaxable.\n", out)
        markdown = in_process("check-layer", path, "--format", "markdown")[1]
        self.assertIn(": `--box 100 --tolerance 1e-8`, the question of the released detector's"
                      " linear program, calls these unargmaxable; its search, which runs first,"
                      " accepts any it finds, with no tolerance.\n\n| Class | Largest radius"
                      " |\n| ---: | --- |\n| 1 | 3e-9 |\n", markdown)

    def test_at_a_tolerance_of_1e_8_it_is_unargmaxable(self):
        path = self.write("layer.json", self.LAYER)
        status, out, _ = in_process("check-layer", path, "--box", "100", "--tolerance", "1e-8",
                                    "--format", "json")
        document = json.loads(out)
        self.assertEqual((status, document["tolerance"], document["unargmaxable"],
                          document["thinner_than_1e-8"]), (0, "1/100000000", [1], []))
        self.assertEqual(document["results"][1]["terms"],
                         [[0, "1/2", "0.5"], [2, "1/2", "0.5"]])
        text = in_process("check-layer", path, "--box", "100", "--tolerance", "1e-8")[1]
        self.assertIn("; tolerance 1e-8 (a ball of radius above it);", body(text).splitlines()[0])
        self.assertIn("\n  class 1: l[1] <= 0.5*l[0] + 0.5*l[2]\n", text)

    def test_tolerance_0_prints_what_no_tolerance_prints(self):
        path = self.write("layer.json", self.LAYER)
        self.assertEqual(in_process("check-layer", path, "--tolerance", "0", "--format", "json"),
                         in_process("check-layer", path, "--format", "json"))

    def test_a_large_layer_gets_a_note_instead_of_radii(self):
        path = self.write("layer.json", self.LAYER)
        with mock.patch.object(plan, "_RADIUS_WORK", 8):
            status, out, err = in_process("check-layer", path, "--format", "json")
        self.assertEqual(status, 0)
        self.assertNotIn("radius", out)
        self.assertEqual(err, "counterexamples: note: no radius reported: past N * C * d ="
                         " 2**26, N the classes decided, the radii would take minutes more"
                         " (pass --tolerance T to ask about a ball of radius above T)\n")

    def test_a_tolerance_that_is_not_a_number_of_0_or_more_is_a_usage_error(self):
        path = self.write("layer.json", self.LAYER)
        for text, why in (("-1", ""), ("-0.0001", ""), ("1_0", ": not a number"),
                          ("inf", ": not a finite number"), ("nan", ": not a finite number"),
                          ("x", ": not a number"), ("1e999999999", ": " + SIZE_LIMIT),
                          ("1e-99999", ": " + SIZE_LIMIT)):
            with self.subTest(tolerance=text):
                status, out, err = in_process("check-layer", path, "--tolerance", text)
                self.assertEqual((status, out), (2, ""))
                self.assertEqual(err, "counterexamples: error: argument --tolerance: expected a"
                                 " number of 0 or more, got %r%s\n" % (text, why))
