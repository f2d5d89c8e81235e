"""Tests of reviews.formats.msgpack: every type of the spec, and hostile data."""

import struct
import unittest

from reviews.errors import InputError
from reviews.formats.msgpack import MAX_DEPTH, MAX_ITEMS, Bin, unpack


def unpacked(hex_text):
    return unpack(bytes.fromhex(hex_text.replace(" ", "")), "x")


class TestTypes(unittest.TestCase):

    def test_scalars(self):
        for hex_text, value in (
                ("c0", None), ("c2", False), ("c3", True), ("00", 0), ("7f", 127),
                ("ff", -1), ("e0", -32), ("cc ff", 255), ("cd ffff", 65535),
                ("ce ffffffff", 2 ** 32 - 1), ("cf ffffffffffffffff", 2 ** 64 - 1),
                ("d0 80", -128), ("d1 8000", -32768), ("d2 80000000", -2 ** 31),
                ("d3 8000000000000000", -2 ** 63), ("ca 3fc00000", 1.5),
                ("cb bff8000000000000", -1.5)):
            with self.subTest(hex_text=hex_text):
                self.assertEqual(unpacked(hex_text), value)
                self.assertIs(type(unpacked(hex_text)), type(value))

    def test_strings_and_bins(self):
        for hex_text, value in (
                ("a0", ""), ("a3 616263", "abc"), ("d9 02 c3a9", "\u00e9"),
                ("da 0001 61", "a"), ("db 00000001 61", "a"),
                ("c4 02 ffff", Bin(2, 4)), ("c5 0001 00", Bin(3, 4)),
                ("c6 00000000", Bin(5, 5))):
            with self.subTest(hex_text=hex_text):
                self.assertEqual(unpacked(hex_text), value)
        self.assertEqual(unpacked("a1" + "61" * 1), "a")
        self.assertEqual(unpacked("bf" + "62" * 31), "b" * 31)

    def test_arrays_and_maps(self):
        self.assertEqual(unpacked("92 01 91 c0"), [1, [None]])
        self.assertEqual(unpacked("dc 0002 01 02"), [1, 2])
        self.assertEqual(unpacked("dd 00000001 90"), [[]])
        self.assertEqual(unpacked("82 a161 01 c401 62 80"), {"a": 1, b"b": {}})
        self.assertEqual(unpacked("de 0001 01 c2"), {1: False})
        self.assertEqual(unpacked("df 00000001 c0 c3"), {None: True})
        self.assertEqual(unpacked("9f" + "00" * 15), [0] * 15)
        self.assertEqual(unpacked("8f" + "".join("%02x c0" % k for k in range(15))),
                         dict.fromkeys(range(15)))

    def test_nesting_up_to_the_limit(self):
        data = b"\x91" * MAX_DEPTH + b"\xc0"
        value = unpack(data, "x")
        for _ in range(MAX_DEPTH):
            value, = value
        self.assertIsNone(value)


class TestHostile(unittest.TestCase):

    def test_each_is_one_error_naming_the_byte(self):
        for hex_text, message in (
                ("", "byte 0: the data ends where a value should start"),
                ("c1", "byte 0: 0xc1 is not a msgpack type"),
                ("d4 01 00", "byte 0: an ext value \\(type 0xd4\\)"),
                ("c7 01 05 00", "an ext value \\(type 0xc7\\)"),
                ("d8 01" + "00" * 16, "an ext value"),
                ("92 01", "byte 0: an array of 2 values cannot fit in the 1 bytes left"),
                ("dd ffffffff", "an array of 4294967295 values cannot fit"),
                ("df ffffffff", "a map of 4294967295 keys and values cannot fit"),
                ("81 01", "byte 0: a map of 1 keys and values cannot fit"),
                ("82 01 cd 0002", "byte 5: the data ends"),
                ("db ffffffff 61", "byte 5: a str of 4294967295 bytes runs past the end"),
                ("c6 ffffffff", "a bin of 4294967295 bytes runs past the end"),
                ("c5 00", "byte 1: a length of 2 bytes runs past"),
                ("cb 0000", "byte 1: a number of 8 bytes runs past"),
                ("a2 61 ff", "byte 2: the str at byte 0 is not UTF-8"),
                ("c0 c0", "byte 1: 1 bytes follow the end of the msgpack value"),
                ("81 90 01", "byte 1: a map key is an array or a map"),
                ("82 a161 01 a161 02", "byte 4: the map key 'a' repeats"),
                ("82 c401 61 01 c401 61 02", "the map key b'a' repeats")):
            with self.subTest(hex_text=hex_text):
                pattern = message if message.startswith("byte") else "byte \\d+: " + message
                with self.assertRaisesRegex(InputError, "^x: " + pattern):
                    unpacked(hex_text)

    def test_deep_nesting_is_refused_not_a_recursion_error(self):
        for opener in (b"\x91", b"\x81\xc0"):
            data = opener * 100000 + b"\xc0"
            with self.assertRaisesRegex(InputError, "nest more than %d deep" % MAX_DEPTH):
                unpack(data, "x")

    def test_a_lying_count_is_refused_before_anything_is_built(self):
        data = b"\xdd" + struct.pack(">I", 2 ** 32 - 1) + b"\x00" * 1000
        with self.assertRaisesRegex(InputError, "cannot fit in the 1000 bytes left"):
            unpack(data, "x")

    def test_more_values_than_the_limit_are_refused_before_they_are_built(self):
        def zeros(count):
            return b"\xdd" + struct.pack(">I", count) + b"\x00" * count
        half = zeros(MAX_ITEMS // 2 - 1)
        self.assertEqual(len(unpack(b"\x92" + half + half, "x")[1]), MAX_ITEMS // 2 - 1)
        with self.assertRaisesRegex(InputError, "^x: byte %d: past the limit of %d keys and"
                                    " values" % (1 + len(half), MAX_ITEMS)):
            unpack(b"\x92" + half + zeros(MAX_ITEMS // 2), "x")

if __name__ == "__main__":
    unittest.main()
