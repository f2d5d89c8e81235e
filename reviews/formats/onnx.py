"""ONNX models: their initializers read exactly, their output layer found from the graph.

An ``.onnx`` file is a serialized ``ModelProto`` (onnx/onnx.proto) whose
field 7 is the ``GraphProto``: its nodes (op_type, inputs, outputs,
attributes), its initializers (``TensorProto``: dims, data_type, and the
values as little-endian ``raw_data``, as the typed repeated fields
``float_data``, ``int32_data`` (which holds float16, bfloat16, int8 and
uint8 values too, one per element) and ``double_data``, or in an external
file) and the names of its outputs.  Only those are read, by
reviews.formats.protobuf, and nothing is run; nested graphs (the bodies of
If and Loop) are skipped unread.  Initializers of the types FLOAT, FLOAT16,
BFLOAT16, DOUBLE, INT8, UINT8 and INT32 are listed, each read at its
stored value; the others (INT64 shapes, strings, ...) cannot be a layer
and are left out.  External data (``data_location`` EXTERNAL) is read from
its ``location``, a file in the model's folder.

The output layer is the last Gemm, MatMul, MatMulInteger or QLinearMatMul
that an end of the graph comes from: a graph output, or the input of a
Softmax, LogSoftmax or ArgMax.  From an end, the rule walks back through
ops that move values or keep their order (Reshape, Flatten, Identity,
Squeeze, Unsqueeze, Transpose, Dropout, Cast), through a Mul by a positive
number and a DequantizeLinear of the logits by a positive scale (neither
changes which classes can win: see _head), and through one Add of an
initializer, the bias; it stops at anything else.  The weights are an
initializer, or a DequantizeLinear of initializers, read as scale * (q -
zero_point) exactly in float64; MatMulInteger's are the integers q -
zero_point, its scale applied by a Mul the rule passes; QLinearMatMul's
are b_scale * (b - b_zero_point).  A weight stored (d, C), as x W uses it,
is given as its transpose (C, d) in Fortran order: the same bytes.  The
Head's ``why`` says which node, which end, and each step passed.

Every length, varint and data size is checked as it is read (protobuf),
dims against their data before any value is read and against MAX_VALUES
(binary.value_count); a file past MAX_BYTES is refused before it is read.

    onnx_arrays     the Arrays of an open .onnx file, with the Head its graph names
    MAX_BYTES       2 GiB: the largest .onnx file read into memory
"""

import array
import io
import os
import struct
import sys
from collections import namedtuple

from reviews.errors import InputError
from reviews.formats.binary import (KINDS, MAX_DIMENSIONS, Array, Arrays, Head, read_values,
                                    value_count)
from reviews.formats.protobuf import (FIXED32, FIXED64, LENGTH, VARINT, fields, packed_varints,
                                      signed, text)
from reviews.formats.source import open_regular
from reviews.shown import excerpt, shown_shape

__all__ = ["onnx_arrays", "MAX_BYTES"]

# Protobuf itself refuses to serialize a message of 2 GiB or more; larger
# models keep their initializers in external files.
MAX_BYTES = 2 * 2 ** 30
# Nodes, initializers, outputs, a node's inputs: a large model has some
# hundred thousand nodes; an empty one is 2 bytes of file and some hundred
# of objects (10 million in 20 MB took 3 GB).
_MAX_ITEMS = 2 ** 20

# TensorProto.DataType: the numbers read, as (name, kind of binary.KINDS),
# and the names of the others, for messages.
_READ = {1: ("FLOAT", "f4"), 2: ("UINT8", "u1"), 3: ("INT8", "i1"), 6: ("INT32", "i4"),
         10: ("FLOAT16", "f2"), 11: ("DOUBLE", "f8"), 16: ("BFLOAT16", "bf16")}
_OTHERS = {0: "UNDEFINED", 4: "UINT16", 5: "INT16", 7: "INT64", 8: "STRING", 9: "BOOL",
           12: "UINT32", 13: "UINT64", 14: "COMPLEX64", 15: "COMPLEX128",
           17: "FLOAT8E4M3FN", 18: "FLOAT8E4M3FNUZ", 19: "FLOAT8E5M2", 20: "FLOAT8E5M2FNUZ",
           21: "UINT4", 22: "INT4", 23: "FLOAT4E2M1", 24: "FLOAT8E8M0", 25: "UINT2",
           26: "INT2", 27: "FLOAT6E2M3", 28: "FLOAT6E3M2"}
_READ_NAMES = ", ".join(name for name, _ in _READ.values())
_INTEGER_RANGES = {"u1": (0, 255), "i1": (-128, 127), "i4": (-2 ** 31, 2 ** 31 - 1),
                   "f2": (0, 65535), "bf16": (0, 65535)}
_CODES = {"u1": "B", "i1": "b", "i4": "i"}
# Field numbers of onnx.proto's messages.
_MODEL_GRAPH = 7
_GRAPH_NODE, _GRAPH_INITIALIZER, _GRAPH_OUTPUT = 1, 5, 12
_NODE_INPUT, _NODE_OUTPUT, _NODE_NAME, _NODE_OP, _NODE_ATTRIBUTE, _NODE_DOMAIN = 1, 2, 3, 4, 5, 7
_ATTRIBUTE_NAME, _ATTRIBUTE_F, _ATTRIBUTE_I = 1, 2, 3
_TENSOR_DIMS, _TENSOR_TYPE, _TENSOR_NAME, _TENSOR_RAW = 1, 2, 8, 9
_TENSOR_EXTERNAL, _TENSOR_LOCATION = 13, 14
# The typed field that holds each kind's values when raw_data does not.
_FLOAT_DATA, _INT32_DATA, _DOUBLE_DATA = 4, 5, 10
# The wire types each typed field may have: packed, or one value a field.
_WIRES = {_FLOAT_DATA: (LENGTH, FIXED32), _INT32_DATA: (LENGTH, VARINT),
          _DOUBLE_DATA: (LENGTH, FIXED64), _TENSOR_DIMS: (LENGTH, VARINT)}
_TYPED = {"f4": _FLOAT_DATA, "f8": _DOUBLE_DATA, "u1": _INT32_DATA, "i1": _INT32_DATA,
          "i4": _INT32_DATA, "f2": _INT32_DATA, "bf16": _INT32_DATA}
_EXTERNAL = 1
# A varint's last byte is below 0x80: deleting the others counts them.
_CONTINUED = bytes(range(0x80, 0x100))

# The ops the head rule walks back through: each moves values or keeps them.
_PASSING = {"Reshape", "Flatten", "Identity", "Squeeze", "Unsqueeze", "Transpose", "Dropout",
            "Cast"}
_ENDS = {"Softmax", "LogSoftmax", "ArgMax"}
_LAYERS = {"Gemm", "MatMul", "MatMulInteger", "QLinearMatMul"}
# The opset's own domain: "" or its name.
_ONNX_DOMAINS = {"", "ai.onnx"}

_Node = namedtuple("_Node", "index name op inputs outputs attributes")
_Tensor = namedtuple("_Tensor", "name dims number kind where load")


def onnx_arrays(handle, size, path):
    """The Arrays of the open .onnx file ``handle`` of ``size`` bytes: one
    per initializer of a type read, and the Head its graph names (None if
    it has no layer the rule finds)."""
    if size > MAX_BYTES:
        raise InputError("%s has %d bytes, past the limit of %d for an .onnx file (larger"
                         " models keep their initializers in external files)"
                         % (path, size, MAX_BYTES))
    data = handle.read(size)
    if len(data) != size:
        raise InputError("%s: the file ends before its %d bytes" % (path, size))
    spans = [value for number, wire, value in fields(data, 0, size, path)
             if number == _MODEL_GRAPH and wire == LENGTH]
    if not spans:
        raise InputError("%s: no graph (ModelProto field 7): not an ONNX model" % path)
    nodes, tensors, outputs = _graph(data, spans[-1], path)
    arrays = {name: _array(tensor) for name, tensor in tensors.items()
              if tensor.kind is not None}
    try:
        head = _head(nodes, tensors, outputs, arrays, path)
    except InputError as refusal:
        # Its head is refused (a type not read, ...): another array may still be named.
        return Arrays(arrays.values(), None, refusal=refusal)
    return Arrays(arrays.values(), head)


def _array(tensor):
    """The Array of an initializer, in its stored shape and order."""
    return Array(tensor.name, tuple(tensor.dims), _type_name(tensor.number),
                 lambda: (tensor.load(), False))


def _type_name(number):
    if number in _READ:
        return _READ[number][0]
    return _OTHERS.get(number, "%d (not an ONNX type)" % number)


def _counted(items, what, path):
    """InputError once ``items`` (a list being filled) is past _MAX_ITEMS:
    each costs some hundred bytes of objects per few bytes of file."""
    if len(items) >= _MAX_ITEMS:
        raise InputError("%s: more than %d %s, past the limit for a model" % (path, _MAX_ITEMS, what))


def _graph(data, span, path):
    """(nodes, {name: _Tensor} of the initializers, output names) of a GraphProto."""
    nodes, tensors, outputs = [], {}, []
    for number, wire, value in fields(data, span[0], span[1], path):
        if wire != LENGTH:
            continue
        _counted(nodes, "nodes", path)
        _counted(tensors, "initializers", path)
        _counted(outputs, "outputs", path)
        if number == _GRAPH_NODE:
            nodes.append(_node(data, value, len(nodes), path))
        elif number == _GRAPH_INITIALIZER:
            tensor = _tensor(data, value, path)
            tensors[tensor.name] = tensor
        elif number == _GRAPH_OUTPUT:
            outputs.extend(text(data, inner, path) for field, kind, inner
                           in fields(data, value[0], value[1], path)
                           if field == 1 and kind == LENGTH)
    return nodes, tensors, outputs


def _node(data, span, index, path):
    name, op, domain, inputs, outputs, attributes = "", "", "", [], [], {}
    for number, wire, value in fields(data, span[0], span[1], path):
        if wire != LENGTH:
            continue
        if number == _NODE_INPUT:
            _counted(inputs, "inputs of a node", path)
            inputs.append(text(data, value, path))
        elif number == _NODE_OUTPUT:
            _counted(outputs, "outputs of a node", path)
            outputs.append(text(data, value, path))
        elif number == _NODE_NAME:
            name = text(data, value, path)
        elif number == _NODE_OP:
            op = text(data, value, path)
        elif number == _NODE_DOMAIN:
            domain = text(data, value, path)
        elif number == _NODE_ATTRIBUTE:
            key, found = None, None
            for field, kind, inner in fields(data, value[0], value[1], path):
                if field == _ATTRIBUTE_NAME and kind == LENGTH:
                    key = text(data, inner, path)
                elif field == _ATTRIBUTE_I and kind == VARINT:
                    found = signed(inner)
                elif field == _ATTRIBUTE_F and kind == FIXED32:
                    found = struct.unpack("<f", data[inner[0]:inner[1]])[0]
            if found is not None:
                attributes[key] = found
    if domain not in _ONNX_DOMAINS:
        op = "%s.%s" % (domain, op)   # another domain's op is none of ONNX's
    return _Node(index, name, op, inputs, outputs, attributes)


def _tensor(data, span, path):
    """A _Tensor of the TensorProto at ``span``: its values' length checked
    against its dims, its load() reading them only when called."""
    dims, number, name, raw, external, location = [], 0, "", None, {}, 0
    typed = {_FLOAT_DATA: [], _INT32_DATA: [], _DOUBLE_DATA: []}
    for field, wire, value in fields(data, span[0], span[1], path):
        if field in _WIRES and wire not in _WIRES[field]:
            raise InputError("%s: byte %d: TensorProto field %d has wire type %d"
                             % (path, span[0], field, wire))
        if field == _TENSOR_DIMS:
            dims.extend(packed_varints(data, value, path) if wire == LENGTH else [value])
        elif field == _TENSOR_TYPE and wire == VARINT:
            number = value
        elif field == _TENSOR_NAME and wire == LENGTH:
            name = text(data, value, path)
        elif field == _TENSOR_RAW and wire == LENGTH:
            raw = value
        elif field in typed:
            typed[field].append((wire, value))
        elif field == _TENSOR_EXTERNAL and wire == LENGTH:
            entry = {key: text(data, inner, path) for key, kind, inner
                     in fields(data, value[0], value[1], path) if kind == LENGTH}
            external[entry.get(1, "")] = entry.get(2, "")
        elif field == _TENSOR_LOCATION and wire == VARINT:
            location = value
    where = "%s, initializer %s (byte %d)" % (path, excerpt(name), span[0])
    if number not in _READ:
        return _Tensor(name, dims, number, None, where, lambda: _unread(where, number))
    kind = _READ[number][1]
    if len(dims) > MAX_DIMENSIONS:
        raise InputError("%s: %d dims, past the limit of %d" % (where, len(dims), MAX_DIMENSIONS))
    dims = [signed(n) for n in dims]
    if any(n < 0 for n in dims):
        raise InputError("%s: dims %s has a negative size" % (where, shown_shape(dims)))
    count = value_count(dims, where)
    if location == _EXTERNAL:
        load = _external(external, kind, count, path, where)
    elif raw is not None:
        _same_count(raw[1] - raw[0], count * KINDS[kind], "raw_data bytes", dims, where)
        load = lambda: read_values(io.BytesIO(data[raw[0]:raw[1]]), kind, count, False, where)
    else:
        stored = typed[_TYPED[kind]]
        _same_count(_typed_count(data, stored, kind), count, "values", dims, where)
        load = lambda: _typed_values(data, stored, kind, path, where)
    return _Tensor(name, dims, number, kind, where, load)


def _unread(where, number):
    raise InputError("%s: data type %s is not read (read: %s)"
                     % (where, _type_name(number), _READ_NAMES))


def _same_count(stored, expected, what, dims, where):
    if stored != expected:
        raise InputError("%s: it stores %d %s; dims %s need %d"
                         % (where, stored, what, shown_shape(dims), expected))


def _typed_count(data, stored, kind):
    """How many values a typed field's parts hold, counted without reading them."""
    size = 4 if kind == "f4" else 8
    count = 0
    for wire, value in stored:
        if wire != LENGTH:
            count += 1
        elif kind in ("f4", "f8"):
            count += -(-(value[1] - value[0]) // size)   # a partial value counts: refused
        else:
            count += len(data[value[0]:value[1]].translate(None, _CONTINUED))
    return count


def _typed_values(data, stored, kind, path, where):
    """The values of a typed repeated field, packed or not, as read_values gives them."""
    if kind in ("f4", "f8"):
        size, code = KINDS[kind], "f" if kind == "f4" else "d"
        values = array.array(code)
        for wire, (begin, end) in stored:
            if (end - begin) % size:
                raise InputError("%s: a packed run of %d bytes is not a whole number of"
                                 " %d-byte values" % (where, end - begin, size))
            values.frombytes(data[begin:end])
        if sys.byteorder == "big":
            values.byteswap()
        return memoryview(values)
    numbers = []
    for wire, value in stored:
        numbers.extend(packed_varints(data, value, path) if wire == LENGTH else [value])
    low, high = _INTEGER_RANGES[kind]
    for k, n in enumerate(numbers):
        # int32 fields write negative numbers as their 64-bit two's complement.
        n = numbers[k] = signed(n)
        if not low <= n <= high:
            raise InputError("%s: int32_data[%d] is %d, outside %s's range %d..%d"
                             % (where, k, n, kind, low, high))
    if kind in _CODES:
        return memoryview(array.array(_CODES[kind], numbers))
    # float16 and bfloat16 values are their 16 bits, one an int32_data.
    halves = array.array("H", numbers)
    if sys.byteorder == "big":
        halves.byteswap()
    return read_values(io.BytesIO(halves.tobytes()), kind, len(numbers), False, where)


def _external(entries, kind, count, path, where):
    """The load() of an initializer stored in another file: its location
    checked now, the file opened and read only when loaded."""
    location = entries.get("location", "")
    folder = os.path.dirname(os.path.abspath(path))
    target = os.path.normpath(os.path.join(folder, location))
    if (not location or os.path.isabs(location) or "\0" in location
            or os.path.commonpath([folder, target]) != folder):
        raise InputError("%s: external data location %s is not a file in the model's folder"
                         % (where, excerpt(location)))
    try:
        offset = int(entries.get("offset", "0"))
        length = int(entries.get("length", str(count * KINDS[kind])))
    except ValueError:
        raise InputError("%s: external data offset %s or length %s is not a number"
                         % (where, excerpt(entries.get("offset", "")),
                            excerpt(entries.get("length", "")))) from None
    if offset < 0 or length != count * KINDS[kind]:
        raise InputError("%s: external data of %d bytes at offset %d; its dims need %d bytes"
                         % (where, length, offset, count * KINDS[kind]))

    def load():
        # The folder's own real path: a symbolic link inside it may not lead out.
        real = os.path.realpath(target)
        if os.path.commonpath([os.path.realpath(folder), real]) != os.path.realpath(folder):
            raise InputError("%s: external data location %s leads out of the model's folder"
                             % (where, excerpt(location)))
        handle, size = open_regular(target)
        with handle:
            if offset + length > size:
                raise InputError("%s: external data runs to byte %d of %s, which has %d"
                                 % (where, offset + length, excerpt(location), size))
            handle.seek(offset)
            return read_values(handle, kind, count, False, where)
    return load


def _head(nodes, tensors, outputs, arrays, path):
    """The Head of the last layer an end of the graph comes from, or None.

    A Mul of the logits, or of the weights, by a positive number s is
    passed: the classes W x + b can make the argmax are those s W x + b
    can, since s x ranges over every x as x does; and those of s (W x + b)
    are the same.  So is a Mul by the scale DynamicQuantizeLinear gives
    its input times a positive initializer: that scale is positive, or 0
    when x is all zeros, whose logits b are those of x = 0.  A Mul by zero
    or a negative number, or by anything else, is not passed.  A
    DequantizeLinear of the logits by one positive scale is s (y - z): the
    same argmax as y.
    """
    producer = {name: node for node in nodes for name in node.outputs}
    ends = [(name, "the graph's output %s" % excerpt(name)) for name in outputs]
    ends.extend((node.inputs[0], "the input of %s %s"
                 % (node.op, excerpt(node.name or node.inputs[0])))
                for node in nodes if node.op in _ENDS and node.inputs)
    found, seen = [], set()
    for name, end in ends:
        bias, notes = None, []
        # A walk stops where another has been: however many ends a graph
        # has, each value is walked from at most once a bias, and a cycle
        # (which no valid graph has) ends.
        while (name, bias) not in seen:
            seen.add((name, bias))
            node = producer.get(name)
            if node is None or not node.inputs:
                break
            constant = [k for k, value in enumerate(node.inputs[:2]) if value in tensors]
            if node.op in _PASSING:
                name = node.inputs[0]
                if node.op == "Cast":
                    notes.append("it passes Cast %s, which keeps the order of the values (a"
                                 " rounding may tie two)" % excerpt(node.name or node.outputs[0]))
            elif node.op == "Mul" and len(node.inputs) == 2:
                scale = _positive_scale(node, constant, tensors, producer)
                if scale is None:
                    break
                notes.append("it passes Mul %s by %s, a positive number, which changes no"
                             " argmax set" % (excerpt(node.name or node.outputs[0]), scale[0]))
                name = node.inputs[scale[1]]
            elif node.op == "DequantizeLinear" and len(node.inputs) > 1 and all(
                    value in tensors for value in node.inputs[1:]):
                scale = _scalar(tensors[node.inputs[1]])
                if scale is None or not scale > 0:
                    break
                notes.append("it passes DequantizeLinear %s of the logits by the scale %r (a"
                             " positive number times the logits less one zero point: no"
                             " argmax set changes)" % (excerpt(node.name or node.outputs[0]),
                                                        scale))
                name = node.inputs[0]
            elif node.op == "Add" and bias is None and len(node.inputs) == 2 and len(constant) == 1:
                bias = node.inputs[constant[0]]
                name = node.inputs[1 - constant[0]]
            elif node.op in _LAYERS:
                head = _layer(node, bias, notes, end, tensors, producer, arrays, path)
                if head is not None:
                    found.append((node.index, head))
                break
            else:
                break
    return max(found)[1] if found else None


def _positive_scale(node, constant, tensors, producer):
    """A description of the positive scale a Mul multiplies by: an
    initializer of one positive value, or DynamicQuantizeLinear's scale
    times one, with the index of the Mul's other input; else None."""
    if len(constant) == 1:
        value = _scalar(tensors[node.inputs[constant[0]]])
        return (repr(value), 1 - constant[0]) if _positive(value) else None
    if constant:
        return None
    for k, name in enumerate(node.inputs):
        scales = producer.get(name)
        if scales is None or scales.op != "Mul" or len(scales.inputs) != 2:
            continue
        for a, b in (scales.inputs, scales.inputs[::-1]):
            dynamic = producer.get(a)
            if (b in tensors and dynamic is not None and dynamic.op == "DynamicQuantizeLinear"
                    and dynamic.outputs[1:2] == [a]):
                value = _scalar(tensors[b])
                if _positive(value):
                    return ("%r times DynamicQuantizeLinear's scale of its input (positive,"
                            " or 0 only when the input is all zeros: the logits of x = 0)"
                            % value, 1 - k)
    return None


def _scalar(tensor):
    """The one value of an initializer of one value, else None (16-bit
    floats are read by slices)."""
    if tensor.kind is None or value_count(tensor.dims, tensor.where) != 1:
        return None
    return tensor.load()[0:1].tolist()[0]


def _positive(value):
    """Whether a scale is positive and finite: an infinite one makes ties of
    inf or NaN, which do change the argmax."""
    return value is not None and 0 < value < float("inf")


def _layer(node, bias, notes, end, tensors, producer, arrays, path):
    """The Head of a Gemm, MatMul, MatMulInteger or QLinearMatMul node, or
    None if its weights are not initializers it reads."""
    label = "%s %s" % (node.op, excerpt(node.name or node.outputs[0]))
    attributes, inputs = node.attributes, node.inputs
    transposed = not (node.op == "Gemm" and attributes.get("transB") == 1)
    if len(inputs) < (8 if node.op == "QLinearMatMul" else 2) or attributes.get("transA"):
        return None
    if node.op == "Gemm":
        alpha, beta = attributes.get("alpha", 1.0), attributes.get("beta", 1.0)
        added = len(inputs) > 2 and inputs[2] and beta != 0
        if not _positive(alpha) or added and (bias is not None or not _positive(beta)
                                       or inputs[2] not in tensors):
            return None
        bias = inputs[2] if added else bias
        if alpha != 1 or beta != 1:
            notes.append("alpha %r and beta %r scale W x and b by positive numbers, which"
                         " changes no argmax set" % (alpha, beta))
    weights = inputs[3] if node.op == "QLinearMatMul" else inputs[1]
    if node.op == "MatMulInteger":
        zero = inputs[3] if len(inputs) > 3 and inputs[3] else None
        found = _quantized(weights, None, zero, 1, tensors, arrays, path)
        if found is None:
            return None
        name, why = found
        why += ": the integer product's scale is applied by the Muls passed"
        if not notes:
            why += " (none: the logits are the integers themselves)"
    elif node.op == "QLinearMatMul":
        found = _quantized(weights, inputs[4] or None, inputs[5] or None, 1, tensors, arrays,
                           path)
        if found is None:
            return None
        name, why = found
        notes.append("the layer is the real product before it is requantized: rounding"
                     " the logits to y_scale's steps can tie classes it separates")
    elif weights in tensors:
        name, why = weights, "initializer %s (%s)" % (excerpt(weights),
                                                     _type_name(tensors[weights].number))
    elif weights in producer and producer[weights].op == "DequantizeLinear":
        quantized = producer[weights]
        if quantized.attributes.get("block_size"):
            raise InputError("%s: DequantizeLinear %s by blocks is not read"
                             % (path, excerpt(quantized.name or weights)))
        found = _quantized(*[value or None for value in (quantized.inputs + ["", ""])[:3]],
                           quantized.attributes.get("axis", 1), tensors, arrays, path,
                           name=weights)
        if found is None:
            return None
        name, why = found
    else:
        return None
    if name not in arrays:
        tensors[name].load()   # refuses its type by name
    stored = arrays[name]
    if len(stored.shape) != 2:
        return None
    if transposed:
        d, classes = stored.shape
        arrays[name] = Array(name, (classes, d), stored.dtype, lambda: (stored.load()[0], True))
        why += (", stored (d, C) = (%d, %d) for x W: read as its transpose (C, d), in"
                " Fortran order" % (d, classes))
    else:
        why += ", stored (C, d) = %s for x B^T (transB = 1)" % shown_shape(stored.shape)
    if bias is not None:
        if bias not in arrays:
            tensors[bias].load()   # refuses its type by name
        why += "; bias %s (%s)" % (excerpt(bias), arrays[bias].dtype)
    why = "%s reaches %s: weights %s%s" % (label, end, why,
                                          "".join("; " + note for note in notes))
    return Head(name, bias, why)


def _quantized(q, scale, zero, axis, tensors, arrays, path, name=None):
    """(name, why) of the Array of scale * (q - zero) (q - zero without a
    scale) added to ``arrays``, or None if they are not all initializers.

    A float32, float16 or bfloat16 scale has at most 24 significant bits
    and q - zero at most 9 for 8-bit q: their product is exact in float64.
    The scale and zero point are one value (per tensor) or one for each
    index of ``axis`` of q.
    """
    parts = [q, scale, zero]
    if any(part is not None and part not in tensors for part in parts):
        return None
    for part in parts:
        if part is not None and part not in arrays:
            tensors[part].load()   # refuses its type by name
    values = tensors[q]
    where = values.where
    if values.kind not in ("u1", "i1") or len(values.dims) != 2:
        raise InputError("%s: quantized weights of type %s and dims %s are not read (8-bit"
                         " 2-D weights are)" % (where, _type_name(values.number),
                                                shown_shape(values.dims)))
    axis = axis + 2 if axis < 0 else axis
    if axis not in (0, 1):
        raise InputError("%s: axis %d is not one of its 2 axes" % (where, axis))
    for part, kinds in ((scale, ("f4", "f2", "bf16")), (zero, (values.kind,))):
        if part is not None and (tensors[part].kind not in kinds or value_count(
                tensors[part].dims, where) not in (1, values.dims[axis])
                or len(tensors[part].dims) > 1):
            raise InputError("%s: %s (%s, dims %s) is not a scale or zero point for it: one"
                             " value, or one for each of the %d of axis %d, of %s"
                             % (where, excerpt(part), _type_name(tensors[part].number),
                                shown_shape(tensors[part].dims), values.dims[axis], axis,
                                " or ".join(_type_name(n) for n, (_, kind) in _READ.items()
                                            if kind in kinds)))
    if name is None:
        name = q if zero is None and scale is None else (
            "%s - %s" % (q, zero) if scale is None else "%s * (%s - %s)" % (scale, q, zero))
    columns = values.dims[1]
    # Bound now: the Array made here may take q's own name in ``arrays``.
    stored_array, zero_array, scale_array = (arrays.get(part) for part in (q, zero, scale))

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
        return memoryview(array.array("d", [scales[pick(k)] * (v - zeros[index(k)])
                                            for k, v in enumerate(stored)])), False
    per = ("per tensor" if all(part is None or value_count(tensors[part].dims, where) == 1
                               for part in (scale, zero)) else "per axis %d" % axis)
    if scale is None:
        dtype = "INT16 (q - zero point)"
        why = "%s (%s) minus %s, %s, read exactly as integers" % (
            excerpt(q), _type_name(values.number),
            "no zero point" if zero is None else "zero point %s" % excerpt(zero), per)
    else:
        dtype = "DOUBLE (scale * (q - zero point))"
        why = ("%s * (%s - %s), %s, %s 8-bit q: each product exact in float64"
               % (excerpt(scale), excerpt(q), "0" if zero is None else excerpt(zero), per,
                  _type_name(values.number)))
    arrays[name] = Array(name, tuple(values.dims), dtype, load)
    return name, why
