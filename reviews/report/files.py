"""Writing a report or a figure to a file, whole or not at all, never over an input.

A report is written to a temporary file in the target's folder, then renamed
over the target (os.replace, atomic on POSIX and Windows): a run that fails
or is interrupted while writing leaves the target as it was, never half
written or emptied.  A target that is not a regular file (a terminal,
/dev/stdout, a FIFO) cannot be replaced and is written in place.  A
symbolic link is followed: the file it names is replaced, the link kept.

    write_file      write text to a file, atomically where it is a regular file
    refuse_inputs   InputError if the output is the same file as an input
    refuse_figures  InputError if the output is a figure file the run writes
    refuse_folder   InputError if the output is a folder, or the figures' folder
"""

import errno
import os
import stat

from reviews.errors import InputError
from reviews.shown import shown_name

__all__ = ["write_file", "refuse_inputs", "refuse_figures", "refuse_folder"]

_ATTEMPTS = 100


def refuse_inputs(output, inputs, option="--output"):
    """InputError if the file ``output`` (given as ``option``) is the same
    file as one of ``inputs`` (same device and inode, through links too);
    None names no file, "-" the file standard input reads, if any (<
    layer.csv).  Checked before any input is read, so that a report never
    replaces the data it is about."""
    try:
        target = os.stat(output)
    except (OSError, ValueError):
        return   # no such file yet: it can be no input
    for path in inputs:
        if path is None:
            continue
        try:
            status = os.fstat(0) if path == "-" else os.stat(path)
        except (OSError, ValueError):
            continue   # the reader names what is wrong with it
        if (status.st_dev, status.st_ino) == (target.st_dev, target.st_ino):
            raise InputError("%s %s is the input file %s; refusing to overwrite it"
                             % (option, shown_name(output), "<stdin>" if path == "-"
                                else shown_name(path)))


def refuse_figures(output, figures):
    """InputError if the file ``output`` is one of the files ``figures``
    (paths the run writes figures to, which need not exist yet); None
    (standard output) is none of them.  Checked before any figure is
    written: the report would replace the figure, and a page show itself.
    Names are compared after following links, so that DIR/./figure1.svg,
    a link to it, and DIR/figure1.svg are one file.

    >>> refuse_figures("report.html", ["figures/figure1.svg"])
    >>> refuse_figures(None, ["figures/figure1.svg"])
    >>> refuse_figures("figures/../figures/figure1.svg", ["figures/figure1.svg"])
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: --output figures/../figures/figure1.svg is the figure \
figures/figure1.svg that this run writes; refusing to overwrite it
    """
    if output is None:
        return
    target = _resolved(output)
    for figure in figures:
        if _resolved(figure) == target:
            raise InputError("--output %s is the figure %s that this run writes;"
                             " refusing to overwrite it" % (shown_name(output),
                                                            shown_name(figure)))


def refuse_folder(output, figures=None):
    """InputError if the file ``output`` is a folder, or the folder
    ``figures`` that the run makes for its figures (which need not exist
    yet); None (standard output) is neither.  Checked before any work or
    any folder is made: the report could only fail at the end.

    >>> refuse_folder("figures", "figures/.")
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: cannot write the report to figures: it is the folder of the figures
    """
    if output is None:
        return
    if figures is not None and _resolved(output) == _resolved(figures):
        raise InputError("cannot write the report to %s: it is the folder of the figures"
                         % shown_name(output))
    if os.path.isdir(output):
        raise InputError("cannot write the report to %s: it is a folder" % shown_name(output))


def _resolved(path):
    """``path`` absolute, links followed as far as they exist, case folded
    where the system folds it (Windows)."""
    return os.path.normcase(os.path.realpath(path))


def _temporary(folder, name):
    """(descriptor, path) of a new file beside the target, created by this process."""
    for attempt in range(_ATTEMPTS):
        path = os.path.join(folder, ".%s.%d-%d.tmp" % (name, os.getpid(), attempt))
        try:
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                           | getattr(os, "O_BINARY", 0), 0o666), path
        except FileExistsError:
            continue
    raise FileExistsError(17, "no free temporary name beside it")


def _write_in_place(path, mode, text):
    """Write to a target that cannot be replaced: a terminal, a device, a
    FIFO.  A FIFO is opened without waiting: with no reader the open would
    block forever, and it fails at once instead (ENXIO)."""
    if stat.S_ISFIFO(mode) and hasattr(os, "O_NONBLOCK"):
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as error:
            if error.errno == errno.ENXIO:
                raise OSError(error.errno, "it is a FIFO with no reader") from None
            raise
        os.set_blocking(descriptor, True)
        handle = open(descriptor, "w", encoding="utf-8", newline="\n")
    else:
        handle = open(path, "w", encoding="utf-8", newline="\n")
    with handle:
        handle.write(text)


def write_file(path, text, what="the report"):
    """Write ``text`` as UTF-8 with "\\n" line ends to ``path``; InputError
    naming ``what`` if it cannot be written.  The file is replaced whole or
    left as it was."""
    try:
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            _write_in_place(path, mode, text)
            return
        target = os.path.realpath(path)
        folder, name = os.path.split(target)
        descriptor, temporary = _temporary(folder, name)
        try:
            with open(descriptor, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            if mode is not None:
                os.chmod(temporary, stat.S_IMODE(mode))
            os.replace(temporary, target)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass   # the error that brought us here is the one to report
            raise
    except OSError as error:
        raise InputError("cannot write %s to %s: %s"
                         % (what, shown_name(path), error.strerror or error)) from None
