"""Opening the files a layer is read from: regular files only, within limits.

A FIFO without a writer would block the reader forever and a device such as
/dev/zero never ends, so only regular files are read (a symbolic link is
followed to what it names); a text file has at most MAX_TEXT_BYTES, an
array at most MAX_VALUES values, and a file's holes (a sparse file's
unwritten ranges) at most MAX_HOLE_BYTES, each checked before anything is
read.

    MAX_TEXT_BYTES  64 MiB: the largest JSON, CSV or text file read
    MAX_HOLE_BYTES  64 MiB: the most a file's holes may hold
    MAX_VALUES      2**31: the most values read from one array
    STDIN           the name that read_text reads standard input for
    open_regular    (binary file, size) of a regular file, or InputError
    read_text       the text of a file of at most MAX_TEXT_BYTES
    file_digest     the size and SHA-256 of a file, for a report's provenance

How names and numbers are shown in messages is reviews.shown.
"""

import hashlib
import io
import os
import re
import stat
import sys

from reviews.errors import InputError
from reviews.shown import shown_name

__all__ = ["MAX_TEXT_BYTES", "MAX_HOLE_BYTES", "MAX_VALUES", "STDIN", "open_regular",
           "read_text", "file_digest"]

MAX_TEXT_BYTES = 64 * 2 ** 20
# A file whose holes (ranges never written, read as zeros, stored as
# nothing) hold more than this is refused: a report hashes every byte,
# and 20 GiB of holes behind an .npz of a few kilobytes took minutes.
MAX_HOLE_BYTES = 64 * 2 ** 20
# The largest heads of today: Llama-3's 128,256 x 4,096 has 525 million
# values, Gemma's 256,000 x 2,304 590 million, Llama-3 405B's 128,256 x
# 16,384 2.1 billion.  A float array's rows keep 4 or 8 bytes a value, and
# the file must hold them all (its holes are limited), so a few kilobytes
# never claim this much.
MAX_VALUES = 2 ** 31
STDIN = "<stdin>"
_CHUNK = 2 ** 20
_LINE_END = re.compile(r"\r\n|\r|\n")


def _kind(mode):
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path):
    """(binary file, size) of ``path``, which must be a regular file.

    The kind of file is checked with os.stat before opening; O_NONBLOCK
    keeps the open from waiting if a FIFO replaces the file after the stat,
    and fstat refuses it then.
    """
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISREG(mode):
            flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
            handle = _Reader(io.FileIO(os.open(path, flags), "rb"), path)
            status = os.fstat(handle.fileno())
            mode = status.st_mode
            if stat.S_ISREG(mode):
                try:
                    _refuse_holes(handle.fileno(), status, path)
                except BaseException:
                    handle.close()
                    raise
                return handle, status.st_size
            handle.close()
    except OSError as error:
        raise InputError("cannot read %s: %s"
                         % (shown_name(path), error.strerror or error)) from None
    raise InputError("cannot read %s: it is %s, not a regular file"
                     % (shown_name(path), _kind(mode)))


class _Reader(io.BufferedReader):
    """A file opened for reading, whose read errors (a failing disk, a file
    such as /proc/self/mem that opens but cannot be read) are InputError
    naming it, as errors opening it are."""

    def __init__(self, raw, path):
        super().__init__(raw)
        self.path = path

    def _failed(self, error):
        return InputError("cannot read %s: %s" % (shown_name(self.path),
                                                  error.strerror or error))

    def read(self, size=-1):
        try:
            return super().read(size)
        except OSError as error:
            raise self._failed(error) from None

    def read1(self, size=-1):
        try:
            return super().read1(size)
        except OSError as error:
            raise self._failed(error) from None

    def readinto(self, buffer):
        try:
            return super().readinto(buffer)
        except OSError as error:
            raise self._failed(error) from None


def _refuse_holes(descriptor, status, path):
    """InputError if the file's holes hold more than MAX_HOLE_BYTES.

    Only a file with fewer blocks on disk than its size can have holes; its
    holes are then found with SEEK_DATA and SEEK_HOLE where the system has
    them (a system without them shows none).
    """
    size, blocks = status.st_size, getattr(status, "st_blocks", None)
    if (blocks is None or size - 512 * blocks <= MAX_HOLE_BYTES
            or not hasattr(os, "SEEK_HOLE")):
        return
    holes, position = 0, 0
    while position < size and holes <= MAX_HOLE_BYTES:
        try:
            data = os.lseek(descriptor, position, os.SEEK_DATA)
        except OSError:   # ENXIO: nothing but a hole to the end
            data = size
        holes += data - position
        if data >= size:
            break
        position = os.lseek(descriptor, data, os.SEEK_HOLE)
    os.lseek(descriptor, 0, os.SEEK_SET)
    if holes > MAX_HOLE_BYTES:
        raise InputError("cannot read %s: it is a sparse file, more than %d of its %d bytes"
                         " holes never written (more than 64 MiB are refused: its SHA-256"
                         " would read them all)" % (shown_name(path), MAX_HOLE_BYTES, size))


def file_digest(path):
    """(bytes, SHA-256 in hex) of the regular file ``path``, read in chunks;
    (None, None) for standard input, which cannot be read again.

    >>> file_digest(STDIN)
    (None, None)
    """
    if path == STDIN:
        return None, None
    handle, _ = open_regular(path)
    digest, size = hashlib.sha256(), 0
    with handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


def _past_limit(path, size):
    return InputError("%s has %s bytes, past the limit of %d bytes (64 MiB) for a text file"
                      % (shown_name(path), size, MAX_TEXT_BYTES))


def _standard_input():
    """The bytes of standard input, up to the limit, read as they come."""
    if sys.stdin is None:
        raise InputError("cannot read %s: it is closed" % STDIN)
    stream = getattr(sys.stdin, "buffer", sys.stdin)
    data = bytearray()
    while len(data) <= MAX_TEXT_BYTES:
        try:
            chunk = stream.read(_CHUNK)
        except OSError as error:   # open for writing only (0>FILE), or a lost terminal
            raise InputError("cannot read %s: %s" % (STDIN, error.strerror or error)) from None
        if not chunk:
            return bytes(data)
        data += chunk
    raise _past_limit(STDIN, "more than %d" % MAX_TEXT_BYTES)


def read_text(path):
    """The UTF-8 text of the regular file ``path``, or of standard input if
    ``path`` is STDIN (a BOM is dropped)."""
    if path == STDIN:
        data = _standard_input()
    else:
        handle, size = open_regular(path)
        with handle:
            if size > MAX_TEXT_BYTES:
                raise _past_limit(path, size)
            data = handle.read(size)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = len(_LINE_END.findall(data[:error.start].decode("latin-1"))) + 1
        raise InputError("%s: line %d, byte %d is not UTF-8 text"
                         % (shown_name(path), line, error.start)) from None
