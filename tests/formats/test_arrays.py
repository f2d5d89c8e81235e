"""Tests of the model-file readers: .safetensors, .npz, .npy of
every real dtype, separated text, choosing arrays and transposing.

Every file is written here by hand (struct, zipfile), and the values read
are compared with the exact values the bytes hold."""

import decimal
import io
import os
import struct
import unittest
import zipfile
import zlib
from unittest import mock

from reviews.argmax.check import check_layer
from reviews.errors import InputError
from reviews.formats.layers import read_layer, read_npy
from reviews.formats.source import MAX_VALUES
from tests.support import FileTestCase, listed
from tests.support.models import model, rows, safetensors_tensor
from tests.support.arrays import npy_bytes
from tests.support.arrays import raw, header_bytes, safetensors_bytes, npz_bytes

FIGURE_1 = [[-2.0, -2.0], [1.0, 2.0], [1.8, -0.8], [0.9, 0.2]]


class TestSafetensors(FileTestCase):

    def test_more_tensors_than_the_limit_are_refused_before_the_header_is_parsed(self):
        tensors = [("t%d" % n, "F32", (1,), raw([n], "f")) for n in range(3)]
        head = [("head", "F32", (2, 2), raw([1, 0, 0, 1], "f"))]
        with mock.patch("reviews.formats.safetensors.MAX_TENSORS", 4):
            path = self.write("m.safetensors", safetensors_bytes(head + tensors,
                                                                 metadata={"a": "b"}))
            self.assertEqual(listed(read_layer(path, tensor="head")[0]), [[1, 0], [0, 1]])
            path = self.write("m.safetensors", safetensors_bytes(
                head + tensors + [("t%d" % n, "F32", (1,), raw([n], "f")) for n in (3, 4)]))
            with mock.patch("json.loads") as parse, self.assertRaises(InputError) as caught:
                read_layer(path, tensor="head")
            parse.assert_not_called()
        self.assertEqual(str(caught.exception), "%s (header): more than 4 tensors, past the limit"
                                                " of a .safetensors file" % path)
        # One more without __metadata__ is parsed first, and refused as well.
        with mock.patch("reviews.formats.safetensors.MAX_TENSORS", 3):
            with self.assertRaisesRegex(InputError, "more than 3 tensors"):
                read_layer(self.write("m.safetensors", safetensors_bytes(head + tensors)),
                           tensor="head")

    def test_the_headers_sizes_are_read_as_ints(self):
        # Cheaper than a Decimal each: 65,536 tensors of 32 dimensions took
        # 5.2 s and 407 MB with Decimals, 3.4 s and 161 MB with ints.
        with mock.patch("reviews.formats.number_text.decimal.Decimal",
                        side_effect=AssertionError("a Decimal was made")):
            path = self.write("m.safetensors", safetensors_bytes(
                [("head", "F32", (1, 1, 2, 2), raw([1, 0, 0, 1], "f"))]))
            with self.assertRaisesRegex(InputError, "weights must be a 2-D array"):
                read_layer(path)

    def test_weights_and_bias_give_check_layers_verdicts(self):
        flat = [v for row in FIGURE_1 for v in row]
        path = self.write("m.safetensors", safetensors_bytes(
            [("lm_head.weight", "F64", (4, 2), raw(flat, "d")),
             ("final_logits_bias", "F32", (1, 4), raw([0, 0, 0, 0.5], "f"))],
            metadata={"format": "pt"}))
        weights, bias = read_layer(path, bias_tensor="final_logits_bias")
        self.assertEqual((listed(weights), bias), (FIGURE_1, [0.0, 0.0, 0.0, 0.5]))
        self.assertEqual([r.argmaxable for r in check_layer(weights)], [True, True, True, False])

    def test_half_precision_values_are_exact(self):
        halves = [0.1, -65504.0, 2 ** -24, 3.0]
        f16 = [struct.unpack("<e", struct.pack("<e", v))[0] for v in halves]
        # bfloat16: the high half of a float32.
        bf16 = b"".join(struct.pack("<f", v)[2:] for v in halves)
        path = self.write("m.safetensors", safetensors_bytes(
            [("a", "F16", (2, 2), raw(halves, "e")), ("b", "BF16", (2, 2), bf16)]))
        # Widened to float32 exactly, and kept as arrays of float32 ("f").
        self.assertEqual([(row.typecode, list(row)) for row in read_layer(path, tensor="a")[0]],
                         [("f", f16[:2]), ("f", f16[2:])])
        widened = [struct.unpack("<f", b"\0\0" + struct.pack("<f", v)[2:])[0] for v in halves]
        self.assertEqual([(row.typecode, list(row)) for row in read_layer(path, tensor="b")[0]],
                         [("f", widened[:2]), ("f", widened[2:])])
        self.assertEqual(widened[0], 0.099609375)

    def test_integer_types_are_exact(self):
        cases = (("I8", "b", [-128, 127]), ("U8", "B", [0, 255]), ("I16", "h", [-32768, 7]),
                 ("U16", "H", [65535, 1]), ("I32", "i", [-2 ** 31, 5]), ("U32", "I", [2 ** 32 - 1, 0]),
                 ("I64", "q", [-2 ** 63, 2 ** 63 - 1]), ("U64", "Q", [2 ** 64 - 1, 3]))
        for dtype, code, values in cases:
            with self.subTest(dtype=dtype):
                path = self.write("m.safetensors", safetensors_bytes(
                    [("w", dtype, (2, 1), raw(values, code))]))
                self.assertEqual(read_layer(path)[0], [[values[0]], [values[1]]])

    def test_only_the_tensors_asked_for_are_read(self):
        nan = raw([float("nan")] * 4, "f")
        path = self.write("m.safetensors", safetensors_bytes(
            [("junk", "F32", (2, 2), nan), ("w", "F32", (2, 2), raw([1, 2, 3, 4], "f"))]))
        self.assertEqual(listed(read_layer(path, tensor="w")[0]), [[1.0, 2.0], [3.0, 4.0]])
        with self.assertRaisesRegex(InputError, r"weights\[0\]\[0\] is nan, not a finite number"):
            read_layer(path, tensor="junk")

    def test_a_dtype_not_read_is_named(self):
        for dtype in ("F8_E4M3", "BOOL", "C64"):
            with self.subTest(dtype=dtype):
                path = self.write("m.safetensors", safetensors_bytes([("w", dtype, (1, 1), b"\0")]))
                with self.assertRaisesRegex(InputError, "tensor 'w': dtype '%s' is not read" % dtype):
                    read_layer(path)

    def test_a_dtype_that_is_a_list_or_an_object_is_named_not_a_type_error(self):
        for dtype, shown in ((["F64"], "a list"), ({"F64": 1}, "an object")):
            with self.subTest(dtype=dtype):
                path = self.write("m.safetensors", safetensors_bytes(
                    [("w", dtype, (1, 1), b"\0" * 8)]))
                with self.assertRaisesRegex(InputError, "tensor 'w': dtype %s is not read" % shown):
                    read_layer(path)

    def test_offsets_are_checked_before_reading(self):
        w = ("w", "F32", (1, 2), raw([1, 2], "f"))
        b = ("b", "F32", (2,), raw([1, 2], "f"))
        for offsets, message in (
                ({"w": [0, 4]}, r"data_offsets \[0, 4\] hold 4 bytes; shape \(1, 2\) of F32 needs 8"),
                ({"b": [4, 12]}, "tensor 'b': data_offsets start at 4; the data before it ends at 8"),
                ({"b": [8, 2 ** 64 - 1]}, "hold 18446744073709551607 bytes"),
                ({"b": [8, 2 ** 64]}, r"data_offsets\[1\] is 18446744073709551616, past 2\*\*64 - 1"),
                ({"b": [16, 24]}, "data_offsets start at 16; the data before it ends at 8"),
                ({"w": [0, -8]}, r"data_offsets is a list; expected \[begin, end\]"),
                ({"w": [0, 8, 9]}, r"expected \[begin, end\]")):
            with self.subTest(offsets=offsets):
                path = self.write("m.safetensors", safetensors_bytes([w, b], offsets=offsets))
                with self.assertRaisesRegex(InputError, message):
                    read_layer(path, tensor="w")
        path = self.write("m.safetensors", safetensors_bytes([w, b]) + b"\0")
        with self.assertRaisesRegex(InputError, "the tensors end at byte 16 of the data, which has 17"):
            read_layer(path, tensor="w")

    def test_a_shape_past_the_value_limit_is_refused_unread(self):
        path = self.write("m.safetensors", safetensors_bytes(
            [("w", "F32", (10 ** 9, 10 ** 9), b"")], offsets={"w": [0, 4 * 10 ** 18]}))
        with self.assertRaisesRegex(InputError,
                                    "tensor 'w': shape .* past the limit of %d" % MAX_VALUES):
            read_layer(path)

    def assertShortRefusal(self, content, message, **options):
        """read_layer refuses the file with a message matching ``message``
        that echoes at most about 60 characters of any value."""
        path = self.write("m.safetensors", content)
        with self.assertRaisesRegex(InputError, message) as caught:
            read_layer(path, **options)
        self.assertLessEqual(len(str(caught.exception)) - len(path), 160)

    def test_integers_past_4300_digits_in_the_header_are_refused_briefly(self):
        # On Python 3.11 and later str() of such an int raises ValueError;
        # json's parse_int would too.
        header = b'{"w":{"dtype":"F64","shape":[1%s,2],"data_offsets":[0,32]}}' % (b"0" * 5000)
        self.assertShortRefusal(struct.pack("<Q", len(header)) + header + bytes(32),
                                r"tensor 'w': shape\[0\] is a number of 5001 digits, 10{19}\.\.\.,"
                                r" past 2\*\*64 - 1")
        header = b'{"w":{"dtype":"F64","shape":[2,2],"data_offsets":[1%s,32]}}' % (b"0" * 5000)
        self.assertShortRefusal(struct.pack("<Q", len(header)) + header + bytes(32),
                                r"data_offsets\[0\] is a number of 5001 digits, 10{19}\.\.\.,"
                                r" past 2\*\*64 - 1")

    def test_a_long_shape_is_refused_briefly(self):
        for shape in ([1] * 100000, [0] + [99999999999] * 30000):
            with self.subTest(length=len(shape)):
                self.assertShortRefusal(safetensors_bytes([("w", "F64", shape, b"")],
                                                          offsets={"w": [0, 0]}),
                                        r"tensor 'w': shape is a list; expected a list of"
                                        r" non-negative integers \(at most 32\)")

    def test_a_count_past_the_limit_is_not_echoed(self):
        self.assertShortRefusal(safetensors_bytes([("w", "F64", [2 ** 40, 2 ** 40], b"")],
                                                  offsets={"w": [0, 0]}),
                                r"shape \(1099511627776, 1099511627776\) is past the limit of"
                                " %d values$" % MAX_VALUES)

    def test_sizes_past_u64_are_refused_before_their_int_is_built(self):
        # int(Decimal("1e19000")) takes about 0.1 s: 32 of them took 3.6 s.
        converted = []

        class Int(int):
            def __new__(cls, value=0, *base):
                if isinstance(value, decimal.Decimal):
                    converted.append(value)
                return int(value, *base)

        header = b'{"w":{"dtype":"F64","shape":[1e19000,0],"data_offsets":[0,0]}}'
        with mock.patch("reviews.formats.safetensors.int", Int, create=True):
            self.assertShortRefusal(struct.pack("<Q", len(header)) + header,
                                    r"shape\[0\] is 1E\+19000, past 2\*\*64 - 1")
        self.assertEqual(converted, [])

    def test_an_empty_array_with_huge_sizes_is_refused_briefly(self):
        self.assertShortRefusal(safetensors_bytes([("w", "F64", [0, 2 ** 64 - 1], b"")]),
                                r"shape \(0, 18446744073709551615\) has no classes")
        self.assertShortRefusal(safetensors_bytes([("w", "F64", [0] * 32, b"")]),
                                r"weights must be a 2-D array, not shape \(0, 0, .*\.\.\. 32"
                                r" dimensions\)$")

    def test_a_long_name_is_echoed_briefly(self):
        name = "n" * 1000
        self.assertShortRefusal(safetensors_bytes([(name, "F64", [2], raw([1, 2], "d"))]),
                                "'n{57}'... has shape \\(2,\\): one number per class")

    def test_broken_headers(self):
        for content, message in (
                (b"\1\2", "shorter than 8 bytes"),
                (b"\xff" * 8 + b"{}", "header length 18446744073709551615 is past the end"),
                (struct.pack("<Q", 2) + b"[]", "does not start with {"),
                (struct.pack("<Q", 4) + b"{,} ", r"\(header\) is not valid JSON"),
                (struct.pack("<Q", 2) + b"\xff}", r"byte 8 \(in the header\) is not UTF-8"),
                (header_bytes({"w": {"dtype": "F32", "shape": [1, -1], "data_offsets": [0, 0]}}),
                 "tensor 'w': shape is a list; expected a list of non-negative integers"),
                (header_bytes({"w": {"dtype": "F32", "shape": [1.5], "data_offsets": [0, 0]}}),
                 "tensor 'w': shape is a list; expected"),
                (header_bytes({"w": {"dtype": "F32", "shape": [], "data_offsets": [0, 4], "x": 1}}),
                 "tensor 'w' is an object; expected"),
                (struct.pack("<Q", 40) + b'{"__metadata__": {"a": 1}, "w": 1}'.ljust(40),
                 "__metadata__ is an object; expected an object of strings"),
                (struct.pack("<Q", 16) + b'{"a": 1, "a": 2}', "the header is an object, with the key"
                                                            " 'a' twice")):
            with self.subTest(content=content[:40]):
                with self.assertRaisesRegex(InputError, message):
                    read_layer(self.write("m.safetensors", content))


class TestChoosingArrays(FileTestCase):

    def setUp(self):
        super().setUp()
        self.path = self.write("m.safetensors", safetensors_bytes(
            [("embed", "F32", (3, 2), raw([1, 2, 3, 4, 5, 6], "f")),
             ("head", "F16", (3, 2), raw([1, 0, 0, 1, -1, -1], "e")),
             ("bias", "F32", (3,), raw([0, 0, 1], "f"))]))

    def test_several_2d_arrays_and_no_name_list_them_all(self):
        with self.assertRaisesRegex(InputError, r"holds 3 arrays; name the weights .*: 'embed' "
                                    r"\(3, 2\) F32; 'head' \(3, 2\) F16; 'bias' \(3,\) F32$"):
            read_layer(self.path)

    def test_an_unknown_name_lists_the_arrays(self):
        with self.assertRaisesRegex(InputError, "has no array 'lm_head'; it has: 'embed'"):
            read_layer(self.path, tensor="lm_head")

    def test_a_1d_array_as_weights_looks_like_a_bias(self):
        with self.assertRaisesRegex(InputError, r"'bias' has shape \(3,\): one number per class"
                                    " looks like a bias, not weights"):
            read_layer(self.path, tensor="bias")
        path = self.write("b.npy", npy_bytes([1, 2], (2,)))
        with self.assertRaisesRegex(InputError, "looks like a bias"):
            read_layer(path)

    def test_named_weights_and_bias(self):
        weights, bias = read_layer(self.path, tensor="head", bias_tensor="bias")
        self.assertEqual((listed(weights), bias), ([[1, 0], [0, 1], [-1, -1]], [0, 0, 1]))

    def test_the_bias_from_another_file_is_its_only_1d_array(self):
        layer = self.write("l.csv", "1,0\n0,1\n-1,-1\n")
        self.assertEqual(read_layer(layer, self.path)[1], [0, 0, 1])
        with self.assertRaisesRegex(InputError, r"a bias is one number per class, not shape \(3, 2\)"):
            read_layer(layer, self.path, bias_tensor="head")

    def test_transpose_reads_columns_as_classes(self):
        weights, _ = read_layer(self.path, tensor="embed", transpose=True)
        self.assertEqual(listed(weights), [[1, 3, 5], [2, 4, 6]])
        for fortran in (False, True):
            values = [1, 3, 5, 2, 4, 6] if fortran else [1, 2, 3, 4, 5, 6]
            path = self.write("l.npy", npy_bytes(values, (3, 2), fortran=fortran))
            with self.subTest(fortran=fortran):
                self.assertEqual(listed(read_layer(path, transpose=True)[0]), [[1, 3, 5], [2, 4, 6]])
        path = self.write("l.csv", "1,2\n3,4\n5,6\n")
        self.assertEqual(listed(read_layer(path, transpose=True)[0]), [[1, 3, 5], [2, 4, 6]])

    def test_the_only_array_of_one_value_per_class_is_the_bias_with_a_note(self):
        # A model file keeps the head's bias beside its weights: dropping it
        # silently would change the verdicts.
        notes = []
        weights, bias = read_layer(self.path, tensor="head", note=notes.append)
        self.assertEqual((listed(weights), bias), ([[1, 0], [0, 1], [-1, -1]], [0, 0, 1]))
        self.assertEqual(notes, ["%s: array 'bias' (3,) (one value per class) is read as the bias;"
                                 " name another with bias_tensor=... or --bias-tensor, or"
                                 " none with no_bias=True or --no-bias"
                                 % self.path])

    def test_weights_named_keep_the_bias_beside_them_by_name(self):
        # Two arrays of one value per class: only the names pair one with the weights.
        for weights, bias in (("fc_w", "fc_b"), ("output_layer.W", "output_layer.b"),
                              ("proj.weight", "proj.bias"), ("dense/kernel:0", "dense/bias:0")):
            with self.subTest(weights=weights):
                path = self.write("pair.npz", npz_bytes([
                    (weights + ".npy", npy_bytes([1, 0, 0, 1, 1, 1], (3, 2))),
                    ("other.npy", npy_bytes([5, 5, 5], (3,))),
                    (bias + ".npy", npy_bytes([0, 0, -1], (3,)))]))
                notes = []
                self.assertEqual(read_layer(path, tensor=weights, note=notes.append)[1],
                                 [0, 0, -1])
                self.assertEqual(notes[0], "%s: array %r (3,) is read as the bias (the bias of"
                                           " %r by its name); name another with bias_tensor=..."
                                           " or --bias-tensor, or none with no_bias=True or"
                                           " --no-bias" % (path, bias, weights))

    def test_a_bias_by_name_of_the_columns_asks_for_the_transpose(self):
        # Keras keeps a Dense layer's kernel as (d, C).
        path = self.write("keras.npz", npz_bytes([
            ("dense/kernel:0.npy", npy_bytes([1, 0, 1, 0, 1, 1], (2, 3))),
            ("dense/bias:0.npy", npy_bytes([0, 0, -1], (3,)))]))
        with self.assertRaisesRegex(InputError, r"'dense/bias:0' \(3,\), the bias of"
                                                r" 'dense/kernel:0' by its name, does not have"
                                                r" one value for each of its 2 classes"):
            read_layer(path, tensor="dense/kernel:0")
        weights, bias = read_layer(path, tensor="dense/kernel:0", transpose=True)
        self.assertEqual((listed(weights), bias), ([[1, 0], [0, 1], [1, 1]], [0, 0, -1]))

    def test_no_bias_reads_w_x_alone_and_says_what_it_left(self):
        notes = []
        weights, bias = read_layer(self.path, tensor="head", no_bias=True, note=notes.append)
        self.assertEqual((listed(weights), bias), ([[1, 0], [0, 1], [-1, -1]], None))
        self.assertEqual(notes, ["%s: array 'bias' (3,) (one value per class) is not read: no"
                                 " bias is read (no_bias=True or --no-bias)" % self.path])
        path = self.write("l.json", '{"weights": [[0], [1]], "bias": [1, 0]}')
        notes = []
        self.assertEqual(read_layer(path, no_bias=True, note=notes.append), ([[0], [1]], None))
        self.assertEqual(notes, ["%s: its bias is not read: no bias is read (no_bias=True or"
                                 " --no-bias)" % path])

    def test_no_bias_with_a_bias_named_is_refused(self):
        for named in ({"bias_tensor": "bias"}, {"bias_path": self.path}):
            with self.subTest(named=named), self.assertRaisesRegex(
                    InputError, "^no_bias=True \\(--no-bias\\) reads no bias: do not also"
                                " name one"):
                read_layer(self.path, tensor="head", no_bias=True, **named)
        with self.assertRaisesRegex(TypeError, "^no_bias must be a bool, not int$"):
            read_layer(self.path, tensor="head", no_bias=1)

    def test_several_different_arrays_of_one_value_per_class_are_an_error_listing_them(self):
        # Leaving them unread checked the layer with no bias: a wrong answer.
        path = self.write("two.npz", npz_bytes([("w.npy", npy_bytes([1, 0, 0, 1], (2, 2))),
                                                ("b.npy", npy_bytes([0, 1], (2,))),
                                                ("c.npy", npy_bytes([1, 0], (2,)))]))
        with self.assertRaisesRegex(InputError, r"2 arrays of one value per class differ, and"
                                                r" any could be the head's bias: 'b' \(2,\)"):
            read_layer(path)
        weights, bias = read_layer(path, bias_tensor="c")
        self.assertEqual((listed(weights), bias), ([[1, 0], [0, 1]], [1, 0]))

    def test_equal_copies_of_one_value_per_class_are_one_bias_not_dropped(self):
        # ALBERT's .bin keeps its head's bias twice; both were left unread.
        path = self.write("two.npz", npz_bytes([("w.npy", npy_bytes([1, 0, 0, 1], (2, 2))),
                                                ("b.npy", npy_bytes([0, 1], (2,))),
                                                ("c.npy", npy_bytes([0, 1], (2,)))]))
        notes = []
        weights, bias = read_layer(path, note=notes.append)
        self.assertEqual((listed(weights), bias), ([[1, 0], [0, 1]], [0, 1]))
        self.assertIn("array 'b' (2,) (one value per class) is read as the bias, the same values"
                      " as 'c';", notes[0])

    def test_a_1d_array_of_another_length_is_not_the_bias_and_a_note_says_so(self):
        path = self.write("one.npz", npz_bytes([("w.npy", npy_bytes([1, 0, 0, 1], (2, 2))),
                                                ("b.npy", npy_bytes([0, 1, 2], (3,)))]))
        notes = []
        weights, bias = read_layer(path, note=notes.append)
        self.assertEqual((listed(weights), bias), ([[1, 0], [0, 1]], None))
        self.assertEqual(notes, ["%s: no bias read: no array has one value for each of the"
                                 " 2 classes ('b' (3,) <f8)" % path])

    def test_a_1_by_c_or_c_by_1_array_is_the_bias_named_or_not(self):
        # Marian keeps final_logits_bias as (1, C); read
        # without it, the middle class of three points on a line is
        # unargmaxable, with the bias [0, 1, 0] it is not.
        for shape in ((1, 3), (3, 1)):
            path = self.write("m.safetensors", safetensors_bytes(
                [("logits_bias", "F32", shape, raw([0, 1, 0], "f")),
                 ("shared", "F32", (3, 2), raw([0, 0, 1, 1, 2, 2], "f"))]))
            for tensor in (None, "shared"):
                with self.subTest(shape=shape, tensor=tensor):
                    notes = []
                    weights, bias = read_layer(path, tensor=tensor, note=notes.append)
                    self.assertEqual((listed(weights), bias), ([[0, 0], [1, 1], [2, 2]], [0, 1, 0]))
                    self.assertEqual(notes, ["%s: array 'logits_bias' %s (one value per"
                                             " class) is read as the bias; name another with"
                                             " bias_tensor=... or --bias-tensor, or none with"
                                             " no_bias=True or --no-bias"
                                             % (path, str(shape))])
                    self.assertEqual([r.argmaxable for r in check_layer(weights, bias)],
                                     [True, True, True])

    def test_marians_final_logits_bias_is_read_beside_the_named_embedding(self):
        path = model("marian-bias", "model.safetensors")
        weights, bias = read_layer(path, tensor="model.shared.weight")
        self.assertEqual(listed(weights), rows(*safetensors_tensor(path, "model.shared.weight")))
        shape, values = safetensors_tensor(path, "final_logits_bias")
        self.assertEqual((shape, bias), ((1, 257), values))

    def test_a_bias_like_array_left_unread_for_a_bias_file_gets_a_note(self):
        bias_file = self.write("b.json", "[5, 6, 7]")
        notes = []
        self.assertEqual(read_layer(self.path, bias_file, tensor="head", note=notes.append)[1],
                         [5, 6, 7])
        self.assertEqual(notes, ["%s: array 'bias' (3,) (one value per class) is not read: the"
                                 " bias comes from %s" % (self.path, bias_file)])

    def test_a_bias_file_given_is_the_bias_even_beside_such_an_array(self):
        bias_file = self.write("b.json", "[5, 6, 7]")
        self.assertEqual(read_layer(self.path, bias_file, tensor="head")[1], [5, 6, 7])

    def test_tensor_names_need_a_file_of_arrays(self):
        path = self.write("l.csv", "1,2\n")
        with self.assertRaisesRegex(InputError, "l.csv has no named arrays"):
            read_layer(path, tensor="w")


class TestNpz(FileTestCase):

    def test_bytes_before_the_archive_are_refused(self):
        member = [("w.npy", npy_bytes([1, 0, 0, 1], (2, 2)))]
        path = self.write("w.npz", b"\0" * 1000 + npz_bytes(member))
        with self.assertRaises(InputError) as caught:
            read_layer(path)
        self.assertEqual(str(caught.exception), "%s: 1000 bytes come before the first member of"
                                                " the zip archive" % path)
        self.assertEqual(listed(read_layer(self.write("w.npz", npz_bytes(member)))[0]),
                         [[1, 0], [0, 1]])

    def test_stored_and_deflated_members(self):
        members = [("arr_0.npy", npy_bytes([1, 2, 3, 4], (2, 2), "<f4")),
                   ("bias.npy", npy_bytes([0.5, -0.5], (2,)))]
        for compression in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            with self.subTest(compression=compression):
                path = self.write("m.npz", npz_bytes(members, compression))
                weights, bias = read_layer(path, bias_tensor="bias")
                self.assertEqual((listed(weights), bias), ([[1.0, 2.0], [3.0, 4.0]], [0.5, -0.5]))

    def test_damaged_archives(self):
        good = npz_bytes([("w.npy", npy_bytes([1, 2], (1, 2)))])
        damaged = good.replace(struct.pack("<d", 2), struct.pack("<d", 3))
        for content, message in (
                (b"PK not a zip", "not a readable zip archive"),
                (damaged, "member 'w.npy': the data does not match its CRC"),
                (npz_bytes([("w.txt", b"1,2")]), "member 'w.txt' is not a .npy file"),
                (npz_bytes([("w.npy", npy_bytes([1, 2], (1, 2)))] * 2),
                 "has two members called 'w.npy'"),
                (npz_bytes([("w.npy", b"\x93NUMPY\x01\x00")]), "member 'w.npy' is not a .npy file"),
                (npz_bytes([("w.npy", npy_bytes([1, 2], (2, 2)))]), "member 'w.npy': 16 data bytes"
                                                                    r" for shape \(2, 2\)")):
            with self.subTest(message=message):
                with self.assertRaisesRegex(InputError, message):
                    read_layer(self.write("m.npz", content))

    def test_a_compressed_member_past_four_values_per_compressed_byte_is_refused(self):
        # 2**17 int8 zeros deflate to a few hundred bytes: refused from the
        # header, before the data is inflated.
        content = npz_bytes([("w.npy", npy_bytes(bytes(2 ** 17), (2 ** 16, 2), "|i1"))],
                            zipfile.ZIP_DEFLATED)
        compressed = zipfile.ZipFile(io.BytesIO(content)).getinfo("w.npy").compress_size
        with self.assertRaisesRegex(
                InputError, r"member 'w.npy': shape \(65536, 2\) has 131072 values in %d compressed"
                            r" bytes, past the limit of 65536 \(4 per compressed byte, or 2\*\*16\)"
                            % compressed):
            read_layer(self.write("m.npz", content))

    def test_a_compressed_member_within_the_limit_is_read(self):
        # Exactly 2**16 values, however well they compress.
        content = npz_bytes([("w.npy", npy_bytes(bytes(2 ** 16), (2 ** 15, 2), "|i1"))],
                            zipfile.ZIP_DEFLATED)
        weights, _ = read_layer(self.write("m.npz", content))
        self.assertEqual((len(weights), list(weights[-1])), (2 ** 15, [0, 0]))

    def test_a_member_that_inflates_past_its_declared_size_is_refused(self):
        # The directory and the local header declare the .npy file and its
        # CRC; the deflated data holds 64 bytes more.
        npy = npy_bytes([1, 2, 3, 4], (2, 2))
        content = npz_bytes([("w.npy", npy + bytes(64))], zipfile.ZIP_DEFLATED)
        for old, new in ((zipfile.crc32(npy + bytes(64)), zipfile.crc32(npy)),
                         (len(npy) + 64, len(npy))):
            old, new = struct.pack("<I", old), struct.pack("<I", new)
            self.assertEqual(content.count(old), 2)
            content = content.replace(old, new)
        with self.assertRaisesRegex(InputError, "member 'w.npy' inflates past its declared %d"
                                                " bytes" % len(npy)):
            read_layer(self.write("m.npz", content))

    def test_bytes_after_a_members_deflate_stream_are_refused(self):
        # Written stored, then relabelled deflated (method 8) with the
        # .npy file's own size and CRC: the stream ends 4 bytes early.
        npy = npy_bytes([1, 2], (1, 2))
        squeeze = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
        payload = squeeze.compress(npy) + squeeze.flush() + b"junk"
        content = bytearray(npz_bytes([("w.npy", payload)]))
        for old, new in ((struct.pack("<I", zipfile.crc32(payload)),
                          struct.pack("<I", zipfile.crc32(npy))),
                         (struct.pack("<II", len(payload), len(payload)),
                          struct.pack("<II", len(payload), len(npy)))):
            self.assertEqual(content.count(old), 2)
            content = content.replace(old, new)
        content[content.find(b"PK\x03\x04") + 8] = content[content.find(b"PK\x01\x02") + 10] = 8
        with self.assertRaisesRegex(InputError, "member 'w.npy': the compressed data does not end"
                                                " at its declared %d bytes" % len(npy)):
            read_layer(self.write("m.npz", bytes(content)))

    def test_a_stored_member_must_declare_equal_sizes(self):
        content = npz_bytes([("w.npy", npy_bytes([1, 2], (1, 2)))])
        info = zipfile.ZipFile(io.BytesIO(content)).getinfo("w.npy")
        declared = struct.pack("<II", info.compress_size, info.file_size)
        self.assertEqual(content.count(declared), 2)
        content = content.replace(declared, struct.pack("<II", info.compress_size,
                                                        info.file_size + 8))
        with self.assertRaisesRegex(InputError, "member 'w.npy' is stored .* declares %d bytes"
                                                " in %d" % (info.file_size + 8, info.compress_size)):
            read_layer(self.write("m.npz", content))

    @unittest.skipUnless(hasattr(zipfile, "ZIP_BZIP2"), "no bz2")
    def test_other_compressions_are_refused(self):
        try:
            content = npz_bytes([("w.npy", npy_bytes([1], (1, 1)))], zipfile.ZIP_BZIP2)
        except RuntimeError:
            self.skipTest("no bz2 module")
        with self.assertRaisesRegex(InputError, "compressed by method 12; stored and deflated"):
            read_layer(self.write("m.npz", content))


class TestNpyDtypes(FileTestCase):

    def test_every_real_dtype_in_both_byte_orders(self):
        values = [-3, 0, 7, 100]
        for kind, code in (("i1", "b"), ("u1", "B"), ("i2", "h"), ("u2", "H"), ("i4", "i"),
                           ("u4", "I"), ("i8", "q"), ("u8", "Q"), ("f2", "e"), ("f4", "f")):
            for order in "<>|=" if kind[1] == "1" else "<>":
                numbers = [abs(v) for v in values] if kind[0] == "u" else values
                body = struct.pack("%s4%s" % ("<" if order in "|=" else order, code), *numbers)
                with self.subTest(descr=order + kind):
                    shape, read = read_npy(self.write("l.npy", npy_bytes(body, (2, 2), order + kind)))
                    self.assertEqual((shape, read), ((2, 2), numbers))
                    self.assertEqual(type(read[0]), float if kind[0] == "f" else int)

    def test_one_byte_order_mark_only_for_one_byte_types(self):
        path = self.write("l.npy", npy_bytes(b"", (0, 2), "|f8"))
        with self.assertRaisesRegex(InputError, "dtype '|f8' is not a real number type"):
            read_layer(path)


class TestSeparatedText(FileTestCase):

    def test_savetxt_defaults_tabs_and_semicolons(self):
        expected = [[1, 2], [3, -4]]
        for name, content in (("l.txt", "1.000000000000000000e+00 2.000000000000000000e+00\n"
                                         "3.000000000000000000e+00 -4.000000000000000000e+00\n"),
                              ("l.txt", "  1\t 2\n3   -4  \n"), ("l.txt", "1; 2\n3;-4\n"),
                              ("l.tsv", "1\t2\n3\t-4\n")):
            with self.subTest(name=name, content=content):
                self.assertEqual(read_layer(self.write(name, content))[0], expected)

    def test_a_field_that_is_not_a_number_names_its_place(self):
        with self.assertRaisesRegex(InputError, "line 2, column 2: '1,5' is not a number"):
            read_layer(self.write("l.txt", "1 2\n3 1,5\n"))
        with self.assertRaisesRegex(InputError, "line 1, column 2: '' is an empty field"):
            read_layer(self.write("l.tsv", "1\t\t2\n"))

    def test_a_first_row_without_numbers_is_a_header_and_noted(self):
        notes = []
        for name, content in (("l.csv", "x,y\n1,2\n3,4\n"), ("l.txt", "# a b\n1 2\n3 4\n"),
                              ("l.tsv", "\n\nw0\tw1\n1\t2\n3\t4\n")):
            with self.subTest(name=name):
                self.assertEqual(read_layer(self.write(name, content), note=notes.append)[0],
                                 [[1, 2], [3, 4]])
        self.assertEqual([note.split(": ", 1)[1] for note in notes],
                         ["line 1 is taken as a header: 'x,y'",
                          "line 1 is taken as a header: '# a b'",
                          "line 3 is taken as a header: 'w0\\tw1'"])

    def test_only_the_first_row_can_be_a_header(self):
        with self.assertRaisesRegex(InputError, "line 2, column 1: 'y' is not a number"):
            read_layer(self.write("l.csv", "x\ny\n1\n"))
        with self.assertRaisesRegex(InputError, "line 1, column 2: 'y' is not a number"):
            read_layer(self.write("l.csv", "1,y\n1,2\n"))

    def test_a_bias_file_may_have_a_header(self):
        layer = self.write("l.csv", "1,0\n0,1\n")
        self.assertEqual(read_layer(layer, self.write("b.csv", "bias\n1\n-1\n"))[1], [1, -1])


class TestStandardInput(FileTestCase):

    def read_stdin(self, data, *arguments, **keywords):
        stdin = io.TextIOWrapper(io.BytesIO(data))
        with mock.patch("sys.stdin", stdin):
            return read_layer(*arguments, **keywords)

    def test_json_or_csv_by_the_first_character(self):
        self.assertEqual(self.read_stdin(b' {"weights": [[1, 2]], "bias": [3]}', "-"),
                         ([[1, 2]], [3]))
        self.assertEqual(self.read_stdin(b"\xef\xbb\xbf[[1, 2]]", "-"), ([[1, 2]], None))
        self.assertEqual(self.read_stdin(b"1,2\n3,4\n", "-"), ([[1, 2], [3, 4]], None))

    def test_messages_name_standard_input(self):
        with self.assertRaisesRegex(InputError, "^<stdin>: line 2, column 1: 'x' is not a number"):
            self.read_stdin(b"1,2\nx,4\n", "-")

    def test_the_bias_from_standard_input(self):
        layer = self.write("l.json", '{"weights": [[1], [2]]}')
        self.assertEqual(self.read_stdin(b"[1, 2]", layer, "-")[1], [1, 2])
        with self.assertRaisesRegex(InputError, "cannot both come from standard input"):
            self.read_stdin(b"", "-", "-")

    def test_a_closed_standard_input(self):
        with mock.patch("sys.stdin", None):
            with self.assertRaisesRegex(InputError, "cannot read <stdin>: it is closed"):
                read_layer("-")

    def test_a_standard_input_open_for_writing_only(self):
        # As after 0>FILE: reading the descriptor fails with EBADF.
        read, write = os.pipe()
        os.close(read)
        stdin = io.TextIOWrapper(io.FileIO(write, "w", closefd=True))
        self.addCleanup(stdin.close)
        with mock.patch("sys.stdin", stdin):
            with self.assertRaisesRegex(InputError, "^cannot read <stdin>: "):
                read_layer("-")

    def test_past_the_size_limit(self):
        with mock.patch("reviews.formats.source.MAX_TEXT_BYTES", 10):
            with self.assertRaisesRegex(InputError, "<stdin> has more than 10 bytes, past the"):
                self.read_stdin(b"1,2\n" * 3, "-")


class TestNotes(FileTestCase):

    def test_more_dimensions_than_classes_is_noted(self):
        notes = []
        read_layer(self.write("l.csv", "1,2,3\n4,5,6\n"), note=notes.append)
        self.assertEqual(len(notes), 1)
        self.assertRegex(notes[0], "l.csv: 2 classes of dimension d = 3 > C: if the layer is"
                         r" stored as \(d, C\), read it transposed$")
        read_layer(self.write("l.csv", "1,2\n4,5\n"), note=notes.append)
        self.assertEqual(len(notes), 1)


if __name__ == "__main__":
    unittest.main()
