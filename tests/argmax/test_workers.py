"""Tests of check_layer's worker processes (reviews.argmax.workers): same results for any jobs."""

import gc
import itertools
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
import unittest
from fractions import Fraction as F
from unittest import mock

from reviews.argmax import check as argmaxable
from reviews.argmax import workers
from reviews.argmax.check import check_layer
from reviews.errors import InputError
from tests.support import ROOT, TERMINAL_SIGNALS, FileTestCase
from tests.support.workers import assert_none_left, ended_workers, killed_parent_folder


def _layer(classes, dim, seed):
    rng = random.Random(seed)
    return ([[rng.gauss(0, 1) for _ in range(dim)] for _ in range(classes)],
            [rng.gauss(0, 1) for _ in range(classes)])


# A user's script: its own folder first on sys.path, the package imported
# from elsewhere, the check under a main guard as ``spawn`` requires.
SCRIPT = """\
import multiprocessing, random, sys
sys.path.append(%r)
from reviews.argmax.check import check_layer

def layer():
    rng = random.Random(3)
    return ([[rng.gauss(0, 1) for _ in range(3)] for _ in range(60)],
            [rng.gauss(0, 1) for _ in range(60)])

if __name__ == "__main__":
    multiprocessing.set_start_method(sys.argv[1])
    weights, bias = layer()
    for box in (None, 2):
        one = check_layer(weights, bias, box=box)
        two = check_layer(weights, bias, box=box, jobs=2)
        print(repr(one) == repr(two), sum(not r.argmaxable for r in two))
"""


class TestSameResultsForEveryJobs(FileTestCase):

    def test_a_users_script_gets_the_same_results_under_every_start_method(self):
        script = self.write("user_script.py", SCRIPT % ROOT)
        for method in multiprocessing.get_all_start_methods():
            with self.subTest(method=method):
                done = subprocess.run([sys.executable, script, method], capture_output=True,
                                      text=True, cwd=self.folder.name, timeout=120,
                                      **TERMINAL_SIGNALS)
                self.assertEqual(done.stderr, "")
                # Both answers occur (the layer has unargmaxable classes).
                lines = done.stdout.split("\n")
                self.assertEqual([line.split()[0] for line in lines[:2]], ["True", "True"])
                self.assertGreater(int(lines[0].split()[1]), 0)

    def test_results_are_identical_for_one_two_and_five_jobs(self):
        weights, bias = _layer(45, 2, 7)
        one = check_layer(weights, bias)
        self.assertEqual(repr(check_layer(weights, bias, jobs=2)), repr(one))
        self.assertEqual(repr(check_layer(weights, bias, jobs=5)), repr(one))
        # Exact entries too, and a layer without bias decided in a box.
        exact = [[F(j % 5, 3), F(j * j % 7, 2)] for j in range(20)]
        self.assertEqual(repr(check_layer(exact, None, box=F(1, 3), jobs=3)),
                         repr(check_layer(exact, None, box=F(1, 3))))

    def test_witnesses_read_as_the_same_fractions_from_workers_and_from_here(self):
        # Workers send a witness as integers over one denominator; both ways
        # give witnesses of the same type that read as the same Fractions:
        # from x = w_i (40 classes in 20 dimensions), from a few coordinates
        # (5 classes in 20), and scaled into a box.
        weights, _ = _layer(40, 20, 4)
        for rows, box in ((weights, None), (weights[:5], None), (weights, F(1, 1000))):
            one, two = check_layer(rows, box=box), check_layer(rows, box=box, jobs=2)
            with self.subTest(classes=len(rows), box=box):
                self.assertEqual(two, one)
                self.assertEqual([type(r.witness) for r in two], [type(r.witness) for r in one])
                self.assertEqual([tuple(r.witness) for r in two], [tuple(r.witness) for r in one])
                witnesses = [r.witness for r in one + two if r.argmaxable]
                self.assertEqual(len(witnesses), 2 * len(rows))
                self.assertEqual({type(v) for w in witnesses for v in w}, {F})

    def test_forked_workers_start_from_the_layer_built_here(self):
        # Under fork the layer is built once, here, and the workers inherit
        # it; under spawn each worker builds its own.  Same results.
        weights, bias = _layer(40, 3, 6)
        one = repr(check_layer(weights, bias))
        for method in set(multiprocessing.get_all_start_methods()) & {"fork", "spawn"}:
            with self.subTest(method=method), mock.patch.object(workers, "START_METHOD", method), \
                    mock.patch.object(argmaxable, "iter_items", wraps=argmaxable.iter_items) as run:
                self.assertEqual(repr(check_layer(weights, bias, jobs=2)), one)
                start, _, work = run.call_args[0][:3]
                if method == "fork":
                    self.assertEqual((start, work.__name__), (None, "chunk"))
                else:
                    self.assertEqual((start, work), (argmaxable._chunk_decider, None))

    def test_progress_counts_every_class_in_this_process(self):
        weights, bias = _layer(30, 2, 1)
        seen = []
        check_layer(weights, bias, jobs=2,
                    progress=lambda done, total: seen.append((done, total, os.getpid())))
        self.assertEqual(seen[-1][:2], (30, 30))
        self.assertEqual([done for done, _, _ in seen], sorted({done for done, _, _ in seen}))
        self.assertEqual({pid for _, _, pid in seen}, {os.getpid()})

    def test_an_error_in_progress_ends_the_workers_and_comes_through(self):
        weights, bias = _layer(30, 2, 1)

        def failing(done, total):
            raise KeyError("stop")

        with self.assertRaises(KeyError):
            check_layer(weights, bias, jobs=2, progress=failing)
        self.assertEqual(multiprocessing.active_children(), [])

    def test_one_job_starts_no_process(self):
        with mock.patch.object(argmaxable, "iter_items") as run:
            check_layer([[0], [1]], jobs=1)
        run.assert_not_called()


class TestJobsErrors(unittest.TestCase):

    def test_jobs_must_be_a_positive_int(self):
        for jobs, error, message in ((0, InputError, "jobs is 0; .* at least 1"),
                                     (-2, InputError, "jobs is -2"),
                                     (2.0, TypeError, "jobs must be an int .* not float"),
                                     (True, TypeError, "not bool"),
                                     ("2", TypeError, "not str")):
            with self.subTest(jobs=jobs):
                with self.assertRaisesRegex(error, message):
                    check_layer([[0], [1]], jobs=jobs)

    def test_iter_items_checks_jobs_too(self):
        for jobs in (0, -3):
            with self.subTest(jobs=jobs):
                with self.assertRaisesRegex(InputError, "jobs is %d; .* at least 1" % jobs):
                    list(workers.iter_items(None, (), list, [1, 2], jobs))

    def test_none_means_every_cpu(self):
        self.assertEqual(workers.job_count(None), workers.usable_cpus())

    @unittest.skipUnless(hasattr(os, "sched_getaffinity"), "no CPU affinity here")
    def test_usable_cpus_are_those_the_process_may_run_on(self):
        # A container or taskset may allow one CPU of many: one worker, not many.
        with mock.patch("os.sched_getaffinity", return_value={3}), \
                mock.patch("os.cpu_count", return_value=64):
            self.assertEqual(workers.job_count(None), 1)


# A user's script asking for more processes than the system lets it open
# files for: the limit is set low, as a crowded machine would have it.
TOO_MANY = """\
import resource, sys
sys.path.insert(0, %r)
from reviews.argmax.check import check_layer
from reviews.errors import InputError

resource.setrlimit(resource.RLIMIT_NOFILE, (40, 40))
try:
    check_layer([[k, -k * k] for k in range(300)], jobs=100)
except InputError as error:
    print(error)
"""


class TestTooManyProcesses(unittest.TestCase):

    def test_a_refused_process_is_an_input_error_naming_the_count(self):
        refused = OSError(11, "Resource temporarily unavailable")
        with mock.patch.object(multiprocessing.process.BaseProcess, "start",
                               side_effect=refused):
            with self.assertRaisesRegex(InputError, "^cannot start 3 worker processes: Resource"
                                        " temporarily unavailable; ask for fewer jobs$"):
                list(workers.iter_items(None, (), list, [1, 2, 3], 5))

    def test_a_refused_second_process_ends_the_first(self):
        # As under ulimit -v: the first process starts, the next cannot; the
        # first must not be left waiting for work forever.
        real_start, calls, pids = multiprocessing.process.BaseProcess.start, [], []

        def start(process):
            calls.append(process)
            if len(calls) > 1:
                raise MemoryError
            real_start(process)
            pids.append(process.pid)

        with mock.patch.object(multiprocessing.process.BaseProcess, "start", start):
            with self.assertRaisesRegex(InputError, "^cannot start 2 worker processes:"
                                        " MemoryError; ask for fewer jobs$"):
                list(workers.iter_items(None, (), list, [1, 2, 3], 2))
        self.assertEqual((len(calls), len(pids)), (2, 1))
        with self.assertRaises(ProcessLookupError):   # ended and waited for
            os.kill(pids[0], 0)
        self.assertEqual(multiprocessing.active_children(), [])

    @unittest.skipUnless(os.name == "posix", "sets a POSIX resource limit")
    def test_the_limit_on_open_files_ends_the_check_with_one_message(self):
        done = subprocess.run([sys.executable, "-c", TOO_MANY % ROOT], capture_output=True,
                              text=True, timeout=120, **TERMINAL_SIGNALS)
        self.assertEqual((done.returncode, done.stdout, done.stderr),
                         (0, "cannot start 100 worker processes: Too many open files;"
                             " ask for fewer jobs\n", ""))


def _dying_copy(chunk):
    # Killed while at work, as by the system for want of memory.
    if 3 in chunk:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.05)
    return chunk


@unittest.skipUnless(hasattr(signal, "SIGKILL"), "kills a process the POSIX way")
class TestDeadWorker(unittest.TestCase):

    def test_a_worker_killed_at_work_ends_the_run_with_an_input_error_not_a_hang(self):
        with self.assertRaisesRegex(InputError, "^a worker process stopped unexpectedly"
                                    " \\(killed for want of memory\\?\\); ask for fewer"
                                    " jobs$"):
            list(workers.iter_items(None, (), _dying_copy, range(8), 2))
        self.assertEqual(multiprocessing.active_children(), [])

    def test_a_worker_killed_while_others_deliver_is_found_at_once(self):
        # The other worker keeps returning chunks: the death is seen at
        # once, not after the others have done all the rest.
        done = []
        with self.assertRaisesRegex(InputError, "^a worker process stopped unexpectedly"):
            list(workers.iter_items(None, (), _dying_copy, range(200), 2,
                                    progress=lambda count, total: done.append(count)))
        self.assertLess(len(done), 100)
        self.assertEqual(multiprocessing.active_children(), [])


def _unsendable_result(chunk):
    return lambda: chunk


class _TwoArguments(Exception):
    def __init__(self, first, second):
        super().__init__("%s and %s" % (first, second))


def _unreadable_error(chunk):
    raise _TwoArguments(*chunk[0])


def _exit_three(chunk):
    sys.exit(3)


def _failing(chunk):
    raise ValueError(chunk)


def _open_files():
    return len(os.listdir("/proc/self/fd"))


@unittest.skipUnless("fork" in multiprocessing.get_all_start_methods(), "needs fork")
class TestWorkersErrors(unittest.TestCase):
    """What a chunk's work raises comes through as raised, or named where it cannot."""

    def setUp(self):
        patch = mock.patch.object(workers, "START_METHOD", "fork")
        patch.start()
        self.addCleanup(patch.stop)

    def test_a_result_that_cannot_be_pickled_is_named_not_a_dead_worker(self):
        with self.assertRaisesRegex(RuntimeError, "^a worker's result cannot be sent: .*"
                                    "(pickle|local object)"):
            list(workers.iter_items(None, (), _unsendable_result, [1, 2], 2))
        self.assertEqual(multiprocessing.active_children(), [])

    def test_an_error_that_cannot_be_rebuilt_here_comes_as_its_name_and_message(self):
        with self.assertRaisesRegex(RuntimeError, "^_TwoArguments: 1 and 2$"):
            list(workers.iter_items(None, (), _unreadable_error, [(1, 2), (1, 2)], 2))

    def test_sys_exit_in_a_worker_comes_through_as_raised(self):
        with self.assertRaises(SystemExit) as raised:
            list(workers.iter_items(None, (), _exit_three, [1, 2], 2))
        self.assertEqual(raised.exception.code, 3)

    @unittest.skipUnless(os.path.isdir("/proc/self/fd"), "counts open files in /proc")
    def test_a_failed_run_closes_its_files_even_while_its_error_is_kept(self):
        # The error's traceback holds iter_items's frame, and the frame its
        # workers: their pipes must be closed already, not when collected.
        gc.disable()
        self.addCleanup(gc.enable)
        before, kept = _open_files(), []
        for _ in range(5):
            try:
                list(workers.iter_items(None, (), _failing, [1, 2, 3], 2))
            except ValueError as error:
                kept.append(error)
        self.assertEqual((len(kept), _open_files()), (5, before))

    @unittest.skipUnless(hasattr(signal, "pthread_sigmask"), "blocks a signal the POSIX way")
    def test_ctrl_c_as_a_worker_starts_ends_that_worker_too(self):
        # The interrupt lands just after the fork, inside Process.start: the
        # worker must be counted first, then ended with the others.
        real_start, pids = multiprocessing.process.BaseProcess.start, []

        def start(process):
            real_start(process)
            pids.append(process.pid)
            os.kill(os.getpid(), signal.SIGINT)

        # Ctrl-C as from a terminal, whatever the shell that runs the tests ignores.
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        self.addCleanup(signal.signal, signal.SIGINT, previous)
        with mock.patch.object(multiprocessing.process.BaseProcess, "start", start):
            with self.assertRaises(KeyboardInterrupt):
                list(workers.iter_items(None, (), list, [1, 2], 2))
        self.assertEqual(len(pids), 1)
        self.assertEqual(multiprocessing.active_children(), [])
        with self.assertRaises(ProcessLookupError):
            os.kill(pids[0], 0)


# The parent killed while its forked workers are at work: the workers must
# see it, not wait for their next chunk forever.
KILLED_PARENT = """import multiprocessing, os, signal, sys, time
sys.path.insert(0, %r)
from reviews.argmax import workers

def slow(chunk):
    time.sleep(0.2)
    return chunk

def progress(done, total):
    print(*[child.pid for child in multiprocessing.active_children()], flush=True)
    os.kill(os.getpid(), signal.SIGKILL)

workers.START_METHOD = "fork"
list(workers.iter_items(None, (), slow, range(20), 2, progress))
"""


# The parent ended, in one of the ways a process ends, while its workers
# are deep inside their chunks.
ENDED_PARENT = """import os, signal, sys
sys.path.insert(0, %r)
from reviews.argmax import workers
from tests.support.workers import spin

def fail(*arguments):
    raise RuntimeError("an error in the parent")

signal.signal(signal.SIGUSR1, fail)
workers.START_METHOD = sys.argv[1]
list(workers.iter_items(None, (), spin, [1, 2], 2))
"""


class TestKilledParent(unittest.TestCase):

    @unittest.skipUnless(hasattr(signal, "SIGHUP") and os.path.isdir("/proc/self"),
                         "ends processes the POSIX way and reads /proc")
    def test_workers_deep_in_a_chunk_end_however_their_parent_ends(self):
        # SIGTERM, SIGHUP and SIGKILL end the parent without a word to its
        # workers; SIGINT (KeyboardInterrupt) and an error (raised by the
        # SIGUSR1 handler) end them from iter_items on their way out.
        # Each ending once, the start methods taken in turn (each at least
        # once): how a worker learns of its parent's end does not depend on
        # how it was started.
        endings = {"SIGTERM": -signal.SIGTERM, "SIGHUP": -signal.SIGHUP,
                   "SIGKILL": -signal.SIGKILL, "SIGINT": -signal.SIGINT, "SIGUSR1": 1}
        methods = itertools.cycle(multiprocessing.get_all_start_methods())
        for method, (name, status) in zip(methods, endings.items()):
            with self.subTest(method=method, ending=name):
                self.assertEqual(ended_workers(self, ENDED_PARENT % ROOT, [method],
                                               getattr(signal, name)), status)

    @unittest.skipUnless("fork" in multiprocessing.get_all_start_methods()
                         and os.path.isdir("/proc/self"), "needs fork and /proc")
    def test_workers_end_when_their_parent_is_killed(self):
        with killed_parent_folder() as environment:
            child = subprocess.Popen([sys.executable, "-c", KILLED_PARENT % ROOT],
                                     stdout=subprocess.PIPE, text=True, env=environment,
                                     **TERMINAL_SIGNALS)
            with child:
                pids = [int(pid) for pid in child.stdout.readline().split()]
                self.assertEqual((child.wait(timeout=120), len(pids)), (-signal.SIGKILL, 2))
            assert_none_left(self, pids)


# A result this process cannot unpickle, as when memory runs out (a Pool's
# thread that receives results would die, and the Pool wait forever).
LOST_RESULTS = """import multiprocessing, sys
sys.path.insert(0, %r)
from reviews.argmax import workers
from reviews.errors import InputError

def explode():
    raise MemoryError

class Unreadable:
    def __reduce__(self):
        return explode, ()

def work(chunk):
    return Unreadable()

workers.START_METHOD = "fork"
try:
    list(workers.iter_items(None, (), work, [1, 2], 2))
except InputError as error:
    print(error)
print(multiprocessing.active_children())
"""


class TestLostResults(unittest.TestCase):

    @unittest.skipUnless("fork" in multiprocessing.get_all_start_methods(), "needs fork")
    def test_a_result_that_cannot_be_received_ends_the_run_in_one_message(self):
        done = subprocess.run([sys.executable, "-c", LOST_RESULTS % ROOT], capture_output=True,
                              text=True, timeout=120, **TERMINAL_SIGNALS)
        self.assertEqual((done.returncode, done.stdout, done.stderr),
                         (0, "this process stopped receiving the workers' results (out of"
                             " memory?); ask for fewer jobs\n[]\n", ""))


# A script without the __main__ guard under spawn: every worker re-runs it
# and fails while starting (a Pool would start new ones forever).
UNGUARDED = """import multiprocessing, sys
sys.path.insert(0, %r)
from reviews.argmax import workers
from reviews.argmax.check import check_layer
from reviews.errors import InputError

multiprocessing.set_start_method("spawn", force=True)
try:
    check_layer([[k, -k * k] for k in range(300)], jobs=2)
except InputError as error:
    print(error)
"""


GUARDED = """import multiprocessing, sys
sys.path.insert(0, %r)
from reviews.argmax import workers
from reviews.argmax.check import check_layer
from reviews.errors import InputError

if __name__ == "__main__":
    multiprocessing.set_start_method("spawn", force=True)
    try:
        check_layer([[k, -k * k] for k in range(300)], jobs=2)
    except InputError as error:
        print(error)
"""


class TestUnguardedSpawn(FileTestCase):

    @unittest.skipUnless("spawn" in multiprocessing.get_all_start_methods(), "no spawn here")
    def test_a_script_without_the_main_guard_gets_a_message_not_a_hang(self):
        # A file, not -c: spawn re-runs a script's file in each worker.
        path = self.write("unguarded.py", UNGUARDED % ROOT)
        done = subprocess.run([sys.executable, path], capture_output=True, text=True,
                              timeout=120, **TERMINAL_SIGNALS)
        self.assertEqual(done.stdout.splitlines()[-1:],
                         ['a worker process stopped while it started; under the spawn start method'
                          ' (macOS, Windows) a script must run check_layer from under'
                          ' if __name__ == "__main__":'])


    @unittest.skipUnless("spawn" in multiprocessing.get_all_start_methods(), "no spawn here")
    def test_a_guarded_script_from_standard_input_is_told_the_real_cause(self):
        # python - < script.py: the guard is there, but a spawned worker has
        # no file to re-import the main module from.
        done = subprocess.run([sys.executable, "-"], input=GUARDED % ROOT, capture_output=True,
                              text=True, timeout=120, **TERMINAL_SIGNALS)
        self.assertEqual(done.stdout.splitlines()[-1:],
                         ["a worker process stopped while it started; under the spawn start"
                          " method"
                          " (macOS, Windows) each worker re-imports the main module, and"
                          " <stdin> is no file (a script read from standard input): run the"
                          " script from a file"])


class TestStartMethod(unittest.TestCase):

    def test_start_method_names_the_one_the_workers_use(self):
        for method in multiprocessing.get_all_start_methods():
            with self.subTest(method=method), mock.patch.object(workers, "START_METHOD", method):
                self.assertEqual(workers.start_method(), method)
        self.assertEqual(workers.start_method(), multiprocessing.get_start_method())

    def test_asking_leaves_a_users_script_free_to_set_the_method(self):
        script = ("import multiprocessing, sys\n"
                  "sys.path.insert(0, %r)\n"
                  "from reviews.argmax import workers\n"
                  "default = workers.start_method()\n"
                  "multiprocessing.set_start_method('spawn')\n"
                  "print(default == multiprocessing.get_all_start_methods()[0],"
                  " workers.start_method())\n" % ROOT)
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              timeout=120, **TERMINAL_SIGNALS)
        self.assertEqual((done.stdout, done.stderr), ("True spawn\n", ""))


if __name__ == "__main__":
    unittest.main()


def _waiting_for_a_file(chunk):
    """Each item as it is, but the item "last" only once the file it names
    exists (or 30 s on, as "late")."""
    found = []
    for item in chunk:
        if isinstance(item, tuple):
            deadline = time.monotonic() + 30
            while not os.path.exists(item[1]) and time.monotonic() < deadline:
                time.sleep(0.01)
            item = "last" if os.path.exists(item[1]) else "late"
        found.append(item)
    return found


def _slow_items(chunk):
    time.sleep(0.3)
    return list(chunk)


class TestItemsAsTheyCome(FileTestCase):

    def test_items_come_in_order_whatever_the_jobs(self):
        items = list(range(300))
        for jobs in (1, 2, 3):
            with self.subTest(jobs=jobs):
                self.assertEqual(list(workers.iter_items(None, (), list, items, jobs)), items)

    def test_the_first_result_comes_before_the_last_item_is_done(self):
        flag = os.path.join(self.folder.name, "go")
        results = workers.iter_items(None, (), _waiting_for_a_file,
                                     [0, 1, 2, ("last", flag)], 2)
        self.assertEqual(next(results), 0)
        self.assertFalse(os.path.exists(flag))
        open(flag, "w").close()
        self.assertEqual(list(results), [1, 2, "last"])

    def test_chunks_start_with_one_item_and_grow(self):
        with mock.patch.object(workers, "_served", wraps=workers._served) as served:
            list(workers.iter_items(None, (), list, list(range(500)), 2))
        chunks = served.call_args[0][3]
        sizes = [b - a for a, b in zip(chunks.starts, chunks.starts[1:] + [500])]
        self.assertEqual(sizes[0], 1)
        self.assertEqual(max(sizes), workers._CHUNK)
        self.assertEqual(sum(sizes), 500)

    def test_progress_is_called_while_a_chunk_takes_long(self):
        seen = []
        with mock.patch.object(workers, "_HEARTBEAT", 0.05):
            list(workers.iter_items(None, (), _slow_items, [1], 2,
                                    progress=lambda done, total: seen.append(done)))
        self.assertGreaterEqual(seen.count(0), 2)
        self.assertEqual(seen[-1], 1)

    def test_closing_the_iterator_ends_the_workers(self):
        results = workers.iter_items(None, (), _slow_items, list(range(20)), 2)
        self.assertEqual(next(results), 0)
        results.close()
        self.assertEqual(multiprocessing.active_children(), [])
