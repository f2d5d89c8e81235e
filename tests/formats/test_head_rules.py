"""Tests of reviews.formats.heads: the head a folder's forward pass uses,
found by rule from config.json (classifiers, vocabulary rows) and a bias
in another shard.  The folders are written here, tensor by tensor, in the
layout transformers gives each architecture."""

import decimal
import json
import os
import shutil

from reviews.errors import InputError
from reviews.formats.heads import classifier_labels
from reviews.formats.layers import read_model
from tests.support import FileTestCase, listed
from tests.support.arrays import raw, safetensors_bytes
from tests.support.commands import in_process
from tests.support.models import model, rows, safetensors_tensor


def f32(name, shape, values):
    return (name, "F32", shape, raw(values, "f"))


class FolderTestCase(FileTestCase):

    def folder_with(self, config, *shards, vocab=None):
        """A model folder: config.json, one model.safetensors or shards with
        their index, and a vocab.txt of ``vocab`` tokens."""
        folder = os.path.join(self.folder.name, "m%d" % len(os.listdir(self.folder.name)))
        os.makedirs(folder)
        with open(os.path.join(folder, "config.json"), "w") as handle:
            json.dump(config, handle)
        names = (["model.safetensors"] if len(shards) == 1 else
                 ["model-%05d-of-%05d.safetensors" % (k + 1, len(shards))
                  for k in range(len(shards))])
        weight_map = {}
        for name, tensors in zip(names, shards):
            with open(os.path.join(folder, name), "wb") as handle:
                handle.write(safetensors_bytes(tensors))
            weight_map.update((tensor[0], name) for tensor in tensors)
        if len(shards) > 1:
            with open(os.path.join(folder, "model.safetensors.index.json"), "w") as handle:
                json.dump({"weight_map": weight_map}, handle)
        if vocab is not None:
            with open(os.path.join(folder, "vocab.txt"), "w") as handle:
                handle.write("".join(token + "\n" for token in vocab))
        return folder


# A BERT sequence classifier of 2 labels, hidden size 2: its word embedding
# (5 x 2) and its token-type embedding (2 x 2, as many rows as labels).
BERT_CLASSIFIER = [
    f32("bert.embeddings.word_embeddings.weight", (5, 2), [0, 0, 1, 0, 0, 1, 1, 1, 2, 2]),
    f32("bert.embeddings.token_type_embeddings.weight", (2, 2), [9, 9, 8, 8]),
    f32("classifier.weight", (2, 2), [1, -1, -1, 1]),
    f32("classifier.bias", (2,), [0, 1]),
]
BERT_CONFIG = {"architectures": ["BertForSequenceClassification"],
               "id2label": {"0": "NEGATIVE", "1": "POSITIVE"}, "vocab_size": 5}


class TestClassifiers(FolderTestCase):

    def test_a_sequence_classifier_s_head_is_its_classification_layer(self):
        folder = self.folder_with(BERT_CONFIG, BERT_CLASSIFIER, vocab="abcde")
        notes = []
        layer = read_model(folder, note=notes.append)
        self.assertEqual((layer.weights_tensor.name, layer.bias_tensor.name),
                         ("classifier.weight", "classifier.bias"))
        self.assertEqual((listed(layer.weights), layer.bias), ([[1, -1], [-1, 1]], [0, 1]))
        self.assertEqual(layer.tokens, {0: "NEGATIVE", 1: "POSITIVE"})
        self.assertIn("%s: classes named by config.json's id2label" % folder, notes)

    def test_the_command_reports_the_labels_not_the_word_embedding(self):
        folder = self.folder_with(BERT_CONFIG, BERT_CLASSIFIER, vocab="abcde")
        status, out, _ = in_process("check-layer", folder)
        self.assertEqual(status, 0)
        self.assertIn("'classifier.weight' F32 (2, 2)", out)
        self.assertIn("0 of 2 classes unargmaxable", out)
        self.assertNotIn("word_embeddings", out)

    def test_roberta_s_heads_out_proj_and_a_token_classifier(self):
        dense = f32("classifier.dense.weight", (3, 3), [1, 0, 0, 0, 1, 0, 0, 0, 1])
        out_proj = f32("classifier.out_proj.weight", (2, 3), [1, 0, 0, 0, 1, 0])
        embedding = f32("roberta.embeddings.word_embeddings.weight", (4, 3), [0] * 12)
        sequence = self.folder_with({"architectures": ["RobertaForSequenceClassification"],
                                     "num_labels": 2}, [embedding, dense, out_proj])
        self.assertEqual(read_model(sequence).weights_tensor.name, "classifier.out_proj.weight")
        token = self.folder_with({"architectures": ["RobertaForTokenClassification"],
                                  "id2label": {"0": "O", "1": "B-PER", "2": "I-PER"}},
                                 [embedding, f32("classifier.weight", (3, 3), [0] * 9)])
        layer = read_model(token)
        self.assertEqual((layer.weights_tensor.name, layer.tokens),
                         ("classifier.weight", {0: "O", 1: "B-PER", 2: "I-PER"}))

    def test_two_layers_that_could_be_the_classifier_are_listed(self):
        folder = self.folder_with(
            {"architectures": ["XForSequenceClassification"], "num_labels": 2},
            [f32("classifier.weight", (2, 2), [1, 0, 0, 1]),
             f32("score.weight", (2, 2), [0, 1, 1, 0])])
        with self.assertRaisesRegex(InputError, "config.json names a classifier of 2 labels, and"
                                                " 2 matrices could be its layer: 'classifier"
                                                r".weight' \(2, 2\) \(2 rows\), 'score.weight'"):
            read_model(folder)

    def test_labels_come_from_id2label_or_num_labels(self):
        self.assertEqual(classifier_labels({"architectures": ["AForTokenClassification"],
                                            "num_labels": decimal.Decimal(4)}),
                         (4, None))
        self.assertIsNone(classifier_labels({"architectures": ["AForMaskedLM"],
                                             "id2label": {"0": "x"}}))


class TestByRows(FolderTestCase):

    def test_albert_s_tied_head_stored_twice_is_one_head(self):
        embedding = [0, 0, 1, 0, 0, 1, 2, 2]
        folder = self.folder_with(
            {"vocab_size": 4},
            [f32("albert.embeddings.word_embeddings.weight", (4, 2), embedding),
             f32("predictions.decoder.weight", (4, 2), embedding),
             f32("predictions.bias", (4,), [0, 0, 0, 1])])
        notes = []
        layer = read_model(folder, note=notes.append)
        self.assertEqual(layer.weights_tensor.name, "albert.embeddings.word_embeddings.weight")
        self.assertEqual(layer.bias, [0, 0, 0, 1])
        self.assertIn("the matrix of vocab_size = 4 rows, the same values as"
                      " 'predictions.decoder.weight'", notes[0])

    def test_a_translation_model_s_target_vocabulary_rows(self):
        folder = self.folder_with(
            {"tgt_vocab_size": 3, "tie_word_embeddings": False},
            [f32("model.decoder.embed_tokens.weight", (3, 2), [5] * 6),
             f32("model.decoder.output_projection.weight", (3, 2), [1, 0, 0, 1, -1, -1])])
        layer = read_model(folder)
        self.assertEqual(layer.weights_tensor.name, "model.decoder.output_projection.weight")

    def test_matrices_of_vocabulary_rows_that_differ_are_listed(self):
        folder = self.folder_with(
            {"vocab_size": 3},
            [f32("backbone.embeddings.weight", (3, 2), [1, 0, 0, 1, -1, -1]),
             f32("other.weight", (3, 2), [0] * 6)])
        with self.assertRaisesRegex(InputError, "2 matrices of vocab_size = 3 rows differ"):
            read_model(folder)


class TestBiasInAnotherShard(FolderTestCase):

    def test_a_head_s_bias_in_another_shard_is_read(self):
        # Sharded ALBERT and ModernBERT keep the head's bias where it falls:
        # looked for in the weights' shard only, the decoy class was called
        # unargmaxable with no bias.
        folder = self.folder_with(
            {"vocab_size": 3},
            [f32("model.embeddings.tok_embeddings.weight", (3, 1), [0, 1, 2])],
            [f32("decoder.bias", (3,), [0, 1, 0]), f32("model.layers.0.bias", (3,), [9, 9, 9])])
        layer = read_model(folder, tensor="model.embeddings.tok_embeddings.weight")
        self.assertEqual((layer.bias, layer.bias_tensor.name), ([0, 1, 0], "decoder.bias"))
        status, out, _ = in_process("check-layer", folder)
        self.assertIn("0 of 3 classes unargmaxable", out)


class TestFoldersWrittenByTransformers(FileTestCase):
    """The folders of tests/data/models written by transformers 5.25 and
    torch 2.13 for these cases: each head and bias checked there by a
    forward pass (logits = h @ W.T + b)."""

    def test_each_folder_s_head_bias_and_names(self):
        for folder, head, bias, tokens in (
                ("bert-seqcls", "classifier.weight", "classifier.bias",
                 {0: "NEG", 1: "NEU", 2: "POS"}),
                ("roberta-tokcls", "classifier.weight", "classifier.bias",
                 {k: "LABEL_%d" % k for k in range(5)}),
                ("roberta-seqcls", "classifier.out_proj.weight", "classifier.out_proj.bias", None),
                ("albert-sharded", "albert.embeddings.word_embeddings.weight", "predictions.bias",
                 None),
                ("albert-bin", "albert.embeddings.word_embeddings.weight", "predictions.bias",
                 None)):
            with self.subTest(folder=folder):
                layer = read_model(model(folder))
                self.assertEqual((layer.weights_tensor.name, layer.bias_tensor.name,
                                  layer.tokens), (head, bias, tokens))

    def test_the_classifier_s_middle_label_is_unargmaxable_by_its_name(self):
        status, out, _ = in_process("check-layer", model("bert-seqcls"))
        self.assertEqual(status, 0)
        self.assertIn("\n  class 1 'NEU': w[1] = 0.5*w[0] + 0.5*w[2]\n", out)
        self.assertIn("\n1 of 3 classes unargmaxable, 2 argmaxable.\n", out)

    def test_albert_s_decoy_class_wins_by_its_bias_sharded_or_not(self):
        # Row 5 is midway between rows 3 and 4; only predictions.bias lifts it.
        for folder in ("albert-sharded", "albert-bin"):
            with self.subTest(folder=folder):
                status, out, _ = in_process("check-layer", model(folder))
                self.assertIn("\n0 of 12 classes unargmaxable, 12 argmaxable.\n", out)
                layer = read_model(model(folder))
                self.assertEqual(layer.bias[5], 4)


# (folder, head, bias) of the folders of tests/data/models/architectures:
# architectures that were refused when the head was found by name alone.
ARCHITECTURES = [
    ("cohere", "model.embed_tokens.weight", None),
    ("ctrl", "transformer.w.weight", "lm_head.bias"),
    ("deberta-v2", "deberta.embeddings.word_embeddings.weight", "cls.predictions.bias"),
    ("fsmt", "model.decoder.output_projection.weight", None),
    ("funnel", "funnel.embeddings.word_embeddings.weight", "lm_head.bias"),
    ("m2m_100", "model.shared.weight", None),
    ("mamba", "backbone.embeddings.weight", None),
    ("modernbert", "model.embeddings.tok_embeddings.weight", "decoder.bias"),
    ("mpnet", "mpnet.embeddings.word_embeddings.weight", "lm_head.bias"),
    ("t5", "shared.weight", None),
    ("xglm", "model.embed_tokens.weight", None),
]


class TestArchitecturesWrittenByTransformers(FileTestCase):

    def test_each_architecture_s_head_and_bias_with_no_flags(self):
        for folder, head, bias in ARCHITECTURES:
            with self.subTest(folder=folder):
                path = model("architectures", folder)
                layer = read_model(path)
                self.assertEqual((layer.weights_tensor.name,
                                  layer.bias_tensor and layer.bias_tensor.name), (head, bias))
                shape, flat = safetensors_tensor(os.path.join(path, "model.safetensors"), head)
                self.assertEqual(listed(layer.weights), rows(shape, flat))
                if bias is not None:
                    self.assertEqual(list(layer.bias), safetensors_tensor(
                        os.path.join(path, "model.safetensors"), bias)[1])


class TestAddedTokens(FileTestCase):

    def test_m2m100_s_language_tokens_follow_its_vocabulary(self):
        folder = os.path.join(self.folder.name, "m2m_100")
        shutil.copytree(model("architectures", "m2m_100"), folder)
        with open(os.path.join(folder, "vocab.json"), "w") as handle:
            json.dump({"t%d" % k: k for k in range(20)}, handle)
        notes = []
        layer = read_model(folder, note=notes.append)
        self.assertEqual([layer.tokens[k] for k in (19, 20, 21, 29)],
                         ["t19", "__af__", "__am__", "__br__"])
        self.assertIn("%s: 100 tokens the tokenizer adds past %s named too (__af__ to __zu__)"
                      % (folder, os.path.join(folder, "vocab.json")), notes)


class TestShardedRefusals(FolderTestCase):

    def test_a_sharded_folder_with_no_head_found_lists_its_matrices(self):
        folder = self.folder_with(
            {"model_type": "x"},
            [f32("a.weight", (3, 2), [0] * 6)], [f32("b.weight", (4, 2), [1] * 8)])
        with self.assertRaisesRegex(InputError, r"no output layer under a usual name .* nor a"
                                                r" matrix of config.json's vocab_size rows;"
                                                r" name the weights with tensor=... or --tensor:"
                                                r" 'b.weight' \(4, 2\) F32; 'a.weight'"):
            read_model(folder)


class TestPairedHeads(FileTestCase):

    def test_g2p_en_s_head_is_found_without_tensor_and_oriented_by_its_bias(self):
        # g2p-en's checkpoint layout (tests/data/models/README.md): fc_w and fc_b
        # beside a GRU's arrays, whose names pair no weights with a bias.
        path = model("g2p-en", "checkpoint20.npz")
        notes = []
        layer = read_model(path, note=notes.append)
        self.assertEqual((layer.weights_tensor.name, layer.weights_tensor.shape,
                          layer.bias_tensor.name), ("fc_w", (8, 12), "fc_b"))
        # No note asks whether the layer of d = 12 > C = 8 is stored transposed:
        # its bias by name has one value per row.
        self.assertEqual(notes, [
            "%s: weights 'fc_w' (8, 12): no array has an output layer's usual name, and this is"
            " the only matrix with a bias beside it by name, of one value per class" % path,
            "%s: array 'fc_b' (8,) is read as the bias (the bias of 'fc_w' by its name); name"
            " another with bias_tensor=... or --bias-tensor, or none with no_bias=True or"
            " --no-bias" % path])
        status, out, _ = in_process("check-layer", path, "--format", "json")
        self.assertEqual((status, json.loads(out)["unargmaxable"]), (0, [5]))

    def test_two_matrices_with_their_biases_are_not_guessed_between(self):
        path = self.write("mlp.safetensors", safetensors_bytes([
            f32("fc1_w", (3, 2), [1, 0, 0, 1, 1, 1]), f32("fc1_b", (3,), [0, 0, 0]),
            f32("fc2_w", (2, 3), [1, 0, 0, 0, 1, 0]), f32("fc2_b", (2,), [0, 0])]))
        with self.assertRaisesRegex(InputError, "holds 4 arrays; name the weights"):
            read_model(path)

    def test_a_bias_found_by_its_shape_alone_leaves_the_transpose_note(self):
        path = self.write("dc.safetensors", safetensors_bytes([
            f32("head", (2, 4), [1, 0, 0, 0, 0, 1, 0, 0]), f32("logits_bias", (2,), [0, 0])]))
        notes = []
        read_model(path, note=notes.append)
        self.assertIn("%s: 2 classes of dimension d = 4 > C: if the layer is stored as (d, C),"
                      " read it transposed" % path, notes)


# (folder, head, bias, unargmaxable) of tests/data/models/composites, written by
# transformers 5.25.0; each head's row 5 was set to the midpoint of rows 3 and 4.
COMPOSITES = [
    ("encoder-decoder", "decoder.cls.predictions.decoder.weight",
     "decoder.cls.predictions.decoder.bias", [0, 5, 9]),
    ("encoder-decoder-tied", "decoder.bert.embeddings.word_embeddings.weight",
     "decoder.cls.predictions.bias", [5]),
    ("vision-encoder-decoder", "decoder.output_projection.weight", None, [5]),
]
MOBILEBERT = "concat(%s, cls.predictions.dense.weight.T)"


class TestComposites(FolderTestCase):

    def test_a_composite_s_head_is_its_decoder_s_found_by_the_decoder_s_config(self):
        for folder, head, bias, unargmaxable in COMPOSITES:
            with self.subTest(folder=folder):
                path = model("composites", folder)
                notes = []
                layer = read_model(path, note=notes.append)
                self.assertEqual((layer.weights_tensor.name,
                                  layer.bias_tensor and layer.bias_tensor.name), (head, bias))
                weights = os.path.join(path, "model.safetensors")
                self.assertEqual(listed(layer.weights), rows(*safetensors_tensor(weights, head)))
                if bias is not None:
                    self.assertEqual(list(layer.bias), safetensors_tensor(weights, bias)[1])
                self.assertIn("%s: config.json names a composite model" % path, notes[0])
                status, out, _ = in_process("check-layer", path, "--format", "json")
                self.assertEqual((status, json.loads(out)["unargmaxable"]), (0, unargmaxable))

    def test_an_untied_decoder_without_a_head_is_refused_for_its_decoder(self):
        config = {"model_type": "encoder-decoder",
                  "decoder": {"model_type": "bert", "tie_word_embeddings": False}}
        folder = self.folder_with(config, [
            f32("decoder.bert.embeddings.word_embeddings.weight", (3, 2), [0] * 6),
            f32("encoder.embeddings.word_embeddings.weight", (3, 2), [0] * 6)])
        with self.assertRaisesRegex(InputError, "config.json has tie_word_embeddings = false for"
                                                " its decoder, and no array has an output"
                                                " layer's usual name \\(decoder.lm_head.weight,"):
            read_model(folder)

    def test_mobilebert_s_head_is_both_its_matrices_not_the_embedding_alone(self):
        for folder, first, dtype in (("mobilebert", "mobilebert.embeddings.word_embeddings.weight",
                                      "F32"),
                                     ("mobilebert-bin", "cls.predictions.decoder.weight",
                                      "float32")):
            with self.subTest(folder=folder):
                path = model("composites", folder)
                notes = []
                layer = read_model(path, note=notes.append)
                self.assertEqual(layer.weights_tensor, (MOBILEBERT % first, dtype, (12, 8)))
                self.assertEqual(layer.bias_tensor.name, "cls.predictions.bias")
                self.assertIn("MobileBERT's head, which multiplies by the concatenation of %r"
                              " (12, 4) and 'cls.predictions.dense.weight' (4, 12) transposed"
                              % first, notes[0])
                status, out, _ = in_process("check-layer", path, "--format", "json")
                self.assertEqual((status, json.loads(out)["unargmaxable"]), (0, [7]))
        # Each class's row: its embedding, then its column of the dense weight.
        weights = model("composites", "mobilebert", "model.safetensors")
        embedding = rows(*safetensors_tensor(weights, "mobilebert.embeddings.word_embeddings.weight"))
        dense = rows(*safetensors_tensor(weights, "cls.predictions.dense.weight"))
        self.assertEqual(listed(read_model(model("composites", "mobilebert")).weights),
                         [embedding[c] + [row[c] for row in dense] for c in range(12)])

    def test_the_embedding_alone_is_read_when_named_with_a_note(self):
        path = model("composites", "mobilebert")
        name = "mobilebert.embeddings.word_embeddings.weight"
        status, out, err = in_process("check-layer", path, "--tensor", name, "--format", "json")
        # Read alone, the half says class 5 is unargmaxable; the whole head can predict it.
        self.assertEqual((status, json.loads(out)["unargmaxable"]), (0, [2, 5, 7]))
        self.assertIn("array %r is only the first columns of MobileBERT's head, %s" % (
            name, MOBILEBERT % name), err)
        # The head's own name reads it whole (as merge reads a shard's layer).
        layer = read_model(path, tensor=MOBILEBERT % name)
        self.assertEqual((len(layer.weights), len(layer.weights[0])), (12, 8))

    def test_a_sharded_mobilebert_reads_each_part_from_its_shard(self):
        config = {"model_type": "mobilebert", "vocab_size": 3}
        folder = self.folder_with(config, [
            f32("mobilebert.embeddings.word_embeddings.weight", (3, 2), [1, 2, 3, 4, 5, 6])], [
            f32("cls.predictions.dense.weight", (1, 3), [7, 8, 9]),
            f32("cls.predictions.bias", (3,), [0, 0, 1])])
        layer = read_model(folder)
        self.assertEqual((listed(layer.weights), layer.bias),
                         ([[1, 2, 7], [3, 4, 8], [5, 6, 9]], [0, 0, 1]))
        self.assertEqual([os.path.basename(f) for f in layer.files],
                         ["config.json", "model.safetensors.index.json",
                          "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"])

    def test_mobilebert_parts_that_do_not_fit_are_one_error_naming_the_architecture(self):
        for tensors, problem in (
                ([f32("cls.predictions.dense.weight", (1, 4), [0] * 4),
                  f32("mobilebert.embeddings.word_embeddings.weight", (3, 2), [0] * 6)],
                 "do not fit \\(V x e and \\(d - e\\) x V, one dtype\\)"),
                ([f32("cls.predictions.dense.weight", (1, 3), [0] * 3)],
                 "the model has no 'cls.predictions.decoder.weight' nor")):
            with self.subTest(problem=problem):
                folder = self.folder_with({"model_type": "mobilebert"}, tensors)
                with self.assertRaisesRegex(InputError, "^%s: MobileBERT's head multiplies by"
                                                        " concat\\(.*%s" % (folder, problem)):
                    read_model(folder)
