"""The model fixtures of tests/data/models (written by the real torch and
transformers, see its README.md), and their tensors read here independently
of the project's readers: straight from the bytes with json and struct."""

import json
import os
import struct
from fractions import Fraction
from math import gcd
from operator import mul

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


class ExactLayer:
    """A layer's floats as integers over one power of two, to check
    certificates quickly and independently of reviews.argmax."""

    def __init__(self, weights, bias=None):
        values = [v for row in weights for v in row] + list(bias or [])
        shift = max(Fraction(v).denominator for v in values).bit_length() - 1
        self.rows = [[int(Fraction(v) * 2 ** shift) for v in row] for row in weights]
        self.bias = [int(Fraction(v) * 2 ** shift) for v in bias] if bias else [0] * len(weights)

    def holds(self, result):
        """True if the result's witness or combination proves its verdict."""
        i = result.index
        if result.argmaxable:
            x = [Fraction(v) for v in result.witness]
            scale = 1
            for v in x:
                scale = scale * v.denominator // gcd(scale, v.denominator)
            x = [int(v * scale) for v in x]
            logits = [sum(map(mul, row, x)) + b * scale for row, b in zip(self.rows, self.bias)]
            return all(logits[i] > logit for j, logit in enumerate(logits) if j != i)
        terms = [(j, Fraction(v)) for j, v in result.terms]
        if any(v < 0 or j == i for j, v in terms) or sum(v for _, v in terms) != 1:
            return False
        mixed = [sum(v * self.rows[j][k] for j, v in terms) for k in range(len(self.rows[i]))]
        return (mixed == self.rows[i]
                and sum(v * self.bias[j] for j, v in terms) >= self.bias[i])
