"""Tests of check-layer on model files: arrays chosen by name, notes, errors."""

import json
import os

from tests.support import FileTestCase
from tests.support.arrays import npy_bytes, npz_bytes, raw, safetensors_bytes
from tests.support.commands import (FIGURE_1_CERTIFICATE, FIGURE_1_JSON, FIGURE_1_ROWS,
                                    README_NAME, README_OUTPUT, body, figure_1_npz_members,
                                    in_process, provenance)
from tests.support.models import model


class TestModelFiles(FileTestCase):
    """The readers' options through the command line, on files written here."""

    def test_tensor_chooses_the_weights_among_several_2d_arrays(self):
        path = self.write("m.npz", npz_bytes(figure_1_npz_members(
            ("embed.npy", npy_bytes([1.0, 0.0, 0.0, 1.0], (2, 2))))))
        status, out, err = in_process("check-layer", path, "--tensor", "lm_head")
        self.assertEqual((status, err), (0, ""))
        self.assertTrue(body(out).startswith("%s: 4 classes, d = 2, no bias;" % path), out)
        self.assertIn(FIGURE_1_CERTIFICATE, out)
        status, out, err = in_process("check-layer", path, "--tensor", "embed")
        self.assertEqual((status, err), (0, ""))
        self.assertIn("\n0 of 2 classes unargmaxable, 2 argmaxable.\n", out)

    def test_an_ambiguous_file_lists_its_arrays_and_exits_2(self):
        path = self.write("m.npz", npz_bytes(figure_1_npz_members(
            ("embed.npy", npy_bytes([1.0, 0.0, 0.0, 1.0], (2, 2))))))
        self.assertEqual(in_process("check-layer", path),
                         (2, "", "counterexamples: error: %s holds 2 arrays; name the weights"
                          " (tensor=... or --tensor): 'lm_head' (4, 2) <f8; 'embed' (2, 2) <f8\n"
                          % path))

    def test_a_missing_tensor_is_named_with_the_arrays_there_are(self):
        path = self.write("m.npz", npz_bytes(figure_1_npz_members()))
        status, out, err = in_process("check-layer", path, "--tensor", "head")
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, "counterexamples: error: %s has no array 'head'; it has:"
                              " 'lm_head' (4, 2) <f8\n" % path)

    def test_bias_tensor_reads_the_bias_from_the_same_file(self):
        flat = [v for row in FIGURE_1_ROWS for v in row]
        path = self.write("m.safetensors", safetensors_bytes(
            [("lm_head.weight", "F64", (4, 2), raw(flat, "d")),
             ("final_logits_bias", "F32", (4,), raw([0, 0, 0, 1], "f"))]))
        status, out, err = in_process("check-layer", path, "--bias-tensor", "final_logits_bias",
                                      "--format", "json")
        self.assertEqual((status, err), (0, ""))
        document = json.loads(out)
        self.assertEqual((document["bias"], document["unargmaxable"]), (True, []))
        # Without it, the only array of one value per class is the bias, with a note.
        status, out, err = in_process("check-layer", path, "--format", "json")
        self.assertEqual((status, json.loads(out)["unargmaxable"]), (0, []))
        self.assertEqual(err, "counterexamples: note: %s: array 'final_logits_bias' (4,) is read"
                              " as the bias (the output layer's bias by its name); name another"
                              " with bias_tensor=... or --bias-tensor, or none with"
                              " no_bias=True or --no-bias\n" % path)

    def test_bias_tensor_from_a_separate_bias_file(self):
        layer = self.write("fig1.json", FIGURE_1_JSON)
        bias = self.write("b.npz", npz_bytes([("b.npy", npy_bytes([0.0, 0.0, 0.0, 1.0], (4,))),
                                              ("c.npy", npy_bytes([0.0] * 4, (4,)))]))
        _, out, _ = in_process("check-layer", layer, "--bias", bias, "--bias-tensor", "b",
                               "--format", "json")
        self.assertEqual(json.loads(out)["unargmaxable"], [])
        _, out, _ = in_process("check-layer", layer, "--bias", bias, "--bias-tensor", "c",
                               "--format", "json")
        self.assertEqual(json.loads(out)["unargmaxable"], [3])

    def test_a_1d_array_as_weights_is_said_to_look_like_a_bias(self):
        path = self.write("b.npy", npy_bytes([1.0, 2.0], (2,)))
        status, out, err = in_process("check-layer", path)
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, "counterexamples: error: %s: the array has shape (2,): one"
                              " number per class looks like a bias, not weights\n" % path)

    def test_a_tensor_name_for_a_text_file_is_an_error(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        status, out, err = in_process("check-layer", path, "--tensor", "w")
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, "counterexamples: error: %s has no named arrays (tensors name"
                              " arrays in .npz and .safetensors files)\n" % path)

    def test_empty_tensor_names_are_usage_errors(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        for flag in ("--tensor", "--bias-tensor"):
            with self.subTest(flag=flag):
                self.assertEqual(in_process("check-layer", path, flag, ""),
                                 (2, "", "counterexamples: error: argument %s: expected an"
                                  " array name, got an empty string\n" % flag))

    def test_no_bias_with_a_bias_named_is_a_usage_error_before_any_reading(self):
        missing = os.path.join(self.folder.name, "missing.npz")
        for flags, named in ((["--bias", missing], "--bias"), (["--bias-tensor", "b"],
                                                              "--bias-tensor")):
            with self.subTest(named=named):
                self.assertEqual(in_process("check-layer", missing, "--no-bias", *flags),
                                 (2, "", "counterexamples: error: --no-bias reads no bias: it"
                                         " cannot go with %s\n" % named))

    def test_no_bias_checks_w_x_alone(self):
        path = self.write("l.json", '{"weights": [[0], [1], [2]], "bias": [0, 2, 0]}')
        status, out, err = in_process("check-layer", path, "--no-bias", "--format", "json")
        self.assertEqual((status, json.loads(out)["bias"], json.loads(out)["unargmaxable"]),
                         (0, False, [1]))
        self.assertEqual(err, "counterexamples: note: %s: its bias is not read: no bias is read"
                              " (no_bias=True or --no-bias)\n" % path)

    def test_transpose_reads_a_layer_stored_as_d_by_c(self):
        columns = "\n".join(",".join(str(row[k]) for row in FIGURE_1_ROWS) for k in range(2))
        path = self.write("dc.csv", columns + "\n")
        status, out, err = in_process("check-layer", path, "--transpose")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out, provenance(path, options="transpose")
                         + README_OUTPUT.replace(README_NAME, path))

    def test_transpose_of_a_npy_array(self):
        flat = [row[k] for k in range(2) for row in FIGURE_1_ROWS]
        path = self.write("dc.npy", npy_bytes(flat, (2, 4)))
        status, out, err = in_process("check-layer", path, "--transpose")
        self.assertEqual((status, err), (0, ""))
        self.assertIn(FIGURE_1_CERTIFICATE, out)

    def test_more_dimensions_than_classes_is_a_note_on_stderr(self):
        path = self.write("dc.csv", "-2,1,1.8,0.9\n-2,2,-0.8,0.2\n")
        status, out, err = in_process("check-layer", path)
        self.assertEqual(status, 0)
        self.assertTrue(body(out).startswith("%s: 2 classes, d = 4, no bias;" % path), out)
        self.assertEqual(err, "counterexamples: note: %s: 2 classes of dimension d = 4 > C: if"
                              " the layer is stored as (d, C), read it transposed\n" % path)

    def test_a_header_row_is_a_note_on_stderr_one_line_each(self):
        layer = self.write("l.csv", "x,y\n-2,-2\n1,2\n1.8,-0.8\n0.9,0.2\n")
        bias = self.write("b.csv", "bias\n0\n0\n0\n1\n")
        status, out, err = in_process("check-layer", layer, "--bias", bias)
        self.assertEqual(status, 0)
        self.assertIn("\n0 of 4 classes unargmaxable, 4 argmaxable.\n", out)
        self.assertEqual(err.splitlines(), [
            "counterexamples: note: %s: line 1 is taken as a header: 'x,y'" % layer,
            "counterexamples: note: %s: line 1 is taken as a header: 'bias'" % bias,
        ])

    def test_bad_input_after_a_header_row_is_one_error_line_and_no_note(self):
        layer = self.write("l.txt", "1,2\n3,4\n")
        status, out, err = in_process("check-layer", layer)
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertTrue(err.startswith("counterexamples: error: %s" % layer), err)


class TestOneLogitHeads(FileTestCase):

    def test_a_one_logit_head_is_its_binary_decision_on_its_inputs(self):
        # A torch binary classifier (tests/data/models/README.md): after its ReLU
        # the logit is never above 0, though over all of R^3 both signs are reached.
        path = model("binary", "binary.pt")
        status, out, err = in_process("check-layer", path, "--tensor", "2.weight", "--format",
                                      "json")
        report = json.loads(out)
        self.assertEqual((status, report["classes"], report["unargmaxable"]), (0, 2, []))
        self.assertEqual(report["weights_tensor"]["shape"], [1, 3])
        self.assertEqual([r["token"] for r in report["results"]], ["logit > 0", "logit < 0"])
        self.assertIn("%s: one output: a binary decision, logit > 0 (a sigmoid above 1/2), not a"
                      " softmax of one class; read as two classes, 0 'logit > 0' (the head's row"
                      " and bias) and 1 'logit < 0' (zeros), whose argmax is that decision: each"
                      " is argmaxable where some input reaches its side" % path, err)
        status, out, _ = in_process("check-layer", path, "--tensor", "2.weight", "--inputs",
                                    "0:inf")
        self.assertEqual(status, 0)
        self.assertIn("class 0 'logit > 0': l[0] <= l[1]", out)
        self.assertIn("1 of 2 classes unargmaxable", out)

    def test_a_constant_logit_reaches_one_side_or_neither(self):
        for bias, unargmaxable in (("[1]", [1]), ("[-1]", [0]), ("[0]", [0, 1])):
            with self.subTest(bias=bias):
                path = self.write("l.json", '{"weights": [[0, 0]], "bias": %s}' % bias)
                _, out, _ = in_process("check-layer", path, "--format", "json")
                self.assertEqual(json.loads(out)["unargmaxable"], unargmaxable)

    def test_a_named_class_names_both_sides_and_shards_merge(self):
        layer = [self.write("l.csv", "1,-1\n"), "--vocab", self.write("v.txt", "spam\n")]
        status, out, _ = in_process("check-layer", *layer, "--format", "json")
        self.assertEqual([r["token"] for r in json.loads(out)["results"]],
                         ["spam (logit > 0)", "not spam (logit < 0)"])
        shards = []
        for classes in ("0", "1"):
            shards.append(os.path.join(self.folder.name, "s%s.json" % classes))
            self.assertEqual(in_process("check-layer", *layer, "--classes", classes, "--format",
                                        "json", "--output", shards[-1])[0], 0)
        self.assertEqual(in_process("merge", *shards, "--format", "json")[1], out)
