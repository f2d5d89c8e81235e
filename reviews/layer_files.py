"""Reading a user's softmax layer from a file, exactly.

Formats, chosen by the file's extension:

    .json   {"weights": [[...], ...], "bias": [...]} (bias optional), or
            just the list of rows
    .csv    one row of comma-separated numbers per class; a bias file has
            one number per line, or all of them on one line
    .npy    float32 or float64, either byte order, C or Fortran order

Number text (JSON, CSV) is read as the Decimal it spells, so 0.9 is 9/10.
Only plain ASCII numbers are numbers: an optional sign, digits with an
optional fraction, an optional exponent (``-1.5e-3``, ``.5``, ``2.``).
``1_000``, fullwidth or other non-ASCII digits, ``inf`` and ``nan`` are
errors, and so is a CSV field in quotes: a numeric layer file has none.  A
CSV row ends only at ``\\n``, ``\\r\\n`` or ``\\r``.  .npy values are the
floats they store.

Limits, each refused with an InputError that names the file and the limit:
only regular files are read (not a FIFO, device or directory, even behind
a symbolic link); a JSON or CSV file has at most 64 MiB; a .npy header at
most 10,000 bytes (numpy's own default) and at most 2**26 values (GPT-2's
50,257 x 768 head has 38.6 million); JSON nests at most 32 deep; a number
is within reviews.exact's MAX_BITS.  Every message names the file, the
place (line and column, a JSON path such as ``weights[3][1]``, or a byte
offset) and the problem.

    read_layer      (weights, bias or None) from a layer file and a bias file
    read_npy        the shape and values of a .npy file
"""

import array
import decimal
import json
import os
import re
import stat
import sys

from reviews.errors import InputError
from reviews.exact import decimal_size_error

__all__ = ["read_layer", "read_npy"]

_MAX_TEXT_BYTES = 64 * 2 ** 20
_MAX_NPY_HEADER = 10000
_MAX_VALUES = 2 ** 26
_MAX_JSON_DEPTH = 32
_MAX_DIMENSIONS = 32
_EXCERPT = 60

_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?([0-9]+))?")
# At most 1,001 digits and an exponent of at most 4: within 10**+-11000, far
# below the size limit, so that the common number needs no further test.
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]{1,500}\.?[0-9]{0,500}|\.[0-9]{1,500})(?:[eE][+-]?[0-9]{1,4})?")
_NOT_FINITE = re.compile(r"[+-]?(?:inf|infinity|s?nan[0-9]*)", re.IGNORECASE)
# The size limit's wording, from its one home in reviews.exact.
_PAST_LIMIT = decimal_size_error(decimal.Decimal("1e99999"))
_LINE_END = re.compile(r"\r\n|\r|\n")
# A string runs to its closing quote or, unterminated, to the end: each
# unmatched quote must not cost a scan of the rest of the text.
_JSON_NESTING = re.compile(r'"[^"\\]*(?:\\.?[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


def _excerpt(text):
    """repr of at most _EXCERPT characters of ``text``, for a message."""
    if len(text) <= _EXCERPT:
        return repr(text)
    return repr(text[:_EXCERPT - 3]) + "..."


def _kind(mode):
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _open_regular(path):
    """(binary file, size) of ``path``, which must be a regular file.

    A FIFO would block the open until a writer comes, and a device such as
    /dev/zero never ends, so both are refused from os.stat before opening;
    O_NONBLOCK keeps the open from waiting if one replaces the file after
    the stat, and fstat refuses it then.
    """
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISREG(mode):
            flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
            handle = os.fdopen(os.open(path, flags), "rb")
            status = os.fstat(handle.fileno())
            mode = status.st_mode
            if stat.S_ISREG(mode):
                return handle, status.st_size
            handle.close()
    except OSError as error:
        raise InputError("cannot read %s: %s" % (path, error.strerror or error)) from None
    raise InputError("cannot read %s: it is %s, not a regular file" % (path, _kind(mode)))


def _text(path):
    handle, size = _open_regular(path)
    with handle:
        if size > _MAX_TEXT_BYTES:
            raise InputError("%s has %d bytes, past the limit of %d bytes (64 MiB) for a JSON"
                             " or CSV file" % (path, size, _MAX_TEXT_BYTES))
        data = handle.read(size)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = len(_LINE_END.findall(data[:error.start].decode("latin-1"))) + 1
        raise InputError("%s: line %d, byte %d is not UTF-8 text" % (path, line, error.start)) from None


def _decimal(text):
    """The Decimal that ``text`` spells, or (a str) why it is not accepted.

    >>> _decimal("-1.5e-3"), _decimal("1_000"), _decimal("\\uff11")
    (Decimal('-0.0015'), 'not a number', 'not a number')
    """
    if _PLAIN_NUMBER.fullmatch(text):
        return decimal.Decimal(text)
    match = _NUMBER.fullmatch(text)
    if match is None:
        return "not a finite number" if _NOT_FINITE.fullmatch(text) else "not a number"
    if len((match.group(1) or "").lstrip("0")) > 8:
        # Past Decimal's exponent range on some builds.  A file of at most
        # 64 MiB spells fewer than 10**8 digits, so with |exponent| >= 10**8
        # only zero is within the size limit.
        if text[:match.start(1)].strip("+-.0eE"):
            return _PAST_LIMIT
        return decimal.Decimal(0)
    value = decimal.Decimal(text)
    return decimal_size_error(value) or value


# CSV ----------------------------------------------------------------------

def _csv_rows(path):
    rows = []
    for line_number, line in enumerate(_LINE_END.split(_text(path)), 1):
        if not line.strip(" \t"):
            continue
        row = []
        for column, field in enumerate(line.split(","), 1):
            field = field.strip(" \t")
            value = _decimal(field)
            if not isinstance(value, decimal.Decimal):
                if '"' in field:
                    value = "quoted: a numeric layer file has no quotes"
                elif not field:
                    value = "an empty field"
                raise InputError("%s: line %d, column %d: %s is %s"
                                 % (path, line_number, column, _excerpt(field), value))
            row.append(value)
        rows.append(row)
    if not rows:
        raise InputError("%s has no rows of numbers" % path)
    return rows


# JSON ---------------------------------------------------------------------

class _Refused:
    """Stands in the parsed document for a value refused while parsing,
    so that the message can name its place (a JSON path) afterwards."""

    def __init__(self, shown, problem):
        self.shown, self.problem = shown, problem


def _json_number(text):
    if _PLAIN_NUMBER.fullmatch(text):
        return decimal.Decimal(text)
    value = _decimal(text)
    return value if isinstance(value, decimal.Decimal) else _Refused(_excerpt(text), value)


def _json_object(pairs):
    keys = set()
    for key, _ in pairs:
        if key in keys:
            return _Refused("an object", "with the key %s twice" % _excerpt(key))
        keys.add(key)
    return dict(pairs)


def _check_nesting(text, path):
    """Refuse nesting past _MAX_JSON_DEPTH before json recurses into it."""
    depth = 0
    for match in _JSON_NESTING.finditer(text):
        bracket = match.group()
        if bracket in "[{":
            depth += 1
            if depth > _MAX_JSON_DEPTH:
                line = text.count("\n", 0, match.start()) + 1
                raise InputError("%s: line %d: nested more than %d deep (a layer needs 3)"
                                 % (path, line, _MAX_JSON_DEPTH))
        elif bracket in "]}":
            depth -= 1


def _json(path):
    text = _text(path)
    _check_nesting(text, path)
    try:
        return json.loads(text, parse_float=_json_number, parse_int=_json_number,
                          parse_constant=lambda name: _Refused(_excerpt(name), "not a finite number"),
                          object_pairs_hook=_json_object)
    except ValueError as error:
        raise InputError("%s is not valid JSON: %s" % (path, error)) from None


def _json_shown(value):
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, _Refused):
        return value.shown
    if isinstance(value, decimal.Decimal):
        return str(value)
    return _excerpt(value) if isinstance(value, str) else repr(value)


def _json_numbers(values, path, where, expected):
    """``values`` if it is a list of numbers, else InputError."""
    if not isinstance(values, list):
        raise InputError("%s: %s is %s; expected %s" % (path, where, _json_shown(values), expected))
    for k, value in enumerate(values):
        if not isinstance(value, decimal.Decimal):
            problem = value.problem if isinstance(value, _Refused) else "not a real number"
            if isinstance(value, list):
                problem = "not a number; expected %s" % expected
            raise InputError("%s: %s[%d] is %s, %s"
                             % (path, where, k, _json_shown(value), problem))
    return values


_ROWS = "a list of rows of numbers, like [[1, 2], [3, 4]]"
_NUMBERS = "a list of numbers, one per class"


def _json_weights(rows, path, where):
    if not isinstance(rows, list) or not rows:
        shown = "an empty list" if rows == [] else _json_shown(rows)
        raise InputError("%s: %s is %s; expected %s" % (path, where, shown, _ROWS))
    for j, row in enumerate(rows):
        if not isinstance(row, list):
            hint = " (a list of numbers looks like a bias)" if isinstance(row, decimal.Decimal) else ""
            raise InputError("%s: %s[%d] is %s, not a row; expected %s%s"
                             % (path, where, j, _json_shown(row), _ROWS, hint))
        _json_numbers(row, path, "%s[%d]" % (where, j), "a row of numbers")
    return rows


def _json_layer(path):
    document = _json(path)
    if isinstance(document, list):
        return _json_weights(document, path, "weights"), None
    if isinstance(document, _Refused):
        raise InputError("%s: the document is %s, %s" % (path, document.shown, document.problem))
    if not isinstance(document, dict) or "weights" not in document:
        raise InputError('%s: expected an object {"weights": [[...], ...], "bias": [...]}' % path)
    unknown = sorted(set(document) - {"weights", "bias"})
    if unknown:
        raise InputError("%s: unknown key %s (expected weights, bias)" % (path, _excerpt(unknown[0])))
    weights = _json_weights(document["weights"], path, "weights")
    if "bias" not in document:
        return weights, None
    return weights, _json_numbers(document["bias"], path, "bias", _NUMBERS)


# .npy ---------------------------------------------------------------------

_NPY_MAGIC = b"\x93NUMPY"
_NPY_TYPES = {"f8": "d", "f4": "f"}
_HEADER_TOKEN = re.compile(r"""(?P<quote>['"])(?P<string>[^'"\\\n]*)(?P=quote)"""
                           r"""|(?P<bool>True|False)\b|(?P<int>0|[1-9][0-9]*)L?\b|(?P<mark>[{}():,])""")
_HEADER_SPACE = re.compile(r"[ \t\r\n]*")


class _Header:
    """The header of a .npy file, read by a strict grammar: a dict of
    'descr' (a string), 'fortran_order' (True or False) and 'shape' (a
    tuple of non-negative integers), nothing else.  ast.literal_eval would
    take any literal, however deep or long, before its values are checked."""

    def __init__(self, text, offset, path):
        self.text, self.offset, self.path, self.position = text, offset, path, 0
        fields = {}
        self._expect("{", "the header to start with {")
        while not self._take("}"):
            start = self._start()
            key = self._expect("string", "a key or }")
            if key not in ("descr", "fortran_order", "shape"):
                self._fail(start, "key %s is not descr, fortran_order or shape" % _excerpt(key))
            if key in fields:
                self._fail(start, "key %s comes twice" % _excerpt(key))
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
        self.descr, self.fortran, self.shape = fields["descr"], fields["fortran_order"], fields["shape"]

    def _start(self):
        """Where the next token starts."""
        return _HEADER_SPACE.match(self.text, self.position).end()

    def _fail(self, where, problem):
        raise InputError("%s: byte %d (in the .npy header): %s"
                         % (self.path, self.offset + where, problem))

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
                       % (expected, _excerpt(self.text[start:start + 20].rstrip())))
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
            if len(size) > 18 or len(shape) == _MAX_DIMENSIONS:
                self._fail(start, "'shape' is past the limit of %d dimensions, each below 10**18"
                           % _MAX_DIMENSIONS)
            shape.append(int(size))
            if not self._take(","):
                self._expect(")", expected)
                if len(shape) == 1:
                    self._fail(start, "'shape' (n) is not a tuple; a 1-D shape is (n,)")
                break
        return tuple(shape)


def _npy_header(handle, size, path):
    """The _Header of an open .npy file, and where its data starts."""
    prefix = handle.read(12)
    if not prefix.startswith(_NPY_MAGIC) or len(prefix) < 10:
        raise InputError("%s is not a .npy file (no NUMPY magic)" % path)
    version = prefix[6:8]
    if version == b"\x01\x00":
        start, length = 10, int.from_bytes(prefix[8:10], "little")
    elif version in (b"\x02\x00", b"\x03\x00"):
        start, length = 12, int.from_bytes(prefix[8:12], "little")
    else:
        raise InputError("%s: unsupported .npy version %d.%d" % (path, prefix[6], prefix[7]))
    if length > _MAX_NPY_HEADER:
        raise InputError("%s: the .npy header has %d bytes, past the limit of %d"
                         % (path, length, _MAX_NPY_HEADER))
    if start + length > size:
        raise InputError("%s: the .npy header has %d bytes, past the end of the file (%d bytes)"
                         % (path, length, size))
    handle.seek(start)
    header = _Header(handle.read(length).decode("latin-1"), start, path)
    order = header.descr[:1]
    if header.descr[1:] not in _NPY_TYPES or order not in "<>=":
        raise InputError("%s: dtype %s is not float32 or float64 ('<f4', '<f8' or '>' for"
                         " big-endian)" % (path, _excerpt(header.descr)))
    return header, start + length


def _npy_flat(handle, size, header, data_start, path):
    """The values of an .npy file as a flat memoryview, in the file's order."""
    count = 1
    for n in header.shape:
        count *= n
    if count > _MAX_VALUES:
        raise InputError("%s: shape %s has %d values, past the limit of %d"
                         % (path, header.shape, count, _MAX_VALUES))
    code = _NPY_TYPES[header.descr[1:]]
    expected = count * array.array(code).itemsize
    if size - data_start != expected:
        raise InputError("%s: %d data bytes for shape %s, expected %d"
                         % (path, size - data_start, header.shape, expected))
    # Read straight into the one buffer the values will be taken from.
    values = array.array(code, [0]) * count
    if handle.readinto(memoryview(values).cast("B")) != expected:
        raise InputError("%s: the file changed while it was read" % path)
    if header.descr[0] not in ("=", {"little": "<", "big": ">"}[sys.byteorder]):
        values.byteswap()
    return memoryview(values)


def _c_order(flat, shape):
    """The flat list, in C order, of a Fortran-order array of ``shape``."""
    if len(shape) <= 1:
        return flat.tolist()
    # Fixing the first index of a Fortran-order array leaves one of the
    # remaining shape, every shape[0]-th value.
    values = []
    for i in range(shape[0]):
        values.extend(_c_order(flat[i::shape[0]], shape[1:]))
    return values


def read_npy(path):
    """(shape, flat list of floats in C order) of a .npy file of float32 or float64."""
    handle, size = _open_regular(path)
    with handle:
        header, start = _npy_header(handle, size, path)
        flat = _npy_flat(handle, size, header, start, path)
    if header.fortran and 0 not in header.shape:
        return header.shape, _c_order(flat, header.shape)
    return header.shape, flat.tolist()


def _npy_rows(path, bias=False):
    """The rows of a 2-D .npy file (a 1-D one is a column), built once."""
    handle, size = _open_regular(path)
    with handle:
        header, start = _npy_header(handle, size, path)
        shape = header.shape
        if len(shape) == 1 and not bias:
            shape = shape + (1,)
        if len(shape) != 2 and not (bias and len(shape) == 1):
            raise InputError("%s: %s must be a %s array, not shape %s"
                             % (path, "a bias" if bias else "weights",
                                "1-D or one-row" if bias else "2-D", header.shape))
        if not bias and shape[0] == 0:
            raise InputError("%s: shape %s has no classes (rows)" % (path, header.shape))
        if not bias and shape[1] == 0:
            raise InputError("%s: shape %s has rows of length 0: the dimension d must be at"
                             " least 1" % (path, header.shape))
        flat = _npy_flat(handle, size, header, start, path)
    if len(shape) == 1:
        return [flat.tolist()]
    rows, width = shape
    if header.fortran:
        return [flat[r::rows].tolist() for r in range(rows)]
    return [flat[r * width:(r + 1) * width].tolist() for r in range(rows)]


# The layer ------------------------------------------------------------------

_READERS = {".json": _json_layer, ".csv": lambda path: (_csv_rows(path), None),
            ".npy": lambda path: (_npy_rows(path), None)}


def _extension(path):
    extension = os.path.splitext(path)[1].lower()
    if extension not in _READERS:
        raise InputError("%s: unknown file type %r (use .json, .csv or .npy)"
                         % (path, extension or "no extension"))
    return extension


def _read_bias(path):
    extension = _extension(path)
    if extension == ".json":
        return _json_numbers(_json(path), path, "bias", _NUMBERS)
    rows = _csv_rows(path) if extension == ".csv" else _npy_rows(path, bias=True)
    if all(len(row) == 1 for row in rows):
        return [row[0] for row in rows]
    if len(rows) == 1:
        return rows[0]
    raise InputError("%s: a bias is one number per class (one row or one column), not %d rows"
                     " of %d" % (path, len(rows), len(rows[0])))


def read_layer(path, bias_path=None):
    """(weights, bias or None) read exactly from ``path`` and ``bias_path``.

    Number text is read as Decimals, .npy files as floats; a separate bias
    file must have one number per class of ``path``.
    """
    weights, bias = _READERS[_extension(path)](path)
    if bias_path is not None:
        if bias is not None:
            raise InputError("%s already has a bias; do not also pass --bias" % path)
        bias = _read_bias(bias_path)
        if len(bias) != len(weights):
            raise InputError("%s has %d numbers for the %d classes of %s"
                             % (bias_path, len(bias), len(weights), path))
    return weights, bias
