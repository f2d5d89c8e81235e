"""The command line's plumbing: its output streams, its parser and its errors.

Whatever happens, the command ends with at most one line on stderr and an
exit status; the pieces here make that so for both subcommands.

    PROGRAM, SUITE_NAME     the command's name, the suite's name
    INTERRUPTED             the exit status after Ctrl-C
    BROKEN_PIPE             the exit status when the reader of a pipe leaves
    Stopped, stop_on        a SIGTERM or SIGHUP as an exception, and its handler
    UsageError              a command-line mistake (one line, exit 2)
    Finished                argparse is done (after --help)
    WriteFailed             a report that could not be written
    Output                  a stream as the command writes to it
    Parser                  argparse, raising instead of printing and exiting
    not_empty, exact_number, interval, add_format, add_output
                            argument types and the shared --format and --output options
    attached                an option's value joined to it, however it starts
    certificates_asked      --certificates as asked: only with --format json
    deliver                 a report to its file (written whole) or stream
    columns, write_notes    the terminal's width; notes, one line each
"""

import argparse
import io
import os
import signal

from reviews import SUITE_NAME
from reviews.formats.number_text import decimal_from_text
from reviews.shown import shown_name
from reviews.report.files import write_file

__all__ = ["PROGRAM", "SUITE_NAME", "INTERRUPTED", "BROKEN_PIPE", "Stopped", "stop_on",
           "UsageError", "Finished", "WriteFailed", "Output", "Parser", "not_empty",
           "exact_number", "interval", "attached", "add_format",
           "add_output", "certificates_asked", "deliver", "columns", "write_notes"]

PROGRAM = "counterexamples"
INTERRUPTED = 130   # 128 + SIGINT, as a shell reports it
# 128 + SIGPIPE: what a shell reports of a Unix tool whose reader left (yes | head).
BROKEN_PIPE = 141


class Stopped(Exception):
    """The command was told to stop by a signal (SIGTERM, SIGHUP): one
    line, exit status 128 + the signal's number."""

    def __init__(self, number, how):
        super().__init__(how)
        self.number, self.how = number, how


def stop_on(number, frame=None):
    """A signal handler: raise Stopped for SIGTERM or SIGHUP, as SIGINT raises
    KeyboardInterrupt, so that the command ends by the same path."""
    raise Stopped(number, "hung up" if number == getattr(signal, "SIGHUP", None)
                  else "terminated")


class UsageError(Exception):
    """A command-line mistake: reported in one line, exit status 2."""


class Finished(Exception):
    """argparse is done (after --help): exit with ``status``."""

    def __init__(self, status):
        super().__init__(status)
        self.status = status


class WriteFailed(Exception):
    """The report could not be written; ``message`` is None for a broken pipe."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class Output:
    """A stream as the command writes to it.

    Text the stream's encoding cannot show (a file name, say) is written
    with backslash escapes.  A write to a closed stream, a full disk or a
    pipe whose reader has gone raises WriteFailed; for the process's own
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
            raise WriteFailed("the stream is closed")
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
                raise WriteFailed(None) from None
            raise WriteFailed(getattr(error, "strerror", None) or str(error)) from None

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


class Parser(argparse.ArgumentParser):
    """argparse, with help on the command's output and errors raised, not printed."""

    def __init__(self, out, **keywords):
        super().__init__(**keywords)
        self.out = out

    def error(self, message):
        raise UsageError(message)

    def print_help(self, file=None):
        self.out.write(self.format_help())

    def exit(self, status=0, message=None):
        raise Finished(status)


def not_empty(what):
    """An argparse type: the text itself, refusing an empty string."""
    def check(text):
        if not text:
            raise argparse.ArgumentTypeError("expected %s, got an empty string" % what)
        return text
    return check


def exact_number(what, allowed):
    """An argparse type: a Decimal read as strictly as a number in a layer
    file (reviews.formats.number_text), for which ``allowed`` holds."""
    def read(text):
        try:
            value = decimal_from_text(text)
        except ValueError as why:
            # Why it is no number: the size limit's reason says what would be.
            raise argparse.ArgumentTypeError("expected %s, got %r: %s"
                                             % (what, text[:60], why)) from None
        if not allowed(value):
            raise argparse.ArgumentTypeError("expected %s, got %r" % (what, text[:60]))
        return value
    return read


def interval(text):
    """--inputs LO:HI: (low, high), each a Decimal read as exact_number
    reads one, or None for no end (-inf, inf, or nothing); "all" is
    (None, None), and "layernorm" and "rmsnorm" stay those words.

    >>> interval("-1:1"), interval("0:inf"), interval(":0.5"), interval("all")
    ((Decimal('-1'), Decimal('1')), (Decimal('0'), None), (None, Decimal('0.5')), (None, None))
    """
    if text in NORM_INPUTS:
        return text
    if text == "all":
        return (None, None)
    low, colon, high = text.partition(":")
    if not colon:
        raise argparse.ArgumentTypeError("expected LO:HI (0:inf, -1:1), all, layernorm or"
                                         " rmsnorm, got %r" % text[:60])
    ends = []
    for end, infinity in ((low, "-inf"), (high, "inf")):
        if end.strip() in ("", infinity, "+inf" if infinity == "inf" else infinity):
            ends.append(None)
        else:
            ends.append(exact_number("a number, or %s" % infinity, lambda value: True)(end))
    return tuple(ends)


NORM_INPUTS = ("layernorm", "rmsnorm")   # --inputs words for a final norm's outputs


def attached(argv, option):
    """``argv`` with ``option``'s value joined to it (--inputs=-1:1): a
    value that starts with "-" is no option's name, as typed."""
    argv = list(argv)
    for n, word in enumerate(argv[:-1]):
        if word == "--":
            break
        if word == option:
            argv[n:n + 2] = ["%s=%s" % (option, argv[n + 1])]
            return attached(argv, option)
    return argv


def add_format(parser, formats):
    parser.add_argument("--format", choices=sorted(formats), default="text",
                        help="report format (default: text)")


def add_output(parser):
    parser.add_argument("--output", metavar="FILE", type=_output,
                        help="write the report to FILE, not to standard output (- is"
                             " standard output)")


def _output(text):
    """--output FILE: a file name; - is standard output (None)."""
    return None if text == "-" else not_empty("a file name")(text)


def deliver(report, output, out):
    """Write the report to the file ``output``, or to ``out`` when None."""
    if output is None:
        out.write(report)
    else:
        write_file(output, report)


def columns(stream):
    """The width of the terminal ``stream`` shows on; 80 if it cannot say."""
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (AttributeError, OSError, ValueError):
        return 80


def write_notes(notes, err):
    """Each note as one line on ``err``, if it can be written."""
    for line in notes:
        try:
            err.write("%s: note: %s\n" % (PROGRAM, shown_name(line)))
        except WriteFailed:
            return   # a note is not worth failing the check for


def certificates_asked(arguments):
    """--certificates as asked ("all" by default); a UsageError with another
    format than json, whose reports list no certificate to choose from."""
    if arguments.certificates is None:
        return "all"
    if arguments.format != "json":
        raise UsageError("--certificates chooses what the JSON report lists; the %s report"
                         " lists no witnesses: add --format json, or leave it out"
                         % arguments.format)
    return arguments.certificates
