"""Tests of check-layer's progress line on a terminal: its text, its pace, its wiping."""

import functools
import io
import os
import re
import signal
import unittest
from unittest import mock

from reviews.cli import layer as layer_command, main
from reviews.run import layer as layer_run
from reviews.cli.streams import Output as _Output, WriteFailed as _WriteFailed
from reviews.report.progress import Progress, progress_line
from tests.support import FileTestCase
from tests.support.commands import FIGURE_1_JSON, in_process, run_code


class Terminal(io.StringIO):
    def isatty(self):
        return True


class Clock:
    """A clock that reads the given times in turn."""

    def __init__(self, *times):
        self.times = iter(times)

    def __call__(self):
        return next(self.times)


class TestProgressLine(unittest.TestCase):

    def test_before_a_rate_is_known_only_the_count_shows(self):
        self.assertEqual(progress_line(64, 50257), "checked 64/50257 classes")

    def test_the_rate_and_the_time_left_follow_the_count(self):
        self.assertEqual(progress_line(1200, 50257, 14.3),
                         "checked 1200/50257 classes, 14.3 classes/s, 57m 11s left")

    def test_the_time_left_is_rounded_up_so_that_0s_means_done(self):
        self.assertEqual(progress_line(9, 10, 2.0),
                         "checked 9/10 classes, 2 classes/s, 1s left")

    def test_a_slow_rate_keeps_three_digits_and_the_hours_show(self):
        self.assertEqual(progress_line(5, 50257, 0.0123),
                         "checked 5/50257 classes, 0.0123 classes/s, 1134h 52m left")

    def test_a_fast_rate_is_a_whole_number(self):
        self.assertEqual(progress_line(9000, 10000, 1234.56),
                         "checked 9000/10000 classes, 1235 classes/s, 1s left")


class TestProgress(unittest.TestCase):

    def progress(self, *times):
        err = Terminal()
        return Progress(_Output(err, False), Clock(*times), _WriteFailed), err

    def test_a_check_shorter_than_a_redraw_draws_and_wipes_nothing(self):
        progress, err = self.progress(0, 0.1, 0.2)
        progress(1, 2)
        progress(2, 2)
        progress.wipe()
        self.assertEqual(err.getvalue(), "")

    def test_the_rate_counts_from_the_first_call_not_from_the_start(self):
        # Reading the layer took 100 s; then 10 classes a second.
        progress, err = self.progress(0, 100, 101, 102)
        progress(1, 50)
        progress(11, 50)
        progress(21, 50)
        self.assertEqual(err.getvalue(),
                         "\rchecked 1/50 classes"
                         "\rchecked 11/50 classes, 10 classes/s, 4s left"
                         "\rchecked 21/50 classes, 10 classes/s, 3s left")

    def test_redraws_are_at_least_a_quarter_second_apart(self):
        progress, err = self.progress(0, 1, 1.1, 1.24, 1.25)
        for done in (1, 2, 3, 5):
            progress(done, 9)
        self.assertEqual(err.getvalue(),
                         "\rchecked 1/9 classes\rchecked 5/9 classes, 16 classes/s, 1s left")

    def test_a_shorter_line_covers_the_longer_one_and_the_wipe_covers_both(self):
        progress, err = self.progress(0, 1, 2, 62)
        progress(1, 99)
        progress(2, 99)    # 97 s left
        progress(62, 99)   # 37 s left: a shorter line
        progress.wipe()
        long = "checked 2/99 classes, 1 classes/s, 1m 37s left"
        self.assertEqual(err.getvalue(),
                         "\rchecked 1/99 classes\r" + long
                         + "\r" + "checked 62/99 classes, 1 classes/s, 37s left".ljust(len(long))
                         + "\r" + " " * len(long) + "\r")

    def test_a_narrow_terminal_gets_a_line_that_does_not_wrap(self):
        # A wrapped line leaves its first rows behind at each \r redraw.
        err = Terminal()
        progress = Progress(_Output(err, False), Clock(0, 1, 2), _WriteFailed, columns=20)
        progress(1, 50257)
        progress(101, 50257)
        progress.wipe()
        self.assertEqual(err.getvalue(), "\rchecked 1/50257 cla"
                                         "\rchecked 101/50257 c"
                                         "\r" + " " * 19 + "\r")

    def test_the_last_class_is_not_drawn(self):
        progress, err = self.progress(0, 1, 2)
        progress(1, 2)
        progress(2, 2)
        self.assertEqual(err.getvalue(), "\rchecked 1/2 classes")

    def test_a_stream_that_fails_stops_the_drawing_not_the_check(self):
        class Failing(Terminal):
            tries = 0

            def write(self, text):
                self.tries += 1
                raise OSError(5, "Input/output error")
        err = Failing()
        progress = Progress(_Output(err, False), Clock(0, 1, 2), _WriteFailed)
        progress(1, 3)
        progress(2, 3)
        progress.wipe()
        self.assertEqual(err.tries, 1)


class TestPlainProgress(unittest.TestCase):

    def progress(self, *times):
        err = io.StringIO()
        return Progress(_Output(err, False), Clock(*times), _WriteFailed, plain=True), err

    def test_a_log_gets_whole_lines_at_least_five_seconds_apart(self):
        progress, err = self.progress(0, 1, 4.9, 5, 9, 10.5)
        for done in (1, 2, 3, 4, 5):
            progress(done, 100)
        self.assertEqual(err.getvalue(),
                         "checked 3/100 classes, 0.5 classes/s, 3m 14s left\n"
                         "checked 5/100 classes, 0.421 classes/s, 3m 46s left\n")

    def test_the_last_class_ends_the_log_with_the_time_taken(self):
        progress, err = self.progress(0, 1, 2, 62.5)
        for done in (1, 2, 3):
            progress(done, 3)
        self.assertEqual(err.getvalue(), "checked 3/3 classes in 1m 03s\n")

    def test_status_is_a_line_and_a_wipe_writes_nothing(self):
        progress, err = self.progress(0)
        progress.status("reading w.csv")
        progress.wipe()
        self.assertEqual(err.getvalue(), "reading w.csv\n")

    def test_a_narrow_log_is_not_cut(self):
        err = io.StringIO()
        progress = Progress(_Output(err, False), Clock(0), _WriteFailed, columns=5, plain=True)
        progress.status("preparing 4 classes of dimension 2")
        self.assertEqual(err.getvalue(), "preparing 4 classes of dimension 2\n")


class TestProgressOfTheCommand(FileTestCase):

    def setUp(self):
        super().setUp()
        self.path = self.write("fig1.json", FIGURE_1_JSON)

    def run_on_a_terminal(self, clock):
        out, err = io.StringIO(), Terminal()
        with mock.patch.object(layer_command, "Progress",
                               functools.partial(Progress, clock=clock)):
            status = main(["check-layer", self.path], out, err)
        return status, out.getvalue(), err.getvalue()

    def drawn(self, err):
        """The lines drawn on the terminal, in order, without the padding; "" for a wipe."""
        return [line.rstrip(" ") for line in err.split("\r")[1:]]

    def test_a_terminal_sees_reading_preparing_each_class_then_a_wiped_line(self):
        status, out, err = self.run_on_a_terminal(Clock(0, 1, 2, 3, 4))
        self.assertEqual(status, 0)
        # A wipe is "\r", blanks, "\r": it shows as "" twice.  "preparing"
        # covers "reading": no note comes between them (notes wait for the check).
        self.assertEqual(self.drawn(err), [
            "reading %s" % self.path,
            "preparing 4 classes of dimension 2",
            "checked 1/4 classes",
            "checked 2/4 classes, 1 classes/s, 2s left",
            "checked 3/4 classes, 1 classes/s, 1s left", "", ""])
        # Each line covers the one before, and the wipe the longest.
        widest = max(len(line) for line in err.split("\r"))
        self.assertTrue(err.endswith("\r" + " " * widest + "\r"))
        self.assertEqual(out, in_process("check-layer", self.path)[1])

    def test_bad_input_wipes_the_reading_line_before_its_one_error_line(self):
        bad = self.write("bad.csv", "1,x\n")
        out, err = io.StringIO(), Terminal()
        status = main(["check-layer", bad], out, err)
        self.assertEqual((status, out.getvalue()), (2, ""))
        self.assertEqual(self.drawn(err.getvalue()), [
            "reading %s" % bad, "",
            "counterexamples: error: %s: line 1, column 2: 'x' is not a number\n" % bad])

    def test_without_a_terminal_there_is_no_progress(self):
        with mock.patch.object(layer_command, "Progress") as progress:
            self.assertEqual(in_process("check-layer", self.path)[::2], (0, ""))
        progress.assert_not_called()

    def test_progress_in_a_log_is_plain_lines(self):
        out, err = io.StringIO(), io.StringIO()
        with mock.patch.object(layer_command, "Progress",
                               functools.partial(Progress, clock=Clock(0, 1, 2, 3, 4, 5))):
            status = main(["check-layer", self.path, "--progress"], out, err)
        self.assertEqual(status, 0)
        self.assertEqual(err.getvalue(), "reading %s\npreparing 4 classes of dimension 2\n"
                                         "checked 4/4 classes in 4s\n" % self.path)
        self.assertEqual(out.getvalue(), in_process("check-layer", self.path)[1])

    def test_progress_on_a_terminal_is_the_redrawn_line(self):
        out, err = io.StringIO(), Terminal()
        main(["check-layer", self.path, "--progress"], out, err)
        self.assertTrue(err.getvalue().startswith("\rreading "))
        self.assertNotIn("\n", err.getvalue())

    def test_an_interrupt_wipes_the_progress_line_first(self):
        def interrupted(weights, bias, question, progress, jobs, radii, classes):
            progress(1, 4)
            raise KeyboardInterrupt
        with mock.patch.object(layer_run, "iter_checked", interrupted):
            status, out, err = self.run_on_a_terminal(Clock(0, 1))
        self.assertEqual((status, out), (130, ""))
        self.assertEqual(self.drawn(err)[-3:],
                         ["checked 1/4 classes", "", "counterexamples: interrupted\n"])


# Ctrl-C while worker processes run: SIGINT reaches this process at the
# first class done, as it would from the terminal.
INTERRUPTED_WORKERS = """\
import multiprocessing, os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
from reviews.cli import main
from reviews.run import layer as layer_run
checked = layer_run.iter_checked

def iter_checked(weights, bias, question, progress, **keywords):
    def interrupt(done, total):
        os.kill(os.getpid(), signal.SIGINT)
    return checked(weights, bias, question, interrupt, **keywords)

layer_run.iter_checked = iter_checked
status = main(["check-layer", sys.argv[1], "--jobs", "2"])
print(len(multiprocessing.active_children()))
sys.exit(status)
"""


@unittest.skipUnless(os.name == "posix", "sends a signal the POSIX way")
class TestInterruptedWorkers(FileTestCase):

    def test_ctrl_c_among_workers_is_one_line_exit_130_and_no_process_left(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        done = run_code(INTERRUPTED_WORKERS, path)
        self.assertEqual((done.returncode, done.stdout, done.stderr),
                         (130, b"0\n", b"counterexamples: interrupted\n"))


# SIGTERM or SIGHUP while worker processes run, with a checkpoint: the
# handlers the command's entry point sets (reviews.counterexamples.run).
STOPPED_WORKERS = """\
import multiprocessing, os, signal, sys
from reviews.cli import main
from reviews.cli.streams import stop_on
from reviews.run import layer as layer_run
number = getattr(signal, sys.argv[3])
signal.signal(number, stop_on)
checked = layer_run.iter_checked

def iter_checked(weights, bias, question, progress, **keywords):
    def stop(done, total):
        os.kill(os.getpid(), number)
    return checked(weights, bias, question, stop, **keywords)

layer_run.iter_checked = iter_checked
status = main(["check-layer", sys.argv[1], "--jobs", "2", "--checkpoint", sys.argv[2]])
print(len(multiprocessing.active_children()))
sys.exit(status)
"""


@unittest.skipUnless(hasattr(signal, "SIGHUP"), "sends SIGHUP")
class TestStoppedWorkers(FileTestCase):

    def test_sigterm_and_sighup_are_one_line_with_what_the_checkpoint_keeps(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        for name, status, how in (("SIGTERM", 143, "terminated"), ("SIGHUP", 129, "hung up")):
            with self.subTest(signal=name):
                checkpoint = self.write(name + ".checkpoint", "")
                done = run_code(STOPPED_WORKERS, path, checkpoint, name)
                self.assertEqual((done.returncode, done.stdout), (status, b"0\n"))
                self.assertRegex(done.stderr.decode(), r"^counterexamples: %s; .*%s keeps [0-4]"
                                 r" of the 4 classes asked: the same command resumes from"
                                 r" them\n$" % (how, re.escape(name + ".checkpoint")))
                resumed = run_code(STOPPED_WORKERS.replace("question, stop,", "question, progress,"),
                                   path, checkpoint, name)
                self.assertEqual(resumed.returncode, 0)
                self.assertIn(b"1 of 4 classes unargmaxable", resumed.stdout)


if __name__ == "__main__":
    unittest.main()
