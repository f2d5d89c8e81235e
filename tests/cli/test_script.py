"""Tests of the command's entry points: the script, python -m, the installed command's module, the golden run."""

import json
import os
import subprocess
import sys
import unittest

from reviews import __version__
from reviews.papers import all_claims
from tests.support import ROOT, TERMINAL_SIGNALS
from tests.support.claims import in_process_once
from tests.support.commands import SCRIPT, command


def _flatten(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _flatten(item)
        else:
            yield item


class TestScript(unittest.TestCase):

    def test_default_run_exits_0_with_every_verdict_as_stated(self):
        status, out, err = in_process_once()
        self.assertEqual((status, err), (0, ""))
        self.assertIn("softmax([700, 0]) = (1.000000000000000, 9.86e-305)", out)
        self.assertRegex(out, r"\n\d+ claims: \d+ PASS and \d+ FAIL as stated \(\d+ of them"
                              r" decided on sampled cases only\); \d+ NOT CHECKED; 0"
                              r" MISMATCH\n$")

    def test_two_runs_give_identical_bytes_and_the_pinned_claims(self):
        # Every printed number and verdict, pinned.  After a deliberate change,
        # bump the version and regenerate tests/golden/claims.json with
        # python tests/golden/regenerate.py (README, "Adding a reviewed paper").
        # The golden file pins the claims that run only when selected too
        # (their own tests compare them); a default run gives the others.
        # The script from another folder, and this process (another hash seed).
        first, second = command("--format", "json").stdout, in_process_once("--format", "json")[1]
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
            cwd=ROOT, capture_output=True, text=True, timeout=120, **TERMINAL_SIGNALS)
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
