"""MessagePack decoded by the standard library, for files that may be hostile.

MessagePack (msgpack/msgpack's spec.md) is the serialization of thinc's
Model.to_bytes and of spaCy's component files.  Every type of the spec is
read except ext types, which neither uses (srsly writes numpy arrays as
maps), and which are refused, as is the byte 0xc1 the spec never uses.
The decoder is bounded: at most MAX_DEPTH nested arrays and maps holding
at most MAX_ITEMS values in all; a length or count that cannot fit in the
rest of the data (or past MAX_ITEMS) is refused before anything is built
for it; map keys that are not hashable scalars or that repeat are refused,
and so are bytes after the one value.  Every problem is an InputError
naming the byte offset.

Values: nil None, booleans, ints, floats, str str (UTF-8, checked), bin a
Bin (where its bytes lie, so that large arrays are not copied; a bin map key
is bytes), array list, map dict.

    unpack      the one value of a msgpack document
    Bin         a bin value: (start, stop), its bytes' positions in the data
    MAX_DEPTH   64: the most arrays and maps one value may nest
    MAX_ITEMS   2**20: the most keys and values its arrays and maps may hold
"""

import struct
from collections import namedtuple

from reviews.errors import InputError
from reviews.shown import excerpt

__all__ = ["unpack", "Bin", "MAX_DEPTH", "MAX_ITEMS"]

Bin = namedtuple("Bin", "start stop")
Bin.__doc__ = """A msgpack bin value: its bytes are data[start:stop]."""

# thinc nests a model's message four deep and an array's map one more.
MAX_DEPTH = 64
# en_core_web_sm's entity recognizer holds some 1,500 (its arrays are bins);
# each costs tens of bytes as Python objects, where it took one in the file.
MAX_ITEMS = 2 ** 20
_FIXED = {0xca: ">f", 0xcb: ">d", 0xcc: ">B", 0xcd: ">H", 0xce: ">I", 0xcf: ">Q",
          0xd0: ">b", 0xd1: ">h", 0xd2: ">i", 0xd3: ">q"}
# The size of the length of each kind with one: bin, str, array, map.
_LENGTHS = {0xc4: 1, 0xc5: 2, 0xc6: 4, 0xd9: 1, 0xda: 2, 0xdb: 4,
            0xdc: 2, 0xdd: 4, 0xde: 2, 0xdf: 4}
_UNSIGNED = {1: ">B", 2: ">H", 4: ">I"}


def unpack(data, where):
    """The one value of the msgpack bytes ``data`` (bytes or memoryview),
    ``where`` naming them in messages.

    >>> unpack(bytes.fromhex("82a16101c40278ff01"), "x")
    {'a': 1, b'x\\xff': 1}
    >>> unpack(bytes.fromhex("93c0c3cb3ff8000000000000"), "x"), unpack(b"\\xc4\\x02ab", "x")
    ([None, True, 1.5], Bin(start=2, stop=4))
    """
    value, position = _Decoder(data, where).value(0, 0)
    if position != len(data):
        raise InputError("%s: byte %d: %d bytes follow the end of the msgpack value"
                         % (where, position, len(data) - position))
    return value


def _shown_key(key):
    # A bin key may be as long as the file: show its start, as excerpt does text.
    if isinstance(key, bytes) and len(key) > 60:
        return repr(key[:57]) + "..."
    return repr(key)


class _Decoder:
    def __init__(self, data, where):
        self.data, self.where = data, where
        self.items = 0

    def error(self, position, problem):
        return InputError("%s: byte %d: %s" % (self.where, position, problem))

    def _take(self, position, size, what):
        end = position + size
        if end > len(self.data):
            raise self.error(position, "%s of %d bytes runs past the end of the data (%d bytes)"
                             % (what, size, len(self.data)))
        return end

    def value(self, position, depth):
        """(value, position after it) of the value at ``position``."""
        data = self.data
        if position >= len(data):
            raise self.error(position, "the data ends where a value should start")
        byte = data[position]
        start = position + 1
        if byte <= 0x7f:
            return byte, start
        if byte >= 0xe0:
            return byte - 0x100, start
        if byte in _FIXED:
            code = _FIXED[byte]
            end = self._take(start, struct.calcsize(code), "a number")
            return struct.unpack(code, data[start:end])[0], end
        if 0x80 <= byte <= 0x9f:
            return self._container(byte >= 0x90, byte & 0x0f, position, start, depth)
        if 0xa0 <= byte <= 0xbf:
            return self._text(byte & 0x1f, position, start)
        if byte in _LENGTHS:
            size = _LENGTHS[byte]
            end = self._take(start, size, "a length")
            length = struct.unpack(_UNSIGNED[size], data[start:end])[0]
            if byte <= 0xc6:
                stop = self._take(end, length, "a bin")
                return Bin(end, stop), stop
            if byte <= 0xdb:
                return self._text(length, position, end)
            return self._container(byte <= 0xdd, length, position, end, depth)
        if byte in (0xc0, 0xc2, 0xc3):
            return (None, None, False, True)[byte - 0xc0], start
        if 0xc7 <= byte <= 0xc9 or 0xd4 <= byte <= 0xd8:
            raise self.error(position, "an ext value (type 0x%02x); no ext type is read" % byte)
        raise self.error(position, "0x%02x is not a msgpack type" % byte)

    def _text(self, length, position, start):
        end = self._take(start, length, "a str")
        try:
            return str(self.data[start:end], "utf-8"), end
        except UnicodeDecodeError as error:
            raise self.error(start + error.start, "the str at byte %d is not UTF-8"
                             % position) from None

    def _container(self, is_array, count, position, start, depth):
        if depth >= MAX_DEPTH:
            raise self.error(position, "arrays and maps nest more than %d deep" % MAX_DEPTH)
        # Each element is at least a byte: a count past the rest is a lie.
        needed = count if is_array else 2 * count
        if needed > len(self.data) - start:
            raise self.error(position, "%s of %d %s cannot fit in the %d bytes left"
                             % ("an array" if is_array else "a map", count,
                                "values" if is_array else "keys and values",
                                len(self.data) - start))
        self.items += needed
        if self.items > MAX_ITEMS:
            raise self.error(position, "past the limit of %d keys and values in arrays and maps"
                             % MAX_ITEMS)
        if is_array:
            values = []
            for _ in range(count):
                value, start = self.value(start, depth + 1)
                values.append(value)
            return values, start
        pairs = {}
        for _ in range(count):
            key_position = start
            key, start = self.value(start, depth + 1)
            if isinstance(key, Bin):
                key = bytes(self.data[key.start:key.stop])
            elif isinstance(key, (list, dict)):
                raise self.error(key_position, "a map key is an array or a map")
            if key in pairs:
                raise self.error(key_position, "the map key %s repeats" % (
                    excerpt(key) if isinstance(key, str) else _shown_key(key)))
            pairs[key], start = self.value(start, depth + 1)
        return pairs, start
