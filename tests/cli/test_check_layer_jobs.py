"""Tests of check-layer --jobs: one process per CPU by default, one for a small layer,
and the same bytes for every number of processes."""

import json
import multiprocessing
import os
import signal
import unittest
from unittest import mock

from reviews.argmax import workers
from reviews.cli import layer as layer_command
from reviews.run import layer as layer_run
from reviews.run.plan import jobs_for as _jobs_for
from tests.support import FileTestCase, ROOT
from tests.support.commands import FIGURE_1_JSON, in_process
from tests.support.workers import ended_workers

# 160 classes in d = 32, enough to be split by default: 158 vertices of the
# cube [-1, 1]^32 (each one argmaxable), the midpoint of two of them
# (unargmaxable) and a repeated vertex (unargmaxable by its twin).
_VERTICES = [[1 if k >> b & 1 else -1 for b in range(32)] for k in range(158)]
SPLIT_LAYER = json.dumps({"weights": _VERTICES + [
    [(a + b) // 2 for a, b in zip(_VERTICES[0], _VERTICES[1])], _VERTICES[5]]})


class TestJobsForTheLayer(unittest.TestCase):
    """With 5 CPUs."""

    def setUp(self):
        cpus = mock.patch("reviews.argmax.workers.usable_cpus", return_value=5)
        cpus.start()
        self.addCleanup(cpus.stop)

    def test_one_process_per_cpu_from_249_classes_in_one_dimension(self):
        self.assertEqual((_jobs_for(None, 248, 1), _jobs_for(None, 249, 1)), (1, 5))

    def test_a_wider_layer_is_split_from_fewer_classes(self):
        self.assertEqual((_jobs_for(None, 47, 768), _jobs_for(None, 48, 768)), (1, 5))

    def test_processes_that_import_the_package_first_need_a_larger_layer(self):
        for method in ("spawn", "forkserver"):
            with self.subTest(method=method):
                self.assertEqual([_jobs_for(None, classes, dim, method) for classes, dim
                                  in ((249, 1), (48, 768), (142, 768), (143, 768))],
                                 [1, 1, 1, 5])

    def test_an_asked_number_is_kept_whatever_the_layer(self):
        self.assertEqual((_jobs_for(3, 4, 2), _jobs_for(1, 10 ** 5, 768)), (3, 1))


class TestJobsOption(FileTestCase):

    def jobs_used(self, content, *arguments, method="fork"):
        """The ``jobs`` that check-layer hands to iter_checked, with 5 CPUs
        started by ``method``."""
        path = self.write("layer.json", content)
        with mock.patch.object(layer_run, "iter_checked", return_value=[]) as check, \
                mock.patch("reviews.argmax.workers.usable_cpus", return_value=5), \
                mock.patch.object(layer_run, "start_method", return_value=method), \
                mock.patch.object(layer_command, "LAYER_FORMATS", {"text": lambda *a, **k: ""}):
            self.assertEqual(in_process("check-layer", path, *arguments), (0, "", ""))
        return check.call_args[1]["jobs"]

    def test_the_default_and_0_are_one_process_per_cpu_for_a_large_layer(self):
        self.assertEqual([self.jobs_used(SPLIT_LAYER, *option) for option in
                          ((), ("--jobs", "0"), ("--jobs", "1"), ("--jobs", "2"))],
                         [5, 5, 1, 2])

    def test_the_default_and_0_are_one_process_for_a_small_layer(self):
        self.assertEqual([self.jobs_used(FIGURE_1_JSON, *option) for option in
                          ((), ("--jobs", "0"), ("--jobs", "3"))],
                         [1, 1, 3])

    def test_the_default_keeps_one_process_for_the_layer_if_processes_are_spawned(self):
        self.assertEqual((self.jobs_used(SPLIT_LAYER, method="spawn"),
                          self.jobs_used(SPLIT_LAYER, "--jobs", "2", method="spawn")), (1, 2))

    def test_help_names_the_default(self):
        with mock.patch("reviews.argmax.workers.usable_cpus", return_value=6):
            _, out, _ = in_process("check-layer", "--help")
        self.assertIn("(default, and 0: one per CPU, 6 here, but one for a small layer; never"
                      " more than the CPUs); the output is the same for every N",
                      " ".join(out.split()))

    def test_a_number_that_is_not_whole_is_a_usage_error(self):
        path = self.write("layer.json", FIGURE_1_JSON)
        for text in ("-1", "x", "1.5", "12345", "\uff12", "\u0663", "\u00b9", " 2"):
            with self.subTest(jobs=text):
                self.assertEqual(in_process("check-layer", path, "--jobs", text),
                                 (2, "", "counterexamples: error: argument --jobs: expected a"
                                  " whole number of processes, got %r\n" % text))


class TestSameBytesForEveryJobs(FileTestCase):

    def test_a_split_layer_prints_the_same_report_for_every_jobs(self):
        path = self.write("layer.json", SPLIT_LAYER)
        for form in ("json", "text"):
            with self.subTest(format=form):
                one = in_process("check-layer", path, "--format", form, "--jobs", "1")
                self.assertEqual(one[0], 0)
                # Two CPUs started by fork as the rule sees them, so that the
                # default splits the layer on any machine.
                with mock.patch("reviews.argmax.workers.usable_cpus", return_value=2), \
                        mock.patch.object(layer_run, "start_method", return_value="fork"):
                    for jobs in ((), ("--jobs", "0")):
                        self.assertEqual(in_process("check-layer", path, "--format", form,
                                                    *jobs), one)
                    # More than the CPUs: as many as the CPUs, with a note.
                    status, out, err = in_process("check-layer", path, "--format", form,
                                                  "--jobs", "3")
                    self.assertEqual((status, out), one[:2])
                    self.assertEqual(err, "counterexamples: note: --jobs 3: 2 CPUs usable here,"
                                          " so at most 2 worker processes (more only take"
                                          " turns)\n")

    def test_the_split_layer_has_both_verdicts(self):
        path = self.write("layer.json", SPLIT_LAYER)
        document = json.loads(in_process("check-layer", path, "--format", "json")[1])
        self.assertEqual(document["unargmaxable"], [5, 158, 159])


# check-layer whose every class takes forever (the decision of a class
# replaced by a loop), on 2 CPUs started by fork, whatever this machine has.
LONG_CLASSES = """import sys
sys.path.insert(0, %r)
from reviews.argmax import check, workers
from reviews.cli import main
from tests.support.workers import spin

workers.START_METHOD = "fork"
workers.usable_cpus = lambda: 2
check.decide = lambda layer, i: spin([i])
sys.exit(main(sys.argv[1:]))
"""


class TestEndedCommand(FileTestCase):

    @unittest.skipUnless("fork" in multiprocessing.get_all_start_methods()
                         and os.path.isdir("/proc/self"), "needs fork and /proc")
    def test_check_layer_ended_by_sigterm_leaves_no_worker_deep_in_a_class(self):
        layer = self.write("layer.json", SPLIT_LAYER)
        self.assertEqual(ended_workers(self, LONG_CLASSES % ROOT,
                                       ["check-layer", layer, "--jobs", "2"], signal.SIGTERM),
                         -signal.SIGTERM)


class TestNotesOnlyForACheckedLayer(FileTestCase):
    """A layer that is refused gets its one error line, without the notes
    about it (d > C, --jobs past the CPUs) that would come first."""

    def test_a_ragged_layer_with_d_above_c_and_too_many_jobs_is_one_line(self):
        layer = self.write("rag.csv", "1,2,3\n4,5\n")
        self.assertEqual(in_process("check-layer", layer, "--jobs", "9999"),
                         (2, "", "counterexamples: error: %s: weights row 1 has length 2,"
                                 " row 0 has length 3\n" % layer))

    def test_a_layer_past_the_spread_limit_is_one_line(self):
        layer = self.write("wide.csv", "1e-19000,1e19000,0,0,0\n1,2,3,4,5\n")
        status, out, err = in_process("check-layer", layer, "--jobs", "9999")
        self.assertEqual((status, out), (2, ""))
        self.assertRegex(err, "^counterexamples: error: .*wide.csv: the layer's .*\n$")

    def test_the_notes_of_a_checked_layer_come_after_the_check(self):
        layer = self.write("small.csv", "1,2,3\n4,5,6\n")
        status, out, err = in_process("check-layer", layer, "--jobs", "9999")
        self.assertEqual(status, 0)
        self.assertEqual([line.split(": ")[2] for line in err.splitlines()],
                         [layer, "--jobs 9999"])


class TestAnExplicitJobsIsTakenAsAsked(FileTestCase):

    def test_a_small_layer_with_jobs_4_on_2_cpus_starts_2_workers(self):
        # As the README says: only the default checks a small layer in one process.
        layer = self.write("twelve.csv", "".join("%d,%d\n" % (k, -k * k) for k in range(12)))
        with mock.patch("reviews.argmax.workers.usable_cpus", return_value=2), \
                mock.patch.object(layer_run, "start_method", return_value="fork"), \
                mock.patch("reviews.argmax.check.iter_items", wraps=workers.iter_items) as run:
            status, out, err = in_process("check-layer", layer, "--jobs", "4")
            self.assertEqual(status, 0)
            self.assertEqual(run.call_args[0][4], 2)
            self.assertGreaterEqual(len(run.call_args[0][3]), 2)
            self.assertIn("so at most 2 worker processes", err)
            run.reset_mock()
            self.assertEqual(in_process("check-layer", layer)[0], 0)
            run.assert_not_called()


if __name__ == "__main__":
    unittest.main()
