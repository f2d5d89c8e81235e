"""Tests of reviews.formats.xz and of an .npz's strings: numpy archives as they ship.

The fixtures in tests/data/npz were written by numpy and by py3langid's own
writer (its README says how); expected.json holds their rows and the
libraries' own logits at a few inputs.
"""

import json
import lzma
import math
import os
import struct
from fractions import Fraction

from reviews.errors import InputError
from reviews.formats.layers import read_model
from reviews.formats.xz import MAX_XZ_RATIO
from tests.support import ROOT, FileTestCase, listed
from tests.support.arrays import npy_bytes, npz_bytes

DATA = os.path.join(ROOT, "tests", "data", "npz")
with open(os.path.join(DATA, "expected.json"), encoding="utf-8") as _file:
    EXPECTED = json.load(_file)


def _logits(rows, bias, x):
    """The exact logits W x + b."""
    return [sum(Fraction(w) * Fraction(v) for w, v in zip(row, x)) + Fraction(b)
            for row, b in zip(rows, bias)]


def _strings(values, descr):
    """A 1-D .npy of strings as numpy writes it: 'U' in UTF-32, 'S' in bytes, NUL-padded."""
    width = int(descr[2:])
    if descr[1] == "U":
        encoding = "utf-32-be" if descr[0] == ">" else "utf-32-le"
        data = b"".join(v.encode(encoding).ljust(4 * width, b"\0") for v in values)
    else:
        data = b"".join(v.ljust(width, b"\0") for v in values)
    return npy_bytes(data, (len(values),), descr)


def _read(path, **options):
    """(Layer, notes) of read_model."""
    notes = []
    return read_model(path, note=notes.append, **options), notes


class TestXz(FileTestCase):

    def test_py3langids_own_file_gives_its_layer_names_and_logits(self):
        # py3langid's writer stores the head as (features, classes): read
        # transposed, the layer's logits at log1p(counts) are the
        # library's scores for those counts.
        expected = EXPECTED["langid"]
        layer, notes = _read(os.path.join(DATA, "langid_tiny.npz.xz"), tensor="ptc",
                                 transpose=True)
        self.assertEqual(listed(layer.weights), expected["rows"])
        self.assertEqual(layer.bias, expected["bias"])
        self.assertEqual(layer.tokens, dict(enumerate(expected["classes"])))
        self.assertEqual((layer.weights_tensor.name, layer.bias_tensor.name), ("ptc", "pc"))
        self.assertIn("classes named by array 'classes' of 4 strings", "\n".join(notes))
        self.assertNotIn("read it transposed", "\n".join(notes))
        for bag, scores in zip(expected["bags"], expected["scores"]):
            # The library's x is log1p(count) in float32, its sums float32:
            # the exact logits at that x agree to float32's precision.
            x = [_float32_log1p(bag.get(str(k), 0)) for k in range(len(layer.weights[0]))]
            exact = _logits(layer.weights, layer.bias, x)
            for mine, theirs in zip(exact, scores):
                self.assertAlmostEqual(float(mine), theirs, places=5)
            self.assertEqual(max(range(4), key=lambda k: exact[k]),
                             max(range(4), key=lambda k: scores[k]))

    def test_a_stream_then_nul_padding_then_another_is_one_file(self):
        npz = npz_bytes([("w.npy", npy_bytes([1, 2, 3, 4], (2, 2)))])
        half = len(npz) // 2
        content = lzma.compress(npz[:half]) + b"\0" * 8 + lzma.compress(npz[half:])
        layer, _ = _read(self.write("w.npz.xz", content))
        self.assertEqual(listed(layer.weights), [[1, 2], [3, 4]])

    def test_an_npy_inside_xz_is_read(self):
        content = lzma.compress(npy_bytes([1, 2, 3, 4, 5, 6], (3, 2)))
        layer, _ = _read(self.write("w.npy.xz", content))
        self.assertEqual(listed(layer.weights), [[1, 2], [3, 4], [5, 6]])

    def test_a_small_file_inflating_past_the_ratio_is_refused_before_it_is_read_whole(self):
        zeros = npz_bytes([("w.npy", npy_bytes(bytes(2 ** 22), (2 ** 19, 1)))])
        content = lzma.compress(zeros)
        self.assertLess(len(content) * MAX_XZ_RATIO, 2 ** 20)
        with self.assertRaisesRegex(InputError, r"inflates past 1048576 bytes, the limit for"
                                                 r" \d+ compressed bytes \(64 per"):
            _read(self.write("w.npz.xz", content))

    def test_damaged_files_are_refused_with_the_place(self):
        good = lzma.compress(npz_bytes([("w.npy", npy_bytes([1, 2], (1, 2)))]))
        for content, message in (
                (good[:-5], r"the xz stream at byte 0 ends before its end marker"),
                (good + b"\0\0\0", r"byte %d: 3 NUL bytes after an xz stream" % len(good)),
                (good + b"PK\3\4", r"the xz stream at byte %d ends" % len(good)),
                (b"not xz at all, not at all", r"byte 0: not a readable xz stream"),
                (lzma.compress(b"PK not a zip"), r"not a readable zip archive")):
            with self.subTest(message=message):
                with self.assertRaisesRegex(InputError, message):
                    _read(self.write("w.npz.xz", content))

    def test_xz_around_another_format_is_named(self):
        path = self.write("w.csv.xz", lzma.compress(b"1,2\n"))
        with self.assertRaisesRegex(InputError, r"w.csv.xz: an xz file is read around an .npz"
                                                 r" or .npy \(model.npz.xz\), not around '.csv'"):
            _read(path)


def _float32_log1p(count):
    """log1p of a count rounded to float32, as py3langid's x is."""
    return struct.unpack("<f", struct.pack("<f", math.log1p(count)))[0]


class TestNpzStrings(FileTestCase):

    def test_numpys_label_array_names_the_classes_and_its_logits_hold(self):
        expected = EXPECTED["labelled"]
        layer, notes = _read(os.path.join(DATA, "labelled.npz"))
        self.assertEqual(listed(layer.weights), expected["rows"])
        self.assertEqual(layer.bias, expected["bias"])
        self.assertEqual(layer.tokens, {0: "cat", 1: "dé", 2: "日本"})
        self.assertIn("classes named by array 'labels' of 3 strings", "\n".join(notes))
        self.assertIn("array 'note' (1,) of strings does not name the classes: the layer has 3",
                      "\n".join(notes))
        for x, logits in zip(expected["x"], expected["logits"]):
            self.assertEqual([float(v) for v in _logits(layer.weights, layer.bias, x)], logits)

    def test_two_label_arrays_that_differ_name_no_class(self):
        layer, notes = _read(os.path.join(DATA, "two_labels.npz"))
        self.assertIsNone(layer.tokens)
        self.assertIn("the classes are not named: 2 arrays of 3 strings differ ('labels',"
                      " 'other')", "\n".join(notes))

    def test_a_vocabulary_file_given_names_the_classes_instead(self):
        vocab = self.write("vocab.txt", "a\nb\nc\n")
        layer, _ = _read(os.path.join(DATA, "labelled.npz"), vocab=vocab)
        self.assertEqual(layer.tokens, {0: "a", 1: "b", 2: "c"})

    def test_big_endian_and_byte_strings_are_decoded(self):
        for descr, values, names in ((">U3", ["ab", "ç", "xyz"], ["ab", "ç", "xyz"]),
                                     ("|S2", [b"ab", b"c", b""], ["ab", "c", ""])):
            with self.subTest(descr=descr):
                path = self.write("m.npz", npz_bytes([
                    ("w.npy", npy_bytes([1, 0, 0, 1, 1, 1], (3, 2))),
                    ("names.npy", _strings(values, descr))]))
                layer, _ = _read(path)
                self.assertEqual(layer.tokens, dict(enumerate(names)))

    def test_strings_that_are_not_text_are_refused_with_their_index(self):
        bad = npy_bytes(b"a\0\0\0" + b"\0\0\x11\0", (2,), "<U1")   # 0x110000 is past Unicode
        path = self.write("m.npz", npz_bytes([("w.npy", npy_bytes([1, 0, 0, 1], (2, 2))),
                                              ("names.npy", bad)]))
        with self.assertRaisesRegex(InputError, r"member 'names.npy': string 1 is not UTF-32-LE"):
            _read(path)

    def test_a_string_member_of_the_wrong_length_is_refused_when_the_archive_is_read(self):
        short = npy_bytes(b"a\0\0\0", (2,), "<U1")
        path = self.write("m.npz", npz_bytes([("w.npy", npy_bytes([1, 0, 0, 1], (2, 2))),
                                              ("names.npy", short)]))
        with self.assertRaisesRegex(InputError, r"member 'names.npy': 4 data bytes for '<U1' of"
                                                 r" shape \(2,\), expected 8"):
            _read(path)

    def test_strings_past_the_text_limit_are_refused_unread(self):
        huge = npy_bytes(b"", (2 ** 20,), "<U100")
        path = self.write("m.npz", npz_bytes([("w.npy", npy_bytes([1, 0, 0, 1], (2, 2))),
                                              ("names.npy", huge)]))
        with self.assertRaisesRegex(InputError, r"past the limit of 67108864"):
            _read(path)

    def test_a_string_array_is_not_weights_and_says_so(self):
        path = self.write("m.npz", npz_bytes([("w.npy", npy_bytes([1, 0, 0, 1], (2, 2))),
                                              ("names.npy", _strings(["a", "b"], "<U1"))]))
        with self.assertRaisesRegex(InputError, r"has no array 'names'; it has: 'w' \(2, 2\)"):
            _read(path, tensor="names")
