"""The reviewed claims as a command: run them, report them, draw their figures.

    main_parser     the options of ``counterexamples`` without a subcommand
    run_claims      run the selected claims and deliver the report
"""

import argparse
import os
import platform

from reviews import __version__
from reviews.claims import default_claims, run, scope_line, select
from reviews.cli.streams import (PROGRAM, SUITE_NAME, Parser, UsageError, add_output,
                                 deliver, not_empty)
from reviews.errors import InputError
from reviews.shown import shown_name
from reviews.papers import all_claims
from reviews.report.files import refuse_figures, refuse_folder, write_file
from reviews.report.html import html
from reviews.report.verdicts import FORMATS, Drawn, Suite, all_match, listing

__all__ = ["main_parser", "run_claims"]

REPORTS = dict(FORMATS, html=html)
_COMMANDS = """\
command:
  check-layer FILE  decide exactly which classes of a softmax layer are argmaxable
                    (options: %s check-layer --help)
  merge SHARD ...   join the JSON reports of check-layer --classes into one
                    (options: %s merge --help)
  compare A B       the classes whose verdict differs between two JSON reports
                    of check-layer (options: %s compare --help)""" % (PROGRAM, PROGRAM, PROGRAM)


def main_parser(out):
    parser = Parser(out, prog=PROGRAM, description="Check the claims of reviewed papers.",
                     epilog=_COMMANDS, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--format", choices=sorted(REPORTS), default="text",
                        help="report format (default: text); html is one self-contained"
                             " page with the figures inline")
    parser.add_argument("--claim", action="append", default=[], metavar="ID",
                        type=not_empty("a claim id (see --list)"),
                        help="run only this claim, or a paper's claims by the prefix of"
                             " their ids (low-rank); repeatable; a claim that --list shows"
                             " as runs --claim runs only so")
    parser.add_argument("--figures", metavar="DIR", type=not_empty("a folder name"),
                        help="also write the claims' SVG figures into DIR (created if missing)")
    add_output(parser)
    parser.add_argument("--list", action="store_true",
                        help="list the claims: id, whose statement (paper, review or"
                             " suite), the expected verdict and whose it is (the review's"
                             " where it judges the paper's claim, else this suite's), when"
                             " it runs (default, or only with --claim), the statement")
    parser.add_argument("--version", action="store_true", help="print the suite's version")
    return parser


def run_claims(arguments, out):
    claims = all_claims()
    if arguments.claim:
        claims = select(claims, arguments.claim)
    elif not arguments.list:
        claims = default_claims(claims)
    if arguments.list:
        if arguments.format == "html":
            raise UsageError("--list takes --format text, markdown or json, not html")
        deliver(listing(claims, arguments.format), arguments.output, out)
        return 0
    refuse_folder(arguments.output, arguments.figures)
    if arguments.figures:
        refuse_figures(arguments.output, [os.path.join(arguments.figures, figure.name)
                                          for claim in claims for figure in claim.figures])
        _make_folder(arguments.figures)
    results = run(claims)
    figures = {}
    if arguments.figures or arguments.format == "html":
        figures = _draw_figures(results, arguments.figures, arguments.output)
    suite = Suite(SUITE_NAME, __version__, platform.python_version(), scope_line(claims))
    deliver(REPORTS[arguments.format](suite, results, figures), arguments.output, out)
    return 0 if all_match(results) else 1


def _make_folder(folder):
    """Create the figure folder before the claims run, so that a bad one fails at once."""
    try:
        os.makedirs(folder, exist_ok=True)
    except FileExistsError:
        raise InputError("cannot write figures to %s: it is a file, not a folder"
                         % shown_name(folder)) from None
    except OSError as error:
        raise InputError("cannot write figures to %s: %s"
                         % (shown_name(folder), error.strerror or error)) from None


def _draw_figures(results, folder, output):
    """Draw every figure of the results' claims, writing each into ``folder``
    unless it is None; {claim id: [Drawn]}, each written one cited by its
    path relative to the report's folder."""
    drawn = {}
    for result in results:
        for figure in result.claim.figures:
            svg, path = figure.draw(), None
            if folder is not None:
                written = os.path.join(folder, figure.name)
                write_file(written, svg, "a figure")
                path = _relative(written, output)
            drawn.setdefault(result.claim.id, []).append(
                Drawn(figure.name, figure.caption(), svg, path))
    return drawn


def _relative(path, output):
    """``path`` relative to the folder of the report ``output`` (the current
    folder for standard output), with "/" between names, as a link needs."""
    base = os.path.dirname(os.path.abspath(output)) if output else os.getcwd()
    try:
        path = os.path.relpath(os.path.abspath(path), base)
    except ValueError:   # Windows: another drive, no relative path exists
        path = os.path.abspath(path)
    return path.replace(os.sep, "/")
