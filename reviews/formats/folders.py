"""Which arrays of a model are its softmax layer: folders, shards and names.

A model comes as a hub ships it: a folder with ``config.json``, the weights
(``model.safetensors``, ``pytorch_model.bin``, or shards listed by a
``*.index.json``) and its tokenizer.  The output layer is found as a person
would find it: an untied head stored under its usual name (``lm_head.weight``,
``lm_head.decoder.weight``, ...), else, when config.json does not say
``tie_word_embeddings = false``, the input embedding it is tied to
(``transformer.wte.weight``, ...).  Its bias: for weights ``X.weight``,
``X.bias`` (a Linear layer's own); else by name (``final_logits_bias``,
...), else the only array of one value per class beside the weights.  Each
choice made without the user is said in a note; two candidates that differ
are an error that lists them, and so is ``X.bias`` of another length.  A
config.json that caps the logits (``final_logit_softcapping``) or scales
them (a tied T5 head) gets a note: both are increasing functions of the
logits, so the verdicts hold for the model's own logits too.  Shards are
opened only for the tensors used.

    ARRAY_READERS   the readers of array files, by kind (reader_kind)
    reader_kind     the key of a file's reader: its extension, or "model" for a spaCy model
    Model      a model's named tensors across its files
    choose_layer    (weights Array, bias Array or None) of a Model
    choose_array    one Array by name, or the only one of some dimensions
    bias_like       the arrays of one value per class beside the weights
    sibling_bias    the name of the bias beside weights by the usual pairs of names
    model_files     every file of a model's folder (none may be replaced by a report)
    folder_config   config.json's object of a model folder, or None
"""

import decimal
import math
import os
import re

from reviews.errors import InputError
from reviews.formats.binary import Arrays
from reviews.formats.heads import (classifier_head, classifier_labels, concatenated_head,
                                   head_by_rows)
from reviews.formats.npy import npy_arrays, npz_arrays
from reviews.formats.safetensors import safetensors_arrays
from reviews.formats.source import open_regular, read_text
from reviews.shown import excerpt, shown_number, shown_shape
from reviews.formats.json_text import describe_json, parse_json
from reviews.formats.fasttext import fasttext_arrays, fasttext_or
from reviews.formats.gguf import gguf_arrays
from reviews.formats.keras import keras_arrays
from reviews.formats.numpy_pickle import numpy_pickle_arrays
from reviews.formats.onnx import onnx_arrays
from reviews.formats.thinc import thinc_arrays
from reviews.formats.torch import torch_arrays
from reviews.formats.vocab import class_tokens
from reviews.formats.xz import xz_arrays

__all__ = ["ARRAY_READERS", "reader_kind", "Model", "choose_layer", "choose_array", "bias_like",
           "sibling_bias", "model_files", "folder_config"]

# A spaCy pipeline component's folder keeps its weights in this file.
_COMPONENT_MODEL = "model"
# A .npy file's one array has no name: messages call it this.
UNNAMED = "the array"
ARRAY_READERS = {".npy": lambda handle, size, path: npy_arrays(handle, size, path, UNNAMED),
                 ".npz": npz_arrays, ".safetensors": safetensors_arrays,
                 ".bin": fasttext_or(torch_arrays), ".pt": torch_arrays, ".pth": torch_arrays,
                 ".pkl": numpy_pickle_arrays, ".pickle": numpy_pickle_arrays,
                 ".onnx": onnx_arrays, ".gguf": gguf_arrays, _COMPONENT_MODEL: thinc_arrays,
                 ".xz": xz_arrays, ".ftz": fasttext_arrays, ".h5": keras_arrays,
                 ".hdf5": keras_arrays}
WEIGHTS_OPTION = "tensor=... or --tensor"
BIAS_OPTION = "bias_tensor=... or --bias-tensor"
# Where a bias was chosen for the user: how to name another, or none.
_OTHER_BIAS = "name another with %s, or none with no_bias=True or --no-bias" % BIAS_OPTION
_LISTED = 12

# The weights files of a folder, in the order they are looked for.
_WEIGHTS_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                  "pytorch_model.bin.index.json")
_INDEX = ".index.json"
# Output layers stored as such, then the input embeddings a tied head reuses,
# then the heads' biases: the names the common architectures give them.
_HEADS = ("lm_head.weight", "embed_out.weight", "output.weight",
          "cls.predictions.decoder.weight", "lm_head.decoder.weight", "vocab_projector.weight",
          "generator_lm_head.weight", "proj_out.weight", "output_projection.weight")
_EMBEDDINGS = ("transformer.wte.weight", "model.embed_tokens.weight",
               "model.decoder.embed_tokens.weight", "model.shared.weight", "shared.weight",
               "bert.embeddings.word_embeddings.weight", "gpt_neox.embed_in.weight",
               "transformer.word_embeddings.weight", "roberta.embeddings.word_embeddings.weight",
               "distilbert.embeddings.word_embeddings.weight",
               "electra.embeddings.word_embeddings.weight", "embed_tokens.weight",
               "tok_embeddings.weight", "wte.weight")
_BIASES = ("final_logits_bias", "cls.predictions.bias", "lm_head.bias", "embed_out.bias",
           "output.bias", "cls.predictions.decoder.bias")
# Words of the names of heads' biases (outside numbered blocks), in any shard.
_HEAD_WORDS = ("predictions", "decoder", "lm_head", "cls", "output", "logits", "head",
               "classifier", "score", "generator_lm_head", "vocab_projector")
# A layer's weights and its bias, by the last part of their names (after ".",
# "/" or "_", before a Keras ":0"): torch's weight and bias, thinc's W and b,
# Keras's kernel and bias, g2p-en's fc_w and fc_b.
_SIBLING = re.compile(r"(.*[./_])(weight|W|kernel|w)(:[0-9]+)?")
_BIAS_OF = {"weight": "bias", "W": "b", "kernel": "bias", "w": "b"}
# Composite models (transformers' EncoderDecoderModel and its vision and
# speech kin) keep their decoder's config under "decoder" in config.json,
# and its tensors under "decoder.": the model's head is the decoder's.
_COMPOSITES = ("encoder-decoder", "vision-encoder-decoder", "speech-encoder-decoder")
_DECODER = "decoder"
# Models whose tied head scales the decoder's output by d_model ** -0.5.
_SCALED_WHEN_TIED = ("t5", "mt5", "umt5")


def reader_kind(path):
    """The key of ``path``'s reader in ARRAY_READERS (or of its text
    format): its extension in lower case; a spaCy component's file named
    ``model``, which has none, is "model".

    >>> reader_kind("W.NPY"), reader_kind("ner/model"), reader_kind("README")
    ('.npy', 'model', '')
    """
    if os.path.basename(path) == _COMPONENT_MODEL:
        return _COMPONENT_MODEL
    return os.path.splitext(path)[1].lower()


def sibling_bias(name):
    """The name of the bias beside the weights ``name`` by the usual pairs
    of names, or None.

    >>> sibling_bias("lm_head.weight"), sibling_bias("output_layer.W"), sibling_bias("fc_w")
    ('lm_head.bias', 'output_layer.b', 'fc_b')
    >>> sibling_bias("dense/kernel:0"), sibling_bias("enc_w_ih")
    ('dense/bias:0', None)
    """
    match = _SIBLING.fullmatch(name)
    if match is None:
        return None
    return match[1] + _BIAS_OF[match[2]] + (match[3] or "")


def listing(arrays):
    """The arrays' names, shapes and dtypes, at most 12 of them, for a message."""
    shown = ["%s %s %s" % (excerpt(a.name), shown_shape(a.shape), a.dtype)
             for a in arrays[:_LISTED]]
    if len(arrays) > _LISTED:
        shown.append("and %d more" % (len(arrays) - _LISTED))
    return "; ".join(shown)


def _likely(arrays, dimensions):
    """The arrays with ``dimensions`` axes first, largest first: a model's
    head is not listed after a dozen layer norms."""
    return sorted(arrays, key=lambda array: (len(array.shape) != dimensions,
                                             -math.prod(array.shape)))


def _candidates(arrays, dimensions, other=None):
    """The arrays that may be the one of ``dimensions`` axes nobody named."""
    if len(arrays) <= 1:
        return arrays
    candidates = [a for a in arrays if len(a.shape) == dimensions and a.name != other]
    if len(candidates) > 1 and dimensions == 2:
        # A (1, C) or (C, 1) array beside a layer is its bias, not a layer.
        candidates = [a for a in candidates if 1 not in a.shape] or candidates
    return candidates


def choose_array(arrays, name, path, dimensions, what, option, other=None):
    """The array called ``name``; without a name, the only one, or else the
    only one with ``dimensions`` axes that is not called ``other`` (a (1, C)
    or (C, 1) array beside a layer is its bias, not a layer).

    >>> from reviews.formats.binary import Array
    >>> head, bias = Array("head", (5, 2), "F32", None), Array("b", (1, 5), "F32", None)
    >>> choose_array([bias, head], None, "m.safetensors", 2, "weights", WEIGHTS_OPTION).name
    'head'
    """
    if name is not None:
        for array in arrays:
            if array.name == name:
                return array
        raise InputError("%s has no array %s; it has: %s"
                         % (path, excerpt(name), listing(_likely(arrays, dimensions))))
    candidates = _candidates(arrays, dimensions, other)
    if len(candidates) == 1:
        return candidates[0]
    if not arrays:
        raise InputError("%s holds no arrays" % path)
    raise InputError("%s holds %d arrays; name the %s (%s): %s"
                     % (path, len(arrays), what, option, listing(_likely(arrays, dimensions))))


def _per_class(classes):
    """The shapes of one value per class."""
    return (classes,), (1, classes), (classes, 1)


def bias_like(arrays, weights, classes):
    """The arrays other than ``weights`` of one value per class: shape (C,),
    (1, C) or (C, 1), as model files keep a head's bias.

    >>> from reviews.formats.binary import Array
    >>> head, bias, norm = (Array(name, shape, "F32", None) for name, shape in
    ...                     (("head", (5, 2)), ("logits_bias", (1, 5)), ("norm", (2,))))
    >>> [a.name for a in bias_like([head, bias, norm], head, 5)]
    ['logits_bias']
    """
    return [a for a in arrays if a is not weights and a.name != weights.name
            and tuple(a.shape) in _per_class(classes)]


def _found_bias(arrays, weights, classes, model, note):
    """The only array of one value per class beside the weights (or several
    that hold the same values), as a model file keeps a head's bias (said in
    a note); None if there is none (also said); InputError listing them if
    several differ."""
    candidates = bias_like(arrays, weights, classes)
    owned = [a for a in candidates if _another_layers(a, arrays, weights)]
    candidates = [a for a in candidates if a not in owned]
    # Equal copies are one bias (ALBERT keeps predictions.bias and its copy
    # predictions.decoder.bias): dropping both would check a layer with none.
    copies = len(candidates) > 1 and _equal_values(candidates)
    path = model.file_of(weights.name)
    if len(candidates) == 1 or copies:
        note("%s: array %s %s (one value per class) is read as the bias%s; %s"
             % (model.file_of(candidates[0].name), excerpt(candidates[0].name),
                shown_shape(candidates[0].shape),
                ", the same values as %s" % ", ".join(excerpt(a.name) for a in candidates[1:])
                if copies else "", _OTHER_BIAS))
        return candidates[0]
    others = [a for a in arrays if a is not weights and len(a.shape) == 1]
    if candidates:
        raise InputError("%s: %d arrays of one value per class differ, and any could be the"
                         " head's bias: %s; name it with %s"
                         % (path, len(candidates), listing(candidates), BIAS_OPTION))
    if owned:
        note("%s: no bias read: %s, of one value per class, %s its own layer's (the .weight"
             " beside it is not the head)" % (path, listing(owned),
                                               "is" if len(owned) == 1 else "are each"))
    elif others:
        note("%s: no bias read: no array has one value for each of the %d classes (%s)"
             % (path, classes, listing(others)))
    return None


def _another_layers(array, arrays, weights):
    """Whether ``array`` is X.bias beside an X.weight that is not the head
    (other values than its weights): another layer's own bias, of as many
    values as the head has classes only by chance (GPT-2's attention,
    C = 3 d).  A copy of the head keeps its bias (ALBERT's
    predictions.decoder)."""
    if not array.name.endswith(".bias"):
        return False
    name = array.name[:-len("bias")] + "weight"
    sibling = next((a for a in arrays if a.name == name), None)
    if sibling is None or sibling.name == weights.name:
        return False
    return not _equal_values([sibling, weights])


def _equal_values(arrays):
    """Whether the arrays hold the same values."""
    values = [array.load()[0].tolist() for array in arrays]
    return all(other == values[0] for other in values[1:])


def _plain_name(name, index):
    """A shard's file name from an index: a name in the index's own folder."""
    if (not isinstance(name, str) or not name.isprintable() or name in (".", "..")
            or "/" in name or "\\" in name or os.path.splitext(name)[1] not in ARRAY_READERS):
        raise InputError("%s: weight_map names the file %s; expected a .safetensors or .bin"
                         " file name in the same folder" % (index, describe_json(name)))
    return name


def _json_object(path, files):
    files.append(path)
    document = parse_json(read_text(path), path)
    if not isinstance(document, dict):
        described = describe_json(document)
        raise InputError("%s: the document is %s%s" % (
            path, described, "" if described.startswith("an object") else
            "; expected a JSON object"))
    return document


def folder_config(folder):
    """config.json's object of a model folder, or None where it has none."""
    path = os.path.join(folder, "config.json")
    return _json_object(path, []) if os.path.isfile(path) else None


def model_files(path):
    """The files of the model folder ``path``, or of the folder of the index
    ``path``: the shards a check never opens, config.json and the tokenizer
    too, none of which a report may replace; () for any other path.

    >>> model_files("layer.csv")
    ()
    """
    if os.path.isdir(path):
        folder = path
    elif path.endswith(_INDEX):
        folder = os.path.dirname(path) or "."
    else:
        return ()
    try:
        return tuple(os.path.join(folder, name) for name in sorted(os.listdir(folder)))
    except OSError:
        return ()   # the reader names what is wrong with the folder


class Model:
    """A model's named tensors across its files.

    ``path`` is a folder (its config.json, if any, and its weights: the
    first of model.safetensors, its index, pytorch_model.bin, its index), an
    ``*.index.json`` of shards, or one weights file.  ``stack`` (an
    ExitStack) closes the files opened.  ``files`` lists the files read, in
    order; ``config`` is config.json's object, or None.
    """

    def __init__(self, path, stack):
        self.path, self._stack, self.files, self.config = path, stack, [], None
        self.labels = None      # a classifier's {id: label}, once its head is chosen
        self._arrays = {}       # file -> its [Array], for the files opened
        self._where = None      # tensor name -> shard file, for an index
        self._derived = {}      # a head made of stored arrays: name -> (Array, a part's name)
        if os.path.isdir(path):
            config = os.path.join(path, "config.json")
            if os.path.isfile(config):
                self.config = _json_object(config, self.files)
            path = self._weights_file(path)
        self.weights_path = path
        if path.endswith(_INDEX):
            self._read_index(path)
        else:
            self._open(path)

    def _weights_file(self, folder):
        for name in _WEIGHTS_FILES + (_COMPONENT_MODEL,):
            if os.path.isfile(os.path.join(folder, name)):
                return os.path.join(folder, name)
        found = sorted(name for name in os.listdir(folder)
                       if os.path.splitext(name)[1] in (".safetensors", ".bin", ".pt", ".pth"))
        if len(found) == 1:
            return os.path.join(folder, found[0])
        raise InputError("cannot read %s: it is a directory without a weights file (%s, or"
                         " a spaCy component's model)%s" % (folder, ", ".join(_WEIGHTS_FILES),
            "; several weights files: %s" % ", ".join(map(excerpt, found)) if found else ""))

    def _read_index(self, path):
        document = _json_object(path, self.files)
        weight_map = document.get("weight_map")
        if not isinstance(weight_map, dict) or not weight_map:
            raise InputError("%s: weight_map is %s; expected an object of tensor names and"
                             " file names" % (path, "empty" if weight_map == {}
                                              else describe_json(weight_map)))
        folder = os.path.dirname(path)
        self._where = {name: os.path.join(folder, _plain_name(shard, path))
                       for name, shard in weight_map.items()}

    def _open(self, path):
        if path not in self._arrays:
            kind = reader_kind(path)
            if kind not in ARRAY_READERS:
                raise InputError("%s: unknown weights file type %r" % (path, kind))
            handle, size = open_regular(path)
            self._stack.enter_context(handle)
            self.files.append(path)
            arrays = ARRAY_READERS[kind](handle, size, path)
            self.files.extend(getattr(arrays, "files", ()))
            self._arrays[path] = arrays
        return self._arrays[path]

    @property
    def shipped(self):
        """The Arrays of a file that names its own output layer (an ONNX
        graph, a GGUF file, a spaCy model), or None."""
        if self._where is None and isinstance(self._arrays[self.weights_path], Arrays):
            return self._arrays[self.weights_path]
        return None

    @property
    def sharded(self):
        """True for shards listed by an index."""
        return self._where is not None

    @property
    def names(self):
        """Every tensor name, without opening a shard."""
        if self._where is not None:
            return list(self._where)
        return [a.name for a in self._arrays[self.weights_path]]

    def file_of(self, name):
        """The file that holds the tensor ``name`` (of a derived head: its part's)."""
        name = self._derived[name][1] if name in self._derived else name
        return self.weights_path if self._where is None else self._where[name]

    def derive(self, array, part):
        """Keep ``array``, a head made of stored arrays, whose part ``part``
        names the file it is said to be in."""
        self._derived[array.name] = (array, part)

    def arrays_beside(self, name):
        """The Arrays of the file holding ``name``, opening it if need be."""
        return self._open(self.file_of(name))

    def all_arrays(self):
        """The Arrays of every file, opening each shard (for a rule that
        needs every array's shape)."""
        if self._where is None:
            return list(self._arrays[self.weights_path])
        return [a for path in sorted(set(self._where.values())) for a in self._open(path)]

    def array(self, name, what, option):
        """The Array called ``name``, or InputError listing the names."""
        if name in self._derived:
            return self._derived[name][0]
        if self._where is not None and name not in self._where:
            shown = sorted(self._where)
            raise InputError("%s has no tensor %s; it has: %s%s" % (
                self.weights_path, excerpt(name), ", ".join(map(excerpt, shown[:_LISTED])),
                " and %d more" % (len(shown) - _LISTED) if len(shown) > _LISTED else ""))
        array = choose_array(self.arrays_beside(name), name, self.file_of(name), 2, what, option)
        if self._where is not None and array.name != name:
            raise InputError("%s: the index says it holds %s; it does not"
                             % (self.file_of(name), excerpt(name)))
        return array


def _tied(config, where):
    """Why an input embedding is the output layer, or None if config.json
    unties them; InputError for a tie_word_embeddings that is neither true
    nor false (transformers reads "false" as tied and 0 or null as untied:
    a guess either way)."""
    if config is None:
        return "no config.json says otherwise"
    if "tie_word_embeddings" not in config:
        return "config.json has no tie_word_embeddings = false"
    tie = config["tie_word_embeddings"]
    if tie is True:
        return "config.json has tie_word_embeddings = true"
    if tie is False:
        return None
    raise InputError("%s: config.json has tie_word_embeddings = %s, not true or false: is the"
                     " output layer tied to the input embedding? Name it with %s"
                     % (where, describe_json(tie), WEIGHTS_OPTION))


def _head_part(config):
    """(the config.json object of the part of the model whose head is the
    model's, the prefix of that part's tensor names): a composite model's
    decoder, else the model itself.

    >>> _head_part({"model_type": "encoder-decoder", "decoder": {"vocab_size": 9}})
    ({'vocab_size': 9}, 'decoder.')
    >>> _head_part({"model_type": "bert"})
    ({'model_type': 'bert'}, '')
    """
    if (isinstance(config, dict) and config.get("model_type") in _COMPOSITES
            and isinstance(config.get(_DECODER), dict)):
        return config[_DECODER], _DECODER + "."
    return config, ""


def _weights_name(model, config, prefix, note):
    """The output layer's name, chosen from the usual names (under
    ``prefix``, with a note), or None if no usual name is there."""
    names = set(model.names)
    heads = [prefix + n for n in _HEADS if prefix + n in names]
    embeddings = [prefix + n for n in _EMBEDDINGS if prefix + n in names]
    where = model.path
    if len(heads) > 1:
        raise InputError("%s has %d output layers; name one with %s: %s"
                         % (where, len(heads), WEIGHTS_OPTION, ", ".join(map(excerpt, heads))))
    if heads:
        note("%s: weights %s: the model's output layer" % (where, excerpt(heads[0])))
        return heads[0]
    reason = _tied(config, where)
    if reason is None:
        return None
    if len(embeddings) > 1:
        raise InputError("%s has %d input embeddings; name the output layer with %s: %s"
                         % (where, len(embeddings), WEIGHTS_OPTION,
                            ", ".join(map(excerpt, embeddings))))
    if embeddings:
        note("%s: weights %s: no array has an output layer's usual name, so the output layer"
             " is taken as tied to this input embedding (%s)"
             % (where, excerpt(embeddings[0]), reason))
        return embeddings[0]
    return None


def _matrices(model):
    """': ' and the arrays of the model's files (every shard's),
    matrices first, largest first, for a refusal that lists candidates."""
    return ": " + listing(_likely(model.all_arrays(), 2))


def _monotone_notes(config, where, note):
    """Notes for a config.json whose model turns the head's logits z into
    others by an increasing function, which keeps every ranking: the
    verdicts hold for the model's own logits too.  (T5 scales the head's
    input when config.json ties the head, whichever array is read.)"""
    if config is None:
        return
    cap = config.get("final_logit_softcapping")
    if isinstance(cap, decimal.Decimal) and cap > 0:
        note("%s: config.json has final_logit_softcapping = %s: the model's logits are"
             " c * tanh(z / c), an increasing function of each logit z, so every verdict holds"
             " for the capped logits too" % (where, shown_number(cap)))
    scale = config.get("logit_scale")
    if isinstance(scale, decimal.Decimal) and scale > 0:
        note("%s: config.json has logit_scale = %s: the model's logits are the head's times"
             " that positive number, so every verdict holds for the scaled logits too"
             % (where, shown_number(scale)))
    # T5 scales the head's input where its config says so: scale_decoder_outputs
    # where the config has it, else a tied head.
    scales = config.get("scale_decoder_outputs", config.get("tie_word_embeddings", True))
    if config.get("model_type") in _SCALED_WHEN_TIED and scales is True:
        note("%s: config.json has model_type = %s: a tied head's input is scaled by d_model"
             " ** -0.5, which multiplies every logit by one positive number, so every verdict"
             " holds for the scaled logits too" % (where, describe_json(config["model_type"])))


def choose_layer(model, tensor, bias_tensor, classes_of, note, find_bias=True):
    """(weights Array, bias Array or None) of ``model``.

    ``tensor`` and ``bias_tensor`` name them; unnamed, the weights are the
    output layer found by name, else the only 2-D array, and the bias (if
    ``find_bias``) the head's bias found by name, else the only array of one
    value per class beside the weights.  ``classes_of(array)`` is the
    number of classes of a weights array; ``note`` is called with a line for
    each choice the user did not make.
    """
    shipped = model.shipped
    if shipped is not None:
        return _shipped_layer(model, shipped, tensor, bias_tensor, classes_of, note,
                              find_bias)
    config, prefix = _head_part(model.config)
    weights = concatenated_head(model, config, tensor, note)
    labels = classifier_labels(config) if tensor is None and weights is None else None
    if labels is not None:
        # A classifier's head is its classification layer, not the word
        # embedding its name lookup would find; its classes are its labels.
        tensor = classifier_head(model, labels[0], note)
        model.labels = labels[1]
    if weights is None and tensor is None and not model.sharded:
        # A file with one layer in it needs no names.
        only = _candidates(model.arrays_beside(None), 2, bias_tensor)
        weights = only[0] if len(only) == 1 else None
        # Unless config.json unties the head from the input embedding: then
        # a lone embedding is not the head, and the lookup by name says so.
        if (weights is not None and weights.name in _EMBEDDINGS
                and _tied(config, model.path) is None):
            weights = None
    if weights is None and tensor is None:
        if prefix:
            note("%s: config.json names a composite model (%s): its output layer is its"
                 " decoder's, found by the decoder's config (model_type %s) among the arrays"
                 " whose names start with %r" % (
                     model.path, describe_json(model.config["model_type"]),
                     describe_json(config.get("model_type")), prefix))
        tensor = _weights_name(model, config, prefix, note)
        if tensor is None and config is not None:
            tensor = head_by_rows(model, config, _tied(config, model.path) is None,
                                  note, prefix)
        if tensor is None and _tied(config, model.path) is None:
            raise InputError("%s: config.json has tie_word_embeddings = false%s, and no array has"
                             " an output layer's usual name (%s); name the output layer with"
                             " %s%s" % (model.path, " for its decoder" if prefix else "",
                                        ", ".join(prefix + n for n in _HEADS), WEIGHTS_OPTION,
                                        _matrices(model)))
        if tensor is None and not model.sharded:
            tensor = _paired_head(model, classes_of, note)
        if tensor is None and not model.sharded:
            weights = choose_array(model.arrays_beside(None), None, model.weights_path,
                                   2, "weights", WEIGHTS_OPTION, bias_tensor)
        elif tensor is None:
            raise InputError("%s: no output layer under a usual name (%s) nor a matrix of"
                             " config.json's vocab_size rows; name the weights with %s%s"
                             % (model.path, ", ".join(_HEADS + _EMBEDDINGS[:3]),
                                WEIGHTS_OPTION, _matrices(model)))
    if weights is None:
        weights = model.array(tensor, "weights", WEIGHTS_OPTION)
    _monotone_notes(config, model.path, note)
    if bias_tensor is None and not find_bias:
        return weights, None
    classes = classes_of(weights)
    if bias_tensor is not None:
        bias = model.array(bias_tensor, "bias", BIAS_OPTION)
    else:
        bias = _named_bias(model, weights, classes, prefix, note)
        if bias is None:
            return weights, _found_bias(_beside_and_heads(model, weights), weights,
                                        classes, model, note)
    for other in bias_like(model.arrays_beside(weights.name), weights, classes):
        if other.name != bias.name:
            note("%s: array %s %s (one value per class) is not read: the bias is %s"
                 % (model.file_of(weights.name), excerpt(other.name),
                    shown_shape(other.shape), excerpt(bias.name)))
    return weights, bias


def _shipped_layer(model, shipped, tensor, bias_tensor, classes_of, note, find_bias):
    """choose_layer's answer for a file that names its output layer: that
    layer and its own bias (none if the file's graph adds none), unless
    the user names others (weights named by the user keep the bias beside
    them by name); its tokens name the classes of its own head (a note says
    which have none) or of a layer of as many classes."""
    head = shipped.head
    named = tensor
    if tensor is None:
        if head is None:
            if shipped.refusal is not None:
                raise shipped.refusal
            if not model.all_arrays():
                raise InputError("%s: no output layer found, and no array that could be one"
                                 % model.path)
            raise InputError("%s: the file names no output layer (the rule is in"
                             " docs/check-layer.md); name one with %s%s"
                             % (model.path, WEIGHTS_OPTION, _matrices(model)))
        note("%s: %s" % (model.path, head.why))
        tensor = head.weights
    weights = model.array(tensor, "weights", WEIGHTS_OPTION)
    classes = classes_of(weights)
    if bias_tensor is not None:
        bias = model.array(bias_tensor, "bias", BIAS_OPTION)
    elif not find_bias:
        bias = None
    elif head is not None and tensor == head.weights:
        # The file's own head: its bias is the one its graph adds, if any.
        bias = None if head.bias is None else model.array(head.bias, "bias", BIAS_OPTION)
        if named is not None and bias is not None:
            note("%s: array %s is read as the bias: the file's output layer adds it to %s; %s"
                 % (model.path, excerpt(bias.name), excerpt(tensor), _OTHER_BIAS))
    else:
        bias = _own_bias(model, weights, classes, note)
    if bias is not None and tuple(bias.shape) not in _per_class(classes):
        raise InputError("%s: array %s %s, the bias, does not have one value for each of the"
                         " %d classes of %s" % (model.path, excerpt(bias.name),
                                                shown_shape(bias.shape), classes,
                                                excerpt(weights.name)))
    if shipped.tokens is not None and (len(shipped.tokens) == classes
                                       or head is not None and tensor == head.weights):
        model.labels = class_tokens(shipped.tokens, classes, model.path, note)
    return weights, bias


def _paired_head(model, classes_of, note):
    """The name of the only matrix with a bias beside it by name, of one
    value per class (g2p-en's fc_w and fc_b beside its GRU's weights), said
    in a note; None where there is not exactly one."""
    arrays = model.arrays_beside(None)
    shapes = {array.name: tuple(array.shape) for array in arrays}
    paired = [array for array in arrays if len(array.shape) == 2
              and shapes.get(sibling_bias(array.name)) in _per_class(classes_of(array))]
    if len(paired) != 1:
        return None
    note("%s: weights %s %s: no array has an output layer's usual name, and this is the only"
         " matrix with a bias beside it by name, of one value per class"
         % (model.path, excerpt(paired[0].name), shown_shape(paired[0].shape)))
    return paired[0].name


def _beside_and_heads(model, weights):
    """The arrays of the weights' file, and in other shards those whose name
    says they may be a head's bias (ALBERT's predictions.bias, ModernBERT's
    decoder.bias): a sharded model keeps its head's bias where it falls."""
    arrays = list(model.arrays_beside(weights.name))
    if model.sharded:
        own = model.file_of(weights.name)
        for name in model.names:
            words = name.split(".")
            if (words[-1] == "bias" and model.file_of(name) != own
                    and any(word in _HEAD_WORDS for word in words[:-1])
                    and not any(word.isdigit() for word in words)):
                arrays.append(model.array(name, "bias", BIAS_OPTION))
    return arrays


def _named_bias(model, weights, classes, prefix, note):
    """The bias of ``weights`` by name (said in a note), or None.

    Weights ``X.weight`` are a Linear layer's, whose bias is ``X.bias`` (and
    so ``X.W`` and ``X.b``, ...: sibling_bias): an untied RoBERTa head
    keeps ``lm_head.decoder.bias``, which the forward pass adds, beside
    ``lm_head.bias``, which it does not.  Without it, the heads' biases by
    their usual names; several that differ are an error listing them (which
    is added is the model's code's to say).
    """
    names = set(model.names)
    where = model.path
    own = _own_bias(model, weights, classes, note)
    if own is not None:
        return own
    named = [model.array(prefix + name, "bias", BIAS_OPTION) for name in _BIASES
             if prefix + name in names]
    for other in named:
        if tuple(other.shape) not in _per_class(classes):
            note("%s: array %s %s is not read as the bias: it does not have one value for each"
                 " of the %d classes" % (where, excerpt(other.name), shown_shape(other.shape),
                                        classes))
    named = [a for a in named if tuple(a.shape) in _per_class(classes)]
    if not named:
        return None
    if not _equal_values(named):
        raise InputError("%s has %d biases of the output layer that differ; name one with %s:"
                         " %s" % (where, len(named), BIAS_OPTION, listing(named)))
    note("%s: array %s %s is read as the bias (the output layer's bias by its name%s); %s"
         % (where, excerpt(named[0].name), shown_shape(named[0].shape),
            ", the same values as %s" % ", ".join(excerpt(a.name) for a in named[1:])
            if named[1:] else "", _OTHER_BIAS))
    return named[0]


def _own_bias(model, weights, classes, note):
    """The bias beside ``weights`` by the pair of their names (said in a
    note), or None; InputError if it has not one value per class."""
    own = sibling_bias(weights.name)
    if own is None or own not in set(model.names):
        return None
    bias = model.array(own, "bias", BIAS_OPTION)
    if tuple(bias.shape) not in _per_class(classes):
        raise InputError("%s: array %s %s, the bias of %s by its name, does not have one"
                         " value for each of its %d classes (stored as (d, C)? then read"
                         " it transposed)" % (model.path, excerpt(own),
                                              shown_shape(bias.shape), excerpt(weights.name),
                                              classes))
    note("%s: array %s %s is read as the bias (the bias of %s by its name); %s"
         % (model.path, excerpt(own), shown_shape(bias.shape), excerpt(weights.name),
            _OTHER_BIAS))
    return bias
