"""Tests of the command's output streams: closed, full or broken standard output and error."""

import io
import json
import os
import subprocess
import sys
import unittest
from unittest import mock

from reviews.cli import main
from tests.support import FileTestCase, ROOT, TERMINAL_SIGNALS
from tests.support.commands import FAST, SCRIPT, run_code


@unittest.skipUnless(os.name == "posix", "closes descriptors and sends signals the POSIX way")
class TestStreams(FileTestCase):
    """Broken, closed or full standard streams: a status and a line, no traceback."""

    def test_closed_stdout_is_one_line_and_exit_2(self):
        err = io.StringIO()
        with mock.patch.object(sys, "stdout", None):   # as Python sets it for a closed descriptor
            status = main(["--version"], err=err)
        self.assertEqual((status, err.getvalue()),
                         (2, "counterexamples: error: cannot write the report:"
                             " standard output is closed\n"))

    @unittest.skipUnless(os.path.exists("/dev/full"), "needs /dev/full")
    def test_a_full_disk_is_one_line_and_exit_2(self):
        err = io.StringIO()
        full = open("/dev/full", "w")
        status = main(FAST, full, err)
        with self.assertRaises(OSError):
            full.close()   # what the command left unwritten: only the test sees it
        self.assertEqual((status, err.getvalue()),
                         (2, "counterexamples: error: cannot write the report:"
                             " No space left on device\n"))

    def test_a_pipe_closed_early_ends_quietly_with_exit_141_as_unix_tools_do(self):
        # The reader is gone before the first write, as with a fast "| head -1".
        reader, writer = os.pipe()
        os.close(reader)
        err = io.StringIO()
        with open(writer, "w") as pipe:
            status = main(["--list", "--claim", "memorization.masking"], pipe, err)
            with self.assertRaises(BrokenPipeError):
                pipe.close()   # what the command left unwritten: only the test sees it
        self.assertEqual((status, err.getvalue()), (141, ""))

    def test_a_reader_leaving_mid_report_is_exit_141_even_unbuffered(self):
        # Unbuffered (PYTHONUNBUFFERED, python -u), a write to a pipe whose
        # reader leaves takes part of the report and the text layer dropped
        # the rest: a cut report with exit 0.  The reader here takes one
        # line of a 360 KB report (a line of 3,000 classes), then leaves.
        path = self.write("line.json", json.dumps({"weights": [[k] for k in range(3000)]}))
        for unbuffered in ("1", ""):
            environment = dict(os.environ, PYTHONUNBUFFERED=unbuffered)
            with self.subTest(unbuffered=unbuffered):
                child = subprocess.Popen([sys.executable, SCRIPT, "check-layer", path,
                                          "--format", "json"], cwd=ROOT,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         env=environment, **TERMINAL_SIGNALS)
                child.stdout.readline()
                child.stdout.close()
                self.assertEqual((child.wait(timeout=120), child.stderr.read()), (141, b""))
                child.stderr.close()

    def test_a_usage_error_with_stderr_closed_still_exits_2(self):
        out = io.StringIO()
        with mock.patch.object(sys, "stderr", None):
            status = main(["--bogus"], out)
        self.assertEqual((status, out.getvalue()), (2, ""))

    def test_a_name_the_output_cannot_encode_is_escaped(self):
        name = "caf\xe9.csv"
        try:
            os.fsencode(name)
        except UnicodeEncodeError:
            self.skipTest("the file system cannot name %r" % name)
        path = self.write(name, "1,0\n0,1\n")
        out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")   # as PYTHONIOENCODING=ascii
        status = main(["check-layer", path], out, io.StringIO())
        self.assertEqual(status, 0)
        self.assertIn(b"\n" + os.fsencode(self.folder.name) + b"/caf\\xe9.csv: 2 classes",
                      out.buffer.getvalue())

    def test_a_note_to_a_closed_stderr_does_not_stop_the_check(self):
        path = self.write("h.csv", "x,y\n1,0\n0,1\n")
        out = io.StringIO()
        with mock.patch.object(sys, "stderr", None):
            status = main(["check-layer", path], out)
        self.assertEqual(status, 0)
        self.assertIn("\n0 of 2 classes unargmaxable, 2 argmaxable.\n", out.getvalue())

    def test_ctrl_c_during_a_check_is_one_line_and_exit_130(self):
        path = self.write("two.csv", "1,0\n0,1\n")
        interrupted_check = (
            "import os, signal, sys, time\n"
            # A shell that starts us in the background leaves SIGINT ignored.
            "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "from reviews.cli import main\n"
            "def iter_checked(*arguments, **keywords):\n"
            "    os.kill(os.getpid(), signal.SIGINT)\n"
            "    while True:\n"
            "        time.sleep(0.01)\n"
            "from reviews.run import layer\n"
            "layer.iter_checked = iter_checked\n"
            "sys.exit(main(['check-layer', sys.argv[1]]))\n")
        done = run_code(interrupted_check, path)
        self.assertEqual((done.returncode, done.stdout, done.stderr),
                         (130, b"", b"counterexamples: interrupted\n"))
