"""spaCy / thinc component models (msgpack): not read yet (being written)."""

from reviews.errors import InputError

__all__ = ["thinc_arrays"]


def thinc_arrays(handle, size, path):
    """The Arrays of an open file (being written)."""
    raise InputError("%s: spaCy / thinc component models (msgpack) are not read yet" % path)
