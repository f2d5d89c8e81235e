"""Tests of the command's output streams: closed, full or broken standard output and error."""

import os
import subprocess
import sys
import unittest

from tests.support import FileTestCase, ROOT
from tests.support.commands import FAST, SCRIPT, closing, run_code, script


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
