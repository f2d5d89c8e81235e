"""Tests of reviews.formats.folders: model folders as hubs ship them
(the fixtures of tests/data/models, written by the real torch and
transformers), shards, and the output layer and its bias chosen by name.

Every verdict's certificate is checked against the tensors as read here
from the raw bytes, independently of the project's readers."""

import json
import os
import shutil

from reviews.argmax.check import check_layer
from reviews.errors import InputError
from reviews.formats.folders import model_files
from reviews.formats.layers import Tensor, read_model
from tests.support.models import ExactLayer, model, rows, safetensors_tensor
from tests.support.arrays import raw, safetensors_bytes
from tests.support import FileTestCase, listed
from tests.support.commands import in_process

# (folder, weights file, weights tensor, bias tensor or None) of each fixture.
FIXTURES = [
    ("gpt2-tied", "model.safetensors", "transformer.wte.weight", None),
    ("gpt2-sharded", "model-00001-of-00002.safetensors", "transformer.wte.weight", None),
    ("bert-mlm", "model.safetensors", "bert.embeddings.word_embeddings.weight",
     "cls.predictions.bias"),
    ("marian-bias", "model.safetensors", "model.shared.weight", "final_logits_bias"),
]


class TestFixtureFolders(FileTestCase):

    def test_each_folder_gives_its_output_layer_and_bias(self):
        for folder, weights_file, weights_name, bias_name in FIXTURES:
            with self.subTest(folder=folder):
                notes = []
                layer = read_model(model(folder), note=notes.append)
                shape, flat = safetensors_tensor(model(folder, weights_file), weights_name)
                self.assertEqual(listed(layer.weights), rows(shape, flat))
                self.assertEqual(layer.weights_tensor, Tensor(weights_name, "F32", shape))
                if bias_name is None:
                    self.assertIsNone(layer.bias)
                else:
                    bias_shape, bias = safetensors_tensor(model(folder, weights_file), bias_name)
                    self.assertEqual((layer.bias, layer.bias_tensor),
                                     (bias, Tensor(bias_name, "F32", bias_shape)))
                self.assertIn("%s: weights %r: no array has an output layer's usual name,"
                              " so the output layer is taken as tied to this input embedding"
                              " (config.json has tie_word_embeddings = true)"
                              % (model(folder), weights_name), notes)

    def test_every_certificate_holds_against_the_raw_bytes(self):
        # Each folder's verdicts, found by the exact check of the stored
        # float32 values (the fixtures' README: a hidden row may become
        # argmaxable in rounding), each proved by its certificate.
        expected = {"gpt2-tied": [], "gpt2-sharded": [], "bert-mlm": [0, 10],
                    "marian-bias": [256]}
        for folder, weights_file, weights_name, bias_name in FIXTURES:
            with self.subTest(folder=folder):
                layer = read_model(model(folder))
                path = model(folder, weights_file)
                exact = ExactLayer(rows(*safetensors_tensor(path, weights_name)),
                                   bias_name and safetensors_tensor(path, bias_name)[1])
                results = check_layer(layer.weights, layer.bias)
                self.assertEqual(len(results), len(exact.rows))
                self.assertEqual([r.index for r in results if not r.argmaxable],
                                 expected[folder])
                self.assertTrue(all(map(exact.holds, results)))

    def test_the_independent_check_refuses_a_tampered_certificate(self):
        # The check above could not pass a wrong certificate.
        layer = read_model(model("gpt2-tied"))
        exact = ExactLayer(layer.weights)
        result = check_layer(layer.weights[:40])[0]
        self.assertTrue(exact.holds(result))
        self.assertFalse(exact.holds(result._replace(index=1)))
        layer = read_model(model("bert-mlm"))
        exact = ExactLayer(layer.weights, layer.bias)
        hidden = check_layer(layer.weights, layer.bias)[10]
        self.assertTrue(exact.holds(hidden))
        (j, v), *rest = hidden.terms
        self.assertFalse(exact.holds(hidden._replace(terms=((j, v / 2),) + tuple(rest))))
        self.assertFalse(exact.holds(hidden._replace(index=11)))

    def test_a_shard_is_opened_only_for_the_tensors_used(self):
        folder = os.path.join(self.folder.name, "gpt2")
        shutil.copytree(model("gpt2-sharded"), folder)
        unused = os.path.join(folder, "model-00002-of-00002.safetensors")
        with open(unused, "wb") as handle:
            handle.write(b"not a safetensors file")
        layer = read_model(folder)
        self.assertEqual([os.path.basename(p) for p in layer.files],
                         ["config.json", "model.safetensors.index.json",
                          "model-00001-of-00002.safetensors", "tokenizer.json"])
        with self.assertRaisesRegex(InputError, "model-00002-of-00002.safetensors: the header"):
            read_model(folder, tensor="transformer.wpe.weight")

    def test_the_index_file_itself_can_be_given(self):
        layer = read_model(model("gpt2-sharded", "model.safetensors.index.json"))
        self.assertEqual(len(layer.weights), 300)


# The note of a folder with no vocabulary file.
NO_TOKENS = ("%s: no tokens: the folder has none of the vocabulary files read (tokenizer.json,"
             " vocab.json, vocab.txt, vocab-tgt.json, spiece.model, tokenizer.model,"
             " sentencepiece.bpe.model); name one with vocab=... or --vocab")


class TestChoosingByName(FileTestCase):

    def folder_with(self, tensors, config=None):
        folder = os.path.join(self.folder.name, "m")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "model.safetensors"), "wb") as handle:
            handle.write(safetensors_bytes(tensors))
        if config is not None:
            with open(os.path.join(folder, "config.json"), "w") as handle:
                json.dump(config, handle)
        return folder

    def test_a_stored_head_is_the_output_layer_even_beside_an_embedding(self):
        folder = self.folder_with([("lm_head.weight", "F32", (2, 2), raw([1, 0, 0, 1], "f")),
                                   ("model.embed_tokens.weight", "F32", (2, 2),
                                    raw([5, 5, 6, 6], "f"))], {"tie_word_embeddings": False})
        notes = []
        layer = read_model(folder, note=notes.append)
        self.assertEqual((listed(layer.weights), layer.weights_tensor.name),
                         ([[1, 0], [0, 1]], "lm_head.weight"))
        self.assertEqual(notes, ["%s: weights 'lm_head.weight': the model's output layer"
                                 % folder, NO_TOKENS % folder])

    def test_a_bias_like_array_left_unread_beside_the_chosen_bias_gets_a_note(self):
        folder = self.folder_with([("lm_head.weight", "F32", (2, 2), raw([1, 0, 0, 1], "f")),
                                   ("lm_head.bias", "F32", (2,), raw([0, 1], "f")),
                                   ("scale", "F32", (1, 2), raw([5, 5], "f"))])
        notes = []
        layer = read_model(folder, note=notes.append)
        self.assertEqual((layer.bias, layer.bias_tensor.name), ([0, 1], "lm_head.bias"))
        self.assertEqual(notes[-2], "%s: array 'scale' (1, 2) (one value per class) is not read:"
                                    " the bias is 'lm_head.bias'"
                         % os.path.join(folder, "model.safetensors"))
        notes = []
        layer = read_model(folder, bias_tensor="scale", note=notes.append)
        self.assertEqual((layer.bias, notes[-2]),
                         ([5, 5], "%s: array 'lm_head.bias' (2,) (one value per class) is not"
                                  " read: the bias is 'scale'"
                          % os.path.join(folder, "model.safetensors")))

    def test_a_linear_layers_own_bias_comes_before_other_biases_by_name(self):
        folder = self.folder_with([("lm_head.weight", "F32", (2, 2), raw([1, 0, 0, 1], "f")),
                                   ("lm_head.bias", "F32", (2,), raw([0, 1], "f")),
                                   ("final_logits_bias", "F32", (1, 2), raw([5, 5], "f"))])
        notes = []
        layer = read_model(folder, note=notes.append)
        self.assertEqual((layer.bias_tensor.name, layer.bias), ("lm_head.bias", [0, 1]))
        self.assertEqual(notes[-2], "%s: array 'final_logits_bias' (1, 2) (one value per class)"
                                    " is not read: the bias is 'lm_head.bias'"
                         % os.path.join(folder, "model.safetensors"))

    def test_untied_with_only_the_input_embedding_is_refused_not_read(self):
        # The lone matrix was taken before config.json was read, so the
        # embedding was checked as the head the config says is elsewhere.
        arrays = [("model.embed_tokens.weight", "F32", (3, 2), raw([1, 0, 0, 1, 1, 1], "f")),
                  ("model.norm.weight", "F32", (2,), raw([1, 1], "f"))]
        folder = self.folder_with(arrays, {"tie_word_embeddings": False})
        with self.assertRaisesRegex(InputError, "config.json has tie_word_embeddings = false, and"
                                                " no array has an output layer's usual name"
                                                r" \(lm_head.weight"):
            read_model(folder)
        folder = self.folder_with(arrays, {"tie_word_embeddings": "false"})
        with self.assertRaisesRegex(InputError, "config.json has tie_word_embeddings = 'false',"
                                                " not true or false"):
            read_model(folder)

    def test_untied_without_a_head_is_refused(self):
        folder = self.folder_with([("model.embed_tokens.weight", "F32", (2, 2),
                                    raw([5, 5, 6, 6], "f")),
                                   ("other.weight", "F32", (2, 2), raw([5, 5, 6, 6], "f"))],
                                  {"tie_word_embeddings": False})
        with self.assertRaisesRegex(InputError, "config.json has tie_word_embeddings = false, and"
                                                " no array has an output layer's usual name .*;"
                                                " name the output layer with"):
            read_model(folder)
        self.assertEqual(read_model(folder, tensor="other.weight").weights_tensor.name,
                         "other.weight")

    def test_two_heads_are_listed(self):
        folder = self.folder_with([("lm_head.weight", "F32", (2, 2), raw([1, 0, 0, 1], "f")),
                                   ("embed_out.weight", "F32", (2, 2), raw([1, 0, 0, 1], "f"))])
        with self.assertRaisesRegex(InputError, "has 2 output layers; name one with"
                                                " tensor=... or --tensor: 'lm_head.weight',"
                                                " 'embed_out.weight'$"):
            read_model(folder)

    def test_a_shard_outside_the_folder_is_refused(self):
        for shard in ("../x.safetensors", "/etc/passwd.safetensors", "x.py", 3,
                      "x\n<img src=x>.safetensors", ""):
            with self.subTest(shard=shard):
                index = self.write("model.safetensors.index.json",
                                   json.dumps({"weight_map": {"lm_head.weight": shard}}))
                with self.assertRaisesRegex(InputError, "weight_map names the file .*; expected"
                                                        " a .safetensors or .bin file name in"
                                                        " the same folder"):
                    read_model(index)

    def test_an_index_that_lies_about_a_shard_is_one_error(self):
        self.write("a.safetensors", safetensors_bytes([("x", "F32", (2, 2),
                                                        raw([1, 0, 0, 1], "f"))]))
        index = self.write("model.safetensors.index.json",
                           json.dumps({"weight_map": {"lm_head.weight": "a.safetensors"}}))
        with self.assertRaisesRegex(InputError, "a.safetensors has no array 'lm_head.weight'"):
            read_model(index)

    def test_a_folder_of_several_unnamed_weights_files_is_refused(self):
        folder = self.folder_with([("w", "F32", (1, 1), raw([1], "f"))])
        os.rename(os.path.join(folder, "model.safetensors"), os.path.join(folder, "a.safetensors"))
        self.assertEqual(listed(read_model(folder).weights), [[1]])
        shutil.copy(os.path.join(folder, "a.safetensors"), os.path.join(folder, "b.safetensors"))
        with self.assertRaisesRegex(InputError, "directory without a weights file .*; several"
                                                " weights files: 'a.safetensors', 'b.safetensors'"):
            read_model(folder)


class TestMessagesForANewcomer(FileTestCase):

    def test_a_wrong_tensor_name_lists_the_largest_matrices_first(self):
        # GPT-2's 16 arrays are listed 12 at most: its embedding came after
        # the layer norms in name order and was cut off.
        with self.assertRaises(InputError) as caught:
            read_model(model("gpt2-tied"), tensor="lm_head.weight")
        self.assertIn("; it has: 'transformer.wte.weight' (300, 16) F32; ", str(caught.exception))

    def test_a_repeated_key_in_config_json_is_named_without_a_contradiction(self):
        folder = os.path.join(self.folder.name, "gpt2")
        shutil.copytree(model("gpt2-tied"), folder)
        with open(os.path.join(folder, "config.json"), "w") as handle:
            handle.write('{"tie_word_embeddings": true, "tie_word_embeddings": true}')
        with self.assertRaises(InputError) as caught:
            read_model(folder)
        self.assertEqual(str(caught.exception), "%s: the document is an object, with the key"
                         " 'tie_word_embeddings' twice" % os.path.join(folder, "config.json"))

    def test_a_config_json_given_as_the_layer_points_to_its_folder(self):
        with self.assertRaises(InputError) as caught:
            read_model(model("gpt2-tied", "config.json"))
        self.assertTrue(str(caught.exception).endswith(
            "; a model's config.json describes it: pass the model's folder"))


class TestModelFiles(FileTestCase):

    def test_a_folder_or_its_index_names_every_file_of_the_folder(self):
        folder = os.path.join(self.folder.name, "gpt2")
        shutil.copytree(model("gpt2-sharded"), folder)
        every = tuple(os.path.join(folder, name) for name in sorted(os.listdir(folder)))
        self.assertEqual(model_files(folder), every)
        self.assertEqual(model_files(os.path.join(folder, "model.safetensors.index.json")), every)
        self.assertEqual(model_files(os.path.join(folder, "config.json")), ())

    def test_the_command_keeps_a_shard_it_never_opens(self):
        # The head is in shard 1; --output naming shard 2 replaced it, exit 0.
        folder = os.path.join(self.folder.name, "gpt2")
        shutil.copytree(model("gpt2-sharded"), folder)
        shard = os.path.join(folder, "model-00002-of-00002.safetensors")
        with open(shard, "rb") as handle:
            before = handle.read()
        status, out, err = in_process("check-layer", folder, "--output", shard)
        self.assertEqual((status, out), (2, ""))
        self.assertIn("refusing to overwrite it", err)
        with open(shard, "rb") as handle:
            self.assertEqual(handle.read(), before)

    def test_the_readers_refuse_a_path_that_is_not_text(self):
        for keywords in ({"path": 123}, {"path": "x.csv", "vocab": 5},
                         {"path": "x.csv", "tensor": b"w"}):
            with self.subTest(keywords=keywords), self.assertRaises(TypeError):
                read_model(**keywords)
