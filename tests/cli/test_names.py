"""Tests of the command with hostile names: every user's name on one line,
escaped, in every output and message (file names, folders, claim ids)."""

import json
import os
import re
import subprocess
import sys
import unittest

from tests.support import FileTestCase
from tests.support.commands import FIGURE_CLAIMS, SCRIPT, body, in_process

HOSTILE = "x\n<img src=x onerror=alert(1)>\n.csv"
SHOWN = "x\\n<img src=x onerror=alert(1)>\\n.csv"
FIGURE_1_CSV = "-2,-2\n1,2\n1.8,-0.8\n0.9,0.2\n"


def _outside_code_spans(markdown):
    """The markdown with every code span removed: what a renderer reads as markup."""
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "", markdown)


class TestLayerFileNames(FileTestCase):

    def test_text_shows_a_name_with_newlines_on_its_one_header_line(self):
        layer = self.write(HOSTILE, FIGURE_1_CSV)
        status, out, err = in_process("check-layer", layer)
        self.assertEqual((status, err), (0, ""))
        self.assertIn("\nfile: %s, " % os.path.join(self.folder.name, SHOWN), out)
        first, second = body(out).splitlines()[:2]
        self.assertEqual(first, "%s: 4 classes, d = 2, no bias; classes numbered from 0"
                         % os.path.join(self.folder.name, SHOWN))
        self.assertTrue(second.startswith("Unargmaxable classes:"))

    def test_markdown_keeps_the_name_in_a_code_span_on_the_heading_line(self):
        layer = self.write(HOSTILE, FIGURE_1_CSV)
        status, out, err = in_process("check-layer", layer, "--format", "markdown")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out.splitlines()[0], "### check-layer `%s`"
                         % os.path.join(self.folder.name, SHOWN))
        self.assertNotIn("<img", _outside_code_spans(out))

    def test_json_keeps_the_exact_name(self):
        layer = self.write(HOSTILE, FIGURE_1_CSV)
        status, out, err = in_process("check-layer", layer, "--format", "json")
        self.assertEqual(json.loads(out)["file"], layer)

    def test_an_error_about_such_a_file_is_one_line(self):
        layer = self.write(HOSTILE, "1,2\nx,4\n")
        status, out, err = in_process("check-layer", layer)
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, "counterexamples: error: %s: line 2, column 1: 'x' is not a number\n"
                         % os.path.join(self.folder.name, SHOWN))
        status, out, err = in_process("check-layer", layer + ".missing.csv")
        self.assertEqual(err.count("\n"), 1)
        self.assertIn(SHOWN + ".missing.csv: No such file", err)

    @unittest.skipUnless(sys.platform.startswith("linux"), "needs a file system of bytes")
    def test_a_name_that_is_not_utf8_is_written_with_its_byte_escaped(self):
        layer = self.write(os.fsdecode(b"\xff.csv"), FIGURE_1_CSV)
        for form in ("text", "markdown"):
            with self.subTest(form=form):
                output = os.path.join(self.folder.name, "report." + form)
                done = subprocess.run([sys.executable, SCRIPT, "check-layer",
                                       os.path.basename(layer), "--format", form, "--output",
                                       output], cwd=self.folder.name, capture_output=True,
                                      timeout=120)
                self.assertEqual((done.returncode, done.stdout, done.stderr), (0, b"", b""))
                with open(output, "rb") as handle:
                    self.assertIn(b"\\xff.csv", handle.read())


class TestFigureFolderNames(FileTestCase):

    def test_markdown_links_and_names_a_hostile_folder_inertly(self):
        for folder in ("<img src=x onerror=alert(1)>", "nl\n# injected heading"):
            with self.subTest(folder=folder):
                path = os.path.join(self.folder.name, folder)
                status, out, err = in_process("--figures", path, "--format", "markdown",
                                              *FIGURE_CLAIMS)
                self.assertEqual((status, err), (0, ""))
                outside = _outside_code_spans(out)
                self.assertNotIn("<img", outside)
                self.assertNotIn("\n# injected", out)
                self.assertTrue(os.path.exists(os.path.join(path, "figure1.svg")))

    def test_a_link_target_is_percent_encoded(self):
        path = os.path.join(self.folder.name, "<img src=x onerror=alert(1)>")
        out = in_process("--figures", path, "--format", "markdown", *FIGURE_CLAIMS)[1]
        self.assertIn("/%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E/figure1.svg)", out)

    def test_text_names_a_folder_with_a_newline_on_one_line(self):
        path = os.path.join(self.folder.name, "nl\nFAIL forged")
        out = in_process("--figures", path, *FIGURE_CLAIMS)[1]
        self.assertNotIn("\nFAIL forged", out)
        self.assertIn("nl\\nFAIL forged/figure1.svg", out)

    def test_a_folder_that_cannot_be_made_is_one_line(self):
        blocker = self.write("file\nline", "x")
        status, out, err = in_process("--figures", os.path.join(blocker, "sub\n#h"),
                                      *FIGURE_CLAIMS)
        self.assertEqual((status, out, err.count("\n")), (2, "", 1))


class TestClaimIds(unittest.TestCase):

    def test_an_unknown_claim_id_with_a_newline_is_one_line(self):
        self.assertEqual(in_process("--claim", "a\nPASS b"),
                         (2, "", "counterexamples: error: unknown claim id or paper a\\nPASS b"
                                 " (see --list)\n"))


if __name__ == "__main__":
    unittest.main()
