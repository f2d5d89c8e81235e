"""Protobuf's wire format, read by the standard library.

A serialized protobuf message is a run of fields, each a key (its number
and wire type, a varint) and a value: a varint, 8 or 4 fixed bytes, or a
length and that many bytes (a string, bytes, a nested message or a packed
run of numbers).  Messages are read by their callers one level at a time,
by field number, so no schema is needed and a message nested inside
another is read only if asked for: no depth of nesting recurses.  The
format is checked as it is read: a varint of more than 10 bytes, a field
past the end of its message or an unknown wire type is an InputError
naming the byte offset.

    VARINT, FIXED64, LENGTH, FIXED32   the wire types read
    varint          (value, next position) of the varint at a position
    fields          (number, wire type, value) of each field of a message
    signed          an int64 field's value as the signed number it encodes
    packed_varints  the values of a packed run of varints
    text            a string field's bytes as text
"""

from reviews.errors import InputError

__all__ = ["VARINT", "FIXED64", "LENGTH", "FIXED32", "varint", "fields", "signed",
           "packed_varints", "text"]

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5


def varint(data, position, path):
    """(value, position after it) of the varint at ``position`` of ``data``.

    >>> varint(b"\\x96\\x01", 0, "m")
    (150, 2)
    """
    value, shift = 0, 0
    while True:
        if position >= len(data):
            raise InputError("%s: byte %d: a number runs past the end of the file"
                             % (path, position))
        byte = data[position]
        value |= (byte & 0x7F) << shift
        position += 1
        if not byte & 0x80:
            return value, position
        shift += 7
        if shift > 63:
            raise InputError("%s: byte %d: a number of more than 10 bytes" % (path, position))


def fields(data, start, end, path):
    """(field number, wire type, value) of each field of the message in
    ``data[start:end]``: a varint's value, else the (begin, end) of its bytes.

    >>> list(fields(b"\\x08\\x96\\x01\\x12\\x02hi", 0, 7, "m"))
    [(1, 0, 150), (2, 2, (5, 7))]
    """
    position = start
    while position < end:
        key, position = varint(data, position, path)
        number, wire = key >> 3, key & 7
        if wire == VARINT:
            value, position = varint(data, position, path)
        elif wire in (FIXED64, FIXED32):
            size = 8 if wire == FIXED64 else 4
            value, position = (position, position + size), position + size
        elif wire == LENGTH:
            length, position = varint(data, position, path)
            value, position = (position, position + length), position + length
        else:
            # 3 and 4 are groups, deprecated since proto2; none of the
            # formats read here writes them.
            raise InputError("%s: byte %d: wire type %d is not one protobuf messages use"
                             " (groups are not read)" % (path, position, wire))
        if position > end:
            raise InputError("%s: byte %d: field %d runs past the end of its message"
                             % (path, position, number))
        yield number, wire, value


def signed(value):
    """An int64 or int32 field's varint as the number it encodes: negative
    numbers are written as their 64-bit two's complement.

    >>> signed(2 ** 64 - 1), signed(5)
    (-1, 5)
    """
    return value - 2 ** 64 if value >= 2 ** 63 else value


def packed_varints(data, span, path):
    """The varints of a packed repeated field whose bytes are ``span``.

    >>> packed_varints(b"\\x03\\x8e\\x02", (0, 3), "m")
    [3, 270]
    """
    values, position = [], span[0]
    while position < span[1]:
        value, position = varint(data, position, path)
        values.append(value)
    if position > span[1]:
        raise InputError("%s: byte %d: a packed number runs past the end of its field"
                         % (path, span[1]))
    return values


def text(data, span, path):
    """The UTF-8 text of a string field's bytes."""
    try:
        return bytes(data[span[0]:span[1]]).decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("%s: byte %d: a string is not UTF-8" % (path, span[0])) from None
