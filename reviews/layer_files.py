"""Reading a user's softmax layer from a file, exactly.

Formats, chosen by the file's extension:

    .json   {"weights": [[...], ...], "bias": [...]}  (bias optional)
    .csv    one row of numbers per class; a bias file has one number per line
    .npy    float32 or float64, either byte order, C or Fortran order

Number text (JSON, CSV) is read as the decimal it spells, so 0.9 is 9/10;
.npy values are the floats they store.  Problems raise InputError with the
file name and where in it.

    read_layer      (weights, bias or None) from a layer file and a bias file
    read_npy        the shape and values of a .npy file
"""

import ast
import csv
import decimal
import json
import os
import struct

from reviews.errors import InputError

__all__ = ["read_layer", "read_npy"]

_NPY_MAGIC = b"\x93NUMPY"
_NPY_TYPES = {"f8": "d", "f4": "f"}


def _read_bytes(path):
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise InputError("cannot read %s: %s" % (path, error.strerror or error)) from None


def _text(path):
    try:
        return _read_bytes(path).decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError("%s is not UTF-8 text (byte %d)" % (path, error.start)) from None


def _number(text, where):
    try:
        value = decimal.Decimal(text.strip())
    except decimal.InvalidOperation:
        raise InputError("%s: %r is not a number" % (where, text)) from None
    if not value.is_finite():
        raise InputError("%s: %r is not a finite number" % (where, text))
    return value


def _load_json(path):
    text = _text(path)
    try:
        return json.loads(text, parse_float=decimal.Decimal,
                          parse_constant=lambda name: name)
    except ValueError as error:
        raise InputError("%s is not valid JSON: %s" % (path, error)) from None


def _read_json(path):
    document = _load_json(path)
    if isinstance(document, list):
        _check_json_numbers(document, path)
        return document, None
    if not isinstance(document, dict) or "weights" not in document:
        raise InputError('%s: expected an object {"weights": [[...], ...], "bias": [...]}' % path)
    unknown = sorted(set(document) - {"weights", "bias"})
    if unknown:
        raise InputError("%s: unknown key %s (expected weights, bias)" % (path, unknown[0]))
    for key in ("weights", "bias"):
        _check_json_numbers(document.get(key), "%s: %s" % (path, key))
    return document["weights"], document.get("bias")


def _check_json_numbers(value, where):
    if isinstance(value, str):
        raise InputError("%s is %r, not a finite number" % (where, value))
    if isinstance(value, list):
        for k, item in enumerate(value):
            _check_json_numbers(item, "%s[%d]" % (where, k))


def _read_csv(path):
    rows = []
    for line_number, fields in enumerate(csv.reader(_text(path).splitlines()), 1):
        if not fields or all(not f.strip() for f in fields):
            continue
        rows.append([_number(f, "%s line %d, column %d" % (path, line_number, k + 1))
                     for k, f in enumerate(fields)])
    if not rows:
        raise InputError("%s has no rows of numbers" % path)
    return rows


def read_npy(path):
    """(shape, flat list of floats) of a .npy file of float32 or float64."""
    data = _read_bytes(path)
    if not data.startswith(_NPY_MAGIC) or len(data) < 10:
        raise InputError("%s is not a .npy file (no NUMPY magic)" % path)
    major = data[6]
    if major == 1:
        size, start = struct.unpack("<H", data[8:10])[0], 10
    elif major in (2, 3):
        size, start = struct.unpack("<I", data[8:12])[0], 12
    else:
        raise InputError("%s: unsupported .npy version %d" % (path, major))
    try:
        header = ast.literal_eval(data[start:start + size].decode("latin-1"))
        descr, fortran, shape = header["descr"], header["fortran_order"], tuple(header["shape"])
    except (ValueError, SyntaxError, KeyError, TypeError):
        raise InputError("%s: unreadable .npy header" % path) from None
    if not isinstance(descr, str) or descr[1:] not in _NPY_TYPES or descr[0] not in "<>=|":
        raise InputError("%s: dtype %r is not float32 or float64" % (path, descr))
    order = ">" if descr[0] == ">" else "<"
    count = 1
    for n in shape:
        count *= n
    body = data[start + size:]
    item = struct.calcsize(_NPY_TYPES[descr[1:]])
    if len(body) != count * item:
        raise InputError("%s: %d data bytes for shape %s, expected %d"
                         % (path, len(body), shape, count * item))
    values = list(struct.unpack("%s%d%s" % (order, count, _NPY_TYPES[descr[1:]]), body))
    if fortran and len(shape) == 2:
        rows, cols = shape
        values = [values[c * rows + r] for r in range(rows) for c in range(cols)]
    return shape, values


def _read_npy_matrix(path):
    shape, values = read_npy(path)
    if len(shape) == 1:
        return [[v] for v in values]
    if len(shape) != 2:
        raise InputError("%s: weights must be a 2-D array, not shape %s" % (path, shape))
    return [values[r * shape[1]:(r + 1) * shape[1]] for r in range(shape[0])]


def _read(path):
    extension = os.path.splitext(path)[1].lower()
    if extension == ".json":
        return _read_json(path)
    if extension == ".csv":
        return _read_csv(path), None
    if extension == ".npy":
        return _read_npy_matrix(path), None
    raise InputError("%s: unknown file type %r (use .json, .csv or .npy)"
                     % (path, extension or "no extension"))


def _read_bias(path):
    if os.path.splitext(path)[1].lower() == ".json":
        document = _load_json(path)
        if not isinstance(document, list):
            raise InputError("%s: a bias file holds a JSON list of numbers" % path)
        _check_json_numbers(document, path)
        return document
    rows, _ = _read(path)
    if all(len(row) == 1 for row in rows):
        return [row[0] for row in rows]
    if len(rows) == 1:
        return rows[0]
    raise InputError("%s: a bias is one number per class (one row or one column)" % path)


def read_layer(path, bias_path=None):
    """(weights, bias or None) read exactly from ``path`` and ``bias_path``."""
    weights, bias = _read(path)
    if bias_path is not None:
        if bias is not None:
            raise InputError("%s already has a bias; do not also pass --bias" % path)
        bias = _read_bias(bias_path)
    return weights, bias
