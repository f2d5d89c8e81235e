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

    def test_two_runs_give_identical_bytes(self):
        self.assertEqual(command("--format", "json").stdout, command("--format", "json").stdout)

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
