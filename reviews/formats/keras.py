"""Keras's HDF5 files (.h5, .hdf5): the output layer a model's config names.

Keras 2 (and tf-keras) saves a model with ``model.save("m.h5")`` as an HDF5
file (read by reviews.formats.hdf5): the root's attribute ``model_config``
(the model as JSON) and a group ``model_weights`` whose attribute
``layer_names`` lists the layers in order, each a group whose attribute
``weight_names`` names its datasets (``dense_1/kernel:0``, so the path is
``model_weights/dense_1/dense_1/kernel:0``).  ``model.save_weights``
writes the same groups at the root, with no config.  A Dense layer's
kernel is stored (d, C), as ``x @ kernel + bias`` uses it: the head is read
as its transpose (C, d), in Fortran order (the same bytes), with its bias.

The output layer is found from the config: the model's one output (a
Sequential model's last layer, a functional model's ``output_layers``),
followed back through layers that keep the logits' order (Activation of an
increasing function, Softmax, Dropout) to a Dense layer (also inside
TimeDistributed), or to a GlobalAveragePooling after a linear convolution:
the mean over positions of a convolution is the same linear map of the
mean patch, so its kernel (kh, kw, in, C) is a head of d = kh * kw * in,
fed the mean of its input patches (fer's emotion model ends so).  A file of
weights only has no config: its last layer with a 2-D kernel is taken, and
the note says so.  (A head of one unit, a binary decision, is read as
reviews.formats.layers reads any head of one output.)  A model of several
outputs, or whose output comes from another layer, names no head: the
user names a kernel.  A file without Keras's attributes is read as plain
HDF5, each dataset an array.

    keras_arrays    the Arrays of an open Keras HDF5 file, its head named
"""

from reviews.errors import InputError
from reviews.formats.binary import Array, Arrays, Head
from reviews.formats.hdf5 import read_hdf5
from reviews.formats.json_text import parse_json
from reviews.shown import excerpt, shown_shape

__all__ = ["keras_arrays"]

_WEIGHTS = "model_weights"
# Activations that are increasing functions of each logit (softmax keeps
# their order too): the largest logit is the largest output.
_INCREASING = ("softmax", "linear", "sigmoid", "tanh", "softplus", "exponential")
_PASSED = ("Dropout", "SpatialDropout1D", "SpatialDropout2D", "GaussianNoise",
           "GaussianDropout", "AlphaDropout", "ActivityRegularization")
_POOLS = {"GlobalAveragePooling1D": "Conv1D", "GlobalAveragePooling2D": "Conv2D",
          "GlobalAveragePooling3D": "Conv3D"}


def _names(attributes, key):
    """A list attribute of strings, or the pieces Keras splits a large one
    into (key0, key1, ...); None where there is none."""
    pieces = [attributes.get(key)]
    while "%s%d" % (key, len(pieces) - 1) in attributes:
        pieces.append(attributes["%s%d" % (key, len(pieces) - 1)])
    names = [name for piece in pieces if isinstance(piece, list) for name in piece]
    return names or None


def _layers(config, path):
    """(layers by name, [output names], Sequential's order or None) of a model config."""
    if not isinstance(config, dict) or not isinstance(config.get("config"), (dict, list)):
        raise InputError("%s: model_config is not a Keras model's config" % path)
    body = config["config"]
    layers = body if isinstance(body, list) else body.get("layers")
    if not isinstance(layers, list) or not all(isinstance(layer, dict) for layer in layers):
        raise InputError("%s: model_config has no list of layers" % path)
    named = {_name(layer): layer for layer in layers if isinstance(_name(layer), str)}
    if config.get("class_name") == "Sequential":
        order = [_name(layer) for layer in layers if isinstance(_name(layer), str)]
        return named, order[-1:], order
    outputs = body.get("output_layers") if isinstance(body, dict) else None
    if not isinstance(outputs, list):
        raise InputError("%s: model_config names no output_layers" % path)
    names = [o[0] for o in outputs if isinstance(o, list) and o and isinstance(o[0], str)]
    return named, names, None


def _inbound(layer, order):
    """The name of the one layer feeding ``layer``, or None."""
    if order is not None:
        index = order.index(_name(layer))
        return order[index - 1] if index > 0 else None
    nodes = layer.get("inbound_nodes")
    if (isinstance(nodes, list) and len(nodes) == 1 and isinstance(nodes[0], list)
            and len(nodes[0]) == 1 and isinstance(nodes[0][0], list) and nodes[0][0]
            and isinstance(nodes[0][0][0], str)):
        return nodes[0][0][0]
    return None


def _config(layer):
    """A layer's config, {} where it has none (or not an object)."""
    config = layer.get("config") if isinstance(layer, dict) else None
    return config if isinstance(config, dict) else {}


def _name(layer):
    return layer.get("name", _config(layer).get("name"))


def _activation(layer):
    activation = _config(layer).get("activation", "linear")
    return activation if isinstance(activation, str) else repr(activation)


def _walk(named, output, order):
    """((head layer's name, the pooling after it or None, [steps]), None),
    following the layers from the output back; or (None, why not)."""
    steps, name = [], output
    for _ in range(len(named) + 1):
        layer = named.get(name)
        if layer is None:
            return None, "the config has no layer %s" % excerpt(str(name))
        kind = layer.get("class_name")
        wrapped = _config(layer).get("layer")
        if kind == "Dense" or (kind == "TimeDistributed" and isinstance(wrapped, dict)
                               and wrapped.get("class_name") == "Dense"):
            activation = _activation(layer if kind == "Dense" else wrapped)
            if activation not in _INCREASING:
                return None, "its Dense layer %s has activation %s, which may tie logits" % (
                    excerpt(name), excerpt(activation))
            return (name, None, steps + ["%s %s (activation %s)" % (kind, excerpt(name),
                                                                     activation)]), None
        if kind in _POOLS:
            conv = named.get(_inbound(layer, order))
            if (conv is None or conv.get("class_name") != _POOLS[kind]
                    or _activation(conv) != "linear"):
                return None, "%s %s does not follow a %s of linear activation" % (
                    kind, excerpt(name), _POOLS[kind])
            steps += ["%s %s" % (kind, excerpt(name)),
                      "%s %s" % (_POOLS[kind], excerpt(_name(conv)))]
            return (_name(conv), kind, steps), None
        if kind == "Activation" and _activation(layer) in _INCREASING or kind == "Softmax":
            steps.append("%s %s" % (kind, excerpt(name)))
        elif kind in _PASSED:
            steps.append("%s %s" % (kind, excerpt(name)))
        else:
            return None, "its output comes from %s %s, not from a Dense layer" % (
                kind, excerpt(str(name)))
        name = _inbound(layer, order)
    return None, "its layers go round in a circle"


def _weights_of(hdf5, group, layer, arrays):
    """{"kernel": Array, "bias": Array} of a layer's weight_names."""
    prefix = "%s/%s/" % (group, layer) if group else "%s/" % layer
    names = _names(hdf5.attributes(prefix[:-1]), "weight_names") or []
    found = {}
    for weight in names:
        array = arrays.get(prefix + weight)
        key = weight.rsplit("/", 1)[-1].split(":")[0]
        if array is not None and key in ("kernel", "bias"):
            found[key] = array
    return found


def _head(hdf5, group, layer, pooled, why, arrays, path):
    """The Head of a layer's kernel (replaced in ``arrays`` by its (C, d)
    view) and bias, or an InputError."""
    weights = _weights_of(hdf5, group, layer, arrays)
    kernel, bias = weights.get("kernel"), weights.get("bias")
    if kernel is None:
        return InputError("%s: the output layer %s has no kernel in the file" % (path,
                                                                             excerpt(layer)))
    shape = kernel.shape
    if len(shape) < 2 or (pooled is None and len(shape) != 2):
        return InputError("%s: the output layer %s's kernel has shape %s, not (d, C)"
                          % (path, excerpt(layer), shown_shape(shape)))
    classes, d = shape[-1], 1
    for n in shape[:-1]:
        d *= n
    if bias is not None and tuple(bias.shape) != (classes,):
        return InputError("%s: the output layer %s's bias has shape %s for %d classes"
                          % (path, excerpt(layer), shown_shape(bias.shape), classes))
    stored = kernel
    arrays[kernel.name] = Array(kernel.name, (classes, d), kernel.dtype,
                                lambda: (stored.load()[0], True))
    why += ("; kernel stored %s for x @ kernel: read as its transpose (%d, %d), in Fortran"
            " order" % (shown_shape(shape), classes, d))
    if pooled is not None:
        why += (" (the mean over positions of the convolution is the kernel applied to the"
                " mean of its input patches, d = %s)" % " x ".join(map(str, shape[:-1])))
    return Head(kernel.name, None if bias is None else bias.name, why)


def keras_arrays(handle, size, path):
    """Arrays of the open HDF5 file ``handle``: every dataset of numbers,
    named by its path, and, for a Keras file, the output layer as its head
    (or why none is)."""
    hdf5 = read_hdf5(handle, size, path)
    root = hdf5.attributes("")
    group = _WEIGHTS if _names(hdf5.attributes(_WEIGHTS), "layer_names") else ""
    layer_names = _names(hdf5.attributes(group), "layer_names")
    if not layer_names:
        return list(hdf5.arrays)
    arrays = {array.name: array for array in hdf5.arrays}
    head = refusal = None
    if "model_config" in root:
        named, outputs, order = _layers(parse_json(root["model_config"], path), path)
        if len(outputs) != 1:
            refusal = "the model has %d outputs (%s)" % (len(outputs), ", ".join(
                map(excerpt, outputs)))
        else:
            found, problem = _walk(named, outputs[0], order)
            if found is None:
                refusal = "the model's output %s: %s" % (excerpt(outputs[0]), problem)
            else:
                layer, pooled, steps = found
                why = "Keras's output layer, from model_config: %s" % " <- ".join(steps)
                head = _head(hdf5, group, layer, pooled, why, arrays, path)
    else:
        for layer in reversed(layer_names):
            weights = _weights_of(hdf5, group, layer, arrays)
            if weights:
                if len(weights.get("kernel", Array("", (), "", None)).shape) == 2:
                    head = _head(hdf5, group, layer, None, "Keras's weights only (no"
                                 " model_config): the last layer with weights, %s, taken as"
                                 " the output layer; its activation is not known"
                                 % excerpt(layer), arrays, path)
                else:
                    refusal = "the last layer with weights, %s, has no 2-D kernel" % excerpt(
                        layer)
                break
    if isinstance(head, InputError):
        return Arrays(list(arrays.values()), refusal=head)
    if refusal is not None:
        return Arrays(list(arrays.values()), refusal=InputError(
            "%s: %s; name the output layer's kernel with tensor=... or --tensor (and"
            " --transpose: Keras stores it (d, C))" % (path, refusal)))
    return Arrays(list(arrays.values()), head)
