"""Tests of reviews.formats.fasttext: fastText's .bin and .ftz models, quantized or not.

The fixtures in tests/data/fasttext were written by fastText itself
(fasttext-wheel 0.9.2; its README says how); expected.json holds their
labels, their output rows where fastText gives them (dense models), and
fastText's own forward pass: for a few texts, the hidden vector x
(get_sentence_vector) and predict's probability of every label.  The
damaged files are written by hand, field by field.
"""

import json
import math
import os
import struct

from reviews.errors import InputError
from reviews.formats.layers import read_model
from tests.support import ROOT, FileTestCase, listed

DATA = os.path.join(ROOT, "tests", "data", "fasttext")
with open(os.path.join(DATA, "expected.json"), encoding="utf-8") as _file:
    EXPECTED = json.load(_file)
# fastText's predict reports exp(log(p + 1e-5)) for each label's output p.
_LOG_OFFSET = 1e-5


def _read(path):
    notes = []
    return read_model(path, note=notes.append), notes


def _table_sigmoid(z):
    """fastText's sigmoid (src/loss.cc): 0 below -8, 1 above 8, else the
    sigmoid at the left end of z's step of 1/32."""
    if z < -8:
        return 0.0
    if z > 8:
        return 1.0
    return 1 / (1 + math.exp(-(int((z + 8) * 32) / 32 - 8)))


def _outputs(layer, x, loss):
    """What fastText computes from W x for each label: softmax or its table sigmoid."""
    z = [math.fsum(w * v for w, v in zip(row, x)) for row in layer.weights]
    if loss != "softmax":
        return z, [_table_sigmoid(v) for v in z]
    top = max(z)
    total = math.fsum(math.exp(v - top) for v in z)
    return z, [math.exp(v - top) / total for v in z]


def _model(loss=3, model=3, version=12, entries=((b"a", 0), (b"__label__x", 1),
                                                 (b"__label__y", 1)),
           sizes=None, quantized=0, matrices=None, tail=b""):
    """A fastText model file, field by field: dim 2, the entries given (one
    word, two labels), a 1 x 2 input matrix and a 2 x 2 output matrix."""
    words = sum(1 for _, kind in entries if kind == 0)
    out = struct.pack("<ii", 793712314, version)
    out += struct.pack("<12id", 2, 5, 5, 1, 5, 1, loss, model, 0, 0, 0, 100, 1e-4)
    out += struct.pack("<iiiqq", *(sizes or (len(entries), words, len(entries) - words, 9, -1)))
    for name, kind in entries:
        out += name + b"\0" + struct.pack("<qb", 1, kind)
    dense = (struct.pack("<qq2f", 1, 2, 0.5, -0.5) + b"\0"
             + struct.pack("<qq4f", 2, 2, 1.0, 0.0, 0.0, 1.0))
    return out + bytes([quantized]) + (dense if matrices is None else matrices) + tail


class TestFastTextModels(FileTestCase):

    def test_every_supervised_loss_but_hs_gives_fasttexts_own_outputs(self):
        for loss in ("softmax", "ns", "ova"):
            with self.subTest(loss=loss):
                expected = EXPECTED[loss]
                layer, notes = _read(os.path.join(DATA, loss + ".bin"))
                self.assertEqual(listed(layer.weights), expected["rows"])
                self.assertIsNone(layer.bias)
                self.assertEqual(list(layer.tokens.values()), expected["labels"])
                self.assertEqual(layer.weights_tensor, ("output", "F32", (3, 4)))
                self.assertIn("loss = %s" % loss, notes[0])
                for case in expected["inputs"]:
                    z, outputs = _outputs(layer, case["x"], loss)
                    library = [case["probabilities"][label] - _LOG_OFFSET
                               for label in expected["labels"]]
                    for mine, theirs in zip(outputs, library):
                        self.assertAlmostEqual(mine, theirs, delta=2e-6)
                    if loss == "softmax":
                        self.assertEqual(z.index(max(z)), library.index(max(library)))

    def test_a_product_quantized_head_is_decoded_exactly_as_fasttext_computes_it(self):
        # 260 labels, dsub 2, norms quantized too (qnorm): fastText's
        # probabilities at its own hidden vectors come from these rows.
        expected = EXPECTED["quantized"]
        layer, notes = _read(os.path.join(DATA, "quantized.ftz"))
        self.assertEqual(layer.weights_tensor, ("output", "PQ", (260, 4)))
        self.assertEqual(list(layer.tokens.values()), expected["labels"])
        for case in expected["inputs"]:
            z, outputs = _outputs(layer, case["x"], "softmax")
            library = [case["probabilities"][label] - _LOG_OFFSET
                       for label in expected["labels"]]
            for mine, theirs in zip(outputs, library):
                self.assertAlmostEqual(mine, theirs, delta=2e-6)
            self.assertEqual(z.index(max(z)), library.index(max(library)))
        # Each value is a float32 centroid times a float32 norm, held exactly.
        self.assertEqual(layer.weights[0].typecode, "d")
        self.assertTrue(all(float(v).as_integer_ratio()[1] <= 2 ** 300
                            for row in layer.weights for v in row))

    def test_a_skipgram_models_output_rows_are_named_by_its_words(self):
        expected = EXPECTED["skipgram"]
        layer, notes = _read(os.path.join(DATA, "skipgram.bin"))
        self.assertEqual(listed(layer.weights), expected["rows"])
        self.assertEqual(list(layer.tokens.values()), expected["labels"])
        self.assertIn("scores the context words", notes[0])

    def test_hierarchical_softmax_is_refused_in_one_line_saying_why(self):
        with self.assertRaisesRegex(InputError, r"^[^\n]*hs.bin: a fastText supervised model"
                                                 r" trained with loss = hs \(hierarchical"
                                                 r" softmax\): its top label is found down a"
                                                 r" Huffman tree [^\n]*not read$"):
            _read(os.path.join(DATA, "hs.bin"))

    def test_a_model_written_by_hand_is_read_and_a_torch_bin_is_still_torchs(self):
        layer, _ = _read(self.write("m.bin", _model()))
        self.assertEqual(listed(layer.weights), [[1.0, 0.0], [0.0, 1.0]])
        self.assertEqual(layer.tokens, {0: "__label__x", 1: "__label__y"})
        with self.assertRaisesRegex(InputError, r"m.bin.*not a (zip|torch|pickle)"):
            _read(self.write("m.bin", b"\x80\x02}q\x00." + bytes(60)))

    def test_damaged_models_are_refused_with_the_byte_and_the_problem(self):
        full = _model()
        for content, message in (
                (full[:40], r"byte 8: the file ends in the training arguments"),
                (_model(version=13), r"byte 4: fastText file version 13; versions 11 and 12"),
                (_model(loss=7), r"byte 32: loss 7 and model 3: not fastText's"),
                (_model(sizes=(3, 1, 1, 9, -1)), r"holds 1 words and 1 labels, not its 3"),
                (_model(sizes=(2 ** 31 - 1, 2 ** 31 - 2, 1, 9, -1)),
                 r"2147483647 dictionary entries of at least 10 bytes each run past the end"),
                (_model(entries=((b"a", 0), (b"__label__x", 0), (b"__label__y", 1)),
                        sizes=(3, 1, 2, 9, -1)),
                 r"entry 1 is of type 0: 1 words come first"),
                (full[:full.index(b"__label__y") + 3], r"entry 2 has no NUL at its end"),
                (_model(quantized=2), r"the input matrix's kind is 2, not a bool"),
                (_model(matrices=struct.pack("<qq", -1, 2)), r"the input matrix is -1 x 2"),
                (_model(matrices=struct.pack("<qq", 1, 2) + bytes(9) + struct.pack(
                    "<qq", 2 ** 20, 2 ** 20) + bytes(2 ** 42 // 2 ** 30)),
                 r"the output matrix of 4398046511104 bytes runs past the end"),
                (_model(matrices=struct.pack("<qq", 1, 2 ** 40)),
                 r"the input matrix of 4398046511104 bytes runs past the end"),
                (_model(tail=b"\0"), r"1 bytes follow the output matrix"),
                (_model(entries=((b"a", 0), (b"__label__x", 1))),
                 r"the output matrix is 2 x 2, not one row of 2 per label \(1\)")):
            with self.subTest(message=message):
                with self.assertRaisesRegex(InputError, message):
                    _read(self.write("m.ftz", content))

    def test_a_quantized_matrix_decoding_to_far_more_values_than_bytes_is_refused(self):
        # One code per row for parts as wide as the row: 2**14 rows of
        # 2**12 values from 16 KB of codes and 4 MB of centroids.
        wide = (struct.pack("<Bqqi", 0, 2 ** 14, 2 ** 12, 2 ** 14) + bytes(2 ** 14)
                + struct.pack("<iiii", 2 ** 12, 1, 2 ** 12, 2 ** 12) + bytes(4 * 2 ** 20))
        with self.assertRaisesRegex(InputError, r"the input matrix decodes to 67108864 values"
                                                 r" from 4210688 bytes of codes and centroids,"
                                                 r" past the limit of 8 a byte"):
            _read(self.write("m.ftz", _model(quantized=1, matrices=wide)))

    def test_a_quantizer_that_does_not_split_the_rows_is_refused(self):
        quantized = (struct.pack("<Bqqi", 0, 1, 2, 1) + b"\0"
                     + struct.pack("<iiii", 2, 1, 1, 1) + bytes(4 * 2 * 256))
        with self.assertRaisesRegex(InputError, r"the input matrix's quantizer splits 2 values"
                                                 r" into 1 parts of 1 \(the last 1\)"):
            _read(self.write("m.ftz", _model(quantized=1, matrices=quantized)))
