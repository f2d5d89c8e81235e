"""The layer reviews.formats.onnx reads from a graph, against what the graph
computes: for every shape of graph the reader accepts, its logits at
points of the input domain (tests.support.onnx_files runs the graph by
each operator's definition) are the layer's, and its verdicts hold on the
graph (each witness is the graph's prediction, no point of a grid predicts
a class called unargmaxable); every other shape is refused in one line
naming the node and the op.  The models are written here, by the standard
library; tests/data/onnx/README.md says how the reference's values were
checked against onnxruntime."""

import itertools
from fractions import Fraction

from reviews.argmax.check import check_layer
from reviews.errors import InputError
from reviews.formats.layers import read_model
from tests.support import FileTestCase
from tests.support.onnx_files import (BOOL, FLOAT, INT8, INT64, UINT8, class_vectors,
                                      initializer, model_bytes, node, predictions, run)

# The layer of most graphs: C = 3 classes of d = 2, with a bias.
W = [[1, 0], [0, 1], [-1, -1]]   # (C, d)
WT = [1, 0, -1, 0, 1, -1]        # (d, C), as x W reads it
B = [Fraction(1, 2), 0, Fraction(-1, 4)]


def f32(name, dims, values):
    return initializer(name, dims, values, FLOAT)


def ints(name, values, data_type=INT64):
    return initializer(name, [len(values)], values, data_type)


def grid(d, radius, steps=4):
    """The points of a grid over the box |x_k| <= radius."""
    ticks = [Fraction(radius) * k / steps for k in range(-steps, steps + 1)]
    return [list(point) for point in itertools.product(ticks, repeat=d)]


def exact(rows):
    return [[Fraction(v) for v in row] for row in rows]


class GraphTestCase(FileTestCase):

    def read(self, nodes, inits, **written):
        notes = []
        layer = read_model(self.write("m.onnx", model_bytes(nodes, inits, **written)),
                           note=notes.append)
        return layer, "\n".join(notes)

    def refused(self, nodes, inits, message, **written):
        with self.assertRaisesRegex(InputError, message) as raised:
            read_model(self.write("m.onnx", model_bytes(nodes, inits, **written)))
        self.assertNotIn("\n", str(raised.exception))

    def logits(self, layer, x):
        bias = layer.bias or [0] * len(layer.weights)
        return [sum(Fraction(w) * v for w, v in zip(row, x)) + Fraction(b)
                for row, b in zip(layer.weights, bias)]

    def assertComputes(self, nodes, inits, layer, points, end="y", axis=-1, shape=None,
                       shift=0, rounded=False):
        """At each point x, the graph's class vector at ``end`` (along
        ``axis``) is the layer's logits at x (plus ``shift``); ``rounded``:
        the graph rounds them, so the layer's argmax is a largest of the
        graph's values (a rounding keeps the order, and may tie)."""
        for x in points:
            values = run(nodes, inits, {"x": (shape or (1, len(x)), [Fraction(v) for v in x])})
            found, logits = class_vectors(values, end, axis), self.logits(layer, x)
            if not rounded:
                self.assertEqual(found, [[v + shift for v in logits]], x)
            elif logits.count(max(logits)) == 1:
                self.assertEqual(found[0][logits.index(max(logits))], max(found[0]), x)

    def assertVerdictsHold(self, nodes, inits, layer, box, end="y", axis=-1, shape=None,
                           to_input=lambda x: x):
        """check_layer's verdicts in the box, on the graph: each witness is
        the graph's strict argmax, no grid point predicts an unargmaxable
        class; returns the unargmaxable classes."""
        results = check_layer(exact(layer.weights), layer.bias and exact([layer.bias])[0],
                              box=box)
        for result in results:
            if result.argmaxable:
                x = to_input(list(result.witness))
                values = run(nodes, inits, {"x": (shape or (1, len(x)), x)})
                self.assertEqual(predictions(values, end, axis), [result.index], x)
        unargmaxable = [r.index for r in results if not r.argmaxable]
        for x in grid(len(layer.weights[0]), box):
            x = to_input(x)
            values = run(nodes, inits, {"x": (shape or (1, len(x)), x)})
            self.assertNotIn(predictions(values, end, axis)[0], unargmaxable, x)
        return unargmaxable


class TestScalesFolded(GraphTestCase):
    """A positive scale rescales the box: it is folded into the layer."""

    def test_gemm_s_alpha_and_beta_scale_weights_and_bias_in_a_box(self):
        # logits (0; 2) x + (1; 0): class 1 wins for x > 1/2, inside the box 3/4.
        nodes = [node("Gemm", ["x", "W", "C"], ["y"], alpha=2.0, transB=1)]
        inits = [f32("W", [2, 1], [0, 1]), f32("C", [2], [1, 0])]
        layer, notes = self.read(nodes, inits)
        self.assertEqual((layer.weights_tensor.name, layer.bias), ("2.0 * W", [1.0, 0.0]))
        self.assertIn("alpha 2.0 scales the weights, exactly", notes)
        self.assertComputes(nodes, inits, layer, grid(1, 1))
        self.assertEqual(self.assertVerdictsHold(nodes, inits, layer, Fraction(3, 4)), [])
        # alpha and beta apart: the weights times alpha, the bias times beta.
        nodes = [node("Gemm", ["x", "W", "C"], ["y"], alpha=0.5, beta=4.0)]
        inits = [f32("W", [2, 3], WT), f32("C", [3], B)]
        layer, _ = self.read(nodes, inits)
        self.assertEqual(layer.bias_tensor.name, "4.0 * C")
        self.assertComputes(nodes, inits, layer, grid(2, 2))
        self.assertVerdictsHold(nodes, inits, layer, Fraction(1, 2))

    def test_a_mul_before_the_bias_scales_the_weights_alone(self):
        nodes = [node("MatMul", ["x", "W"], ["h"]), node("Mul", ["h", "s"], ["z"]),
                 node("Add", ["z", "b"], ["y"])]
        inits = [f32("W", [1, 2], [0, 1]), f32("s", [], [2]), f32("b", [2], [1, 0])]
        layer, notes = self.read(nodes, inits)
        self.assertEqual((layer.weights_tensor.name, layer.bias_tensor.name), ("2.0 * W", "b"))
        self.assertIn("Mul 'z' multiplies by 2.0, folded into the layer", notes)
        self.assertComputes(nodes, inits, layer, grid(1, 1))
        self.assertEqual(self.assertVerdictsHold(nodes, inits, layer, Fraction(3, 4)), [])

    def test_a_mul_after_the_bias_scales_both_exactly(self):
        # 0.1 is no dyadic: each value times the float32 0.1 exactly, a Fraction.
        nodes = [node("MatMul", ["x", "W"], ["h"]), node("Add", ["h", "b"], ["z"]),
                 node("Mul", ["s", "z"], ["y"])]
        inits = [f32("W", [2, 3], WT), f32("b", [3], B), f32("s", [1, 1], [0.1])]
        layer, _ = self.read(nodes, inits)
        tenth = Fraction(0.1)   # the float64 0.1 is no float32: the file holds float32(0.1)
        self.assertNotEqual(layer.weights[0][0], tenth)
        self.assertComputes(nodes, inits, layer, grid(2, 1))
        self.assertVerdictsHold(nodes, inits, layer, 1)

    def test_matmul_integer_s_weight_scale_is_folded_on_the_dequantized_input(self):
        # quantize_dynamic's pattern; x's extremes -127/32 and 128/32 make its
        # scale 1/32 and zero point 127, so the dequantized input is x.
        nodes = [node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
                 node("MatMulInteger", ["xq", "q", "xz", "qz"], ["p"]),
                 node("Cast", ["p"], ["r"], to=FLOAT), node("Mul", ["xs", "ws"], ["s"]),
                 node("Mul", ["r", "s"], ["z"]), node("Add", ["z", "b"], ["y"])]
        inits = [initializer("q", [4, 3], [130, 128, 126, 128, 130, 126, 129, 127, 128,
                                           127, 128, 129], UINT8),
                 initializer("qz", [], [128], UINT8), f32("ws", [], [0.25]), f32("b", [3], B)]
        layer, notes = self.read(nodes, inits)
        self.assertEqual(layer.weights_tensor.name, "0.25 * (q - qz)")
        self.assertIn("its input is the dequantized s * (q - zero point)", notes)
        low, high = Fraction(-127, 32), Fraction(128, 32)
        points = [[low, high, Fraction(a, 32), Fraction(c, 32)]
                  for a in range(-127, 129, 51) for c in range(-127, 129, 85)]
        self.assertComputes(nodes, inits, layer, points, shape=(1, 4))
        # The same Mul by a DynamicQuantizeLinear scale of another input is no scale of this one.
        other = nodes[:1] + [node("DynamicQuantizeLinear", ["x2"], ["oq", "os", "oz"]),
                             node("MatMulInteger", ["xq", "q", "xz", "qz"], ["p"]),
                             node("Cast", ["p"], ["r"], to=FLOAT),
                             node("Mul", ["os", "ws"], ["s"])] + nodes[4:]
        self.refused(other, inits, "Mul 'z': its scale is that of DynamicQuantizeLinear 'oq',"
                                   " which does not quantize the input of MatMulInteger 'p'")

    def test_qlinear_matmul_s_layer_is_its_real_product(self):
        # Inputs on the grid of 1/16 quantize exactly; the products (multiples
        # of 1/64) are rounded to steps of y_scale, 1/8.
        nodes = [node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
                 node("QLinearMatMul", ["xq", "xs", "xz", "q", "ws", "wz", "ys", "yz"], ["yq"]),
                 node("DequantizeLinear", ["yq", "ys", "yz"], ["y"])]
        inits = [f32("xs", [], [0.0625]), initializer("xz", [], [128], UINT8),
                 initializer("q", [2, 3], [132, 128, 124, 128, 130, 126], UINT8),
                 f32("ws", [], [0.25]), initializer("wz", [], [128], UINT8),
                 f32("ys", [], [0.125]), initializer("yz", [], [128], UINT8)]
        layer, notes = self.read(nodes, inits)
        self.assertEqual(layer.weights_tensor.name, "ws * (q - wz)")
        self.assertIn("before it is requantized", notes)
        points = [[Fraction(a, 16), Fraction(c, 16)] for a in range(-24, 25, 3)
                  for c in range(-24, 25, 5)]
        self.assertComputes(nodes, inits, layer, points, rounded=True)


class TestWeightsAsStored(GraphTestCase):

    def test_dequantize_linear_weights_are_float32_as_defined(self):
        # int8 rows (-9, -9), (-7, -5), (-8, -7) by the float32 0.1: the third
        # is the midpoint of the others before rounding, not after, so the
        # graph's class 2 is argmaxable.
        nodes = [node("DequantizeLinear", ["q", "s"], ["W"]),
                 node("MatMul", ["x", "W"], ["y"])]
        inits = [initializer("q", [2, 3], [-9, -7, -8, -9, -5, -7], INT8), f32("s", [], [0.1])]
        layer, _ = self.read(nodes, inits)
        self.assertEqual(layer.weights_tensor.dtype, "FLOAT (scale * (q - zero point))")
        rows = exact(layer.weights)
        self.assertNotEqual(rows[2], [(a + b) / 2 for a, b in zip(rows[0], rows[1])])
        self.assertComputes(nodes, inits, layer, grid(2, 3))
        results = check_layer(rows)
        self.assertTrue(results[2].argmaxable)
        values = run(nodes, inits, {"x": ((1, 2), list(results[2].witness))})
        self.assertEqual(predictions(values, "y"), [2])

    def test_gemm_transposes_b_for_any_nonzero_trans_b(self):
        nodes = [node("Gemm", ["x", "W", "b"], ["y"], transB=2)]
        inits = [f32("W", [3, 2], [1, 0, 0, 1, -1, -1]), f32("b", [3], B)]
        layer, _ = self.read(nodes, inits)
        self.assertEqual(exact(layer.weights), exact(W))
        self.assertComputes(nodes, inits, layer, grid(2, 1))

    def test_gemm_s_trans_a_reads_a_column_of_a(self):
        nodes = [node("Gemm", ["x", "W", "b"], ["y"], transA=1)]
        inits = [f32("W", [2, 3], WT), f32("b", [3], B)]
        layer, notes = self.read(nodes, inits)
        self.assertIn("transA: the layer's input is a column of A", notes)
        self.assertComputes(nodes, inits, layer, grid(2, 1), shape=(2, 1))

    def test_constant_nodes_hold_the_weights_of_older_exports(self):
        # paddle2onnx's older exports (rapidocr's PP-OCR direction
        # classifier): no initializer, Constant nodes, Softmax at axis 1 at
        # opset 11, its rank declared only by the graph output after an
        # Identity.
        nodes = [node("Constant", [], ["W"], value=f32("", [2, 3], WT)),
                 node("Constant", [], ["b"], value=f32("", [3], B)),
                 node("MatMul", ["x", "W"], ["h"]), node("Add", ["h", "b"], ["z"]),
                 node("Softmax", ["z"], ["p"], axis=1), node("Identity", ["p"], ["y"])]
        layer, notes = self.read(nodes, [], inputs=(("x", None),), opset=11, ranks={"y": 2})
        self.assertEqual((layer.weights_tensor.name, layer.bias_tensor.name), ("W", "b"))
        self.assertIn("reaches the input of Softmax 'p': weights Constant 'W' (FLOAT)", notes)
        self.assertComputes(nodes, [], layer, grid(2, 1), end="z")
        self.assertVerdictsHold(nodes, [], layer, 1, end="z")

    def test_paddleocr_s_characters_name_the_classes(self):
        nodes = [node("MatMul", ["x", "W"], ["h"]), node("Add", ["h", "b"], ["z"]),
                 node("Softmax", ["z"], ["y"], axis=-1)]
        inits = [f32("W", [2, 3], WT), f32("b", [3], B)]
        layer, notes = self.read(nodes, inits, metadata={"character": "a"})
        self.assertEqual(layer.tokens, {0: "blank", 1: "a", 2: " "})
        self.assertIn("classes named by metadata_props 'character'", notes)
        layer, _ = self.read(nodes, inits, metadata={"character": "a\nb"})
        self.assertEqual(layer.tokens, {0: "blank", 1: "a", 2: "b"})
        layer, notes = self.read(nodes, inits, metadata={"character": "a\nb\nc\nd"})
        self.assertEqual(layer.tokens, {0: "blank", 1: "a", 2: "b"})
        self.assertIn("(2 names past the 3 classes left out: is it this model's?)", notes)
        layer, notes = self.read(nodes, inits, metadata={"character": ""})
        self.assertEqual(layer.tokens, {0: "blank"})
        self.assertIn("2 of the 3 classes have no token in it", notes)


class TestAxes(GraphTestCase):
    """Moves of the logits are read only where each row's classes stay together."""

    def setUp(self):
        super().setUp()
        self.head = [node("MatMul", ["x", "W"], ["h"]), node("Add", ["h", "b"], ["z"])]
        self.inits = [f32("W", [2, 3], WT), f32("b", [3], B), ints("one_c", [1, 3]),
                      ints("grouped", [1, 1, 3]), ints("zero", [0]), ints("last", [-1])]

    def accepted(self, moves, end, axis, **written):
        layer, _ = self.read(self.head + moves, self.inits, **written)
        self.assertComputes(self.head + moves, self.inits, layer, grid(2, 1), end=end, axis=axis)
        self.assertVerdictsHold(self.head + moves, self.inits, layer, 1, end=end, axis=axis)

    def test_moves_that_keep_each_row_s_classes_are_read(self):
        cases = [
            ([node("Reshape", ["z", "one_c"], ["r"]), node("ArgMax", ["r"], ["y"], axis=1)],
             "r", 1),
            ([node("Flatten", ["z"], ["r"]), node("Softmax", ["r"], ["y"])], "r", -1),
            ([node("Transpose", ["z"], ["r"]), node("ArgMax", ["r"], ["y"], axis=0)], "r", 0),
            ([node("Unsqueeze", ["z", "last"], ["r"]), node("ArgMax", ["r"], ["y"], axis=-2)],
             "r", -2),
            ([node("Unsqueeze", ["z", "zero"], ["r"]), node("Squeeze", ["r", "zero"], ["s"]),
              node("Squeeze", ["s", "zero"], ["t"]), node("ArgMax", ["t"], ["y"], axis=0)],
             "t", 0),
            ([node("Cast", ["z"], ["c"], to=FLOAT), node("Dropout", ["c"], ["r"]),
              node("Identity", ["r"], ["y"])], "r", -1),
            ([node("Cast", ["z"], ["c"], to=11), node("Cast", ["c"], ["r"], to=FLOAT),
              node("Identity", ["r"], ["y"])], "r", -1),
        ]
        for moves, end, axis in cases:
            with self.subTest(ops=[move.op for move in moves]):
                self.accepted(moves, end, axis)

    def test_a_note_names_the_first_and_last_steps_of_a_long_walk(self):
        casts = [node("Cast", ["z" if k == 0 else "c%d" % k], ["c%d" % (k + 1)], to=FLOAT)
                 for k in range(30)]
        _, notes = self.read(self.head + casts, self.inits, outputs=("c30",))
        self.assertEqual((notes.count("it passes Cast"), notes.count("; 18 more steps;")),
                         (12, 1))

    def test_a_softmax_before_opset_13_takes_the_last_axes_together(self):
        # At opset 12 Softmax(axis=1) of (1, 1, 3) normalizes over 1 x 3:
        # refused; at axis 2 (or -1) it is the classes' alone.
        moves = [node("Reshape", ["z", "grouped"], ["r"]), node("Softmax", ["r"], ["y"], axis=2)]
        self.accepted(moves, "r", 2, opset=12)
        moves[1] = node("Softmax", ["r"], ["y"], axis=1)
        self.refused(self.head + moves, self.inits,
                     "Softmax 'y' takes its softmax over axis 1, not over the classes' axis of"
                     " MatMul 'h' alone \\(before opset 13", opset=12)

    def test_moves_that_regroup_the_classes_are_refused(self):
        # (1, 6) -> (1, 2, 3): the graph's argmax is taken in each group of 3.
        six = [f32("W", [2, 6], WT + WT), f32("b", [6], B + B), ints("groups", [1, 2, 3])]
        self.refused(self.head + [node("Reshape", ["z", "groups"], ["r"]),
                                  node("ArgMax", ["r"], ["y"], axis=-1)], six,
                     "Reshape 'r' to shape \\(1, 2, 3\\) does not keep each row's 6 classes")
        cases = [
            ([node("ArgMax", ["z"], ["y"])], "ArgMax 'y' takes its argmax over axis 0"),
            ([node("Transpose", ["z"], ["r"]), node("Softmax", ["r"], ["y"])],
             "Softmax 'y' takes its softmax over axis -1"),
            ([node("Squeeze", ["z"], ["r"], axes=[1]), node("Softmax", ["r"], ["y"])],
             "Squeeze 'r' removes the classes' axis"),
            ([node("Reshape", ["z", "grouped"], ["r"]), node("Flatten", ["r"], ["s"]),
              node("Softmax", ["s"], ["y"])], "Flatten 's' at axis 1 does not keep"),
        ]
        for moves, message in cases:
            with self.subTest(ops=[move.op for move in moves]):
                self.refused(self.head + moves, self.inits, message)


class TestRefused(GraphTestCase):
    """What the reader does not model is refused in one line naming the node."""

    def setUp(self):
        super().setUp()
        self.inits = [f32("W", [2, 3], WT), f32("b", [3], B), f32("column", [3, 1], [1, 2, 3]),
                      f32("one", [1, 1], [5]), f32("per_class", [3], [1, 2, 3]),
                      initializer("training", [], [1], BOOL)]

    def test_a_cast_to_an_integer_type_or_bool_is_refused(self):
        for to, name in ((UINT8, "UINT8"), (BOOL, "BOOL"), (INT64, "INT64"), (17, "FLOAT8E4M3FN")):
            with self.subTest(to=name):
                self.refused([node("MatMul", ["x", "W"], ["h"]),
                              node("Cast", ["h"], ["y"], to=to)], self.inits,
                             "Cast 'y': a cast to %s changes the argmax" % name)

    def test_an_add_that_is_no_bias_per_class_is_refused(self):
        # (C, 1) broadcast with (1, C) makes a (C, C) output.
        self.refused([node("MatMul", ["x", "W"], ["h"]), node("Add", ["h", "column"], ["y"])],
                     self.inits, "Add 'y': 'column' FLOAT is not one value per class: its dims"
                                 " \\(3, 1\\)")
        self.refused([node("MatMul", ["x", "W"], ["h"]), node("Add", ["h", "b"], ["z"]),
                      node("Add", ["z", "per_class"], ["y"])], self.inits,
                     "Add 'y' adds a second bias, after 'b'")

    def test_one_value_added_to_every_class_changes_nothing(self):
        nodes = [node("MatMul", ["x", "W"], ["h"]), node("Add", ["h", "one"], ["z"]),
                 node("Add", ["z", "b"], ["y"])]
        layer, notes = self.read(nodes, self.inits)
        self.assertIn("Add 'z' adds one value to every class, which changes no argmax", notes)
        self.assertComputes(nodes, self.inits, layer, grid(2, 1), shift=5)

    def test_other_ops_and_scales_are_refused_by_name(self):
        cases = [
            ([node("MatMul", ["x", "W"], ["h"]), node("Relu", ["h"], ["y"])],
             "Relu 'y' lies between the layer MatMul 'h' and the output: its effect on the"
             " argmax is not read"),
            ([node("MatMul", ["x", "W"], ["h"]), node("Mul", ["h", "per_class"], ["y"])],
             "Mul 'y': 'per_class' \\(3,\\) is not one value"),
            ([node("MatMul", ["x", "W"], ["h"]), node("Dropout", ["h", "", "training"], ["y"])],
             "Dropout 'y': its training_mode 'training' is not a constant false"),
            ([node("MatMul", ["x", "W"], ["h"]), node("Add", ["h", "x"], ["y"])],
             "Add 'y' lies between the layer"),
        ]
        for nodes, message in cases:
            with self.subTest(op=nodes[-1].op):
                self.refused(nodes, self.inits, message)

    def test_a_dequantize_linear_axis_that_is_no_int_is_named_as_given(self):
        nodes = [node("DequantizeLinear", ["q", "s"], ["W"], axis=0.5),
                 node("MatMul", ["x", "W"], ["y"])]
        inits = [initializer("q", [2, 3], [1] * 6, INT8), f32("s", [], [0.5])]
        self.refused(nodes, inits, "DequantizeLinear 'W': its attribute 'axis' is a float,"
                                   " not an int")

    def test_what_random_bytes_made_of_a_graph_is_one_line(self):
        # Found by flipping bytes of graphs: an op named with a newline, a
        # scale of zero, a layer of no inputs.
        nodes = [node("MatMul", ["x", "W"], ["h"]), node("Re\nlu", ["h"], ["y"])]
        self.refused(nodes, self.inits, "Re\\\\nlu 'y' lies between the layer")
        nodes = [node("MatMul", ["x", "W"], ["h"]), node("Mul", ["h", "zero"], ["y"])]
        layer, _ = self.read(nodes, self.inits + [f32("zero", [], [0])])
        self.assertEqual(exact(layer.weights), [[0, 0]] * 3)
        self.refused([node("MatMul", [], ["y"])], self.inits, "names no output layer")

    def test_a_refused_head_leaves_the_arrays_to_name(self):
        nodes = [node("MatMul", ["x", "W"], ["h"]), node("Relu", ["h"], ["y"])]
        path = self.write("m.onnx", model_bytes(nodes, self.inits))
        self.assertEqual(exact(read_model(path, tensor="W", transpose=True).weights), exact(W))

    def test_the_last_layer_an_end_comes_from_decides(self):
        # A softmax of the first layer, a refused op after the second: refused.
        nodes = [node("MatMul", ["x", "W"], ["h"]), node("Softmax", ["h"], ["p"]),
                 node("Gemm", ["h", "square"], ["g"]), node("Relu", ["g"], ["y"])]
        inits = self.inits + [f32("square", [3, 3], [1, 0, 0, 0, 1, 0, 0, 0, 1])]
        self.refused(nodes, inits, "Relu 'y' lies between the layer Gemm 'g'", outputs=("y", "p"))
        # With a softmax of the second layer too, that end is read.
        nodes.append(node("Softmax", ["g"], ["q"]))
        layer, _ = self.read(nodes, inits, outputs=("y", "p", "q"))
        self.assertEqual(layer.weights_tensor.name, "square")
