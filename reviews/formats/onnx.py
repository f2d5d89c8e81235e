"""ONNX models: not read yet (being written)."""

from reviews.errors import InputError

__all__ = ["onnx_arrays"]


def onnx_arrays(handle, size, path):
    """The Arrays of an open file (being written)."""
    raise InputError("%s: ONNX models are not read yet" % path)
