"""The command: run the reviewed claims and print one verdict per claim.

    python reviews/counterexamples.py [options]              the claims
    python reviews/counterexamples.py check-layer FILE ...   a user's layer
    python reviews/counterexamples.py merge SHARD ...        shards of check-layer joined

Each command's options are in its ``--help`` and described once in
docs/claims.md, docs/check-layer.md and docs/sharding.md; the exit
statuses are in the README.

The command line lives in reviews.cli (``main``); this module is the
script's entry point, which ``python -m reviews`` and the installed
``counterexamples`` command share:

    run     run the command line as a process: exit with its status
"""

import os
import sys

# Needed before the package can be imported (an early Ctrl-C, an old Python);
# reviews.cli.streams.PROGRAM and INTERRUPTED are the same for the command.
_PROGRAM = "counterexamples"
_INTERRUPTED = 130   # 128 + SIGINT, as a shell reports it


def _interrupted_early(*signal_arguments):
    # Ctrl-C while the package imports, before main() can catch it.  The
    # handler may run where an exception is swallowed (seen: during an
    # import's compile), so it ends the process itself: nothing is written
    # or started yet that would need cleaning up.
    try:
        sys.stderr.write("%s: interrupted\n" % _PROGRAM)
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):
        pass   # no stderr to write to: the exit status says it
    os._exit(_INTERRUPTED)


try:
    import signal
except KeyboardInterrupt:
    # Before run() sets the handler (signal imports enum, and more).
    if __name__ == "__main__":
        _interrupted_early()
    raise

if sys.version_info < (3, 9):
    # One line and the usage status, not a traceback from a missing function.
    sys.stderr.write("%s: error: needs Python 3.9 or newer, not %d.%d\n"
                     % ((_PROGRAM,) + sys.version_info[:2]))
    sys.exit(2)

if __name__ == "__main__" and not __package__:
    # Run as a script, sys.path[0] is reviews/ itself: put the repository
    # root there instead, so that the package imports as a package.
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

__all__ = ["run"]


def run():
    """Run the command line as a process, ending it with main()'s exit status."""
    signal.signal(signal.SIGINT, _interrupted_early)   # until main() can catch it
    from reviews.cli import main
    from reviews.cli.streams import stop_on
    signal.signal(signal.SIGINT, signal.default_int_handler)   # main() handles it now
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        # One left ignored (nohup) stays ignored.
        if number is not None and signal.getsignal(number) == signal.SIG_DFL:
            signal.signal(number, stop_on)
    sys.exit(main())


def __getattr__(name):
    # The names this module used to hold: main, and the public API.
    if name == "main":
        from reviews.cli import main
        return main
    import reviews
    return getattr(reviews, name)


if __name__ == "__main__":
    run()
