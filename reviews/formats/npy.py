"""The .npy format, read by a strict header grammar, and .npz archives of it.

A .npy file is a magic string, a version, a header (a Python dict literal
of 'descr', 'fortran_order' and 'shape') and the raw values.  The header is
read by a grammar of exactly that dict, not by ast.literal_eval, which
would take any literal, however deep or long, before its values could be
checked; its shape and the data's length are checked before any value is
read.  The dtypes read are float16/32/64 and signed and unsigned integers,
in either byte order; bool and complex arrays are errors.  An object
array (``np.save`` of a dict of arrays) is a pickle after the header, read
without running it by reviews.formats.numpy_pickle: its arrays are the file's.  A .npz file is a zip
archive of .npy members, stored or deflated (np.savez and
np.savez_compressed); a member is read by reviews.formats.archive from the
zip directory's offsets and sizes, in chunks, never past its declared size,
and a deflated one holds at most 4 values per compressed byte (or 2**16
values, if more), refused from its headers, before its data is inflated.
A member of strings (numpy's 'U' and 'S' kinds) is not an array of numbers:
it is kept aside, and a 1-D one of one string per class names the classes
(class_names).

    npy_arrays      the one Array of an open .npy file
    npz_arrays      the Arrays of an open .npz file, one per member of numbers
    class_names     {class: name} from an archive's one array of C strings
"""

import re
import sys

from reviews.errors import InputError
from reviews.formats.archive import ZipMember, check_inflation, zip_errors, zip_members
from reviews.formats.binary import KINDS, MAX_DIMENSIONS, Array, read_values, value_count
from reviews.formats.numpy_pickle import numpy_pickle_arrays
from reviews.formats.source import MAX_TEXT_BYTES
from reviews.shown import excerpt, shown_shape

__all__ = ["npy_arrays", "npz_arrays", "class_names"]

_MAGIC = b"\x93NUMPY"
# numpy's own default limit for np.load (max_header_size).
_MAX_HEADER = 10000
_HEADER_TOKEN = re.compile(r"""(?P<quote>['"])(?P<string>[^'"\\\n]*)(?P=quote)"""
                           r"""|(?P<bool>True|False)\b|(?P<int>0|[1-9][0-9]*)L?\b"""
                           r"""|(?P<mark>[{}():,])""")
_HEADER_SPACE = re.compile(r"[ \t\r\n]*")
# The kind of an array of objects: np.save(path, {name: array}) writes one.
_OBJECTS = "O"
# numpy's strings: 'U' holds n UTF-32 code units a value, 'S' n bytes; both
# are padded with NULs, which numpy strips from the end of each value.
_STRINGS = re.compile(r"(?P<kind>[US])(?P<width>[1-9][0-9]{0,8})\Z")
_NOT_REAL = {"b1": "bool", "c8": "complex", "c16": "complex", "c32": "complex",
             "O": "object (read from a .npy file, not from an .npz member)",
             # numpy writes '<f16' for the platform's long double: x87 80-bit
             # extended on x86, IEEE quadruple on 64-bit ARM; the file does not
             # say which, so no exact value can be taken from it.
             "f16": "long double, whose format the file does not say (x87 80-bit"
                    " extended on x86, IEEE quadruple on ARM)",
             "f12": "long double (x87 80-bit extended in 12 bytes)"}


class _NpyHeader:
    """The header of a .npy file: a dict of 'descr' (a string),
    'fortran_order' (True or False) and 'shape' (a tuple of non-negative
    integers), nothing else.  ``offset`` is the header's place in the file,
    for messages."""

    def __init__(self, text, offset, where):
        self.text, self.offset, self.where, self.position = text, offset, where, 0
        fields = {}
        self._expect("{", "the header to start with {")
        while not self._take("}"):
            start = self._start()
            key = self._expect("string", "a key or }")
            if key not in ("descr", "fortran_order", "shape"):
                self._fail(start, "key %s is not descr, fortran_order or shape" % excerpt(key))
            if key in fields:
                self._fail(start, "key %s comes twice" % excerpt(key))
            self._expect(":", ": after the key")
            fields[key] = getattr(self, "_" + key)()
            if not self._take(","):
                self._expect("}", ", or }")
                break
        if self._start() < len(text):
            self._expect("end", "the header to end after }")
        for key in ("descr", "fortran_order", "shape"):
            if key not in fields:
                self._fail(self.position, "key %r is missing" % key)
        self.descr, self.fortran = fields["descr"], fields["fortran_order"]
        self.shape = fields["shape"]

    def _start(self):
        """Where the next token starts."""
        return _HEADER_SPACE.match(self.text, self.position).end()

    def _fail(self, where, problem):
        raise InputError("%s: byte %d (in the .npy header): %s"
                         % (self.where, self.offset + where, problem))

    def _take(self, kind):
        """The next token's text if it is of ``kind`` ("string", "bool",
        "int" or a mark such as "("), consumed; else None."""
        match = _HEADER_TOKEN.match(self.text, self._start())
        if match is None or kind not in (match.lastgroup, match.group("mark")):
            return None
        self.position = match.end()
        return match.group(match.lastgroup)

    def _expect(self, kind, expected):
        value = self._take(kind)
        if value is None:
            start = self._start()
            self._fail(start, "expected %s, found %s"
                       % (expected, excerpt(self.text[start:start + 20].rstrip())))
        return value

    def _descr(self):
        return self._expect("string", "'descr' to be a dtype string such as '<f8'")

    def _fortran_order(self):
        return self._expect("bool", "'fortran_order' to be True or False") == "True"

    def _shape(self):
        expected = "'shape' to be a tuple of non-negative integers"
        self._expect("(", expected)
        shape = []
        while not self._take(")"):
            start = self._start()
            size = self._expect("int", expected)
            if len(size) > 18 or len(shape) == MAX_DIMENSIONS:
                self._fail(start, "'shape' is past the limit of %d dimensions, each below 10**18"
                           % MAX_DIMENSIONS)
            shape.append(int(size))
            if not self._take(","):
                self._expect(")", expected)
                if len(shape) == 1:
                    self._fail(start, "'shape' (n) is not a tuple; a 1-D shape is (n,)")
                break
        return tuple(shape)


def _read_header(handle, where, objects=False, strings=False):
    """(header, kind, big_endian, data offset) of the .npy data in ``handle``;
    with ``objects``, the kind of an object array is _OBJECTS; with
    ``strings``, a string array's kind is its descr without the byte order
    ('U3', 'S5')."""
    prefix = handle.read(8)
    if len(prefix) < 8 or not prefix.startswith(_MAGIC):
        raise InputError("%s is not a .npy file (no NUMPY magic)" % where)
    width = {b"\x01\x00": 2, b"\x02\x00": 4, b"\x03\x00": 4}.get(prefix[6:8])
    if width is None:
        raise InputError("%s: unsupported .npy version %d.%d" % (where, prefix[6], prefix[7]))
    raw = handle.read(width)
    if len(raw) < width:
        raise InputError("%s is not a .npy file (it ends before its header)" % where)
    length = int.from_bytes(raw, "little")
    if length > _MAX_HEADER:
        raise InputError("%s: the .npy header has %d bytes, past the limit of %d"
                         % (where, length, _MAX_HEADER))
    text = handle.read(length)
    if len(text) < length:
        raise InputError("%s: the .npy header has %d bytes, past the end of the file"
                         % (where, length))
    header = _NpyHeader(text.decode("latin-1"), 8 + width, where)
    order, kind = header.descr[:1], header.descr[1:]
    if objects and kind == _OBJECTS:
        return header, _OBJECTS, False, 8 + width + length
    if strings and _STRINGS.match(kind) and (order == "|" if kind[0] == "S" else order in "<>="):
        return header, kind, order == ">" or order == "=" and sys.byteorder == "big", \
            8 + width + length
    one_byte = kind in KINDS and KINDS[kind] == 1
    if kind not in KINDS or kind == "bf16" or not (order in "<>=" or order == "|" and one_byte):
        raise InputError("%s: dtype %s is %s; float16/32/64 and integer arrays are read"
                         % (where, excerpt(header.descr),
                            _NOT_REAL.get(kind, "not a real number type read here")))
    big_endian = order == ">" or order == "=" and sys.byteorder == "big"
    return header, kind, big_endian, 8 + width + length


def _check_length(header, kind, data_bytes, where):
    """The number of values, if the data has their exact length."""
    count = value_count(header.shape, where)
    if data_bytes != count * KINDS[kind]:
        raise InputError("%s: %d data bytes for shape %s, expected %d"
                         % (where, data_bytes, shown_shape(header.shape), count * KINDS[kind]))
    return count


def npy_arrays(handle, size, path, name):
    """[Array] of the open .npy file ``handle`` of ``size`` bytes: its one
    array, or the arrays its array of objects holds (a pickle after the
    header, read as reviews.formats.numpy_pickle reads one)."""
    header, kind, big_endian, start = _read_header(handle, path, objects=True)
    if kind == _OBJECTS:
        return numpy_pickle_arrays(handle, size - start, path)
    count = _check_length(header, kind, size - start, path)

    def load():
        handle.seek(start)
        return read_values(handle, kind, count, big_endian, path), header.fortran
    return [Array(name, header.shape, header.descr, load)]


class _Archive(list):
    """The Arrays of an .npz file's members of numbers; ``strings`` holds
    its members of strings, as (name, shape, load) with load() their
    values."""

    def __init__(self, arrays, strings):
        super().__init__(arrays)
        self.strings = strings


def npz_arrays(handle, size, path):
    """[Array] of the open .npz file ``handle``, one per .npy member of
    numbers; its members of strings are kept in the list's ``strings``."""
    members = [_member(handle, size, info, path) for info in zip_members(handle, path)]
    return _Archive([m for m in members if isinstance(m, Array)],
                    [m for m in members if not isinstance(m, Array)])


def class_names(arrays, classes, where, note):
    """{class: name} of the only 1-D array of ``classes`` strings among an
    archive's members (several holding the same strings are one), said in a
    note; None, with a note, where there is none or several differ.

    >>> class_names([], 3, "m.npz", print) is None
    True
    """
    strings = getattr(arrays, "strings", ())
    fitting = [s for s in strings if s[1] == (classes,)]
    for name, shape, _ in strings:
        if shape != (classes,):
            note("%s: array %s %s of strings does not name the classes: the layer has %d"
                 % (where, excerpt(name), shown_shape(shape), classes))
    if not fitting:
        return None
    names = [load() for _, _, load in fitting]
    if any(other != names[0] for other in names[1:]):
        note("%s: the classes are not named: %d arrays of %d strings differ (%s)"
             % (where, len(fitting), classes, ", ".join(excerpt(s[0]) for s in fitting)))
        return None
    note("%s: classes named by array %s of %d strings%s" % (
        where, excerpt(fitting[0][0]), classes, "".join(
            ", the same as %s" % excerpt(s[0]) for s in fitting[1:])))
    return dict(enumerate(names[0]))


def _string_bytes(header, kind, where):
    """The bytes of a member of strings, within the text limit."""
    count = value_count(header.shape, where)
    size = count * int(kind[1:]) * (4 if kind[0] == "U" else 1)
    if size > MAX_TEXT_BYTES:
        raise InputError("%s: %d strings of %s take %d bytes, past the limit of %d"
                         % (where, count, excerpt(header.descr), size, MAX_TEXT_BYTES))
    return size


def _strings(member, kind, big_endian, size, where):
    """The values of a 1-D member of strings, each without its trailing NULs."""
    data = member.read(size)
    if len(data) != size:
        raise InputError("%s: the data ends before %d bytes" % (where, size))
    step = int(kind[1:]) * (4 if kind[0] == "U" else 1)
    encoding = "utf-8" if kind[0] == "S" else "utf-32-be" if big_endian else "utf-32-le"
    values = []
    for start in range(0, size, step):
        try:
            values.append(data[start:start + step].decode(encoding).rstrip("\0"))
        except UnicodeDecodeError as error:
            raise InputError("%s: string %d is not %s: %s" % (
                where, start // step, encoding.upper(), error.reason)) from None
    return values


def _member(handle, size, info, path):
    """The Array of a member of numbers, or (name, shape, load) of one of strings."""
    where = "%s, member %s" % (path, excerpt(info.filename))
    if not info.filename.endswith(".npy"):
        raise InputError("%s is not a .npy file (an .npz holds NAME.npy members)" % where)
    with zip_errors(where):
        header, kind, big_endian, start = _read_header(ZipMember(handle, info, size, where),
                                                       where, strings=True)
    if kind not in KINDS:
        data_bytes = _string_bytes(header, kind, where)
        if info.file_size - start != data_bytes:
            raise InputError("%s: %d data bytes for %s of shape %s, expected %d" % (
                where, info.file_size - start, excerpt(header.descr), shown_shape(header.shape),
                data_bytes))

        def strings():
            with zip_errors(where):
                member = ZipMember(handle, info, size, where)
                member.read(start)
                return _strings(member, kind, big_endian, data_bytes, where)
        return info.filename[:-4], header.shape, strings
    count = _check_length(header, kind, info.file_size - start, where)
    check_inflation(info, count, "shape %s" % shown_shape(header.shape), where,
                    "save it uncompressed (np.savez)")

    def load():
        with zip_errors(where):
            member = ZipMember(handle, info, size, where)
            member.read(start)
            return read_values(member, kind, count, big_endian, where), header.fortran
    return Array(info.filename[:-4], header.shape, header.descr, load)
