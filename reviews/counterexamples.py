"""The command: run the reviewed claims and print one verdict per claim.

    python reviews/counterexamples.py [--format text|markdown|json]
                                      [--claim ID ...] [--figures DIR]
                                      [--list] [--version]
    python reviews/counterexamples.py check-layer FILE [--bias FILE]
                                      [--format text|json]

``--figures DIR`` also writes each run claim's SVG figures into DIR.

Exit status: 0 when every verdict is the one the review states, 1 when any
differs (a MISMATCH line says which), 2 for a usage error, an unreadable
layer file or a figure folder that cannot be written (one line on stderr).
``check-layer`` exits 0 whenever the layer was checked, whatever the
verdicts.  This module also re-exports the public API:

    softmax, log_softmax, logsumexp, softmax_exact, log_softmax_exact,
    logsumexp_exact, ulp_distance, check_layer, region_count, verify,
    InputError, main
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
from reviews.argmaxable import check_layer, verify
from reviews.claims import all_claims, run, select
from reviews.errors import InputError
from reviews.layer_files import read_layer
from reviews.regions import region_count
from reviews.report import FORMATS, LAYER_FORMATS, Suite, all_match
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
    "check_layer", "region_count", "verify", "InputError", "main",
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
    parser.add_argument("--figures", metavar="DIR",
                        help="also write the claims' SVG figures into DIR (created if missing)")
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
    figures = _write_figures(arguments.figures, results) if arguments.figures else {}
    suite = Suite(SUITE_NAME, __version__, platform.python_version())
    out.write(FORMATS[arguments.format](suite, results, figures))
    return 0 if all_match(results) else 1


def _write_figures(folder, results):
    """Write every figure of the results' claims; {claim id: [paths]}."""
    written = {}
    try:
        os.makedirs(folder, exist_ok=True)
        for result in results:
            for figure in result.claim.figures:
                path = os.path.join(folder, figure.name)
                with open(path, "w", encoding="utf-8", newline="\n") as handle:
                    handle.write(figure.draw())
                written.setdefault(result.claim.id, []).append(path)
    except OSError as error:
        raise InputError("cannot write figures to %s: %s"
                         % (folder, error.strerror or error)) from None
    return written


def _layer_parser():
    parser = _Parser(prog=_PROGRAM + " check-layer",
                     description="Decide exactly which classes of a softmax layer are argmaxable.")
    parser.add_argument("file", help="the layer: .json, .csv or .npy")
    parser.add_argument("--bias", metavar="FILE", help="the bias, if not in FILE")
    parser.add_argument("--format", choices=sorted(LAYER_FORMATS), default="text",
                        help="report format (default: text)")
    return parser


def _progress(err):
    """A progress callback that redraws one line on a terminal, else None."""
    if not (hasattr(err, "isatty") and err.isatty()):
        return None

    def show(done, total):
        if done == total:
            err.write("\r%s\r" % (" " * 40))
        elif done % max(1, total // 100) == 0:
            err.write("\rchecked %d/%d classes" % (done, total))
        err.flush()
    return show


def _check_layer_command(argv, out, err):
    arguments = _layer_parser().parse_args(argv)
    weights, bias = read_layer(arguments.file, arguments.bias)
    try:
        results = check_layer(weights, bias, progress=_progress(err))
    except InputError as error:
        raise InputError("%s: %s" % (arguments.file, error)) from None
    render = LAYER_FORMATS[arguments.format]
    out.write(render(arguments.file, results, len(weights[0]), bias is not None))
    return 0


def main(argv=None, out=None, err=None):
    """Run the command line; return the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    try:
        if argv[:1] == ["check-layer"]:
            return _check_layer_command(argv[1:], out, err)
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
