"""Tests of check-layer end to end: the README's example, files, formats, errors."""

import hashlib
import json
import os
import unittest

from tests.support import FileTestCase, ROOT
from tests.support.commands import (FIGURE_1_JSON, FIGURE_1_ROWS, README_EXAMPLE, README_NAME,
                                    README_OUTPUT, command, in_process, provenance)

EXAMPLE_FILE = os.path.join(ROOT, "reviews", "data", "figure1.json")


class TestReadmeExample(unittest.TestCase):

    def test_the_shipped_figure_1_layer_is_the_papers(self):
        with open(EXAMPLE_FILE) as handle:
            self.assertEqual(json.load(handle), {"weights": FIGURE_1_ROWS})

    def test_the_readme_command_prints_exactly_this(self):
        done = command(*README_EXAMPLE)
        self.assertEqual((done.returncode, done.stderr, done.stdout),
                         (0, "", provenance(EXAMPLE_FILE).replace(EXAMPLE_FILE, README_NAME)
                          + README_OUTPUT))

    def test_the_example_file_by_its_path_gives_the_same_report(self):
        status, out, _ = in_process("check-layer", EXAMPLE_FILE)
        self.assertEqual((status, out), (0, provenance(EXAMPLE_FILE)
                                         + README_OUTPUT.replace(README_NAME, EXAMPLE_FILE)))

    def test_file_and_example_together_or_neither_is_a_usage_error(self):
        line = "counterexamples: error: check-layer needs FILE or --example NAME (one of them)\n"
        self.assertEqual(in_process("check-layer"), (2, "", line))
        self.assertEqual(in_process("check-layer", EXAMPLE_FILE, "--example", "figure1"),
                         (2, "", line))

    def test_an_unknown_example_names_the_known_ones(self):
        status, _, err = in_process("check-layer", "--example", "figure2")
        self.assertEqual(status, 2)
        self.assertIn("invalid choice: 'figure2' (choose from 'figure1')", err)

    def test_the_example_and_the_trained_layers_ship_as_package_data(self):
        with open(os.path.join(ROOT, "pyproject.toml")) as handle:
            self.assertIn('[tool.setuptools.package-data]\nreviews = ["data/*.json",'
                          ' "data/*.npz", "data/*.tokens.txt", "data/PROVENANCE.md",'
                          ' "data/LICENSE.*"]\n', handle.read())
        shipped = sorted(os.listdir(os.path.join(ROOT, "reviews", "data")))
        self.assertEqual([name for name in shipped if not name.endswith(
            (".json", ".npz", ".tokens.txt")) and name != "PROVENANCE.md"
            and not name.startswith("LICENSE.")], [])
        self.assertEqual([name for name in shipped if name.startswith("LICENSE.")],
                         ["LICENSE.g2pM", "LICENSE.natasha"])


class TestCheckLayer(FileTestCase):

    def test_text_lists_unargmaxable_classes_with_rounded_coefficients(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        status, out, err = in_process("check-layer", path)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out, provenance(path) + README_OUTPUT.replace(README_NAME, path))

    def test_markdown_format(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        status, out, err = in_process("check-layer", path, "--format", "markdown")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out.splitlines()[:3], ["### check-layer `%s`" % path, "",
                                                "- Version: `%s`"
                                                % provenance().splitlines()[0]])
        self.assertIn("\n- Options: `none`\n\n4 classes, d = 2, no bias; classes numbered"
                      " from 0.\n", out)
        self.assertIn("\n| 3 | `w[3] = 0.148276*w[0] + 0.420690*w[1] + 0.431034*w[2]` |\n",
                      out)
        self.assertTrue(out.endswith("\n1 of 4 classes unargmaxable, 3 argmaxable."
                                     " Exact values and witnesses: `--format json`.\n"), out)

    def test_json_format(self):
        path = self.write("fig1.json", FIGURE_1_JSON)
        status, out, _ = in_process("check-layer", path, "--format", "json")
        document = json.loads(out)
        self.assertEqual(status, 0)
        self.assertEqual(list(document), ["version", "files", "weights_tensor", "bias_tensor",
                                          "transpose", "file", "classes", "asked", "dim", "bias",
                                          "box", "numbered_from", "unargmaxable", "tolerance",
                                          "thinner_than_1e-8", "certificates", "results"])
        self.assertEqual(document["version"], provenance().splitlines()[0])
        with open(path, "rb") as handle:
            data = handle.read()
        self.assertEqual((document["files"], document["weights_tensor"],
                          document["bias_tensor"], document["transpose"]),
                         ([{"path": path, "bytes": len(data),
                            "sha256": hashlib.sha256(data).hexdigest()}], None, None, False))
        self.assertEqual((document["file"], document["classes"], document["dim"],
                          document["bias"], document["box"], document["numbered_from"]),
                         (path, 4, 2, False, None, 0))
        self.assertEqual((document["unargmaxable"], document["tolerance"],
                          document["thinner_than_1e-8"]), ([3], "0", []))
        # Without a bias or a box a class's region is a cone: balls of any radius.
        self.assertEqual(document["results"][2],
                         {"index": 2, "argmaxable": True,
                          "witness": [["9/5", "1.8"], ["-4/5", "-0.8"]], "radius": "inf"})
        self.assertEqual(document["results"][3],
                         {"index": 3, "argmaxable": False,
                          "terms": [[0, "43/290", "0.148276"], [1, "61/145", "0.420690"],
                                    [2, "25/58", "0.431034"]]})

    def test_json_has_one_line_per_class_and_integers_without_denominator(self):
        # A duplicated row is the other one, with weight exactly 1.
        path = self.write("twice.csv", "0\n0\n1\n")
        _, out, _ = in_process("check-layer", path, "--format", "json")
        lines = out.splitlines()
        self.assertEqual((lines[17], lines[21:]), ('  "results": [', ["  ]", "}"]))
        self.assertEqual([json.loads(line.rstrip(",")) for line in lines[18:20]],
                         [{"index": 0, "argmaxable": False, "terms": [[1, "1", "1"]]},
                          {"index": 1, "argmaxable": False, "terms": [[0, "1", "1"]]}])
        self.assertEqual(list(json.loads(lines[20])), ["index", "argmaxable", "witness", "radius"])

    def test_a_weight_of_exactly_1_is_shown_without_a_coefficient(self):
        path = self.write("twice.csv", "0\n0\n1\n")
        _, out, _ = in_process("check-layer", path)
        self.assertIn("\n  class 0: w[0] = w[1]\n  class 1: w[1] = w[0]\n", out)

    def test_certificates_of_more_than_4300_digits(self):
        # w[1] = (1 - 10**-4400) w[0] + 10**-4400 w[2]: the only combination.
        path = self.write("wide.csv", "0\n1\n1e4400\n")
        nines, power = "9" * 4400 + "/1e4400", "1/1e4400"
        status, out, err = in_process("check-layer", path)
        self.assertEqual((status, err), (0, ""))
        self.assertIn("\n  class 1: w[1] = 1.00000*w[0] + 1e-4400*w[2]\n", out)
        status, out, err = in_process("check-layer", path, "--format", "json")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(json.loads(out)["results"][1]["terms"],
                         [[0, nines, "1.00000"], [2, power, "1e-4400"]])

    def test_a_layer_spread_past_the_limit_is_one_line_naming_the_file(self):
        # 12 classes with a bias, 1e-5000 to 1e5000 in d = 3: about a minute
        # before the decimal programs, still several seconds after them.
        rows = "".join("1e5000,1e-5000,%d\n" % k for k in range(1, 13))
        path, bias = self.write("spread.csv", rows), self.write("bias.csv", "1e-5000\n" * 12)
        status, out, err = in_process("check-layer", path, "--bias", bias)
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err.count("\n"), 1)
        self.assertTrue(err.startswith("counterexamples: error: %s with bias %s: the layer's 48"
                                       " numbers span 33,219 bits (magnitudes about 1e-5000 to"
                                       " 1e5000)" % (path, bias)), err)
        self.assertIn("may have at most 1,048,576 in all", err)

    def test_a_spread_from_the_bias_file_names_both_files(self):
        # Distinct weight rows: repeated ones would be settled by their twins, spread or not.
        path = self.write("plain.csv", "".join("%d,1\n" % k for k in range(300)))
        bias = self.write("b.csv", "1e-2000\n1e2000\n" * 150)
        status, out, err = in_process("check-layer", path, "--bias", bias)
        self.assertEqual((status, out), (2, ""))
        self.assertTrue(err.startswith("counterexamples: error: %s with bias %s: the layer's 900"
                                       " numbers span 13,287 bits" % (path, bias)), err)

    def test_bias_file(self):
        layer = self.write("fig1.json", FIGURE_1_JSON)
        bias = self.write("bias.csv", "0\n0\n0\n1\n")
        _, out, _ = in_process("check-layer", layer, "--bias", bias, "--format", "json")
        self.assertEqual(json.loads(out)["unargmaxable"], [])
        self.assertIs(json.loads(out)["bias"], True)

    def test_a_bias_of_the_wrong_length_names_the_bias_file(self):
        layer = self.write("fig1.json", FIGURE_1_JSON)
        bias = self.write("bias.csv", "0\n0\n0\n")
        self.assertEqual(in_process("check-layer", layer, "--bias", bias),
                         (2, "", "counterexamples: error: %s has 3 numbers for the 4 classes of %s\n"
                          % (bias, layer)))

    def test_a_bad_number_in_the_bias_file_names_the_bias_file(self):
        layer = self.write("fig1.json", FIGURE_1_JSON)
        bias = self.write("bias.csv", "0\nx\n0\n0\n")
        status, out, err = in_process("check-layer", layer, "--bias", bias)
        self.assertEqual((status, out), (2, ""))
        self.assertTrue(err.startswith("counterexamples: error: %s" % bias), err)

    def test_exit_0_when_every_class_is_argmaxable(self):
        path = self.write("two.csv", "1,0\n0,1\n")
        self.assertEqual(in_process("check-layer", path)[0], 0)

    def test_bad_files_are_one_line_and_exit_2(self):
        cases = [
            ("missing.json", None, "cannot read"),
            ("ragged.csv", "1,2\n3\n", "ragged.csv: weights row 1 has length 1, row 0 has length 2"),
            ("bad.json", "[[1, true]]", r"bad.json: weights\[0\]\[1\] is true, not a real number"),
        ]
        for name, content, message in cases:
            path = os.path.join(self.folder.name, name) if content is None else self.write(name, content)
            with self.subTest(name=name):
                status, out, err = in_process("check-layer", path)
                self.assertEqual((status, out), (2, ""))
                self.assertRegex(err, "^counterexamples: error: .*%s.*\n$" % message)

    def test_script_check_layer_has_no_traceback(self):
        done = command("check-layer", os.path.join(self.folder.name, "none.npy"))
        self.assertEqual(done.returncode, 2)
        self.assertEqual(len(done.stderr.splitlines()), 1)

    def test_an_empty_file_name_is_a_usage_error(self):
        self.assertEqual(in_process("check-layer", ""),
                         (2, "", "counterexamples: error: argument FILE: expected a file name,"
                          " got an empty string\n"))


if __name__ == "__main__":
    unittest.main()
