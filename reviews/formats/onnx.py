"""ONNX models: their initializers read exactly, their output layer found from the graph.

An ``.onnx`` file is a serialized ``ModelProto`` (onnx/onnx.proto): its
field 7 is the ``GraphProto``, whose nodes (op_type, inputs, outputs,
attributes), initializers (``TensorProto``: dims, data_type, and the
values as little-endian ``raw_data``, as the typed repeated fields
``float_data``, ``int32_data`` (which holds float16, bfloat16, int8 and
uint8 values too, one per element), ``int64_data`` and ``double_data``, or
in an external file), inputs, outputs and value_info (for their ranks)
are read, with the model's opset_import and metadata_props.  Nothing is
run; nested graphs (the bodies of If and Loop) are skipped unread.
Initializers, and the ``value`` tensors of Constant nodes, of the types
FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT8, UINT8 and INT32 are listed, each
read at its stored value; INT64 and BOOL ones are read only as the shapes
and axes of ops, and the others (strings, ...) cannot be a layer and are
left out.  External data (``data_location`` EXTERNAL) is read from its
``location``, a file in the model's folder.

The output layer is found by reviews.formats.onnx_head.  Its classes are
named by the model's metadata_props ``character`` where PaddleOCR's
recognizers keep their characters, one a line (split as Python's
splitlines does, as rapidocr reads them), with the classes PaddleOCR adds:
"blank" first, and " " last when that makes the count of the layer's
classes (use_space_char).

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
from reviews.formats.binary import KINDS, MAX_DIMENSIONS, Array, Arrays, read_values, value_count
from reviews.formats.onnx_head import Graph, Node, output_layer, type_name
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

# TensorProto.DataType: the numbers read, as (name, kind of binary.KINDS);
# INT64 and BOOL are read only as ops' shapes and axes, not listed.
_READ = {1: ("FLOAT", "f4"), 2: ("UINT8", "u1"), 3: ("INT8", "i1"), 6: ("INT32", "i4"),
         10: ("FLOAT16", "f2"), 11: ("DOUBLE", "f8"), 16: ("BFLOAT16", "bf16")}
_SMALL = {7: "i8", 9: "u1"}
_INTEGERS = (6, 7, 9)
_READ_NAMES = ", ".join(name for name, _ in _READ.values())
_INTEGER_RANGES = {"u1": (0, 255), "i1": (-128, 127), "i4": (-2 ** 31, 2 ** 31 - 1),
                   "i8": (-2 ** 63, 2 ** 63 - 1), "f2": (0, 65535), "bf16": (0, 65535)}
_CODES = {"u1": "B", "i1": "b", "i4": "i", "i8": "q"}
# Field numbers of onnx.proto's messages.
_MODEL_GRAPH, _MODEL_OPSET, _MODEL_METADATA = 7, 8, 14
_GRAPH_NODE, _GRAPH_INITIALIZER, _GRAPH_INPUT, _GRAPH_OUTPUT, _GRAPH_VALUE_INFO = 1, 5, 11, 12, 13
_NODE_INPUT, _NODE_OUTPUT, _NODE_NAME, _NODE_OP, _NODE_ATTRIBUTE, _NODE_DOMAIN = 1, 2, 3, 4, 5, 7
# AttributeProto: its name, then its value by kind.
_ATTRIBUTE_NAME = 1
_ATTRIBUTE_KINDS = {2: ("f", FIXED32), 3: ("i", VARINT), 4: ("s", LENGTH), 5: ("t", LENGTH),
                    7: ("floats", None), 8: ("ints", None)}
_TENSOR_DIMS, _TENSOR_TYPE, _TENSOR_NAME, _TENSOR_RAW = 1, 2, 8, 9
_TENSOR_EXTERNAL, _TENSOR_LOCATION = 13, 14
# The typed field that holds each kind's values when raw_data does not.
_FLOAT_DATA, _INT32_DATA, _INT64_DATA, _DOUBLE_DATA = 4, 5, 7, 10
# The wire types each typed field may have: packed, or one value a field.
_WIRES = {_FLOAT_DATA: (LENGTH, FIXED32), _INT32_DATA: (LENGTH, VARINT),
          _INT64_DATA: (LENGTH, VARINT), _DOUBLE_DATA: (LENGTH, FIXED64),
          _TENSOR_DIMS: (LENGTH, VARINT)}
_TYPED = {"f4": _FLOAT_DATA, "f8": _DOUBLE_DATA, "u1": _INT32_DATA, "i1": _INT32_DATA,
          "i4": _INT32_DATA, "f2": _INT32_DATA, "bf16": _INT32_DATA, "i8": _INT64_DATA}
_EXTERNAL = 1
# A varint's last byte is below 0x80: deleting the others counts them.
_CONTINUED = bytes(range(0x80, 0x100))

# The opset's own domain: "" or its name.
_ONNX_DOMAINS = {"", "ai.onnx"}
# PaddleOCR's recognizers name their classes in this metadata key.
_CHARACTERS = "character"

# An initializer or Constant value: load() gives its values (or refuses
# its type), integers() those of an INT32, INT64 or BOOL one as a list
# (None for the others).
_Tensor = namedtuple("_Tensor", "name dims number kind where load integers")


def onnx_arrays(handle, size, path):
    """The Arrays of the open .onnx file ``handle`` of ``size`` bytes: one
    per initializer (or Constant) of a type read, the Head its graph names
    (None if it has no layer the rule finds) and its classes' names."""
    if size > MAX_BYTES:
        raise InputError("%s has %d bytes, past the limit of %d for an .onnx file (larger"
                         " models keep their initializers in external files)"
                         % (path, size, MAX_BYTES))
    data = handle.read(size)
    if len(data) != size:
        raise InputError("%s: the file ends before its %d bytes" % (path, size))
    spans, opset, metadata = [], None, {}
    for number, wire, value in fields(data, 0, size, path):
        if wire != LENGTH:
            continue
        if number == _MODEL_GRAPH:
            spans.append(value)
        elif number == _MODEL_OPSET:
            entry = _entry(data, value, path)
            if entry.get(1, "") in _ONNX_DOMAINS and 2 in entry:
                opset = entry[2]
        elif number == _MODEL_METADATA:
            entry = _entry(data, value, path)
            metadata[entry.get(1, "")] = entry.get(2, "")
    if not spans:
        raise InputError("%s: no graph (ModelProto field 7): not an ONNX model" % path)
    nodes, tensors, outputs, ranks = _graph(data, spans[-1], path)
    arrays = {name: _array(tensor) for name, tensor in tensors.items()
              if tensor.number in _READ}
    try:
        found = output_layer(Graph(nodes, tensors, outputs, ranks, opset, arrays, path))
    except InputError as refusal:
        # Its head is refused (a type not read, ...): another array may still be named.
        return Arrays(arrays.values(), None, refusal=refusal)
    if found is None:
        return Arrays(arrays.values(), None)
    head, classes = found
    tokens = None
    if _CHARACTERS in metadata:
        lines = metadata[_CHARACTERS].splitlines()
        names = ["blank"] + lines + ([" "] if len(lines) + 2 == classes else [])
        # Only the classes' own: a few MB of newlines would be millions of tokens.
        tokens = dict(enumerate(names[:classes]))
        head = head._replace(why=head.why + "; classes named by metadata_props %r, a line"
                             " each, with PaddleOCR's 'blank' first%s%s" % (
                                 _CHARACTERS, " and ' ' last" if len(names) > len(lines) + 1
                                 else "", "" if len(names) <= classes else
                                 " (%d names past the %d classes left out: is it this model's?)"
                                 % (len(names) - classes, classes)))
    return Arrays(arrays.values(), head, tokens)


def _entry(data, span, path):
    """{field: value} of a small message of strings and ints (an opset or
    metadata entry)."""
    entry = {}
    for number, wire, value in fields(data, span[0], span[1], path):
        if wire == LENGTH:
            entry[number] = text(data, value, path)
        elif wire == VARINT:
            entry[number] = signed(value)
    return entry


def _array(tensor):
    """The Array of an initializer, in its stored shape and order."""
    return Array(tensor.name, tuple(tensor.dims), type_name(tensor.number),
                 lambda: (tensor.load(), False))


def _counted(items, what, path):
    """InputError once ``items`` (a list being filled) is past _MAX_ITEMS:
    each costs some hundred bytes of objects per few bytes of file."""
    if len(items) >= _MAX_ITEMS:
        raise InputError("%s: more than %d %s, past the limit for a model" % (path, _MAX_ITEMS, what))


def _graph(data, span, path):
    """(nodes, {name: _Tensor} of the initializers and Constant values,
    output names, {name: rank} declared) of a GraphProto."""
    nodes, tensors, outputs, ranks = [], {}, [], {}
    for number, wire, value in fields(data, span[0], span[1], path):
        if wire != LENGTH:
            continue
        _counted(nodes, "nodes", path)
        _counted(tensors, "initializers", path)
        _counted(outputs, "outputs", path)
        _counted(ranks, "declared values", path)
        if number == _GRAPH_NODE:
            node = _node(data, value, len(nodes), path)
            nodes.append(node)
            if node.op == "Constant" and "value" in node.attributes and node.outputs:
                kind, where = node.attributes["value"]
                if kind == "t":
                    _named_once(tensors, _tensor(data, where, path, node.outputs[0]), path)
        elif number == _GRAPH_INITIALIZER:
            _named_once(tensors, _tensor(data, value, path), path)
        elif number in (_GRAPH_INPUT, _GRAPH_OUTPUT, _GRAPH_VALUE_INFO):
            name, rank = _value_info(data, value, path)
            if number == _GRAPH_OUTPUT:
                outputs.append(name)
            if rank is not None:
                ranks[name] = rank
    return nodes, tensors, outputs, ranks


def _named_once(tensors, tensor, path):
    if tensor.name in tensors:
        raise InputError("%s: two initializers (or Constant values) are named %s"
                         % (path, excerpt(tensor.name)))
    tensors[tensor.name] = tensor


def _value_info(data, span, path):
    """(name, rank or None) of a ValueInfoProto: the rank its tensor type's
    shape declares."""
    name, rank = "", None
    for number, wire, value in fields(data, span[0], span[1], path):
        if number == 1 and wire == LENGTH:
            name = text(data, value, path)
        elif number == 2 and wire == LENGTH:   # TypeProto
            for kind, kind_wire, tensor in fields(data, value[0], value[1], path):
                if kind != 1 or kind_wire != LENGTH:   # tensor_type
                    continue
                for field, field_wire, shape in fields(data, tensor[0], tensor[1], path):
                    if field == 2 and field_wire == LENGTH:   # shape: its dims
                        rank = sum(1 for dim, dim_wire, _ in fields(data, shape[0], shape[1], path)
                                   if dim == 1 and dim_wire == LENGTH)
    return name, rank


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
            key, found = _attribute(data, value, path)
            if key in attributes:
                raise InputError("%s: byte %d: a node has two attributes named %s"
                                 % (path, value[0], excerpt(key)))
            attributes[key] = found
    if domain not in _ONNX_DOMAINS:
        op = "%s.%s" % (domain, op)   # another domain's op is none of ONNX's
    return Node(index, name, op, inputs, outputs, attributes)


def _attribute(data, span, path):
    """(name, (kind, value)) of an AttributeProto: a float, an int, a list
    of ints or floats, or a tensor's span; ("other", None) for the rest."""
    key, kind, found, values = "", "other", None, []
    for field, wire, value in fields(data, span[0], span[1], path):
        if field == _ATTRIBUTE_NAME and wire == LENGTH:
            key = text(data, value, path)
        elif field in _ATTRIBUTE_KINDS:
            kind, expected = _ATTRIBUTE_KINDS[field]
            if kind in ("ints", "floats") and wire not in (LENGTH, VARINT if kind == "ints"
                                                           else FIXED32):
                raise InputError("%s: byte %d: attribute field %d has wire type %d"
                                 % (path, span[0], field, wire))
            if kind == "ints":
                values.extend(signed(n) for n in (packed_varints(data, value, path)
                                                  if wire == LENGTH else [value]))
                _counted(values, "ints in an attribute", path)
            elif kind == "floats":
                found = None
            elif wire != expected:
                raise InputError("%s: byte %d: attribute field %d has wire type %d"
                                 % (path, span[0], field, wire))
            elif kind == "f":
                found = struct.unpack("<f", data[value[0]:value[1]])[0]
            elif kind == "i":
                found = signed(value)
            else:
                found = value
    return key, (kind, values if kind == "ints" else found)


def _tensor(data, span, path, name=None):
    """A _Tensor of the TensorProto at ``span`` (named ``name``, a Constant
    node's output, if given): its values' length checked against its dims,
    its load() reading them only when called."""
    dims, number, stored_name, raw, external, location = [], 0, "", None, {}, 0
    typed = {_FLOAT_DATA: [], _INT32_DATA: [], _INT64_DATA: [], _DOUBLE_DATA: []}
    for field, wire, value in fields(data, span[0], span[1], path):
        if field in _WIRES and wire not in _WIRES[field]:
            raise InputError("%s: byte %d: TensorProto field %d has wire type %d"
                             % (path, span[0], field, wire))
        if field == _TENSOR_DIMS:
            dims.extend(packed_varints(data, value, path) if wire == LENGTH else [value])
        elif field == _TENSOR_TYPE and wire == VARINT:
            number = value
        elif field == _TENSOR_NAME and wire == LENGTH:
            stored_name = text(data, value, path)
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
    name = stored_name if name is None else name
    where = "%s, %s %s (byte %d)" % (path, "initializer" if name == stored_name
                                     else "Constant", excerpt(name), span[0])
    unread = lambda: _unread(where, number)
    if number not in _READ and number not in _SMALL:
        return _Tensor(name, dims, number, None, where, unread, None)
    kind = _READ[number][1] if number in _READ else _SMALL[number]
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
    integers = (lambda: load().tolist()) if number in _INTEGERS else None
    if number in _SMALL:
        return _Tensor(name, dims, number, None, where, unread, integers)
    return _Tensor(name, dims, number, kind, where, load, integers)


def _unread(where, number):
    raise InputError("%s: data type %s is not read (read: %s)"
                     % (where, type_name(number), _READ_NAMES))


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
