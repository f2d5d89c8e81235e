"""End-to-end tests of the command line: exit codes, formats, errors."""

import hashlib
import io
import json
import os
import platform
import subprocess
import sys
import unittest
from unittest import mock

from reviews import __version__
from reviews.cli import main
from reviews.cli import layer as layer_command
from reviews.cli import suite as suite_command
from reviews.papers import all_claims
from reviews.claims import FAIL, PASS, Claim, Outcome, Paper
from reviews.errors import InputError
from tests.support import FileTestCase
from tests.formats.test_layers import npy_bytes
from tests.formats.test_arrays import npz_bytes, raw, safetensors_bytes
from tests.report.test_verdicts import _Page

# A number past what the project holds exactly, as the command names it.
SIZE_LIMIT = ("past the size limit: an exact value's numerator and denominator may have at most"
              " 65536 bits each (about 1e-19728 to 1e19728)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "reviews", "counterexamples.py")
FAST = ["--claim", "memorization.masking"]
FIGURE_CLAIMS = ["--claim", "low-rank.unargmaxable-exists",
                 "--claim", "memorization.every-distribution"]


def relative(path):
    """How a report on standard output cites ``path``: from the current folder."""
    return os.path.relpath(path).replace(os.sep, "/")


def command(*arguments, cwd=None):
    """Run the script as a reviewer does, from another folder by default."""
    return subprocess.run([sys.executable, SCRIPT] + list(arguments), cwd=cwd or os.sep,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=120)


def run_code(code, *arguments):
    """Run ``code`` in a new interpreter from the repository root, bytes out; as the CLI runs."""
    return subprocess.run([sys.executable, "-c", code] + list(arguments), cwd=ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)


def _flatten(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _flatten(item)
        else:
            yield item


def in_process(*arguments):
    out, err = io.StringIO(), io.StringIO()
    status = main(list(arguments), out, err)
    return status, out.getvalue(), err.getvalue()


class TestScript(unittest.TestCase):

    def test_default_run_exits_0_with_every_verdict_as_stated(self):
        done = command()
        self.assertEqual((done.returncode, done.stderr), (0, ""))
        self.assertIn("softmax([700, 0]) = (1.000000000000000, 9.86e-305)", done.stdout)
        self.assertRegex(done.stdout, r"\n\d+ claims: \d+ as the review states, 0 MISMATCH\n$")

    def test_two_runs_give_identical_bytes_and_the_pinned_claims(self):
        # Every printed number and verdict, pinned.  After a deliberate change,
        # bump the version and regenerate tests/golden/claims.json with
        # python tests/golden/regenerate.py (README, "Adding a reviewed paper").
        # The golden file pins the claims that run only when selected too
        # (their own tests compare them); a default run gives the others.
        first, second = command("--format", "json").stdout, command("--format", "json").stdout
        self.assertEqual(first, second)
        with open(os.path.join(ROOT, "tests", "golden", "claims.json")) as handle:
            pinned = json.load(handle)["claims"]
        self.assertEqual(json.loads(first)["claims"], [c for c in pinned if c["by_default"]])
        self.assertEqual([c["id"] for c in pinned], [c.id for c in all_claims()])

    def test_the_golden_file_pins_this_version(self):
        # A version names one output: changed claims need a new version, so
        # the version recorded with the pinned claims must be this one.
        with open(os.path.join(ROOT, "tests", "golden", "claims.json")) as handle:
            self.assertEqual(json.load(handle)["version"], __version__)

    def test_unittest_from_the_root_runs_the_suite(self):
        # "python -m unittest" with no arguments discovers from the root with
        # the pattern test*.py: it must find the test modules (one is enough
        # to show it, and cheap to load), not "Ran 0 tests ... OK".
        found = unittest.TestLoader().discover(ROOT, pattern="test_claims.py",
                                               top_level_dir=ROOT)
        ids = [test.id() for test in _flatten(found)]
        self.assertIn("tests.test_claims.TestRegistry.test_select_keeps_registry_order", ids)

    def test_runs_as_a_module_too(self):
        for module in ("reviews", "reviews.counterexamples"):
            with self.subTest(module=module):
                done = subprocess.run([sys.executable, "-m", module, "--version"],
                                      cwd=ROOT, stdout=subprocess.PIPE, universal_newlines=True,
                                      timeout=120)
                self.assertEqual(done.stdout, "review-counterexamples %s\n" % __version__)

    def test_an_older_python_gets_one_line_and_exit_2(self):
        # Python 3.8 lacks math.nextafter: a run would end in a traceback.
        done = subprocess.run(
            [sys.executable, "-c", "import runpy, sys; sys.version_info = (3, 8, 18, 'final', 0);"
             " runpy.run_path(sys.argv[1], run_name='__main__')", SCRIPT],
            cwd=ROOT, capture_output=True, text=True, timeout=120)
        self.assertEqual((done.returncode, done.stdout, done.stderr),
                         (2, "", "counterexamples: error: needs Python 3.9 or newer, not 3.8\n"))

    def assertInterruptedWhileImporting(self, module, swallowed=False):
        """Ctrl-C as the script imports ``module`` (inside a try that swallows
        every exception, if ``swallowed``): one line and exit 130."""
        interrupt = "os.kill(os.getpid(), 2)"   # SIGINT, without importing signal
        if swallowed:
            interrupt = ("try:\n                %s\n                sum(range(9))\n"
                         "            except BaseException:\n                pass" % interrupt)
        done = subprocess.run(
            [sys.executable, "-c", "import os, runpy, sys\n"
             "sys.modules.pop('signal', None)\n"
             "class Interrupt:\n"
             "    def find_spec(self, name, path, target=None):\n"
             "        if name == %r:\n"
             "            %s\n"
             "sys.meta_path.insert(0, Interrupt())\n"
             "sys.argv[:] = [sys.argv[1], '--version']\n"
             "runpy.run_path(sys.argv[0], run_name='__main__')" % (module, interrupt), SCRIPT],
            cwd=ROOT, capture_output=True, text=True, timeout=120)
        self.assertEqual((done.returncode, done.stdout, done.stderr),
                         (130, "", "counterexamples: interrupted\n"))

    def test_ctrl_c_while_the_package_imports_is_one_line_and_exit_130(self):
        # While reviews.report.html is being imported, long before main() runs.
        self.assertInterruptedWhileImporting("reviews.report.html")

    def test_ctrl_c_while_the_package_imports_ends_the_run_even_where_caught(self):
        # The interrupt's handler may run where an exception is swallowed:
        # it must end the run itself, not raise and hope.
        self.assertInterruptedWhileImporting("reviews.report.html", swallowed=True)

    def test_ctrl_c_while_the_signal_module_imports_is_one_line_and_exit_130(self):
        # Before the script's handler can be set: signal is its first import.
        self.assertInterruptedWhileImporting("signal")

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
                         (2, "", "counterexamples: error: unknown claim id or paper nope"
                                 " (see --list)\n"))

    def test_list_shows_only_the_claims_asked_for(self):
        status, out, _ = in_process("--list", "--format", "json", "--claim", "memorization",
                                    "--claim", "low-rank.box")
        self.assertEqual([c["id"] for c in json.loads(out)],
                         ["low-rank.box"] + [c.id for c in all_claims()
                                             if c.id.startswith("memorization.")])

    def test_a_paper_prefix_runs_that_papers_claims(self):
        _, out, _ = in_process("--format", "json", "--claim", "memorization")
        self.assertEqual([c["id"] for c in json.loads(out)["claims"]],
                         [c.id for c in all_claims()
                          if c.id.startswith("memorization.")])

    def test_an_empty_claim_id_is_a_usage_error(self):
        self.assertEqual(in_process("--claim", ""),
                         (2, "", "counterexamples: error: argument --claim: expected a claim id"
                          " (see --list), got an empty string\n"))

    def test_help_names_the_check_layer_command(self):
        _, out, _ = in_process("--help")
        self.assertTrue(out.endswith(
            "\ncommand:\n"
            "  check-layer FILE  decide exactly which classes of a softmax layer are argmaxable\n"
            "                    (options: counterexamples check-layer --help)\n"), out)

    def test_check_layer_help_names_the_file_types_and_the_numbering(self):
        _, out, _ = in_process("check-layer", "--help")
        flat = " ".join(out.split())
        for text in (".json, .csv, .tsv, .txt, .vec, .npy, .npz, .safetensors, .bin, .pt or"
                     " .pth, or a model folder (config.json and weights) or its *.index.json",
                     "- reads JSON or CSV from stdin", "Classes are numbered from 0.",
                     "--tensor NAME", "--bias-tensor NAME", "--transpose"):
            self.assertIn(text, flat)

    def test_help_goes_to_the_output_and_exits_0(self):
        status, out, err = in_process("--help")
        self.assertEqual((status, err), (0, ""))
        self.assertTrue(out.startswith("usage: counterexamples [-h]"), out)
        status, out, _ = in_process("check-layer", "-h")
        self.assertEqual(status, 0)
        self.assertTrue(out.startswith("usage: counterexamples check-layer [-h]"), out)

    def test_an_interrupt_is_one_line_and_exit_130(self):
        with mock.patch.object(suite_command, "run", side_effect=KeyboardInterrupt):
            self.assertEqual(in_process(*FAST), (130, "", "counterexamples: interrupted\n"))

    def test_bad_format_is_a_usage_error(self):
        status, _, err = in_process("--format", "pdf")
        self.assertEqual(status, 2)
        self.assertIn("invalid choice: 'pdf'", err)
        self.assertEqual(err.count("\n"), 1)

    def test_list_shows_ids_and_statements(self):
        status, out, _ = in_process("--list")
        self.assertEqual(status, 0)
        column = max(len(claim.id) for claim in all_claims()) + 2
        self.assertTrue(out.startswith("id".ljust(column) + "by      review states  runs    "
                                       " statement\n"), out)
        self.assertIn("\n" + "memorization.interior".ljust(column) + "review  PASS          "
                      " default  Interior distributions are realized by z_i = log p_i.\n", out)
        self.assertIn("\n" + "low-rank.box".ljust(column) + "review  PASS           default"
                      "  Bounding", out)

    def test_list_columns_are_aligned(self):
        _, out, _ = in_process("--list")
        ids = [claim.id for claim in all_claims()]
        column = max(map(len, ids)) + 2
        for claim_id, line in zip(ids, out.splitlines()[1:]):
            self.assertEqual(line[:column].rstrip(), claim_id)
            self.assertNotEqual(line[column], " ")

    def test_one_claim_is_counted_as_one_claim(self):
        _, out, _ = in_process(*FAST)
        self.assertTrue(out.endswith("\n1 claim: 1 as the review states, 0 MISMATCH\n"), out)

    def test_list_as_json(self):
        status, out, _ = in_process("--list", "--format", "json")
        listed = json.loads(out)
        self.assertEqual(status, 0)
        self.assertEqual(listed[0], {"id": "low-rank.unargmaxable-exists", "source": "paper",
                                     "expected": "PASS", "by_default": True,
                                     "statement": "A low-rank softmax can have unargmaxable"
                                                  " classes."})
        self.assertEqual(len(listed), len(all_claims()))

    def test_version(self):
        self.assertEqual(in_process("--version"), (0, "review-counterexamples %s\n" % __version__, ""))

    def test_mismatch_exits_1_and_says_so(self):
        wrong = Claim("x.wrong", Paper("T", ("A",), 2020, "2001.00001"), "S1", "S.", PASS,
                      lambda: Outcome(FAIL, "s", ()))
        with mock.patch.object(suite_command, "all_claims", return_value=[wrong]):
            status, out, _ = in_process()
        self.assertEqual(status, 1)
        self.assertIn("MISMATCH: verdict FAIL, the review states PASS", out)

    def test_a_claim_that_runs_only_when_selected_is_listed_not_run(self):
        paper = Paper("T", ("A",), 2020, "2001.00001")
        quick = Claim("x.quick", paper, "S1", "Q.", PASS, lambda: Outcome(PASS, "q", ()))
        slow = Claim("x.slow", paper, "S1", "S.", PASS, lambda: Outcome(PASS, "s", ()),
                     by_default=False)
        with mock.patch.object(suite_command, "all_claims", return_value=[quick, slow]):
            runs = {arguments: json.loads(in_process("--format", "json", *arguments)[1])
                    for arguments in ((), ("--claim", "x.slow"), ("--claim", "x"))}
            listed = json.loads(in_process("--list", "--format", "json")[1])
            _, text, _ = in_process("--claim", "x.slow")
        self.assertEqual({arguments: [(c["id"], c["by_default"]) for c in run["claims"]]
                          for arguments, run in runs.items()},
                         {(): [("x.quick", True)], ("--claim", "x.slow"): [("x.slow", False)],
                          ("--claim", "x"): [("x.quick", True), ("x.slow", False)]})
        self.assertEqual([c["by_default"] for c in listed], [True, False])
        self.assertIn("\n    Runs only when selected (--claim with its id or paper): its check"
                      " takes long.\n", text)

    def test_version_matches_pyproject(self):
        with open(os.path.join(ROOT, "pyproject.toml")) as handle:
            self.assertIn('version = "%s"\n' % __version__, handle.read())


FIGURE_1_JSON = '{"weights": [[-2, -2], [1, 2], [1.8, -0.8], [0.9, 0.2]]}'
FIGURE_1_ROWS = [[-2, -2], [1, 2], [1.8, -0.8], [0.9, 0.2]]
FIGURE_1_CERTIFICATE = "  class 3: w[3] = 0.148276*w[0] + 0.420690*w[1] + 0.431034*w[2]\n"
# The README's example: what a user who copies it sees, byte for byte.
README_EXAMPLE = ["check-layer", "--example", "figure1"]
README_NAME = "example:figure1"
EXAMPLE_FILE = os.path.join(ROOT, "reviews", "data", "figure1.json")
README_OUTPUT = """\
example:figure1: 4 classes, d = 2, no bias; classes numbered from 0
Unargmaxable classes: each one's weights w[i] are a convex combination of
other classes' weights, so its logit is the same weighted mean of theirs for
every input, never strictly the largest.
  class 3: w[3] = 0.148276*w[0] + 0.420690*w[1] + 0.431034*w[2]
1 of 4 classes unargmaxable, 3 argmaxable.
Coefficients to 6 significant digits. Exact values and witnesses: --format json
"""


def provenance(*paths, options="none", root=""):
    """The lines a check-layer text report starts with for a layer read from
    ``paths`` (files under ``root``, or standard input)."""
    lines = ["review-counterexamples %s (Python %s)" % (__version__,
                                                         platform.python_version())]
    for path in paths:
        if path == "<stdin>":
            lines.append("file: <stdin> (standard input)")
            continue
        with open(os.path.join(root, path), "rb") as handle:
            data = handle.read()
        lines.append("file: %s, %d bytes, sha256 %s"
                     % (path, len(data), hashlib.sha256(data).hexdigest()))
    return "\n".join(lines + ["options: " + options]) + "\n"


def body(out):
    """A check-layer text report without the provenance lines it starts with."""
    lines = out.splitlines(True)
    return "".join(lines[next(n for n, line in enumerate(lines)
                              if line.startswith("options: ")) + 1:])


class TestReadmeExample(unittest.TestCase):

    def test_the_shipped_figure_1_layer_is_the_papers(self):
        with open(EXAMPLE_FILE) as handle:
            self.assertEqual(json.load(handle), {"weights": FIGURE_1_ROWS})

    def test_the_readme_command_prints_exactly_this(self):
        done = command(*README_EXAMPLE)
        self.assertEqual((done.returncode, done.stderr, done.stdout),
                         (0, "", provenance(EXAMPLE_FILE).replace(EXAMPLE_FILE, README_NAME)
                          + README_OUTPUT))

    def test_the_example_file_by_its_path_gives_the_same_report(self):
        status, out, _ = in_process("check-layer", EXAMPLE_FILE)
        self.assertEqual((status, out), (0, provenance(EXAMPLE_FILE)
                                         + README_OUTPUT.replace(README_NAME, EXAMPLE_FILE)))

    def test_file_and_example_together_or_neither_is_a_usage_error(self):
        line = "counterexamples: error: check-layer needs FILE or --example NAME (one of them)\n"
        self.assertEqual(in_process("check-layer"), (2, "", line))
        self.assertEqual(in_process("check-layer", EXAMPLE_FILE, "--example", "figure1"),
                         (2, "", line))

    def test_an_unknown_example_names_the_known_ones(self):
        status, _, err = in_process("check-layer", "--example", "figure2")
        self.assertEqual(status, 2)
        self.assertIn("invalid choice: 'figure2' (choose from 'figure1')", err)

    def test_the_example_and_the_trained_layers_ship_as_package_data(self):
        with open(os.path.join(ROOT, "pyproject.toml")) as handle:
            self.assertIn('[tool.setuptools.package-data]\nreviews = ["data/*.json",'
                          ' "data/*.npz", "data/*.tokens.txt", "data/PROVENANCE.md"]\n',
                          handle.read())
        shipped = sorted(os.listdir(os.path.join(ROOT, "reviews", "data")))
        self.assertEqual([name for name in shipped if not name.endswith(
            (".json", ".npz", ".tokens.txt")) and name != "PROVENANCE.md"], [])


class TestCheckLayer(FileTestCase):

    def test_text_lists_unargmaxable_classes_with_rounded_coefficients(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        status, out, err = in_process("check-layer", path)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out, provenance(path) + README_OUTPUT.replace(README_NAME, path))

    def test_markdown_format(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        status, out, err = in_process("check-layer", path, "--format", "markdown")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out.splitlines()[:3], ["### check-layer `%s`" % path, "",
                                                "- Version: `%s`"
                                                % provenance().splitlines()[0]])
        self.assertIn("\n- Options: `none`\n\n4 classes, d = 2, no bias; classes numbered"
                      " from 0.\n", out)
        self.assertIn("\n| 3 | `w[3] = 0.148276*w[0] + 0.420690*w[1] + 0.431034*w[2]` |\n",
                      out)
        self.assertTrue(out.endswith("\n1 of 4 classes unargmaxable, 3 argmaxable."
                                     " Exact values and witnesses: `--format json`.\n"), out)

    def test_json_format(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        status, out, _ = in_process("check-layer", path, "--format", "json")
        document = json.loads(out)
        self.assertEqual(status, 0)
        self.assertEqual(list(document), ["version", "files", "weights_tensor", "bias_tensor",
                                          "transpose", "file", "classes", "asked", "dim", "bias",
                                          "box", "numbered_from", "unargmaxable", "tolerance",
                                          "thinner_than_1e-8", "certificates", "results"])
        self.assertEqual(document["version"], provenance().splitlines()[0])
        with open(path, "rb") as handle:
            data = handle.read()
        self.assertEqual((document["files"], document["weights_tensor"],
                          document["bias_tensor"], document["transpose"]),
                         ([{"path": path, "bytes": len(data),
                            "sha256": hashlib.sha256(data).hexdigest()}], None, None, False))
        self.assertEqual((document["file"], document["classes"], document["dim"],
                          document["bias"], document["box"], document["numbered_from"]),
                         (path, 4, 2, False, None, 0))
        self.assertEqual((document["unargmaxable"], document["tolerance"],
                          document["thinner_than_1e-8"]), ([3], "0", []))
        # Without a bias or a box a class's region is a cone: balls of any radius.
        self.assertEqual(document["results"][2],
                         {"index": 2, "argmaxable": True,
                          "witness": [["9/5", "1.8"], ["-4/5", "-0.8"]], "radius": "inf"})
        self.assertEqual(document["results"][3],
                         {"index": 3, "argmaxable": False,
                          "terms": [[0, "43/290", "0.148276"], [1, "61/145", "0.420690"],
                                    [2, "25/58", "0.431034"]]})

    def test_json_has_one_line_per_class_and_integers_without_denominator(self):
        # A duplicated row is the other one, with weight exactly 1.
        path = self.write("twice.csv", "0\n0\n1\n")
        _, out, _ = in_process("check-layer", path, "--format", "json")
        lines = out.splitlines()
        self.assertEqual((lines[17], lines[21:]), ('  "results": [', ["  ]", "}"]))
        self.assertEqual([json.loads(line.rstrip(",")) for line in lines[18:20]],
                         [{"index": 0, "argmaxable": False, "terms": [[1, "1", "1"]]},
                          {"index": 1, "argmaxable": False, "terms": [[0, "1", "1"]]}])
        self.assertEqual(list(json.loads(lines[20])), ["index", "argmaxable", "witness", "radius"])

    def test_a_weight_of_exactly_1_is_shown_without_a_coefficient(self):
        path = self.write("twice.csv", "0\n0\n1\n")
        _, out, _ = in_process("check-layer", path)
        self.assertIn("\n  class 0: w[0] = w[1]\n  class 1: w[1] = w[0]\n", out)

    def test_certificates_of_more_than_4300_digits(self):
        # w[1] = (1 - 10**-4400) w[0] + 10**-4400 w[2]: the only combination.
        path = self.write("wide.csv", "0\n1\n1e4400\n")
        nines, power = "9" * 4400 + "/1" + "0" * 4400, "1/1" + "0" * 4400
        status, out, err = in_process("check-layer", path)
        self.assertEqual((status, err), (0, ""))
        self.assertIn("\n  class 1: w[1] = 1.00000*w[0] + 1e-4400*w[2]\n", out)
        status, out, err = in_process("check-layer", path, "--format", "json")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(json.loads(out)["results"][1]["terms"],
                         [[0, nines, "1.00000"], [2, power, "1e-4400"]])

    def test_a_layer_spread_past_the_limit_is_one_line_naming_the_file(self):
        # 12 classes with a bias, 1e-5000 to 1e5000 in d = 3: about a minute
        # before the decimal programs, still several seconds after them.
        rows = "".join("1e5000,1e-5000,%d\n" % k for k in range(1, 13))
        path, bias = self.write("spread.csv", rows), self.write("bias.csv", "1e-5000\n" * 12)
        status, out, err = in_process("check-layer", path, "--bias", bias)
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err.count("\n"), 1)
        self.assertTrue(err.startswith("counterexamples: error: %s with bias %s: the layer's 48"
                                       " numbers span 33,219 bits (magnitudes about 1e-5000 to"
                                       " 1e5000)" % (path, bias)), err)
        self.assertIn("may have at most 1,048,576 in all", err)

    def test_a_spread_from_the_bias_file_names_both_files(self):
        # Distinct weight rows: repeated ones would be settled by their twins, spread or not.
        path = self.write("plain.csv", "".join("%d,1\n" % k for k in range(300)))
        bias = self.write("b.csv", "1e-2000\n1e2000\n" * 150)
        status, out, err = in_process("check-layer", path, "--bias", bias)
        self.assertEqual((status, out), (2, ""))
        self.assertTrue(err.startswith("counterexamples: error: %s with bias %s: the layer's 900"
                                       " numbers span 13,287 bits" % (path, bias)), err)

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
            ("bad.json", "[[1, true]]", r"bad.json: weights\[0\]\[1\] is true, not a real number"),
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

    def test_an_empty_file_name_is_a_usage_error(self):
        self.assertEqual(in_process("check-layer", ""),
                         (2, "", "counterexamples: error: argument FILE: expected a file name,"
                          " got an empty string\n"))


def figure_1_npz_members(*extra):
    """A .npz member of Figure 1's weights as float64, then ``extra`` members."""
    flat = [v for row in FIGURE_1_ROWS for v in row]
    return [("lm_head.npy", npy_bytes(flat, (4, 2)))] + list(extra)


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
        with mock.patch.object(layer_command, "_RADIUS_WORK", 8):
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


class TestModelFiles(FileTestCase):
    """The readers' options through the command line, on files written here."""

    def test_tensor_chooses_the_weights_among_several_2d_arrays(self):
        path = self.write("m.npz", npz_bytes(figure_1_npz_members(
            ("embed.npy", npy_bytes([1.0, 0.0, 0.0, 1.0], (2, 2))))))
        status, out, err = in_process("check-layer", path, "--tensor", "lm_head")
        self.assertEqual((status, err), (0, ""))
        self.assertTrue(body(out).startswith("%s: 4 classes, d = 2, no bias;" % path), out)
        self.assertIn(FIGURE_1_CERTIFICATE, out)
        status, out, err = in_process("check-layer", path, "--tensor", "embed")
        self.assertEqual((status, err), (0, ""))
        self.assertIn("\n0 of 2 classes unargmaxable, 2 argmaxable.\n", out)

    def test_an_ambiguous_file_lists_its_arrays_and_exits_2(self):
        path = self.write("m.npz", npz_bytes(figure_1_npz_members(
            ("embed.npy", npy_bytes([1.0, 0.0, 0.0, 1.0], (2, 2))))))
        self.assertEqual(in_process("check-layer", path),
                         (2, "", "counterexamples: error: %s holds 2 arrays; name the weights"
                          " (tensor=... or --tensor): 'lm_head' (4, 2) <f8; 'embed' (2, 2) <f8\n"
                          % path))

    def test_a_missing_tensor_is_named_with_the_arrays_there_are(self):
        path = self.write("m.npz", npz_bytes(figure_1_npz_members()))
        status, out, err = in_process("check-layer", path, "--tensor", "head")
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, "counterexamples: error: %s has no array 'head'; it has:"
                              " 'lm_head' (4, 2) <f8\n" % path)

    def test_bias_tensor_reads_the_bias_from_the_same_file(self):
        flat = [v for row in FIGURE_1_ROWS for v in row]
        path = self.write("m.safetensors", safetensors_bytes(
            [("lm_head.weight", "F64", (4, 2), raw(flat, "d")),
             ("final_logits_bias", "F32", (4,), raw([0, 0, 0, 1], "f"))]))
        status, out, err = in_process("check-layer", path, "--bias-tensor", "final_logits_bias",
                                      "--format", "json")
        self.assertEqual((status, err), (0, ""))
        document = json.loads(out)
        self.assertEqual((document["bias"], document["unargmaxable"]), (True, []))
        # Without it, the only array of one value per class is the bias, with a note.
        status, out, err = in_process("check-layer", path, "--format", "json")
        self.assertEqual((status, json.loads(out)["unargmaxable"]), (0, []))
        self.assertEqual(err, "counterexamples: note: %s: array 'final_logits_bias' (4,) is read"
                              " as the bias (the output layer's bias by its name); name another"
                              " with bias_tensor=... or --bias-tensor\n" % path)

    def test_bias_tensor_from_a_separate_bias_file(self):
        layer = self.write("fig1.json", FIGURE_1_JSON)
        bias = self.write("b.npz", npz_bytes([("b.npy", npy_bytes([0.0, 0.0, 0.0, 1.0], (4,))),
                                              ("c.npy", npy_bytes([0.0] * 4, (4,)))]))
        _, out, _ = in_process("check-layer", layer, "--bias", bias, "--bias-tensor", "b",
                               "--format", "json")
        self.assertEqual(json.loads(out)["unargmaxable"], [])
        _, out, _ = in_process("check-layer", layer, "--bias", bias, "--bias-tensor", "c",
                               "--format", "json")
        self.assertEqual(json.loads(out)["unargmaxable"], [3])

    def test_a_1d_array_as_weights_is_said_to_look_like_a_bias(self):
        path = self.write("b.npy", npy_bytes([1.0, 2.0], (2,)))
        status, out, err = in_process("check-layer", path)
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, "counterexamples: error: %s: the array has shape (2,): one"
                              " number per class looks like a bias, not weights\n" % path)

    def test_a_tensor_name_for_a_text_file_is_an_error(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        status, out, err = in_process("check-layer", path, "--tensor", "w")
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, "counterexamples: error: %s has no named arrays (tensors name"
                              " arrays in .npz and .safetensors files)\n" % path)

    def test_empty_tensor_names_are_usage_errors(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        for flag in ("--tensor", "--bias-tensor"):
            with self.subTest(flag=flag):
                self.assertEqual(in_process("check-layer", path, flag, ""),
                                 (2, "", "counterexamples: error: argument %s: expected an"
                                  " array name, got an empty string\n" % flag))

    def test_transpose_reads_a_layer_stored_as_d_by_c(self):
        columns = "\n".join(",".join(str(row[k]) for row in FIGURE_1_ROWS) for k in range(2))
        path = self.write("dc.csv", columns + "\n")
        status, out, err = in_process("check-layer", path, "--transpose")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out, provenance(path, options="transpose")
                         + README_OUTPUT.replace(README_NAME, path))

    def test_transpose_of_a_npy_array(self):
        flat = [row[k] for k in range(2) for row in FIGURE_1_ROWS]
        path = self.write("dc.npy", npy_bytes(flat, (2, 4)))
        status, out, err = in_process("check-layer", path, "--transpose")
        self.assertEqual((status, err), (0, ""))
        self.assertIn(FIGURE_1_CERTIFICATE, out)

    def test_more_dimensions_than_classes_is_a_note_on_stderr(self):
        path = self.write("dc.csv", "-2,1,1.8,0.9\n-2,2,-0.8,0.2\n")
        status, out, err = in_process("check-layer", path)
        self.assertEqual(status, 0)
        self.assertTrue(body(out).startswith("%s: 2 classes, d = 4, no bias;" % path), out)
        self.assertEqual(err, "counterexamples: note: %s: 2 classes of dimension d = 4 > C: if"
                              " the layer is stored as (d, C), read it transposed\n" % path)

    def test_a_header_row_is_a_note_on_stderr_one_line_each(self):
        layer = self.write("l.csv", "x,y\n-2,-2\n1,2\n1.8,-0.8\n0.9,0.2\n")
        bias = self.write("b.csv", "bias\n0\n0\n0\n1\n")
        status, out, err = in_process("check-layer", layer, "--bias", bias)
        self.assertEqual(status, 0)
        self.assertIn("\n0 of 4 classes unargmaxable, 4 argmaxable.\n", out)
        self.assertEqual(err.splitlines(), [
            "counterexamples: note: %s: line 1 is taken as a header: 'x,y'" % layer,
            "counterexamples: note: %s: line 1 is taken as a header: 'bias'" % bias,
        ])

    def test_bad_input_after_a_header_row_is_one_error_line_and_no_note(self):
        layer = self.write("l.txt", "1,2\n3,4\n")
        status, out, err = in_process("check-layer", layer)
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertTrue(err.startswith("counterexamples: error: %s" % layer), err)


def standard_input(text):
    """A patch of sys.stdin with ``text``, bytes beneath as the reader needs."""
    return mock.patch("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))


class TestStandardInputCommand(FileTestCase):

    def test_a_layer_from_standard_input_is_named_stdin(self):
        for text in (FIGURE_1_JSON, "-2,-2\n1,2\n1.8,-0.8\n0.9,0.2\n"):
            with self.subTest(text=text[:10]):
                done = subprocess.run([sys.executable, SCRIPT, "check-layer", "-"], cwd=ROOT,
                                      input=text, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, universal_newlines=True,
                                      timeout=120)
                self.assertEqual((done.returncode, done.stderr), (0, ""))
                self.assertEqual(done.stdout, provenance("<stdin>")
                                 + README_OUTPUT.replace(README_NAME, "<stdin>"))

    def test_the_bias_from_standard_input(self):
        layer = self.write("fig1.json", FIGURE_1_JSON)
        with standard_input("[0, 0, 0, 1]"):
            status, out, err = in_process("check-layer", layer, "--bias", "-", "--format", "json")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(json.loads(out)["unargmaxable"], [])

    def test_running_out_of_memory_is_one_line_and_exit_2(self):
        # As for a 64 MB .npy under ulimit -v: MemoryError from the checker.
        layer = self.write("fig1.json", FIGURE_1_JSON)
        with mock.patch.object(layer_command, "iter_check_layer", side_effect=MemoryError):
            self.assertEqual(in_process("check-layer", layer),
                             (2, "", "counterexamples: error: out of memory (ask for fewer"
                                     " --jobs, or a smaller layer)\n"))

    def test_a_checker_error_about_a_bias_from_standard_input_names_it(self):
        layer = self.write("fig1.json", FIGURE_1_JSON)
        refusal = mock.patch.object(layer_command, "iter_check_layer",
                                    side_effect=InputError("bias[3] is refused", input="bias"))
        with standard_input("[0, 0, 0, 1]"), refusal:
            self.assertEqual(in_process("check-layer", layer, "--bias", "-"),
                             (2, "", "counterexamples: error: <stdin>: bias[3] is refused\n"))

    def test_standard_input_open_for_writing_only_is_one_line(self):
        with open(os.devnull, "w") as write_only:
            done = subprocess.run([sys.executable, SCRIPT, "check-layer", "-"], cwd=ROOT,
                                  stdin=write_only, capture_output=True, text=True,
                                  timeout=120)
        self.assertEqual((done.returncode, done.stdout, done.stderr),
                         (2, "", "counterexamples: error: cannot read <stdin>: Bad file"
                             " descriptor\n"))

    def test_errors_in_standard_input_name_it(self):
        with standard_input("1,2\nx,4\n"):
            self.assertEqual(in_process("check-layer", "-"),
                             (2, "", "counterexamples: error: <stdin>: line 2, column 1: 'x' is"
                              " not a number\n"))


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
            self.assertIn("](%s)" % relative(os.path.join(folder, name)), section)

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
        cited = relative(os.path.join(folder, "figure1.svg"))
        self.assertEqual({c["id"]: c["figures"] for c in claims},
                         {"memorization.masking": [],
                          "low-rank.unargmaxable-exists": [cited]})
        _, text_out, _ = in_process("--figures", folder, "--claim", "low-rank.unargmaxable-exists")
        self.assertIn("    Figure: %s\n" % cited, text_out)

    def test_markdown_to_a_file_cites_figures_relative_to_its_folder(self):
        output = os.path.join(self.folder.name, "out", "review.md")
        os.mkdir(os.path.dirname(output))
        status, out, err = in_process("--format", "markdown", "--output", output, "--figures",
                                      os.path.join(self.folder.name, "figs"), *FIGURE_CLAIMS)
        self.assertEqual((status, out, err), (0, "", ""))
        with open(output) as handle:
            report = handle.read()
        self.assertIn("](../figs/figure1.svg)\n", report)
        self.assertIn("](../figs/positivity.svg)\n", report)
        self.assertNotIn(self.folder.name, report)

    def test_to_standard_output_figures_are_relative_to_the_current_folder(self):
        done = command("--format", "markdown", "--figures", "figs", *FIGURE_CLAIMS,
                       cwd=self.folder.name)
        self.assertEqual((done.returncode, done.stderr), (0, ""))
        self.assertIn("](figs/figure1.svg)\n", done.stdout)
        self.assertTrue(os.path.exists(os.path.join(self.folder.name, "figs", "figure1.svg")))

    def test_markdown_alt_text_says_what_the_figure_shows(self):
        _, out, _ = in_process("--format", "markdown", "--figures", self.folder.name,
                               "--claim", "memorization.every-distribution")
        alt = out[out.index("![") + 2:out.index("](")]
        self.assertTrue(alt.startswith("log10 of p2 = softmax(\\[g, 0\\])\\[1\\] for logit"
                                       " gaps g from 0 to 1000"), alt)

    def test_html_page_inlines_every_figure_and_cites_the_files(self):
        output = os.path.join(self.folder.name, "page.html")
        status, out, err = in_process("--format", "html", "--output", output, "--figures",
                                      os.path.join(self.folder.name, "figs"), *FIGURE_CLAIMS)
        self.assertEqual((status, out, err), (0, "", ""))
        with open(output) as handle:
            report = handle.read()
        page = _Page(report)
        self.assertEqual(page.errors, [])
        self.assertEqual(page.tags.count("svg"), 2)
        self.assertIn("figs/figure1.svg", page.data)
        self.assertIn("figs/positivity.svg", page.data)
        for tag in ("script", "link", "iframe", "img"):
            self.assertNotIn(tag, page.tags)
        # The only URLs are links to the papers' arXiv pages, nothing fetched.
        self.assertEqual(report.count("://"), report.count('<a href="https://arxiv.org/abs/'))
        self.assertNotIn(self.folder.name, report)

    def test_html_without_figure_folder_still_inlines_the_figures(self):
        status, out, _ = in_process("--format", "html", *FIGURE_CLAIMS)
        page = _Page(out)
        self.assertEqual((status, page.errors, page.tags.count("svg")), (0, [], 2))
        self.assertEqual([v for v in page.values("id") if v.startswith("claim-")],
                         ["claim-low-rank.unargmaxable-exists",
                          "claim-memorization.every-distribution"])

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


class TestOutputFile(FileTestCase):

    def test_every_format_goes_to_the_file_and_nothing_to_stdout(self):
        for form in ("text", "markdown", "json", "html"):
            with self.subTest(form=form):
                output = os.path.join(self.folder.name, "report." + form)
                self.assertEqual(in_process("--format", form, "--output", output, *FAST),
                                 (0, "", ""))
                _, expected, _ = in_process("--format", form, *FAST)
                with open(output) as handle:
                    self.assertEqual(handle.read(), expected)

    def test_list_and_check_layer_write_to_the_file_too(self):
        output = os.path.join(self.folder.name, "list.txt")
        self.assertEqual(in_process("--list", "--output", output), (0, "", ""))
        with open(output) as handle:
            self.assertEqual(handle.read(), in_process("--list")[1])
        layer = self.write("fig1.json", FIGURE_1_JSON)
        output = os.path.join(self.folder.name, "layer.txt")
        self.assertEqual(in_process("check-layer", layer, "--output", output), (0, "", ""))
        with open(output) as handle:
            self.assertIn(FIGURE_1_CERTIFICATE, handle.read())

    def test_an_unwritable_output_is_one_line_and_exit_2(self):
        output = os.path.join(self.write("file", "x"), "report.txt")
        status, out, err = in_process("--output", output, *FAST)
        self.assertEqual((status, out), (2, ""))
        self.assertRegex(err, "^counterexamples: error: cannot write the report to"
                              " .*report.txt: .*\n$")

    def test_an_empty_output_name_is_a_usage_error(self):
        self.assertEqual(in_process("--output", "", *FAST),
                         (2, "", "counterexamples: error: argument --output: expected a file"
                          " name, got an empty string\n"))


def script(arguments, **options):
    """Run the script with bytes output; ``options`` go to subprocess.run."""
    options.setdefault("stdout", subprocess.PIPE)
    options.setdefault("stderr", subprocess.PIPE)
    options.setdefault("timeout", 120)
    if "input" not in options:
        options.setdefault("stdin", subprocess.DEVNULL)
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

    def test_a_reader_leaving_mid_report_is_exit_2_even_unbuffered(self):
        # Unbuffered (PYTHONUNBUFFERED, python -u), a write to a pipe whose
        # reader leaves takes part of the report and the text layer dropped
        # the rest: a cut report with exit 0.  The reader here takes one
        # line of the 100 KB page, then leaves.
        for unbuffered in ("1", ""):
            environment = dict(os.environ, PYTHONUNBUFFERED=unbuffered)
            with self.subTest(unbuffered=unbuffered):
                child = subprocess.Popen([sys.executable, SCRIPT, "--format", "html"], cwd=ROOT,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         env=environment)
                child.stdout.readline()
                child.stdout.close()
                self.assertEqual((child.wait(timeout=120), child.stderr.read()), (2, b""))
                child.stderr.close()

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
        self.assertIn(b"\n" + os.fsencode(self.folder.name) + b"/caf\\xe9.csv: 2 classes",
                      done.stdout)

    def test_a_note_to_a_closed_stderr_does_not_stop_the_check(self):
        path = self.write("h.csv", "x,y\n1,0\n0,1\n")
        done = script(["check-layer", path], stderr=None, preexec_fn=closing(2))
        self.assertEqual(done.returncode, 0)
        self.assertIn(b"\n0 of 2 classes unargmaxable, 2 argmaxable.\n", done.stdout)

    def test_ctrl_c_during_a_check_is_one_line_and_exit_130(self):
        path = self.write("two.csv", "1,0\n0,1\n")
        interrupted_check = (
            "import os, signal, sys, time\n"
            # A shell that starts us in the background leaves SIGINT ignored.
            "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "from reviews.cli import main\n"
            "def iter_check_layer(*arguments, **keywords):\n"
            "    os.kill(os.getpid(), signal.SIGINT)\n"
            "    while True:\n"
            "        time.sleep(0.01)\n"
            "from reviews.cli import layer\n"
            "layer.iter_check_layer = iter_check_layer\n"
            "sys.exit(main(['check-layer', sys.argv[1]]))\n")
        done = run_code(interrupted_check, path)
        self.assertEqual((done.returncode, done.stdout, done.stderr),
                         (130, b"", b"counterexamples: interrupted\n"))


if __name__ == "__main__":
    unittest.main()
