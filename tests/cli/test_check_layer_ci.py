"""Tests of check-layer as a CI gate: --fail-on-unargmaxable's exit status
and --certificates' small JSON."""

import json
import unittest

from tests.support import FileTestCase
from tests.support.commands import FIGURE_1_JSON, in_process

ALL_ARGMAXABLE = '{"weights": [[1, 0], [0, 1], [-1, -1]]}'


class TestFailOnUnargmaxable(FileTestCase):

    def test_an_unargmaxable_class_exits_1_after_the_whole_report(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        status, out, err = in_process("check-layer", path, "--fail-on-unargmaxable")
        self.assertEqual((status, err), (1, ""))
        self.assertEqual(out, in_process("check-layer", path)[1])

    def test_every_class_argmaxable_exits_0(self):
        path = self.write("ok.json", ALL_ARGMAXABLE)
        self.assertEqual(in_process("check-layer", path, "--fail-on-unargmaxable")[0], 0)

    def test_without_the_flag_an_unargmaxable_class_still_exits_0(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        self.assertEqual(in_process("check-layer", path)[0], 0)

    def test_an_error_stays_2(self):
        path = self.write("bad.csv", "1,x\n")
        self.assertEqual(in_process("check-layer", path, "--fail-on-unargmaxable")[0], 2)

    def test_unargmaxable_in_the_box_counts(self):
        # Class 1 wins only for x > 10: outside the box |x| <= 1.
        path = self.write("box.json", '{"weights": [[0], [1]], "bias": [0, -10]}')
        self.assertEqual(in_process("check-layer", path, "--fail-on-unargmaxable")[0], 0)
        self.assertEqual(in_process("check-layer", path, "--box", "1",
                                    "--fail-on-unargmaxable")[0], 1)


class TestCertificates(FileTestCase):

    def test_unargmaxable_lists_only_their_combinations(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        status, out, _ = in_process("check-layer", path, "--format", "json",
                                    "--certificates", "unargmaxable")
        document = json.loads(out)
        self.assertEqual(status, 0)
        self.assertEqual((document["certificates"], document["unargmaxable"]),
                         ("unargmaxable", [3]))
        self.assertEqual(document["results"], [
            {"index": 3, "argmaxable": False,
             "terms": [[0, "43/290", "0.148276"], [1, "61/145", "0.420690"],
                       [2, "25/58", "0.431034"]]}])

    def test_all_is_the_default_and_lists_every_class(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        document = json.loads(in_process("check-layer", path, "--format", "json")[1])
        self.assertEqual(document["certificates"], "all")
        self.assertEqual([r["index"] for r in document["results"]], [0, 1, 2, 3])

    def test_no_unargmaxable_class_leaves_an_empty_list_that_parses(self):
        path = self.write("ok.json", ALL_ARGMAXABLE)
        document = json.loads(in_process("check-layer", path, "--format", "json",
                                         "--certificates", "unargmaxable")[1])
        self.assertEqual((document["unargmaxable"], document["results"]), ([], []))

    def test_with_text_or_markdown_it_is_refused_not_ignored(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        for form in ("text", "markdown"):
            self.assertEqual(in_process("check-layer", path, "--format", form,
                                        "--certificates", "unargmaxable"),
                             (2, "", "counterexamples: error: --certificates chooses what the"
                                     " JSON report lists; the %s report lists no witnesses:"
                                     " add --format json, or leave it out\n" % form))
        self.assertIn("--certificates chooses what the JSON report lists",
                      in_process("merge", path, "--certificates", "all")[2])

    def test_an_unknown_choice_is_a_usage_error(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        status, out, err = in_process("check-layer", path, "--certificates", "some")
        self.assertEqual((status, out), (2, ""))
        self.assertIn("invalid choice: 'some'", err)


if __name__ == "__main__":
    unittest.main()
