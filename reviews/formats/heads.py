"""The head a model folder's forward pass uses, found by rule from config.json.

reviews.formats.folders finds a language model's output layer by its
usual names first.  What a folder's config.json says comes before and after
those names:

* A classifier (``architectures`` naming a ``...ForSequenceClassification``,
  ``...ForTokenClassification`` or another ``...Classification`` model) has
  its classification layer as head, not the word embedding: the 2-D array
  of ``num_labels`` rows (one per entry of ``id2label``), preferring a name
  that says so (``classifier``, ``score``, ``out_proj``, ...) over others of
  that shape (BERT's token-type embedding has 2 rows too).  Its classes are
  named by ``id2label``, not by the tokenizer.
* MobileBERT's masked-language head multiplies by the concatenation, along
  d, of its word embedding (V x e) and ``cls.predictions.dense.weight``
  transposed (V x (d - e)): its head is that V x d matrix, made from both.
* A language model whose head has no usual name has as head the 2-D array
  of ``vocab_size`` rows (``tgt_vocab_size`` for a translation model's
  target side), the input embedding left out where config.json unties it;
  several that hold the same values are one (a tied head stored twice).

Two arrays that could be the head and differ are an error that lists them
with why each fits.

    classifier_labels   (num_labels, {id: label}) of a classifier's config.json, or None
    added_tokens        {id: token} a model's tokenizer adds past its vocabulary file
    classifier_head     the name of a classifier's head (a note says why)
    head_by_rows        the name of the only matrix of vocab_size rows, or None
    concatenated_head   MobileBERT's head, made from its two stored matrices
"""

import array as _array
import decimal

from reviews.errors import InputError
from reviews.formats.binary import Array
from reviews.shown import excerpt, shown_shape

__all__ = ["classifier_labels", "classifier_head", "head_by_rows", "concatenated_head",
           "added_tokens"]

# What transformers calls a model with a classification head, by the end of its name.
_CLASSIFIERS = ("ForSequenceClassification", "ForTokenClassification",
                "ForImageClassification", "ForAudioClassification", "ForMultipleChoice")
# The words a classification layer's name holds, in the common architectures.
_CLASSIFIER_WORDS = ("classifier", "score", "out_proj", "logits", "head", "fc")
_LISTED = 6
# M2M100's language codes, in the order its tokenizer numbers its language
# tokens "__xx__" after vocab.json (transformers' FAIRSEQ_LANGUAGE_CODES["m2m100"]).
_M2M100_LANGUAGES = (
    "af am ar ast az ba be bg bn br bs ca ceb cs cy da de el en es et fa ff fi fr fy ga gd gl gu"
    " ha he hi hr ht hu hy id ig ilo is it ja jv ka kk km kn ko lb lg ln lo lt lv mg mk ml mn mr"
    " ms my ne nl no ns oc or pa pl ps pt ro ru sd si sk sl so sq sr ss su sv sw ta th tl tn tr uk"
    " ur uz vi wo xh yi yo zh zu").split()
# The labels of a classifier whose config.json names neither id2label nor num_labels.
_DEFAULT_LABELS = 2
# MobileBERT's head (transformers' MobileBertLMPredictionHead) multiplies by
# cat([decoder.weight.t(), dense.weight], dim=0); the decoder is tied to the
# word embedding unless config.json says tie_word_embeddings = false.
_DENSE = "cls.predictions.dense.weight"
_DECODER, _EMBEDDING = ("cls.predictions.decoder.weight",
                        "mobilebert.embeddings.word_embeddings.weight")


def classifier_labels(config):
    """(num_labels, {id: label} or None) where config.json names a
    classification model, else None; transformers' default of 2 labels
    where config.json names neither id2label nor num_labels.

    >>> classifier_labels({"architectures": ["BertForSequenceClassification"],
    ...                    "id2label": {"0": "NEG", "1": "POS"}})
    (2, {0: 'NEG', 1: 'POS'})
    >>> classifier_labels({"architectures": ["GPT2LMHeadModel"]}) is None
    True
    >>> classifier_labels({"architectures": ["RobertaForSequenceClassification"]})
    (2, None)
    """
    if not isinstance(config, dict):
        return None
    architectures = config.get("architectures")
    if not (isinstance(architectures, list)
            and any(isinstance(a, str) and a.endswith(_CLASSIFIERS) for a in architectures)):
        return None
    labels = config.get("id2label")
    if isinstance(labels, dict) and labels and all(
            isinstance(k, str) and k.isdigit() and isinstance(v, str) for k, v in labels.items()):
        named = {int(k): v for k, v in labels.items()}
        if sorted(named) == list(range(len(named))):
            return len(named), named
    count = config.get("num_labels")
    if isinstance(count, decimal.Decimal) and count == int(count) and 0 < count < 2 ** 31:
        return int(count), None
    if labels is None and count is None:
        # transformers 5 writes neither for its default of 2 labels.
        return _DEFAULT_LABELS, None
    return None


def _last_words(name):
    return name.rsplit(".", 2)[-2:]


def classifier_head(model, labels, note):
    """The name of the head of a classifier of ``labels`` classes (a note
    says why it was chosen), or InputError listing the candidates."""
    where = model.path
    matrices = [a for a in model.all_arrays() if len(a.shape) == 2]
    rows = [a for a in matrices if a.shape[0] == labels]
    named = [a for a in rows if "embedding" not in a.name
             and any(word in part for part in _last_words(a.name) for word in _CLASSIFIER_WORDS)]
    chosen = named if named else rows
    if len(chosen) == 1:
        note("%s: weights %s %s: config.json names a classifier of %d labels, and this is its"
             " classification layer%s" % (where, excerpt(chosen[0].name),
                                           shown_shape(chosen[0].shape), labels,
                                           "" if named else " (the only matrix of that many rows)"))
        return chosen[0].name
    if not chosen:
        raise InputError("%s: config.json names a classifier of %d labels, but no matrix has %d"
                         " rows; name the classification layer with tensor=... or --tensor"
                         % (where, labels, labels))
    raise InputError("%s: config.json names a classifier of %d labels, and %d matrices could be"
                     " its layer: %s; name one with tensor=... or --tensor"
                     % (where, labels, len(chosen), _why(chosen, "%d rows" % labels)))


def head_by_rows(model, config, untied, note, prefix=""):
    """The name of the head by its rows (``vocab_size``; a note says why),
    among the arrays whose names start with ``prefix`` (a composite's
    decoder's); None where config.json gives no vocabulary size or no
    matrix has it, or InputError listing the candidates that differ."""
    size = None
    for key in ("vocab_size", "tgt_vocab_size"):
        value = config.get(key) if isinstance(config, dict) else None
        if isinstance(value, decimal.Decimal) and value == int(value) and value > 0:
            size, key_used = int(value), key
    if size is None:
        return None
    found = [a for a in model.all_arrays() if len(a.shape) == 2 and a.shape[0] == size
             and a.name.startswith(prefix) and not (untied and "embed" in a.name)]
    if not found:
        return None
    distinct = _distinct(found)
    if len(distinct) > 1:
        raise InputError("%s: %d matrices of %s = %d rows differ, and none has an output"
                         " layer's usual name: %s; name the output layer with tensor=... or"
                         " --tensor" % (model.path, len(distinct), key_used, size,
                                        _why(distinct, "%s rows" % key_used)))
    note("%s: weights %s %s: no array has an output layer's usual name, and this is the matrix"
         " of %s = %d rows%s" % (model.path, excerpt(found[0].name),
                                 shown_shape(found[0].shape), key_used, size,
                                 ", the same values as %s" % ", ".join(
                                     excerpt(a.name) for a in found[1:]) if found[1:] else ""))
    return found[0].name


def concatenated_head(model, config, tensor, note):
    """MobileBERT's head as one Array, concat(decoder weight, dense
    weight^T) along d, where ``tensor`` is None (a note says why) or its
    name; None for another model or another tensor (a note where that
    tensor is only the head's first columns).  InputError where the parts
    are missing or do not fit."""
    names = set(model.names)
    if _DENSE not in names:
        return None
    untied = isinstance(config, dict) and config.get("tie_word_embeddings") is False
    first = next((name for name in (_DECODER,) + (() if untied else (_EMBEDDING,))
                  if name in names), None)
    name = "concat(%s, %s.T)" % (first or _DECODER, _DENSE)
    if tensor in (_DECODER, _EMBEDDING):
        note("%s: array %s is only the first columns of MobileBERT's head, %s; without"
             " tensor=... or --tensor the whole head is read" % (model.path,
                                                                  excerpt(tensor), name))
    if tensor not in (None, name):
        return None
    where = model.path
    if first is None:
        raise InputError("%s: MobileBERT's head multiplies by %s, and the model has no %s%s;"
                         " name the weights with tensor=... or --tensor" % (
                             where, name, excerpt(_DECODER),
                             "" if untied else " nor " + excerpt(_EMBEDDING)))
    embedding = model.array(first, "weights", "tensor=... or --tensor")
    dense = model.array(_DENSE, "weights", "tensor=... or --tensor")
    if (len(embedding.shape) != 2 or len(dense.shape) != 2
            or dense.shape[1] != embedding.shape[0] or dense.dtype != embedding.dtype):
        raise InputError("%s: MobileBERT's head multiplies by %s, but %s %s %s and %s %s %s do"
                         " not fit (V x e and (d - e) x V, one dtype)" % (
                             where, name, excerpt(first), shown_shape(embedding.shape),
                             embedding.dtype, excerpt(_DENSE), shown_shape(dense.shape),
                             dense.dtype))
    classes, width = embedding.shape[0], embedding.shape[1] + dense.shape[0]
    note("%s: weights %s (%d, %d): MobileBERT's head, which multiplies by the concatenation"
         " of %s %s and %s %s transposed, not by either alone"
         % (where, excerpt(name), classes, width, excerpt(first),
            shown_shape(embedding.shape), excerpt(_DENSE), shown_shape(dense.shape)))
    head = Array(name, (classes, width), embedding.dtype,
                 lambda: (_concatenated(embedding, dense, where), False))
    model.derive(head, first)
    return head


def _concatenated(first, second, where):
    """The flat values, in C order, of the rows of ``first`` (V x e), each
    followed by the column of ``second`` ((d - e) x V) of its class."""
    (flat, fortran), (other, other_fortran) = first.load(), second.load()
    if flat.format != other.format:
        raise InputError("%s: %s and %s are read as different kinds of numbers"
                         % (where, excerpt(first.name), excerpt(second.name)))
    classes, width = first.shape
    depth = second.shape[0]
    parts = []
    for c in range(classes):
        parts.append((flat[c::classes] if fortran else flat[c * width:(c + 1) * width])
                     .tobytes())
        parts.append((other[c * depth:(c + 1) * depth] if other_fortran
                      else other[c::classes]).tobytes())
    values = _array.array(flat.format)
    values.frombytes(b"".join(parts))
    return memoryview(values)


def _distinct(arrays):
    """The arrays, one of each set that holds the same values (compared as
    stored, so that a large matrix costs its bytes, not a list of floats)."""
    kept, stored = [], []
    for array in arrays:
        flat = array.load()[0]
        data = (array.dtype, flat.tobytes() if hasattr(flat, "tobytes") else bytes(flat))
        if data not in stored:
            kept.append(array)
            stored.append(data)
    return kept


def _why(arrays, fits):
    shown = ", ".join("%s %s (%s)" % (excerpt(a.name), shown_shape(a.shape), fits)
                      for a in arrays[:_LISTED])
    return shown + (" and %d more" % (len(arrays) - _LISTED) if len(arrays) > _LISTED else "")


def added_tokens(config, read):
    """{id: token} that the tokenizer of config.json's model adds past the
    ``read`` tokens of its vocabulary file: M2M100's language tokens
    ("__en__"), numbered from the vocabulary's size; {} for other models.

    >>> added_tokens({"model_type": "m2m_100"}, 3)[3], len(added_tokens({"model_type": "m2m_100"}, 3))
    ('__af__', 100)
    """
    if not isinstance(config, dict) or config.get("model_type") != "m2m_100":
        return {}
    return {read + k: "__%s__" % code for k, code in enumerate(_M2M100_LANGUAGES)}
