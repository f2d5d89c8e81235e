"""The command: run the reviewed claims and print one verdict per claim.

    python reviews/counterexamples.py [--format text|markdown|json|html]
                                      [--claim ID ...] [--figures DIR]
                                      [--output FILE] [--list] [--version]
    python reviews/counterexamples.py check-layer FILE|--example NAME [--bias FILE]
                                      [--tensor NAME] [--bias-tensor NAME]
                                      [--vocab FILE] [--transpose] [--jobs N]
                                      [--box R] [--tolerance T] [--output FILE]
                                      [--format text|markdown|json]
                                      [--certificates all|unargmaxable]
                                      [--fail-on-unargmaxable] [--progress]

``--figures DIR`` also writes each run claim's SVG figures into DIR; the
report cites them by paths relative to the report's folder (FILE's with
``--output FILE``, else the current one).  ``--format html`` is one
self-contained page with every figure inline.  ``--output FILE`` writes
the report to FILE instead of standard output.  ``--list`` prints the
claims' ids, whose statements they are (the paper's or the review's own),
the verdicts the review states and the statements (``--format json``: a
list of objects).  ``--claim`` takes an id or a paper's prefix
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
numbered from 0, as in the API; the claims number classes as their papers
do.  ``--jobs N`` splits the classes across N worker processes (by
default one per CPU, but one for a small layer); the report is the same
for every N.  On a terminal, a long check shows on stderr the classes
done, the rate and the time left, on one line wiped at the end; with
``--progress``, a log gets the same as a plain line every few seconds.
``--certificates unargmaxable`` keeps the JSON of a large layer small:
only the unargmaxable classes' combinations, no witnesses.

Exit status: 0 when every verdict is the one the review states, 1 when any
differs (a MISMATCH line says which), 2 for a usage error, an unreadable
layer file, a figure folder that cannot be written, or a report that cannot
be written (standard output closed or full; a pipe closed early, as by
``| head -1``, ends it silently), 130 when interrupted (Ctrl-C).  Each
failure is one line on stderr, never a traceback.  ``check-layer`` exits 0
whenever the layer was checked, whatever the verdicts; with
``--fail-on-unargmaxable``, 1 when any class is unargmaxable.  Text the output's
encoding cannot show (a file name) is written with backslash escapes.

This module also re-exports the public API:

    softmax, log_softmax, logsumexp, softmax_exact, log_softmax_exact,
    logsumexp_exact, ulp_distance, check_layer, region_count, verify,
    InputError, main
"""

import os
import signal
import sys

_PROGRAM = "counterexamples"
_INTERRUPTED = 130   # 128 + SIGINT, as a shell reports it


def _interrupted_early(number, frame):
    # Ctrl-C while the package imports, before main() can catch it.
    try:
        sys.stderr.write("%s: interrupted\n" % _PROGRAM)
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):
        pass   # no stderr to write to: the exit status says it
    raise SystemExit(_INTERRUPTED)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, _interrupted_early)

if sys.version_info < (3, 9):
    # One line and the usage status, not a traceback from a missing function.
    sys.stderr.write("counterexamples: error: needs Python 3.9 or newer, not %d.%d\n"
                     % sys.version_info[:2])
    sys.exit(2)

if __name__ == "__main__" and not __package__:
    # Run as a script, sys.path[0] is reviews/ itself: put the repository
    # root there instead, so that the package imports as a package.
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

import argparse
import io
import json
import platform
import re

from reviews import __version__
from reviews.argmax.check import check_layer, verify
from reviews.argmax.tolerance import radii
from reviews.claims import run, select
from reviews.papers import all_claims
from reviews.errors import InputError
from reviews.formats.source import STDIN, file_digest, shown_name
from reviews.formats.text import decimal_from_text
from reviews.report.files import refuse_inputs, write_file
from reviews.report.html import html
from reviews.formats.layers import read_model
from reviews.report.progress import Progress
from reviews.argmax.regions import region_count
from reviews.report.text import (
    CERTIFICATES, FORMATS, LAYER_FORMATS, Drawn, Provenance, Suite, all_match, listing,
    version_line,
)
from reviews.softmax import (
    log_softmax,
    log_softmax_exact,
    logsumexp,
    logsumexp_exact,
    softmax,
    softmax_exact,
    ulp_distance,
)
from reviews.argmax.workers import job_count, start_method

__all__ = [
    "softmax", "log_softmax", "logsumexp",
    "softmax_exact", "log_softmax_exact", "logsumexp_exact", "ulp_distance",
    "check_layer", "region_count", "verify", "InputError", "main",
]

SUITE_NAME = "review-counterexamples"
_REPORTS = dict(FORMATS, html=html)
EXAMPLES = {"figure1": "figure1.json"}   # --example NAME: files in reviews/data


class _UsageError(Exception):
    """A command-line mistake: reported in one line, exit status 2."""


class _Finished(Exception):
    """argparse is done (after --help): exit with ``status``."""

    def __init__(self, status):
        super().__init__(status)
        self.status = status


class _WriteFailed(Exception):
    """The report could not be written; ``message`` is None for a broken pipe."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class _Output:
    """A stream as the command writes to it.

    Text the stream's encoding cannot show (a file name, say) is written
    with backslash escapes.  A write to a closed stream, a full disk or a
    pipe whose reader has gone raises _WriteFailed; for the process's own
    standard stream, the stream is then pointed at os.devnull so that the
    interpreter's final flush of what is still buffered neither fails nor
    prints.
    """

    def __init__(self, stream, standard):
        self.stream = stream
        self.standard = standard

    def isatty(self):
        try:
            return bool(self.stream is not None and self.stream.isatty())
        except (AttributeError, OSError, ValueError):   # no such method, or closed
            return False

    def write(self, text):
        if self.stream is None:
            raise _WriteFailed("the stream is closed")
        try:
            binary = getattr(self.stream, "buffer", None)
            if isinstance(binary, io.RawIOBase):
                # Unbuffered (python -u, PYTHONUNBUFFERED): a raw write may take
                # part of the text (a pipe whose reader left), and the text
                # layer would drop the rest without a word.
                self.stream.flush()
                data = text.replace("\n", os.linesep).encode(self.stream.encoding,
                                                             "backslashreplace")
                _write_all(binary, data)
            else:
                try:
                    self.stream.write(text)
                except UnicodeEncodeError:
                    encoding = self.stream.encoding
                    self.stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
                self.stream.flush()
        except (OSError, ValueError) as error:   # ValueError: the file was closed
            self._discard()
            if isinstance(error, BrokenPipeError):
                raise _WriteFailed(None) from None
            raise _WriteFailed(getattr(error, "strerror", None) or str(error)) from None

    def _discard(self):
        if not self.standard:
            return
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.stream.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass   # nothing more can be done for a stream that has no descriptor


def _write_all(raw, data):
    """Every byte of ``data`` to the raw stream, or the OSError that stopped it."""
    view = memoryview(data)
    while view:
        written = raw.write(view)
        if written is None:   # a non-blocking stream that would block
            raise BlockingIOError(0, "the stream would block")
        view = view[written:]


class _Parser(argparse.ArgumentParser):
    """argparse, with help on the command's output and errors raised, not printed."""

    def __init__(self, out, **keywords):
        super().__init__(**keywords)
        self.out = out

    def error(self, message):
        raise _UsageError(message)

    def print_help(self, file=None):
        self.out.write(self.format_help())

    def exit(self, status=0, message=None):
        raise _Finished(status)


def _not_empty(what):
    """An argparse type: the text itself, refusing an empty string."""
    def check(text):
        if not text:
            raise argparse.ArgumentTypeError("expected %s, got an empty string" % what)
        return text
    return check


_LAYER_FILES = (".json, .csv, .tsv, .txt, .vec, .npy, .npz, .safetensors, .bin, .pt or .pth,"
                " or a model folder (config.json and weights) or its *.index.json; - reads"
                " JSON or CSV from stdin")
_COMMANDS = """\
command:
  check-layer FILE  decide exactly which classes of a softmax layer are argmaxable
                    (options: %s check-layer --help)""" % _PROGRAM


def _main_parser(out):
    parser = _Parser(out, prog=_PROGRAM, description="Check the claims of reviewed papers.",
                     epilog=_COMMANDS, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--format", choices=sorted(_REPORTS), default="text",
                        help="report format (default: text); html is one self-contained"
                             " page with the figures inline")
    parser.add_argument("--claim", action="append", default=[], metavar="ID",
                        type=_not_empty("a claim id (see --list)"),
                        help="run only this claim, or a paper's claims by the prefix of"
                             " their ids (low-rank); repeatable")
    parser.add_argument("--figures", metavar="DIR", type=_not_empty("a folder name"),
                        help="also write the claims' SVG figures into DIR (created if missing)")
    _add_output(parser)
    parser.add_argument("--list", action="store_true",
                        help="list the claims: id, whose statement (paper or review),"
                             " the verdict the review states, the statement")
    parser.add_argument("--version", action="store_true", help="print the suite's version")
    return parser


def _add_output(parser):
    parser.add_argument("--output", metavar="FILE", type=_not_empty("a file name"),
                        help="write the report to FILE, not to standard output")


def _run_claims(arguments, out):
    claims = all_claims()
    claims = select(claims, arguments.claim) if arguments.claim else claims
    if arguments.list:
        _deliver(listing(claims, arguments.format), arguments.output, out)
        return 0
    if arguments.figures:
        _make_folder(arguments.figures)
    results = run(claims)
    figures = {}
    if arguments.figures or arguments.format == "html":
        figures = _draw_figures(results, arguments.figures, arguments.output)
    suite = Suite(SUITE_NAME, __version__, platform.python_version())
    _deliver(_REPORTS[arguments.format](suite, results, figures), arguments.output, out)
    return 0 if all_match(results) else 1


def _deliver(report, output, out):
    """Write the report to the file ``output``, or to ``out`` when None."""
    if output is None:
        out.write(report)
    else:
        write_file(output, report)


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
                Drawn(figure.name, figure.description, svg, path))
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


def _layer_parser(out):
    parser = _Parser(out, prog=_PROGRAM + " check-layer",
                     description="Decide exactly which classes of a softmax layer are"
                                 " argmaxable.  Classes are numbered from 0.")
    parser.add_argument("file", metavar="FILE", type=_not_empty("a file name"), nargs="?",
                        help="the layer, one row of weights per class: %s" % _LAYER_FILES)
    parser.add_argument("--example", choices=sorted(EXAMPLES),
                        help="check a layer shipped with the suite instead of FILE: figure1 is"
                             " the low-rank paper's Figure 1 (4 classes, d = 2, class 3"
                             " unargmaxable)")
    parser.add_argument("--bias", metavar="FILE", type=_not_empty("a file name"),
                        help="the bias, one number per class, if not in FILE")
    parser.add_argument("--tensor", metavar="NAME", type=_not_empty("an array name"),
                        help="the weights' array in a model, .npz or .safetensors FILE"
                             " (needed unless it is the only 2-D one or the model's output"
                             " layer by name)")
    parser.add_argument("--bias-tensor", metavar="NAME", type=_not_empty("an array name"),
                        help="the bias's array, in the --bias file if given, else in FILE")
    parser.add_argument("--vocab", metavar="FILE", type=_not_empty("a file name"),
                        help="name each class by its token: tokenizer.json, vocab.json,"
                             " vocab.txt, a sentencepiece .vocab or one token per line (a"
                             " model folder's own is read without it)")
    parser.add_argument("--transpose", action="store_true",
                        help="the weights are stored as (d, C): one column per class")
    parser.add_argument("--jobs", metavar="N", type=_jobs,
                        help="worker processes to split the classes across (default, and 0:"
                             " one per CPU, %d here, but one for a small layer; never more"
                             " than the CPUs); the output is the same for every N"
                             % job_count(None))
    parser.add_argument("--box", metavar="R", type=_box,
                        help="only inputs with |x_k| <= R for every k, the question the"
                             " paper's detector answers (it uses R = 100)")
    parser.add_argument("--tolerance", metavar="T", type=_tolerance, default=0,
                        help="a class passes only where a ball of radius above T wins (the"
                             " paper's detector: T = 1e-8 with --box 100); default 0")
    parser.add_argument("--format", choices=sorted(LAYER_FORMATS), default="text",
                        help="report format (default: text)")
    parser.add_argument("--certificates", choices=CERTIFICATES, default="all",
                        help="the classes whose certificates the JSON lists (default: all;"
                             " unargmaxable: their combinations only, no witnesses, for a"
                             " small file from a large layer)")
    parser.add_argument("--fail-on-unargmaxable", action="store_true",
                        help="exit 1 when any class is unargmaxable (a gate for CI)")
    parser.add_argument("--progress", action="store_true",
                        help="show progress on stderr when it is not a terminal too: a plain"
                             " line every few seconds, for CI logs")
    _add_output(parser)
    return parser


def _jobs(text):
    """--jobs N: a whole number, 0 (None) for one process per CPU."""
    if not _WHOLE_NUMBER.fullmatch(text):
        raise argparse.ArgumentTypeError("expected a whole number of processes, got %r"
                                         % text[:60])
    return int(text) or None


_WHOLE_NUMBER = re.compile(r"[0-9]{1,4}")   # ASCII digits only, as in a layer file

# One process per CPU pays only for a layer whose check takes a good deal
# longer than starting the processes: measured, about 0.03 s under fork,
# 0.4 s under spawn (each one imports the package).  The check of a class
# costs about one pass over the layer (C * d products) plus a fixed part
# worth some 8192 of them (its exact linear programs); one process checks
# a layer below this much in all: about 0.1 s under fork, 1 s otherwise.
_CLASS_WORK = 8192
_PARALLEL_WORK = 1 << 21
_PARALLEL_WORK_IMPORTING = 1 << 24   # under spawn or forkserver


def _jobs_for(jobs, classes, dim, method="fork"):
    """The processes for ``--jobs``: N as asked, at most one per usable
    CPU; for one per CPU (None), one process for a layer too small to gain
    from more, and a larger one when processes start by ``method`` "spawn"
    or "forkserver" than "fork".

    >>> _jobs_for(1, 4, 2), _jobs_for(None, 4, 2)
    (1, 1)
    >>> _jobs_for(None, 1000, 4) == _jobs_for(1000, 1000, 4) == job_count(None)
    True
    >>> _jobs_for(None, 1000, 4, "spawn")
    1
    """
    least = _PARALLEL_WORK if method == "fork" else _PARALLEL_WORK_IMPORTING
    if jobs is None and classes * (classes * dim + _CLASS_WORK) < least:
        return 1
    return min(job_count(jobs), job_count(None))


# The radii cost about 2 * C * d exact products per argmaxable class (each
# class's margins and distances at its witness), several times the check's
# own cost past this size.
_RADIUS_WORK = 1 << 26


def _box(text):
    """--box R: a positive number, read as strictly as a number in a layer file."""
    return _number(text, lambda value: value > 0, "a positive number")


def _tolerance(text):
    """--tolerance T: a number of 0 or more, read as strictly as --box."""
    return _number(text, lambda value: value >= 0, "a number of 0 or more")


def _number(text, allowed, expected):
    value = decimal_from_text(text)
    if isinstance(value, str) or not allowed(value):
        raise argparse.ArgumentTypeError("expected %s, got %r" % (expected, text[:60]))
    return value


def _columns(stream):
    """The width of the terminal ``stream`` shows on; 80 if it cannot say."""
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (AttributeError, OSError, ValueError):
        return 80


def _write_notes(notes, err):
    """Each note as one line on ``err``, if it can be written."""
    for line in notes:
        try:
            err.write("%s: note: %s\n" % (_PROGRAM, shown_name(line)))
        except _WriteFailed:
            return   # a note is not worth failing the check for


def _shown(path):
    """A file name as the reader's messages show it: - is standard input."""
    return STDIN if path == "-" else path


def _example_path(name):
    """The shipped example layer ``name`` (package data, so installed too)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", EXAMPLES[name])


def _check_layer_command(argv, out, err):
    arguments = _layer_parser(out).parse_args(argv)
    if (arguments.file is None) == (arguments.example is None):
        raise _UsageError("check-layer needs FILE or --example NAME (one of them)")
    if arguments.example is not None:
        arguments.file = _example_path(arguments.example)
    if arguments.output is not None:
        refuse_inputs(arguments.output, (arguments.file, arguments.bias))
    # The reader's messages and notes already start with the file they are about.
    # Notes are held until the layer is checked: a layer that the reader or
    # the checker refuses gets its one error line only.
    notes = []
    name, bias_name = _shown(arguments.file), _shown(arguments.bias)
    if arguments.example is not None:
        name = "example:%s" % arguments.example   # the same wherever the suite is installed
    shown, bias_shown = shown_name(name), bias_name and shown_name(bias_name)
    progress = None
    if err.isatty():
        progress = Progress(err, failure=_WriteFailed, columns=_columns(err.stream))
    elif arguments.progress:
        progress = Progress(err, failure=_WriteFailed, plain=True)
    try:
        if progress is not None:
            progress.status("reading %s" % shown)
        layer = read_model(arguments.file, arguments.bias, tensor=arguments.tensor,
                           bias_tensor=arguments.bias_tensor, transpose=arguments.transpose,
                           vocab=arguments.vocab, note=notes.append)
        if arguments.output is not None:
            # A model folder names its files only as it is read; the report is not written yet.
            refuse_inputs(arguments.output, layer.files)
        weights, bias = layer.weights, layer.bias
        jobs = _jobs_for(arguments.jobs, len(weights), len(weights[0]), start_method())
        if arguments.jobs is not None and jobs < arguments.jobs:
            # "At most": a one-dimensional layer, or one class left to decide
            # after its twins, is checked in this process whatever is asked.
            notes.append("--jobs %d: %d CPU%s usable here, so at most %d worker process%s"
                         " (more only take turns)" % (arguments.jobs, jobs,
                                                      "" if jobs == 1 else "s", jobs,
                                                      "" if jobs == 1 else "es"))
        if progress is not None:
            progress.status("preparing %d classes of dimension %d"
                            % (len(weights), len(weights[0])))
        try:
            results = check_layer(weights, bias, progress=progress, box=arguments.box,
                                  jobs=jobs, tolerance=arguments.tolerance)
            found = None
            if len(weights) ** 2 * len(weights[0]) <= _RADIUS_WORK:
                found = radii(weights, bias, results)
            else:
                notes.append("no radius reported: a layer past C * C * d = 2**26 would take"
                             " minutes more (pass --tolerance T to ask about a ball of radius"
                             " above T)")
        except InputError as error:
            # check_layer's messages about the bias start with "bias", those
            # about the whole layer (its spread) with "the layer's".
            message = str(error)
            if arguments.bias is not None and message.startswith("the layer's"):
                shown = "%s with bias %s" % (shown, bias_shown)
            elif arguments.bias is not None and message.startswith("bias"):
                shown = bias_shown
            raise InputError("%s: %s" % (shown, message)) from None
    finally:
        if progress is not None:
            progress.wipe()
    _write_notes(notes, err)
    render = LAYER_FORMATS[arguments.format]
    provenance = Provenance(
        version_line(Suite(SUITE_NAME, __version__, platform.python_version())),
        [(name if arguments.example is not None and path == arguments.file else path,)
         + file_digest(path) for path in layer.files], layer.weights_tensor,
        layer.bias_tensor, arguments.transpose)
    shown = {"certificates": arguments.certificates} if arguments.format == "json" else {}
    _deliver(render(name, results, len(weights[0]), bias is not None, found, tokens=layer.tokens,
                    provenance=provenance, **shown), arguments.output, out)
    if arguments.fail_on_unargmaxable and not all(r.argmaxable for r in results):
        return 1
    return 0


def _command(argv, out, err):
    if out.stream is None:
        raise _WriteFailed("standard output is closed")
    if argv[:1] == ["check-layer"]:
        return _check_layer_command(argv[1:], out, err)
    arguments = _main_parser(out).parse_args(argv)
    if arguments.version:
        out.write("%s %s\n" % (SUITE_NAME, __version__))
        return 0
    return _run_claims(arguments, out)


def main(argv=None, out=None, err=None):
    """Run the command line; return the exit status.

    ``out`` and ``err`` default to sys.stdout and sys.stderr.  Whatever
    happens, the command ends with at most one line on ``err`` and never a
    traceback: 2 for a usage error, bad input, or a report that could not
    be written (silently for a pipe closed early, as by ``| head -1``);
    130 when interrupted (Ctrl-C).
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    out = _Output(sys.stdout if out is None else out, out is None)
    err = _Output(sys.stderr if err is None else err, err is None)
    try:
        return _command(argv, out, err)
    except _Finished as finished:
        return finished.status
    except (_UsageError, InputError) as error:
        status, message = 2, "error: %s" % error
    except _WriteFailed as failure:
        status = 2
        message = failure.message and "error: cannot write the report: %s" % failure.message
    except KeyboardInterrupt:
        status, message = _INTERRUPTED, "interrupted"
    except MemoryError:
        status, message = 2, "error: out of memory (ask for fewer --jobs, or a smaller layer)"
    if message:
        try:
            # One line, whatever names the message holds.
            err.write("%s: %s\n" % (_PROGRAM, shown_name(message)))
        except _WriteFailed:
            pass   # stderr is closed or full too: the exit status says it
    return status


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)   # main() handles it now
    sys.exit(main())
