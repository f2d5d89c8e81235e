"""Tests of reviews.formats.layers: JSON, CSV and .npy read exactly, and errors."""

import errno
import io
import os
import re
import struct
import tracemalloc
import unittest
from decimal import Decimal
from unittest import mock

from reviews.cli import main
from reviews.argmax.kernels import layer_input
from reviews.formats import layers
from reviews.argmax.kernels.layer_input import exact_layer
from reviews.errors import InputError
from reviews.formats.source import MAX_TEXT_BYTES, MAX_VALUES
from reviews.formats.layers import read_layer, read_npy
from tests.support import FileTestCase, listed
from tests.support.arrays import npy_bytes

LIMIT = "past the size limit: .* at most 65536 bits"


class TestFormats(FileTestCase):

    def test_json_numbers_are_decimals(self):
        path = self.write("l.json", '{"weights": [[0.9, 1], [2, 3]], "bias": [0.1, 0]}')
        self.assertEqual(read_layer(path), ([[Decimal("0.9"), 1], [2, 3]], [Decimal("0.1"), 0]))

    def test_json_without_bias(self):
        self.assertEqual(read_layer(self.write("l.json", '{"weights": [[1]]}')), ([[1]], None))

    def test_one_row_is_read_as_stored_or_as_its_binary_decision(self):
        path = self.write("l.npy", npy_bytes([0.5, -2], (1, 2), "<f4"))
        self.assertEqual(listed(read_layer(path)[0]), [[0.5, -2.0]])
        notes = []
        weights, bias = read_layer(path, binary=True, note=notes.append)
        self.assertEqual((listed(weights), bias, weights[1].typecode),
                         ([[0.5, -2.0], [0.0, 0.0]], None, "f"))
        self.assertIn("one output: a binary decision, logit > 0", notes[-1])
        path = self.write("l.json", '{"weights": [[0.9]], "bias": [-1]}')
        self.assertEqual(read_layer(path, binary=True), ([[Decimal("0.9")], [0]], [-1, 0]))
        with self.assertRaisesRegex(TypeError, "^binary must be a bool, not str$"):
            read_layer(path, binary="yes")

    def test_csv_rows_and_a_bias_column(self):
        layer = self.write("l.csv", "1, 0.5\n\n-2,3\n")
        bias = self.write("b.csv", "0.25\n-1\n")
        self.assertEqual(read_layer(layer, bias),
                         ([[1, Decimal("0.5")], [-2, 3]], [Decimal("0.25"), -1]))

    def test_npy_both_byte_orders_and_both_widths(self):
        for descr in ("<f8", ">f8", "<f4", ">f4"):
            with self.subTest(descr=descr):
                path = self.write("l.npy", npy_bytes([1.5, -2, 0.25, 4], (2, 2), descr))
                weights, bias = read_layer(path)
                # Rows of floats are arrays of the stored width, not lists (4-8x the memory).
                self.assertEqual((listed(weights), bias, {row.typecode for row in weights}),
                                 ([[1.5, -2.0], [0.25, 4.0]], None,
                                  {{"f8": "d", "f4": "f"}[descr[1:]]}))

    def test_npy_fortran_order_and_version_2(self):
        path = self.write("l.npy", npy_bytes([1, 3, 2, 4], (2, 2), fortran=True, version=2))
        self.assertEqual(listed(read_layer(path)[0]), [[1.0, 2.0], [3.0, 4.0]])

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
        self.assertRejects("unknown key .scale.", "l.json", '{"weights": [[1]], "scale": 2}')
        self.assertRejects(r"weights\[0\]\[0\] is 'NaN', not a finite number", "l.json",
                           '{"weights": [[NaN]]}')

    def test_malformed_csv(self):
        self.assertRejects("line 2, column 2: 'x' is not a number", "l.csv", "1,2\n3,x\n")
        self.assertRejects("has no rows of numbers", "l.csv", "\n\n")
        self.assertRejects("not a finite number", "l.csv", "1,inf\n")

    def test_malformed_npy(self):
        self.assertRejects("not a .npy file", "l.npy", b"hello")
        self.assertRejects("not a readable pickle", "l.npy", npy_bytes(b"", (1, 1), "|O"))
        for descr, kind in (("<c16", "complex"), ("|b1", "bool"), ("<f16", "long double, whose format the file"
                                                      " does not say .x87 80-bit extended on"
                                                      " x86, IEEE quadruple on ARM."),
                            ("<u16", "not a real number type")):
            self.assertRejects("dtype %r is %s" % (descr, kind), "l.npy",
                               npy_bytes(b"", (1, 1), descr))
        self.assertRejects("data bytes for shape", "l.npy", npy_bytes([1, 2], (2, 2)))
        self.assertRejects("must be a 2-D array", "l.npy", npy_bytes([1] * 8, (2, 2, 2)))

    def test_unknown_extension(self):
        self.assertRejects("unknown file type '.xlsx'", "l.xlsx", "1")

    def test_numbers_with_another_files_separator_are_a_row_not_a_header(self):
        # A .csv saved with semicolons or tabs: the error is on line 1 and
        # says which separator the file was read with.
        for name, content, holds in (("s.csv", "1;0\n0;1\n", "semicolons"),
                                     ("x.csv", "1\t0\n0\t1\n", "tabs"),
                                     ("c.tsv", "1,0\n0,1\n", "commas")):
            with self.subTest(name=name):
                self.assertRejects(r"line 1, column 1: .* is not a number \(it holds %s; this"
                                   r" file's fields are separated by (commas|tabs)" % holds,
                                   name, content)

    def test_a_txt_with_a_semicolon_is_read_with_semicolons_and_says_so(self):
        self.assertRejects(r"line 1, column 1: '1 2' is not a number \(it holds spaces; this"
                           r" file's fields are separated by semicolons", "m.txt",
                           "1 2\n3 4\n5;6\n")

    def test_a_header_of_words_is_still_a_header(self):
        notes = []
        path = self.write("h.csv", "logit a;logit b,x\n1,2\n")
        self.assertEqual(read_layer(path, note=notes.append), ([[1, 2]], None))
        self.assertEqual(len(notes), 2)
        self.assertIn("line 1 is taken as a header", notes[0])
        self.assertIn("1 class of dimension d = 2", notes[1])

    def test_a_folder_or_device_without_extension_is_named_as_such(self):
        with self.assertRaisesRegex(InputError, "it is a directory without a weights file"):
            read_layer(self.folder.name)
        if os.path.exists("/dev/zero"):
            with self.assertRaisesRegex(InputError, "it is a character device"):
                read_layer("/dev/zero")

    def test_bias_twice(self):
        bias = self.write("b.csv", "1\n")
        self.assertRejects("already has a bias", "l.json", '{"weights": [[1]], "bias": [0]}', bias)

    def test_bias_must_be_one_dimensional(self):
        bias = self.write("b.csv", "1,2\n3,4\n")
        self.assertRejects("one number per class", "l.json", '{"weights": [[1], [2]]}', bias)


class TestNumberText(FileTestCase):
    """A strict ASCII grammar and the size limit,
    applied while reading, with the file, the place and the limit named."""

    def assertRejects(self, message, name, content):
        path = self.write(name, content)
        with self.assertRaisesRegex(InputError, "^%s: %s" % (path, message)):
            read_layer(path)

    def test_a_huge_exponent_is_refused_at_once_with_its_place(self):
        for number in ("1e999999999", "1e-999999999", "-2.5E+99999999999999999999"):
            with self.subTest(number=number):
                shown = re.escape(repr(number))
                self.assertRejects("line 2, column 1: %s is %s" % (shown, LIMIT),
                                   "l.csv", "2,3\n%s,1\n" % number)
                shown = re.escape(repr(number.replace("+", "")))
                self.assertRejects(r"weights\[1\]\[0\] is %s, %s" % (shown, LIMIT),
                                   "l.json", "[[2, 3], [%s, 1]]" % number.replace("+", ""))

    def test_zero_with_a_huge_exponent_is_zero(self):
        path = self.write("l.csv", "0e99999999999999999999,1\n")
        self.assertEqual(read_layer(path)[0], [[0, 1]])

    def test_integers_past_4300_digits_are_exact_values(self):
        big = Decimal("7" * 5000)
        layer = self.write("l.json", '{"weights": [[1], [-1]], "bias": [%s, 0]}' % big)
        weights, bias = read_layer(layer)
        self.assertEqual(bias, [big, 0])
        self.assertEqual(exact_layer(weights, bias)[1][0], int(big))
        self.assertEqual(read_layer(self.write("l.csv", "1,%s\n" % big))[0], [[1, big]])

    def test_integers_past_the_size_limit_are_refused(self):
        self.assertRejects(r"weights\[0\]\[0\] is '9{57}'\.\.\., " + LIMIT,
                           "l.json", "[[%s]]" % ("9" * 20000))

    def test_only_ascii_digits_make_a_number(self):
        for text in ("1_000", "\uff11", "\u0661", "\u0967", "0x10", "1e", "--1", "1.2.3"):
            with self.subTest(text=text):
                self.assertRejects("line 1, column 2: %s is not a number" % re.escape(repr(text)),
                                   "l.csv", "0,%s\n" % text)

    def test_a_long_run_of_digits_before_a_letter_is_not_a_number(self):
        # With an ambiguous grammar the failed match backtracked for minutes.
        self.assertRejects(r"line 1, column 2: '1{57}'\.\.\. is not a number",
                           "l.csv", "0,%sx\n" % ("1" * 100000))

    def test_plain_forms_of_a_number(self):
        path = self.write("l.csv", "+1.5e-1, .5 ,2.,-0\t\n")
        self.assertEqual(read_layer(path)[0],
                         [[Decimal("0.15"), Decimal("0.5"), Decimal(2), Decimal(0)]])

    def test_infinities_and_nans_are_not_finite(self):
        for text in ("inf", "-Infinity", "nan", "sNaN"):
            with self.subTest(text=text):
                self.assertRejects("line 1, column 1: %r is not a finite number" % text,
                                   "l.csv", "%s\n" % text)


class TestTextCosts(FileTestCase):
    """A text layer's numbers: at most MAX_TEXT_VALUES, short ones shared,
    none made a Fraction on its way to the check's integers (an 8 MiB CSV
    of zeros took 16.5 s and 790 MB, now 8.9 s and 97 MB)."""

    def test_more_numbers_than_the_limit_are_refused_as_they_are_read(self):
        for name, content in (("l.csv", "1,2\n3,4\n5,6\n"),
                              ("l.json", "[[1, 2], [3, 4], [5, 6]]"),
                              ("l.txt", "a 1 2\nb 3 4\nc 5 6\n")):
            with self.subTest(name=name):
                path = self.write(name, content)
                with mock.patch("reviews.formats.number_text.MAX_TEXT_VALUES", 6):
                    self.assertEqual(len(read_layer(path)[0]), 3)
                with mock.patch("reviews.formats.number_text.MAX_TEXT_VALUES", 5):
                    with self.assertRaises(InputError) as caught:
                        read_layer(path)
                self.assertEqual(str(caught.exception), "%s: more than 5 numbers, past the limit"
                                 " of a text layer (save a larger one as .npy or .safetensors)"
                                 % path)

    def test_a_short_number_is_one_decimal_wherever_it_is_spelt(self):
        weights, _ = read_layer(self.write("l.csv", "0,0.5,123456\n0,0.5,123456\n"))
        self.assertIs(weights[0][0], weights[1][0])
        self.assertIs(weights[0][1], weights[1][1])
        self.assertEqual(weights[0][2], weights[1][2])   # a long one is read each time

    def test_rows_of_decimals_and_ints_reach_the_integers_without_a_fraction_each(self):
        weights = [[Decimal("0.5"), 3], [Decimal("-1.25"), 0]]
        with mock.patch("reviews.argmax.kernels.layer_input.finite") as each:
            self.assertEqual(layer_input.integer_layer(weights, None),
                             ([[2, 12], [-5, 0]], None, 4))
        each.assert_not_called()
        # Past the plain range, each entry is checked against the size limit.
        with self.assertRaisesRegex(InputError, "weights\\[0\\]\\[0\\] is .* past the size"):
            layer_input.integer_layer([[Decimal("1e-99999")]], None)


class TestCsvRows(FileTestCase):
    """A row ends only at \\n, \\r\\n or \\r."""

    def test_other_separators_inside_a_field_are_errors(self):
        for separator in "\x1c\x1d\x1e\x85\u2028\u2029\x0b\x0c\x00":
            with self.subTest(separator=separator):
                path = self.write("l.csv", "1,2\n3,4%s5,6\n" % separator)
                message = "line 2, column 2: %s is not a number" % re.escape(repr("4%s5" % separator))
                with self.assertRaisesRegex(InputError, message):
                    read_layer(path)

    def test_every_line_ending_counts_one_line(self):
        path = self.write("l.csv", "1,2\r\n3,4\r5,6\n\r\n7,x\n")
        with self.assertRaisesRegex(InputError, "line 5, column 2: 'x' is not a number"):
            read_layer(path)
        path = self.write("l.csv", "1,2\r\n3,4\r5,6\n")
        self.assertEqual(read_layer(path)[0], [[1, 2], [3, 4], [5, 6]])

    def test_a_form_feed_line_is_an_error_on_its_own_line(self):
        path = self.write("l.csv", "1,2\n\x0c\n3,x\n")
        with self.assertRaisesRegex(InputError, r"line 2, column 1: '\\x0c' is not a number"):
            read_layer(path)

    def test_quoted_fields_are_refused_not_joined(self):
        path = self.write("l.csv", '3,"1\n2"\n4,5\n')
        with self.assertRaisesRegex(InputError, "line 1, column 2: '\"1' is quoted"):
            read_layer(path)
        # A first line without a number is a header; the quote's end is not.
        path = self.write("l.csv", '"1\n2",3\n4,5\n')
        with self.assertRaisesRegex(InputError, "line 2, column 1: '2\"' is quoted"):
            read_layer(path)
        path = self.write("l.csv", '"1",3\n')
        with self.assertRaisesRegex(InputError, "line 1, column 1: '\"1\"' is quoted"):
            read_layer(path)

    def test_empty_fields_are_errors(self):
        path = self.write("l.csv", "1,2\n3,,4\n")
        with self.assertRaisesRegex(InputError, "line 2, column 2: '' is an empty field"):
            read_layer(path)

    def test_a_field_over_131072_characters_is_read(self):
        path = self.write("l.csv", "0.%s,1\n" % ("1" * 140000))
        with self.assertRaisesRegex(InputError, "line 1, column 1: '0.111.*'\\.\\.\\. is " + LIMIT):
            read_layer(path)
        path = self.write("l.csv", "0.%s,1\n" % ("1" * 19000))
        self.assertEqual(len(str(read_layer(path)[0][0][0])), 19002)

    def test_bytes_that_are_not_utf8_name_their_line(self):
        path = self.write("l.csv", b"1,2\n3,\xff\n")
        with self.assertRaisesRegex(InputError, "l.csv: line 2, byte 6 is not UTF-8 text"):
            read_layer(path)


class TestJsonStructure(FileTestCase):
    """JSON's depth, duplicate keys and shapes, and the bias file."""

    def assertRejects(self, message, content, bias=None, name="l.json"):
        path = self.write(name, content)
        with self.assertRaisesRegex(InputError, "^%s: %s" % (re.escape(path), message)):
            read_layer(path, bias)

    def test_deep_nesting_is_an_error_not_a_recursion(self):
        for depth in (1000, 100000):
            with self.subTest(depth=depth):
                self.assertRejects("line 1: nested more than 32 deep",
                                   "[" * depth + "1" + "]" * depth)

    def test_brackets_inside_strings_do_not_count(self):
        self.assertRejects(r"weights\[0\]\[1\] is '\[\[\[", '[[1, "%s"]]' % ("[" * 100))

    def test_an_unterminated_string_is_invalid_json(self):
        path = self.write("l.json", '"' + '\\"' * 5000)
        with self.assertRaisesRegex(InputError, "is not valid JSON: Unterminated string"):
            read_layer(path)

    def test_a_duplicate_key_is_an_error(self):
        self.assertRejects("the document is an object, with the key 'weights' twice",
                           '{"weights": [[1]], "weights": [[2]]}')
        self.assertRejects("the document is an object, with the key 'bias' twice",
                           '{"weights": [[1]], "bias": [1], "bias": [2]}')

    def test_an_object_says_which_shape_was_expected(self):
        self.assertRejects("weights is an object; expected a list of rows of numbers",
                           '{"weights": {"a": 1}}')
        self.assertRejects("bias is an object; expected a list of numbers, one per class",
                           '{"weights": [[1]], "bias": {"a": 1}}')
        self.assertRejects(r"weights\[0\] is 1, not a row; .* looks like a bias",
                           '{"weights": [1, 2]}')
        self.assertRejects(r"weights\[1\]\[0\] is a list, not a number",
                           '{"weights": [[1], [[2]]]}')
        self.assertRejects("weights is an empty list", '{"weights": []}')

    def test_a_long_number_out_of_place_is_echoed_briefly(self):
        self.assertRejects("bias is a number of 5001 digits, 10{19}\\.\\.\\.; expected a list of"
                           " numbers, one per class$",
                           '{"weights": [[1]], "bias": 1%s}' % ("0" * 5000))

    def test_a_bad_bias_file_is_named_in_its_own_error(self):
        layer = self.write("l.json", '{"weights": [[1], [2]]}')
        for name, content, message in (
                ("b.json", "[1, 1e999999999]", r"bias\[1\] is '1e999999999', " + LIMIT),
                ("b.json", '{"bias": [1, 2]}', "bias is an object; expected a list of numbers"),
                ("b.csv", "1\nx\n", "line 2, column 1: 'x' is not a number"),
                ("b.csv", "1\n2\n3\n", "has 3 numbers for the 2 classes of .*l.json")):
            with self.subTest(name=name, content=content):
                bias = self.write(name, content)
                with self.assertRaisesRegex(InputError, "^%s:? %s" % (re.escape(bias), message)):
                    read_layer(layer, bias)


class TestFiles(FileTestCase):
    """Regular files only, within a size limit."""

    def assertRefused(self, path, message):
        with self.assertRaisesRegex(InputError, "cannot read %s: %s" % (re.escape(path), message)):
            read_layer(path)

    @unittest.skipUnless(hasattr(os, "mkfifo"), "no FIFOs here")
    def test_a_fifo_without_a_writer_is_refused_not_waited_for(self):
        path = os.path.join(self.folder.name, "l.csv")
        os.mkfifo(path)
        self.assertRefused(path, "it is a FIFO, not a regular file")

    @unittest.skipUnless(hasattr(os, "symlink") and os.path.exists("/dev/zero"), "no /dev/zero")
    def test_a_device_behind_a_symlink_is_refused(self):
        path = os.path.join(self.folder.name, "l.csv")
        os.symlink("/dev/zero", path)
        self.assertRefused(path, "it is a character device, not a regular file")

    def test_a_directory_is_refused(self):
        path = os.path.join(self.folder.name, "l.json")
        os.mkdir(path)
        self.assertRefused(path, "it is a directory without a weights file")

    def test_a_text_file_past_64_mib_is_refused_unread(self):
        path = self.write("l.csv", "1," * 2 ** 20)
        with open(path, "r+b") as handle:
            handle.truncate(MAX_TEXT_BYTES + 1)  # sparse past 2 MiB, within MAX_HOLE_BYTES
        with self.assertRaisesRegex(InputError, "has 67108865 bytes, past the limit of 67108864"):
            read_layer(path)

    def test_a_read_error_after_the_open_is_one_input_error(self):
        # A failing disk: the file opens, then a read fails.
        class FailingDisk(io.FileIO):
            def readinto(self, buffer):
                raise OSError(errno.EIO, "Input/output error")

        for name, content in (("l.npy", npy_bytes([1, 2], (1, 2))), ("l.csv", "1,2\n")):
            with self.subTest(name=name):
                path = self.write(name, content)
                with mock.patch.object(io, "FileIO", FailingDisk):
                    with self.assertRaises(InputError) as caught:
                        read_layer(path)
                    out, err = io.StringIO(), io.StringIO()
                    self.assertEqual(main(["check-layer", path], out, err), 2)
                self.assertEqual(str(caught.exception),
                                 "cannot read %s: Input/output error" % path)
                self.assertEqual(err.getvalue(), "counterexamples: error: cannot read %s:"
                                                 " Input/output error\n" % path)

    @unittest.skipUnless(os.path.exists("/proc/self/mem"), "no /proc/self/mem here")
    def test_a_file_that_opens_but_cannot_be_read_is_one_input_error(self):
        path = os.path.join(self.folder.name, "mem.npy")
        os.symlink("/proc/self/mem", path)
        with self.assertRaisesRegex(InputError, "^cannot read %s: " % re.escape(path)):
            read_layer(path)

    def sparse(self, name, head, holes, tail=b""):
        """A file of ``head``, ``holes`` bytes never written, then ``tail``;
        the test is skipped where the file system writes the holes out."""
        path = self.write(name, head)
        with open(path, "r+b") as handle:
            handle.truncate(len(head) + holes)
            handle.seek(0, os.SEEK_END)
            handle.write(tail)
        if 512 * getattr(os.stat(path), "st_blocks", 0) > len(head) + len(tail) + 2 ** 20:
            os.remove(path)
            self.skipTest("this file system stores no holes")
        return path

    @unittest.skipUnless(hasattr(os, "SEEK_HOLE"), "finds no holes here")
    def test_a_file_of_holes_is_refused_before_its_bytes_are_hashed(self):
        # A small head beside four tensors of 2**26 float64 values each, all
        # holes: the head reads at once, but the report would hash 2 GiB.
        from tests.support.arrays import raw, safetensors_bytes
        tensors = [("t%d" % n, "F64", (2 ** 26,), b"") for n in range(4)]
        header = safetensors_bytes([("head", "F32", (2, 2), b"")] + tensors,
                                   offsets=dict({"head": [0, 16]}, **{
                                       "t%d" % n: [16 + n * 2 ** 29, 16 + (n + 1) * 2 ** 29]
                                       for n in range(4)}))
        path = self.sparse("m.safetensors", header + raw([1, 0, 0, 1], "f"), 2 ** 31)
        with self.assertRaises(InputError) as caught:
            read_layer(path, tensor="head")
        self.assertEqual(str(caught.exception),
                         "cannot read %s: it is a sparse file, more than 67108864 of its %d"
                         " bytes holes never written (more than 64 MiB are refused: its SHA-256"
                         " would read them all)" % (path, os.path.getsize(path)))

    @unittest.skipUnless(hasattr(os, "SEEK_HOLE"), "finds no holes here")
    def test_an_npz_behind_a_hole_is_refused(self):
        from tests.support.arrays import npz_bytes
        path = self.sparse("m.npz", b"", 20 * 2 ** 30,
                           npz_bytes([("w.npy", npy_bytes([1, 0, 0, 1], (2, 2)))]))
        with self.assertRaisesRegex(InputError, "it is a sparse file, more than 67108864 of its"
                                                " 21474836"):
            read_layer(path)
        # Holes within the limit are read: zeros, as in a sparse copy of a real file.
        path = self.sparse("m.npy", npy_bytes(b"", (2 ** 17, 2)), 2 ** 21)
        self.assertEqual(listed(read_layer(path)[0]), [[0, 0]] * 2 ** 17)


class TestNpyHeader(FileTestCase):
    """The header is checked by a strict grammar before any
    value is parsed or any row allocated."""

    def assertRejects(self, message, shape, data=b""):
        path = self.write("l.npy", npy_bytes([], shape) + data)
        with self.assertRaisesRegex(InputError, "^%s: %s" % (re.escape(path), message)):
            read_layer(path)

    def test_a_zero_dimension_is_refused_before_any_row_exists(self):
        for rows in (10 ** 9, 10 ** 7):
            with self.subTest(rows=rows):
                self.assertRejects(r"shape \(%d, 0\) has rows of length 0: the dimension d must"
                                   " be at least 1" % rows, (rows, 0))
        self.assertRejects(r"shape \(0, 3\) has no classes", (0, 3))

    def test_shapes_that_are_not_tuples_of_non_negative_integers(self):
        expected = "expected 'shape' to be a tuple of non-negative integers, found "
        for shape, found in (("(3.0, 2)", re.escape("'.0, 2), }'")), ("'32'", "\"'32', }\""),
                             ("(-1, -6)", re.escape("'-1, -6), }'")),
                             ("(" + "-" * 5000 + "1, 6)", "'-{20}'"),
                             ("(" + "1+" * 2000 + "1, 6)", "'(\\+1){10}'"), ("(True, 2)", "'True"),
                             ("(01, 2)", "'01, 2"), ("[3, 2]", "'\\[3, 2")):
            with self.subTest(shape=shape[:20]):
                self.assertRejects(r"byte \d+ \(in the \.npy header\): " + re.escape(expected)
                                   + found, shape)

    def test_a_long_header_is_refused_unparsed(self):
        self.assertRejects(r"the \.npy header has 10\d{3} bytes, past the limit of 10000",
                           "(" + "1+" * 5000 + "1, 6)")

    def test_other_header_mistakes(self):
        for header, message in (
                ("{'descr': '<f8', 'shape': (1,), }", "key 'fortran_order' is missing"),
                ("{'descr': '<f8', 'descr': '<f8', }", "key 'descr' comes twice"),
                ("{'descr': '<f8', 'fortran_order': 0, }", "expected 'fortran_order' to be True"),
                ("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}",
                 "key 'x' is not descr, fortran_order or shape"),
                ("{'descr': '<f8', 'fortran_order': False, 'shape': (1,)} x",
                 "expected the header to end after }"),
                ("{'descr': '<f8', 'fortran_order': False, 'shape': (1)}",
                 r"'shape' \(n\) is not a tuple"),
                ("{'descr': '<f8', 'fortran_order': False, 'shape': (%s,)}" % ("9" * 19),
                 "'shape' is past the limit of 32 dimensions, each below 10\\*\\*18"),
                ("{'descr': '<f8', 'fortran_order': False, 'shape': (%s)}" % ("1, " * 33),
                 "'shape' is past the limit of 32 dimensions")):
            with self.subTest(header=header):
                path = self.write("l.npy", b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header))
                                  + header.encode())
                with self.assertRaisesRegex(InputError, r"byte \d+ \(in the \.npy header\): "
                                            + message):
                    read_layer(path)

    def test_the_byte_offset_is_counted_from_the_start_of_the_file(self):
        header = "{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}"
        path = self.write("l.npy", b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header))
                          + header.encode())
        with self.assertRaisesRegex(InputError, "byte %d " % (10 + header.index("-"))):
            read_layer(path)

    def test_more_values_than_the_limit_are_refused_before_reading(self):
        self.assertRejects(r"shape \(65537, 32768\) is past the limit of %d values"
                           % MAX_VALUES, (65537, 32768))

    def test_a_long_empty_shape_is_echoed_briefly(self):
        self.assertRejects(r"weights must be a 2-D array, not shape \(0, (9{17}, ){3}\.\.\. 32"
                           r" dimensions\)$", (0,) + (10 ** 17 - 1,) * 31)

    def test_missing_data_is_refused_before_reading(self):
        self.assertRejects(r"0 data bytes for shape \(10000000, 1\), expected 80000000",
                           (10 ** 7, 1))

    def test_a_header_past_the_end_of_the_file(self):
        path = self.write("l.npy", b"\x93NUMPY\x01\x00\xff\x00{}")
        with self.assertRaisesRegex(InputError, "header has 255 bytes, past the end of the file"):
            read_layer(path)


class TestNpyValues(FileTestCase):
    """Rows come straight from one buffer of the file's data."""

    def test_fortran_order_in_three_dimensions_reads_in_c_order(self):
        values = list(range(24))
        # Value (i, j, k) of a Fortran-order (2, 3, 4) array is at i + 2*j + 6*k.
        path = self.write("l.npy", npy_bytes(values, (2, 3, 4), fortran=True))
        expected = [float(i + 2 * j + 6 * k) for i in range(2) for j in range(3) for k in range(4)]
        self.assertEqual(read_npy(path), ((2, 3, 4), expected))

    def test_axes_of_length_one_cost_no_reordering_steps(self):
        # 30 axes of length 1 between two others: one step per value of
        # the first axis, not one per axis and value.
        shape = (3,) + (1,) * 30 + (2,)
        path = self.write("l.npy", npy_bytes([0, 1, 2, 3, 4, 5], shape, fortran=True))
        with mock.patch.object(layers, "_c_order", wraps=layers._c_order) as steps:
            self.assertEqual(read_npy(path), (shape, [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]))
        self.assertEqual(steps.call_count, 1 + 3)

    def test_reading_costs_the_data_once_beyond_the_rows(self):
        rows, width = 500, 64
        values = [(k % 1000) / 8 for k in range(rows * width)]
        for descr in ("<f4", ">f8"):
            with self.subTest(descr=descr):
                path = self.write("l.npy", npy_bytes(values, (rows, width), descr))
                data = rows * width * int(descr[2])
                tracemalloc.start()
                try:
                    weights, _ = read_layer(path)
                    retained, peak = tracemalloc.get_traced_memory()
                finally:
                    tracemalloc.stop()
                self.assertEqual(weights[499][63], values[-1])
                self.assertLessEqual(peak - retained, data + 65536)


if __name__ == "__main__":
    unittest.main()
