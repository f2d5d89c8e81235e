"""Reading a user's softmax layer from a file, exactly.

Formats, chosen by the file's extension:

    .json          {"weights": [[...], ...], "bias": [...]} (bias optional),
                   or just the list of rows
    .csv           one row of comma-separated numbers per class
    .tsv, .txt     the same, separated by tabs; by spaces and tabs, or by
                   semicolons (np.savetxt's defaults)
    .npy           one array: float16/32/64 or integers, either byte order,
                   C or Fortran order
    .npz           a zip of .npy arrays (np.savez, np.savez_compressed)
    .safetensors   named tensors: F64, F32, F16, BF16 and integer types
    -              standard input: JSON if it starts with [ or {, else CSV

A first row of separated text with no number in it is a header, skipped
with a note.  A bias file has one number per class: a JSON list, one number per line or
all on one line, or a 1-D array.  Number text is read as the Decimal it
spells (0.9 is 9/10); arrays hold the floats or ints they store.  Files
with several arrays need the array named (``tensor``, ``bias_tensor``)
unless exactly one of them is 2-D; the only 1-D array of one value per
class is the bias unless another is named (with a note); a layer stored as
(d, C) is read with ``transpose=True``.

Limits: only regular files are read (not a FIFO, device or directory, even
behind a symbolic link); a text file has at most 64 MiB; an array at most
2**26 values and 32 dimensions, and a deflated .npz member at most 4 values
per compressed byte (or 2**16 values, if more); a .npy header at most
10,000 bytes; an .npz at most 4096 members; JSON nests at most 32 deep; a
number is within reviews.exact's MAX_BITS.  Past any of them, or on
any other problem, InputError names the file, the place (line and column, a
JSON path such as ``weights[3][1]``, a byte offset, an array) and the
problem.  See reviews.formats for each format.

    read_layer      (weights, bias or None) from a layer file and a bias file
    read_npy        the shape and values of a .npy file
"""

import math
import os

from reviews.errors import InputError
from reviews.formats.npy import npy_arrays, npz_arrays
from reviews.formats.safetensors import safetensors_arrays
from reviews.formats.source import STDIN, excerpt, open_regular, read_text, shown_shape
from reviews.formats.text import delimited_rows, json_bias, json_layer

__all__ = ["read_layer", "read_npy"]

_SEPARATORS = {".csv": ",", ".tsv": "\t", ".txt": None}
# A .npy file's one array has no name: messages call it this.
_UNNAMED = "the array"
_ARRAY_FILES = {".npy": lambda handle, size, path: npy_arrays(handle, size, path, _UNNAMED),
                ".npz": npz_arrays, ".safetensors": safetensors_arrays}
_LISTED = 12
_WEIGHTS_OPTION = "tensor=... or --tensor"
_BIAS_OPTION = "bias_tensor=... or --bias-tensor"


def _extension(path):
    if path == STDIN:
        return STDIN
    extension = os.path.splitext(path)[1].lower()
    if extension != ".json" and extension not in _SEPARATORS and extension not in _ARRAY_FILES:
        # A missing file, a directory or a device is named as such first.
        open_regular(path)[0].close()
        raise InputError("%s: unknown file type %r (use .json, .csv, .tsv, .txt, .npy, .npz or"
                         " .safetensors)" % (path, extension or "no extension"))
    return extension


def _listing(arrays):
    shown = ["%s %s %s" % (excerpt(a.name), shown_shape(a.shape), a.dtype)
             for a in arrays[:_LISTED]]
    if len(arrays) > _LISTED:
        shown.append("and %d more" % (len(arrays) - _LISTED))
    return "; ".join(shown)


def _choose(arrays, name, path, dimensions, what, option, other=None):
    """The array called ``name``; without a name, the only one, or else the
    only one with ``dimensions`` axes that is not called ``other``."""
    if name is not None:
        for array in arrays:
            if array.name == name:
                return array
        raise InputError("%s has no array %s; it has: %s"
                         % (path, excerpt(name), _listing(arrays)))
    candidates = arrays if len(arrays) <= 1 else [
        a for a in arrays if len(a.shape) == dimensions and a.name != other]
    if len(candidates) > 1 and dimensions == 2:
        # A (1, C) or (C, 1) array beside a layer is its bias, not a layer.
        candidates = [a for a in candidates if 1 not in a.shape] or candidates
    if len(candidates) == 1:
        return candidates[0]
    if not arrays:
        raise InputError("%s holds no arrays" % path)
    raise InputError("%s holds %d arrays; name the %s (%s): %s"
                     % (path, len(arrays), what, option, _listing(arrays)))


def _finite(values, path, where):
    if not all(map(math.isfinite, values)):
        k = next(k for k, v in enumerate(values) if not math.isfinite(v))
        raise InputError("%s: %s[%d] is %r, not a finite number" % (path, where, k, values[k]))
    return values


def _weight_rows(array, path, transpose):
    """The rows of a 2-D array (its columns if ``transpose``), built once."""
    shape = array.shape
    if len(shape) == 1:
        raise InputError("%s: %s has shape %s: one number per class looks like a bias, not"
                         " weights" % (path, array.name if array.name == _UNNAMED
                                       else excerpt(array.name), shown_shape(shape)))
    if len(shape) != 2:
        raise InputError("%s: weights must be a 2-D array, not shape %s"
                         % (path, shown_shape(shape)))
    classes, width = shape[::-1] if transpose else shape
    if classes == 0:
        raise InputError("%s: shape %s has no classes" % (path, shown_shape(shape)))
    if width == 0:
        raise InputError("%s: shape %s has rows of length 0: the dimension d must be at least 1"
                         % (path, shown_shape(shape)))
    flat, fortran = array.load()
    if fortran == transpose:
        rows = [flat[j * width:(j + 1) * width].tolist() for j in range(classes)]
    else:
        rows = [flat[j::classes].tolist() for j in range(classes)]
    for j, row in enumerate(rows):
        _finite(row, path, "weights[%d]" % j)
    return rows


def _vector(array, path):
    """The values of a 1-D array, or of a 2-D one with one row or column."""
    if len(array.shape) != 1 and not (len(array.shape) == 2 and 1 in array.shape):
        raise InputError("%s: a bias is one number per class, not shape %s"
                         % (path, shown_shape(array.shape)))
    return _finite(array.load()[0].tolist(), path, "bias")


def _transposed(rows, path):
    for j, row in enumerate(rows):
        if len(row) != len(rows[0]):
            raise InputError("%s: row %d has %d numbers, row 0 has %d: cannot transpose"
                             % (path, j, len(row), len(rows[0])))
    return [list(column) for column in zip(*rows)]


def _text_file(path, extension):
    """(text, extension) of a text file; standard input is JSON if it
    starts with [ or {, else CSV."""
    text = read_text(path)
    if extension == STDIN:
        extension = ".json" if text.lstrip()[:1] in ("[", "{") else ".csv"
    return text, extension


def _bias_like(arrays, weights, classes):
    """The arrays other than ``weights`` of one value per class: shape (C,),
    (1, C) or (C, 1), as model files keep a head's bias."""
    return [a for a in arrays if a is not weights
            and tuple(a.shape) in ((classes,), (1, classes), (classes, 1))]


def _found_bias(arrays, weights, classes, path, note):
    """The bias of an array file nobody named one of: its only array of
    one value per class, as a model file keeps a head's bias beside its
    weights (said in a note); None if there is none or more than one."""
    note = note or (lambda line: None)
    candidates = _bias_like(arrays, weights, classes)
    if len(candidates) == 1:
        note("%s: array %s %s (one value per class) is read as the bias; name another with %s"
             % (path, excerpt(candidates[0].name), shown_shape(candidates[0].shape),
                _BIAS_OPTION))
        return _vector(candidates[0], path)
    others = [a for a in arrays if a is not weights and len(a.shape) == 1]
    if candidates:
        note("%s: %d arrays have one value per class (%s): none is read as the bias; name one"
             " with %s" % (path, len(candidates), _listing(candidates), _BIAS_OPTION))
    elif others:
        note("%s: no bias read: no array has one value for each of the %d classes (%s)"
             % (path, classes, _listing(others)))
    return None


def _unread_bias(arrays, weights, classes, path, bias_path, note):
    """A note for each array of one value per class left unread because
    the bias comes from ``bias_path``: dropping one silently would change
    the verdicts."""
    if note is not None:
        for array in _bias_like(arrays, weights, classes):
            note("%s: array %s %s (one value per class) is not read: the bias comes from %s"
                 % (path, excerpt(array.name), shown_shape(array.shape), bias_path))


def _read_weights(path, tensor, bias_tensor, transpose, note, bias_path):
    extension = _extension(path)
    if extension in _ARRAY_FILES:
        handle, size = open_regular(path)
        with handle:
            arrays = _ARRAY_FILES[extension](handle, size, path)
            chosen = _choose(arrays, tensor, path, 2, "weights", _WEIGHTS_OPTION, bias_tensor)
            weights = _weight_rows(chosen, path, transpose)
            if bias_path is not None:
                _unread_bias(arrays, chosen, len(weights), path, bias_path, note)
                return weights, None
            if bias_tensor is None:
                return weights, _found_bias(arrays, chosen, len(weights), path, note)
            return weights, _vector(_choose(arrays, bias_tensor, path, 1, "bias", _BIAS_OPTION),
                                    path)
    if tensor is not None or bias_tensor is not None:
        raise InputError("%s has no named arrays (tensors name arrays in .npz and .safetensors"
                         " files)" % path)
    text, extension = _text_file(path, extension)
    if extension == ".json":
        weights, bias = json_layer(text, path)
    else:
        weights, bias = delimited_rows(text, path, _SEPARATORS[extension], note), None
    return (_transposed(weights, path) if transpose else weights), bias


def _read_bias(path, tensor, note):
    extension = _extension(path)
    if extension in _ARRAY_FILES:
        handle, size = open_regular(path)
        with handle:
            return _vector(_choose(_ARRAY_FILES[extension](handle, size, path), tensor, path,
                                   1, "bias", _BIAS_OPTION), path)
    if tensor is not None:
        raise InputError("%s has no named arrays (tensors name arrays in .npz and .safetensors"
                         " files)" % path)
    text, extension = _text_file(path, extension)
    if extension == ".json":
        return json_bias(text, path)
    rows = delimited_rows(text, path, _SEPARATORS[extension], note)
    if all(len(row) == 1 for row in rows):
        return [row[0] for row in rows]
    if len(rows) == 1:
        return rows[0]
    raise InputError("%s: a bias is one number per class (one row or one column), not %d rows"
                     " of %d" % (path, len(rows), len(rows[0])))


def read_layer(path, bias_path=None, *, tensor=None, bias_tensor=None, transpose=False,
               note=None):
    """(weights, bias or None) read exactly from ``path`` and ``bias_path``.

    ``tensor`` and ``bias_tensor`` name arrays of an .npz or .safetensors
    file (the bias from ``bias_path`` if given, else from ``path``);
    ``transpose`` reads weights stored as (d, C).  A separate bias file must
    have one number per class.  ``-`` reads JSON or CSV from standard input
    (JSON if it starts with [ or {).  ``note``, if given, is called with a
    line of text for what the user should know but is not an error: a
    header row skipped, an array read as the bias without being named (the
    only 1-D array of one value per class in an .npz or .safetensors file
    with no bias file given), or d > C (the layer may be stored transposed).
    """
    if path == "-" and bias_path == "-":
        raise InputError("the layer and the bias cannot both come from standard input (-)")
    path = STDIN if path == "-" else path
    bias_path = STDIN if bias_path == "-" else bias_path
    weights, bias = _read_weights(path, tensor, bias_tensor if bias_path is None else None,
                                  transpose, note, bias_path)
    if bias_path is not None:
        if bias is not None:
            raise InputError("%s already has a bias; do not also pass --bias" % path)
        bias = _read_bias(bias_path, bias_tensor, note)
        if len(bias) != len(weights):
            raise InputError("%s has %d numbers for the %d classes of %s"
                             % (bias_path, len(bias), len(weights), path))
    if note is not None and len(weights[0]) > len(weights):
        note("%s: %d class%s of dimension d = %d > C: if the layer is stored as (d, C),"
             " read it transposed" % (path, len(weights), "" if len(weights) == 1 else "es",
                                      len(weights[0])))
    return weights, bias


def _c_order(flat, shape):
    """The flat list, in C order, of a Fortran-order array of ``shape``."""
    if len(shape) <= 1:
        return flat.tolist()
    # Fixing the first index of a Fortran-order array leaves one of the
    # remaining shape: every shape[0]-th value.
    values = []
    for i in range(shape[0]):
        values.extend(_c_order(flat[i::shape[0]], shape[1:]))
    return values


def read_npy(path):
    """(shape, flat list of values in C order) of a .npy file."""
    handle, size = open_regular(path)
    with handle:
        array, = _ARRAY_FILES[".npy"](handle, size, path)
        flat, fortran = array.load()
    if fortran and 0 not in array.shape:
        # An axis of length 1 does not change the order; without them each
        # level of _c_order at least halves what is left.
        return array.shape, _c_order(flat, [n for n in array.shape if n > 1])
    return array.shape, flat.tolist()
