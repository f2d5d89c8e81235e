"""Tests of check-layer reading its layer or bias from standard input."""

import json
import os
import subprocess
import sys
from unittest import mock

from reviews.errors import InputError
from reviews.run import layer as layer_run
from tests.support import FileTestCase, ROOT
from tests.support.commands import (FIGURE_1_JSON, README_NAME, README_OUTPUT, SCRIPT, in_process,
                                    provenance, standard_input)


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
        with mock.patch.object(layer_run, "iter_checked", side_effect=MemoryError):
            self.assertEqual(in_process("check-layer", layer),
                             (2, "", "counterexamples: error: out of memory (ask for fewer"
                                     " --jobs, or a smaller layer)\n"))

    def test_a_checker_error_about_a_bias_from_standard_input_names_it(self):
        layer = self.write("fig1.json", FIGURE_1_JSON)
        refusal = mock.patch.object(layer_run, "iter_checked",
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
