"""Worker processes for the exact geometry: one job split into chunks, results in order.

The work of a chunk must depend only on the chunk and on the function
``start`` built from its arguments, so that the results are the same for any number
of processes.  The arguments are sent once to each process (pickled under
the ``spawn`` start method, the default on macOS and Windows): send plain
integers, not Fractions.  A script that calls ``iter_items`` with jobs > 1
must guard its top level with ``if __name__ == "__main__":`` under
``spawn``, as for any use of multiprocessing.

Each process has a pipe of its own, and nothing else is shared: a process
that dies, or that this one ends at any moment (Ctrl-C, an error), holds no
lock another needs.  (multiprocessing.Pool shares its queues' locks, and
ending its processes can leave one taken: Pool.terminate then waits forever.)
Each process also holds the reading end of a second pipe, its lifeline,
that this one never writes to: a thread of the worker waits on it and ends
the worker the moment it reads end-of-file, that is when this process has
gone, however it went (SIGTERM, SIGHUP and SIGKILL end it without a word
to its workers), even while the worker is deep inside one chunk's work.

    iter_items    work's results item by item, in order, over ``jobs`` processes
    job_count     the number of processes asked for, validated
    usable_cpus   the CPUs this process may use: the default number of processes
    start_method  how the processes start: "fork", "spawn" or "forkserver"
"""

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import threading
import time
from multiprocessing.reduction import ForkingPickler

from reviews.errors import InputError
from reviews.shown import shown_name

__all__ = ["iter_items", "job_count", "usable_cpus", "start_method"]

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


# This process's ends of the workers' pipes.  A forked worker inherits them
# and closes them first: while any process but this one holds a worker's
# other end, the worker would never see end-of-file when this one dies.
_PARENT_ENDS = set()
# The signals a starting worker holds back until it has set its handling.
_HELD = {getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
         if hasattr(signal, name)}


@contextlib.contextmanager
def _interrupts_held():
    """Hold Ctrl-C (and SIGTERM, SIGHUP) back while a worker starts: a
    forked child must not take one before it sets its own handling, nor
    this process lose track of the child it has just made (the signal comes
    when the worker is counted)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _serve(connection, lifeline, start, arguments, work):
    """A worker process: run ``start`` (which returns ``work``), say so,
    then send (True, work(chunk)) for each chunk received, or (False,
    error), until None arrives; end at once when ``lifeline`` reads
    end-of-file (the parent has gone)."""
    for end in _PARENT_ENDS:
        end.close()
    threading.Thread(target=_outlive_no_parent, args=(lifeline,), daemon=True).start()
    # Ctrl-C and a hang-up reach every process of the terminal's group: only
    # the parent handles them (by ending the workers), so the workers print
    # no traceback.  SIGTERM, which the parent sends to end a worker, ends
    # it whatever handler the command gave the parent.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)
    try:
        try:
            if start is not None:
                work = start(*arguments)
            answer = (True, None)
        except BaseException as error:
            answer = (False, _sendable(error))
        while True:
            try:
                data = ForkingPickler.dumps(answer)
            except Exception as error:
                data = ForkingPickler.dumps((False, RuntimeError(
                    "a worker's result cannot be sent: " + _named(error))))
            connection.send_bytes(data)
            chunk = connection.recv()
            if chunk is None:
                return
            try:
                answer = (True, work(chunk))
            except BaseException as error:
                answer = (False, _sendable(error))
    except (EOFError, OSError):
        return   # the parent has gone (end of file, a broken or reset pipe)


def _outlive_no_parent(lifeline):
    """Wait until the parent's end of ``lifeline`` closes, then end this
    process: its work is for a parent that can no longer receive it."""
    try:
        lifeline.recv_bytes()
    except (EOFError, OSError):
        pass
    os._exit(1)


def _sendable(error):
    """``error``, or a RuntimeError naming it where it would not arrive whole."""
    try:
        pickle.loads(ForkingPickler.dumps(error))
    except Exception:
        return RuntimeError(_named(error))
    return error


def _named(error):
    return "%s: %s" % (type(error).__name__, error)


class _Worker:
    """One worker process, this end of its pipe and of its lifeline (never
    written to: closed, by this process or by its death, it ends the
    worker), and the number of the chunk it works on (None while it
    starts)."""

    def __init__(self, context, start, arguments, work):
        self.connection, theirs = context.Pipe()
        watched, self.lifeline = context.Pipe(duplex=False)
        _PARENT_ENDS.update((self.connection, self.lifeline))
        try:
            self.process = context.Process(target=_serve, daemon=True,
                                           args=(theirs, watched, start, arguments, work))
            self.process.start()
        except BaseException:
            self.close()
            raise
        finally:
            # The worker's ends are the worker's: its death is an EOF here.
            theirs.close()
            watched.close()
        self.chunk = None

    def close(self):
        """Close this process's ends of the pipes."""
        for end in (self.connection, self.lifeline):
            _PARENT_ENDS.discard(end)
            end.close()

    def receive(self):
        """The worker's next answer; InputError if it died first."""
        try:
            return self.connection.recv()
        except (EOFError, OSError):
            pass
        except MemoryError:
            raise InputError("this process stopped receiving the workers' results (out of"
                             " memory?); ask for fewer jobs") from None
        if self.chunk is None and start_method() != "fork":
            raise InputError("a worker process stopped while it started; "
                             + _why_none_started())
        raise InputError("a worker process stopped unexpectedly (killed for want of"
                         " memory?); ask for fewer jobs")

    def send(self, chunk):
        try:
            self.connection.send(chunk)
        except OSError:
            pass   # it died: receive() says so


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


def _start_workers(count, context, start, arguments, work):
    """``count`` started workers, or InputError (none left running) if the
    system refuses one: too many processes or open files, or no memory."""
    started = []
    try:
        for _ in range(count):
            with _interrupts_held():
                started.append(_Worker(context, start, arguments, work))
    except (OSError, MemoryError) as error:
        _end(started)
        raise InputError("cannot start %d worker processes: %s; ask for fewer jobs"
                         % (count, getattr(error, "strerror", None) or str(error)
                            or type(error).__name__)) from None
    except BaseException:
        _end(started)
        raise
    return started


def _end(started, terminate=True):
    """Wait for each of the ``started`` workers to end (ending those still
    running first, if ``terminate``) and close the pipes."""
    for worker in started:
        if terminate and worker.process.is_alive():
            worker.process.terminate()
    for worker in started:
        worker.process.join()
        worker.process.close()   # its sentinel, now: not when the collector comes
        worker.close()


def iter_items(start, arguments, work, items, jobs, progress=None, receive=None):
    """receive(work(chunk)) item by item, in the order of ``items``, each as
    soon as it and every item before it are done; with ``start``, each
    process first calls start(*arguments), which returns its ``work``.

    The processes are handed chunks of ``items`` cut as they go: one item
    at first, then as many as a worker does in about a second (at most
    _CHUNK), so that the first results and the progress come soon on a
    slow layer and cost little on a fast one.  ``work`` returns a list of
    one result per item of its chunk, and ``receive``, if given, maps such
    a list to another in this process, while the workers go on.  Under the
    ``spawn`` and ``forkserver`` start methods, ``start`` and ``work`` are
    sent by name: module-level functions; under ``fork`` any function is
    inherited (a bound method of a layer built here, say), and so is
    everything a worker needs, with no state kept in a module.
    ``progress(done, total)`` is called in this process as chunks
    complete, with ``done`` counting the items done, and again every few
    seconds while none does.  An error in ``start`` or ``work``
    comes through as it was raised; a process the system refuses (too many
    processes or open files) or a worker that dies (killed for want of
    memory, say) ends the run with InputError.

    >>> list(iter_items(None, (), list, [3, 1, 2], 2))
    [3, 1, 2]
    >>> list(iter_items(None, (), list, [3, 1, 2], 2, receive=lambda chunk: [-n for n in chunk]))
    [-3, -1, -2]
    """
    chunks = _Growing(list(items))
    waiting, first = {}, 0
    for number, value in _served(start, arguments, work, chunks, jobs, progress, receive):
        waiting[chunks.starts[number]] = value
        while first in waiting:
            value = waiting.pop(first)
            yield from value
            first += len(value)


# Seconds between progress calls while no chunk completes.
_HEARTBEAT = 5
# Items a growing chunk may hold, and the seconds of work a worker's next chunk aims at.
_CHUNK = 64
_CHUNK_SECONDS = 1.0


class _Growing:
    """Chunks cut from ``items`` as workers ask: one item first, then each
    worker's next as many as it did in _CHUNK_SECONDS, at most _CHUNK."""

    def __init__(self, items):
        self.items, self.taken, self.starts = items, 0, []
        self.total = len(items)

    def next(self, seconds=None, size=None):
        """(number, chunk) of the next chunk, or None when none is left;
        ``seconds`` and ``size``: the time and size of the asking worker's
        last chunk (None for its first)."""
        if self.taken == len(self.items):
            return None
        if seconds is None:
            size = 1
        else:
            rate = size / seconds if seconds > 0 else _CHUNK
            size = max(1, min(_CHUNK, 2 * size, int(rate * _CHUNK_SECONDS)))
        self.starts.append(self.taken)
        chunk = self.items[self.taken:self.taken + size]
        self.taken += len(chunk)
        return len(self.starts) - 1, chunk


def _served(start, arguments, work, chunks, jobs, progress, receive):
    """(number, receive(work(chunk))) for each chunk, as the workers finish them."""
    jobs = job_count(jobs)
    context = multiprocessing.get_context(START_METHOD)
    started = _start_workers(min(jobs, chunks.total), context, start, arguments, work)
    owners = {worker.connection: worker for worker in started}
    try:
        done = 0
        while owners:
            ready = multiprocessing.connection.wait(list(owners), _HEARTBEAT)
            if not ready and progress is not None:
                progress(done, chunks.total)
            for connection in ready:
                worker = owners[connection]
                succeeded, value = worker.receive()
                if not succeeded:
                    raise value
                seconds = size = None
                if worker.chunk is not None:
                    number, chunk = worker.chunk
                    seconds, size = time.monotonic() - worker.sent, len(chunk)
                    done += size
                    value = value if receive is None else receive(value)
                    if progress is not None:
                        progress(done, chunks.total)
                    yield number, value
                worker.chunk = chunks.next(seconds, size)
                if worker.chunk is None:
                    worker.send(None)
                    del owners[connection]
                else:
                    worker.sent = time.monotonic()
                    worker.send(worker.chunk[1])
    except BaseException:
        # An interrupt, or an error in a worker, in ``receive``, in
        # ``progress`` or in the reader of the results: the workers still
        # running are ended, not waited for.
        _end(started)
        raise
    _end(started, terminate=False)   # each was sent None: it ends by itself
