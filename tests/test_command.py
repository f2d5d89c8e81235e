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

    def test_an_empty_claim_id_is_a_usage_error(self):
        self.assertEqual(in_process("--claim", ""),
                         (2, "", "counterexamples: error: argument --claim: expected a claim id"
                          " (see --list), got an empty string\n"))

    def test_help_goes_to_the_output_and_exits_0(self):
        status, out, err = in_process("--help")
        self.assertEqual((status, err), (0, ""))
        self.assertTrue(out.startswith("usage: counterexamples [-h]"), out)
        status, out, _ = in_process("check-layer", "-h")
        self.assertEqual(status, 0)
        self.assertTrue(out.startswith("usage: counterexamples check-layer [-h]"), out)

    def test_an_interrupt_is_one_line_and_exit_130(self):
        with mock.patch.object(counterexamples, "run", side_effect=KeyboardInterrupt):
            self.assertEqual(in_process(*FAST), (130, "", "counterexamples: interrupted\n"))

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
        self.assertEqual(document["results"][3],
                         {"index": 3, "argmaxable": False,
                          "terms": [[0, "43/290"], [1, "61/145"], [2, "25/58"]]})

    def test_json_has_one_line_per_class_and_integers_without_denominator(self):
        # A duplicated row is the other one, with weight exactly 1.
        path = self.write("twice.csv", "0\n0\n1\n")
        _, out, _ = in_process("check-layer", path, "--format", "json")
        lines = out.splitlines()
        self.assertEqual((lines[5], lines[9:]), ('  "results": [', ["  ]", "}"]))
        self.assertEqual([json.loads(line.rstrip(",")) for line in lines[6:8]],
                         [{"index": 0, "argmaxable": False, "terms": [[1, "1"]]},
                          {"index": 1, "argmaxable": False, "terms": [[0, "1"]]}])
        self.assertEqual(list(json.loads(lines[8])), ["index", "argmaxable", "witness"])

    def test_certificates_of_more_than_4300_digits_are_printed(self):
        # w[1] = (1 - 10**-4400) w[0] + 10**-4400 w[2]: the only combination.
        path = self.write("wide.csv", "0\n1\n1e4400\n")
        nines, power = "9" * 4400 + "/1" + "0" * 4400, "1/1" + "0" * 4400
        status, out, err = in_process("check-layer", path)
        self.assertEqual((status, err), (0, ""))
        self.assertIn("  class 1: w[1] = %s * w[0] + %s * w[2]\n" % (nines, power), out)
        status, out, err = in_process("check-layer", path, "--format", "json")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(json.loads(out)["results"][1]["terms"], [[0, nines], [2, power]])

    def test_bias_file(self):
        layer = self.write("fig1.json", FIGURE_1_JSON)
        bias = self.write("bias.csv", "0\n0\n0\n1\n")
        _, out, _ = in_process("check-layer", layer, "--bias", bias, "--format", "json")
        self.assertEqual(json.loads(out)["unargmaxable"], [])
        self.assertIs(json.loads(out)["bias"], True)

    def test_a_bias_of_the_wrong_length_names_the_bias_file(self):
        layer = self.write("fig1.json", FIGURE_1_JSON)
        bias = self.write("bias.csv", "0\n0\n0\n")
        self.assertEqual(in_process("check-layer", layer, "--bias", bias),
                         (2, "", "counterexamples: error: %s has 3 numbers for the 4 classes of %s\n"
                          % (bias, layer)))

    def test_a_bad_number_in_the_bias_file_names_the_bias_file(self):
        layer = self.write("fig1.json", FIGURE_1_JSON)
        bias = self.write("bias.csv", "0\nx\n0\n0\n")
        status, out, err = in_process("check-layer", layer, "--bias", bias)
        self.assertEqual((status, out), (2, ""))
        self.assertTrue(err.startswith("counterexamples: error: %s" % bias), err)

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

    def test_an_interrupt_wipes_the_progress_line_first(self):
        class Terminal(io.StringIO):
            def isatty(self):
                return True

        def interrupted(weights, bias, progress):
            progress(1, 4)
            raise KeyboardInterrupt
        path = self.write("fig1.json", FIGURE_1_JSON)
        err = Terminal()
        with mock.patch.object(counterexamples, "check_layer", interrupted):
            status = counterexamples.main(["check-layer", path], io.StringIO(), err)
        self.assertEqual((status, err.getvalue()),
                         (130, "\rchecked 1/4 classes\r%s\rcounterexamples: interrupted\n"
                          % (" " * 40)))


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
        folder = os.path.join(blocker, "figures")
        status, out, err = in_process("--figures", folder, "--claim", "memorization.masking")
        self.assertEqual((status, out), (2, ""))
        self.assertRegex(err, "^counterexamples: error: cannot write figures to .*figures: .*\n$")

    def test_an_existing_file_is_not_a_folder(self):
        blocker = self.write("file", "x")
        self.assertEqual(in_process("--figures", blocker, *FAST),
                         (2, "", "counterexamples: error: cannot write figures to %s:"
                          " it is a file, not a folder\n" % blocker))

    def test_an_empty_folder_name_is_a_usage_error(self):
        self.assertEqual(in_process("--figures", "", *FAST),
                         (2, "", "counterexamples: error: argument --figures: expected a folder"
                          " name, got an empty string\n"))


def script(arguments, **options):
    """Run the script with bytes output; ``options`` go to subprocess.run."""
    options.setdefault("stdout", subprocess.PIPE)
    options.setdefault("stderr", subprocess.PIPE)
    return subprocess.run([sys.executable, SCRIPT] + list(arguments), cwd=ROOT, **options)


def closing(fd):
    """A preexec_fn that closes ``fd`` in the child, as the shell's ``>&-`` does."""
    return lambda: os.close(fd)


@unittest.skipUnless(os.name == "posix", "closes descriptors and sends signals the POSIX way")
class TestStreams(FileTestCase):
    """Broken, closed or full standard streams: a status and a line, no traceback."""

    def test_closed_stdout_is_one_line_and_exit_2(self):
        done = script(["--version"], stdout=None, preexec_fn=closing(1))
        self.assertEqual((done.returncode, done.stderr),
                         (2, b"counterexamples: error: cannot write the report:"
                             b" standard output is closed\n"))

    @unittest.skipUnless(os.path.exists("/dev/full"), "needs /dev/full")
    def test_a_full_disk_is_one_line_and_exit_2(self):
        with open("/dev/full", "wb") as full:
            done = script(FAST, stdout=full)
        self.assertEqual((done.returncode, done.stderr),
                         (2, b"counterexamples: error: cannot write the report:"
                             b" No space left on device\n"))

    def test_a_pipe_closed_early_ends_quietly_with_exit_2(self):
        # The reader is gone before the first write, as with a fast "| head -1".
        reader, writer = os.pipe()
        os.close(reader)
        try:
            done = script(["--list"], stdout=writer)
        finally:
            os.close(writer)
        self.assertEqual((done.returncode, done.stderr), (2, b""))

    def test_a_usage_error_with_stderr_closed_still_exits_2(self):
        done = script(["--bogus"], stderr=None, preexec_fn=closing(2))
        self.assertEqual((done.returncode, done.stdout), (2, b""))

    def test_a_name_the_output_cannot_encode_is_escaped(self):
        name = "caf\xe9.csv"
        try:
            os.fsencode(name)
        except UnicodeEncodeError:
            self.skipTest("the file system cannot name %r" % name)
        path = self.write(name, "1,0\n0,1\n")
        environment = dict(os.environ, PYTHONIOENCODING="ascii")
        done = script(["check-layer", path], env=environment)
        self.assertEqual((done.returncode, done.stderr), (0, b""))
        self.assertTrue(done.stdout.startswith(os.fsencode(self.folder.name)
                                               + b"/caf\\xe9.csv: 2 classes"), done.stdout)

    def test_ctrl_c_during_a_check_is_one_line_and_exit_130(self):
        path = self.write("two.csv", "1,0\n0,1\n")
        interrupted_check = (
            "import os, signal, sys, time\n"
            "from reviews import counterexamples\n"
            "def check_layer(*arguments, **keywords):\n"
            "    os.kill(os.getpid(), signal.SIGINT)\n"
            "    while True:\n"
            "        time.sleep(0.01)\n"
            "counterexamples.check_layer = check_layer\n"
            "sys.exit(counterexamples.main(['check-layer', sys.argv[1]]))\n")
        done = subprocess.run([sys.executable, "-c", interrupted_check, path], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual((done.returncode, done.stdout, done.stderr),
                         (130, b"", b"counterexamples: interrupted\n"))


if __name__ == "__main__":
    unittest.main()
