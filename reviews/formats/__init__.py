"""The file formats a softmax layer comes in, read exactly and defensively.

``read_layer`` (in ``layers``) chooses among the readers by the file's
extension and builds the layer; each other module reads one kind of file:

    layers          read_layer: a layer's weights and bias from any file
    source          regular files only, within size limits; message excerpts
    text            number text: CSV, whitespace- or semicolon-separated, JSON
    binary          little- or big-endian numbers from a file, into one buffer
    npy             .npy files (a strict header grammar) and .npz archives
    safetensors     .safetensors files (header and offsets checked first)

A file with arrays (.npy, .npz, .safetensors) is read as a list of Array:
a name, a shape, a dtype and ``load()``, which reads that array's values
only when called.
"""
