"""check-layer --classes: some classes decided, each against every row; the
lists it takes, and the one line for every list it cannot."""

import json
import os
import unittest

from reviews.errors import InputError
from reviews.formats.classes import parse_classes, ranges_text
from tests.support import FileTestCase
from tests.support.commands import FIGURE_1_JSON, body, in_process

ERROR = "counterexamples: error: "


class TestTheClassesAsked(FileTestCase):

    def setUp(self):
        super().setUp()
        self.path = self.write("fig1.json", FIGURE_1_JSON)

    def test_the_text_names_the_classes_asked_and_counts_them(self):
        status, out, err = in_process("check-layer", self.path, "--classes", "3,1")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(body(out), (
            "%s: 4 classes, d = 2, no bias; classes numbered from 0\n"
            "Asked: classes 1,3 (2 classes), each decided against all 4.\n"
            "Unargmaxable classes: each one's weights w[i] are a convex combination of\n"
            "other classes' weights, so its logit is the same weighted mean of theirs for\n"
            "every input, never strictly the largest.\n"
            "  class 3: w[3] = 0.148276*w[0] + 0.420690*w[1] + 0.431034*w[2]\n"
            "1 of 2 classes asked unargmaxable, 1 argmaxable.\n"
            "Coefficients to 6 significant digits. Exact values and witnesses: --format json\n"
            % self.path))

    def test_the_json_names_them_as_ranges_beside_the_layer_s_count(self):
        _, out, _ = in_process("check-layer", self.path, "--classes", "0:2,3", "--format",
                               "json")
        document = json.loads(out)
        self.assertEqual((document["classes"], document["asked"], document["unargmaxable"]),
                         (4, "0:2,3", [3]))
        self.assertEqual([r["index"] for r in document["results"]], [0, 1, 3])

    def test_without_the_option_every_class_is_asked(self):
        _, out, _ = in_process("check-layer", self.path, "--format", "json")
        self.assertEqual(json.loads(out)["asked"], "0:4")
        _, text, _ = in_process("check-layer", self.path)
        self.assertNotIn("Asked:", text)

    def test_markdown_names_them_in_a_code_span(self):
        _, out, _ = in_process("check-layer", self.path, "--classes", "2:", "--format",
                               "markdown")
        self.assertIn("\nAsked: classes `2:4` (2 classes), each decided against all 4.\n", out)
        self.assertIn("\n1 of 2 classes asked unargmaxable, 1 argmaxable.", out)

    def test_a_file_of_ids_one_a_line(self):
        ids = self.write("ids.txt", "3\r\n  0\t\n\n")
        _, out, _ = in_process("check-layer", self.path, "--classes", "@" + ids, "--format",
                               "json")
        self.assertEqual(json.loads(out)["asked"], "0,3")

    def test_the_same_bytes_with_worker_processes_a_box_and_a_tolerance(self):
        options = ["--classes", "1:4", "--box", "100", "--tolerance", "1e-8", "--format",
                   "json"]
        one = in_process("check-layer", self.path, "--jobs", "1", *options)
        two = in_process("check-layer", self.path, "--jobs", "2", *options)
        self.assertEqual(one[:2], two[:2])
        self.assertEqual(json.loads(one[1])["unargmaxable"], [3])

    def test_a_masked_class_may_be_asked(self):
        path = self.write("masked.json", '{"weights": [[1], [2], [3]], "bias": [0, "-inf", 0]}'
                          .replace('"-inf"', "-Infinity"))
        _, out, _ = in_process("check-layer", path, "--classes", "1", "--format", "json")
        self.assertEqual(json.loads(out)["results"],
                         [{"index": 1, "argmaxable": False, "masked": True}])


class TestListsThatAreNoClasses(FileTestCase):

    def setUp(self):
        super().setUp()
        self.path = self.write("fig1.json", FIGURE_1_JSON)

    def assertRefused(self, listed, message):
        self.assertEqual(in_process("check-layer", self.path, "--classes", listed),
                         (2, "", ERROR + message + "\n"))

    def test_ids_past_the_layer(self):
        self.assertRefused("0,4", "--classes 0,4: class 4 is past the layer's 4 classes"
                                  " (0 to 3)")
        self.assertRefused("2:9", "--classes 2:9: the range 2:9 goes past the layer's 4"
                                  " classes (0 to 3)")
        self.assertRefused("4:", "--classes 4:: the range 4: goes past the layer's 4 classes"
                                 " (0 to 3)")

    def test_empty_lists_and_ranges(self):
        self.assertRefused("", "--classes: expected class ids such as 0:1000 or 3,17,40:50,"
                               " got nothing")
        self.assertRefused("3:3", "--classes 3:3: the range 3:3 is empty (a range is"
                                  " half-open, as a slice: 40:50 is 40 to 49)")
        self.assertRefused("1,", "--classes 1,: '' is not a class id or a range START:STOP")

    def test_malformed_lists(self):
        for listed in ("-1", "1e3", "1:2:3", "one", " 1", "\u0661", "0x1"):
            status, out, err = in_process("check-layer", self.path, "--classes", listed)
            self.assertEqual((status, out, err.count("\n")), (2, "", 1), listed)
            self.assertIn("is not a class id or a range START:STOP", err)

    def test_a_name_with_a_line_break_stays_on_its_line(self):
        self.assertRefused("1\n2", "--classes 1\\n2: '1\\n2' is not a class id or a range"
                                   " START:STOP")

    def test_an_id_of_many_digits_is_refused_before_it_is_read(self):
        self.assertRefused("9" * 5000, "--classes %s...: '%s'... has more than 12 digits: no"
                                       " layer has that many classes" % ("9" * 57, "9" * 57))

    def test_a_list_is_read_before_the_layer(self):
        missing = os.path.join(self.folder.name, "missing.json")
        self.assertEqual(in_process("check-layer", missing, "--classes", "x")[2],
                         ERROR + "--classes x: 'x' is not a class id or a range START:STOP\n")


class TestFilesOfIds(FileTestCase):

    def setUp(self):
        super().setUp()
        self.path = self.write("fig1.json", FIGURE_1_JSON)

    def refusal(self, argument):
        status, out, err = in_process("check-layer", self.path, "--classes", argument)
        self.assertEqual((status, out, err.count("\n")), (2, "", 1), err)
        return err

    def test_a_missing_file_a_folder_and_a_fifo(self):
        self.assertIn("cannot read", self.refusal("@" + os.path.join(self.folder.name, "no")))
        self.assertIn("it is a directory", self.refusal("@" + self.folder.name))
        if hasattr(os, "mkfifo"):
            fifo = os.path.join(self.folder.name, "fifo")
            os.mkfifo(fifo)
            self.assertIn("it is a FIFO, not a regular file", self.refusal("@" + fifo))
        self.assertEqual(self.refusal("@"), ERROR + "--classes @: expected a file name after @\n")

    def test_odd_bytes_are_named_by_their_line(self):
        self.assertEqual(self.refusal("@" + self.write("bad.txt", b"0\n\xff\n")),
                         ERROR + "%s: line 2, byte 2 is not UTF-8 text\n"
                         % os.path.join(self.folder.name, "bad.txt"))
        nul = self.write("nul.txt", b"0\n1\x00\n")
        self.assertEqual(self.refusal("@" + nul), ERROR + "%s: line 2: expected a class id"
                         " (digits 0-9), got '1\\x00'\n" % nul)
        ranged = self.write("ranged.txt", "0:2\n")
        self.assertIn("line 1: expected a class id (digits 0-9), got '0:2'",
                      self.refusal("@" + ranged))

    def test_a_file_without_ids_and_one_past_the_layer(self):
        empty = self.write("empty.txt", "\n \n")
        self.assertEqual(self.refusal("@" + empty),
                         ERROR + "%s: no class id in the file (one a line)\n" % empty)
        past = self.write("past.txt", "1\n7\n")
        self.assertEqual(self.refusal("@" + past), ERROR + "--classes @%s: class 7 is past"
                         " the layer's 4 classes (0 to 3)\n" % past)


class TestTheListsThemselves(unittest.TestCase):

    def test_repeats_and_overlaps_count_once_in_increasing_order(self):
        self.assertEqual(parse_classes("5,0:3,2:4,5").resolve(6), [0, 1, 2, 3, 5])

    def test_open_ends_reach_the_layer_s_ends(self):
        self.assertEqual(parse_classes(":2,4:").resolve(6), [0, 1, 4, 5])
        self.assertEqual(parse_classes(":").resolve(3), [0, 1, 2])

    def test_what_the_reports_write_reads_back_as_the_same_ids(self):
        for ids in ([0], [0, 1, 2, 5, 7, 8], list(range(10, 50, 3)), [3, 4]):
            self.assertEqual(parse_classes(ranges_text(ids)).resolve(60), ids)

    def test_an_empty_file_name_is_an_error(self):
        with self.assertRaisesRegex(InputError, "expected a file name"):
            parse_classes("@")


if __name__ == "__main__":
    unittest.main()
