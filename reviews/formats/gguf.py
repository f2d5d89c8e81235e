"""GGUF files (llama.cpp): not read yet (being written)."""

from reviews.errors import InputError

__all__ = ["gguf_arrays"]


def gguf_arrays(handle, size, path):
    """The Arrays of an open file (being written)."""
    raise InputError("%s: GGUF files (llama.cpp) are not read yet" % path)
