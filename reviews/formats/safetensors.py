"""The .safetensors format: a JSON header, then raw little-endian data.

Bytes 0-7 hold N, the header's length (unsigned little-endian); then N
bytes of JSON: each tensor's name maps to {"dtype", "shape",
"data_offsets": [begin, end]} (offsets from the byte after the header), and
an optional "__metadata__" maps strings to strings.  The header is checked
whole before any value is read: at most MAX_TENSORS tensors (counted
before the header is parsed), every dtype, shape and pair of offsets, and
that the tensors tile the data exactly, one after another, as the format's
own reader requires.  Values are then read only for the tensors asked for.

    safetensors_arrays  the Arrays of an open .safetensors file
"""

import decimal

from reviews.errors import InputError
from reviews.formats.binary import (KINDS, MAX_DIMENSIONS, MAX_TENSORS, Array, read_values,
                                    value_count)
from reviews.formats.source import MAX_TEXT_BYTES
from reviews.shown import excerpt, shown_number, shown_shape
from reviews.formats.json_text import describe_json, parse_json

__all__ = ["safetensors_arrays"]

_KINDS = {"F64": "f8", "F32": "f4", "F16": "f2", "BF16": "bf16",
          "I8": "i1", "I16": "i2", "I32": "i4", "I64": "i8",
          "U8": "u1", "U16": "u2", "U32": "u4", "U64": "u8"}

# Sizes and offsets are u64 in the format; a larger one is refused before
# it is converted to an int, which costs time quadratic in its digits.
_LARGEST = 2 ** 64 - 1# The header's integers of at most 18 digits are read as ints (not bools).
_INT = type(0)


def _integers(value, where, what, length):
    """``value`` as a list of at most ``length`` non-negative ints (exactly
    two for data_offsets), each at most _LARGEST, else InputError."""
    if (not isinstance(value, list) or len(value) > length
            or (what == "data_offsets" and len(value) != length)
            or not all(type(v) is _INT and v >= 0 or isinstance(v, decimal.Decimal) and v >= 0
                       and v == v.to_integral_value() for v in value)):
        raise InputError("%s: %s is %s; expected %s" % (
            where, what, describe_json(value),
            "[begin, end], non-negative integers" if what == "data_offsets" else
            "a list of non-negative integers (at most %d)" % length))
    for k, v in enumerate(value):
        if v > _LARGEST:
            raise InputError("%s: %s[%d] is %s, past 2**64 - 1 (the format's sizes are u64)"
                             % (where, what, k, shown_number(v)))
    return [int(v) for v in value]


def _header(handle, size, path):
    prefix = handle.read(8)
    if len(prefix) < 8:
        raise InputError("%s is not a .safetensors file (shorter than 8 bytes)" % path)
    length = int.from_bytes(prefix, "little")
    if length > min(MAX_TEXT_BYTES, size - 8):
        raise InputError("%s: the header length %d is past the end of the file or the limit of"
                         " %d bytes; not a .safetensors file?" % (path, length, MAX_TEXT_BYTES))
    try:
        text = handle.read(length).decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError("%s: byte %d (in the header) is not UTF-8"
                         % (path, 8 + error.start)) from None
    if not text.startswith("{"):
        raise InputError("%s: the header does not start with {; not a .safetensors file?" % path)
    too_many = ("more than %s tensors, past the limit of a .safetensors file"
                % format(MAX_TENSORS, ","))
    # Each tensor is an object in the header's, and so is __metadata__.
    document = parse_json(text, "%s (header)" % path, integers=True,
                          objects=(MAX_TENSORS + 1, too_many))
    if not isinstance(document, dict):
        raise InputError("%s: the header is %s; expected an object"
                         % (path, describe_json(document)))
    if len(document) - ("__metadata__" in document) > MAX_TENSORS:
        raise InputError("%s (header): %s" % (path, too_many))
    return document, 8 + length


def safetensors_arrays(handle, size, path):
    """[Array] of the open .safetensors file ``handle`` of ``size`` bytes."""
    document, start = _header(handle, size, path)
    metadata = document.pop("__metadata__", {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise InputError("%s: __metadata__ is %s; expected an object of strings"
                         % (path, describe_json(metadata)))
    tensors = []
    for name, entry in document.items():
        where = "%s, tensor %s" % (path, excerpt(name))
        if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "data_offsets"}:
            raise InputError('%s is %s; expected {"dtype", "shape", "data_offsets"}'
                             % (where, describe_json(entry)))
        dtype = entry["dtype"]
        if not isinstance(dtype, str) or dtype not in _KINDS:   # a list is not hashable
            raise InputError("%s: dtype %s is not read (%s are)"
                             % (where, describe_json(dtype), ", ".join(_KINDS)))
        shape = tuple(_integers(entry["shape"], where, "shape", MAX_DIMENSIONS))
        begin, end = _integers(entry["data_offsets"], where, "data_offsets", 2)
        count = value_count(shape, where)
        if end - begin != count * KINDS[_KINDS[dtype]]:
            raise InputError("%s: data_offsets [%s, %s] hold %s bytes; shape %s of %s needs %d"
                             % (where, shown_number(begin), shown_number(end),
                                shown_number(end - begin), shown_shape(shape), dtype,
                                count * KINDS[_KINDS[dtype]]))
        tensors.append((begin, end, name, where, dtype, shape, count))
    tensors.sort()
    expected = 0
    for begin, end, name, where, *_ in tensors:
        if begin != expected:
            raise InputError("%s: data_offsets start at %s; the data before it ends at %d"
                             " (tensors must follow each other)"
                             % (where, shown_number(begin), expected))
        expected = end
    if expected != size - start:
        raise InputError("%s: the tensors end at byte %d of the data, which has %d"
                         % (path, expected, size - start))
    return [_array(handle, start, *tensor) for tensor in tensors]


def _array(handle, start, begin, end, name, where, dtype, shape, count):
    def load():
        handle.seek(start + begin)
        return read_values(handle, _KINDS[dtype], count, False, where), False
    return Array(name, shape, dtype, load)
