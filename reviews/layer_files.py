"""The old home of ``read_layer``, kept importable: it is now in
reviews.formats.layers (``from reviews.formats.layers import read_layer``).
"""

from reviews.formats.layers import read_layer

__all__ = ["read_layer"]
