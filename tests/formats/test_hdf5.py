"""Tests of reviews.formats.hdf5 and reviews.formats.keras: HDF5 read by the standard library.

The fixtures in tests/data/hdf5 were written by tf-keras and h5py (their
README says how); expected.json holds the rows and biases the libraries
read back, and the Keras models' own forward pass: the head's input x and
the model's output at a few inputs.  Damaged files are the fixtures with
bytes changed in place.
"""

import json
import math
import os
import struct
from unittest import mock

from reviews.errors import InputError
from reviews.formats import hdf5
from reviews.formats.layers import read_model
from tests.support import ROOT, FileTestCase, listed

DATA = os.path.join(ROOT, "tests", "data", "hdf5")
with open(os.path.join(DATA, "expected.json"), encoding="utf-8") as _file:
    EXPECTED = json.load(_file)
# Version 0 superblock, 8-byte offsets and lengths: the root group's symbol
# table entry starts at byte 56, its object header address at 64.
_ROOT_ADDRESS_AT = 64


def _read(path, **options):
    notes = []
    return read_model(path, note=notes.append, **options), notes


def _hdf5(path, groups):
    """({name: (shape, dtype, values)}, {group: attributes}) of an HDF5 file."""
    with open(path, "rb") as handle:
        found = hdf5.read_hdf5(handle, os.path.getsize(path), path)
        return ({a.name: (a.shape, a.dtype, a.load()[0].tolist()) for a in found.arrays},
                {group: found.attributes(group) for group in groups})


def _softmax(rows, bias, x):
    z = [math.fsum(w * v for w, v in zip(row, x)) + b for row, b in zip(rows, bias)]
    top = max(z)
    total = math.fsum(math.exp(v - top) for v in z)
    return [math.exp(v - top) / total for v in z]


class TestKerasModels(FileTestCase):

    def assertForwardPass(self, layer, expected):
        """The layer's softmax at the head's inputs is the model's output."""
        for x, outputs in zip(expected["x"], expected["outputs"]):
            for mine, theirs in zip(_softmax(layer.weights, layer.bias, x), outputs):
                self.assertAlmostEqual(mine, theirs, delta=1e-6)

    def test_a_saved_models_config_leads_to_its_dense_head_through_its_activation(self):
        expected = EXPECTED["dense"]
        layer, notes = _read(os.path.join(DATA, "dense.h5"))
        self.assertEqual(listed(layer.weights), expected["rows"])
        self.assertEqual(layer.bias, expected["bias"])
        self.assertEqual(layer.weights_tensor,
                         ("model_weights/logits/logits/kernel:0", "<f4", (4, 6)))
        self.assertIn("from model_config: Activation 'probabilities' <- Dense 'logits'"
                      " (activation linear); kernel stored (6, 4)", notes[0])
        self.assertForwardPass(layer, expected)

    def test_weights_only_take_the_last_layer_with_weights_and_say_so(self):
        layer, notes = _read(os.path.join(DATA, "weights.h5"))
        self.assertEqual(listed(layer.weights), EXPECTED["dense"]["rows"])
        self.assertEqual(layer.weights_tensor.name, "logits/logits/kernel:0")
        self.assertIn("weights only (no model_config): the last layer with weights, 'logits',"
                      " taken as the output layer", notes[0])

    def test_a_convolution_before_global_average_pooling_is_a_head_of_its_mean_patch(self):
        expected = EXPECTED["conv_gap"]
        layer, notes = _read(os.path.join(DATA, "conv_gap.h5"))
        self.assertEqual(listed(layer.weights), expected["rows"])
        self.assertEqual(layer.weights_tensor.shape, (5, 27))
        self.assertIn("GlobalAveragePooling2D 'global_average_pooling2d' <- Conv2D 'conv'",
                      notes[0])
        self.assertForwardPass(layer, expected)

    def test_a_dense_layer_inside_time_distributed_is_the_head_of_every_step(self):
        expected = EXPECTED["time_distributed"]
        layer, notes = _read(os.path.join(DATA, "time_distributed.h5"))
        self.assertEqual(listed(layer.weights), expected["rows"])
        self.assertEqual(layer.bias, expected["bias"])
        self.assertIn("from model_config: TimeDistributed 'tagger' (activation softmax)",
                      notes[0])
        self.assertForwardPass(layer, expected)

    def test_a_model_of_two_outputs_names_no_head_but_its_kernels_can_be_named(self):
        path = os.path.join(DATA, "two_outputs.h5")
        with self.assertRaisesRegex(InputError, r"the model has 2 outputs \('a', 'b'\); name"
                                                 r" the output layer's kernel"):
            _read(path)
        layer, _ = _read(path, tensor="model_weights/b/b/kernel:0", transpose=True)
        self.assertEqual((len(layer.weights), len(layer.weights[0])), (3, 3))

    def test_a_one_unit_head_is_found_and_read_as_its_binary_decision(self):
        # deepcut's kind of head: the Dense of one unit, then its two sides.
        layer, notes = _read(os.path.join(DATA, "one_unit.h5"), binary=True)
        self.assertEqual(layer.weights_tensor, ("model_weights/gate/gate/kernel:0", "<f4",
                                                (1, 3)))
        self.assertEqual(listed(layer.weights)[1], [0.0, 0.0, 0.0])
        self.assertEqual(layer.tokens, {0: "logit > 0", 1: "logit < 0"})
        self.assertIn("Dense 'gate' (activation sigmoid)", notes[0])


class TestHdf5(FileTestCase):

    def test_every_layout_filter_and_type_h5py_wrote_gives_its_values(self):
        # Chunked by (2, 2) through shuffle and deflate (the edge chunks
        # partly filled), big-endian float64, float16, int16, compact.
        arrays, attributes = _hdf5(os.path.join(DATA, "plain.h5"), ("", "other"))
        for name, values in EXPECTED["plain"].items():
            with self.subTest(name=name):
                shape, _, flat = arrays[name]
                rows = [flat[k:k + shape[1]] for k in range(0, len(flat), shape[1])] \
                    if len(shape) == 2 else flat
                self.assertEqual(rows, values)
        self.assertEqual({name: dtype for name, (_, dtype, _) in arrays.items()},
                         {"head/weight": "<f4", "head/bias": ">f8", "other/half": "<f2",
                          "other/ints": "<i2", "compact": "<f4"})
        self.assertEqual(attributes, {"": {"note": "written by h5py"},
                                      "other": {"names": ["alpha", "beta"]}})

    def test_a_plain_file_is_arrays_named_by_their_paths(self):
        layer, _ = _read(os.path.join(DATA, "plain.h5"), tensor="head/weight",
                         bias_tensor="head/bias")
        self.assertEqual(listed(layer.weights), EXPECTED["plain"]["head/weight"])
        self.assertEqual(layer.bias, EXPECTED["plain"]["head/bias"])

    def test_deflated_zeros_and_filters_not_read_are_refused_saying_which(self):
        for name, message in (
                ("zeros.h5", r"a dataset of shape \(131072,\) has 131072 values in \d+ stored"
                             r" bytes, past the limit of 65536"),
                ("lzf.h5", r"filter 32000: deflate \(1\) and shuffle \(2\) are read")):
            with self.subTest(name=name):
                with self.assertRaisesRegex(InputError, message):
                    _read(os.path.join(DATA, name))

    def changed(self, name, changes):
        with open(os.path.join(DATA, name), "rb") as handle:
            content = bytearray(handle.read())
        for at, data in changes(content):
            content[at:at + len(data)] = data
        return self.write(name, bytes(content))

    def test_damaged_files_are_refused_with_the_place_and_the_problem(self):
        def root(content):
            return struct.unpack_from("<Q", content, _ROOT_ADDRESS_AT)[0]

        def first_member(content):
            # A symbol table node's first entry's object header address.
            return content.index(b"SNOD") + 8 + 8
        for changes, message in (
                (lambda c: [(0, b"\x89HDX")], r"not an HDF5 file"),
                (lambda c: [(8, b"\x02")], r"superblock version 2: versions 0 and 1"),
                (lambda c: [(13, b"\x03")], r"offsets of 3 bytes and lengths of 8"),
                (lambda c: [(root(c), b"\x02")], r"object header version 2"),
                (lambda c: [(_ROOT_ADDRESS_AT, struct.pack("<Q", 2 ** 40))],
                 r"an object header of 16 bytes at byte 1099511627776 runs past the end"),
                (lambda c: [(first_member(c), struct.pack("<Q", root(c)))],
                 r"the object header at byte \d+ is reached twice"),
                (lambda c: [(c.index(b"TREE"), b"XXXX")], r"no B-tree node of type 0"),
                (lambda c: [(c.index(b"HEAP"), b"XXXX")], r"no local heap signature")):
            with self.subTest(message=message):
                path = self.changed("plain.h5", changes)
                with self.assertRaisesRegex(InputError, message):
                    _read(path, tensor="head/weight")

    def test_a_truncated_file_is_refused(self):
        with open(os.path.join(DATA, "plain.h5"), "rb") as handle:
            path = self.write("plain.h5", handle.read()[:3000])
        with self.assertRaisesRegex(InputError, r"runs past the end of the file \(3000 bytes\)"):
            _read(path, tensor="head/weight")

    def test_groups_past_the_depth_limit_and_structures_past_their_count_are_refused(self):
        path = os.path.join(DATA, "plain.h5")
        with mock.patch.object(hdf5, "MAX_DEPTH", 1):
            with self.assertRaisesRegex(InputError, r"groups nest past 1 levels at 'head'"):
                _read(path)
        with mock.patch.object(hdf5, "_MAX_BLOCKS", 5):
            with self.assertRaisesRegex(InputError, r"more than 5 object headers, tree nodes"
                                                     r" and heaps"):
                _read(path)
