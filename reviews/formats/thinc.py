"""spaCy / thinc component models: the ``model`` file of a pipeline component.

thinc's Model.to_bytes writes a msgpack map (read by reviews.formats.msgpack)
of four lists, one entry per node of the model's graph in its walk order,
the root first: "nodes" ({"index", "name", "dims", "refs"}), "attrs",
"params" ({name: array or nil}) and "shims".  srsly writes each array as
the map {b"nd": true, b"type": numpy's type string, b"kind": b"",
b"shape": [...], b"data": the values' bytes in C order}; float16, float32
and float64 arrays are read, in either byte order, and an array whose data
do not have its shape's size is refused.  The whole file is read into
memory once (at most MAX_BYTES) to be decoded; values are read again from
the file only when an array is loaded.

Arrays are named by the root's reference to their node where it has one
("upper.W", "upper.b", "lower.W"), else by the node's name and index
("linear#6.W", "hashembed#32.E").

The output layer of spaCy's parser and entity recognizer (their root node
``parser_model``) is the Linear layer the root calls "upper": its W (one
row per action) and b give the scores of the transition system's actions,
the largest taken.  Their classes are named by the ``moves`` file beside
``model`` as spaCy names them (TransitionSystem.initialize_actions, then
move_name): the actions by number, as strings sort; within one, labels by
frequency, then label, both descending; labels of negative frequency (added
by hand) after all others.  The entity recognizer's actions are "B-", "I-",
"L-", "U-" and "O" (its "U-" of no label blocks entities), the parser's
"S", "D", "L-", "R-" and "B-".  Which system a component has is its factory
in the pipeline's config.cfg, else its folder's name ("ner", "parser").

A model that ends in thinc's Softmax layer (spaCy's tagger, morphologizer,
senter and the textcat architectures TextCatEnsemble, TextCatReduce,
TextCatCNN and TextCatParametricAttention) has it as output layer: its W
and b, whose argmax is the label the component predicts.  Its last layer is
the last of the root's layers, which thinc writes right after the root (a
chain's name joins its layers' names with ">>").  Their classes are named
by the component's ``cfg`` beside ``model``: its "labels" (tagger,
textcat), the keys of its "labels_morph" (morphologizer), or "I" and "S"
for the senter, whose labels are spaCy's code's.  A model that ends in
thinc's Logistic (a multi-label textcat: each class is its own decision,
score above a threshold) or in a softmax over TextCatBOW's hashed n-gram
table is refused, with why.

    thinc_arrays    the Arrays of an open thinc ``model`` file
    move_names      the class names of a spaCy transition system, from its moves
    MAX_BYTES       2**30: the largest ``model`` file read
"""

import os

from reviews.errors import InputError
from reviews.formats.binary import KINDS, Array, Arrays, Head, read_values, value_count
from reviews.formats.msgpack import Bin, unpack
from reviews.formats.json_text import describe_json, parse_json
from reviews.formats.source import MAX_TEXT_BYTES, open_regular, read_text
from reviews.shown import excerpt, shown_shape

__all__ = ["thinc_arrays", "move_names", "MAX_BYTES"]

# spaCy's largest pipelines keep a component's model in some hundreds of MB.
MAX_BYTES = 2 ** 30
_TYPES = {"<f2": ("f2", False), ">f2": ("f2", True), "<f4": ("f4", False),
          ">f4": ("f4", True), "<f8": ("f8", False), ">f8": ("f8", True)}
_ARRAY_KEYS = {b"nd", b"type", b"kind", b"shape", b"data"}
_EXPECTED = {int: "an integer", str: "a str", list: "an array", dict: "a map"}
_ROOT = "parser_model"
_MOVES, _CONFIG = "moves", "config.cfg"
# spaCy's move letters by action number: ner.pyx and arc_eager.pyx.
_ENTITY_MOVES = {1: "B", 2: "I", 3: "L", 4: "U"}
_ENTITY_MISSING, _ENTITY_OUT = 0, 5
_PARSER_MOVES = {0: "S", 1: "D", 2: "L", 3: "R", 4: "B"}
_FACTORIES = {"ner": "ner", "beam_ner": "ner", "parser": "parser", "beam_parser": "parser"}
_CFG = "cfg"
# thinc's names of its Softmax layers (Softmax, Softmax_v2), of the layers
# that end a model whose outputs are no softmax of a Linear layer's (a
# multi-label textcat's Logistic; TextCatBOW's softmax over its hashed
# table), and of the wrappers that pass a layer's outputs on unchanged.
_SOFTMAX = "softmax"
_NOT_SOFTMAX = {
    "logistic": "thinc's Logistic layer: each class is its own decision (a multi-label"
                " classifier: a sigmoid of its logit above a threshold), not the argmax of the"
                " logits",
    "softmax_activation": "a softmax over thinc's SparseLinear layer (spaCy's TextCatBOW), whose"
                          " weights are a hash table of n-gram features, not a matrix read here"}
_WRAPPERS = ("with_array(", "with_cpu(", "with_padded(", "with_list(", "with_ragged(",
             "resizable(")
# spaCy nests two at most (with_cpu(resizable(...))); each level costs a pass
# over the name, so a name of a million wrappers is not unwrapped.
_MOST_WRAPPERS = 8
# spaCy's SentenceRecognizer names its two classes in its code, not its cfg.
_SENTER_LABELS = ("I", "S")


def thinc_arrays(handle, size, path):
    """The Arrays of the open thinc ``model`` file ``handle`` of ``size``
    bytes, with the head and class names of a spaCy parser or entity
    recognizer.

    >>> import io, struct
    >>> def text(s): return bytes([0xa0 + len(s)]) + s.encode()
    >>> def array(shape, values):
    ...     data = struct.pack("<%df" % len(values), *values)
    ...     return (b"\\x85\\xc4\\x02nd\\xc3\\xc4\\x04type" + text("<f4")
    ...             + b"\\xc4\\x04kind\\xc4\\x00\\xc4\\x05shape"
    ...             + bytes([0x90 + len(shape), *shape])
    ...             + b"\\xc4\\x04data\\xc4" + bytes([len(data)]) + data)
    >>> def node(index, name, refs):
    ...     return (b"\\x84" + text("index") + bytes([index]) + text("name") + text(name)
    ...             + text("dims") + b"\\x80" + text("refs") + refs)
    >>> data = (b"\\x84" + text("nodes") + b"\\x92"
    ...         + node(0, "parser_model", b"\\x81" + text("upper") + b"\\x01")
    ...         + node(1, "linear", b"\\x80") + text("attrs") + b"\\x92\\x80\\x80"
    ...         + text("params") + b"\\x92\\x80\\x82" + text("W") + array([2, 1], [1.0, -1.0])
    ...         + text("b") + array([2], [0.5, 0.25]) + text("shims") + b"\\x92\\x90\\x90")
    >>> arrays = thinc_arrays(io.BytesIO(data), len(data), "model")
    >>> [(a.name, a.shape, a.dtype) for a in arrays], arrays.head[:2], arrays.tokens
    ([('upper.W', (2, 1), '<f4'), ('upper.b', (2,), '<f4')], ('upper.W', 'upper.b'), None)
    >>> arrays[0].load()[0].tolist()
    [1.0, -1.0]
    """
    if size > MAX_BYTES:
        raise InputError("%s has %d bytes, past the limit of %d for a thinc model"
                         % (path, size, MAX_BYTES))
    data = handle.read(size)
    if len(data) != size:
        raise InputError("%s: the file ends at byte %d, before its size, %d"
                         % (path, len(data), size))
    if not data or not (0x80 <= data[0] <= 0x8f or data[0] in (0xde, 0xdf)):
        raise InputError("%s does not start with a msgpack map; not a thinc model?" % path)
    nodes, params = _graph(unpack(data, path), path)
    names = _node_names(nodes)
    arrays = []
    for index, node_params in enumerate(params):
        for param, value in node_params.items():
            if value is not None:
                arrays.append(_array(handle, data, "%s.%s" % (names[index], param),
                                     value, path))
    seen = set()
    for array in arrays:
        if array.name in seen:
            raise InputError("%s: two arrays are named %s (a reference of the root node"
                             " repeats another node's name)" % (path, excerpt(array.name)))
        seen.add(array.name)
    found = _upper(nodes, params, path)
    if found is None:
        return _softmax_arrays(arrays, nodes, params, names, path)
    upper, classes = found
    tokens, files = _classes(path)
    if tokens is None:
        named = ""
    elif len(tokens) == classes:
        named = "; its classes are named by the actions of %s" % files[0]
    else:
        named = ("; %s names %d actions, not %d: its classes are not named"
                 % (files[0], len(tokens), classes))
    weights, bias = names[upper] + ".W", names[upper] + ".b"
    why = ("weights %r %s and bias %r: the upper Linear layer (node %d) of spaCy's"
           " %s, whose outputs are the scores of the actions of its transition system%s"
           % (weights, shown_shape(params[upper]["W"][b"shape"]), bias, upper, _ROOT, named))
    return Arrays(arrays, Head(weights, bias, why), tokens, files)


def _field(mapping, key, kind, where):
    value = mapping.get(key)
    # An int field is not a bool, as ``isinstance`` would have it.
    if not (type(value) is kind if kind is int else isinstance(value, kind)):
        raise InputError("%s: %r is %s; expected %s"
                         % (where, key, _described(value), _EXPECTED[kind]))
    return value


def _described(value):
    if isinstance(value, Bin):
        return "a bin of %d bytes" % (value.stop - value.start)
    return describe_json(value)


def _graph(message, path):
    """The nodes and params of a thinc message, checked."""
    if not isinstance(message, dict):
        raise InputError("%s: the message is %s, not a map" % (path, _described(message)))
    nodes = _field(message, "nodes", list, path)
    params = _field(message, "params", list, path)
    if len(params) != len(nodes):
        raise InputError("%s: %d nodes but %d lists of params; not a thinc model?"
                         % (path, len(nodes), len(params)))
    for index, (node, node_params) in enumerate(zip(nodes, params)):
        where = "%s, node %d" % (path, index)
        if not isinstance(node, dict):
            raise InputError("%s is %s, not a map" % (where, _described(node)))
        if _field(node, "index", int, where) != index:
            raise InputError("%s has index %r" % (where, node["index"]))
        _field(node, "name", str, where)
        for name, target in _field(node, "refs", dict, where).items():
            if not isinstance(name, str) or target is not None and (
                    type(target) is not int or not 0 <= target < len(nodes)):
                raise InputError("%s: reference %s is %s, not a node's index"
                                 % (where, excerpt(str(name)), _described(target)))
        if not isinstance(node_params, dict) or not all(isinstance(k, str) for k in node_params):
            raise InputError("%s: its params are %s, not a map of names"
                             % (where, _described(node_params)))
    return nodes, params


def _node_names(nodes):
    """Each node's name for its arrays: the root's reference to it, else
    its name and index."""
    names = ["%s#%d" % (node["name"], index) for index, node in enumerate(nodes)]
    if nodes:
        for ref, target in nodes[0]["refs"].items():
            if target is not None:
                names[target] = ref
    return names


def _array(handle, data, name, value, path):
    where = "%s, array %s" % (path, excerpt(name))
    if not isinstance(value, dict) or set(value) != _ARRAY_KEYS:
        raise InputError("%s is %s; expected srsly's numpy array map {nd, type, kind, shape,"
                         " data}" % (where, "a map of keys %s" % excerpt(", ".join(map(
                             repr, value))) if isinstance(value, dict) else _described(value)))
    numpy_kind = value[b"kind"]
    # srsly writes kind b"" for arrays of numbers; "V" for structured ones.
    if value[b"nd"] is not True or not (numpy_kind == "" or isinstance(numpy_kind, Bin)
                                        and numpy_kind.start == numpy_kind.stop):
        raise InputError("%s: nd is %s and kind %s; an array of numbers has nd true and"
                         " kind empty" % (where, _described(value[b"nd"]),
                                          _described(value[b"kind"])))
    dtype = value[b"type"]
    if isinstance(dtype, Bin):
        dtype = bytes(data[dtype.start:dtype.stop]).decode("latin-1")
    if dtype not in _TYPES:
        raise InputError("%s: type %s is not read (read: %s)"
                         % (where, excerpt(str(dtype)), ", ".join(_TYPES)))
    shape = value[b"shape"]
    if not isinstance(shape, list):
        raise InputError("%s: shape is %s, not an array of sizes" % (where, _described(shape)))
    for axis, n in enumerate(shape):
        if type(n) is not int or n < 0:
            raise InputError("%s: shape[%d] is %s, not a size" % (where, axis, _described(n)))
    shape = tuple(shape)
    count = value_count(shape, where)
    stored = value[b"data"]
    kind, big_endian = _TYPES[dtype]
    if not isinstance(stored, Bin) or stored.stop - stored.start != count * KINDS[kind]:
        raise InputError("%s: its data are %s; shape %s of %s needs %d bytes"
                         % (where, _described(stored), shown_shape(shape), dtype,
                            count * KINDS[kind]))

    def load():
        handle.seek(stored.start)
        return read_values(handle, kind, count, big_endian, where), False
    return Array(name, shape, dtype, load)


def _upper(nodes, params, path):
    """(index of the upper node, its number of outputs) of a spaCy parser or
    entity recognizer; None for any other model, or one without an upper
    layer (its lower layer's maxout then scores the actions)."""
    if not nodes or nodes[0]["name"] != _ROOT:
        return None
    upper = nodes[0]["refs"].get("upper")
    if upper is None:
        return None
    weights, bias = params[upper].get("W"), params[upper].get("b")
    if weights is None or bias is None:
        raise InputError("%s: the upper layer (node %d, %s) of %s has no W and b"
                         % (path, upper, excerpt(nodes[upper]["name"]), _ROOT))
    shape, bias_shape = weights[b"shape"], bias[b"shape"]
    if len(shape) != 2 or bias_shape != shape[:1]:
        raise InputError("%s: the upper layer's W %s and b %s are not a Linear layer's"
                         " (classes x inputs, and one value a class)"
                         % (path, shown_shape(shape), shown_shape(bias_shape)))
    return upper, shape[0]


def _softmax_arrays(arrays, nodes, params, names, path):
    """The Arrays of a model that is no parser: with its Softmax head and
    its labels where it ends in one, refused where it ends in a layer that
    makes no argmax of a Linear layer's outputs."""
    last = _last_layer(nodes)
    step = _unwrapped(nodes[0 if last is None else last]["name"])
    if step in _NOT_SOFTMAX:
        return Arrays(arrays, refusal=InputError(
            "%s: the model ends in %s; name a layer with tensor=... or --tensor to check it"
            " as a softmax all the same" % (path, _NOT_SOFTMAX[step])))
    if step != _SOFTMAX:
        return Arrays(arrays)
    head = (last if last is not None and nodes[last]["name"] == _SOFTMAX
            else _wrapped_softmax(nodes, params, nodes[0 if last is None else last]))
    if head is None:
        return Arrays(arrays)
    weights, bias = params[head].get("W"), params[head].get("b")
    if weights is None or bias is None:
        raise InputError("%s: the Softmax layer (node %d) that ends the model has no W and b"
                         % (path, head))
    shape, bias_shape = weights[b"shape"], bias[b"shape"]
    if len(shape) != 2 or bias_shape != shape[:1]:
        raise InputError("%s: the Softmax layer's W %s and b %s are not a Linear layer's"
                         " (classes x inputs, and one value a class)"
                         % (path, shown_shape(shape), shown_shape(bias_shape)))
    factory, tokens, files = _labels(path)
    if tokens is None:
        named = ""
    elif len(tokens) == shape[0]:
        named = "; its classes are named by %s" % (
            "spaCy's senter (I, S)" if factory == "senter" else "the labels of " + files[0])
    else:
        named = "; %s names %d labels, not %d: its classes are not named" % (
            files[0], len(tokens), shape[0])
        tokens = None
    why = ("weights %r %s and bias %r: thinc's Softmax layer (node %d) that ends the model%s,"
           " whose argmax is the label predicted%s"
           % (names[head] + ".W", shown_shape(shape), names[head] + ".b", head,
              "" if factory is None else " of spaCy's %s" % excerpt(factory), named))
    return Arrays(arrays, Head(names[head] + ".W", names[head] + ".b", why),
                  None if tokens is None else dict(enumerate(tokens)), files)


def _last_layer(nodes):
    """The index of the last of the root's layers, where the root is a chain
    (its name their names joined by ">>"; thinc writes its layers right
    after it), else None."""
    root, at = nodes[0]["name"], 0
    for index in range(1, len(nodes)):
        name = nodes[index]["name"]
        if not root.startswith(name, at):
            return None
        at += len(name)
        if at == len(root):
            return index if index > 1 else None
        if not root.startswith(">>", at):
            return None
        at += 2
    return None


def _unwrapped(name):
    """The name of the layer inside thinc's wrappers (with_array(...), ...),
    at most _MOST_WRAPPERS of them.

    >>> _unwrapped("with_array(softmax)"), _unwrapped("with_array(a)>>with_array(b)")
    ('softmax', 'with_array(a)>>with_array(b)')
    """
    for _ in range(_MOST_WRAPPERS):
        wrapper = next((w for w in _WRAPPERS if name.startswith(w)
                        and _closes_last(name, len(w) - 1)), None)
        if wrapper is None:
            break
        name = name[len(wrapper):-1]
    return name


def _closes_last(name, opening):
    """Whether the bracket at ``opening`` closes at the end of ``name``."""
    depth = 0
    for at in range(opening, len(name)):
        depth += {"(": 1, ")": -1}.get(name[at], 0)
        if depth == 0:
            return at == len(name) - 1
    return False


def _wrapped_softmax(nodes, params, wrapper):
    """The index of the only Softmax layer with W that has the wrapper's
    dimensions (those it knows), or None."""
    found = [index for index, node in enumerate(nodes) if node["name"] == _SOFTMAX
             and params[index].get("W") is not None
             and all(node["dims"].get(key) == value for key, value in wrapper["dims"].items()
                     if key in ("nO", "nI") and value is not None)]
    return found[0] if len(found) == 1 else None


def _labels(path):
    """(factory, [label, ...] or None, [files read]) of the component whose
    ``model`` is ``path``: the labels of its ``cfg``, the keys of a
    morphologizer's "labels_morph", spaCy's own for a senter."""
    folder = os.path.dirname(path)
    factory, files = _factory(folder)
    if factory == "senter":
        return factory, list(_SENTER_LABELS), files
    cfg = os.path.join(folder, _CFG)
    if not os.path.lexists(cfg):
        return factory, None, files
    document = parse_json(read_text(cfg), cfg)
    key = "labels_morph" if factory == "morphologizer" else "labels"
    labels = document.get(key) if isinstance(document, dict) else None
    if isinstance(labels, dict):
        labels = list(labels)
    if not (isinstance(labels, list) and all(isinstance(label, str) for label in labels)):
        return factory, None, files
    return factory, labels, [cfg] + files


def _factory(folder):
    """(factory, [files read]) of the component whose folder is ``folder``:
    its factory in the pipeline's config.cfg, else its folder's name."""
    component = os.path.basename(os.path.abspath(folder))
    # Named as the user named the component (relative stays relative).
    config = os.path.normpath(os.path.join(folder, os.pardir, _CONFIG))
    if os.path.isfile(config):
        section = None
        for line in read_text(config).splitlines():
            line = line.strip()
            if line.startswith("[") and line.endswith("]"):
                section = line[1:-1].strip()
            elif section == "components." + component:
                key, _, value = line.partition("=")
                if key.strip() == "factory":
                    return value.strip().strip('"'), [config]
    return component, []


def _classes(path):
    """({class: name} or None, [files read]) of the moves beside ``path``."""
    folder = os.path.dirname(path)
    moves = os.path.join(folder, _MOVES)
    if not os.path.lexists(moves):
        return None, []   # a FIFO or a folder there is refused by open_regular, not skipped
    factory, files = _factory(folder)
    system = _FACTORIES.get(factory)
    if system is None:
        return None, []
    handle, size = open_regular(moves)
    with handle:
        if size > MAX_TEXT_BYTES:
            raise InputError("%s has %d bytes, past the limit of %d"
                             % (moves, size, MAX_TEXT_BYTES))
        data = handle.read(size)
    message = unpack(data, moves)
    if not isinstance(message, dict) or "moves" not in message:
        raise InputError("%s: it is %s, not a map with \"moves\"; not spaCy's moves?"
                         % (moves, _described(message)))
    text = message["moves"]
    if isinstance(text, Bin):
        text = bytes(data[text.start:text.stop])
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("%s: \"moves\" is not UTF-8 text" % moves) from None
    if not isinstance(text, str):
        raise InputError("%s: \"moves\" is %s, not JSON text" % (moves, _described(text)))
    names = move_names(parse_json(text, "%s (moves)" % moves, integers=True), system, moves)
    return dict(enumerate(names)), [moves] + files


def move_names(labels, system, where):
    """The names of the actions of spaCy's transition system ``system``
    ("ner" or "parser") from its moves' labels ({action: {label: count}}),
    in the order of its classes.

    >>> move_names({"5": {"": 1}, "1": {"ORG": 3, "GPE": 9}, "4": {"ORG": 3, "": 1}}, "ner", "m")
    ['B-GPE', 'B-ORG', 'U-ORG', 'U-', 'O']
    >>> move_names({"0": {"": 5}, "2": {"det": 1, "amod": 1}, "4": {"ROOT": 2}}, "parser", "m")
    ['S', 'L-det', 'L-amod', 'B-ROOT']
    """
    if not isinstance(labels, dict):
        raise InputError("%s: the moves are %s; expected an object of actions"
                         % (where, describe_json(labels)))
    letters = _ENTITY_MOVES if system == "ner" else _PARSER_MOVES
    known = set(letters) | ({_ENTITY_MISSING, _ENTITY_OUT} if system == "ner" else set())
    moves, seen, added = [], set(), []

    def add(action, label):
        if system == "ner" and (action == _ENTITY_MISSING
                                or action == _ENTITY_OUT and label != ""):
            return
        if (action, label) not in seen:
            seen.add((action, label))
            if system == "ner":
                # spaCy's entity recognizer names its "U" of no label "U-".
                moves.append("O" if action == _ENTITY_OUT else letters[action] + "-" + label)
            else:
                moves.append(letters[action] + "-" + label if label else letters[action])
    # spaCy sorts the actions' numbers as the strings JSON keys are.
    for key, counts in sorted(labels.items()):
        if not (key.isascii() and key.isdigit()):
            raise InputError("%s: action %s is not a number" % (where, excerpt(key)))
        # A key of thousands of digits is no action, and past what int() takes.
        action = int(key) if len(key) <= 3 else None
        if action not in known:
            raise InputError("%s: action %s is not one of spaCy's %s moves"
                             % (where, excerpt(key), system))
        if not isinstance(counts, dict):
            raise InputError("%s: action %d: its labels are %s; expected an object of counts"
                             % (where, action, describe_json(counts)))
        for label, count in counts.items():
            if type(count) is not int:
                raise InputError("%s: action %d: the count of label %s is %s, not an integer"
                                 % (where, action, excerpt(label), describe_json(count)))
        for count, label in sorted(((c, l) for l, c in counts.items()), reverse=True):
            if count < 0:
                added.append((count, label, action))
            else:
                add(action, label)
    # Labels added by hand come last, in the order spaCy adds them.
    groups = {}
    for count, label, action in added:
        groups.setdefault(label, []).append(action)
    for count, label in sorted({(c, l) for c, l, _ in added}, reverse=True):
        for action in groups[label]:
            add(action, label)
    return moves
