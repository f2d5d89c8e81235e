"""Worker processes for the exact geometry: one job split into chunks, results in order.

The work of a chunk must depend only on the chunk and on what ``start``
built from its arguments, so that the results are the same for any number
of processes.  The arguments are sent once to each process (pickled under
the ``spawn`` start method, the default on macOS and Windows): send plain
integers, not Fractions.  A script that calls ``run_chunks`` with jobs > 1
must guard its top level with ``if __name__ == "__main__":`` under
``spawn``, as for any use of multiprocessing.

    run_chunks    [work(chunk) for chunk in chunks], over ``jobs`` processes
    job_count     the number of processes asked for, validated
    usable_cpus   the CPUs this process may use: the default number of processes
    start_method  how the processes start: "fork", "spawn" or "forkserver"
"""

import multiprocessing
import multiprocessing.pool
import os
import signal
import sys
import threading
import time

from reviews.errors import InputError
from reviews.formats.source import shown_name

__all__ = ["run_chunks", "job_count", "usable_cpus", "start_method"]

# The start method of the worker processes; None is the platform's default.
# (The tests set it to try each method.)
START_METHOD = None


def usable_cpus():
    """The CPUs this process may run on (its affinity where the system says), at least 1.

    >>> usable_cpus() >= 1
    True
    """
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def job_count(jobs):
    """``jobs`` as a number of processes: a positive int, or None for every CPU.

    >>> job_count(2), job_count(None) == usable_cpus()
    (2, True)
    >>> job_count(0)
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: jobs is 0; the number of worker processes must be at least 1
    """
    if jobs is None:
        return usable_cpus()
    if isinstance(jobs, bool) or not isinstance(jobs, int):
        raise TypeError("jobs must be an int (the number of worker processes) or None, not %s"
                        % type(jobs).__name__)
    if jobs < 1:
        raise InputError("jobs is %d; the number of worker processes must be at least 1" % jobs)
    return jobs


def start_method():
    """How the worker processes start: "fork" copies this process, at little
    cost; under "spawn" or "forkserver" each one imports the package first.

    >>> start_method() in multiprocessing.get_all_start_methods()
    True
    """
    # Asked without fixing the method, which a caller may still set.
    method = START_METHOD or multiprocessing.get_start_method(allow_none=True)
    return method or multiprocessing.get_all_start_methods()[0]   # the default comes first


def _start(start, arguments, started):
    # Ctrl-C reaches every process of the terminal's group: only the parent
    # handles it (by ending the pool), so the workers print no traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    started.put(None)
    if start is not None:
        start(*arguments)


def _numbered(numbered_chunk):
    number, work, chunk = numbered_chunk
    return number, work(chunk)


# Seconds between looks for a dead worker while waiting for results.
_PATIENCE = 0.5
# Seconds to wait for a first worker to start: a process starts in well under
# a second, but under spawn a script without the __main__ guard makes every
# worker die while it starts, and the Pool would start new ones forever.
_FIRST_START = 20


def _arrivals(results, started, processes, helpers):
    """The pool's ``results`` as they come, looking at each result and every
    _PATIENCE seconds whether more processes have ``started`` than the
    pool's own (one replaces a worker that died, and the Pool would wait
    forever for its chunk), whether none has started at all, and whether
    one of the pool's ``helpers`` (threads) has stopped (a MemoryError
    while it unpickles a result, say: the Pool would wait forever)."""
    count = 0
    begun = time.monotonic()
    while True:
        if not all(thread.is_alive() for thread in helpers):
            raise InputError("this process stopped receiving the workers' results (out of"
                             " memory?); ask for fewer jobs")
        try:
            result = results.next(_PATIENCE)
        except StopIteration:
            return
        except multiprocessing.TimeoutError:
            pass
        else:
            yield result
        while not started.empty():
            started.get()
            count += 1
        if count > processes:
            raise InputError("a worker process stopped unexpectedly (killed for want of"
                             " memory?); ask for fewer jobs")
        if not count and time.monotonic() - begun > _FIRST_START:
            raise InputError("no worker process started in %d s; %s" % (_FIRST_START,
                                                                        _why_none_started()))


def _why_none_started():
    """Why spawned workers die while they start: a main module they cannot re-import."""
    path = getattr(sys.modules.get("__main__"), "__file__", None)
    if path is not None and not os.path.exists(path):
        # python - < script.py: __file__ is "<stdin>", no file to import again.
        return ("under the spawn start method (macOS, Windows) each worker re-imports the main"
                " module, and %s is no file (a script read from standard input): run the"
                " script from a file" % shown_name(path))
    return ("under the spawn start method (macOS, Windows) a script must run check_layer"
            " from under if __name__ == \"__main__\":")


def _end(processes):
    """Terminate the ``processes`` and wait for each to exit."""
    for process in processes:
        process.terminate()
    for process in processes:
        process.join()


def _end_failed_pool(processes, threads):
    """End what a Pool that failed to start left: the helper threads it did
    start, first (its worker handler would start a new process for each one
    ended), then its processes; ``processes`` and ``threads`` were there before."""
    helpers = [thread for thread in threading.enumerate() if thread not in threads]
    for thread in helpers:
        # How the Pool itself tells its threads to stop (CPython 3.8 to 3.13).
        thread._state = multiprocessing.pool.TERMINATE
    _end(set(multiprocessing.active_children()) - processes)   # wakes the worker handler
    for thread in helpers:
        thread.join(_PATIENCE)
    _end(set(multiprocessing.active_children()) - processes)


def run_chunks(start, arguments, work, chunks, jobs, progress=None, receive=None):
    """[receive(work(chunk)) for chunk in chunks], each process first calling start(*arguments).

    ``start`` (or None) and ``work`` must be module-level functions (they
    are sent by name); ``receive``, if given, runs in this process on each chunk's
    result as it arrives, while the workers go on.  ``progress(done,
    total)`` is called in this process as chunks complete, with ``done``
    counting the items of the chunks completed.  A pool the system refuses
    (too many processes or open files) or a worker that dies (killed for
    want of memory, say) ends the run with InputError.

    >>> run_chunks(None, (), sum, [[1], [2, 3]], 2, receive=str)
    ['1', '5']
    """
    chunks = list(chunks)
    total = sum(map(len, chunks))
    results = [None] * len(chunks)
    context = multiprocessing.get_context(START_METHOD)
    processes = min(jobs, len(chunks))
    started = context.SimpleQueue()   # a word from each process started: see _arrivals
    before = set(multiprocessing.active_children())
    threads = set(threading.enumerate())
    try:
        pool = context.Pool(processes, _start, (start, arguments, started))
    except (OSError, RuntimeError, MemoryError) as error:
        # The system's limit on processes, open files or memory (RuntimeError:
        # "can't start new thread").  The Pool ends the processes it started
        # only if a process fails, not if one of its threads does: end them
        # here, or they would wait forever for work, orphaned.  Its threads
        # start after its processes: a RuntimeError with none started is
        # not about resources (spawn's complaint about a missing main
        # guard, in a worker) and goes on as it is.
        orphans = set(multiprocessing.active_children()) - before
        _end_failed_pool(before, threads)
        started.close()
        if isinstance(error, RuntimeError) and not orphans:
            raise
        raise InputError("cannot start %d worker processes: %s; ask for fewer jobs"
                         % (processes, getattr(error, "strerror", None) or error
                            or type(error).__name__)) from None
    helpers = [thread for thread in threading.enumerate() if thread not in threads]
    hook = threading.excepthook
    # A helper thread's error is reported by _arrivals, in one line.
    threading.excepthook = lambda failed: None if failed.thread in helpers else hook(failed)
    try:
        done = 0
        numbered = [(n, work, chunk) for n, chunk in enumerate(chunks)]
        for number, result in _arrivals(pool.imap_unordered(_numbered, numbered), started,
                                        processes, helpers):
            results[number] = result if receive is None else receive(result)
            done += len(chunks[number])
            if progress is not None:
                progress(done, total)
        pool.close()
        pool.join()
    except BaseException:
        # An interrupt, or an error in a worker or in ``progress``: the
        # workers still running are ended, not waited for.  Short of memory,
        # ending the pool can fail itself: its processes are ended anyway.
        try:
            pool.terminate()
        except Exception:
            pass   # a pool whose result thread died cannot end itself (AssertionError)
        _end(set(multiprocessing.active_children()) - before)
        raise
    finally:
        started.close()
        threading.excepthook = hook
    return results
