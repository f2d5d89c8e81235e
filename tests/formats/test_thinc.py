"""Tests of reviews.formats.thinc: spaCy component models, against what spaCy
itself reads from them (3.6.1 for the parser and entity recognizer, 3.8.18
for the Softmax heads: tests/data/spacy/README.md)."""

import hashlib
import io
import json
import os
import shutil
import struct
import unittest

from reviews.cli import main
from reviews.errors import InputError
from reviews.formats.source import open_regular
from reviews.formats.layers import read_model
from reviews.formats.thinc import MAX_BYTES, move_names, thinc_arrays
from tests.support import ROOT, FileTestCase
from tests.support.commands import in_process as run

DATA = os.path.join(ROOT, "tests", "data", "spacy")
PARSER = os.path.join(DATA, "en_core_web_sm-3.6.0", "parser", "model")
TOY_NER = os.path.join(DATA, "toy_ner", "ner", "model")
TOY = os.path.join(DATA, "toy_pipeline")
TAGGER = os.path.join(DATA, "en_core_web_sm-3.8.0", "tagger", "model")
# What spaCy 3.8 printed for each component of the toy pipeline: its head's
# name and shape, the SHA-256 of W's and b's float32 bytes, and pipe.labels.
TOY_HEADS = {
    "tagger": ("output_layer", (7, 8),
               "c3a4c35f7b83fb4464f95eb11273218c675c6fcdf1be002b5574c2a982d01c3b",
               "b348a52b83a0691e95e3eab81adde2892c8c8af468d0ccbe97d53bf0c1fd9f7c",
               [".", "NN", "NNP", "NNS", "PRP", "VBP", "VBZ"]),
    "morphologizer": ("output_layer", (7, 8),
                      "f1ec082e89b24768ef9e89f4555c6be4a2182b370c5e949a05e91a54051d15d2",
                      "3c0ecf7c6312cab17fc0bf77b13120e13a12319f2540dda4d2bd0d563744a4d9",
                      ["POS=PROPN", "Number=Sing|POS=VERB", "Number=Plur|POS=NOUN",
                       "POS=PUNCT", "Number=Sing|POS=NOUN", "Number=Sing|POS=PRON",
                       "Number=Plur|POS=VERB"]),
    "senter": ("output_layer", (2, 8),
               "3e78d7410d5aad2625a3a2a42d2ab29963a9c5d40d5e45f89265582d6fc3fff8",
               "a82cf8ff5e56129dc837c1ddd9baee23a8d4b539cad9f3f4b0de6ae7fda1dfee", ["I", "S"]),
    "textcat": ("output_layer", (3, 8),
                "538608d57376890c1db9ff57041aa05c9b925e980b0863dc120215f974b0e1d0",
                "17262a059ac83ff785d762de4a09bc22384a6d9637c3ab9a2b04d035103dea28",
                ["POS", "NEG", "NEU"]),
    "textcat_ensemble": ("softmax#2", (3, 11),
                         "d576c38241e9908387358c60f1a3ad79b869d687abdb782f45fdbf20923bbcb9",
                         "5814d206a71d326907ad50543f9bd9e37cecbf9e12f461f4489a050045571cd1",
                         ["POS", "NEG", "NEU"])}
# spaCy's moves.get_class_name(i) for each class i of the toy recognizer.
TOY_NAMES = ["B-PERSON", "B-GPE", "B-FAC", "I-PERSON", "I-GPE", "I-FAC", "L-PERSON", "L-GPE",
             "L-FAC", "U-PERSON", "U-GPE", "U-FAC", "U-", "O"]


def read(path):
    handle, size = open_regular(path)
    with handle:
        arrays = thinc_arrays(handle, size, path)
        loaded = {a.name: a.load()[0] for a in arrays}
    return arrays, loaded


def sha256(values):
    return hashlib.sha256(values.tobytes()).hexdigest()


def pack(value):
    """msgpack of ``value`` (bytes as bin) in forms thinc does not use
    (int64, str32, bin32, array32, map32), which the reader takes too."""
    if value is None or isinstance(value, bool):
        return {None: b"\xc0", False: b"\xc2", True: b"\xc3"}[value]
    if isinstance(value, int):
        return bytes([value & 0xff]) if -32 <= value < 128 else b"\xd3" + struct.pack(">q", value)
    if isinstance(value, float):
        return b"\xcb" + struct.pack(">d", value)
    if isinstance(value, str):
        data = value.encode()
        return b"\xd9" + bytes([len(data)]) + data if len(data) < 256 else (
            b"\xdb" + struct.pack(">I", len(data)) + data)
    if isinstance(value, bytes):
        return b"\xc6" + struct.pack(">I", len(value)) + value
    if isinstance(value, list):
        return b"\xdd" + struct.pack(">I", len(value)) + b"".join(map(pack, value))
    return b"\xdf" + struct.pack(">I", len(value)) + b"".join(
        pack(k) + pack(v) for k, v in value.items())


def numpy_map(shape, values, dtype="<f4"):
    """An array as srsly's msgpack_numpy writes it."""
    code = {"<f4": "<%df", ">f4": ">%df", "<f8": "<%dd", "<f2": "<%de"}.get(dtype, "<%df")
    return {b"nd": True, b"type": dtype, b"kind": b"", b"shape": list(shape),
            b"data": struct.pack(code % len(values), *values)}


def message(upper=None, root="parser_model", extra=()):
    """A thinc message of a parser_model whose upper layer has ``upper``'s
    params, and ``extra`` more nodes (name, params)."""
    upper = {"W": numpy_map((3, 2), [1.0, 0.0, 0.0, 1.0, 0.5, 0.5]),
             "b": numpy_map((3,), [0.0, 0.0, -1.0])} if upper is None else upper
    nodes = [(root, {"upper": 1}, {}), ("linear", {}, upper)]
    nodes += [(name, {}, params) for name, params in extra]
    return {"nodes": [{"index": i, "name": name, "dims": {}, "refs": refs}
                      for i, (name, refs, _) in enumerate(nodes)],
            "attrs": [{} for _ in nodes], "params": [params for *_, params in nodes],
            "shims": [[] for _ in nodes]}


class TestRealModels(unittest.TestCase):

    def test_the_parser_head_is_the_upper_linear_layer_spacy_scores_with(self):
        arrays, loaded = read(PARSER)
        self.assertEqual([(a.name, a.shape, a.dtype) for a in arrays], [
            ("lower.W", (8, 64, 2, 64), "<f4"), ("lower.b", (64, 2), "<f4"),
            ("lower.pad", (1, 8, 64, 2), "<f4"), ("upper.W", (106, 64), "<f4"),
            ("upper.b", (106,), "<f4"), ("linear#6.W", (64, 96), "<f4"),
            ("linear#6.b", (64,), "<f4")])
        self.assertEqual(arrays.head[:2], ("upper.W", "upper.b"))
        self.assertIn("upper Linear layer (node 3)", arrays.head.why)
        # spaCy's model.get_ref("upper").get_param("W") and ("b"), as float32 bytes.
        self.assertEqual(sha256(loaded["upper.W"]),
                         "11d29ee99e57824d4e660568868919af8e8ea48a51e0a5540d93b1666438e7ed")
        self.assertEqual(sha256(loaded["upper.b"]),
                         "be8cc44ea01ce41bb23906d31a9c8e49a65bc0cb9ea02ae8e9e9c13d5af47289")
        self.assertEqual(loaded["upper.W"][:3].tolist(),
                         [0.07232715934515, -0.039858847856521606, -0.0576055645942688])
        self.assertEqual(loaded["upper.b"][:2].tolist(), [0.9204484224319458, 0.9364824891090393])
        self.assertEqual(loaded["upper.W"].format, "f")

    def test_the_upper_layer_named_by_the_user_keeps_its_bias(self):
        notes = []
        layer = read_model(PARSER, tensor="upper.W", note=notes.append)
        self.assertEqual((layer.bias_tensor.name, len(layer.bias)), ("upper.b", 106))
        self.assertIn("%s: array 'upper.b' is read as the bias: the file's output layer adds it"
                      " to 'upper.W'; name another with bias_tensor=... or --bias-tensor, or none"
                      " with no_bias=True or --no-bias" % PARSER, notes)
        # A layer the file does not name as its head keeps the bias beside it by name.
        layer = read_model(PARSER, tensor="linear#6.W")
        self.assertEqual(layer.bias_tensor.name, "linear#6.b")

    def test_the_parser_classes_are_named_as_spacy_names_its_moves(self):
        arrays, _ = read(PARSER)
        tokens = arrays.tokens
        self.assertEqual(len(tokens), 106)
        self.assertEqual([tokens[k] for k in range(5)], ["S", "D", "L-det", "L-nsubj",
                                                          "L-compound"])
        self.assertEqual([tokens[k] for k in (48, 49, 50, 104, 105)],
                         ["L-oprd", "R-punct", "R-pobj", "R-appos||nsubjpass", "B-ROOT"])
        self.assertEqual(arrays.files, [os.path.join(os.path.dirname(PARSER), "moves")])

    def test_a_trained_entity_recognizer(self):
        arrays, loaded = read(TOY_NER)
        self.assertEqual(arrays.head[:2], ("upper.W", "upper.b"))
        self.assertEqual([a.shape for a in arrays if a.name.startswith("upper.")],
                         [(14, 8), (14,)])
        self.assertEqual(arrays.tokens, dict(enumerate(TOY_NAMES)))
        self.assertEqual(sha256(loaded["upper.W"]),
                         "2da1b19196c08197a0fb62ad0845031b3b78dd343833ec105857efa2a538f887")
        self.assertEqual(sha256(loaded["upper.b"]),
                         "52197274a198f4c836ead7019233e1a1939912a4363662c7e4f6a2960c53af61")
        self.assertEqual(loaded["upper.W"][0:1].tolist(), [-0.008335847407579422])
        self.assertEqual(loaded["upper.b"][13:14].tolist(), [0.016910215839743614])
        self.assertIn("hashembed#", " ".join(a.name for a in arrays))
        self.assertEqual(arrays.files, [os.path.join(DATA, "toy_ner", "ner", "moves"),
                                        os.path.join(DATA, "toy_ner", "config.cfg")])

    def test_check_layer_names_the_unargmaxable_actions_of_a_folder(self):
        out, err = io.StringIO(), io.StringIO()
        status = main(["check-layer", os.path.dirname(TOY_NER), "--format", "json"], out, err)
        report = json.loads(out.getvalue())
        self.assertEqual((status, report["weights_tensor"], report["bias_tensor"]),
                         (0, {"name": "upper.W", "dtype": "<f4", "shape": [14, 8]},
                          {"name": "upper.b", "dtype": "<f4", "shape": [14]}))
        self.assertEqual([(r["index"], r["token"]) for r in report["results"]
                          if not r["argmaxable"]],
                         [(1, "B-GPE"), (4, "I-GPE"), (5, "I-FAC"), (7, "L-GPE"), (8, "L-FAC"),
                          (9, "U-PERSON"), (11, "U-FAC"), (12, "U-")])
        self.assertIn("the upper Linear layer (node 3) of spaCy's parser_model", err.getvalue())


class TestSoftmaxHeads(FileTestCase):

    def test_each_toy_component_s_head_is_the_softmax_spacy_predicts_with(self):
        for component, (node, shape, w_digest, b_digest, labels) in TOY_HEADS.items():
            with self.subTest(component=component):
                arrays, loaded = read(os.path.join(TOY, component, "model"))
                self.assertEqual(arrays.head[:2], (node + ".W", node + ".b"))
                self.assertEqual([a.shape for a in arrays if a.name == node + ".W"], [shape])
                self.assertEqual((sha256(loaded[node + ".W"]), sha256(loaded[node + ".b"])),
                                 (w_digest, b_digest))
                self.assertEqual(arrays.tokens, dict(enumerate(labels)))

    def test_the_labels_come_from_the_cfg_and_the_factory_from_config_cfg(self):
        arrays, _ = read(os.path.join(TOY, "morphologizer", "model"))
        self.assertEqual(arrays.files, [os.path.join(TOY, "morphologizer", "cfg"),
                                        os.path.join(TOY, "config.cfg")])
        self.assertIn("thinc's Softmax layer (node 3) that ends the model of spaCy's"
                      " 'morphologizer', whose argmax is the label predicted; its classes are"
                      " named by the labels of %s" % arrays.files[0], arrays.head.why)
        arrays, _ = read(os.path.join(TOY, "senter", "model"))
        self.assertEqual(arrays.files, [os.path.join(TOY, "config.cfg")])
        self.assertIn("named by spaCy's senter (I, S)", arrays.head.why)
        # The ensemble's folder is no factory's name: config.cfg says "textcat".
        arrays, _ = read(os.path.join(TOY, "textcat_ensemble", "model"))
        self.assertIn("of spaCy's 'textcat'", arrays.head.why)

    def test_the_real_tagger_of_en_core_web_sm_3_8(self):
        arrays, loaded = read(TAGGER)
        self.assertEqual(arrays.head[:2], ("output_layer.W", "output_layer.b"))
        # spaCy's tagger.model.get_ref("output_layer").get_param("W") and ("b").
        self.assertEqual(sha256(loaded["output_layer.W"]),
                         "1b8131ba06ad51d573a43a9dd6b3fc4441ca55f6455a7a6316063d29297dac94")
        self.assertEqual(sha256(loaded["output_layer.b"]),
                         "8bb42a23878308b98b89bd1c3044b9feb3617346398a40e626e6b8f4c3c572c4")
        self.assertEqual((len(arrays.tokens), arrays.tokens[0], arrays.tokens[49]), (50, "$", "``"))

    def test_check_layer_reads_a_tagger_with_its_bias_and_labels(self):
        folder = os.path.join(TOY, "tagger")
        _, out, err = run("check-layer", folder, "--box", "0.001", "--format", "json")
        report = json.loads(out)
        self.assertEqual((report["bias_tensor"]["name"], report["unargmaxable"]),
                         ("output_layer.b", [1, 2, 4, 5]))
        self.assertEqual([r["token"] for r in report["results"][:2]], [".", "NN"])
        self.assertIn("thinc's Softmax layer (node 3)", err)
        # Named by the user, the weights keep their bias, with a note; --no-bias drops it.
        _, out, err = run("check-layer", folder, "--tensor", "output_layer.W", "--box", "0.001",
                          "--format", "json")
        self.assertEqual(json.loads(out)["unargmaxable"], [1, 2, 4, 5])
        self.assertIn("array 'output_layer.b' is read as the bias: the file's output layer adds"
                      " it to 'output_layer.W'; name another with bias_tensor=... or"
                      " --bias-tensor, or none with no_bias=True or --no-bias", err)
        _, out, err = run("check-layer", folder, "--no-bias", "--box", "0.001", "--format", "json")
        self.assertEqual((json.loads(out)["bias"], json.loads(out)["unargmaxable"]), (False, []))
        self.assertIn("array 'output_layer.b' (7,) (one value per class) is not read: no bias"
                      " is read (no_bias=True or --no-bias)", err)

    def test_a_head_the_file_does_not_name_keeps_the_bias_beside_it_by_name(self):
        # The multi-label textcat names no head; its Linear layer's W and b are a pair.
        path = os.path.join(TOY, "textcat_multilabel", "model")
        notes = []
        layer = read_model(path, tensor="output_layer.W", note=notes.append)
        self.assertEqual(layer.bias_tensor.name, "output_layer.b")
        self.assertIn("%s: array 'output_layer.b' (3,) is read as the bias (the bias of"
                      " 'output_layer.W' by its name)" % path, notes[0])
        self.assertIsNone(read_model(path, tensor="output_layer.W", no_bias=True).bias)

    def test_models_that_end_in_no_softmax_of_a_linear_layer_are_refused_with_why(self):
        for component, why in (
                ("textcat_multilabel", "the model ends in thinc's Logistic layer: each class is"
                                       " its own decision"),
                ("textcat_bow", "the model ends in a softmax over thinc's SparseLinear layer"
                                " \\(spaCy's TextCatBOW\\)")):
            with self.subTest(component=component):
                status, out, err = run("check-layer", os.path.join(TOY, component))
                self.assertEqual((status, out), (2, ""))
                self.assertRegex(err, "^counterexamples: error: [^\\n]*%s: %s[^\\n]*\\n$"
                                 % (os.path.join(component, "model"), why))

    def test_labels_of_another_number_are_said_and_not_used(self):
        folder = os.path.join(self.folder.name, "tagger")
        os.makedirs(folder)
        shutil.copy(os.path.join(TOY, "tagger", "model"), folder)
        self.write(os.path.join("tagger", "cfg"), '{"labels": ["A", "B"]}')
        arrays, _ = read(os.path.join(folder, "model"))
        self.assertIsNone(arrays.tokens)
        self.assertIn("cfg names 2 labels, not 7: its classes are not named", arrays.head.why)
        self.write(os.path.join("tagger", "cfg"), '{"labels": [1, 2, 3, 4, 5, 6, 7]}')
        self.assertEqual(read(os.path.join(folder, "model"))[0].tokens, None)
        self.write(os.path.join("tagger", "cfg"), '{"labels": [')
        with self.assertRaisesRegex(InputError, "cfg is not valid JSON"):
            read(os.path.join(folder, "model"))

    def test_a_chain_whose_last_layer_is_no_softmax_names_no_head(self):
        # Past the wrappers unwrapped (each costs a pass over the name).
        deep = "with_array(" * 9 + "softmax" + ")" * 9
        for root, layers in (("tok2vec>>with_array(softmax)", ("tok2vec", "with_array(linear)")),
                             ("tok2vec>>linear", ("tok2vec", "linear")),
                             ("with_array(a)>>with_array(softmax)b", ("with_array(a)",)),
                             ("a>>" + deep, ("a", deep))):
            with self.subTest(root=root):
                nodes = [(root, {}, {})] + [(name, {}, {}) for name in layers]
                nodes.append(("softmax", {}, {"W": numpy_map((2, 1), [1.0, -1.0]),
                                              "b": numpy_map((2,), [0.0, 0.0])}))
                data = pack({"nodes": [{"index": i, "name": name, "dims": {}, "refs": refs}
                                       for i, (name, refs, _) in enumerate(nodes)],
                             "attrs": [{} for _ in nodes], "params": [p for *_, p in nodes],
                             "shims": [[] for _ in nodes]})
                arrays = thinc_arrays(io.BytesIO(data), len(data), "m/model")
                self.assertIsNone(arrays.head)


class TestClassNames(FileTestCase):

    def test_the_system_is_the_factory_of_the_pipeline_config_else_the_folder(self):
        folder = os.path.join(self.folder.name, "pipeline", "entities")
        os.makedirs(folder)
        for name in ("model", "moves"):
            shutil.copy(os.path.join(DATA, "toy_ner", "ner", name), folder)
        path = os.path.join(folder, "model")
        self.assertIsNone(read(path)[0].tokens)
        self.write(os.path.join("pipeline", "config.cfg"),
                   '[components.entities]\nfactory = "ner"\n')
        self.assertEqual(read(path)[0].tokens, dict(enumerate(TOY_NAMES)))

    def test_without_moves_the_head_is_found_and_the_classes_are_not_named(self):
        path = os.path.join(self.folder.name, "model")
        shutil.copy(TOY_NER, path)
        arrays, _ = read(path)
        self.assertEqual((arrays.head[:2], arrays.tokens, arrays.files),
                         (("upper.W", "upper.b"), None, []))

    def test_moves_of_another_number_of_actions_are_said_in_the_note(self):
        os.makedirs(os.path.join(self.folder.name, "ner"))
        path = self.write(os.path.join("ner", "model"), pack(message()))
        self.write(os.path.join("ner", "moves"), pack({"moves": '{"5": {"": 1}}', "cfg": {}}))
        arrays, _ = read(path)
        self.assertIn("names 1 actions, not 3: its classes are not named", arrays.head.why)

    def test_bad_moves_files_are_refused_naming_them(self):
        os.makedirs(os.path.join(self.folder.name, "ner"))
        path = self.write(os.path.join("ner", "model"), pack(message()))
        moves = os.path.join(self.folder.name, "ner", "moves")
        for data, problem in (
                (b"\x91", "moves: byte 0: an array of 1 values cannot fit"),
                (pack([1]), "moves: it is a list, not a map with \"moves\""),
                (pack({"moves": 1}), "moves: \"moves\" is 1, not JSON text"),
                (pack({"moves": b"\xff"}), "moves: \"moves\" is not UTF-8 text"),
                (pack({"moves": "{"}), "moves \\(moves\\) is not valid JSON"),
                (pack({"moves": "[" * 100000}), "moves \\(moves\\)"),
                (pack({"moves": '{"4": {"A": "1"}}'}), "moves: action 4: the count of label 'A'")):
            with self.subTest(problem=problem):
                with open(moves, "wb") as handle:
                    handle.write(data)
                pattern = "^" + os.path.join(self.folder.name, "ner", problem)
                with self.assertRaisesRegex(InputError, pattern):
                    read(path)

    def test_hand_added_labels_and_ties_are_ordered_as_spacy_orders_them(self):
        labels = {"1": {"B": 2, "A": 2, "Z": -1}, "5": {"": 1, "X": 4},
                  "0": {"M": 9}, "4": {"Y": -2, "Z": -1}}
        self.assertEqual(move_names(labels, "ner", "m"),
                         ["B-B", "B-A", "O", "B-Z", "U-Z", "U-Y"])

    def test_parser_actions_sort_as_strings_and_unlabelled_moves_have_no_dash(self):
        labels = {"4": {"ROOT": 1}, "0": {"": 3}, "1": {"": 2}, "3": {"dobj": 5}, "2": {"x": 1}}
        self.assertEqual(move_names(labels, "parser", "m"), ["S", "D", "L-x", "R-dobj", "B-ROOT"])

    def test_bad_moves_are_refused(self):
        for labels, system, problem in (
                ([], "ner", "the moves are a list; expected an object of actions"),
                ({"x": {}}, "ner", "action 'x' is not a number"),
                ({"\u0663": {}}, "ner", "action '\u0663' is not a number"),
                ({"1": []}, "ner", "action 1: its labels are a list; expected an object"),
                ({"6": {}}, "ner", "action '6' is not one of spaCy's ner moves"),
                ({"5": {}}, "parser", "action '5' is not one of spaCy's parser moves"),
                ({"9" * 5000: {}}, "ner", "action '9+'\\.\\.\\. is not one of spaCy's ner moves"),
                ({"1": {"A": 1.5}}, "ner", "action 1: the count of label 'A' is 1.5, not an")):
            with self.subTest(labels=labels):
                with self.assertRaisesRegex(InputError, "^m: " + problem):
                    move_names(labels, system, "m")


class TestHostile(FileTestCase):

    def arrays(self, data, size=None):
        return thinc_arrays(io.BytesIO(data), len(data) if size is None else size, "m/model")

    def test_each_is_one_error_naming_the_file_and_place(self):
        good = numpy_map((3, 2), [0.0] * 6)
        # The root calls node 1 by the name node 2 has: "x#2".
        renamed = message(extra=[("x", {"W": good})])
        renamed["nodes"][0]["refs"] = {"x#2": 1}
        for data, problem in (
                (b"", "does not start with a msgpack map"),
                (pack([1]), "does not start with a msgpack map"),
                (pack(message())[:-3], "byte \\d+: .*runs past the end|the data ends"),
                (pack({"nodes": [], "params": [{}]}), "0 nodes but 1 lists of params"),
                (pack({"nodes": 1, "params": []}), "'nodes' is"),
                (pack(dict(message(), nodes=[{"index": True}, {}])), "node 0: 'index' is true"),
                (pack(message({"W": {**good, b"data": b"\0" * 23}, "b": good})),
                 "array 'upper.W': its data are a bin of 23 bytes; shape \\(3, 2\\) of <f4"
                 " needs 24"),
                (pack(message({"W": {**good, b"shape": [2 ** 40, 2 ** 40]}})),
                 "array 'upper.W': shape .* is past the limit of"),
                (pack(message({"W": {**good, b"shape": [-1]}})), "shape\\[0\\] is -1, not a size"),
                (pack(message({"W": {**good, b"type": "<i8"}})), "type '<i8' is not read"),
                (pack(message({"W": {**good, b"nd": False}})),
                 "nd is false and kind a bin of 0 bytes; an array of numbers has nd true"),
                (pack(message({"W": [1]})), "array 'upper.W' is a list"),
                (pack(message({"W": good})), "the upper layer \\(node 1, 'linear'\\) of"
                                             " parser_model has no W and b"),
                (pack(message({"W": good, "b": numpy_map((2,), [0.0, 0.0])})),
                 "W \\(3, 2\\) and b \\(2,\\) are not a Linear layer's"),
                (pack(renamed), "two arrays are named 'x#2.W'"),
                (pack(message()).replace(b"\xd9\x05upper", b"\xd4\x05upper"), "an ext value"),
                (b"\x81" + b"\x91" * 5000, "nest more than 64 deep")):
            with self.subTest(problem=problem):
                with self.assertRaisesRegex(InputError, "^m/model\\b.*" + problem):
                    self.arrays(data)

    def test_every_cut_of_a_real_file_is_refused(self):
        with open(TOY_NER, "rb") as handle:
            data = handle.read()
        for end in range(0, len(data), 37):
            with self.subTest(end=end), self.assertRaises(InputError):
                self.arrays(data[:end])

    def test_a_file_shorter_than_its_size_said(self):
        with self.assertRaisesRegex(InputError, "^m/model: the file ends at byte 2, before its"
                                                " size, 5$"):
            self.arrays(b"\x80\x80", 5)

    def test_a_parser_model_without_an_upper_layer_names_no_head(self):
        # spaCy's use_upper = false: the lower layer's maxout scores the actions.
        unscored = message()
        unscored["nodes"][0]["refs"] = {"upper": None, "lower": 1}
        arrays = self.arrays(pack(unscored))
        self.assertEqual(([a.name for a in arrays], arrays.head), (["lower.W", "lower.b"], None))

    def test_a_file_past_the_limit_is_refused_before_it_is_read(self):
        with self.assertRaisesRegex(InputError, "past the limit of %d" % MAX_BYTES):
            self.arrays(b"", MAX_BYTES + 1)

    def test_other_float_types_and_models_without_a_transition_head(self):
        arrays = self.arrays(pack(message(root="tagger", upper={
            "W": numpy_map((1, 2), [1.0, -2.0], ">f4"), "b": numpy_map((1,), [0.5], "<f8"),
            "E": numpy_map((1,), [1.5], "<f2"), "pad": None})))
        self.assertIsNone(arrays.head)
        self.assertEqual([(a.name, a.dtype) for a in arrays],
                         [("upper.W", ">f4"), ("upper.b", "<f8"), ("upper.E", "<f2")])
        self.assertEqual([a.load()[0].tolist() for a in arrays], [[1.0, -2.0], [0.5], [1.5]])
        self.assertEqual(arrays[1].load()[0].format, "d")


if __name__ == "__main__":
    unittest.main()
