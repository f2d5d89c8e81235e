"""Makes the .onnx fixtures of tests/formats/test_onnx.py and expected.json.

Run with the onnx package (1.23.2, numpy 2.4.6), in a throwaway venv:
    /work/venvs/fx/bin/python tests/data/onnx/make_fixtures.py
Each model is checked by onnx.checker and run by onnx.reference on a
random input: its logits must equal x W^T + b of the rows written to
expected.json (W as (C, d), classes first), to float64 rounding.
"""

import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

HERE = os.path.dirname(os.path.abspath(__file__))
C, D = 3, 4
rng = np.random.default_rng(20261204)
expected = {}


def values(shape):
    # Multiples of 1/8 in [-4, 4]: exact in float16 and bfloat16 too.
    return (rng.integers(-32, 33, size=shape) / 8).astype(np.float32)


def save(name, nodes, initializers, x_type=TensorProto.FLOAT, output="y", out_type=None,
         opset=21, location=None):
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", x_type, [1, D])],
        [helper.make_tensor_value_info(output, out_type or TensorProto.FLOAT, ["n", "k"])],
        initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    path = os.path.join(HERE, name + ".onnx")
    if location:
        onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=location, size_threshold=0)
    else:
        onnx.save_model(model, path)
    return model


def check(model, name, weights, bias, head, bias_name, fortran, run=True):
    """Record the layer (C, d) and check the model's own logits against it."""
    weights = np.asarray(weights, dtype=np.float64)
    b = np.zeros(weights.shape[0]) if bias is None else np.asarray(bias, dtype=np.float64)
    if run:
        x = values((1, D)).astype(np.float16 if model.graph.input[0].type.tensor_type.elem_type
                                  == TensorProto.FLOAT16 else np.float32)
        got = ReferenceEvaluator(model).run(None, {"x": x})[0]
        want = x.astype(np.float64) @ weights.T + b
        softmax = np.exp(want - want.max()) / np.exp(want - want.max()).sum()
        assert (np.allclose(got, want, rtol=1e-3, atol=1e-3) if name != "gemm" and
                got.dtype.kind == "f" and not name.startswith("dq_uint8") else
                np.allclose(got, softmax, rtol=1e-3) if got.dtype.kind == "f" else
                np.array_equal(np.ravel(got), np.argmax(want, axis=1))), (name, got, want)
    expected[name] = {"head": head, "bias": bias_name, "fortran": fortran,
                      "rows": weights.tolist(), "bias_values": None if bias is None
                      else b.tolist()}


# Gemm, transB = 1: B stored (C, d); raw_data; then Softmax.
W, b = values((C, D)), values((C,))
m = save("gemm", [helper.make_node("Gemm", ["x", "W", "b"], ["logits"], name="head", transB=1),
                  helper.make_node("Softmax", ["logits"], ["y"])],
         [numpy_helper.from_array(W, "W"), numpy_helper.from_array(b, "b")])
check(m, "gemm", W, b, "W", "b", False)

# The same with float_data (typed, packed) and Gemm's alpha and beta.
W, b = values((C, D)), values((C,))
m = save("typed", [helper.make_node("Gemm", ["x", "W", "b"], ["y"], name="head", transB=1,
                                    alpha=2.0, beta=0.5)],
         [helper.make_tensor("W", TensorProto.FLOAT, W.shape, W.ravel().tolist()),
          helper.make_tensor("b", TensorProto.FLOAT, b.shape, b.tolist())])
check(m, "typed", W, b, "W", "b", False, run=False)

# MatMul by W (d, C) then Add, through a Reshape, then ArgMax.
W, b = values((D, C)), values((C,))
m = save("matmul_add", [
    helper.make_node("MatMul", ["x", "W"], ["xw"], name="head"),
    helper.make_node("Add", ["xw", "b"], ["logits"]),
    helper.make_node("Reshape", ["logits", "shape"], ["flat"]),
    helper.make_node("ArgMax", ["flat"], ["y"], axis=1)],
    [numpy_helper.from_array(W, "W"), numpy_helper.from_array(b, "b"),
     numpy_helper.from_array(np.array([1, C], dtype=np.int64), "shape")],
    out_type=TensorProto.INT64)
check(m, "matmul_add", W.T, b, "W", "b", True)

# float16: raw_data, and typed (int32_data holds each value's 16 bits).
for name, raw in (("float16", True), ("float16_typed", False)):
    W, b = values((D, C)).astype(np.float16), values((C,)).astype(np.float16)
    inits = ([numpy_helper.from_array(W, "W"), numpy_helper.from_array(b, "b")] if raw else
             [helper.make_tensor("W", TensorProto.FLOAT16, W.shape, W.ravel().tolist()),
              helper.make_tensor("b", TensorProto.FLOAT16, b.shape, b.tolist())])
    m = save(name, [helper.make_node("MatMul", ["x", "W"], ["xw"]),
                    helper.make_node("Add", ["b", "xw"], ["y"])], inits,
             x_type=TensorProto.FLOAT16, out_type=TensorProto.FLOAT16)
    check(m, name, W.T, b, "W", "b", True)

# DequantizeLinear per tensor, uint8 (raw), then MatMul, Add, Softmax.
q = rng.integers(0, 256, size=(D, C)).astype(np.uint8)
scale, zero = np.float32(0.0123), np.uint8(117)
b = values((C,))
m = save("dq_uint8", [
    helper.make_node("DequantizeLinear", ["q", "scale", "zero"], ["W"]),
    helper.make_node("MatMul", ["x", "W"], ["xw"]),
    helper.make_node("Add", ["xw", "b"], ["logits"]),
    helper.make_node("Softmax", ["logits"], ["y"])],
    [numpy_helper.from_array(q, "q"), numpy_helper.from_array(np.array(scale), "scale"),
     numpy_helper.from_array(np.array(zero), "zero"), numpy_helper.from_array(b, "b")])
check(m, "dq_uint8", (np.float64(scale) * (q.astype(np.float64) - float(zero))).T, b, "W", "b",
      True)

# DequantizeLinear per axis 1 (one scale a class), int8 in int32_data.
q = rng.integers(-128, 128, size=(D, C)).astype(np.int8)
scales = np.array([0.5, 0.0371, 3.25e-3], dtype=np.float32)
zeros = np.array([0, -3, 7], dtype=np.int8)
m = save("dq_int8_axis", [
    helper.make_node("DequantizeLinear", ["q", "scale", "zero"], ["W"], axis=1),
    helper.make_node("MatMul", ["x", "W"], ["y"])],
    [helper.make_tensor("q", TensorProto.INT8, q.shape, q.ravel().tolist()),
     numpy_helper.from_array(scales, "scale"),
     helper.make_tensor("zero", TensorProto.INT8, zeros.shape, zeros.tolist())])
check(m, "dq_int8_axis", (scales.astype(np.float64) * (q.astype(np.float64) - zeros)).T, None,
      "W", None, True)

# MatMulInteger as onnxruntime's quantize_dynamic writes it (ddddocr's common_old.onnx).
q = rng.integers(0, 256, size=(D, C)).astype(np.uint8)
zero, scale, b = np.uint8(119), np.float32(0.0205), values((C,))
m = save("matmulinteger", [
    helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
    helper.make_node("MatMulInteger", ["xq", "q", "xz", "zero"], ["product"], name="head"),
    helper.make_node("Cast", ["product"], ["real"], to=TensorProto.FLOAT),
    helper.make_node("Mul", ["xs", "scale"], ["scales"]),
    helper.make_node("Mul", ["real", "scales"], ["xw"]),
    helper.make_node("Add", ["xw", "b"], ["y"])],
    [numpy_helper.from_array(q, "q"), numpy_helper.from_array(np.array(zero), "zero"),
     numpy_helper.from_array(np.array(scale), "scale"), numpy_helper.from_array(b, "b")])
check(m, "matmulinteger", (q.astype(np.float64) - float(zero)).T, b, "q - zero", "b", True,
      run=False)

# QLinearMatMul: the layer is b_scale * (b - b_zero_point), before requantizing.
q = rng.integers(0, 256, size=(D, C)).astype(np.uint8)
m = save("qlinear", [
    helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
    helper.make_node("QLinearMatMul", ["xq", "xs", "xz", "q", "ws", "wz", "ys", "yz"], ["yq"]),
    helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"])],
    [numpy_helper.from_array(np.array(np.float32(0.05)), "xs"),
     numpy_helper.from_array(np.array(np.uint8(128)), "xz"),
     numpy_helper.from_array(q, "q"),
     numpy_helper.from_array(np.array(np.float32(0.0078125)), "ws"),
     numpy_helper.from_array(np.array(np.uint8(131)), "wz"),
     numpy_helper.from_array(np.array(np.float32(0.25)), "ys"),
     numpy_helper.from_array(np.array(np.uint8(100)), "yz")])
check(m, "qlinear", (0.0078125 * (q.astype(np.float64) - 131)).T, None, "ws * (q - wz)", None,
      True, run=False)

# External data: every initializer in external.bin, beside the model.
W, b = values((C, D)), values((C,))
m = save("external", [helper.make_node("Gemm", ["x", "W", "b"], ["y"], transB=1)],
         [numpy_helper.from_array(W, "W"), numpy_helper.from_array(b, "b")],
         location="external.bin")
check(onnx.load(os.path.join(HERE, "external.onnx")), "external", W, b, "W", "b", False)

# A class no x makes the argmax: w2 = 0 with b2 = -1, while max(w0 x, w1 x)
# = |x_0| >= 0.  MatMul of W (d, C) then Add, then LogSoftmax.
W = np.array([[1, -1, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0]], dtype=np.float32)
b = np.array([0, 0, -1, 0], dtype=np.float32)
m = save("unargmaxable", [helper.make_node("MatMul", ["x", "W"], ["xw"]),
                          helper.make_node("Add", ["xw", "b"], ["logits"]),
                          helper.make_node("LogSoftmax", ["logits"], ["y"])],
         [numpy_helper.from_array(W, "W"), numpy_helper.from_array(b, "b")])
check(m, "unargmaxable", W.T, b, "W", "b", True, run=False)

# No layer: a Relu of the input; its one initializer is not one.
save("no_layer", [helper.make_node("Add", ["x", "one"], ["y"])],
     [numpy_helper.from_array(np.ones((1, D), dtype=np.float32), "one")])

with open(os.path.join(HERE, "expected.json"), "w") as out:
    json.dump(expected, out, indent=1)
    out.write("\n")
