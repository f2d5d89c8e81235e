"""Tests of check-layer over a final norm's outputs: model folders that name
their norm, --inputs layernorm|rmsnorm with a file's tensors, merge, and
the one-line refusals."""

import json
import os
import shutil
import unittest
from fractions import Fraction as F

from reviews.argmax.question import LayerNorm
from reviews.argmax.verify import verify
from reviews.formats.layers import read_layer
from reviews.record import LayerReport
from tests.support import FileTestCase
from tests.support.arrays import raw, safetensors_bytes
from tests.support.commands import in_process
from tests.support.models import model, safetensors_tensor


class TestModelFolders(unittest.TestCase):

    def test_a_gpt2_folder_is_checked_over_its_ln_f_by_default(self):
        status, out, err = in_process("check-layer", model("gpt2-tied"), "--format", "json")
        self.assertEqual(status, 0)
        self.assertIn("the head's inputs are the outputs of gpt2's final LayerNorm"
                      " 'transformer.ln_f' (weight 'transformer.ln_f.weight', bias"
                      " 'transformer.ln_f.bias', eps 0.00001): checked over what it can output",
                      err)
        report = LayerReport.from_json(out, "r.json")
        norm = report.question.inputs
        path = model("gpt2-tied", "model.safetensors")
        self.assertEqual((norm.kind, list(norm.weight), list(norm.bias), norm.eps),
                         ("layernorm", safetensors_tensor(path, "transformer.ln_f.weight")[1],
                          safetensors_tensor(path, "transformer.ln_f.bias")[1], F(1, 10 ** 5)))
        weights, _ = read_layer(model("gpt2-tied"))
        self.assertTrue(all(verify(weights, None, r, inputs=norm) for r in report.results))

    def test_inputs_all_asks_over_r_d_as_before(self):
        _, out, err = in_process("check-layer", model("gpt2-tied"), "--inputs", "all",
                                 "--format", "json")
        self.assertNotIn("inputs", json.loads(out))
        self.assertNotIn("final LayerNorm", err)

    def test_a_box_or_a_tolerance_is_asked_as_given(self):
        _, out, err = in_process("check-layer", model("gpt2-tied"), "--box", "100",
                                 "--format", "json")
        self.assertEqual((json.loads(out)["box"], "inputs" in json.loads(out)), ("100", False))

    def test_the_masked_lm_head_of_bert_is_fed_by_its_transform_s_layernorm(self):
        _, out, err = in_process("check-layer", model("bert-mlm"), "--format", "json")
        self.assertEqual(json.loads(out)["inputs"]["names"],
                         ["cls.predictions.transform.LayerNorm.weight",
                          "cls.predictions.transform.LayerNorm.bias"])
        self.assertEqual(json.loads(out)["inputs"]["eps"], "1/1000000000000")

    def test_a_classifier_s_head_keeps_r_d_and_says_so(self):
        _, out, err = in_process("check-layer", model("bert-seqcls"), "--format", "json")
        self.assertNotIn("inputs", json.loads(out))
        self.assertIn("is not bert's language-model head, which its final norm feeds: checked"
                      " over all of R^8", err)

    def test_an_unknown_model_type_keeps_r_d_and_says_so(self):
        _, out, err = in_process("check-layer", model("marian-bias"), "--format", "json")
        self.assertNotIn("inputs", json.loads(out))
        self.assertIn("no final norm is known for model_type 'marian'", err)


class TestFoldersRefused(FileTestCase):

    def gpt2_folder(self, name, edit):
        folder = os.path.join(self.folder.name, name)
        shutil.copytree(model("gpt2-tied"), folder)
        path = os.path.join(folder, "config.json")
        with open(path) as handle:
            config = json.load(handle)
        edit(config)
        with open(path, "w") as handle:
            json.dump(config, handle)
        return folder

    def test_a_zero_or_negative_eps_is_one_line(self):
        for n, eps in enumerate((0, -1e-5, "1e-5")):
            with self.subTest(eps=eps):
                folder = self.gpt2_folder("gpt2-%d" % n,
                                          lambda config: config.update(layer_norm_epsilon=eps))
                status, out, err = in_process("check-layer", folder)
                self.assertEqual((status, out), (2, ""))
                self.assertRegex(err, "^counterexamples: error: .*config.json has"
                                      " layer_norm_epsilon = .*; a norm's eps must be a"
                                      " positive number\n$")


class TestNamedNorms(FileTestCase):

    def layer_file(self, gains=(1.0, 2.0), shifts=(0.5, -0.5)):
        weights = [0.0, 0.0, 4.0, 0.0, 2.0, 0.0]
        return self.write("head.safetensors", safetensors_bytes([
            ("head.weight", "F32", (3, 2), raw(weights, "f")),
            ("head.bias", "F32", (3,), raw([0.0, 0.0, 1.0], "f")),
            ("norm.weight", "F32", (2,), raw(list(gains), "f")),
            ("norm.bias", "F32", (2,), raw(list(shifts), "f")),
            ("wide.weight", "F32", (3,), raw([1.0, 1.0, 1.0], "f")),
            ("row.weight", "F32", (1, 2), raw(list(gains), "f"))]))

    def test_a_file_s_norm_tensors_are_the_question(self):
        path = self.layer_file()
        status, out, _ = in_process("check-layer", path, "--tensor", "head.weight",
                                    "--bias-tensor", "head.bias", "--inputs", "layernorm",
                                    "--norm-weight", "norm.weight", "--norm-bias", "norm.bias",
                                    "--format", "json")
        self.assertEqual(status, 0)
        inputs = json.loads(out)["inputs"]
        self.assertEqual((inputs["weight"], inputs["bias"], inputs["names"]),
                         (["1", "2"], ["1/2", "-1/2"], ["norm.weight", "norm.bias"]))
        report = LayerReport.from_json(out, "r.json")
        norm = LayerNorm([1, 2], [F(1, 2), F(-1, 2)]).exact()
        weights = [[0, 0], [4, 0], [2, 0]]
        self.assertTrue(all(verify(weights, [0, 0, 1], r, inputs=norm)
                            for r in report.results))

    def test_a_norm_vector_stored_as_one_row_is_read(self):
        # Exporters keep a norm's weight as (1, d) (Magika's ONNX model).
        path = self.layer_file()
        _, out, _ = in_process("check-layer", path, "--tensor", "head.weight", "--bias-tensor",
                               "head.bias", "--inputs", "rmsnorm", "--norm-weight", "row.weight",
                               "--format", "json")
        self.assertEqual(json.loads(out)["inputs"]["weight"], ["1", "2"])

    def test_bad_norm_options_are_one_line(self):
        path = self.layer_file()
        common = ("check-layer", path, "--tensor", "head.weight", "--bias-tensor", "head.bias")
        for extra, message in (
                (("--norm-weight", "norm.weight"), "--norm-weight and --norm-bias go with"
                                                   " --inputs layernorm or rmsnorm"),
                (("--inputs", "rmsnorm", "--norm-bias", "norm.bias"), "--norm-bias goes with"
                                                                     " --inputs layernorm"),
                (("--inputs", "layernorm", "--norm-weight", "missing"), "no tensor 'missing'"
                                                                        "|has no array"),
                (("--inputs", "layernorm", "--norm-weight", "wide.weight"),
                 "'wide.weight' has shape \\(3,\\), not the head's d = 2 values"),
                (("--inputs", "layernorm", "--tolerance", "1e-8"), "a tolerance is not asked"),
                (("--inputs", "layernorm", "--box", "1"), "usage|not both")):
            with self.subTest(extra=extra):
                status, out, err = in_process(*common, *extra)
                self.assertEqual((status, out), (2, ""))
                self.assertRegex(err.splitlines()[-1], message)

    def test_a_text_layer_has_no_tensors_to_name(self):
        path = self.write("w.json", '{"weights": [[0, 0], [1, 0]]}')
        status, out, err = in_process("check-layer", path, "--inputs", "rmsnorm",
                                      "--norm-weight", "g")
        self.assertEqual((status, out), (2, ""))
        self.assertIn("has no named arrays", err)


class TestMerge(FileTestCase):

    def test_shards_over_the_norm_merge_into_the_one_run_report(self):
        shards = []
        for classes in ("0:150", "150:300"):
            shard = os.path.join(self.folder.name, classes.replace(":", "-") + ".json")
            in_process("check-layer", model("gpt2-tied"), "--classes", classes,
                       "--format", "json", "--output", shard)
            shards.append(shard)
        _, whole, _ = in_process("check-layer", model("gpt2-tied"), "--format", "json")
        status, merged, err = in_process("merge", *shards, "--format", "json")
        self.assertEqual((status, merged), (0, whole))

    def test_a_shard_whose_norm_was_edited_is_refused(self):
        shard = os.path.join(self.folder.name, "all.json")
        in_process("check-layer", model("gpt2-tied"), "--format", "json", "--output", shard)
        with open(shard) as handle:
            text = handle.read()
        document = json.loads(text)
        edited = text.replace(json.dumps(document["inputs"]["bias"]),
                              json.dumps(["1"] + document["inputs"]["bias"][1:]), 1)
        self.assertNotEqual(edited, text)
        with open(shard, "w") as handle:
            handle.write(edited)
        status, out, err = in_process("merge", shard)
        self.assertEqual((status, out), (2, ""))
        self.assertIn("its norm's transformer.ln_f.weight and transformer.ln_f.bias are not"
                      " the ones the shards name", err)


if __name__ == "__main__":
    unittest.main()
