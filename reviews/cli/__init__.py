"""The command line: ``counterexamples`` and its subcommands ``check-layer``, ``merge``
and ``compare``.

    main        run the command line; return the exit status

The entry points (reviews/counterexamples.py as a script, ``python -m
reviews``, the installed ``counterexamples`` command) call ``main`` and exit
with its status; nothing here ends the process.  One module per subcommand:

    suite       the reviewed claims: run them, report them, draw figures
    layer       check-layer: a user's layer read, checked and reported
    merge       merge: shards of check-layer --classes joined into one report
    compare     compare: the verdicts that differ between two check-layer reports
    shard       check-layer --shard: the part of the classes one run decides
    streams     what both share: output streams, the parser, the errors
"""

import sys

from reviews import __version__
from reviews.cli.compare import compare_command
from reviews.cli.layer import check_layer_command
from reviews.cli.merge import merge_command
from reviews.cli.streams import (BROKEN_PIPE, INTERRUPTED, PROGRAM, SUITE_NAME, Finished, Output,
                                 Stopped, UsageError, WriteFailed)
from reviews.cli.suite import main_parser, run_claims
from reviews.errors import InputError
from reviews.shown import shown_name

__all__ = ["main"]


def _command(argv, out, err):
    if out.stream is None:
        raise WriteFailed("standard output is closed")
    if argv[:1] == ["check-layer"]:
        return check_layer_command(argv[1:], out, err)
    if argv[:1] == ["merge"]:
        return merge_command(argv[1:], out, err)
    if argv[:1] == ["compare"]:
        return compare_command(argv[1:], out, err)
    arguments = main_parser(out).parse_args(argv)
    if arguments.version:
        out.write("%s %s\n" % (SUITE_NAME, __version__))
        return 0
    return run_claims(arguments, out)


def main(argv=None, out=None, err=None):
    """Run the command line; return the exit status.

    ``out`` and ``err`` default to sys.stdout and sys.stderr.  Whatever
    happens, the command ends with at most one line on ``err`` and never a
    traceback: 2 for a usage error, bad input, or a report that could not
    be written; 141 (silently) when the reader of a pipe leaves early, as
    ``| head -1`` does; 130 when interrupted (Ctrl-C), 128 + the signal's
    number when stopped by SIGTERM or SIGHUP (Stopped); a check-layer run
    with a checkpoint says how many classes it keeps and how to resume.

    >>> import io
    >>> out, err = io.StringIO(), io.StringIO()
    >>> main(["--version"], out, err), out.getvalue().split()[0]
    (0, 'review-counterexamples')
    >>> main(["--bogus"], out, err), err.getvalue()
    (2, 'counterexamples: error: unrecognized arguments: --bogus\\n')
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    out = Output(sys.stdout if out is None else out, out is None)
    err = Output(sys.stderr if err is None else err, err is None)
    try:
        return _command(argv, out, err)
    except Finished as finished:
        return finished.status
    except (UsageError, InputError) as error:
        status, message = 2, "error: %s" % error
    except WriteFailed as failure:
        status = 2 if failure.message else BROKEN_PIPE
        message = failure.message and "error: cannot write the report: %s" % failure.message
    except KeyboardInterrupt as stop:
        status, message = INTERRUPTED, _stopped("interrupted", stop)
    except Stopped as stop:
        status, message = 128 + stop.number, _stopped(stop.how, stop)
    except MemoryError:
        status, message = 2, "error: out of memory (ask for fewer --jobs, or a smaller layer)"
    if message:
        try:
            # One line, whatever names the message holds.
            err.write("%s: %s\n" % (PROGRAM, shown_name(message)))
        except WriteFailed:
            pass   # stderr is closed or full too: the exit status says it
    return status


def _stopped(how, stop):
    """How the command was stopped, and what a checkpoint keeps (``resume``)."""
    resume = getattr(stop, "resume", None)
    return how if resume is None else "%s; %s" % (how, resume)
