"""Tests of ``check-layer --checkpoint``: a run cut short and run again gives
the report of one uninterrupted run; a checkpoint of anything else is refused."""

import os
import unittest

from tests.support import FileTestCase
from tests.support.commands import in_process

# A twin pair, a mean, a masked class: every kind of result a checkpoint keeps.
LAYER_CSV = "0,0\n4,0\n0,4\n1,1\n4,0\n2,2\n3,-1\n"
BIAS_CSV = "0\n0\n0\n0\n0\n0\n-inf\n"


class CheckpointTestCase(FileTestCase):

    def setUp(self):
        super().setUp()
        self.layer = [self.write("w.csv", LAYER_CSV), "--bias", self.write("b.csv", BIAS_CSV)]
        self.checkpoint = os.path.join(self.folder.name, "run.checkpoint")

    def run_layer(self, *options, checkpoint=True):
        extra = ["--checkpoint", self.checkpoint] if checkpoint else []
        return in_process("check-layer", *self.layer, *options, *extra)

    def lines(self):
        with open(self.checkpoint, "rb") as handle:
            return handle.read().split(b"\n")

    def cut(self, kept, partial=b""):
        """The checkpoint as a kill would leave it: its header and ``kept`` lines."""
        lines = self.lines()
        with open(self.checkpoint, "wb") as handle:
            handle.write(b"\n".join(lines[:1 + kept]) + b"\n" + partial)


class TestResume(CheckpointTestCase):

    def test_a_layer_of_masked_classes_only_resumes_from_its_checkpoint(self):
        path = self.write("masked.json", '{"weights": [[0], [2]], "bias": [-Infinity,'
                                         ' -Infinity]}')
        first = in_process("check-layer", path, "--checkpoint", self.checkpoint)
        again = in_process("check-layer", path, "--checkpoint", self.checkpoint)
        self.assertEqual((first[0], again[0]), (0, 0))
        self.assertEqual(again[1], first[1])
        self.assertIn("\n2 of 2 classes unargmaxable (every one masked by a bias of -inf), 0"
                      " argmaxable.\n", again[1])
        self.assertIn("2 classes kept from an earlier run, their certificates checked again",
                      again[2])

    def test_a_run_cut_short_gives_the_uninterrupted_report(self):
        for options in ([], ["--box", "2", "--tolerance", "0.01"], ["--classes", "1:6"]):
            for report in (["--format", "text"], ["--format", "json"]):
                with self.subTest(options=options, report=report):
                    whole = self.run_layer(*options, *report, checkpoint=False)
                    if os.path.exists(self.checkpoint):
                        os.remove(self.checkpoint)
                    self.assertEqual(self.run_layer(*options, *report), whole)
                    complete = self.lines()
                    self.cut(2, partial=complete[3][:7])
                    status, out, err = self.run_layer(*options, *report)
                    self.assertEqual((status, out), whole[:2])
                    self.assertIn("2 classes kept from an earlier run", err)
                    self.assertEqual(self.lines(), complete)

    def test_a_header_cut_short_starts_afresh(self):
        whole = self.run_layer("--format", "json")
        header = self.lines()[0]
        with open(self.checkpoint, "wb") as handle:
            handle.write(header[:40])
        status, out, err = self.run_layer("--format", "json")
        self.assertEqual((status, out), whole[:2])
        self.assertNotIn("kept", err)

    def test_every_class_listed_is_the_run_without_a_list(self):
        self.run_layer()
        status, _, err = self.run_layer("--classes", "0:")
        self.assertEqual(status, 0)
        self.assertIn("7 classes kept", err)

    def test_a_complete_checkpoint_decides_nothing_again(self):
        whole = self.run_layer("--format", "json")
        status, out, err = self.run_layer("--format", "json")
        self.assertEqual((status, out), whole[:2])
        self.assertIn("7 classes kept", err)

    def test_each_class_is_one_line_after_the_header(self):
        self.run_layer()
        lines = self.lines()
        self.assertEqual((len(lines), lines[-1]), (9, b""))
        self.assertEqual(lines[2], b'[1,"t",[[4,"1","1"]]]')
        self.assertEqual(lines[7], b'[6,"m"]')


class TestRefusals(CheckpointTestCase):

    def refusal(self, *options):
        before = self.lines() if os.path.isfile(self.checkpoint) else None
        status, out, err = self.run_layer(*options)
        self.assertEqual((status, out, err.count("\n")), (2, "", 1), err)
        if before is not None:
            self.assertEqual(self.lines(), before)
        return err

    def test_another_layer_or_options(self):
        self.run_layer()
        for options, key in ((["--box", "2"], "box"), (["--tolerance", "0.5"], "tolerance"),
                             (["--classes", "0:3"], "asked")):
            with self.subTest(options=options):
                self.assertIn('its "%s" differs' % key, self.refusal(*options))
        self.layer[0] = self.write("v.csv", LAYER_CSV.replace("2,2", "2,3"))
        self.assertIn('its "files" differs', self.refusal())

    def test_a_certificate_that_does_not_hold(self):
        self.run_layer()
        lines = self.lines()
        # Class 0's witness, about (-1.4, -1.4) in hexadecimal, sent to (1.4, 1.4).
        self.assertEqual(lines[1], b'[0,"w","20000000",["-2ccccccd","-2ccccccd"]]')
        lines[1] = lines[1].replace(b"-", b"")
        with open(self.checkpoint, "wb") as handle:
            handle.write(b"\n".join(lines))
        self.assertIn("class 0's certificate does not hold for this layer", self.refusal())

    def test_lines_that_are_no_result(self):
        self.run_layer()
        lines = self.lines()
        for line, message in ((b"[1]", "line 3 is not a class's result"),
                              (lines[1], "class 0 is there twice"),
                              (b'[99,"m"]', "class 99 is not one of the classes asked"),
                              (b'[1,"t",[[4,"1","0"]]]', "line 3 is not a class's result")):
            with self.subTest(line=line):
                with open(self.checkpoint, "wb") as handle:
                    handle.write(b"\n".join(lines[:2] + [line]) + b"\n")
                self.assertIn(message, self.refusal())

    def test_weights_past_any_common_denominator_are_refused_at_once(self):
        self.run_layer()
        lines = self.lines()
        terms = ",".join('[%d,"1","%x"]' % (j, 2 ** 20000 + 1 + 2 * j) for j in (0, 1, 2, 4))
        with open(self.checkpoint, "wb") as handle:
            handle.write(b"\n".join(lines[:1] + [b'[3,"t",[%s]]' % terms.encode()]) + b"\n")
        self.assertIn("line 2 is not a class's result", self.refusal())

    def test_no_checkpoint_file(self):
        with open(self.checkpoint, "w") as handle:
            handle.write("a report\n")
        self.assertIn("not a checkpoint of check-layer", self.refusal())
        self.checkpoint = self.folder.name
        self.assertIn("cannot open the checkpoint", self.refusal())
        fifo = os.path.join(self.folder.name, "fifo")
        os.mkfifo(fifo)
        self.checkpoint = fifo
        self.assertIn("is not a regular file", self.refusal())

    def test_the_checkpoint_is_no_input_or_output(self):
        self.checkpoint = self.layer[0]
        self.assertIn("--checkpoint %s is the input file" % self.layer[0], self.refusal())
        self.checkpoint = "-"
        self.assertIn("--checkpoint needs a file name, not -", self.refusal())
        self.checkpoint = os.path.join(self.folder.name, "run.checkpoint")
        self.assertIn("--output and --checkpoint name one file",
                      self.refusal("--output", self.checkpoint))
        self.run_layer()
        self.assertIn("--output and --checkpoint name one file",
                      self.refusal("--output", self.checkpoint))

    def test_a_list_of_classes_is_no_output(self):
        listed = self.write("ids.txt", "0\n3\n")
        status, out, err = in_process("check-layer", *self.layer, "--classes", "@" + listed,
                                      "--output", listed)
        self.assertEqual((status, out), (2, ""))
        self.assertIn("is the input file", err)

    def test_a_layer_from_standard_input_keeps_no_checkpoint(self):
        self.layer[0] = "-"
        self.assertIn("needs the layer in a file", self.refusal())


if __name__ == "__main__":
    unittest.main()
