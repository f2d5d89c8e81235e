"""The command: run the reviewed claims and print one verdict per claim.

    python reviews/counterexamples.py [--format text|markdown|json|html]
                                      [--claim ID ...] [--figures DIR]
                                      [--output FILE] [--list] [--version]
    python reviews/counterexamples.py check-layer FILE|--example NAME [--bias FILE]
                                      [--tensor NAME] [--bias-tensor NAME]
                                      [--vocab FILE] [--transpose] [--classes LIST]
                                      [--jobs N]
                                      [--box R] [--tolerance T] [--output FILE]
                                      [--format text|markdown|json]
                                      [--certificates all|unargmaxable]
                                      [--fail-on-unargmaxable] [--progress]
                                      [--checkpoint FILE]
    python reviews/counterexamples.py merge SHARD... [--format text|markdown|json]
                                      [--certificates all|unargmaxable]
                                      [--fail-on-unargmaxable] [--output FILE]

``--figures DIR`` also writes each run claim's SVG figures into DIR; the
report cites them by paths relative to the report's folder (FILE's with
``--output FILE``, else the current one).  ``--format html`` is one
self-contained page with every figure inline.  ``--output FILE`` writes
the report to FILE instead of standard output.  ``--list`` prints the
claims' ids, whose statements they are (the paper's, the review's own or
this suite's), the expected verdicts and who states them, and the
statements (``--format json``: a list of objects).  ``--claim`` takes an id or a paper's prefix
(``--claim low-rank``).
``check-layer`` reads FILE as .json, .csv, .tsv, .txt, .vec, .npy, .npz,
.safetensors or a torch checkpoint, or a model folder (see
reviews.formats.layers), or JSON or CSV text from standard input for ``-``;
``--example figure1`` checks the low-rank paper's Figure 1 layer, shipped
with the suite (reviews/data); ``--vocab FILE`` names the classes by their
tokens.  Notes from the reader (a header row skipped, the output layer
chosen by name, a layer that may be stored transposed) go to stderr, one
line each.  The report starts with the version, the files read (bytes,
SHA-256) and the tensors.  Its classes are
numbered from 0, as in the API and the claims.  ``--jobs N`` splits the classes across N worker processes (by
default one per CPU, but one for a small layer); the report is the same
for every N.  On a terminal, a long check shows on stderr the classes
done, the rate and the time left, on one line wiped at the end; with
``--progress``, a log gets the same as a plain line every few seconds.
``--certificates unargmaxable`` keeps the JSON of a large layer small:
only the unargmaxable classes' combinations, no witnesses.  ``--classes
LIST`` (``0:1000``, ``3,17,40:50``, ``@FILE``) decides only those classes,
each against every row.  A claim that ``--list`` shows as ``--claim``
runs only when ``--claim`` selects it.

Exit status: 0 when every verdict is the one expected, 1 when any
differs (a MISMATCH line says which), 2 for a usage error, an unreadable
layer file, a figure folder that cannot be written, or a report that cannot
be written (standard output closed or full), 141 when the reader of a pipe
leaves early (as ``| head -1`` does: silently, as Unix tools end), 130 when
interrupted (Ctrl-C), 143 on SIGTERM and 129 on SIGHUP (with a checkpoint,
the line says how many classes it keeps and that the same command
resumes).  Each failure is one line on stderr, never a traceback.  ``check-layer`` exits 0
whenever the layer was checked, whatever the verdicts; with
``--fail-on-unargmaxable``, 1 when any class is unargmaxable.  Text the output's
encoding cannot show (a file name) is written with backslash escapes.

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
