"""numpy files shipped inside xz: ``model.npz.xz``, ``W.npy.xz``.

Some packages compress their .npz with xz (py3langid 0.4.0 ships
``model.npz.xz``: an uncompressed .npz of 68 MB in 4.6 MB).  The file is
decompressed by the standard library's lzma, one stream after another (a
stream may be followed by NUL padding and another stream, as the xz format
allows; anything else after a stream is an error), into memory, within
limits checked as it inflates: at most MAX_XZ_RATIO bytes per compressed
byte (or 2**20, for a small file), and at most MAX_XZ_BYTES in all, so
that a few kilobytes of xz never inflate to gigabytes.  What is inside is
read as reviews.formats.npy reads a file of its name without the ``.xz``.

    xz_arrays       the Arrays of an open ``X.npz.xz`` or ``X.npy.xz`` file
    MAX_XZ_BYTES    1 GiB: the most an xz file may inflate to
    MAX_XZ_RATIO    64: the most bytes a compressed byte may inflate to
"""

import io
import lzma
import os

from reviews.errors import InputError
from reviews.formats.npy import npy_arrays, npz_arrays
from reviews.shown import excerpt

__all__ = ["xz_arrays", "MAX_XZ_BYTES", "MAX_XZ_RATIO"]

MAX_XZ_BYTES = 2 ** 30
# py3langid's model inflates 15-fold (its tables of integers compress well);
# float weights barely compress, zeros a thousandfold.
MAX_XZ_RATIO = 64
_SMALL = 2 ** 20
# The name an .npy's one array has in messages (as reviews.formats.folders's).
_UNNAMED = "the array"


def _inflated(handle, size, path):
    """The bytes that the xz streams of ``handle`` hold, within the limits."""
    if size > MAX_XZ_BYTES:
        raise InputError("%s has %d bytes, past the limit of %d for an xz file"
                         % (path, size, MAX_XZ_BYTES))
    limit = min(MAX_XZ_BYTES, max(_SMALL, MAX_XZ_RATIO * size))
    data = memoryview(handle.read(size))
    out, position = bytearray(), 0
    while True:
        decompressor = lzma.LZMADecompressor(lzma.FORMAT_XZ)
        try:
            out += decompressor.decompress(data[position:], limit + 1 - len(out))
            while len(out) <= limit and not (decompressor.eof or decompressor.needs_input):
                out += decompressor.decompress(b"", limit + 1 - len(out))
        except lzma.LZMAError as error:
            raise InputError("%s: byte %d: not a readable xz stream: %s"
                             % (path, position, error)) from None
        if len(out) > limit:
            raise InputError("%s inflates past %d bytes, the limit for %d compressed bytes"
                             " (%d per compressed byte, or 2**20; at most 2**30)"
                             % (path, limit, size, MAX_XZ_RATIO))
        if not decompressor.eof:
            raise InputError("%s: the xz stream at byte %d ends before its end marker"
                             % (path, position))
        rest = decompressor.unused_data
        # Streams may be followed by NUL padding, a multiple of 4 bytes, and
        # by other streams (the xz format's own rule).
        padding = len(rest) - len(rest.lstrip(b"\0"))
        position = size - len(rest) + padding
        if padding % 4:
            raise InputError("%s: byte %d: %d NUL bytes after an xz stream, not a multiple"
                             " of 4" % (path, size - len(rest), padding))
        if position == size:
            return bytes(out)


def xz_arrays(handle, size, path):
    """[Array] of the open file ``handle`` of ``size`` bytes, an .npz or
    .npy inside xz, as its name without ``.xz`` says."""
    inner = os.path.splitext(path[:-3] if path.lower().endswith(".xz") else path)[1].lower()
    if inner not in (".npz", ".npy"):
        raise InputError("%s: an xz file is read around an .npz or .npy (model.npz.xz), not"
                         " around %s" % (path, excerpt(inner or "a file of no extension")))
    data = _inflated(handle, size, path)
    buffer = io.BytesIO(data)
    if inner == ".npz":
        return npz_arrays(buffer, len(data), path)
    return npy_arrays(buffer, len(data), path, _UNNAMED)
