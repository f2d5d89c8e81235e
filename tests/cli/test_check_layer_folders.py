"""check-layer on model folders as hubs ship them: the output
layer chosen and said, the tokens shown, one line for a refused file."""

import json
import os
import unittest

from tests.support.commands import in_process, provenance
from tests.support.models import model


class TestModelFolders(unittest.TestCase):

    def test_a_bert_folder_names_its_unargmaxable_tokens(self):
        status, out, err = in_process("check-layer", model("bert-mlm"), "--jobs", "1",
                                      "--inputs", "all")
        self.assertEqual(status, 0)
        self.assertIn("%s: 200 classes, d = 16, with bias" % model("bert-mlm"), out)
        self.assertRegex(out, r"\n  class 0 '\[PAD\]': w\[0\] = ")
        self.assertRegex(out, r"\n  class 10 'f': w\[10\] = ")
        self.assertEqual(err.splitlines(), [
            "counterexamples: note: %s: weights 'bert.embeddings.word_embeddings.weight': no"
            " array has an output layer's usual name, so the output layer is taken as tied to"
            " this input embedding (config.json has tie_word_embeddings = true)"
            % model("bert-mlm"),
            "counterexamples: note: %s: array 'cls.predictions.bias' (200,) is read as the bias"
            " (the output layer's bias by its name); name another with bias_tensor=... or"
            " --bias-tensor, or none with no_bias=True or --no-bias" % model("bert-mlm"),
            "counterexamples: note: %s: tokens read from %s"
            % (model("bert-mlm"), model("bert-mlm", "vocab.txt"))])

    def test_the_report_starts_with_what_produced_it(self):
        status, out, _ = in_process("check-layer", model("marian-bias"), "--box", "100")
        files = [model("marian-bias", name)
                 for name in ("config.json", "model.safetensors", "vocab.json")]
        expected = provenance(*files, options="box R = 100").splitlines()
        expected[-1:-1] = ["weights: 'model.shared.weight' F32 (257, 16)",
                           "bias: 'final_logits_bias' F32 (1, 257)"]
        self.assertEqual((status, out.splitlines()[:len(expected)]), (0, expected))

    def test_json_names_the_tensors_and_files(self):
        _, out, _ = in_process("check-layer", model("gpt2-sharded"), "--format", "json")
        document = json.loads(out)
        # The final norm, transformer.ln_f, is in the second shard: it is read too.
        self.assertEqual([os.path.basename(f["path"]) for f in document["files"]],
                         ["config.json", "model.safetensors.index.json",
                          "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
                          "tokenizer.json"])
        self.assertEqual(document["inputs"]["names"],
                         ["transformer.ln_f.weight", "transformer.ln_f.bias"])
        self.assertEqual((document["weights_tensor"], document["bias_tensor"]),
                         ({"name": "transformer.wte.weight", "dtype": "F32",
                           "shape": [300, 16]}, None))

    def test_json_has_each_token(self):
        status, out, _ = in_process("check-layer", model("marian-bias"), "--format", "json")
        document = json.loads(out)
        with open(model("marian-bias", "vocab.json"), encoding="utf-8") as handle:
            vocab = {n: token for token, n in json.load(handle).items()}
        self.assertEqual([r["token"] for r in document["results"]],
                         [vocab.get(n) for n in range(257)])
        self.assertEqual(document["unargmaxable"], [256])


if __name__ == "__main__":
    unittest.main()
