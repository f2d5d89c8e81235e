"""ONNX models written by the standard library, and the values they compute.

A model is described once, as nodes and initializers (``Node``,
``Initializer``); ``model_bytes`` writes it as onnx/onnx.proto says, and
``run`` computes its values by each operator's definition, exactly
(Fractions), rounding only where an operator makes a float32 (Cast to
FLOAT, DequantizeLinear, DynamicQuantizeLinear's scale and quotients), so
that the tests can compare what the reader says of a graph with what the
graph computes.  tests/data/onnx/README.md says how the values were checked
against onnxruntime."""

import struct
from collections import namedtuple
from fractions import Fraction

FLOAT, UINT8, INT8, INT32, INT64, BOOL, FLOAT16, DOUBLE = 1, 2, 3, 6, 7, 9, 10, 11
_PACK = {FLOAT: "f", UINT8: "B", INT8: "b", INT32: "i", INT64: "q", BOOL: "?", FLOAT16: "e",
         DOUBLE: "d"}

Node = namedtuple("Node", "op inputs outputs attributes name")
Initializer = namedtuple("Initializer", "name dims data_type values")


def node(op, inputs, outputs, name="", **attributes):
    return Node(op, list(inputs), list(outputs), attributes, name)


def initializer(name, dims, values, data_type=FLOAT):
    return Initializer(name, tuple(dims), data_type, list(values))


# -- protobuf, written by hand

def varint(n):
    out = bytearray()
    while True:
        out.append(n & 0x7F | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def field(number, body):
    return varint(number << 3 | 2) + varint(len(body)) + body


def number(number, value):
    return varint(number << 3) + varint(value % 2 ** 64)


def _tensor_body(tensor):
    raw = struct.pack("<%d%s" % (len(tensor.values), _PACK[tensor.data_type]),
                      *[float(v) if tensor.data_type in (FLOAT, FLOAT16, DOUBLE) else int(v)
                        for v in tensor.values])
    return (field(8, tensor.name.encode()) + b"".join(number(1, n) for n in tensor.dims)
            + number(2, tensor.data_type) + field(9, raw))


def _attribute(name, value):
    body = field(1, name.encode())
    if isinstance(value, Initializer):
        return body + field(5, _tensor_body(value)) + number(20, 4)
    if isinstance(value, float):
        return body + varint(2 << 3 | 5) + struct.pack("<f", value) + number(20, 1)
    if isinstance(value, int):
        return body + number(3, value) + number(20, 2)
    return body + field(8, b"".join(varint(n % 2 ** 64) for n in value)) + number(20, 7)


def _value_info(name, rank):
    """A ValueInfoProto: a float tensor of ``rank`` dims, each named, not
    sized (None: no shape)."""
    if rank is None:
        return field(1, name.encode()) + field(2, field(1, number(1, FLOAT)))
    dims = b"".join(field(1, field(2, b"n%d" % k)) for k in range(rank))
    return field(1, name.encode()) + field(2, field(1, number(1, FLOAT) + field(2, dims)))


def model_bytes(nodes, initializers, outputs=("y",), inputs=(("x", 2),), opset=21,
                metadata=None, ranks=None):
    """A ModelProto of the graph: ``outputs`` its outputs' names (their
    ranks from ``ranks``, else none declared), ``inputs`` (name, rank)."""
    graph = b"".join(field(1, b"".join(field(1, n.encode()) for n in item.inputs)
                             + b"".join(field(2, n.encode()) for n in item.outputs)
                             + (field(3, item.name.encode()) if item.name else b"")
                             + field(4, item.op.encode())
                             + b"".join(field(5, _attribute(key, value))
                                        for key, value in item.attributes.items()))
                     for item in nodes)
    graph += b"".join(field(5, _tensor_body(tensor)) for tensor in initializers)
    graph += b"".join(field(11, _value_info(name, rank)) for name, rank in inputs)
    for name in outputs:
        rank = (ranks or {}).get(name)
        graph += field(12, field(1, name.encode()) if rank is None else _value_info(name, rank))
    out = number(1, 10) + field(7, graph)
    out += field(8, field(1, b"") + number(2, opset))
    for key, value in (metadata or {}).items():
        out += field(14, field(1, key.encode()) + field(2, value.encode()))
    return out


# -- what the graph computes

def float32(value):
    """A Fraction rounded to the nearest float32 (ties to even), as a Fraction
    (an infinity as a float)."""
    if value == 0:
        return Fraction(0)
    magnitude = abs(value)
    exponent = max(magnitude.numerator.bit_length() - magnitude.denominator.bit_length(), -126)
    while Fraction(2) ** exponent > magnitude:
        exponent -= 1
    while Fraction(2) ** (exponent + 1) <= magnitude:
        exponent += 1
    step = Fraction(2) ** (max(exponent, -126) - 23)
    rounded = round(magnitude / step) * step
    if rounded >= 2 ** 128:
        return float("inf") if value > 0 else float("-inf")
    return rounded if value > 0 else -rounded


def _broadcast(a, b, operation):
    (sa, va), (sb, vb) = a, b
    rank = max(len(sa), len(sb))
    sa, sb = (1,) * (rank - len(sa)) + sa, (1,) * (rank - len(sb)) + sb
    shape = tuple(max(m, n) for m, n in zip(sa, sb))
    values = []
    for flat in range(_size(shape)):
        index = _unravel(flat, shape)
        values.append(operation(va[_ravel([i if n > 1 else 0 for i, n in zip(index, sa)], sa)],
                                vb[_ravel([i if n > 1 else 0 for i, n in zip(index, sb)], sb)]))
    return shape, values


def _size(shape):
    size = 1
    for n in shape:
        size *= n
    return size


def _unravel(flat, shape):
    index = []
    for n in reversed(shape):
        index.append(flat % n)
        flat //= n
    return index[::-1]


def _ravel(index, shape):
    flat = 0
    for i, n in zip(index, shape):
        flat = flat * n + i
    return flat


def _transpose(tensor, perm):
    shape, values = tensor
    out = tuple(shape[p] for p in perm)
    result = []
    for flat in range(_size(out)):
        index = _unravel(flat, out)
        source = [0] * len(shape)
        for k, p in enumerate(perm):
            source[p] = index[k]
        result.append(values[_ravel(source, shape)])
    return out, result


def _matmul(a, b):
    (sa, va), (sb, vb) = a, b
    k, n = sb
    rows = _size(sa) // k
    values = [sum(va[r * k + i] * vb[i * n + j] for i in range(k))
              for r in range(rows) for j in range(n)]
    return (sa[:-1] + (n,)), values


def _axis(axis, rank):
    return axis + rank if axis < 0 else axis


def _round_half_even(value):
    return round(value)


def _saturate(value, data_type):
    low, high = (0, 255) if data_type == UINT8 else (-128, 127)
    return min(max(value, low), high)


def run(nodes, initializers, feeds):
    """{value: (shape, values)} of every value the graph computes from
    ``feeds`` ({name: (shape, values)}); each tensor also keeps its type
    in ``types``."""
    values = dict(feeds)
    types = {name: FLOAT for name in feeds}
    for tensor in initializers:
        values[tensor.name] = (tensor.dims, _stored(tensor))
        types[tensor.name] = tensor.data_type
    for item in nodes:
        args = [values.get(name) for name in item.inputs]
        at = item.attributes
        op = item.op
        out_type = types.get(item.inputs[0]) if item.inputs else FLOAT
        if op == "Constant":
            tensor = at["value"]
            result = (tensor.dims, _stored(tensor))
            out_type = tensor.data_type
        elif op in ("ArgMax", "Softmax", "LogSoftmax"):
            values[item.outputs[0]] = None   # the tests read the input of an end
            continue
        elif op in ("Identity", "Dropout"):
            result = args[0]
        elif op == "MatMul":
            result = _matmul(args[0], args[1])
        elif op == "Gemm":
            a, b = args[0], args[1]
            if at.get("transA", 0):
                a = _transpose(a, (1, 0))
            if at.get("transB", 0):
                b = _transpose(b, (1, 0))
            product = _matmul(a, b)
            alpha, beta = Fraction(at.get("alpha", 1.0)), Fraction(at.get("beta", 1.0))
            result = (product[0], [alpha * v for v in product[1]])
            if len(args) > 2 and args[2] is not None and beta != 0:
                result = _broadcast(result, args[2], lambda x, c: x + beta * c)
        elif op in ("Add", "Mul"):
            result = _broadcast(args[0], args[1], (lambda x, y: x + y) if op == "Add"
                                else (lambda x, y: x * y))
            out_type = FLOAT if FLOAT in (types.get(item.inputs[0]), types.get(item.inputs[1])) \
                else out_type
        elif op == "Cast":
            to = at["to"]
            result = (args[0][0], [float32(v) if to == FLOAT else Fraction(v)
                                   for v in args[0][1]])
            out_type = to
        elif op == "Reshape":
            shape = [int(n) for n in args[1][1]]
            source = args[0][0]
            shape = [source[k] if n == 0 else n for k, n in enumerate(shape)]
            if -1 in shape:
                known = _size([n for n in shape if n != -1])
                shape[shape.index(-1)] = _size(source) // known
            result = (tuple(shape), args[0][1])
        elif op == "Flatten":
            shape = args[0][0]
            axis = _axis(at.get("axis", 1), len(shape))
            result = ((_size(shape[:axis]), _size(shape[axis:])), args[0][1])
        elif op in ("Squeeze", "Unsqueeze"):
            shape = list(args[0][0])
            axes = at.get("axes") or [int(n) for n in args[1][1]]
            if op == "Squeeze":
                axes = {_axis(a, len(shape)) for a in axes}
                shape = [n for k, n in enumerate(shape) if k not in axes]
            else:
                rank = len(shape) + len(axes)
                for axis in sorted(_axis(a, rank) for a in axes):
                    shape.insert(axis, 1)
            result = (tuple(shape), args[0][1])
        elif op == "Transpose":
            result = _transpose(args[0], at.get("perm", list(range(len(args[0][0])))[::-1]))
        elif op == "DequantizeLinear":
            (shape, q), scale = args[0], args[1][1]
            zero = args[2][1] if len(args) > 2 and args[2] is not None else [0]
            axis = _axis(at.get("axis", 1), len(shape))
            result = (shape, [float32(scale[_pick(k, shape, axis, len(scale))]
                                      * (v - zero[_pick(k, shape, axis, len(zero))]))
                              for k, v in enumerate(q)])
            out_type = FLOAT
        elif op == "DynamicQuantizeLinear":
            shape, x = args[0]
            low, high = min(min(x), 0), max(max(x), 0)
            scale = float32((high - low) / 255)
            zero = _saturate(_round_half_even(float32(-low / scale)), UINT8)
            q = [_saturate(_round_half_even(float32(v / scale)) + zero, UINT8) for v in x]
            for name, value in zip(item.outputs, ((shape, q), ((), [scale]), ((), [zero]))):
                values[name] = value
            types.update(zip(item.outputs, (UINT8, FLOAT, UINT8)))
            continue
        elif op == "MatMulInteger":
            a, b = args[0], args[1]
            za = args[2][1] if len(args) > 2 and args[2] is not None else [0]
            zb = args[3][1] if len(args) > 3 and args[3] is not None else [0]
            n = b[0][1]
            a = (a[0], [v - za[0] for v in a[1]])
            b = (b[0], [v - zb[k % n if len(zb) > 1 else 0] for k, v in enumerate(b[1])])
            result = _matmul(a, b)
            out_type = INT32
        elif op == "QuantizeLinear":
            scale, zero = args[1][1][0], args[2][1][0]
            result = (args[0][0], [_saturate(_round_half_even(float32(v / scale)) + zero,
                                             types[item.inputs[2]]) for v in args[0][1]])
            out_type = types[item.inputs[2]]
        elif op == "QLinearMatMul":
            a, a_scale, a_zero, b, b_scale, b_zero, y_scale, y_zero = args
            product = _matmul((a[0], [v - a_zero[1][0] for v in a[1]]),
                              (b[0], [v - b_zero[1][0] for v in b[1]]))
            multiplier = float32(float32(a_scale[1][0] * b_scale[1][0]) / y_scale[1][0])
            out_type = types[item.inputs[7]]
            result = (product[0], [_saturate(_round_half_even(float32(v * multiplier))
                                             + y_zero[1][0], out_type) for v in product[1]])
        else:
            raise ValueError("the reference has no %s" % op)
        values[item.outputs[0]] = result
        types[item.outputs[0]] = out_type
    return values


def _stored(tensor):
    """The values an initializer holds, as the file stores them."""
    code = _PACK[tensor.data_type]
    if code in "fed":
        return [Fraction(v) for v in struct.unpack("<%d%s" % (len(tensor.values), code),
                                                   struct.pack("<%d%s" % (len(tensor.values), code),
                                                               *map(float, tensor.values)))]
    return [Fraction(int(v)) for v in tensor.values]


def _pick(flat, shape, axis, count):
    """The index along ``axis`` of the value at ``flat``, or 0 for one value."""
    if count == 1:
        return 0
    return _unravel(flat, shape)[axis]


def predictions(values, name, axis=-1):
    """The argmax of value ``name`` along ``axis`` at each other index, None
    where two values tie for the largest."""
    shape, flat = values[name]
    axis = _axis(axis, len(shape))
    moved = _transpose((shape, flat), [k for k in range(len(shape)) if k != axis] + [axis])
    size = shape[axis]
    found = []
    for start in range(0, len(flat), size):
        row = moved[1][start:start + size]
        best = max(row)
        found.append(row.index(best) if row.count(best) == 1 else None)
    return found


def class_vectors(values, name, axis=-1):
    """The rows of value ``name`` along ``axis``."""
    shape, flat = values[name]
    axis = _axis(axis, len(shape))
    moved = _transpose((shape, flat), [k for k in range(len(shape)) if k != axis] + [axis])
    size = shape[axis]
    return [moved[1][start:start + size] for start in range(0, len(flat), size)]
