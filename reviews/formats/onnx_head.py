"""The output layer an ONNX graph computes, found by walking back from its ends.

An end is a graph output, or the input of a Softmax, LogSoftmax or ArgMax
node.  From an end the walk goes back, node by node, to the last Gemm,
MatMul, MatMulInteger or QLinearMatMul whose weights are constants (an
initializer, a Constant node's ``value``, or a DequantizeLinear of them).
Between that layer and the end it passes only the ops whose effect on the
argmax over the classes it models exactly, each by the operator's
definition (its attributes, broadcasting, axes and types):

    Identity, Dropout (not training)   no change
    Cast to FLOAT, DOUBLE, FLOAT16, BFLOAT16   a rounding, which keeps the
                                       order (it may tie two classes)
    Reshape, Flatten, Squeeze, Unsqueeze, Transpose   only where each row's
                                       C classes stay together on one axis
    Mul by a constant of one value     folded into the layer: the weights
                                       (and the bias, if added before)
                                       times it, exactly
    Add of a constant                  one value per class on the classes'
                                       axis (a bias, once), or one value
                                       for all (which changes no argmax)
    DequantizeLinear of the integer logits of MatMulInteger or
    QLinearMatMul, per tensor          its scale folded in; its rounding to
                                       float32 may tie classes

Gemm's alpha scales the weights and its beta the bias (C), exactly.
MatMulInteger's int32 product is read on its integer input, or, where a
Mul by DynamicQuantizeLinear's scale of that input times a constant
follows, on the dequantized input, the constant folded in.  QLinearMatMul's
layer is b_scale * (b - b_zero_point) on its dequantized input, divided
by y_scale (its requantized output, whose rounding may tie classes).
DequantizeLinear's weights are float32(scale * (q - zero_point)) (float16
or bfloat16 for such a scale), rounded as the operator defines them.

The end fixes the axis: ArgMax's ``axis``, Softmax's and LogSoftmax's (at
opset 13 and later; before, the input is coerced to 2-D at ``axis``, so
only the last axis is the classes'), must be the classes' axis.  Where a
non-negative axis needs the rank of a value, it comes from the shapes the
graph declares (its inputs, outputs and value_info), or from ops that fix
it (Flatten and Gemm give 2, Transpose its perm's length, Reshape its
shape's).  Any other op, attribute or axis between the layer and an end is
refused with one line naming the node and the op.  Of the ends' layers,
the last in the graph is the output layer; a refusal there is the file's
(the user may still name an array).

    Node          a node: index, name, op, inputs, outputs, attributes
    Graph         what the walk reads: nodes, constants, outputs, ranks, opset
    output_layer  (Head or None, the classes' Array) of a Graph, or InputError
    type_name     a TensorProto data type's name
"""

import array
import struct
from collections import namedtuple
from fractions import Fraction

from reviews.errors import InputError
from reviews.exact import check_size, rational_text
from reviews.formats.binary import Array, Head, value_count
from reviews.shown import excerpt, shown_name, shown_shape

__all__ = ["Node", "Graph", "output_layer", "type_name"]

Node = namedtuple("Node", "index name op inputs outputs attributes")
Node.__doc__ = """A node of a graph: ``attributes`` maps a name to (kind, value), kind
"f", "i", "s", "t", "floats", "ints" or "other"; another domain's op is
"domain.op"."""
Graph = namedtuple("Graph", "nodes constants outputs ranks opset arrays path")
Graph.__doc__ = """A graph as read: its nodes in order, its constants ({name: tensor}:
initializers and Constant nodes' values, each with dims, number, kind (None
if not read as an array), where, load() and integers() (None if not an
integer type)), its outputs' names, the ranks it declares ({name:
rank}), the default domain's opset (None if not given), the Arrays of the
constants read ({name: Array}, to which the layer read is added) and the
file's path."""

# TensorProto.DataType.
_TYPES = {0: "UNDEFINED", 1: "FLOAT", 2: "UINT8", 3: "INT8", 4: "UINT16", 5: "INT16",
          6: "INT32", 7: "INT64", 8: "STRING", 9: "BOOL", 10: "FLOAT16", 11: "DOUBLE",
          12: "UINT32", 13: "UINT64", 14: "COMPLEX64", 15: "COMPLEX128", 16: "BFLOAT16",
          17: "FLOAT8E4M3FN", 18: "FLOAT8E4M3FNUZ", 19: "FLOAT8E5M2", 20: "FLOAT8E5M2FNUZ",
          21: "UINT4", 22: "INT4", 23: "FLOAT4E2M1", 24: "FLOAT8E8M0", 25: "UINT2",
          26: "INT2", 27: "FLOAT6E2M3", 28: "FLOAT6E3M2"}
# Casts that keep the order of the values: to a float type wide enough for
# every value's sign and magnitude to stay (a rounding may tie two; one too
# large becomes an infinity of its sign).  Integer types wrap or truncate,
# BOOL maps every nonzero to true, the FLOAT8 types may make NaN.
_ORDERED_CASTS = {1: "FLOAT", 11: "DOUBLE", 10: "FLOAT16", 16: "BFLOAT16"}

_ENDS = ("Softmax", "LogSoftmax", "ArgMax")
_LAYERS = ("Gemm", "MatMul", "MatMulInteger", "QLinearMatMul")
_MOVES = ("Identity", "Dropout", "Cast", "Reshape", "Flatten", "Squeeze", "Unsqueeze",
          "Transpose", "DequantizeLinear")
_READ_OPS = ", ".join(_MOVES + ("Mul", "Add"))
# Ops whose output has their first input's shape, for ranks the graph does
# not declare.
_SAME_SHAPE = ("Identity", "Dropout", "Cast", "Softmax", "LogSoftmax", "Relu", "Sigmoid",
               "Tanh", "DequantizeLinear", "QuantizeLinear")
# How far a rank is looked for along ops that keep it: a graph's ranks are
# declared or fixed within a few ops of a layer.
_RANK_STEPS = 64
# The steps a note names: the first and last halves, the others counted.
_SHOWN_NOTES = 12
# Softmax and LogSoftmax take their axis alone from this opset on; before,
# their input is coerced to 2-D at the axis.
_SOFTMAX_AXIS_OPSET = 13
# Values exact in a float64 product with a scale: (significant bits, lowest
# and highest power of two) of each kind's values.
_ENVELOPES = {"f": (24, -149, 128), "d": (53, -1074, 1024), "b": (8, 0, 8), "B": (8, 0, 8),
              "h": (16, 0, 16), "i": (32, 0, 32)}


def type_name(number):
    """The name of TensorProto data type ``number``.

    >>> type_name(1), type_name(99)
    ('FLOAT', '99 (not an ONNX type)')
    """
    return _TYPES.get(number, "%d (not an ONNX type)" % number)


class _Refused(Exception):
    """A walk that meets what it does not model: its message, and the index
    of the layer it would have read (the last one before it), for choosing
    between ends."""

    def __init__(self, message, index):
        super().__init__(message)
        self.index = index


# The state of a walk at a value between a layer and an end: the layer node,
# the weights (a constant's name, or a DequantizeLinear's output, read
# transposed if stored (d, C)), the rank (None if not known) and the
# classes' axis counted from the end (1: the last), the exact scale of the
# weights, the bias (name, scale) or None, whether the values are still
# integers (MatMulInteger's, QLinearMatMul's), the scale DynamicQuantizeLinear
# gives the input (a note, or None), and the notes so far (a linked list).
_Path = namedtuple("_Path", "layer weights transposed classes rank axis scale bias integer"
                            " dynamic notes")


def _label(node):
    """The op and name of a node (its first output's if it has none), for a message."""
    return "%s %s" % (shown_name(node.op[:60]), excerpt(node.name or (node.outputs or [""])[0]))


def _noted(path, note):
    return path._replace(notes=(note, path.notes))


def _attribute(node, name, kind, default=None):
    """The value of ``node``'s attribute ``name`` of ``kind``, or ``default``
    if absent; InputError (as the walk's refusal) if it is of another kind."""
    if name not in node.attributes:
        return default
    found, value = node.attributes[name]
    if found != kind:
        raise InputError("%s: its attribute %s is %s, not %s" % (
            _label(node), excerpt(name), {"f": "a float", "i": "an int", "ints": "a list of ints",
                                          "t": "a tensor", "s": "a string", "floats":
                                          "a list of floats"}.get(found, "of another type"),
            {"f": "a float", "i": "an int", "ints": "a list of ints", "t": "a tensor"}[kind]))
    return value


class _Walk:
    """The walks of one graph, each value's state computed once."""

    def __init__(self, graph):
        self.graph, self.path = graph, graph.path
        self.constants, self.arrays = graph.constants, graph.arrays
        self.producer, self.consumers = {}, {}
        for node in graph.nodes:
            for name in node.outputs:
                if name and (name in self.producer or name in self.constants
                             and node.op != "Constant"):
                    raise InputError("%s: value %s is made twice (by %s and %s): not a valid"
                                     " graph" % (self.path, excerpt(name), _label(node),
                                                 "an initializer" if name not in self.producer
                                                 else _label(self.producer[name])))
                if name:
                    self.producer[name] = node
            for name in node.inputs:
                self.consumers.setdefault(name, []).append(node)
        self.states, self._latest, self._ranks = {}, None, {}

    # -- what the values are

    def constant(self, name):
        return self.constants.get(name) if name else None

    def _scalar(self, name, node, what):
        """The one value of the constant ``name`` as a Fraction: finite."""
        tensor = self.constant(name)
        if tensor is None or tensor.kind is None or value_count(tensor.dims, tensor.where) != 1:
            raise InputError("%s: its %s %s is not a constant of one value (of a type read)"
                             % (_label(node), what, excerpt(name)))
        value = tensor.load()[0:1].tolist()[0]
        if value != value or value in (float("inf"), float("-inf")):
            raise InputError("%s: its %s %s is %r, not a finite number"
                             % (_label(node), what, excerpt(name), value))
        return Fraction(value)

    def _integers(self, name, node, what):
        """The values of a constant list of ints (INT64, INT32 or BOOL), at
        most 32 of them."""
        tensor = self.constant(name)
        if (tensor is None or tensor.integers is None or len(tensor.dims) > 1
                or value_count(tensor.dims, tensor.where) > 32):
            raise InputError("%s: its %s %s is not a constant list of at most 32 ints"
                             % (_label(node), what, excerpt(name or "")))
        return tensor.integers()

    def _axes(self, node):
        """Squeeze's or Unsqueeze's axes: the attribute (before opset 13)
        or the second input; None if neither is given."""
        attribute = _attribute(node, "axes", "ints")
        given = node.inputs[1] if len(node.inputs) > 1 and node.inputs[1] else None
        if attribute is not None and given is not None:
            raise InputError("%s: its axes are given twice, as an attribute and an input"
                             % _label(node))
        return attribute if given is None else self._integers(given, node, "axes")

    def rank(self, name):
        """The rank of value ``name``, or None: as declared, or as the ops
        before or after it fix it."""
        if name not in self._ranks:
            self._ranks[name] = self._rank_before(name)
            if self._ranks[name] is None:
                self._ranks[name] = self._rank_after(name)
        return self._ranks[name]

    def _rank_before(self, name):
        for _ in range(_RANK_STEPS):
            if name in self.graph.ranks:
                return self.graph.ranks[name]
            if name in self.constants:
                return len(self.constants[name].dims)
            node = self.producer.get(name)
            if node is None:
                return None
            try:
                if node.op in ("Flatten", "Gemm"):
                    return 2
                if node.op == "Transpose" and "perm" in node.attributes:
                    return len(_attribute(node, "perm", "ints"))
                if node.op == "Reshape" and len(node.inputs) > 1:
                    return len(self._integers(node.inputs[1], node, "shape"))
            except InputError:
                return None
            if node.op in _SAME_SHAPE or node.op in ("MatMul", "MatMulInteger") and (
                    len(node.inputs) > 1 and self.constant(node.inputs[1]) is not None
                    and len(self.constant(node.inputs[1]).dims) == 2):
                name = node.inputs[0] if node.inputs else ""
            else:
                return None
        return None

    def _rank_after(self, name):
        for _ in range(_RANK_STEPS):
            following = [node for node in self.consumers.get(name, ())
                         if node.op in _SAME_SHAPE and node.inputs[0] == name and node.outputs]
            if not following:
                return None
            name = following[0].outputs[0]
            if name in self.graph.ranks:
                return self.graph.ranks[name]
        return None

    def latest_layer(self, name):
        """The index of the last layer (of constant weights) that value
        ``name`` comes from, or None."""
        if self._latest is None:
            self._latest = {}
            for node in self.graph.nodes:
                before = max((self._latest.get(value, -1) for value in node.inputs), default=-1)
                if self._is_layer(node):
                    before = max(before, node.index)
                for value in node.outputs:
                    self._latest[value] = before
        found = self._latest.get(name, -1)
        return None if found < 0 else found

    def _is_layer(self, node):
        if node.op not in _LAYERS or node.op == "QLinearMatMul" and len(node.inputs) < 8:
            return False
        weights = node.inputs[3] if node.op == "QLinearMatMul" else (node.inputs + ["", ""])[1]
        made = self.producer.get(weights)
        return self.constant(weights) is not None or (
            made is not None and made.op == "DequantizeLinear"
            and self.constant((made.inputs + [""])[0]) is not None)

    # -- the walk

    def state(self, name):
        """The _Path at value ``name``, a _Refused, or None (no layer)."""
        pending, visiting = [], set()
        while name not in self.states:
            node = self.producer.get(name)
            if node is None or node.op in _ENDS or node.op == "Constant" or name in visiting:
                self.states[name] = None
                break
            if self._is_layer(node):
                self.states[name] = self._guarded(self._layer, node)
                break
            following = self._follow(node)
            if following is None:
                index = self.latest_layer(name)
                self.states[name] = None if index is None else _Refused(
                    "%s: %s lies between the layer %s and the output: its effect on the argmax"
                    " is not read (the ops read: %s)"
                    % (self.path, _label(node), _label(self.graph.nodes[index]), _READ_OPS),
                    index)
                break
            visiting.add(name)
            pending.append((name, node))
            name = following
        state = self.states[name]
        for value, node in reversed(pending):
            if isinstance(state, _Path):
                state = self._guarded(self._step, node, state)
            self.states[value] = state
        return state

    def _guarded(self, function, node, *state):
        """function(node, *state), an InputError becoming a _Refused."""
        try:
            return function(node, *state)
        except InputError as error:
            index = state[0].layer.index if state else node.index
            message = str(error)
            return _Refused(message if message.startswith(self.path) else "%s: %s" % (
                self.path, message), index)

    def _follow(self, node):
        """The input a walk back continues through, or None if the op is not read."""
        if node.op in _MOVES and node.inputs and node.inputs[0]:
            return node.inputs[0]
        if node.op in ("Mul", "Add") and len(node.inputs) == 2:
            varying = [name for name in node.inputs if self.constant(name) is None]
            if len(varying) == 1:
                return varying[0]
            if node.op == "Mul" and len(varying) == 2:
                for k in (0, 1):
                    if self._dynamic_scale(node.inputs[k]) is not None:
                        return node.inputs[1 - k]
        return None

    def _dynamic_scale(self, name):
        """(DynamicQuantizeLinear node, the constant's name) if ``name`` is
        the product of its scale and a constant, else None."""
        product = self.producer.get(name)
        if product is None or product.op != "Mul" or len(product.inputs) != 2:
            return None
        for a, b in (product.inputs, product.inputs[::-1]):
            dynamic = self.producer.get(a)
            if (self.constant(b) is not None and dynamic is not None
                    and dynamic.op == "DynamicQuantizeLinear" and dynamic.outputs[1:2] == [a]):
                return dynamic, b
        return None

    # -- the layer

    def _layer(self, node):
        inputs = node.inputs
        if node.op == "QLinearMatMul":
            return self._qlinear(node)
        weights, bias, scale, notes = inputs[1], None, Fraction(1), None
        if node.op == "Gemm":
            trans_b = _attribute(node, "transB", "i", 0) != 0
            if _attribute(node, "transA", "i", 0) != 0:
                notes = ("transA: the layer's input is a column of A, not a row", notes)
            alpha = Fraction(_finite(_attribute(node, "alpha", "f", 1.0), node, "alpha"))
            beta = Fraction(_finite(_attribute(node, "beta", "f", 1.0), node, "beta"))
            scale = alpha
        else:
            trans_b = False
        quantized = self.producer.get(weights)
        if self.constant(weights) is not None:
            stored = self.constant(weights)
            if node.op == "MatMulInteger":
                zero = inputs[3] if len(inputs) > 3 and inputs[3] else None
                name, why = self._quantized(weights, None, zero, 1, node)
            else:
                name = weights
                why = "%s %s (%s)" % ("initializer" if weights not in self.producer
                                      else "Constant", excerpt(weights), type_name(stored.number))
                if stored.kind is None:
                    stored.load()   # refuses its type by name
        else:
            if _attribute(quantized, "block_size", "i", 0):
                raise InputError("%s: DequantizeLinear by blocks is not read" % _label(quantized))
            parts = [value or None for value in (quantized.inputs + ["", ""])[:3]]
            name, why = self._quantized(*parts, _attribute(quantized, "axis", "i", 1),
                                        quantized, name=weights)
        shape = self.arrays[name].shape
        if len(shape) != 2:
            raise InputError("%s: its weights %s have shape %s; 2-D weights are read"
                             % (_label(node), excerpt(weights), shown_shape(shape)))
        classes = shape[0] if trans_b else shape[1]
        if node.op == "Gemm":
            rank = 2
            if len(inputs) > 2 and inputs[2] and beta != 0:
                if self.constant(inputs[2]) is None:
                    raise InputError("%s: its C %s is not a constant: not a bias"
                                     % (_label(node), excerpt(inputs[2])))
                bias = self._bias(node, inputs[2], 1, beta, classes)
            scaled = ["alpha %r scales the weights" % float(alpha)] if alpha != 1 else []
            if beta != 1 and bias is not None:
                scaled.append("beta %r the bias" % float(beta))
            if scaled:
                notes = (" and ".join(scaled) + ", exactly", notes)
        else:
            rank = self.rank(inputs[0])
            rank = rank if rank is None or rank >= 2 else 1
        path = _Path(node, (name, why), not trans_b, classes, rank, 1, scale, bias,
                     node.op == "MatMulInteger", node.op == "MatMulInteger", notes)
        return path

    def _qlinear(self, node):
        inputs = node.inputs
        name, why = self._quantized(inputs[3], inputs[4] or None, inputs[5] or None, 1, node)
        y_scale = self._scalar(inputs[6], node, "y_scale")
        if y_scale <= 0:
            raise InputError("%s: its y_scale is %s, not positive" % (_label(node), y_scale))
        classes = self.arrays[name].shape[1]
        rank = self.rank(inputs[0])
        notes = ("the layer is the real product before it is requantized, divided by y_scale"
                 " %s: rounding the logits to integers can tie classes it separates"
                 % _shown(y_scale), None)
        return _Path(node, (name, why), True, classes, rank, 1, 1 / y_scale, None, True, False,
                     notes)

    def _bias(self, node, name, axis, scale, classes):
        """(name, scale) of a constant added on the classes' axis (counted
        from the end), or None if it is one value for all classes; InputError
        if it is neither."""
        tensor = self.constant(name)
        dims = list(tensor.dims)
        if tensor.kind is None:
            tensor.load()   # refuses its type by name
        along = dims[-axis] if len(dims) >= axis else 1
        others = dims[:len(dims) - axis] + dims[len(dims) - axis + 1:] if len(dims) >= axis \
            else dims
        if any(n != 1 for n in others):
            raise InputError("%s: %s %s is not one value per class: its dims %s broadcast over"
                             " other axes than the classes'" % (_label(node), excerpt(name),
                                                                 type_name(tensor.number),
                                                                 shown_shape(dims)))
        if along == 1:
            return None
        if along != classes:
            raise InputError("%s: %s has %d values for the %d classes"
                             % (_label(node), excerpt(name), along, classes))
        return name, scale

    def _quantized(self, q, scale, zero, axis, node, name=None):
        """(name, why) of the Array of q - zero (MatMulInteger),
        float(scale * (q - zero)) rounded to the scale's type
        (DequantizeLinear), or scale * (q - zero) exactly (QLinearMatMul),
        added to ``arrays``.  The scale and zero point are one value, or one
        for each index of ``axis`` of q (8-bit, 2-D)."""
        label = _label(node)
        for part in (q, scale, zero):
            if part is not None and self.constant(part) is None:
                raise InputError("%s: %s is not a constant" % (label, excerpt(part)))
            if part is not None and self.constant(part).kind is None:
                self.constant(part).load()   # refuses its type by name
        values = self.constant(q)
        where = values.where
        if values.kind not in ("u1", "i1") or len(values.dims) != 2:
            raise InputError("%s: quantized weights of type %s and dims %s are not read (8-bit"
                             " 2-D weights are)" % (where, type_name(values.number),
                                                    shown_shape(values.dims)))
        if type(axis) is not int:
            raise InputError("%s: its axis %r is not an int" % (label, axis))
        axis = axis + 2 if axis < 0 else axis
        if axis not in (0, 1):
            raise InputError("%s: its axis %d is not one of the 2 axes of %s"
                             % (label, axis, excerpt(q)))
        for part, kinds in ((scale, ("f4", "f2", "bf16")), (zero, (values.kind,))):
            tensor = self.constant(part)
            if part is not None and (tensor.kind not in kinds or len(tensor.dims) > 1
                                     or value_count(tensor.dims, where)
                                     not in (1, values.dims[axis])):
                raise InputError(
                    "%s: %s (%s, dims %s) is not a scale or zero point for it: one value, or"
                    " one for each of the %d of axis %d, of %s"
                    % (where, excerpt(part), type_name(tensor.number),
                       shown_shape(tensor.dims), values.dims[axis], axis,
                       " or ".join(type_name(n) for n, k in ((1, "f4"), (10, "f2"),
                                                              (16, "bf16"), (2, "u1"),
                                                              (3, "i1")) if k in kinds)))
        rounded = node.op == "DequantizeLinear"
        if name is None:
            name = q if zero is None and scale is None else (
                "%s - %s" % (q, zero) if scale is None else "%s * (%s - %s)" % (scale, q, zero))
        columns = values.dims[1]
        arrays = self.arrays
        stored_array, zero_array = arrays[q], arrays.get(zero)
        scale_array = arrays.get(scale)
        scale_kind = None if scale is None else self.constant(scale).kind

        def load():
            stored = stored_array.load()[0].tolist()
            zeros = [0] if zero is None else zero_array.load()[0].tolist()
            index = (lambda k: 0) if len(zeros) == 1 else (
                (lambda k: k // columns) if axis == 0 else (lambda k: k % columns))
            if scale is None:
                return memoryview(array.array("h", [v - zeros[index(k)]
                                                    for k, v in enumerate(stored)])), False
            scales = scale_array.load()[0].tolist()
            pick = (lambda k: 0) if len(scales) == 1 else (
                (lambda k: k // columns) if axis == 0 else (lambda k: k % columns))
            # A float32, float16 or bfloat16 scale times an 8-bit q - zero:
            # each product exact in float64, then rounded once.
            products = [scales[pick(k)] * (v - zeros[index(k)]) for k, v in enumerate(stored)]
            if not rounded:
                return memoryview(array.array("d", products)), False
            return _rounded(products, scale_kind), False
        per = ("per tensor" if all(part is None or value_count(self.constant(part).dims, where)
                                   == 1 for part in (scale, zero)) else "per axis %d" % axis)
        if scale is None:
            dtype = "INT16 (q - zero point)"
            why = "%s (%s) minus %s, %s, read exactly as integers" % (
                excerpt(q), type_name(values.number),
                "no zero point" if zero is None else "zero point %s" % excerpt(zero), per)
        elif rounded:
            kind = {"f4": "FLOAT", "f2": "FLOAT16", "bf16": "BFLOAT16"}[scale_kind]
            dtype = "%s (scale * (q - zero point))" % kind
            why = ("%s * (%s - %s), %s, %s 8-bit q: each product rounded to %s as"
                   " DequantizeLinear defines it" % (
                       excerpt(scale), excerpt(q), "0" if zero is None else excerpt(zero), per,
                       type_name(values.number), kind))
        else:
            dtype = "DOUBLE (scale * (q - zero point))"
            why = ("%s * (%s - %s), %s, %s 8-bit q: each product exact in float64"
                   % (excerpt(scale), excerpt(q), "0" if zero is None else excerpt(zero), per,
                      type_name(values.number)))
        arrays[name] = Array(name, tuple(values.dims), dtype, load)
        return name, why

    # -- the steps from the layer to an end

    def _step(self, node, path):
        op = node.op
        label = _label(node)
        if op == "Identity":
            return path
        if op == "Dropout":
            training = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
            if training is not None and (self.constant(training) is None
                                         or any(self._integers(training, node, "training_mode"))):
                raise InputError("%s: its training_mode %s is not a constant false: it may drop"
                                 " logits" % (label, excerpt(training)))
            return path
        if op == "Cast":
            to = _attribute(node, "to", "i")
            if to not in _ORDERED_CASTS:
                raise InputError("%s: a cast to %s changes the argmax (integer types wrap or"
                                 " truncate, BOOL makes every nonzero true, FLOAT8 may make"
                                 " NaN); casts to FLOAT, DOUBLE, FLOAT16 and BFLOAT16 keep the"
                                 " order" % (label, type_name(to) if to is not None else
                                             "no type"))
            return _noted(path._replace(integer=False),
                          "it passes %s to %s, which keeps the order of the values (a rounding"
                          " may tie two)" % (label, _ORDERED_CASTS[to]))
        if op == "DequantizeLinear":
            return self._dequantize(node, path)
        if op in ("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose"):
            return getattr(self, "_" + op.lower())(node, path)
        if path.integer:
            raise InputError("%s on the integer product of %s is not read (it may wrap)"
                             % (label, _label(path.layer)))
        constant = [name for name in node.inputs if self.constant(name) is not None]
        if op == "Mul" and not constant:
            return self._dynamic(node, path)
        name = constant[0]
        dims = self.constant(name).dims
        rank = None if path.rank is None else max(path.rank, len(dims))
        if op == "Mul":
            if value_count(dims, label) != 1:
                raise InputError("%s: %s %s is not one value: a scale of each class is not"
                                 " read" % (label, excerpt(name), shown_shape(dims)))
            factor = self._scalar(name, node, "factor")
            return _noted(_scaled(path, factor, label)._replace(rank=rank),
                          "%s multiplies by %s, folded into the layer" % (label,
                                                                         _shown(factor)))
        added = self._bias(node, name, path.axis, Fraction(1), path.classes)
        if added is None:
            return _noted(path._replace(rank=rank),
                          "%s adds one value to every class, which changes no argmax" % label)
        if path.bias is not None:
            raise InputError("%s adds a second bias, after %s: not read"
                             % (label, excerpt(path.bias[0])))
        return path._replace(bias=added, rank=rank)

    def _dynamic(self, node, path):
        """Mul by DynamicQuantizeLinear's scale of the layer's input times a constant."""
        label = _label(node)
        found = next((self._dynamic_scale(name) for name in node.inputs
                      if self._dynamic_scale(name) is not None), None)
        layer = path.layer
        dynamic, constant = found
        zero = layer.inputs[2] if len(layer.inputs) > 2 else ""
        if not path.dynamic or dynamic.outputs[:1] != layer.inputs[:1] or (
                zero and dynamic.outputs[2:3] != [zero]):
            raise InputError("%s: its scale is that of %s, which does not quantize the input"
                             " of %s" % (label, _label(dynamic), _label(layer)))
        factor = self._scalar(constant, node, "factor")
        path = _scaled(path, factor, label)._replace(dynamic=False)
        return _noted(path, "%s multiplies by DynamicQuantizeLinear's scale s of the layer's"
                            " input and %s, folded into the layer: its input is the dequantized"
                            " s * (q - zero point)" % (label, _shown(factor)))

    def _dequantize(self, node, path):
        label = _label(node)
        if not path.integer:
            raise InputError("%s: a DequantizeLinear of other than %s's integer logits is not"
                             " read" % (label, _label(path.layer)))
        scale = self._scalar((node.inputs + [""])[1], node, "scale")
        zero = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
        if zero is not None and value_count(self.constant(zero).dims if self.constant(zero)
                                            else [2], label) != 1:
            raise InputError("%s: its zero point %s is not one value: a shift of each class is"
                             " not read" % (label, excerpt(zero)))
        path = _scaled(path, scale, label)._replace(integer=False)
        return _noted(path, "%s multiplies the integer logits by %s (folded into the layer),"
                            " less one zero point, and rounds them to float32 (a rounding may"
                            " tie two)" % (label, _shown(scale)))

    def _axis(self, node, path, axis, rank):
        """An axis attribute as counted from the end (1: the last); a
        negative one needs no rank."""
        if axis < 0:
            if rank is not None and -axis > rank:
                raise InputError("%s: its axis %d is past the %d axes of its input"
                                 % (_label(node), axis, rank))
            return -axis
        if rank is None:
            raise InputError("%s: its axis %d is counted from the start, and the rank of its"
                             " input is not known (the graph declares no shape for it)"
                             % (_label(node), axis))
        if axis >= rank:
            raise InputError("%s: its axis %d is past the %d axes of its input"
                             % (_label(node), axis, rank))
        return rank - axis

    def _rank(self, node, path):
        return path.rank if path.rank is not None else self.rank(node.inputs[0])

    def _reshape(self, node, path):
        label = _label(node)
        shape = self._integers((node.inputs + [""])[1], node, "shape")
        allow_zero = _attribute(node, "allowzero", "i", 0)
        rank = self._rank(node, path)
        kept = path.axis == 1 and shape and (shape[-1] == path.classes or (
            shape[-1] == 0 and not allow_zero and rank == len(shape)))
        if not kept:
            raise InputError("%s to shape %s does not keep each row's %d classes together on its"
                             " last axis" % (label, shown_shape(shape), path.classes))
        return path._replace(rank=len(shape))

    def _flatten(self, node, path):
        # Flatten's second axis holds its input's axes from ``axis`` on.
        axis = _attribute(node, "axis", "i", 1)
        rank = self._rank(node, path)
        if axis >= 0 and rank is None:
            self._axis(node, path, axis, rank)   # refuses: the rank is not known
        from_end = -axis if axis < 0 else rank - axis
        if path.axis != 1 or from_end != 1:
            raise InputError("%s at axis %d does not keep each row's %d classes alone on its"
                             " second axis" % (_label(node), axis, path.classes))
        return path._replace(rank=2)

    def _squeeze(self, node, path):
        label = _label(node)
        axes = self._axes(node)
        rank = self._rank(node, path)
        if axes is None:
            if path.classes == 1 or path.axis != 1:
                raise InputError("%s without axes may remove the classes' axis" % label)
            return path._replace(rank=None)
        ends = {self._axis(node, path, axis, rank) for axis in axes}
        if path.axis in ends:
            raise InputError("%s removes the classes' axis" % label)
        return path._replace(axis=path.axis - sum(1 for e in ends if e < path.axis),
                             rank=None if rank is None else rank - len(ends))

    def _unsqueeze(self, node, path):
        axes = self._axes(node)
        if axes is None:
            raise InputError("%s has no axes" % _label(node))
        rank = self._rank(node, path)
        out = None if rank is None else rank + len(axes)
        ends = {self._axis(node, path, axis, out) for axis in axes}
        count, position = 0, 0
        while count < path.axis:
            position += 1
            if position not in ends:
                count += 1
        return path._replace(axis=position, rank=out)

    def _transpose(self, node, path):
        label = _label(node)
        perm = _attribute(node, "perm", "ints")
        rank = self._rank(node, path) if perm is None else len(perm)
        if rank is None:
            raise InputError("%s has no perm, and the rank of its input is not known" % label)
        perm = list(range(rank))[::-1] if perm is None else perm
        if sorted(perm) != list(range(rank)):
            raise InputError("%s: its perm %s is not a permutation of its %d axes"
                             % (label, shown_shape(perm), rank))
        if path.rank is not None and path.rank != rank:
            raise InputError("%s: its perm has %d axes, its input %d"
                             % (label, rank, path.rank))
        return path._replace(axis=rank - perm.index(rank - path.axis), rank=rank)

    # -- an end

    def head(self, name, end, node=None):
        """The Head that end ``end`` (a description; ``node``: its Softmax,
        LogSoftmax or ArgMax, None for a graph output) reads at value
        ``name``, a _Refused, or None."""
        path = self.state(name)
        if not isinstance(path, _Path):
            return path
        if node is not None:
            try:
                self._end_axis(node, path)
            except InputError as error:
                return _Refused("%s: %s" % (self.path, error), path.layer.index)
        return path, end

    def _end_axis(self, node, path):
        rank = self._rank(node, path)
        if node.op == "ArgMax":
            axis = _attribute(node, "axis", "i", 0)
            from_end = self._axis(node, path, axis, rank)
            modern = True
        else:
            opset = self.graph.opset
            modern = opset is not None and opset >= _SOFTMAX_AXIS_OPSET
            axis = _attribute(node, "axis", "i", -1 if modern else 1)
            from_end = self._axis(node, path, axis, rank)
        if from_end != path.axis or not modern and path.axis != 1:
            raise InputError("%s takes its %s over axis %d, not over the classes' axis of %s%s"
                             % (_label(node), "argmax" if node.op == "ArgMax" else "softmax",
                                axis, _label(path.layer),
                                "" if modern else " alone (before opset 13 it coerces its"
                                " input to 2-D at the axis)"))

    def build(self, path, end):
        """The Head of a _Path: its weights (and bias) scaled as folded,
        added to ``arrays``."""
        (name, why), layer = path.weights, path.layer
        stored = self.arrays[name]
        if path.transposed:
            d, classes = stored.shape
            self.arrays[name] = Array(name, (classes, d), stored.dtype,
                                      lambda: (stored.load()[0], True))
            why += (", stored (d, C) = (%d, %d) for x W: read as its transpose (C, d), in"
                    " Fortran order" % (d, classes))
        else:
            why += ", stored (C, d) = %s for x B^T (transB)" % shown_shape(stored.shape)
        weights = _scaled_array(self.arrays, name, path.scale)
        if weights != name:
            why += "; read as %s" % excerpt(weights)
        bias = None
        if path.bias is not None:
            bias_name, factor = path.bias
            bias = _scaled_array(self.arrays, bias_name, factor)
            why += "; bias %s (%s)%s" % (excerpt(bias_name), self.arrays[bias_name].dtype,
                                         "" if bias == bias_name else ", read as %s"
                                         % excerpt(bias))
        notes, link = [], path.notes
        while link is not None:
            notes.append(link[0])
            link = link[1]
        notes.reverse()
        if len(notes) > _SHOWN_NOTES:
            # A chain of 200,000 Casts would make a note of megabytes.
            half = _SHOWN_NOTES // 2
            notes[half:-half] = ["%d more steps" % (len(notes) - 2 * half)]
        why = "%s reaches %s: weights %s%s" % (_label(layer), end, why,
                                              "".join("; " + note for note in notes))
        return Head(weights, bias, why), path.classes


def _finite(value, node, what):
    if value != value or value in (float("inf"), float("-inf")):
        raise InputError("%s: its %s is %r, not a finite number" % (_label(node), what, value))
    return value


def _shown(value):
    """A Fraction as its float's repr where that is exact, else p/q."""
    if Fraction(float(value)) == value:
        return repr(float(value))
    text = rational_text(value)
    return text if len(text) <= 60 else "a number of %d/%d bits" % (
        value.numerator.bit_length(), value.denominator.bit_length())


def _scaled(path, factor, label):
    """``path`` with its weights (and bias, if added) times ``factor``."""
    scale = check_size(path.scale * factor, "%s: the scale folded into the layer" % label)
    bias = None if path.bias is None else (path.bias[0], check_size(
        path.bias[1] * factor, "%s: the scale folded into the bias" % label))
    return path._replace(scale=scale, bias=bias)


def _scaled_array(arrays, name, factor):
    """The name of an Array of ``arrays[name]`` times ``factor``, added to
    ``arrays`` (``name`` itself if the factor is 1)."""
    if factor == 1:
        return name
    stored = arrays[name]
    scaled = "%s * %s" % (_shown(factor), "(%s)" % name if " " in name else name)

    def load():
        values, fortran = stored.load()
        code = getattr(values, "format", "O")
        exact = _float_factor(factor, code)
        if exact is not None:
            return memoryview(array.array("d", [v * exact for v in values.tolist()])), fortran
        return _Exact(Fraction(v) * factor for v in values.tolist()), fortran
    arrays[scaled] = Array(scaled, stored.shape, "%s times %s" % (stored.dtype, _shown(factor)),
                           load)
    return scaled


def _float_factor(factor, code):
    """float(factor) if each value of the array code ``code`` times it is
    exact in float64, else None."""
    if factor == 0:
        return 0.0
    if code not in _ENVELOPES or factor.denominator & (factor.denominator - 1):
        return None
    bits, low, high = _ENVELOPES[code]
    numerator = abs(factor.numerator)
    trailing = (numerator & -numerator).bit_length() - 1
    odd = numerator >> trailing
    lowest = trailing - (factor.denominator.bit_length() - 1)
    highest = lowest + odd.bit_length()
    if odd.bit_length() + bits > 53 or low + lowest < -1074 or high + highest > 1023:
        return None
    return float(factor)


class _Exact(list):
    """Exact values (Fractions), sliced and listed as a memoryview is."""

    format = "O"

    def __getitem__(self, index):
        found = super().__getitem__(index)
        return _Exact(found) if isinstance(index, slice) else found

    def tolist(self):
        return list(self)


def _rounded(values, kind):
    """Each float64 of ``values`` rounded to nearest (ties to even) in the
    float kind "f4", "f2" or "bf16" (past its range: an infinity), as
    float32 values."""
    if kind == "f4":
        return memoryview(array.array("f", values))
    if kind == "f2":
        halves = []
        for value in values:
            try:
                halves.append(struct.unpack("<e", struct.pack("<e", value))[0])
            except OverflowError:
                halves.append(float("inf") if value > 0 else float("-inf"))
        return memoryview(array.array("f", halves))
    # bfloat16: the float32 (exact: a bfloat16 scale times an 8-bit q has
    # at most 17 bits) rounded to its top 16 bits, ties to even.
    words = array.array("I", array.array("f", values).tobytes())
    for k, word in enumerate(words):
        if word & 0x7F800000 != 0x7F800000:
            word += 0x7FFF + (word >> 16 & 1)
        words[k] = word & 0xFFFF0000
    return memoryview(array.array("f", words.tobytes()))


def output_layer(graph):
    """(Head, number of classes) of the graph's output layer, or None;
    InputError for a walk refused at the last layer an end comes from."""
    walk = _Walk(graph)
    ends = [(node.inputs[0], "the input of %s" % _label(node), node)
            for node in graph.nodes if node.op in _ENDS and node.inputs and node.inputs[0]]
    ends.extend((name, "the graph's output %s" % excerpt(name), None) for name in graph.outputs)
    best = None
    for order, (name, end, node) in enumerate(ends):
        found = walk.head(name, end, node)
        if found is None:
            continue
        index = found.index if isinstance(found, _Refused) else found[0].layer.index
        key = (index, not isinstance(found, _Refused), -order)
        if best is None or key > best[0]:
            best = (key, found)
    if best is None:
        return None
    if isinstance(best[1], _Refused):
        raise InputError(str(best[1]))
    return walk.build(*best[1])
