"""Tests of ``compare``: two check-layer reports of the same classes give
the classes whose verdict differs, in every format, byte for byte; or one
error line and exit 2."""

import hashlib
import json
import os
import platform
import unittest

from reviews import __version__
from tests.support import FileTestCase
from tests.support.commands import in_process

# A layer as stored at 16 bits, and rounded to one decimal: class 3 leaves
# the hull's edge for a point on it, class 4 a point inside for a vertex.
FINE_CSV = "0,0\n4,0\n0,4.04\n2.02,2.02\n2.96,1.06\n"
COARSE_CSV = "0,0\n4,0\n0,4.0\n2.0,2.0\n3.0,1.1\n"
TOKENS = "alpha\nbeta\ngamma\ndelta\nepsilon\n"
CHANGES = """\
Changed verdicts, A -> B (classes numbered from 0):
  class 3 'delta': argmaxable -> unargmaxable
  class 4 'epsilon': unargmaxable -> argmaxable
2 of 5 classes compared changed (1 argmaxable -> unargmaxable, 1 unargmaxable -> argmaxable),\
 3 unchanged.
"""


class CompareTestCase(FileTestCase):

    def report(self, name, layer, *options):
        """check-layer's JSON report of ``layer`` (CSV text) as NAME.csv, in NAME.json."""
        path = os.path.join(self.folder.name, name + ".json")
        status, _, err = in_process("check-layer", self.write(name + ".csv", layer),
                                    "--vocab", self.write("tokens.txt", TOKENS), *options,
                                    "--format", "json", "--output", path)
        self.assertEqual(status, 0, err)
        return path

    def rounded(self):
        """The reports of the layer before and after rounding."""
        return self.report("f16", FINE_CSV), self.report("q1", COARSE_CSV)

    def refusal(self, *arguments):
        status, out, err = in_process("compare", *arguments)
        self.assertEqual((status, out, err.count("\n")), (2, "", 1), err)
        return err

    def file_line(self, name):
        with open(os.path.join(self.folder.name, name), "rb") as handle:
            data = handle.read()
        return "  file: %s, %d bytes, sha256 %s\n" % (
            os.path.join(self.folder.name, name), len(data), hashlib.sha256(data).hexdigest())


class TestReport(CompareTestCase):

    def test_the_text_report_of_a_rounded_layer(self):
        a, b = self.rounded()
        version = "  review-counterexamples %s (Python %s)\n" % (__version__,
                                                               platform.python_version())
        expected = "".join(
            "%s: %s\n" % (letter, path) + version
            + "  layer: %s, d = 2, no bias\n" % os.path.join(self.folder.name, name + ".csv")
            + self.file_line(name + ".csv") + self.file_line("tokens.txt") + "  options: none\n"
            for letter, path, name in (("A", a, "f16"), ("B", b, "q1")))
        self.assertEqual(in_process("compare", a, b), (0, expected + CHANGES, ""))

    def test_the_markdown_table_of_changes(self):
        _, out, _ = in_process("compare", *self.rounded(), "--format", "markdown")
        self.assertIn("| Class | Token | A | B |\n"
                      "| ---: | --- | --- | --- |\n"
                      "| 3 | `'delta'` | argmaxable | unargmaxable |\n"
                      "| 4 | `'epsilon'` | unargmaxable | argmaxable |\n", out)
        self.assertTrue(out.startswith("### compare `%s` and `%s`\n" % self.rounded()), out)

    def test_the_json_report(self):
        a, b = self.rounded()
        _, out, _ = in_process("compare", a, b, "--format", "json")
        report = json.loads(out)
        self.assertEqual([r["report"] for r in report["reports"]], [a, b])
        self.assertEqual(report["changes"],
                         [{"index": 3, "token": "delta", "a": "argmaxable", "b": "unargmaxable"},
                          {"index": 4, "token": "epsilon", "a": "unargmaxable",
                           "b": "argmaxable"}])
        self.assertEqual((report["classes"], report["asked"], report["changed"],
                          report["unchanged"], report["note"]), (5, "0:5", 2, 3, None))

    def test_other_questions_are_compared_with_a_note(self):
        a = self.report("a", FINE_CSV)
        b = self.report("b", FINE_CSV, "--box", "100", "--tolerance", "1e-8")
        status, out, err = in_process("compare", a, b)
        note = ("the reports ask different questions (A: no box, tolerance T = 0; B: box"
                " R = 100, tolerance T = 1e-8): a verdict may change with the question as"
                " well as with the layer")
        self.assertEqual((status, err), (0, "counterexamples: note: %s\n" % note))
        self.assertIn("Note: %s.\n" % note, out)

    def test_a_report_of_other_inputs_is_compared_and_says_its_inputs(self):
        a = self.report("a", FINE_CSV, "--inputs", "0:inf")
        b = self.report("b", FINE_CSV)
        status, out, err = in_process("compare", a, b)
        self.assertEqual(status, 0, err)
        self.assertIn("(A: inputs x >= 0, tolerance T = 0; B: no box, tolerance T = 0)", err)
        self.assertIn("  options: inputs x >= 0\n", out)
        _, out, _ = in_process("compare", a, b, "--format", "json")
        self.assertEqual(json.loads(out)["reports"][0]["inputs"], ["0", None])

    def test_the_same_layer_changes_nothing_and_passes_the_gate(self):
        a = self.report("a", FINE_CSV)
        status, out, _ = in_process("compare", a, a, "--fail-on-change")
        self.assertEqual(status, 0)
        self.assertTrue(out.endswith("\n0 of 5 classes compared changed, 5 unchanged.\n"), out)

    def test_fail_on_change_exits_1(self):
        self.assertEqual(in_process("compare", *self.rounded(), "--fail-on-change")[0], 1)
        self.assertEqual(in_process("compare", *self.rounded())[0], 0)

    def test_the_report_goes_to_output_and_never_over_an_input(self):
        a, b = self.rounded()
        path = os.path.join(self.folder.name, "changes.md")
        self.assertEqual(in_process("compare", a, b, "--format", "markdown", "--output", path),
                         (0, "", ""))
        with open(path) as handle:
            self.assertEqual(handle.read(), in_process("compare", a, b, "--format",
                                                       "markdown")[1])
        self.assertIn("--output %s is the input file %s; refusing to overwrite it" % (b, b),
                      self.refusal(a, b, "--output", b))

    def test_help_lists_the_command(self):
        _, out, _ = in_process("--help")
        self.assertIn("  compare A B       the classes whose verdict differs between two"
                      " JSON reports\n", out)


class TestRefusals(CompareTestCase):

    def test_reports_of_other_class_counts(self):
        a = self.report("a", FINE_CSV)
        b = self.report("b", COARSE_CSV.rsplit("3.0", 1)[0])
        self.assertEqual(self.refusal(a, b), "counterexamples: error: %s has 5 classes, %s has"
                         " 4: compare needs reports of the same classes\n" % (a, b))

    def test_a_shard_of_other_classes(self):
        a = self.report("a", FINE_CSV, "--classes", "0:3")
        self.assertIn("merge each one's shards first",
                      self.refusal(a, self.report("b", COARSE_CSV)))

    def test_what_is_no_report(self):
        a = self.report("a", FINE_CSV)
        claims = self.write("claims.json", in_process("--format", "json", "--claim",
                                                      "memorization.masking")[1])
        self.assertIn('claims.json: not a check-layer JSON report (no "results")',
                      self.refusal(a, claims))
        self.assertIn("not a check-layer JSON report",
                      self.refusal(self.write("text.json", "class 3"), a))


if __name__ == "__main__":
    unittest.main()
