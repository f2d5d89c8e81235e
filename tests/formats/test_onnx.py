"""Tests of reviews.formats.onnx: ONNX models' initializers and output layer,
against the layers the onnx package wrote and ran (tests/data/onnx: its
README says how (its script included); expected.json holds each head's rows,
(C, d), and bias as numpy computed them in float64)."""

import json
import os
import subprocess
import sys
from unittest import mock

from reviews.errors import InputError
from reviews.formats import onnx
from reviews.formats.layers import read_model
from reviews.formats.onnx import onnx_arrays
from reviews.formats.source import open_regular
from tests.support import ROOT, FileTestCase
from tests.support.onnx_files import field, number, varint

DATA = os.path.join(ROOT, "tests", "data", "onnx")
with open(os.path.join(DATA, "expected.json")) as _file:
    EXPECTED = json.load(_file)


def read(path):
    handle, size = open_regular(path)
    with handle:
        return onnx_arrays(handle, size, path)


def rows(array):
    """The rows of a (C, d) Array as lists, in either order."""
    flat, fortran = array.load()
    classes, width = array.shape
    return [(flat[j::classes] if fortran else flat[j * width:(j + 1) * width]).tolist()
            for j in range(classes)]


# Protobuf written by hand, for the files the onnx package would not write.
def tensor(name, dims, data_type, raw=b"", extra=b""):
    return field(5, field(8, name.encode()) + b"".join(number(1, n) for n in dims)
                 + number(2, data_type) + (field(9, raw) if raw else b"") + extra)


def node(op, inputs, outputs, attributes=b""):
    return field(1, b"".join(field(1, n.encode()) for n in inputs)
                 + b"".join(field(2, n.encode()) for n in outputs) + field(4, op.encode())
                 + attributes)


def model(*parts):
    return field(7, b"".join(parts) + field(12, field(1, b"y")))


FLOATS = b"\x00\x00\x80\x3f" * 6   # six float32 1.0s
GEMM = node("Gemm", ["x", "W"], ["y"], field(5, field(1, b"transB") + number(3, 1)))


class TestShippedModels(FileTestCase):

    def check(self, name, dtype):
        arrays = read(os.path.join(DATA, name + ".onnx"))
        expected = EXPECTED[name]
        by_name = {array.name: array for array in arrays}
        head = arrays.head
        self.assertEqual((head.weights, head.bias), (expected["head"], expected["bias"]))
        weights = by_name[head.weights]
        self.assertEqual(weights.dtype, dtype)
        self.assertEqual(weights.load()[1], expected["fortran"])
        self.assertEqual(rows(weights), expected["rows"])
        if head.bias is not None:
            self.assertEqual(by_name[head.bias].load()[0].tolist(), expected["bias_values"])
        self.assertIsNone(arrays.tokens)
        return head

    def test_a_gemm_with_trans_b_is_read_as_stored_with_its_bias(self):
        head = self.check("gemm", "FLOAT")
        self.assertIn("Gemm 'head' reaches the input of Softmax", head.why)
        self.assertIn("stored (C, d) = (3, 4)", head.why)
        self.assertEqual(EXPECTED["gemm"]["rows"][0], [-1.625, -1.125, -0.375, 3.0])

    def test_typed_float_data_and_gemm_s_alpha_and_beta_folded_into_the_layer(self):
        head = self.check("typed", "FLOAT times 2.0")
        self.assertIn("alpha 2.0 scales the weights and beta 0.5 the bias, exactly", head.why)

    def test_a_matmul_weight_d_by_c_is_its_transpose_in_fortran_order(self):
        head = self.check("matmul_add", "FLOAT")
        self.assertIn("reaches the input of ArgMax", head.why)
        self.assertIn("stored (d, C) = (4, 3)", head.why)

    def test_float16_raw_and_typed_widen_exactly(self):
        self.check("float16", "FLOAT16")
        self.check("float16_typed", "FLOAT16")

    def test_dequantize_linear_per_tensor_uint8_is_float32_as_the_operator_defines(self):
        head = self.check("dq_uint8", "FLOAT (scale * (q - zero point))")
        self.assertIn("per tensor", head.why)
        # 0.0123 as float32, times 157 - 117, rounded to float32 (this one
        # is a float32 already).
        self.assertEqual(EXPECTED["dq_uint8"]["rows"][0][0], 0.4919999837875366)

    def test_dequantize_linear_per_axis_int8_scales_each_class(self):
        self.assertIn("per axis 1", self.check("dq_int8_axis",
                                               "FLOAT (scale * (q - zero point))").why)

    def test_matmul_integer_s_weight_scale_is_folded_into_its_integers(self):
        head = self.check("matmulinteger", "INT16 (q - zero point) times 0.020500000566244125")
        self.assertIn("DynamicQuantizeLinear's scale", head.why)
        self.assertEqual(EXPECTED["matmulinteger"]["rows"][0][0], 0.020500000566244125 * -85)

    def test_qlinear_matmul_is_its_real_product_before_requantizing(self):
        head = self.check("qlinear", "DOUBLE (scale * (q - zero point))")
        self.assertIn("before it is requantized", head.why)

    def test_external_data_is_read_from_the_models_folder(self):
        self.check("external", "FLOAT")

    def test_a_graph_without_a_layer_has_no_head(self):
        arrays = read(os.path.join(DATA, "no_layer.onnx"))
        self.assertEqual(([a.name for a in arrays], arrays.head), (["one"], None))

    def test_a_class_behind_a_log_softmax_is_found_unargmaxable_end_to_end(self):
        self.check("unargmaxable", "FLOAT")
        result = subprocess.run(
            [sys.executable, os.path.join(ROOT, "reviews", "counterexamples.py"), "check-layer",
             os.path.join(DATA, "unargmaxable.onnx"), "--format", "json"],
            capture_output=True, text=True, cwd=ROOT)
        report = json.loads(result.stdout)
        self.assertEqual((report["weights_tensor"], report["classes"], report["dim"]),
                         ({"name": "W", "dtype": "FLOAT", "shape": [4, 4]}, 4, 4))
        self.assertEqual(report["unargmaxable"], [2])
        self.assertIn("reaches the input of LogSoftmax", result.stderr)


class TestHostileModels(FileTestCase):

    def refused(self, data, message, name="m.onnx"):
        path = self.write(name, data)
        with self.assertRaisesRegex(InputError, message):
            arrays = read(path)
            if arrays.refusal is not None:
                raise arrays.refusal
            for array in arrays:
                array.load()

    def test_a_hand_written_gemm_is_read(self):
        arrays = read(self.write("m.onnx", model(GEMM, tensor("W", [2, 3], 1, FLOATS))))
        self.assertEqual((arrays.head.weights, rows(arrays[0])), ("W", [[1.0] * 3] * 2))

    def test_a_truncated_file_is_refused(self):
        with open(os.path.join(DATA, "gemm.onnx"), "rb") as handle:
            data = handle.read()
        self.refused(data[:-20], "runs past the end of its message")

    def test_lying_lengths_and_long_varints_are_refused(self):
        self.refused(b"\x3a\xff\xff\xff\x0f", "runs past the end of its message")
        self.refused(b"\x3a" + b"\xff" * 11, "a number of more than 10 bytes")
        self.refused(b"\x08\x07", "no graph .* not an ONNX model")

    def test_deep_nesting_is_skipped_without_recursion(self):
        nested = b""
        for _ in range(20000):
            nested = field(6, nested)   # AttributeProto.g, a graph in a graph ...
        deep = node("If", ["c"], ["z"], field(5, field(1, b"then_branch") + nested))
        arrays = read(self.write("m.onnx", model(deep, GEMM, tensor("W", [2, 3], 1, FLOATS))))
        self.assertEqual(arrays.head.weights, "W")

    def test_huge_dims_in_a_tiny_file_are_refused_before_reading(self):
        self.refused(model(GEMM, tensor("W", [2 ** 40, 2 ** 40], 1, FLOATS)),
                     "initializer 'W' .* past the limit of 2147483648 values")
        self.refused(model(GEMM, tensor("W", [1000, 1000], 1, FLOATS)),
                     "it stores 24 raw_data bytes; dims \\(1000, 1000\\) need 4000000")
        self.refused(model(GEMM, tensor("W", [-1, 3], 1, FLOATS)), "negative size")

    def test_unknown_and_unread_data_types_are_refused_by_name(self):
        self.refused(model(GEMM, tensor("W", [2, 3], 99, FLOATS)),
                     "data type 99 \\(not an ONNX type\\) is not read")
        self.refused(model(GEMM, tensor("W", [2, 3], 7, FLOATS * 2)),
                     "data type INT64 is not read")

    def test_typed_values_out_of_range_are_refused(self):
        values = field(5, varint(300) + varint(1))
        self.refused(model(GEMM, tensor("W", [1, 2], 3, extra=values)),
                     "int32_data\\[0\\] is 300, outside")

    def test_external_data_may_not_leave_the_models_folder(self):
        for location in ("../secret.bin", "/etc/passwd", "a/../../b"):
            entry = field(13, field(1, b"location") + field(2, location.encode()))
            with self.subTest(location=location):
                self.refused(model(GEMM, tensor("W", [2, 3], 1, extra=entry + number(14, 1))),
                             "not a file in the model's folder")

    def test_external_data_shorter_than_its_dims_is_refused(self):
        self.write("w.bin", b"\x00" * 8)
        entry = field(13, field(1, b"location") + field(2, b"w.bin"))
        self.refused(model(GEMM, tensor("W", [2, 3], 1, extra=entry + number(14, 1))),
                     "runs to byte 24 of 'w.bin', which has 8")

    def test_a_typed_field_of_the_wrong_wire_type_is_refused(self):
        self.refused(model(GEMM, tensor("W", [2, 3], 1, extra=number(4, 1))),
                     "TensorProto field 4 has wire type 0")

    def test_many_ends_on_a_long_chain_and_a_cycle_end_quickly(self):
        chain = [node("Identity", ["v%d" % k], ["v%d" % (k + 1)]) for k in range(3000)]
        ends = [node("Softmax", ["v%d" % k], ["s%d" % k]) for k in range(3000)]
        cycle = [node("Identity", ["c1"], ["c0"]), node("Identity", ["c0"], ["c1"]),
                 node("Softmax", ["c0"], ["z"])]
        gemm = node("Gemm", ["x", "W"], ["v0"], field(5, field(1, b"transB") + number(3, 1)))
        arrays = read(self.write("m.onnx", model(gemm, *chain, *ends, *cycle,
                                                 tensor("W", [2, 3], 1, FLOATS))))
        self.assertEqual(arrays.head.weights, "W")


class TestFoundByHostileTesting(FileTestCase):
    """Valid models that once ended in a traceback, and lies that cost memory."""

    def test_matmulinteger_without_a_zero_point_is_its_integers(self):
        weights = bytes([1, 2, 3, 4, 5, 6])
        data = model(node("MatMulInteger", ["x", "Wq"], ["y"]), tensor("Wq", [3, 2], 3, weights))
        arrays = read(self.write("m.onnx", data))
        self.assertEqual(rows(next(a for a in arrays if a.name == arrays.head.weights)),
                         [[1, 3, 5], [2, 4, 6]])

    def test_a_float16_scale_after_the_layer_is_read_as_a_number(self):
        half = b"\x00\x40"   # float16 2.0
        data = model(node("MatMul", ["x", "W"], ["h"]), node("Mul", ["h", "s"], ["y"]),
                     tensor("W", [3, 2], 1, FLOATS), tensor("s", [], 10, half))
        arrays = read(self.write("m.onnx", data))
        self.assertEqual(arrays.head.weights, "2.0 * W")
        self.assertIn("multiplies by 2.0", arrays.head.why)

    def test_an_infinite_scale_is_no_positive_scale(self):
        gemm = node("Gemm", ["x", "W"], ["y"], field(5, field(1, b"transB") + number(3, 1))
                    + field(5, field(1, b"alpha") + varint(2 << 3 | 5) + b"\x00\x00\x80\x7f"))
        arrays = read(self.write("m.onnx", model(gemm, tensor("W", [2, 3], 1, FLOATS))))
        self.assertIsNone(arrays.head)

    def test_qlinearmatmul_of_too_few_inputs_names_no_layer(self):
        data = model(node("QLinearMatMul", ["x", "xs", "xz", "W"], ["y"]),
                     tensor("W", [2, 2], 2, bytes(4)))
        self.assertIsNone(read(self.write("m.onnx", data)).head)

    def test_many_nodes_are_refused_at_the_limit(self):
        data = field(7, field(1, b"") * 1100)
        with mock.patch.object(onnx, "_MAX_ITEMS", 1000):
            self.assertRaisesRegex(InputError, "more than 1000 nodes, past the limit",
                                   read, self.write("m.onnx", data))

    def test_a_thousand_negative_dims_are_one_short_line(self):
        dims = field(1, varint(2 ** 64 - 1) * 1000)
        with self.assertRaises(InputError) as raised:
            read(self.write("m.onnx", model(field(5, dims + number(2, 1)))))
        self.assertIn("1000 dims, past the limit of 32", str(raised.exception))
        self.assertLess(len(str(raised.exception)), 200)

    def test_a_list_of_ints_of_a_fixed_width_wire_type_is_refused(self):
        perm = field(1, b"perm") + varint(8 << 3 | 5) + bytes(4)
        data = model(node("Transpose", ["x"], ["y"], field(5, perm)), tensor("W", [2, 3], 1, FLOATS))
        with self.assertRaisesRegex(InputError, "attribute field 8 has wire type 5"):
            read(self.write("m.onnx", data))

    def test_a_head_of_a_type_not_read_leaves_other_arrays_to_name(self):
        data = model(GEMM, tensor("W", [2, 3], 7, bytes(48)), tensor("other", [3, 2], 1, FLOATS))
        path = self.write("m.onnx", data)
        self.assertRaisesRegex(InputError, "data type INT64 is not read", read_model, path)
        self.assertEqual(read_model(path, tensor="other").weights_tensor.name, "other")
