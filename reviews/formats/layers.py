"""Reading a user's softmax layer from a file, exactly.

Formats, chosen by the file's extension:

    .json          {"weights": [[...], ...], "bias": [...]} (bias optional),
                   or just the list of rows
    .csv           one row of comma-separated numbers per class
    .tsv, .txt     the same, separated by tabs; by spaces and tabs, or by
                   semicolons (np.savetxt's defaults)
    .npy           one array: float16/32/64 or integers, either byte order,
                   C or Fortran order
    .npz           a zip of .npy arrays (np.savez, np.savez_compressed); an
                   array of one string per class names the classes
    .npz.xz        the same inside xz (reviews.formats.xz), and .npy.xz
    .txt .vec      also GloVe or word2vec text: a token and its numbers per
                   line (reviews.formats.embeddings)
    .safetensors   named tensors: F64, F32, F16, BF16 and integer types
    .bin .pt .pth  torch checkpoints (zip and legacy formats), read
                   without running them (reviews.formats.torch)
    .bin .ftz      fastText models, a .bin told by its magic number
                   (reviews.formats.fasttext)
    .h5 .hdf5      Keras models and other HDF5 files (reviews.formats.keras)
    a folder       a model: config.json and weights, shards through their
                   *.index.json (reviews.formats.folders)
    -              standard input: JSON if it starts with [ or {, else CSV

A first row of separated text with no number in it is a header, skipped
with a note.  A bias file has one number per class: a JSON list, one number per line or
all on one line, or a 1-D array.  Number text is read as the Decimal it
spells (0.9 is 9/10); arrays hold the floats or ints they store, and a
row of floats comes as an array.array ("f" for float32, float16 and
bfloat16, widened exactly; "d" for float64), a quarter to an eighth of a
list's memory (reviews.argmax reads such rows without a copy).  Files
with several arrays need the array named (``tensor``, ``bias_tensor``)
unless exactly one of them is 2-D or the model's output layer is found by
its name; a bias is found by name too, else it is the only array of one
value per class, (C,), (1, C) or (C, 1) (each choice with a note; see
reviews.formats.folders).  A bias of -inf masks its class.  A layer
stored as (d, C) is read with ``transpose=True``.

Limits: only regular files are read (not a FIFO, device or directory, even
behind a symbolic link); a text file has at most 64 MiB; an array at most
2**31 values and 32 dimensions, and a deflated .npz member at most 4 values
per compressed byte (or 2**16 values, if more); a .npy header at most
10,000 bytes; an .npz at most 4096 members; JSON nests at most 32 deep; a
number is within reviews.exact's MAX_BITS.  Past any of them, or on
any other problem, InputError names the file, the place (line and column, a
JSON path such as ``weights[3][1]``, a byte offset, an array) and the
problem.  See reviews.formats for each format.

    read_layer      (weights, bias or None) from a layer file and a bias file
    read_model      a Layer: weights, bias, the tensors and files read, tokens
    Layer, Tensor   what read_model returns
    read_npy        the shape and values of a .npy file
"""

import array as _array
import contextlib
import math
import os
from collections import namedtuple

from reviews.argmax.kernels.bfloat16 import BFloat16Rows
from reviews.errors import InputError
from reviews.formats.binary import Widened
from reviews.formats.folders import (ARRAY_READERS, BIAS_OPTION, UNNAMED, Model,
                                        bias_like, choose_array, choose_layer, folder_config,
                                        reader_kind, sibling_bias)
from reviews.formats.embeddings import embedding_rows
from reviews.formats.final_norm import feeding_norm, named_norm
from reviews.formats.heads import added_tokens
from reviews.formats.npy import class_names
from reviews.formats.source import STDIN, open_regular, read_text
from reviews.shown import excerpt, shown_shape
from reviews.formats.number_text import MASKED, delimited_rows
from reviews.formats.json_text import json_bias, json_layer
from reviews.formats.vocab import VOCAB_FILES, class_tokens, find_vocab, read_vocab

__all__ = ["read_layer", "read_model", "read_npy", "Layer", "Tensor"]

# Arrays of these stay arrays of floats when read (see _weight_rows).
_FLOAT_CODES = ("f", "d")
_SEPARATORS = {".csv": ",", ".tsv": "\t", ".txt": None, ".vec": None}
# Text files that may hold GloVe or word2vec vectors, a token per line.
_WORD_VECTORS = (".txt", ".vec")
_INDEX = ".index.json"
_NO_BIAS = "no bias is read (no_bias=True or --no-bias)"

Layer = namedtuple("Layer", "weights bias weights_tensor bias_tensor files tokens norm",
                   defaults=(None,))
Layer.__doc__ = """A layer as read: its weights and bias (or None), the Tensors they came
from (None for text), the paths of the files read, in order, and the
classes' tokens ({id: token}, None without a vocabulary)."""
Tensor = namedtuple("Tensor", "name dtype shape")
Tensor.__doc__ = "An array read: its name, its dtype as the file names it, its shape."


def _extension(path):
    if path == STDIN:
        return STDIN
    extension = reader_kind(path)
    if extension != ".json" and extension not in _SEPARATORS and extension not in ARRAY_READERS:
        # A missing file, a directory or a device is named as such first.
        open_regular(path)[0].close()
        raise InputError("%s: unknown file type %r (use .json, .csv, .tsv, .txt, .vec, .npy,"
                         " .npz, .npz.xz, .safetensors, .bin, .pt, .pth, .pkl, .pickle, .onnx,"
                         " .gguf, .ftz, .h5, .hdf5 or a spaCy component's model, or a model"
                         " folder)"
                         % (path, extension or "no extension"))
    return extension


def _finite(values, path, where, masked=False):
    """``values``, each finite (or, with ``masked``, -inf), else InputError."""
    # A finite sum is the common case, summed at C speed; an infinite one
    # (an overflow of finite values too) has each value looked at.
    try:
        if math.isfinite(sum(values)):
            return values
    except (OverflowError, TypeError):
        pass
    if not all(map(math.isfinite, values)):
        k = next((k for k, v in enumerate(values) if not math.isfinite(v)
                  and not (masked and v == MASKED)), None)
        if k is None:
            return values
        raise InputError("%s: %s[%d] is %r, not a finite number" % (path, where, k, values[k]))
    return values


def _weight_rows(array, path, transpose):
    """The rows of a 2-D array (its columns if ``transpose``), built once."""
    shape = array.shape
    if len(shape) == 1:
        raise InputError("%s: %s has shape %s: one number per class looks like a bias, not"
                         " weights" % (path, array.name if array.name == UNNAMED
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
    if fortran == transpose and isinstance(flat, Widened) and flat.kind == "bf16":
        # Kept as read, two bytes a value, each row widened when read: as
        # float32 rows Llama-3's head took 2 GB beside its 1 GB file.
        try:
            return BFloat16Rows(flat.little_endian(), width).checked()
        except InputError as error:
            raise InputError("%s: %s" % (path, error)) from None
    if fortran == transpose:
        parts = (flat[j * width:(j + 1) * width] for j in range(classes))
    else:
        parts = (flat[j::classes] for j in range(classes))
    if flat.format in _FLOAT_CODES:
        # A row of floats is an array.array, not a list: a list of Python
        # floats takes 4 to 8 times the array's memory (GPT-2's head: 1.2
        # GB, not 154 MB); the checker reads such rows as they are.
        rows = [_array.array(flat.format, part.tobytes()) for part in parts]
    else:
        rows = [part.tolist() for part in parts]
    for j, row in enumerate(rows):
        _finite(row, path, "weights[%d]" % j)
    return rows


def _vector(array, path):
    """The values of a 1-D array, or of a 2-D one with one row or column."""
    if len(array.shape) != 1 and not (len(array.shape) == 2 and 1 in array.shape):
        raise InputError("%s: a bias is one number per class, not shape %s"
                         % (path, shown_shape(array.shape)))
    return _finite(array.load()[0].tolist(), path, "bias", masked=True)


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


def _unread_bias(arrays, weights, classes, path, why, note):
    """A note for each array of one value per class left unread, and
    ``why``: dropping one silently would change the verdicts."""
    for array in bias_like(arrays, weights, classes):
        note("%s: array %s %s (one value per class) is not read: %s"
             % (path, excerpt(array.name), shown_shape(array.shape), why))


def _is_model(path):
    """True for what a Model reads: a folder, an index of shards or an array file."""
    return path != STDIN and (os.path.isdir(path) or path.endswith(_INDEX)
                              or _extension(path) in ARRAY_READERS)


def _classes(array, transpose):
    return array.shape[-1 if transpose else 0] if array.shape else 0


def _read_weights(path, tensor, bias_tensor, transpose, note, bias_path, no_bias, norm):
    """(Layer(weights, bias, weights_tensor, bias_tensor, files), oriented)
    of ``path``: oriented if the file says which axis holds the classes."""
    if norm not in (None, "auto") and not _is_model(path):
        raise InputError("%s has no named arrays: a norm's weight and bias are tensors of a"
                         " model, .npz or .safetensors file" % path)
    if _is_model(path):
        with contextlib.ExitStack() as stack:
            model = Model(path, stack)
            chosen, found = choose_layer(model, tensor, bias_tensor,
                                         lambda array: _classes(array, transpose), note,
                                         find_bias=bias_path is None and not no_bias)
            where = model.file_of(chosen.name)
            weights = _weight_rows(chosen, where, transpose)
            if bias_path is not None or no_bias:
                _unread_bias(model.arrays_beside(chosen.name), chosen, len(weights), where,
                             _NO_BIAS if no_bias else "the bias comes from %s" % bias_path, note)
            bias = None if found is None else _vector(found, model.file_of(found.name))
            width = len(weights[0])
            if norm == "auto":
                norm = (feeding_norm(model, chosen.name, width, note, path)
                        if model.config is not None else None)
            elif norm is not None:
                norm = named_norm(model, *norm, width)
            labels = model.labels or class_names(model.arrays_beside(chosen.name),
                                                      len(weights), where, note)
            return Layer(weights, bias, _tensor(chosen), _tensor(found), model.files,
                         labels, norm), model.shipped is not None
    if tensor is not None or bias_tensor is not None:
        raise InputError("%s has no named arrays (tensors name arrays in .npz and .safetensors"
                         " files)" % path)
    text, extension = _text_file(path, _extension(path))
    vectors = embedding_rows(text, path) if extension in _WORD_VECTORS else None
    if vectors is not None:
        if transpose:
            raise InputError("%s: word vectors (a token, then its numbers, per line) are one"
                             " class per line; they cannot be read transposed" % path)
        note("%s: read as word vectors: each line's first field is its class's token" % path)
        return Layer(vectors[0], None, None, None, [path], vectors[1]), True
    if extension == ".json":
        weights, bias = json_layer(text, path)
    else:
        weights, bias = delimited_rows(text, path, _SEPARATORS[extension], note), None
    return Layer(_transposed(weights, path) if transpose else weights, bias, None, None, [path],
                 None), False


def _tensor(array):
    """(name, dtype, shape) of an array read, or None."""
    return None if array is None else Tensor(array.name, array.dtype, tuple(array.shape))


def _read_bias(path, tensor, note):
    """(bias values, Tensor or None) of a bias file."""
    extension = _extension(path)
    if extension in ARRAY_READERS:
        handle, size = open_regular(path)
        with handle:
            array = choose_array(ARRAY_READERS[extension](handle, size, path), tensor, path,
                                 1, "bias", BIAS_OPTION)
            return _vector(array, path), _tensor(array)
    if tensor is not None:
        raise InputError("%s has no named arrays (tensors name arrays in .npz and .safetensors"
                         " files)" % path)
    text, extension = _text_file(path, extension)
    if extension == ".json":
        return json_bias(text, path), None
    rows = delimited_rows(text, path, _SEPARATORS[extension], note, masked=True)
    if all(len(row) == 1 for row in rows):
        return [row[0] for row in rows], None
    if len(rows) == 1:
        return rows[0], None
    raise InputError("%s: a bias is one number per class (one row or one column), not %d rows"
                     " of %d" % (path, len(rows), len(rows[0])))


def read_layer(path, bias_path=None, *, tensor=None, bias_tensor=None, transpose=False,
               no_bias=False, binary=False, note=None):
    """(weights, bias or None) read exactly from ``path`` and ``bias_path``.

    ``path`` is a layer file, or a model: a folder with config.json and its
    weights, an ``*.index.json`` of shards, or a weights file.  ``tensor``
    and ``bias_tensor`` name arrays of a model, .npz or .safetensors file
    (the bias from ``bias_path`` if given, else from ``path``); unnamed,
    they are found as reviews.formats.folders says, and weights named
    keep the bias beside them by name.  ``no_bias`` reads no bias at all,
    for W x alone.  ``transpose`` reads weights stored as (d, C).  A
    separate bias file must have one number per class.  ``-`` reads JSON
    or CSV from standard input (JSON if it starts with [ or {).  With
    ``binary``, a layer of one row is read as the two rows of its binary
    decision (see read_model).  ``note``, if given, is called with a line of text for what the user
    should know but is not an error: a header row skipped, an array chosen
    without being named (an output layer or its bias), an array of one
    value per class left unread, d > C (the layer may be stored
    transposed), or a layer of one row read as a binary decision.
    """
    layer = read_model(path, bias_path, tensor=tensor, bias_tensor=bias_tensor,
                       transpose=transpose, no_bias=no_bias, binary=binary, note=note)
    return layer.weights, layer.bias


def read_model(path, bias_path=None, *, tensor=None, bias_tensor=None, transpose=False,
               no_bias=False, binary=False, vocab=None, note=None, norm=None):
    """Layer(weights, bias, weights_tensor, bias_tensor, files, tokens, norm):
    what read_layer reads, with the tensors chosen (Tensor(name, dtype,
    shape), None for text), the files read, in order, the tokens of the
    vocabulary file ``vocab`` (reviews.formats.vocab), or of a model
    folder's own tokenizer file if it has one, and the final norm that
    feeds the head: with ``norm`` "auto", the one a model folder's
    config.json names (reviews.formats.final_norm, with a note either way);
    with ("layernorm" or "rmsnorm", weight name, bias name), the one read
    from those tensors of the model (None: weight 1, bias 0); else None.

    A head of one output is a binary decision, logit > 0 (a sigmoid above
    1/2), not a softmax of one class: with ``binary`` (as check-layer reads
    layers) it is read as the two classes of that decision, "logit > 0"
    (its row w and bias b) and "logit < 0" (a row of zeros and bias 0),
    whose argmax is the decision, so that each verdict says whether some
    input reaches that side."""
    for what, value in (("path", path), ("bias_path", bias_path), ("tensor", tensor),
                        ("bias_tensor", bias_tensor), ("vocab", vocab)):
        if not (isinstance(value, str) or value is None and what != "path"):
            raise TypeError("%s must be a str%s, not %s" % (
                what, "" if what == "path" else " or None", type(value).__name__))
    for what, value in (("no_bias", no_bias), ("binary", binary)):
        if not isinstance(value, bool):
            raise TypeError("%s must be a bool, not %s" % (what, type(value).__name__))
    if no_bias and (bias_path is not None or bias_tensor is not None):
        raise InputError("no_bias=True (--no-bias) reads no bias: do not also name one (%s)"
                         % ("bias_path, --bias" if bias_path is not None
                            else "bias_tensor, --bias-tensor"))
    if path == "-" and bias_path == "-":
        raise InputError("the layer and the bias cannot both come from standard input (-)")
    if vocab == "-":
        raise InputError("%s: the tokens are not read from standard input (vocab=\"-\" or"
                         " --vocab -): a vocabulary's format is told by its file's name; name"
                         " the file" % STDIN)
    note = note or (lambda line: None)
    path = STDIN if path == "-" else path
    bias_path = STDIN if bias_path == "-" else bias_path
    layer, oriented = _read_weights(path, tensor, bias_tensor if bias_path is None else None,
                                    transpose, note, bias_path, no_bias, norm)
    if no_bias and layer.bias is not None:   # a JSON layer's "bias"
        note("%s: its bias is not read: %s" % (path, _NO_BIAS))
        layer = layer._replace(bias=None)
    weights = layer.weights
    if bias_path is not None:
        if layer.bias is not None:
            raise InputError("%s already has a bias; do not also pass --bias" % path)
        bias, bias_array = _read_bias(bias_path, bias_tensor, note)
        if len(bias) != len(weights):
            raise InputError("%s has %d numbers for the %d classes of %s"
                             % (bias_path, len(bias), len(weights), path))
        layer = layer._replace(bias=bias, bias_tensor=bias_array,
                               files=layer.files + [bias_path])
    if layer.tokens is not None and vocab is None and os.path.isdir(path):
        if not oriented:   # a file naming its own head said where its names come from
            note("%s: classes named by config.json's id2label" % path)
    elif vocab is None and path != STDIN and os.path.isdir(path):
        vocab = find_vocab(path)
        if vocab is not None:
            note("%s: tokens read from %s" % (path, vocab))
        else:
            note("%s: no tokens: the folder has none of the vocabulary files read (%s); name"
                 " one with vocab=... or --vocab" % (path, ", ".join(VOCAB_FILES)))
    if vocab is not None:   # it names the classes, even of word vectors
        tokens = read_vocab(vocab)
        if path != STDIN and os.path.isdir(path):
            added = added_tokens(folder_config(path), len(tokens))
            if added:
                note("%s: %d tokens the tokenizer adds past %s named too (%s to %s)"
                     % (path, len(added), vocab, added[min(added)], added[max(added)]))
                tokens = {**added, **tokens}
        layer = layer._replace(tokens=class_tokens(tokens, len(weights), vocab, note),
                               files=layer.files + [vocab])
    # A bias paired with the weights by name, of one value per row, says the rows are classes.
    paired = (layer.weights_tensor is not None and layer.bias_tensor is not None
              and layer.bias_tensor.name == sibling_bias(layer.weights_tensor.name))
    if len(weights[0]) > len(weights) and not (oriented or transpose) and not paired:
        note("%s: %d class%s of dimension d = %d > C: if the layer is stored as (d, C),"
             " read it transposed" % (path, len(weights), "" if len(weights) == 1 else "es",
                                      len(weights[0])))
    if binary and len(weights) == 1:
        layer = _binary_decision(layer, path, note)
    return layer


def _binary_decision(layer, path, note):
    """A head of one output as the two classes of its decision: logit > 0
    (its row w and bias b) and logit < 0 (a row of zeros, bias 0), whose
    argmax is that decision; a note says so."""
    row = layer.weights[0]
    if isinstance(row, _array.array):
        zeros = _array.array(row.typecode, bytes(row.itemsize * len(row)))
    else:
        zeros = [0] * len(row)
    named = (layer.tokens or {}).get(0)
    tokens = ({0: "logit > 0", 1: "logit < 0"} if named is None else
              {0: "%s (logit > 0)" % named, 1: "not %s (logit < 0)" % named})
    note("%s: one output: a binary decision, logit > 0 (a sigmoid above 1/2), not a softmax of"
         " one class; read as two classes, 0 %r (the head's row and bias) and 1 %r (zeros),"
         " whose argmax is that decision: each is argmaxable where some input reaches its side"
         % (path, tokens[0], tokens[1]))
    return layer._replace(weights=[row, zeros],
                          bias=None if layer.bias is None else list(layer.bias) + [0],
                          tokens=tokens)


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
        array, = ARRAY_READERS[".npy"](handle, size, path)
        flat, fortran = array.load()
    if fortran and 0 not in array.shape:
        # An axis of length 1 does not change the order; without them each
        # level of _c_order at least halves what is left.
        return array.shape, _c_order(flat, [n for n in array.shape if n > 1])
    return array.shape, flat.tolist()
