"""End-to-end tests of the command line: exit codes, formats, errors."""

import io
import json
import os
import subprocess
import sys
import unittest
from unittest import mock

from reviews import __version__
from reviews import counterexamples
from reviews.claims import FAIL, PASS, Claim, Outcome, Paper
from tests.support import FileTestCase

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "reviews", "counterexamples.py")
FAST = ["--claim", "memorization.masking"]


def command(*arguments, cwd=None):
    """Run the script as a reviewer does, from another folder by default."""
    return subprocess.run([sys.executable, SCRIPT] + list(arguments), cwd=cwd or os.sep,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)


def in_process(*arguments):
    out, err = io.StringIO(), io.StringIO()
    status = counterexamples.main(list(arguments), out, err)
    return status, out.getvalue(), err.getvalue()


class TestScript(unittest.TestCase):

    def test_default_run_exits_0_with_every_verdict_as_stated(self):
        done = command()
        self.assertEqual((done.returncode, done.stderr), (0, ""))
        self.assertIn("softmax([700, 0]) = (1.000000000000000, 9.86e-305)", done.stdout)
        self.assertRegex(done.stdout, r"\n\d+ claims: \d+ as the review states, 0 MISMATCH\n$")

    def test_two_runs_give_identical_bytes_and_the_pinned_claims(self):
        # Every printed number and verdict, pinned.  After a deliberate change:
        # python reviews/counterexamples.py --format json | python -c "import json, sys;
        #   json.dump(json.load(sys.stdin)['claims'], sys.stdout, indent=2); print()"
        #   > tests/golden/claims.json
        first, second = command("--format", "json").stdout, command("--format", "json").stdout
        self.assertEqual(first, second)
        with open(os.path.join(ROOT, "tests", "golden", "claims.json")) as handle:
            self.assertEqual(json.loads(first)["claims"], json.load(handle))

    def test_runs_as_a_module_too(self):
        done = subprocess.run([sys.executable, "-m", "reviews.counterexamples", "--version"],
                              cwd=ROOT, stdout=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(done.stdout, "review-counterexamples %s\n" % __version__)

    def test_unknown_flag_is_one_line_on_stderr_and_exit_2(self):
        done = command("--bogus")
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stdout, "")
        self.assertEqual(done.stderr, "counterexamples: error: unrecognized arguments: --bogus\n")


class TestMain(unittest.TestCase):

    def test_json_format_has_the_stable_keys(self):
        status, out, _ = in_process("--format", "json", *FAST)
        document = json.loads(out)
        self.assertEqual(status, 0)
        self.assertEqual(list(document), ["suite", "python", "ok", "claims"])
        self.assertEqual([c["id"] for c in document["claims"]], ["memorization.masking"])
        self.assertEqual(document["claims"][0]["paper"]["arxiv"], "2504.14765")

    def test_markdown_format(self):
        status, out, _ = in_process("--format", "markdown", *FAST)
        self.assertEqual(status, 0)
        self.assertIn("| `memorization.masking` | arXiv:2504.14765 Appendix C.3 |", out)

    def test_claim_is_repeatable(self):
        _, out, _ = in_process("--format", "json", "--claim", "memorization.underflow", *FAST)
        self.assertEqual([c["id"] for c in json.loads(out)["claims"]],
                         ["memorization.masking", "memorization.underflow"])

    def test_unknown_claim_is_a_usage_error(self):
        self.assertEqual(in_process("--claim", "nope"),
                         (2, "", "counterexamples: error: unknown claim id nope (see --list)\n"))

    def test_bad_format_is_a_usage_error(self):
        status, _, err = in_process("--format", "pdf")
        self.assertEqual(status, 2)
        self.assertIn("invalid choice: 'pdf'", err)
        self.assertEqual(err.count("\n"), 1)

    def test_list_shows_ids_and_statements(self):
        status, out, _ = in_process("--list")
        self.assertEqual(status, 0)
        self.assertIn("memorization.interior  Interior distributions are realized by "
                      "z_i = log p_i.\n", out)

    def test_version(self):
        self.assertEqual(in_process("--version"), (0, "review-counterexamples %s\n" % __version__, ""))

    def test_mismatch_exits_1_and_says_so(self):
        wrong = Claim("x.wrong", Paper("T", ("A",), 2020, "2001.00001"), "S1", "S.", PASS,
                      lambda: Outcome(FAIL, "s", ()))
        with mock.patch.object(counterexamples, "all_claims", return_value=[wrong]):
            status, out, _ = in_process()
        self.assertEqual(status, 1)
        self.assertIn("MISMATCH: verdict FAIL, the review states PASS", out)

    def test_version_matches_pyproject(self):
        with open(os.path.join(ROOT, "pyproject.toml")) as handle:
            self.assertIn('version = "%s"\n' % __version__, handle.read())


if __name__ == "__main__":
    unittest.main()


FIGURE_1_JSON = '{"weights": [[-2, -2], [1, 2], [1.8, -0.8], [0.9, 0.2]]}'


class TestCheckLayer(FileTestCase):

    def test_text_lists_unargmaxable_classes_first(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        status, out, err = in_process("check-layer", path)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out.splitlines()[1:], [
            "Unargmaxable classes (each is a convex combination of others):",
            "  class 3: w[3] = 43/290 * w[0] + 61/145 * w[1] + 25/58 * w[2]",
            "1 of 4 classes unargmaxable; 3 argmaxable (witnesses: --format json)",
        ])

    def test_json_format(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        status, out, _ = in_process("check-layer", path, "--format", "json")
        document = json.loads(out)
        self.assertEqual(status, 0)
        self.assertEqual(list(document), ["classes", "dim", "bias", "unargmaxable", "results"])
        self.assertEqual((document["classes"], document["dim"], document["bias"]), (4, 2, False))
        self.assertEqual(document["unargmaxable"], [3])
        self.assertEqual(document["results"][2],
                         {"index": 2, "argmaxable": True, "witness": ["9/5", "-4/5"]})
        self.assertEqual(document["results"][3]["combination"],
                         ["43/290", "61/145", "25/58", "0/1"])

    def test_bias_file(self):
        layer = self.write("fig1.json", FIGURE_1_JSON)
        bias = self.write("bias.csv", "0\n0\n0\n1\n")
        _, out, _ = in_process("check-layer", layer, "--bias", bias, "--format", "json")
        self.assertEqual(json.loads(out)["unargmaxable"], [])
        self.assertIs(json.loads(out)["bias"], True)

    def test_exit_0_when_every_class_is_argmaxable(self):
        path = self.write("two.csv", "1,0\n0,1\n")
        self.assertEqual(in_process("check-layer", path)[0], 0)

    def test_bad_files_are_one_line_and_exit_2(self):
        cases = [
            ("missing.json", None, "cannot read"),
            ("ragged.csv", "1,2\n3\n", "ragged.csv: weights row 1 has length 1, row 0 has length 2"),
            ("bad.json", "[[1, true]]", r"bad.json: weights\[0\]\[1\] is True, not a real number"),
        ]
        for name, content, message in cases:
            path = os.path.join(self.folder.name, name) if content is None else self.write(name, content)
            with self.subTest(name=name):
                status, out, err = in_process("check-layer", path)
                self.assertEqual((status, out), (2, ""))
                self.assertRegex(err, "^counterexamples: error: .*%s.*\n$" % message)

    def test_script_check_layer_has_no_traceback(self):
        done = command("check-layer", os.path.join(self.folder.name, "none.npy"))
        self.assertEqual(done.returncode, 2)
        self.assertEqual(len(done.stderr.splitlines()), 1)

    def test_missing_file_argument_is_a_usage_error(self):
        status, _, err = in_process("check-layer")
        self.assertEqual(status, 2)
        self.assertIn("the following arguments are required: file", err)

    def test_progress_goes_to_a_terminal_only(self):
        class Terminal(io.StringIO):
            def isatty(self):
                return True
        path = self.write("fig1.json", FIGURE_1_JSON)
        out, err = io.StringIO(), Terminal()
        counterexamples.main(["check-layer", path], out, err)
        self.assertIn("\rchecked 1/4 classes", err.getvalue())
        self.assertTrue(err.getvalue().endswith("\r"))


class TestFigureFolder(FileTestCase):

    def test_figures_are_written_and_named_under_their_claims(self):
        folder = os.path.join(self.folder.name, "new", "figures")
        status, out, _ = in_process("--figures", folder, "--format", "markdown",
                                    "--claim", "memorization.every-distribution",
                                    "--claim", "low-rank.unargmaxable-exists",
                                    "--claim", "low-rank.region-counts")
        self.assertEqual(status, 0)
        self.assertEqual(sorted(os.listdir(folder)), ["figure1.svg", "positivity.svg", "regions.svg"])
        for name, claim_id in (("positivity.svg", "memorization.every-distribution"),
                               ("figure1.svg", "low-rank.unargmaxable-exists"),
                               ("regions.svg", "low-rank.region-counts")):
            section = out[out.index("### `%s`" % claim_id):]
            section = section[:section.find("### ", 4) if "### " in section[4:] else None]
            self.assertIn("![%s](%s)" % (name, os.path.join(folder, name)), section)

    def test_figures_are_byte_identical_across_runs(self):
        contents = []
        for run in ("a", "b"):
            folder = os.path.join(self.folder.name, run)
            in_process("--figures", folder, "--claim", "low-rank.unargmaxable-exists")
            with open(os.path.join(folder, "figure1.svg"), "rb") as handle:
                contents.append(handle.read())
        self.assertEqual(contents[0], contents[1])

    def test_json_lists_figures_and_text_names_them(self):
        folder = os.path.join(self.folder.name, "f")
        _, out, _ = in_process("--figures", folder, "--format", "json",
                               "--claim", "memorization.masking",
                               "--claim", "low-rank.unargmaxable-exists")
        claims = json.loads(out)["claims"]
        self.assertEqual({c["id"]: c["figures"] for c in claims},
                         {"memorization.masking": [],
                          "low-rank.unargmaxable-exists": [os.path.join(folder, "figure1.svg")]})
        _, text_out, _ = in_process("--figures", folder, "--claim", "low-rank.unargmaxable-exists")
        self.assertIn("    Figure: %s\n" % os.path.join(folder, "figure1.svg"), text_out)

    def test_an_unwritable_folder_is_one_line_and_exit_2(self):
        blocker = self.write("file", "x")
        status, out, err = in_process("--figures", blocker, "--claim", "memorization.masking")
        self.assertEqual((status, out), (2, ""))
        self.assertRegex(err, "^counterexamples: error: cannot write figures to .*file: .*\n$")
