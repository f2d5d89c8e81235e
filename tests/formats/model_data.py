"""The model fixtures of tests/data/models (written by the real torch and
transformers, see its README.md), and their tensors read here independently
of the project's readers: straight from the bytes with json and struct."""

import json
import os
import struct

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "data", "models")


def model(name, *parts):
    """The path of a fixture folder (or of a file in it)."""
    return os.path.join(MODELS, name, *parts)


def safetensors_tensor(path, name):
    """(shape, flat list of floats) of the F32 tensor ``name`` of a .safetensors file."""
    with open(path, "rb") as handle:
        data = handle.read()
    length, = struct.unpack("<Q", data[:8])
    entry = json.loads(data[8:8 + length])[name]
    assert entry["dtype"] == "F32", entry
    begin, end = entry["data_offsets"]
    body = data[8 + length + begin:8 + length + end]
    return tuple(entry["shape"]), list(struct.unpack("<%df" % (len(body) // 4), body))


def rows(shape, flat):
    """The rows of a 2-D C-order array."""
    return [flat[i * shape[1]:(i + 1) * shape[1]] for i in range(shape[0])]
