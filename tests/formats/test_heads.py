"""Tests of the output layer and its bias found by name in model folders
of many architectures (reviews.formats.folders), tied and untied.

The folders are written here with the standard library: the tensor names
and config.json keys are those transformers gives each architecture, the
values a small layer where the bias decides a verdict.  In every head
below, w[1] is the mean of w[0] and w[2], so class 1 wins somewhere only
with a bias above the mean of theirs: its head's own bias [0, 1, 0, 0]."""

import json
import os

from reviews.argmax.check import check_layer
from reviews.errors import InputError
from reviews.formats.layers import read_model
from tests.support.arrays import raw, safetensors_bytes
from tests.support import FileTestCase, listed

HEAD = [[0, 0], [1, 0], [2, 0], [0, 1]]
BIAS = [0, 1, 0, 0]
EMBEDDING = [[3, 1], [1, 3], [-2, 2], [2, -2]]   # another matrix of the head's shape
STALE = [0, 0, 0, 0]   # a stored copy of a bias that the forward pass does not add
NORM = [1, 1]


def matrix(rows):
    return ("F32", (len(rows), len(rows[0])), raw([v for row in rows for v in row], "f"))


def vector(values):
    return ("F32", (len(values),), raw(values, "f"))


# architecture: (config.json, [(name, matrix or vector)], weights, bias or None)
ARCHITECTURES = {
    "xlm-roberta": (
        {"model_type": "xlm-roberta", "architectures": ["XLMRobertaForMaskedLM"],
         "tie_word_embeddings": False},
        [("roberta.embeddings.word_embeddings.weight", matrix(EMBEDDING)),
         ("roberta.embeddings.LayerNorm.weight", vector(NORM)),
         ("lm_head.dense.weight", matrix([[1, 0], [0, 1]])), ("lm_head.dense.bias", vector(NORM)),
         ("lm_head.layer_norm.weight", vector(NORM)), ("lm_head.layer_norm.bias", vector(NORM)),
         ("lm_head.decoder.weight", matrix(HEAD)), ("lm_head.decoder.bias", vector(BIAS)),
         ("lm_head.bias", vector(STALE))],
        "lm_head.decoder.weight", "lm_head.decoder.bias"),
    "distilbert": (
        {"model_type": "distilbert", "architectures": ["DistilBertForMaskedLM"],
         "tie_word_embeddings": False},
        [("distilbert.embeddings.word_embeddings.weight", matrix(EMBEDDING)),
         ("vocab_transform.weight", matrix([[1, 0], [0, 1]])),
         ("vocab_transform.bias", vector(NORM)), ("vocab_layer_norm.weight", vector(NORM)),
         ("vocab_projector.weight", matrix(HEAD)), ("vocab_projector.bias", vector(BIAS))],
        "vocab_projector.weight", "vocab_projector.bias"),
    "electra": (
        {"model_type": "electra", "architectures": ["ElectraForMaskedLM"],
         "tie_word_embeddings": False},
        [("electra.embeddings.word_embeddings.weight", matrix(EMBEDDING)),
         ("generator_predictions.dense.weight", matrix([[1, 0], [0, 1]])),
         ("generator_predictions.LayerNorm.weight", vector(NORM)),
         ("generator_lm_head.weight", matrix(HEAD)), ("generator_lm_head.bias", vector(BIAS))],
        "generator_lm_head.weight", "generator_lm_head.bias"),
    "whisper": (
        {"model_type": "whisper", "architectures": ["WhisperForConditionalGeneration"],
         "tie_word_embeddings": False},
        [("model.decoder.embed_tokens.weight", matrix(EMBEDDING)),
         ("model.decoder.layer_norm.weight", vector(NORM)), ("proj_out.weight", matrix(HEAD))],
        "proj_out.weight", None),
    "mt5": (
        {"model_type": "mt5", "d_model": 2, "tie_word_embeddings": False},
        [("shared.weight", matrix(EMBEDDING)), ("lm_head.weight", matrix(HEAD)),
         ("decoder.final_layer_norm.weight", vector(NORM))],
        "lm_head.weight", None),
    "gemma2": (
        {"model_type": "gemma2", "final_logit_softcapping": 30.0, "tie_word_embeddings": True},
        [("model.embed_tokens.weight", matrix(HEAD)), ("model.norm.weight", vector(NORM))],
        "model.embed_tokens.weight", None),
    "t5": (
        {"model_type": "t5", "d_model": 2},
        [("shared.weight", matrix(HEAD)), ("decoder.final_layer_norm.weight", vector(NORM)),
         ("encoder.final_layer_norm.weight", vector(NORM))],
        "shared.weight", None),
}


class ModelFolders(FileTestCase):

    def model_folder(self, name, config, tensors):
        folder = os.path.join(self.folder.name, name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "model.safetensors"), "wb") as handle:
            handle.write(safetensors_bytes([(n,) + array for n, array in tensors]))
        if config is not None:
            with open(os.path.join(folder, "config.json"), "w") as handle:
                json.dump(config, handle)
        return folder

    def architecture(self, name):
        config, tensors, _, _ = ARCHITECTURES[name]
        return self.model_folder(name, config, tensors)


class TestUntiedHeads(ModelFolders):

    def test_each_architectures_head_and_bias_are_found_without_flags(self):
        for name, (_, _, weights, bias) in ARCHITECTURES.items():
            with self.subTest(architecture=name):
                notes = []
                layer = read_model(self.architecture(name), note=notes.append)
                self.assertEqual((layer.weights_tensor.name, layer.bias_tensor and
                                  layer.bias_tensor.name), (weights, bias))
                self.assertEqual(listed(layer.weights), HEAD)
                self.assertEqual(layer.bias, BIAS if bias else None)
                # With its own bias, class 1 wins somewhere; without, never.
                self.assertEqual([r.argmaxable for r in check_layer(layer.weights, layer.bias)],
                                 [True, bool(bias), True, True])

    def test_the_untied_roberta_head_pairs_its_own_bias_not_the_stale_copy(self):
        # lm_head.decoder.weight pairs lm_head.decoder.bias, which the
        # forward pass adds; lm_head.bias is a stored copy it never adds.
        folder = self.architecture("xlm-roberta")
        for tensor in (None, "lm_head.decoder.weight"):
            with self.subTest(tensor=tensor):
                notes = []
                layer = read_model(folder, tensor=tensor, note=notes.append)
                self.assertEqual((layer.bias_tensor.name, layer.bias),
                                 ("lm_head.decoder.bias", BIAS))
                self.assertIn("%s: array 'lm_head.decoder.bias' (4,) is read as the bias (the"
                              " bias of 'lm_head.decoder.weight' by its name); name another"
                              " with bias_tensor=... or --bias-tensor, or none with"
                              " no_bias=True or --no-bias" % folder, notes)
                self.assertIn("%s: array 'lm_head.bias' (4,) (one value per class) is not"
                              " read: the bias is 'lm_head.decoder.bias'"
                              % os.path.join(folder, "model.safetensors"), notes)
                # The model ranks class 1 first at its witness, with the bias it adds.
                result = check_layer(layer.weights, layer.bias)[1]
                logits = [sum(w * x for w, x in zip(row, result.witness)) + b
                          for row, b in zip(HEAD, BIAS)]
                self.assertEqual(max(range(4), key=logits.__getitem__), 1)
                self.assertTrue(result.argmaxable)
        self.assertFalse(check_layer(HEAD, STALE)[1].argmaxable)

    def test_a_linear_layers_bias_by_name_of_another_length_is_an_error(self):
        folder = self.model_folder("m", None, [("lm_head.weight", matrix(HEAD)),
                                         ("lm_head.bias", vector([0, 1, 0, 0, 5]))])
        with self.assertRaises(InputError) as caught:
            read_model(folder)
        self.assertEqual(str(caught.exception),
                         "%s: array 'lm_head.bias' (5,), the bias of 'lm_head.weight' by its"
                         " name, does not have one value for each of its 4 classes (stored as"
                         " (d, C)? then read it transposed)" % folder)

    def test_a_heads_bias_by_name_of_another_length_is_not_read_with_a_note(self):
        folder = self.model_folder("m", None, [("model.shared.weight", matrix(HEAD)),
                                         ("final_logits_bias", ("F32", (1, 5),
                                                                raw([0, 1, 0, 0, 5], "f")))])
        notes = []
        self.assertIsNone(read_model(folder, note=notes.append).bias)
        self.assertIn("%s: array 'final_logits_bias' (1, 5) is not read as the bias: it does"
                      " not have one value for each of the 4 classes" % folder, notes)

    def test_two_biases_by_name_that_differ_are_listed(self):
        folder = self.model_folder("m", None, [("model.shared.weight", matrix(HEAD)),
                                         ("final_logits_bias", vector(BIAS)),
                                         ("cls.predictions.bias", vector(STALE))])
        with self.assertRaisesRegex(InputError, "has 2 biases of the output layer that differ;"
                                                " name one with bias_tensor=... or"
                                                " --bias-tensor: 'final_logits_bias' \\(4,\\)"
                                                " F32; 'cls.predictions.bias' \\(4,\\) F32$"):
            read_model(folder)
        self.assertEqual(read_model(folder, bias_tensor="final_logits_bias").bias, BIAS)

    def test_two_biases_by_name_that_agree_are_one_bias(self):
        folder = self.model_folder("m", None, [("model.shared.weight", matrix(HEAD)),
                                         ("final_logits_bias", vector(BIAS)),
                                         ("cls.predictions.bias", vector(BIAS))])
        notes = []
        layer = read_model(folder, note=notes.append)
        self.assertEqual((layer.bias_tensor.name, layer.bias), ("final_logits_bias", BIAS))
        self.assertIn("%s: array 'final_logits_bias' (4,) is read as the bias (the output"
                      " layer's bias by its name, the same values as 'cls.predictions.bias');"
                      " name another with bias_tensor=... or --bias-tensor, or none with"
                      " no_bias=True or --no-bias" % folder, notes)


class TestMonotoneLogits(ModelFolders):

    def test_soft_capped_logits_keep_the_verdicts_and_a_note_says_so(self):
        notes = []
        read_model(self.architecture("gemma2"), note=notes.append)
        self.assertIn("%s: config.json has final_logit_softcapping = 30.0: the model's logits"
                      " are c * tanh(z / c), an increasing function of each logit z, so every"
                      " verdict holds for the capped logits too"
                      % os.path.join(self.folder.name, "gemma2"), notes)

    def test_a_tied_t5_heads_scaling_keeps_the_verdicts_and_a_note_says_so(self):
        notes = []
        read_model(self.architecture("t5"), note=notes.append)
        self.assertIn("%s: config.json has model_type = 't5': a tied head's input is scaled by"
                      " d_model ** -0.5, which multiplies every logit by one positive number,"
                      " so every verdict holds for the scaled logits too"
                      % os.path.join(self.folder.name, "t5"), notes)

    def test_a_t5_config_that_says_it_does_not_scale_gets_no_such_note(self):
        config, tensors, _, _ = ARCHITECTURES["t5"]
        notes = []
        read_model(self.model_folder("t5-plain", dict(config, scale_decoder_outputs=False),
                                     tensors), note=notes.append)
        self.assertFalse([line for line in notes if "scaled" in line])

    def test_cohere_s_logit_scale_keeps_the_verdicts_and_a_note_says_so(self):
        notes = []
        folder = self.model_folder("cohere", {"model_type": "cohere", "logit_scale": 0.0625},
                                   [("model.embed_tokens.weight", matrix(HEAD))])
        read_model(folder, note=notes.append)
        self.assertIn("%s: config.json has logit_scale = 0.0625: the model's logits are the"
                      " head's times that positive number, so every verdict holds for the"
                      " scaled logits too" % folder, notes)

    def test_an_untied_mt5_head_is_not_scaled_and_gets_no_such_note(self):
        notes = []
        read_model(self.architecture("mt5"), note=notes.append)
        self.assertFalse([line for line in notes if "scaled" in line or "capped" in line])


class TestTiedOrNot(ModelFolders):

    def test_a_tie_word_embeddings_that_is_not_true_or_false_is_refused(self):
        for value in ("false", 0, None, "true"):
            with self.subTest(value=value):
                folder = self.model_folder("m", {"tie_word_embeddings": value},
                                           [("model.embed_tokens.weight", matrix(HEAD)),
                                            ("model.layers.0.mlp.weight", matrix(EMBEDDING)),
                                            ("model.norm.weight", vector(NORM))])
                with self.assertRaises(InputError) as caught:
                    read_model(folder)
                self.assertEqual(str(caught.exception),
                                 "%s: config.json has tie_word_embeddings = %s, not true or"
                                 " false: is the output layer tied to the input embedding? Name"
                                 " it with tensor=... or --tensor"
                                 % (folder, json.dumps(value).replace('"', "'")))
                self.assertEqual(read_model(folder, tensor="model.embed_tokens.weight")
                                 .weights_tensor.name, "model.embed_tokens.weight")


class TestNoHeadByName(ModelFolders):

    NORMS = [("layers.%d.norm.weight" % n, vector(NORM)) for n in range(14)]

    def test_an_untied_model_without_a_usual_name_lists_its_matrices_first(self):
        folder = self.model_folder("m", {"tie_word_embeddings": False},
                             self.NORMS + [("model.embed_tokens.weight", matrix(EMBEDDING)),
                                           ("decoder_head.weight", matrix(HEAD + HEAD)),
                                           ("layers.0.dense.weight", matrix([[1, 0], [0, 1]]))])
        with self.assertRaises(InputError) as caught:
            read_model(folder)
        message = str(caught.exception)
        self.assertNotIn("no output layer is stored", message)
        self.assertTrue(message.startswith(
            "%s: config.json has tie_word_embeddings = false, and no array has an output"
            " layer's usual name (lm_head.weight, " % folder), message)
        self.assertIn("; name the output layer with tensor=... or --tensor:"
                      " 'decoder_head.weight' (8, 2) F32; 'model.embed_tokens.weight' (4, 2)"
                      " F32; 'layers.0.dense.weight' (2, 2) F32; 'layers.0.norm.weight' (2,) F32;",
                      message)

    def test_a_file_of_several_matrices_lists_them_first(self):
        folder = self.model_folder("m", None, self.NORMS + [("z.head.weight", matrix(HEAD)),
                                                      ("y.dense.weight", matrix([[1, 0], [0, 1]]))])
        with self.assertRaises(InputError) as caught:
            read_model(folder)
        self.assertIn("holds 16 arrays; name the weights (tensor=... or --tensor):"
                      " 'z.head.weight' (4, 2) F32; 'y.dense.weight' (2, 2) F32;"
                      " 'layers.0.norm.weight' (2,) F32", str(caught.exception))
