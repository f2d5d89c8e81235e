"""Tests of reviews.layer_files: JSON, CSV and .npy read exactly, and errors."""

import os
import struct
import unittest
from decimal import Decimal

from reviews.errors import InputError
from reviews.layer_files import read_layer, read_npy
from tests.support import FileTestCase


def npy_bytes(values, shape, descr="<f8", fortran=False, version=1):
    """A .npy file as numpy writes it (header padded to 64 bytes)."""
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %r, }" % (descr, fortran, shape)
    prefix = 10 if version == 1 else 12
    header += " " * (63 - (prefix + len(header)) % 64) + "\n"
    size = struct.pack("<H" if version == 1 else "<I", len(header))
    body = struct.pack("%s%d%s" % (descr[0], len(values), "d" if descr[2] == "8" else "f"), *values)
    return b"\x93NUMPY" + bytes([version, 0]) + size + header.encode("latin-1") + body


class TestFormats(FileTestCase):

    def test_json_numbers_are_decimals(self):
        path = self.write("l.json", '{"weights": [[0.9, 1], [2, 3]], "bias": [0.1, 0]}')
        self.assertEqual(read_layer(path), ([[Decimal("0.9"), 1], [2, 3]], [Decimal("0.1"), 0]))

    def test_json_without_bias(self):
        self.assertEqual(read_layer(self.write("l.json", '{"weights": [[1]]}')), ([[1]], None))

    def test_csv_rows_and_a_bias_column(self):
        layer = self.write("l.csv", "1, 0.5\n\n-2,3\n")
        bias = self.write("b.csv", "0.25\n-1\n")
        self.assertEqual(read_layer(layer, bias),
                         ([[1, Decimal("0.5")], [-2, 3]], [Decimal("0.25"), -1]))

    def test_npy_both_byte_orders_and_both_widths(self):
        for descr in ("<f8", ">f8", "<f4", ">f4"):
            with self.subTest(descr=descr):
                path = self.write("l.npy", npy_bytes([1.5, -2, 0.25, 4], (2, 2), descr))
                self.assertEqual(read_layer(path), ([[1.5, -2.0], [0.25, 4.0]], None))

    def test_npy_fortran_order_and_version_2(self):
        path = self.write("l.npy", npy_bytes([1, 3, 2, 4], (2, 2), fortran=True, version=2))
        self.assertEqual(read_layer(path)[0], [[1.0, 2.0], [3.0, 4.0]])

    def test_npy_float32_is_taken_at_its_exact_value(self):
        path = self.write("l.npy", npy_bytes([0.1], (1,), "<f4"))
        self.assertEqual(read_npy(path), ((1,), [0.10000000149011612]))

    def test_npy_bias_file(self):
        layer = self.write("l.json", '{"weights": [[1], [2]]}')
        bias = self.write("b.npy", npy_bytes([0.5, -0.5], (2,)))
        self.assertEqual(read_layer(layer, bias)[1], [0.5, -0.5])


class TestErrors(FileTestCase):

    def assertRejects(self, message, name, content, bias=None):
        path = self.write(name, content)
        with self.assertRaisesRegex(InputError, message):
            read_layer(path, bias)

    def test_missing_file(self):
        with self.assertRaisesRegex(InputError, "cannot read .*nope.json: No such file"):
            read_layer(os.path.join(self.folder.name, "nope.json"))

    def test_malformed_json(self):
        self.assertRejects("is not valid JSON", "l.json", "{weights: 1")
        self.assertRejects("expected an object", "l.json", '{"w": []}')
        self.assertRejects("unknown key scale", "l.json", '{"weights": [[1]], "scale": 2}')
        self.assertRejects(r"weights\[0\]\[0\] is 'NaN', not a finite number", "l.json",
                           '{"weights": [[NaN]]}')

    def test_malformed_csv(self):
        self.assertRejects("line 2, column 2: 'x' is not a number", "l.csv", "1,2\n3,x\n")
        self.assertRejects("has no rows of numbers", "l.csv", "\n\n")
        self.assertRejects("not a finite number", "l.csv", "1,inf\n")

    def test_malformed_npy(self):
        self.assertRejects("not a .npy file", "l.npy", b"hello")
        self.assertRejects("dtype '<i8' is not float32 or float64", "l.npy",
                           npy_bytes([1], (1,)).replace(b"<f8", b"<i8"))
        self.assertRejects("data bytes for shape", "l.npy", npy_bytes([1, 2], (2, 2)))
        self.assertRejects("must be a 2-D array", "l.npy", npy_bytes([1] * 8, (2, 2, 2)))

    def test_unknown_extension(self):
        self.assertRejects("unknown file type '.txt'", "l.txt", "1")

    def test_bias_twice(self):
        bias = self.write("b.csv", "1\n")
        self.assertRejects("already has a bias", "l.json", '{"weights": [[1]], "bias": [0]}', bias)

    def test_bias_must_be_one_dimensional(self):
        bias = self.write("b.csv", "1,2\n3,4\n")
        self.assertRejects("one number per class", "l.json", '{"weights": [[1], [2]]}', bias)


if __name__ == "__main__":
    unittest.main()
