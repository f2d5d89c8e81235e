"""Tests of reviews.formats.gguf: llama.cpp's GGUF files, dequantized exactly.

The fixtures of tests/data/gguf were written by gguf-py's GGUFWriter, and
expected.json holds what gguf-py's own dequantize makes of them (see its
README.md): each head is checked against it without numpy.  The blocks of
TestExactness are checked against a second reading of ggml's
dequantize_row loops, written out plainly here in Fractions.  Every hostile
file is built by hand, byte by byte."""

import hashlib
import io
import json
import os
import random
import struct
import unittest
from array import array
from fractions import Fraction
from unittest import mock

from reviews.cli import main
from reviews.errors import InputError
from reviews.formats import gguf
from reviews.formats.binary import Head
from reviews.formats.layers import read_model
from tests.support import ROOT, FileTestCase

FIXTURES = os.path.join(ROOT, "tests", "data", "gguf")
with open(os.path.join(FIXTURES, "expected.json")) as _handle:
    EXPECTED = json.load(_handle)
TOKENS = dict(enumerate(EXPECTED.pop("tokens")))
# The types whose every value is a float32 (module gguf, Exactness).
FLOAT32 = {"F32", "F16", "BF16", "Q8_0", "Q4_0", "Q5_0", "Q3_K", "Q6_K"}


def _arrays(name):
    path = os.path.join(FIXTURES, name)
    with open(path, "rb") as handle:
        data = handle.read()
    return gguf.gguf_arrays(io.BytesIO(data), len(data), path)


def _named(arrays, name):
    return next(a for a in arrays if a.name == name)


def _sha256(values):
    return hashlib.sha256(array("d", values).tobytes()).hexdigest()


# Hand-built files: GGUF's strings, key-values and tensor entries.
def _text(value):
    data = value.encode("utf-8") if isinstance(value, str) else value
    return struct.pack("<Q", len(data)) + data


def _key(name, kind, payload):
    return _text(name) + struct.pack("<I", kind) + payload


def _tensor(name, dims, kind=0, offset=0):
    return (_text(name) + struct.pack("<I%dQ" % len(dims), len(dims), *dims)
            + struct.pack("<IQ", kind, offset))


def _file(tensors=(), keys=(), data=b"", version=3, counts=None, alignment=32):
    """A GGUF file's bytes: the header, the padding to ``alignment``, ``data``."""
    tensor_count, key_count = counts or (len(tensors), len(keys))
    header = (b"GGUF" + struct.pack("<IQQ", version, tensor_count, key_count)
              + b"".join(keys) + b"".join(tensors))
    return header + bytes(-len(header) % alignment) + data


_HEAD = _tensor("output.weight", (2, 2))
_HEAD_DATA = struct.pack("<4f", 1, 0, 0, 1)


class TestFixtures(unittest.TestCase):

    def test_each_head_is_gguf_pys_dequantization_exactly(self):
        for name, expected in EXPECTED.items():
            with self.subTest(name=name):
                head = _named(_arrays(name), expected["tensor"])
                flat, fortran = head.load()
                values = flat.tolist()
                self.assertEqual((head.shape, head.dtype, fortran),
                                 (tuple(expected["shape"]), expected["type"], False))
                self.assertEqual(_sha256(values), expected["sha256"])
                for k, value in expected["values"].items():
                    self.assertEqual(values[int(k)], float.fromhex(value))

    def test_rounded_to_float32_they_are_gguf_pys_own_float32_values(self):
        # gguf-py computes in float32: one rounding of the exact values.
        for name, expected in EXPECTED.items():
            with self.subTest(name=name):
                flat, _ = _named(_arrays(name), expected["tensor"]).load()
                self.assertEqual(hashlib.sha256(array("f", flat.tolist()).tobytes()).hexdigest(),
                                 expected["float32_sha256"])

    def test_values_a_float32_cannot_hold_are_kept_as_float64(self):
        flat, _ = _named(_arrays("head-q4_k.gguf"), "output.weight").load()
        rounded = array("f", flat.tolist())
        self.assertEqual((flat.format, sum(x != y for x, y in zip(flat.tolist(), rounded))),
                         ("d", EXPECTED["head-q4_k.gguf"]["not_float32"]))
        self.assertGreater(EXPECTED["head-q4_k.gguf"]["not_float32"], 4000)
        for name, expected in EXPECTED.items():
            with self.subTest(name=name):
                flat, _ = _named(_arrays(name), expected["tensor"]).load()
                self.assertEqual(flat.format, "f" if expected["type"] in FLOAT32 else "d")

    def test_the_tokens_are_tokenizer_ggml_tokens(self):
        self.assertEqual(_arrays("head-q6_k.gguf").tokens, TOKENS)
        self.assertEqual(TOKENS[39], "\u2581caf\u00e9")

    def test_the_head_is_output_weight_with_output_bias(self):
        arrays = _arrays("untied-q6_k.gguf")
        self.assertEqual(arrays.head, Head("output.weight", "output.bias",
                                           "weights 'output.weight' (Q6_K) and bias 'output.bias'"
                                           " (F32): the model's output layer"))
        self.assertEqual([(a.name, a.shape, a.dtype) for a in arrays],
                         [("token_embd.weight", (40, 256), "Q4_K"),
                          ("output_norm.weight", (256,), "F32"),
                          ("output.weight", (40, 256), "Q6_K"), ("output.bias", (40,), "F32")])
        bias, _ = _named(arrays, "output.bias").load()
        self.assertEqual(_sha256(bias.tolist()), EXPECTED["untied-q6_k.gguf"]["bias_sha256"])
        embedding, _ = _named(arrays, "token_embd.weight").load()
        self.assertEqual(_sha256(embedding.tolist()),
                         EXPECTED["untied-q6_k.gguf"]["embedding"]["sha256"])

    def test_a_tied_models_head_is_its_token_embedding(self):
        self.assertEqual(_arrays("tied-q8_0.gguf").head,
                         Head("token_embd.weight", None, "weights 'token_embd.weight' (Q8_0): no"
                              " output.weight, so the head is tied to the token embedding"))

    def test_without_either_there_is_no_head(self):
        data = _file([_tensor("blk.0.attn_q.weight", (2, 2))], data=_HEAD_DATA)
        arrays = gguf.gguf_arrays(io.BytesIO(data), len(data), "m.gguf")
        self.assertEqual((arrays.head, arrays.tokens, len(arrays)), (None, None, 1))

    def test_big_endian_files_are_refused_by_name(self):
        with self.assertRaises(InputError) as caught:
            _arrays("big-endian.gguf")
        self.assertEqual(str(caught.exception), "%s, byte 4: the version is 3 written big-endian:"
                         " big-endian GGUF files are not read"
                         % os.path.join(FIXTURES, "big-endian.gguf"))

    def test_only_the_header_and_the_tensor_asked_for_are_read(self):
        path = os.path.join(FIXTURES, "untied-q6_k.gguf")
        with open(path, "rb") as handle:
            data = handle.read()
        read = []

        class Counted(io.BytesIO):
            def read(self, size=-1):
                chunk = super().read(size)
                read.append(len(chunk))
                return chunk

        with mock.patch.object(gguf, "_READ", 64):
            arrays = gguf.gguf_arrays(Counted(data), len(data), path)
        header = sum(read)
        # The data start at byte 1600; the header is read 64 bytes at a time.
        self.assertLessEqual(header, 1600 + 64)
        _named(arrays, "output.weight").load()
        self.assertEqual(sum(read) - header, 40 * 210)

    def test_check_layer_reports_the_unargmaxable_class_by_its_token(self):
        path = os.path.join(FIXTURES, "head-f32.gguf")
        out, err = io.StringIO(), io.StringIO()
        status = main(["check-layer", path, "--format", "json"], out, err)
        report = json.loads(out.getvalue())
        unargmaxable = [r for r in report["results"] if not r["argmaxable"]]
        self.assertEqual((status, report["weights_tensor"], unargmaxable),
                         (0, {"name": "output.weight", "dtype": "F32", "shape": [40, 64]},
                          [{"index": 39, "argmaxable": False, "token": "\u2581caf\u00e9",
                            "terms": [[0, "1/2", "0.5"], [1, "1/2", "0.5"]]}]))
        self.assertIn("weights 'output.weight' (F32): the model's output layer", err.getvalue())

    def test_read_model_takes_a_quantized_head_and_its_bias(self):
        layer = read_model(os.path.join(FIXTURES, "untied-q6_k.gguf"))
        self.assertEqual((layer.weights_tensor.dtype, layer.bias_tensor.name, len(layer.weights),
                          len(layer.weights[0]), layer.tokens),
                         ("Q6_K", "output.bias", 40, 256, TOKENS))
        self.assertEqual(_sha256([v for row in layer.weights for v in row]),
                         EXPECTED["untied-q6_k.gguf"]["sha256"])


class TestTokens(FileTestCase):

    def test_fewer_tokens_than_rows_name_those_they_can_and_say_so(self):
        # A head padded past the vocabulary: 2 tokens for 3 rows, as a
        # model folder's vocabulary would be.
        tokens = _key("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, 2) + _text("yes")
                      + _text("no"))
        data = _file([_tensor("output.weight", (2, 3))], [tokens],
                     struct.pack("<6f", 1, 0, 0, 1, -1, -1))
        path = self.write("m.gguf", data)
        notes = []
        layer = read_model(path, note=notes.append)
        self.assertEqual(layer.tokens, {0: "yes", 1: "no"})
        self.assertIn("%s: 1 of the 3 classes have no token in it" % path, "\n".join(notes))


def _reference(name, block):
    """The values of one block as ggml's dequantize_row_* loops define them,
    in Fractions (no rounding)."""
    def h(offset):
        return Fraction(struct.unpack_from("<e", block, offset)[0])
    y = []
    if name == "Q8_0":
        y = [h(0) * q for q in struct.unpack_from("<32b", block, 2)]
    elif name in ("Q4_0", "Q4_1", "Q5_0", "Q5_1"):
        fifth = name.startswith("Q5")
        qs = block[len(block) - 16:]
        qh = int.from_bytes(block[len(block) - 20:len(block) - 16], "little") if fifth else 0
        m = h(2) if name.endswith("_1") else None
        for half in (0, 1):
            for j in range(16):
                q = (qs[j] >> 4 * half & 15) | (qh >> (j + 16 * half) & 1) << 4
                y.append(h(0) * q + m if m is not None else h(0) * (q - (16 if fifth else 8)))
    elif name == "Q2_K":
        scales, qs, d, dmin = block[:16], block[16:80], h(80), h(82)
        k = 0
        for n in (0, 32):
            for shift in (0, 2, 4, 6):
                for half in (0, 16):
                    sc = scales[k]
                    k += 1
                    y += [d * (sc & 15) * (qs[n + half + l] >> shift & 3) - dmin * (sc >> 4)
                          for l in range(16)]
    elif name == "Q3_K":
        hmask, qs, s, d = block[:32], block[32:96], block[96:108], h(108)
        scales = [((s[k] & 15 if k < 8 else s[k - 8] >> 4)
                   | (s[8 + k % 4] >> 2 * (k // 4) & 3) << 4) - 32 for k in range(16)]
        k, bit = 0, 1
        for n in (0, 32):
            for shift in (0, 2, 4, 6):
                for half in (0, 16):
                    y += [d * scales[k] * ((qs[n + half + l] >> shift & 3)
                                           - (0 if hmask[half + l] & bit else 4))
                          for l in range(16)]
                    k += 1
                bit <<= 1
    elif name in ("Q4_K", "Q5_K"):
        d, dmin, s = h(0), h(2), block[4:16]
        qh, qs = (block[16:48], block[48:176]) if name == "Q5_K" else (bytes(32), block[16:144])

        def scale_min(j):
            if j < 4:
                return s[j] & 63, s[j + 4] & 63
            return (s[j + 4] & 15) | (s[j - 4] >> 6) << 4, (s[j + 4] >> 4) | (s[j] >> 6) << 4
        for c in range(4):
            for half in (0, 1):
                sc, m = scale_min(2 * c + half)
                bit = 1 << (2 * c + half)
                y += [d * sc * ((qs[32 * c + l] >> 4 * half & 15) + (16 if qh[l] & bit else 0))
                      - dmin * m for l in range(32)]
    elif name == "Q6_K":
        ql, qh, d = block[:128], block[128:192], h(208)
        sc = struct.unpack_from("<16b", block, 192)
        for n in (0, 1):
            part = [None] * 128
            for l in range(32):
                high = qh[32 * n + l]
                low = ql[64 * n + l], ql[64 * n + l + 32]
                for p, q in enumerate(((low[0] & 15), (low[1] & 15), low[0] >> 4, low[1] >> 4)):
                    q |= (high >> 2 * p & 3) << 4
                    part[l + 32 * p] = d * sc[8 * n + l // 16 + 2 * p] * (q - 32)
            y += part
    return y


class TestExactness(unittest.TestCase):

    def _blocks(self, name, scales):
        """Random blocks of ``name``, one per float16 (bits) in ``scales``
        for every scale field of the block."""
        layout = gguf._LAYOUTS[name]
        rng = random.Random(name)
        blocks = []
        for bits in scales:
            block = bytearray(rng.randbytes(layout.size))
            for offset in (layout.d, layout.m):
                if offset is not None:
                    block[offset:offset + 2] = struct.pack("<H", bits)
            blocks.append(bytes(block))
        return blocks

    def test_every_type_is_ggmls_dequantization_without_rounding(self):
        # Largest float16s of both signs, the smallest subnormal, 1, and a
        # d and a min far apart: the bounds of the module's Exactness note.
        scales = [0x7BFF, 0xFBFF, 0x0001, 0x3C00, 0x1234, 0xB555]
        for name, layout in gguf._LAYOUTS.items():
            with self.subTest(name=name):
                blocks = self._blocks(name, scales)
                if layout.m is not None:
                    blocks.append(blocks[0][:layout.m] + struct.pack("<H", 0x0001)
                                  + blocks[0][layout.m + 2:])
                data = b"".join(blocks)
                flat = gguf._dequantized(io.BytesIO(data), 0, layout,
                                         len(blocks) * len(layout.values), "x")
                expected = [v for block in blocks for v in _reference(name, block)]
                self.assertEqual([Fraction(v) for v in flat.tolist()], expected)

    def test_an_inf_or_nan_scale_is_refused_naming_the_tensor_and_block(self):
        for bits, shown in ((0x7C00, "inf"), (0xFE00, "nan")):
            with self.subTest(shown=shown):
                block = bytearray(34)
                block[0:2] = struct.pack("<H", 0x3C00)
                data = _file([_tensor("output.weight", (32, 2), kind=8)],
                             data=bytes(block) + struct.pack("<H", bits) + bytes(32))
                arrays = gguf.gguf_arrays(io.BytesIO(data), len(data), "m.gguf")
                with self.assertRaises(InputError) as caught:
                    arrays[0].load()
                self.assertEqual(str(caught.exception), "m.gguf, tensor 'output.weight': block 1"
                                 " (byte %d) has a scale of %s; expected a finite number"
                                 % (len(data) - 34, shown))

    def test_a_fields_bits_come_from_the_right_bytes(self):
        # One Q6_K block whose bytes are all 0 but one: each lone bit moves
        # exactly the values ggml's loops say.
        layout = gguf._LAYOUTS["Q6_K"]
        for position in (0, 37, 100, 128, 150, 191):
            block = bytearray(210)
            block[192:208] = bytes(range(1, 17))
            block[208:210] = struct.pack("<H", 0x3C00)
            block[position] = 0xA5
            flat = gguf._dequantized(io.BytesIO(bytes(block)), 0, layout, 256, "x")
            self.assertEqual([Fraction(v) for v in flat.tolist()],
                             _reference("Q6_K", bytes(block)))


class TestHostile(unittest.TestCase):

    def assertRefused(self, data, message):
        with self.assertRaises(InputError) as caught:
            gguf.gguf_arrays(io.BytesIO(data), len(data), "m.gguf")
        self.assertEqual(str(caught.exception), message)

    def test_a_file_that_is_not_gguf(self):
        self.assertRefused(b"GGUF", "m.gguf is not a GGUF file: it has 4 bytes, fewer than the 24"
                                    " of a GGUF header")
        self.assertRefused(b"PK\x03\x04" + bytes(30), "m.gguf is not a GGUF file: it starts with"
                                                       " b'PK\\x03\\x04', not b'GGUF'")

    def test_versions_other_than_2_and_3(self):
        self.assertRefused(_file(version=1), "m.gguf, byte 4: GGUF version 1 is not read"
                                             " (llama.cpp no longer reads it either); convert the"
                                             " model again")
        self.assertRefused(_file(version=4), "m.gguf, byte 4: GGUF version 4 is not read (2 and 3"
                                             " are)")
        data = _file([_HEAD], version=2, data=_HEAD_DATA)
        self.assertEqual(gguf.gguf_arrays(io.BytesIO(data), len(data), "m.gguf")[0].shape, (2, 2))

    def test_every_cut_of_a_real_file_is_refused(self):
        with open(os.path.join(FIXTURES, "untied-q6_k.gguf"), "rb") as handle:
            data = handle.read()
        for end in list(range(0, 3200, 7)) + list(range(3200, len(data), 997)):
            with self.subTest(end=end), self.assertRaises(InputError):
                gguf.gguf_arrays(io.BytesIO(data[:end]), end, "m.gguf")

    def test_a_file_shorter_than_its_size_said(self):
        data = _file([_HEAD], data=_HEAD_DATA)
        with self.assertRaises(InputError) as caught:
            gguf.gguf_arrays(io.BytesIO(data[:40]), len(data), "m.gguf")
        self.assertEqual(str(caught.exception), "m.gguf, byte 32: tensor 0's name: the file ends"
                                                " at byte 40, before its 112 bytes")

    def test_counts_that_cannot_fit_are_refused_before_reading(self):
        self.assertRefused(_file(counts=(2 ** 64 - 1, 0)), "m.gguf, byte 8: the header counts"
                           " 18446744073709551615 tensors, past the limit of 65,536")
        with mock.patch.object(gguf._GGUFHeader, "value", side_effect=AssertionError("read")):
            self.assertRefused(_file(counts=(0, 2 ** 60)), "m.gguf, byte 24: the header's 0"
                               " tensors and 1152921504606846976 key-values (at least 24 and 13"
                               " bytes each) needs"
                               " 14987979559889010688 bytes; the file has 8 left")

    def test_lengths_past_the_end_are_refused_before_reading(self):
        self.assertRefused(_file(keys=[struct.pack("<Q", 2 ** 62) + b"general"]),
                           "m.gguf, byte 32: key 0's name needs 4611686018427387904 bytes;"
                           " the file has 32 left")
        self.assertRefused(_file(keys=[_key("x", 8, struct.pack("<Q", 10 ** 12))]),
                           "m.gguf, byte 45: key 0 ('x') needs 1000000000000 bytes; the file has"
                           " 19 left")
        self.assertRefused(_file(keys=[_key("x", 9, struct.pack("<IQ", 8, 2 ** 61))]),
                           "m.gguf, byte 49: key 0 ('x'), 2305843009213693952 strings, needs"
                           " 18446744073709551616 bytes; the file has 15 left")
        self.assertRefused(_file(keys=[_key("x", 9, struct.pack("<IQ", 12, 2 ** 61))]),
                           "m.gguf, byte 49: key 0 ('x') needs 18446744073709551616 bytes; the"
                           " file has 15 left")
        self.assertRefused(_file(keys=[_key("x", 9, struct.pack("<IQ", 9, 2 ** 61))]),
                           "m.gguf, byte 49: key 0 ('x'), 2305843009213693952 arrays, needs"
                           " 27670116110564327424 bytes; the file has 15 left")

    def test_the_header_is_read_up_to_a_limit(self):
        data = _file([_HEAD], keys=[_key("x", 8, _text("y" * 200))], data=_HEAD_DATA)
        with mock.patch.object(gguf, "MAX_TEXT_BYTES", 100):
            self.assertRefused(data, "m.gguf, byte 45: key 0 ('x') needs 200 bytes, past the limit"
                                     " of 100 bytes of a header")

    def test_huge_dimensions_in_a_tiny_file(self):
        self.assertRefused(_file([_tensor("output.weight", (2 ** 40, 2 ** 40))]),
                           "m.gguf, tensor 'output.weight' (F32 (1099511627776, 1099511627776)):"
                           " its bytes run to byte 4835703278458516698824800, past the end of"
                           " the file (96)")

    def test_the_value_limit_applies_when_a_tensor_is_read(self):
        data = _file([_HEAD], data=_HEAD_DATA)
        with mock.patch("reviews.formats.binary.MAX_VALUES", 3):
            arrays = gguf.gguf_arrays(io.BytesIO(data), len(data), "m.gguf")
            with self.assertRaisesRegex(InputError, "m.gguf, tensor 'output.weight': shape"
                                                    " \\(2, 2\\) is past the limit of 3 values"):
                arrays[0].load()

    def test_bad_tensor_entries(self):
        for tensor, message in (
                (_tensor("w", (2, 0)), "tensor 'w' has dimensions (2, 0): a dimension of 0"),
                (_tensor("w", (1,) * 5), "tensor 'w' has 5 dimensions; a GGUF tensor has at"
                                          " most 4"),
                (_tensor("w", (2, 2), kind=99), "tensor 'w' has type 99, which is not one of"
                                                 " ggml's"),
                (_tensor("w", (16, 2), kind=14), "tensor 'w' has rows of 16 values: not whole"
                                                  " blocks of 256 (Q6_K)")):
            with self.subTest(message=message):
                with self.assertRaisesRegex(InputError, "^m.gguf, byte \\d+: " + message.replace(
                        "(", "\\(").replace(")", "\\)") + "$"):
                    data = _file([tensor], data=bytes(64))
                    gguf.gguf_arrays(io.BytesIO(data), len(data), "m.gguf")

    def test_duplicates(self):
        self.assertRefused(_file([_HEAD, _HEAD], data=_HEAD_DATA),
                           "m.gguf, byte 77: tensor 'output.weight' is the name of an earlier"
                           " tensor too")
        key = _key("a", 0, b"\x01")
        self.assertRefused(_file(keys=[key, key]), "m.gguf, byte 38: key 1 ('a') is a key the file"
                                                   " has already")

    def test_types_not_read_are_refused_by_name_when_read(self):
        data = _file([_tensor("output.weight", (256, 1), kind=17)], data=bytes(74))
        arrays = gguf.gguf_arrays(io.BytesIO(data), len(data), "m.gguf")
        self.assertEqual((arrays[0].shape, arrays[0].dtype), ((1, 256), "IQ2_XS"))
        with self.assertRaises(InputError) as caught:
            arrays[0].load()
        self.assertEqual(str(caught.exception), "m.gguf, tensor 'output.weight': type IQ2_XS is"
                         " not read (read: F32, F64, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1,"
                         " Q2_K, Q3_K, Q4_K, Q5_K, Q6_K)")

    def test_unknown_value_types(self):
        self.assertRefused(_file(keys=[_key("x", 13, b"")]),
                           "m.gguf, byte 33: key 0 ('x') has type 13; GGUF's value types are 0"
                           " to 12")
        self.assertRefused(_file(keys=[_key("x", 9, struct.pack("<IQ", 13, 1))]),
                           "m.gguf, byte 37: key 0 ('x') is an array of type 13; GGUF's value"
                           " types are 0 to 12")

    def test_nested_arrays_are_skipped_up_to_a_depth(self):
        def nested(depth):
            inner = struct.pack("<IQ", 4, 1) + struct.pack("<I", 7)
            for _ in range(depth):
                inner = struct.pack("<IQ", 9, 1) + inner
            return inner
        data = _file([_HEAD], keys=[_key("x", 9, nested(7))], data=_HEAD_DATA)
        self.assertEqual(len(gguf.gguf_arrays(io.BytesIO(data), len(data), "m.gguf")), 1)
        self.assertRefused(_file([_HEAD], keys=[_key("x", 9, nested(8))], data=_HEAD_DATA),
                           "m.gguf, byte 133: key 0 ('x')[0][0][0][0][0][0][0][0]: arrays nested"
                           " more than 8 deep")

    def test_bad_alignment_and_tokens(self):
        for key, message in (
                (_key("general.alignment", 10, struct.pack("<Q", 64)),
                 "byte 49: key 0 ('general.alignment') has type 10; expected 4 (uint32)"),
                (_key("general.alignment", 4, struct.pack("<I", 48)),
                 "byte 53: key 0 ('general.alignment') is 48, not a power of 2"),
                (_key("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 4, 1) + bytes(4)),
                 "byte 53: key 0 ('tokenizer.ggml.tokens') is not an array of strings (type 9 of"
                 " type 4)"),
                (_key("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, 1) + _text(b"\xff")),
                 "byte 69: key 0 ('tokenizer.ggml.tokens')[0] is not UTF-8")):
            with self.subTest(message=message):
                self.assertRefused(_file(keys=[key]), "m.gguf, " + message)

    def test_alignment_moves_the_data(self):
        data = _file([_HEAD], keys=[_key("general.alignment", 4, struct.pack("<I", 256))],
                     data=_HEAD_DATA, alignment=256)
        flat, _ = gguf.gguf_arrays(io.BytesIO(data), len(data), "m.gguf")[0].load()
        self.assertEqual(flat.tolist(), [1, 0, 0, 1])

    def test_a_file_cut_after_its_table_was_read(self):
        data = _file([_tensor("output.weight", (32, 2), kind=8)], data=bytes(68))
        handle = io.BytesIO(data)
        arrays = gguf.gguf_arrays(handle, len(data), "m.gguf")
        handle.truncate(len(data) - 10)
        with self.assertRaises(InputError) as caught:
            arrays[0].load()
        self.assertEqual(str(caught.exception), "m.gguf, tensor 'output.weight': the file ends in"
                                                " block 1, at byte %d" % (len(data) - 10))


if __name__ == "__main__":
    unittest.main()
