"""Tests of reviews.formats.numpy_pickle: pickles of numpy arrays, read without running them."""

import hashlib
import io
import json
import os
import struct
import unittest
from unittest import mock

from reviews.cli import main
from reviews.errors import InputError
from reviews.formats import numpy_pickle
from reviews.formats.layers import read_model
from tests.support import ROOT, FileTestCase
from tests.support.arrays import npy_bytes
from tests.support.torch_files import (APPEND, APPENDS, BUILD, EMPTY_DICT, EMPTY_LIST, MARK,
                                       NEWFALSE, NONE, PROTO, REDUCE, SETITEM, STOP, TUPLE, glob,
                                       number, put, text)

PICKLES = os.path.join(ROOT, "tests", "data", "pickles")
G2PM = os.path.join(ROOT, "tests", "data", "real", "g2pM_np_ckpt.pkl")
SHORT_BINBYTES = b"C"
SETITEMS = b"u"


def get(index):
    return b"h" + bytes([index])


def _arrays(path):
    handle = open(path, "rb")
    with handle:
        return {array.name: array for array in numpy_pickle.numpy_pickle_arrays(
            handle, os.path.getsize(path), path)}


def _values(array):
    flat, fortran = array.load()
    values = flat.tolist()
    if len(array.shape) < 2:
        return values
    rows, columns = array.shape
    if fortran:
        return [values[i::rows] for i in range(rows)]
    return [values[i * columns:(i + 1) * columns] for i in range(rows)]


def _dtype(name, order):
    """numpy.dtype(name, False, True) with its byte order set, as numpy pickles it."""
    return (glob("numpy", "dtype") + MARK + text(name) + NEWFALSE + b"\x88" + TUPLE + REDUCE
            + MARK + number(3) + text(order) + NONE * 3 + number(-1) * 2 + number(0) + TUPLE
            + BUILD)


def _array(shape, name, order, data):
    """An ndarray as numpy pickles it: _reconstruct, then BUILD with its state."""
    out = (glob("numpy.core.multiarray", "_reconstruct") + MARK + glob("numpy", "ndarray")
           + MARK + number(0) + TUPLE + SHORT_BINBYTES + b"\x01b" + TUPLE + REDUCE)
    state = (MARK + number(1) + MARK + b"".join(map(number, shape)) + TUPLE
             + _dtype(name, order) + NEWFALSE + b"B" + struct.pack("<I", len(data)) + data + TUPLE)
    return out + state + BUILD


def _pickle(**arrays):
    out = PROTO + EMPTY_DICT
    for key, array in arrays.items():
        out += text(key) + array + SETITEM
    return out + STOP


class TestNumpy2Pickles(unittest.TestCase):

    def test_every_protocol_gives_the_arrays_numpy_wrote(self):
        # Protocols 0 to 2 pickle raw bytes as _codecs.encode(text,
        # "latin1") (0 and 1 build lists and dicts whole, with numbers and
        # memo indices as text), 4 as bytes after _reconstruct, 5 as a
        # bytearray to _frombuffer.
        with open(os.path.join(PICKLES, "expected.json")) as handle:
            expected = json.load(handle)
        for protocol in (0, 1, 2, 4, 5):
            with self.subTest(protocol=protocol):
                arrays = _arrays(os.path.join(PICKLES, "numpy2_protocol%d.pkl" % protocol))
                self.assertEqual({name: _values(a) for name, a in arrays.items()}, expected)
                self.assertEqual([(a.shape, a.dtype) for a in arrays.values()],
                                 [((4, 3), "<f8"), ((6, 3), "<f4"), ((6,), "<f4"),
                                  ((2, 3), ">i2"), ((2, 3), "<f2")])

    def test_a_list_of_ordered_dicts_names_arrays_by_index_and_key(self):
        arrays = _arrays(os.path.join(PICKLES, "numpy2_ordered_list.pickle"))
        self.assertEqual(list(arrays), ["0.w", "0.b"])

    def test_an_object_npy_of_a_dict_is_its_arrays(self):
        layer = read_model(os.path.join(PICKLES, "numpy2_object.npy"))
        self.assertEqual((layer.weights_tensor.name, layer.bias_tensor.name, len(layer.weights)),
                         ("head.weight", "head.bias", 6))

    def test_check_layer_finds_the_head_and_its_bias_by_name(self):
        out, err = io.StringIO(), io.StringIO()
        status = main(["check-layer", os.path.join(PICKLES, "numpy2_protocol4.pkl"),
                       "--tensor", "head.weight", "--format", "json"], out, err)
        report = json.loads(out.getvalue())
        self.assertEqual((status, report["bias_tensor"]["name"],
                          [r["index"] for r in report["results"] if not r["argmaxable"]]),
                         (0, "head.bias", [5]))


class TestG2pM(unittest.TestCase):
    """g2pM 0.1.2.5's np_ckpt.pkl (Apache-2.0), pickled by numpy 1.x at protocol 3."""

    def test_its_head_and_bias_are_the_values_numpy_reads(self):
        arrays = _arrays(G2PM)
        self.assertEqual(len(arrays), 13)
        weights, bias = arrays["logit_layer.2.weight"], arrays["logit_layer.2.bias"]
        self.assertEqual((weights.shape, weights.dtype, bias.shape), ((876, 32), "<f4", (876,)))
        # sha256 of the float32 bytes, as numpy 2.4.6 gives them from pickle.load.
        self.assertEqual(hashlib.sha256(weights.load()[0].tobytes()).hexdigest(),
                         "b4c4f8a8c1795288c59135e9081a3099cc489f8c27d0531978fcc8e85d988c34")
        self.assertEqual(hashlib.sha256(bias.load()[0].tobytes()).hexdigest(),
                         "6f7a510c40006d642548d4886c3c29eb99f3e43d34b0be5c1e9c897417c29f78")
        self.assertEqual(_values(weights)[875][31], -1.1207163333892822)

    def test_without_a_name_the_candidates_are_listed(self):
        with self.assertRaisesRegex(InputError, "holds 13 arrays; name the weights .*"
                                                "'logit_layer.2.weight' \\(876, 32\\)"):
            read_model(G2PM)


class TestHostile(FileTestCase):

    def setUp(self):
        super().setUp()
        self.target = os.path.join(self.folder.name, "pwned")

    def assertRefused(self, pickle, message):
        path = self.write("m.pkl", pickle)
        with self.assertRaisesRegex(InputError, message):
            read_model(path)
        self.assertFalse(os.path.exists(self.target))
        return path

    def test_a_global_of_os_system_is_refused_by_name_and_never_runs(self):
        pickle = (PROTO + glob("os", "system") + MARK + text("touch " + self.target) + TUPLE
                  + REDUCE + STOP)
        path = self.assertRefused(pickle, "refusing to run code named by the file: os.system$")
        out, err = io.StringIO(), io.StringIO()
        self.assertEqual(main(["check-layer", path], out, err), 2)
        self.assertEqual(err.getvalue().count("\n"), 1)

    def test_a_hand_made_array_reads_as_numpy_would(self):
        data = struct.pack("<4f", 1, 2, 3, 4)
        arrays = _arrays(self.write("m.pkl", _pickle(w=_array((2, 2), "f4", "<", data))))
        self.assertEqual(_values(arrays["w"]), [[1, 2], [3, 4]])

    def test_data_of_another_length_than_the_shape_is_refused(self):
        pickle = _pickle(w=_array((2, 3), "f4", "<", b"\0" * 16))
        self.assertRefused(pickle, "array 'w': 16 data bytes for shape \\(2, 3\\), expected 24")

    def test_a_huge_shape_in_a_tiny_file_is_refused_before_any_allocation(self):
        pickle = _pickle(w=_array((2 ** 31 - 1, 2 ** 31 - 1), "f4", "<", b""))
        self.assertRefused(pickle, "past the limit of 2147483648 values")

    def test_dtypes_not_read_are_refused_by_name(self):
        for name in ("c16", "b1", "V8", "U4"):
            with self.subTest(dtype=name):
                self.assertRefused(_pickle(w=_array((1,), name, "<", b"\0" * 8)),
                                   "dtype '%s' is not read" % name)

    def test_a_structured_dtype_is_refused(self):
        dtype = (glob("numpy", "dtype") + MARK + text("V8") + NEWFALSE + b"\x88" + TUPLE + REDUCE)
        self.assertRefused(PROTO + dtype + STOP, "dtype 'V8' is not read")

    def test_reconstruct_of_another_class_is_refused(self):
        pickle = (PROTO + glob("numpy.core.multiarray", "_reconstruct") + MARK
                  + glob("numpy", "dtype") + MARK + number(0) + TUPLE + SHORT_BINBYTES
                  + b"\x01b" + TUPLE + REDUCE + STOP)
        self.assertRefused(pickle, "_reconstruct is called with other than numpy.ndarray")

    def test_a_pickle_without_arrays_says_so(self):
        self.assertRefused(PROTO + EMPTY_DICT + text("a") + number(1) + SETITEM + STOP,
                           "holds no numpy array of numbers$")

    def test_a_lattice_of_memo_references_is_walked_once_per_container(self):
        # Five levels of lists, each holding the one below 1000 times: 10**15
        # paths in 10 KB, and the array at the bottom reached by all of them.
        out = PROTO + _array((2, 2), "f4", "<", struct.pack("<4f", 1, 2, 3, 4)) + put(0)
        for level in range(1, 6):
            out += EMPTY_LIST + put(level) + MARK + get(level - 1) * 1000 + APPENDS
        # The bottom list once: its 1000 names of the one array.
        arrays = _arrays(self.write("m.pkl", out + STOP))
        self.assertEqual((len(arrays), list(arrays)[-1]), (1000, "0.0.0.0.999"))

    def test_a_container_holding_itself_is_no_recursion(self):
        for pickle in (PROTO + EMPTY_DICT + put(0) + text("a") + get(0) + SETITEM + STOP,
                       PROTO + EMPTY_LIST + put(0) + get(0) + APPEND + STOP):
            with self.subTest(pickle=pickle):
                self.assertRefused(pickle, "holds no numpy array of numbers$")

    def test_an_array_never_given_its_values_is_refused(self):
        unbuilt = (glob("numpy.core.multiarray", "_reconstruct") + MARK + glob("numpy", "ndarray")
                   + MARK + number(0) + TUPLE + SHORT_BINBYTES + b"\x01b" + TUPLE + REDUCE)
        self.assertRefused(PROTO + EMPTY_DICT + text("w") + unbuilt + SETITEM + STOP,
                           "array 'w' is made but given no values")

    def test_an_ordered_dict_from_arguments_is_refused(self):
        # From a list of pairs it would copy them, keys the screen never saw.
        pickle = (PROTO + glob("collections", "OrderedDict") + EMPTY_LIST + b"\x85" + REDUCE
                  + STOP)
        self.assertRefused(pickle, "not a pickle of numpy arrays: TypeError")

    def test_one_text_encoded_over_and_over_is_refused_past_the_pickle_s_size(self):
        pickle = (PROTO + EMPTY_LIST + glob("_codecs", "encode") + put(0) + MARK
                  + text("x" * 1000) + text("latin1") + TUPLE + put(1) + MARK
                  + (get(0) + get(1) + REDUCE) * 100 + APPENDS + STOP)
        self.assertRefused(pickle, "_codecs.encode makes more bytes than the pickle has")

    def test_many_names_and_a_repeat_are_found_in_linear_time(self):
        w = _array((2, 2), "f4", "<", struct.pack("<4f", 1, 2, 3, 4)) + put(0)
        pickle = (PROTO + EMPTY_DICT + MARK + text("l") + EMPTY_LIST + MARK + w
                  + get(0) * 6000 + APPENDS + text("l.1") + get(0) + SETITEMS + STOP)
        self.assertRefused(pickle, "two arrays are named 'l.1'")

    def test_bytes_after_the_pickle_are_refused(self):
        data = struct.pack("<4f", 1, 2, 3, 4)
        self.assertRefused(_pickle(w=_array((2, 2), "f4", "<", data)) + b"garbage",
                           "7 bytes after the pickle's end")

    def test_an_array_under_an_int_key_is_named_by_it(self):
        data = struct.pack("<4f", 1, 2, 3, 4)
        pickle = PROTO + EMPTY_DICT + number(7) + _array((2, 2), "f4", "<", data) + SETITEM + STOP
        self.assertEqual(list(_arrays(self.write("m.pkl", pickle))), ["7"])

    def test_a_truncated_pickle_is_one_error(self):
        data = struct.pack("<4f", 1, 2, 3, 4)
        self.assertRefused(_pickle(w=_array((2, 2), "f4", "<", data))[:-20],
                           "not a readable pickle")

    def test_a_file_past_the_limit_is_refused_before_it_is_read(self):
        path = self.write("m.pkl", PROTO + EMPTY_DICT + STOP)
        with mock.patch.object(numpy_pickle, "_MAX_PICKLE", 3), \
                self.assertRaisesRegex(InputError, "4 bytes, past the limit of 3 for a pickle"):
            read_model(path)

    def test_lists_memoized_while_empty_nest_past_the_recursion_limit(self):
        # Each list is memoized empty (the screen sees depth 0), then the
        # one below is appended: 1,100 levels, the array at the bottom, in
        # a pickle and in an object .npy.
        levels = 1100
        out = PROTO + b"".join(EMPTY_LIST + put(k) for k in range(levels))
        out += b"".join(b"j" + struct.pack("<I", k) + b"j" + struct.pack("<I", k + 1) + APPEND
                        for k in range(levels - 1))
        out += b"j" + struct.pack("<I", levels - 1)
        out += _array((1, 2), "f4", "<", struct.pack("<2f", 1, 2)) + APPEND
        out += b"j" + struct.pack("<I", 0) + STOP
        name = ".".join(["0"] * levels)
        self.assertEqual(list(_arrays(self.write("m.pkl", out))), [name])
        layer = read_model(self.write("m.npy", npy_bytes(out, (), "|O")))
        self.assertEqual((layer.weights_tensor.name, layer.weights[0].tolist()), (name, [1, 2]))

    def test_names_are_joined_only_for_arrays_and_within_a_limit(self):
        # A key of 500 characters spelled once and recalled at each of 200
        # levels of dicts, each holding the one array under "w" and the
        # next dict under the key: names of up to 100,000 characters, 10
        # million in all, from 3 KB.
        levels = 200

        def recalled(k):
            return b"j" + struct.pack("<I", k)
        out = PROTO + _array((1, 2), "f4", "<", struct.pack("<2f", 1, 2)) + put(1)
        out += text("k" * 500) + put(0) + text("w") + put(2)
        out += EMPTY_DICT + put(3) + get(2) + get(1) + SETITEM
        for k in range(2, levels + 1):
            out += recalled(k + 1) + get(0) + EMPTY_DICT + put(k + 2) + SETITEM
            out += recalled(k + 2) + get(2) + get(1) + SETITEM
        out += recalled(3) + STOP
        arrays = _arrays(self.write("m.pkl", out))
        self.assertEqual((len(arrays), sum(map(len, arrays))),
                         (levels, 501 * levels * (levels - 1) // 2 + levels))
        with mock.patch.object(numpy_pickle, "_MAX_NAME_CHARACTERS", 10 ** 6):
            self.assertRefused(out, "the arrays' names run past 1000000 characters in all")

    def test_protocol_0_dict_keys_are_screened_as_setitems_keys_are(self):
        # DICT builds a dict whole from the pairs since MARK: a float key, or
        # an int past 2**60 (both hash alike in bulk), is refused.
        for key in (b"F1.5\n", b"I%d\n" % 2 ** 61, b"L%dL\n" % 2 ** 61):
            with self.subTest(key=key):
                self.assertRefused(b"(" + key + b"I1\nd.", "a dict key other than a string")

    def test_deep_nesting_is_refused_by_the_screen(self):
        self.assertRefused(PROTO + b"]" * 200 + b"a" * 199 + STOP, "nested more than 100 deep")


if __name__ == "__main__":
    unittest.main()
