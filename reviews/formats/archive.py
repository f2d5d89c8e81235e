"""Zip archives read member by member, within limits.

An .npz file and a torch checkpoint are zip archives.  A member is read by
this module from the zip directory's offsets and sizes, in chunks, never
past its declared size: data that inflates past it, ends short of it or
has another CRC is an error, and so is a member that is encrypted,
compressed by another method than deflate, or stored with two sizes.
Real weights compress poorly (float arrays rarely beyond 1.2:1), so a
deflated member may hold at most 4 values per compressed byte (or 2**16
values, if more): a small file that would inflate to gigabytes is refused
before its data is inflated.

    zip_errors      turn what zipfile raises for a damaged archive into InputError
    zip_members     the members of an archive, at most 4096, names distinct, the
                    first at byte 0
    check_inflation InputError for a deflated member of more values than its
                    compressed bytes may hold
    ZipMember       a raw stream of one member's data
"""

import contextlib
import io
import struct
import zipfile
import zlib

from reviews.errors import InputError
from reviews.shown import excerpt

__all__ = ["zip_errors", "zip_members", "check_inflation", "ZipMember"]

_MAX_MEMBERS = 4096
_LOCAL_HEADER = b"PK\x03\x04"
_CHUNK = 2 ** 16
# A deflated member may hold at most max(_SMALL_MEMBER, _VALUES_PER_BYTE x
# its compressed bytes) values: float weights compress by about 1.2:1, int8
# ones rarely by 2:1, while zeros compress by 1000:1 (a zip bomb).
_VALUES_PER_BYTE = 4
_SMALL_MEMBER = 2 ** 16


def zip_members(handle, path):
    """The ZipInfo of each member of the zip archive ``handle``."""
    with zip_errors(path):
        members = zipfile.ZipFile(handle).infolist()
    if len(members) > _MAX_MEMBERS:
        raise InputError("%s has %d members, past the limit of %d"
                         % (path, len(members), _MAX_MEMBERS))
    if members and min(info.header_offset for info in members) > 0:
        # Bytes before the archive (zipfile reads past them), which a report would still hash.
        raise InputError("%s: %d bytes come before the first member of the zip archive"
                         % (path, min(info.header_offset for info in members)))
    names = set()
    for info in members:
        if info.filename in names:
            raise InputError("%s has two members called %s" % (path, excerpt(info.filename)))
        names.add(info.filename)
    return members


def check_inflation(info, count, what, where, advice):
    """InputError if the member ``info`` is deflated and its ``count``
    values (``what``: "shape (2, 3)", ...) are more than its compressed
    bytes may hold; ``advice`` ends the message (how to write it instead)."""
    limit = max(_SMALL_MEMBER, _VALUES_PER_BYTE * info.compress_size)
    if info.compress_type == zipfile.ZIP_DEFLATED and count > limit:
        raise InputError("%s: %s has %d values in %d compressed bytes, past the limit of %d (4"
                         " per compressed byte, or 2**16) for a compressed member: real weights"
                         " compress far less; %s"
                         % (where, what, count, info.compress_size, limit, advice))


@contextlib.contextmanager
def zip_errors(where):
    """Turn what zipfile raises for a damaged archive into InputError."""
    try:
        yield
    except InputError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError,
            RuntimeError, ValueError, struct.error) as error:
        raise InputError("%s: not a readable zip archive: %s" % (where, error)) from None


class ZipMember(io.RawIOBase):
    """The data of a stored or deflated zip member, read in chunks from the
    offset and sizes of the zip directory: it ends at the declared size,
    and data that inflates past it, ends short of it or has another CRC is
    an error."""

    def __init__(self, handle, info, size, where):
        super().__init__()
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise InputError("%s is compressed by method %d; stored and deflated members are"
                             " read" % (where, info.compress_type))
        if info.flag_bits & 1:
            raise InputError("%s is encrypted" % where)
        if info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size:
            raise InputError("%s is stored (not compressed) but declares %d bytes in %d"
                             % (where, info.file_size, info.compress_size))
        self._handle, self._info, self._where = handle, info, where
        handle.seek(info.header_offset)
        local = handle.read(30)
        if len(local) < 30 or not local.startswith(_LOCAL_HEADER):
            raise InputError("%s: no zip local header at byte %d" % (where, info.header_offset))
        name_length, extra_length = struct.unpack_from("<HH", local, 26)
        self._position = info.header_offset + 30 + name_length + extra_length
        if self._position + info.compress_size > size:
            raise InputError("%s: its %d compressed bytes run past the end of the file"
                             % (where, info.compress_size))
        self._compressed_left, self._left = info.compress_size, info.file_size
        deflated = info.compress_type == zipfile.ZIP_DEFLATED
        self._inflate = zlib.decompressobj(-zlib.MAX_WBITS) if deflated else None
        self._pending, self._crc = b"", 0

    def readable(self):
        return True

    def _fetch(self):
        """The next chunk of compressed bytes, or b"" at the end."""
        self._handle.seek(self._position)
        chunk = self._handle.read(min(_CHUNK, self._compressed_left))
        self._position += len(chunk)
        # A file that shrank since it was opened ends the data here.
        self._compressed_left = self._compressed_left - len(chunk) if chunk else 0
        return chunk

    def _next(self, n):
        """At most ``n`` more bytes of data, b"" only at the end."""
        while True:
            if not self._pending:
                self._pending = self._fetch()
            if self._inflate is None:
                data, self._pending = self._pending[:n], self._pending[n:]
                return data
            data = self._inflate.decompress(self._pending, n)
            self._pending = self._inflate.unconsumed_tail
            if data or self._inflate.eof or not (self._pending or self._compressed_left):
                return data

    def _finish(self):
        """At the declared size: the data must end here, with its CRC."""
        if self._inflate is not None:
            while not self._inflate.eof and (self._pending or self._compressed_left):
                if self._next(1):
                    raise InputError("%s inflates past its declared %d bytes"
                                     % (self._where, self._info.file_size))
            if (not self._inflate.eof or self._inflate.unused_data or self._pending
                    or self._compressed_left):
                raise InputError("%s: the compressed data does not end at its declared %d"
                                 " bytes" % (self._where, self._info.file_size))
        if self._crc != self._info.CRC:
            raise InputError("%s: the data does not match its CRC" % self._where)

    def readinto(self, buffer):
        view = memoryview(buffer).cast("B")
        filled = 0
        while filled < len(view) and self._left:
            data = self._next(min(len(view) - filled, self._left))
            if not data:
                raise InputError("%s: the data ends before its declared %d bytes"
                                 % (self._where, self._info.file_size))
            view[filled:filled + len(data)] = data
            filled += len(data)
            self._left -= len(data)
            self._crc = zlib.crc32(data, self._crc)
            if not self._left:
                self._finish()
        return filled
