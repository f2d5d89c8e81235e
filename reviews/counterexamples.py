"""The command: run the reviewed claims and print one verdict per claim.

    python reviews/counterexamples.py [--format text|markdown|json]
                                      [--claim ID ...] [--list] [--version]

Exit status: 0 when every verdict is the one the review states, 1 when any
differs (a MISMATCH line says which), 2 for a usage error (one line on
stderr).  This module also re-exports the public API:

    softmax, log_softmax, logsumexp, softmax_exact, log_softmax_exact,
    logsumexp_exact, ulp_distance, InputError, main
"""

import os
import sys

if __name__ == "__main__" and not __package__:
    # Run as a script, sys.path[0] is reviews/ itself: put the repository
    # root there instead, so that the package imports as a package.
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

import argparse
import platform

from reviews import __version__
from reviews.claims import all_claims, run, select
from reviews.errors import InputError
from reviews.report import FORMATS, Suite, all_match
from reviews.softmax import (
    log_softmax,
    log_softmax_exact,
    logsumexp,
    logsumexp_exact,
    softmax,
    softmax_exact,
    ulp_distance,
)

__all__ = [
    "softmax", "log_softmax", "logsumexp",
    "softmax_exact", "log_softmax_exact", "logsumexp_exact", "ulp_distance",
    "InputError", "main",
]

SUITE_NAME = "review-counterexamples"
_PROGRAM = "counterexamples"


class _UsageError(Exception):
    """A command-line mistake: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _UsageError(message)


def _main_parser():
    parser = _Parser(prog=_PROGRAM, description="Check the claims of reviewed papers.")
    parser.add_argument("--format", choices=sorted(FORMATS), default="text",
                        help="report format (default: text)")
    parser.add_argument("--claim", action="append", default=[], metavar="ID",
                        help="run only this claim (repeatable)")
    parser.add_argument("--list", action="store_true", help="list claim ids and statements")
    parser.add_argument("--version", action="store_true", help="print the suite's version")
    return parser


def _run_claims(arguments, out):
    claims = all_claims()
    if arguments.list:
        for claim in claims:
            out.write("%s  %s\n" % (claim.id, claim.statement))
        return 0
    results = run(select(claims, arguments.claim) if arguments.claim else claims)
    suite = Suite(SUITE_NAME, __version__, platform.python_version())
    out.write(FORMATS[arguments.format](suite, results))
    return 0 if all_match(results) else 1


def main(argv=None, out=None, err=None):
    """Run the command line; return the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    try:
        arguments = _main_parser().parse_args(argv)
        if arguments.version:
            out.write("%s %s\n" % (SUITE_NAME, __version__))
            return 0
        return _run_claims(arguments, out)
    except (_UsageError, InputError) as error:
        err.write("%s: error: %s\n" % (_PROGRAM, error))
        return 2


if __name__ == "__main__":
    sys.exit(main())
