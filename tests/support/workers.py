"""Worker processes for the tests: one that spins until its worker ends, and
checks that a parent's end leaves no worker running (nor its temporary files)."""

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time

from tests.support import TERMINAL_SIGNALS


def running(pid):
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        with open("/proc/%d/stat" % pid) as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def spin(chunk):
    # A chunk that never ends, in pure Python, as a class that takes hours:
    # only the end of its worker stops it.  One write: the two workers'
    # lines must not interleave.
    os.write(1, b"%d\n" % os.getpid())
    while True:
        sum(range(1000))


def ended_workers(test, script, arguments, ending):
    """Start ``script`` (its workers print their pids), end it with the
    signal ``ending`` once both work, and assert that no worker is left
    running a generous while later (any left are killed)."""
    with killed_parent_folder() as environment:
        child = subprocess.Popen([sys.executable, "-c", script] + arguments,
                                 stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, text=True, env=environment,
                                 **TERMINAL_SIGNALS)
        try:
            pids = [int(child.stdout.readline()) for _ in range(2)]
            os.kill(child.pid, ending)
            status = child.wait(timeout=120)
        finally:
            child.kill()   # a test that failed before its signal leaves nothing behind
            child.wait()
            child.stdout.close()
        assert_none_left(test, pids)
    return status


@contextlib.contextmanager
def killed_parent_folder():
    """The environment for a parent process the test ends: its temporary
    folder is one of the test's, removed afterwards (a parent killed ends
    without removing what multiprocessing made there)."""
    with tempfile.TemporaryDirectory() as folder:
        yield dict(os.environ, TMPDIR=folder)


def assert_none_left(test, pids):
    """Assert that none of the processes ``pids`` runs a generous while
    later (any left are killed)."""
    deadline = time.monotonic() + 60
    while any(map(running, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in pids if running(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    test.assertEqual(left, [])
