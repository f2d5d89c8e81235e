"""Tests of reviews.report.files: reports written whole or not at all, never over an input."""

import itertools
import os
import stat
import subprocess
import sys
import unittest
from unittest import mock

from reviews.errors import InputError
from reviews.report import files
from reviews.report.files import refuse_figures, refuse_inputs, write_file
from tests.support import FileTestCase
from tests.support.commands import FIGURE_1_JSON, SCRIPT, in_process


class TestRefuseInputs(FileTestCase):

    def test_the_same_file_by_name_link_or_hard_link_is_refused(self):
        layer = self.write("layer.json", FIGURE_1_JSON)
        link = os.path.join(self.folder.name, "link.json")
        os.symlink(layer, link)
        hard = os.path.join(self.folder.name, "hard.json")
        os.link(layer, hard)
        for output in (layer, link, hard, os.path.join(self.folder.name, ".", "layer.json")):
            with self.subTest(output=output):
                with self.assertRaisesRegex(InputError, "^--output .* is the input file .*layer"
                                            ".json; refusing to overwrite it$"):
                    refuse_inputs(output, (layer, None))

    def test_another_file_a_new_file_and_standard_input_pass(self):
        layer = self.write("layer.json", FIGURE_1_JSON)
        other = self.write("other.txt", "x")
        for output in (other, os.path.join(self.folder.name, "new.txt")):
            self.assertIsNone(refuse_inputs(output, (layer, "-", None)))

    def test_the_command_refuses_before_reading_and_keeps_the_weights(self):
        layer = self.write("layer.json", FIGURE_1_JSON)
        bias = self.write("bias.json", "[0, 0, 0, 1]")
        for arguments in ((layer, "--output", layer), (layer, "--bias", bias, "--output", bias)):
            with self.subTest(arguments=arguments[-1]), \
                    mock.patch("reviews.run.layer.read_model") as read:
                status, out, err = in_process("check-layer", *arguments)
                self.assertEqual((status, out), (2, ""))
                self.assertRegex(err, "^counterexamples: error: --output .* is the input file")
                read.assert_not_called()
        with open(layer) as handle:
            self.assertEqual(handle.read(), FIGURE_1_JSON)


class TestRefuseFigures(FileTestCase):

    def test_a_figure_by_name_dot_path_or_link_is_refused_before_it_exists(self):
        folder = os.path.join(self.folder.name, "figures")
        figures = [os.path.join(folder, "figure1.svg"), os.path.join(folder, "regions.svg")]
        link = os.path.join(self.folder.name, "link.svg")
        os.symlink(figures[1], link)   # dangling: the figure is not written yet
        for output in (figures[0], os.path.join(folder, ".", "regions.svg"),
                       os.path.join(folder, "..", "figures", "figure1.svg"), link):
            with self.subTest(output=output):
                with self.assertRaisesRegex(InputError, "^--output .* is the figure .*"
                                            "(figure1|regions).svg that this run writes;"
                                            " refusing to overwrite it$"):
                    refuse_figures(output, figures)

    def test_another_name_in_the_figure_folder_passes(self):
        folder = os.path.join(self.folder.name, "figures")
        for output in (os.path.join(folder, "report.html"), folder + ".svg"):
            self.assertIsNone(refuse_figures(output, [os.path.join(folder, "figure1.svg")]))

    def test_the_command_refuses_a_report_over_a_figure_and_writes_nothing(self):
        folder = os.path.join(self.folder.name, "figures")
        output = os.path.join(folder, "positivity.svg")
        status, out, err = in_process("--figures", folder, "--output", output,
                                      "--claim", "memorization.every-distribution")
        self.assertEqual((status, out, err),
                         (2, "", "counterexamples: error: --output %s is the figure %s that"
                                 " this run writes; refusing to overwrite it\n"
                                 % (output, output)))
        self.assertFalse(os.path.exists(output))


class TestFiguresWrittenWhole(FileTestCase):

    def test_a_figure_that_cannot_be_replaced_is_left_as_it_was(self):
        folder = os.path.join(self.folder.name, "figures")
        os.mkdir(folder)
        old = self.write(os.path.join("figures", "positivity.svg"), "old")
        with mock.patch("os.replace", side_effect=OSError(28, "No space left on device")):
            status, out, err = in_process("--figures", folder, "--claim",
                                          "memorization.every-distribution")
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, "counterexamples: error: cannot write a figure to %s: No space"
                              " left on device\n" % old)
        with open(old) as handle:
            self.assertEqual(handle.read(), "old")
        self.assertEqual(os.listdir(folder), ["positivity.svg"])


class TestStandardInputIsAnInputToo(FileTestCase):

    def test_a_layer_redirected_from_the_output_file_is_refused(self):
        layer = self.write("layer.csv", "1,2\n3,4\n")
        with open(layer) as stdin:
            done = subprocess.run([sys.executable, SCRIPT, "check-layer", "-", "--output",
                                   layer], stdin=stdin, capture_output=True, text=True,
                                  timeout=120)
        self.assertEqual((done.returncode, done.stdout, done.stderr),
                         (2, "", "counterexamples: error: --output %s is the input file"
                                 " <stdin>; refusing to overwrite it\n" % layer))
        with open(layer) as handle:
            self.assertEqual(handle.read(), "1,2\n3,4\n")

    def test_an_output_naming_standard_input_itself_is_refused(self):
        # /dev/stdin and its kin are links to whatever file stdin was
        # redirected from: writing there would replace the layer or bias.
        layer = self.write("layer.csv", "1,2\n3,4\n")
        bias = self.write("bias.csv", "0,1\n")
        # Each name once, the layer and the bias taken in turn as stdin.
        inputs = itertools.cycle(((("-",), layer), ((layer, "--bias", "-"), bias)))
        for name, (arguments, redirected) in zip(("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"),
                                                 inputs):
            if os.path.exists(name):
                with self.subTest(output=name, arguments=arguments), \
                        open(redirected) as stdin:
                    done = subprocess.run([sys.executable, SCRIPT, "check-layer", *arguments,
                                           "--output", name], stdin=stdin,
                                          capture_output=True, text=True, timeout=120)
                    self.assertEqual((done.returncode, done.stdout, done.stderr),
                                     (2, "", "counterexamples: error: --output %s is the input"
                                             " file <stdin>; refusing to overwrite it\n" % name))
        with open(layer) as handle:
            self.assertEqual(handle.read(), "1,2\n3,4\n")
        with open(bias) as handle:
            self.assertEqual(handle.read(), "0,1\n")


class TestWriteFile(FileTestCase):

    def listing(self):
        return sorted(os.listdir(self.folder.name))

    def test_a_failed_rename_leaves_the_old_report_and_no_temporary_file(self):
        report = self.write("report.txt", "old")
        with mock.patch("os.replace", side_effect=OSError(28, "No space left on device")):
            with self.assertRaisesRegex(InputError, "^cannot write the report to .*report.txt:"
                                        " No space left on device$"):
                write_file(report, "new")
        with open(report) as handle:
            self.assertEqual(handle.read(), "old")
        self.assertEqual(self.listing(), ["report.txt"])

    def test_an_interrupt_while_writing_leaves_the_old_report(self):
        report = self.write("report.txt", "old")
        with mock.patch.object(files, "open", side_effect=KeyboardInterrupt, create=True):
            with self.assertRaises(KeyboardInterrupt):
                write_file(report, "new")
        with open(report) as handle:
            self.assertEqual(handle.read(), "old")
        self.assertEqual(self.listing(), ["report.txt"])

    def test_the_new_report_replaces_the_old_keeping_its_mode(self):
        report = self.write("report.txt", "old")
        os.chmod(report, 0o640)
        write_file(report, "new\n")
        with open(report, newline="") as handle:
            self.assertEqual(handle.read(), "new\n")
        self.assertEqual(stat.S_IMODE(os.stat(report).st_mode), 0o640)
        self.assertEqual(self.listing(), ["report.txt"])

    def test_a_link_is_kept_and_the_file_it_names_replaced(self):
        target = self.write("target.txt", "old")
        link = os.path.join(self.folder.name, "link.txt")
        os.symlink(target, link)
        write_file(link, "new")
        self.assertTrue(os.path.islink(link))
        with open(target) as handle:
            self.assertEqual(handle.read(), "new")

    def test_a_device_is_written_in_place_not_replaced(self):
        write_file(os.devnull, "anything")
        self.assertTrue(stat.S_ISCHR(os.stat(os.devnull).st_mode))

    @unittest.skipUnless(hasattr(os, "mkfifo"), "no FIFOs here")
    def test_a_fifo_without_a_reader_is_refused_not_waited_for(self):
        # In a child: before, the open waited for a reader forever.
        fifo = os.path.join(self.folder.name, "report")
        os.mkfifo(fifo)
        done = subprocess.run([sys.executable, SCRIPT, "check-layer", "--example", "figure1",
                               "--output", fifo], capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)
        self.assertEqual((done.returncode, done.stdout, done.stderr),
                         (2, "", "counterexamples: error: cannot write the report to %s: it is a"
                                 " FIFO with no reader\n" % fifo))

    @unittest.skipUnless(hasattr(os, "mkfifo"), "no FIFOs here")
    def test_a_fifo_with_a_reader_gets_the_whole_report(self):
        fifo = os.path.join(self.folder.name, "report")
        os.mkfifo(fifo)
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        self.addCleanup(os.close, reader)
        write_file(fifo, "the report\n")
        self.assertEqual(os.read(reader, 100), b"the report\n")


class TestOutputOption(FileTestCase):

    def test_dash_is_standard_output(self):
        # Run here: a file named - would be made in the current folder.
        self.addCleanup(os.chdir, os.getcwd())
        os.chdir(self.folder.name)
        for arguments in (("check-layer", "--example", "figure1"), ("--claim", "memorization")):
            with self.subTest(arguments=arguments):
                expected = in_process(*arguments)
                self.assertEqual(expected[0], 0)
                self.assertEqual(in_process(*arguments, "--output", "-"), expected)
                self.assertFalse(os.path.exists("-"))

    def test_the_figures_folder_as_the_output_is_refused_before_it_is_made(self):
        folder = os.path.join(self.folder.name, "figures")
        for output in (folder, folder + "/."):
            with self.subTest(output=output):
                self.assertEqual(in_process("--figures", folder, "--output", output),
                                 (2, "", "counterexamples: error: cannot write the report to %s:"
                                         " it is the folder of the figures\n" % output))
                self.assertFalse(os.path.exists(folder))

    def test_a_folder_as_the_output_is_refused_before_any_work(self):
        missing = os.path.join(self.folder.name, "missing.csv")
        for arguments in (("check-layer", missing), ("--claim", "memorization")):
            with self.subTest(arguments=arguments):
                self.assertEqual(in_process(*arguments, "--output", self.folder.name),
                                 (2, "", "counterexamples: error: cannot write the report to %s:"
                                         " it is a folder\n" % self.folder.name))


if __name__ == "__main__":
    unittest.main()
