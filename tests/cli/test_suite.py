"""Tests of the claims as a command: formats, selection, listing, figures and the report file."""

import json
import os
import unittest
from unittest import mock

from reviews import __version__
from reviews.claims import Claim, FAIL, Outcome, PASS, Paper
from reviews.cli import suite as suite_command
from reviews.papers import all_claims
from tests.support import FileTestCase, ROOT
from tests.support.commands import (FAST, FIGURE_1_CERTIFICATE, FIGURE_1_JSON, FIGURE_CLAIMS,
                                    command, in_process, relative)
from tests.support.pages import Page


class TestMain(unittest.TestCase):

    def test_json_format_has_the_stable_keys(self):
        status, out, _ = in_process("--format", "json", *FAST)
        document = json.loads(out)
        self.assertEqual(status, 0)
        self.assertEqual(list(document), ["suite", "python", "ok", "tally", "claims"])
        self.assertEqual([c["id"] for c in document["claims"]], ["memorization.masking"])
        self.assertEqual(document["claims"][0]["paper"]["arxiv"], "2504.14765")
        self.assertEqual(document["claims"][0]["paper"]["version"], "v2")
        self.assertEqual(document["claims"][0]["paper"]["review"],
                         "Softmax reaches only the interior of the simplex")
        self.assertEqual(document["tally"], "1 claim: 1 PASS and 0 FAIL as stated (0 of them"
                                            " decided on sampled cases only); 0 NOT CHECKED; 0"
                                            " MISMATCH")

    def test_markdown_format(self):
        status, out, _ = in_process("--format", "markdown", *FAST)
        self.assertEqual(status, 0)
        self.assertIn("| `memorization.masking` | arXiv:2504.14765v2 Appendix C.3 |", out)
        self.assertIn("Expected: PASS, this suite's verdict; the review asserts the statement and"
                      " gives it no verdict  \nFound: softmax([0, -inf])", out)

    def test_the_review_s_disclaimer_heads_only_a_report_of_the_reviewed_paper(self):
        _, low_rank, _ = in_process("--claim", "low-rank.unargmaxable-exists")
        self.assertTrue(low_rank.startswith("review-counterexamples %s (Python " % __version__))
        self.assertEqual(low_rank.split("\n")[1:3], ["", "PASS        low-rank.unargmaxable-exists"])
        self.assertNotIn("counterexamples to particular claims", low_rank)
        _, both, _ = in_process("--claim", "low-rank.unargmaxable-exists", *FAST)
        self.assertEqual(both.split("\n")[1], 'The review "Softmax reaches only the interior of'
                         ' the simplex" says of its checks: "These are counterexamples to'
                         ' particular claims; they do not reproduce the papers\' training'
                         ' experiments."')
        _, page, _ = in_process("--format", "json", "--claim", "low-rank.unargmaxable-exists")
        self.assertIsNone(json.loads(page)["suite"]["scope"])

    def test_claim_is_repeatable(self):
        _, out, _ = in_process("--format", "json", "--claim", "memorization.underflow", *FAST)
        self.assertEqual([c["id"] for c in json.loads(out)["claims"]],
                         ["memorization.masking", "memorization.underflow"])

    def test_unknown_claim_is_a_usage_error(self):
        self.assertEqual(in_process("--claim", "nope"),
                         (2, "", "counterexamples: error: unknown claim id or paper nope"
                                 " (see --list)\n"))

    def test_list_shows_only_the_claims_asked_for(self):
        status, out, _ = in_process("--list", "--format", "json", "--claim", "memorization",
                                    "--claim", "low-rank.box")
        self.assertEqual([c["id"] for c in json.loads(out)],
                         ["low-rank.box"] + [c.id for c in all_claims()
                                             if c.id.startswith("memorization.")])

    def test_a_paper_prefix_runs_that_papers_claims(self):
        _, out, _ = in_process("--format", "json", "--claim", "memorization")
        self.assertEqual([c["id"] for c in json.loads(out)["claims"]],
                         [c.id for c in all_claims()
                          if c.id.startswith("memorization.")])

    def test_an_empty_claim_id_is_a_usage_error(self):
        self.assertEqual(in_process("--claim", ""),
                         (2, "", "counterexamples: error: argument --claim: expected a claim id"
                          " (see --list), got an empty string\n"))

    def test_help_names_the_check_layer_and_merge_commands(self):
        _, out, _ = in_process("--help")
        self.assertTrue(out.endswith(
            "\ncommand:\n"
            "  check-layer FILE  decide exactly which classes of a softmax layer are argmaxable\n"
            "                    (options: counterexamples check-layer --help)\n"
            "  merge SHARD ...   join the JSON reports of check-layer --classes into one\n"
            "                    (options: counterexamples merge --help)\n"
            "  compare A B       the classes whose verdict differs between two JSON reports\n"
            "                    of check-layer (options: counterexamples compare --help)\n"), out)

    def test_check_layer_help_names_the_file_types_and_the_numbering(self):
        _, out, _ = in_process("check-layer", "--help")
        flat = " ".join(out.split())
        for text in (".json, .csv, .tsv, .txt, .vec, .npy, .npz, .safetensors, .bin, .pt,"
                     " .pth, .pkl, .pickle, .onnx, .gguf, a spaCy component's model, or a model"
                     " folder (config.json and weights) or its *.index.json",
                     "- reads JSON or CSV from stdin", "Classes are numbered from 0.",
                     "--tensor NAME", "--bias-tensor NAME", "--transpose"):
            self.assertIn(text, flat)

    def test_help_goes_to_the_output_and_exits_0(self):
        status, out, err = in_process("--help")
        self.assertEqual((status, err), (0, ""))
        self.assertTrue(out.startswith("usage: counterexamples [-h]"), out)
        status, out, _ = in_process("check-layer", "-h")
        self.assertEqual(status, 0)
        self.assertTrue(out.startswith("usage: counterexamples check-layer [-h]"), out)

    def test_an_interrupt_is_one_line_and_exit_130(self):
        with mock.patch.object(suite_command, "run", side_effect=KeyboardInterrupt):
            self.assertEqual(in_process(*FAST), (130, "", "counterexamples: interrupted\n"))

    def test_bad_format_is_a_usage_error(self):
        status, _, err = in_process("--format", "pdf")
        self.assertEqual(status, 2)
        self.assertIn("invalid choice: 'pdf'", err)
        self.assertEqual(err.count("\n"), 1)

    def test_list_shows_ids_and_statements(self):
        status, out, _ = in_process("--list")
        self.assertEqual(status, 0)
        column = max(len(claim.id) for claim in all_claims()) + 2
        self.assertTrue(out.startswith("id".ljust(column) + "by      expected     verdict by "
                                       " runs     statement\n"), out)
        self.assertIn("\n" + "memorization.interior".ljust(column) + "review  PASS        "
                      " suite       default  Interior distributions are realized by z_i = log"
                      " p_i.\n", out)
        self.assertIn("\n" + "memorization.every-distribution".ljust(column) + "paper   FAIL"
                      "         review      default  Finite", out)
        self.assertIn("\n" + "low-rank.box".ljust(column) + "suite   PASS         suite     "
                      "  default  Bounding", out)

    def test_list_columns_are_aligned(self):
        _, out, _ = in_process("--list")
        ids = [claim.id for claim in all_claims()]
        column = max(map(len, ids)) + 2
        for claim_id, line in zip(ids, out.splitlines()[1:]):
            self.assertEqual(line[:column].rstrip(), claim_id)
            self.assertNotEqual(line[column], " ")

    def test_one_claim_is_counted_as_one_claim(self):
        _, out, _ = in_process(*FAST)
        self.assertTrue(out.endswith("\n1 claim: 1 PASS and 0 FAIL as stated (0 of them decided"
                                     " on sampled cases only); 0 NOT CHECKED; 0 MISMATCH\n"),
                        out)

    def test_list_as_json(self):
        status, out, _ = in_process("--list", "--format", "json")
        listed = json.loads(out)
        self.assertEqual(status, 0)
        self.assertEqual(listed[0], {"id": "low-rank.unargmaxable-exists", "source": "paper",
                                     "expected": "PASS", "expected_by": "suite",
                                     "by_default": True,
                                     "statement": "A low-rank softmax can have unargmaxable"
                                                  " classes."})
        self.assertEqual(len(listed), len(all_claims()))

    def test_version(self):
        self.assertEqual(in_process("--version"), (0, "review-counterexamples %s\n" % __version__, ""))

    def test_mismatch_exits_1_and_says_so(self):
        wrong = Claim("x.wrong", Paper("T", ("A",), 2020, "2001.00001"), "S1", "S.", PASS,
                      lambda: Outcome(FAIL, "s", ()))
        with mock.patch.object(suite_command, "all_claims", return_value=[wrong]):
            status, out, _ = in_process()
        self.assertEqual(status, 1)
        self.assertIn("MISMATCH: verdict FAIL, this suite states PASS", out)

    def test_a_claim_that_runs_only_when_selected_is_listed_not_run(self):
        paper = Paper("T", ("A",), 2020, "2001.00001")
        quick = Claim("x.quick", paper, "S1", "Q.", PASS, lambda: Outcome(PASS, "q", ()))
        slow = Claim("x.slow", paper, "S1", "S.", PASS, lambda: Outcome(PASS, "s", ()),
                     by_default=False)
        with mock.patch.object(suite_command, "all_claims", return_value=[quick, slow]):
            runs = {arguments: json.loads(in_process("--format", "json", *arguments)[1])
                    for arguments in ((), ("--claim", "x.slow"), ("--claim", "x"))}
            listed = json.loads(in_process("--list", "--format", "json")[1])
            _, text, _ = in_process("--claim", "x.slow")
        self.assertEqual({arguments: [(c["id"], c["by_default"]) for c in run["claims"]]
                          for arguments, run in runs.items()},
                         {(): [("x.quick", True)], ("--claim", "x.slow"): [("x.slow", False)],
                          ("--claim", "x"): [("x.quick", True), ("x.slow", False)]})
        self.assertEqual([c["by_default"] for c in listed], [True, False])
        self.assertIn("\n    Runs only when selected (--claim with its id or paper): its check"
                      " takes long.\n", text)

    def test_version_matches_pyproject(self):
        with open(os.path.join(ROOT, "pyproject.toml")) as handle:
            self.assertIn('version = "%s"\n' % __version__, handle.read())


class TestFigureFolder(FileTestCase):

    def test_figures_are_written_and_named_under_their_claims(self):
        folder = os.path.join(self.folder.name, "new", "figures")
        status, out, _ = in_process("--figures", folder, "--format", "markdown",
                                    "--claim", "memorization.every-distribution",
                                    "--claim", "low-rank.unargmaxable-exists",
                                    "--claim", "low-rank.region-counts")
        self.assertEqual(status, 0)
        self.assertEqual(sorted(os.listdir(folder)), ["figure1.svg", "positivity.svg", "regions.svg"])
        for name, claim_id in (("positivity.svg", "memorization.every-distribution"),
                               ("figure1.svg", "low-rank.unargmaxable-exists"),
                               ("regions.svg", "low-rank.region-counts")):
            section = out[out.index("### `%s`" % claim_id):]
            section = section[:section.find("### ", 4) if "### " in section[4:] else None]
            self.assertIn("](%s)" % relative(os.path.join(folder, name)), section)

    def test_figures_are_byte_identical_across_runs(self):
        contents = []
        for run in ("a", "b"):
            folder = os.path.join(self.folder.name, run)
            in_process("--figures", folder, "--claim", "low-rank.unargmaxable-exists")
            with open(os.path.join(folder, "figure1.svg"), "rb") as handle:
                contents.append(handle.read())
        self.assertEqual(contents[0], contents[1])

    def test_json_lists_figures_and_text_names_them(self):
        folder = os.path.join(self.folder.name, "f")
        _, out, _ = in_process("--figures", folder, "--format", "json",
                               "--claim", "memorization.masking",
                               "--claim", "low-rank.unargmaxable-exists")
        claims = json.loads(out)["claims"]
        cited = relative(os.path.join(folder, "figure1.svg"))
        self.assertEqual({c["id"]: c["figures"] for c in claims},
                         {"memorization.masking": [],
                          "low-rank.unargmaxable-exists": [cited]})
        _, text_out, _ = in_process("--figures", folder, "--claim", "low-rank.unargmaxable-exists")
        self.assertIn("    Figure: %s\n" % cited, text_out)

    def test_markdown_to_a_file_cites_figures_relative_to_its_folder(self):
        output = os.path.join(self.folder.name, "out", "review.md")
        os.mkdir(os.path.dirname(output))
        status, out, err = in_process("--format", "markdown", "--output", output, "--figures",
                                      os.path.join(self.folder.name, "figs"), *FIGURE_CLAIMS)
        self.assertEqual((status, out, err), (0, "", ""))
        with open(output) as handle:
            report = handle.read()
        self.assertIn("](../figs/figure1.svg)\n", report)
        self.assertIn("](../figs/positivity.svg)\n", report)
        self.assertNotIn(self.folder.name, report)

    def test_to_standard_output_figures_are_relative_to_the_current_folder(self):
        done = command("--format", "markdown", "--figures", "figs", *FIGURE_CLAIMS,
                       cwd=self.folder.name)
        self.assertEqual((done.returncode, done.stderr), (0, ""))
        self.assertIn("](figs/figure1.svg)\n", done.stdout)
        self.assertTrue(os.path.exists(os.path.join(self.folder.name, "figs", "figure1.svg")))

    def test_markdown_alt_text_says_what_the_figure_shows(self):
        _, out, _ = in_process("--format", "markdown", "--figures", self.folder.name,
                               "--claim", "memorization.every-distribution")
        alt = out[out.index("![") + 2:out.index("](")]
        self.assertTrue(alt.startswith("log10 of p2 = softmax(\\[g, 0\\])\\[1\\] for logit"
                                       " gaps g from 0 to 1000"), alt)

    def test_html_page_inlines_every_figure_and_cites_the_files(self):
        output = os.path.join(self.folder.name, "page.html")
        status, out, err = in_process("--format", "html", "--output", output, "--figures",
                                      os.path.join(self.folder.name, "figs"), *FIGURE_CLAIMS)
        self.assertEqual((status, out, err), (0, "", ""))
        with open(output) as handle:
            report = handle.read()
        page = Page(report)
        self.assertEqual(page.errors, [])
        self.assertEqual(page.tags.count("svg"), 2)
        self.assertIn("figs/figure1.svg", page.data)
        self.assertIn("figs/positivity.svg", page.data)
        for tag in ("script", "link", "iframe", "img"):
            self.assertNotIn(tag, page.tags)
        # The only URLs are links to the papers' arXiv pages, nothing fetched.
        self.assertEqual(report.count("://"), report.count('<a href="https://arxiv.org/abs/'))
        self.assertNotIn(self.folder.name, report)

    def test_html_without_figure_folder_still_inlines_the_figures(self):
        status, out, _ = in_process("--format", "html", *FIGURE_CLAIMS)
        page = Page(out)
        self.assertEqual((status, page.errors, page.tags.count("svg")), (0, [], 2))
        self.assertEqual([v for v in page.values("id") if v.startswith("claim-")],
                         ["claim-low-rank.unargmaxable-exists",
                          "claim-memorization.every-distribution"])

    def test_an_unwritable_folder_is_one_line_and_exit_2(self):
        blocker = self.write("file", "x")
        folder = os.path.join(blocker, "figures")
        status, out, err = in_process("--figures", folder, "--claim", "memorization.masking")
        self.assertEqual((status, out), (2, ""))
        self.assertRegex(err, "^counterexamples: error: cannot write figures to .*figures: .*\n$")

    def test_an_existing_file_is_not_a_folder(self):
        blocker = self.write("file", "x")
        self.assertEqual(in_process("--figures", blocker, *FAST),
                         (2, "", "counterexamples: error: cannot write figures to %s:"
                          " it is a file, not a folder\n" % blocker))

    def test_an_empty_folder_name_is_a_usage_error(self):
        self.assertEqual(in_process("--figures", "", *FAST),
                         (2, "", "counterexamples: error: argument --figures: expected a folder"
                          " name, got an empty string\n"))


class TestOutputFile(FileTestCase):

    def test_every_format_goes_to_the_file_and_nothing_to_stdout(self):
        for form in ("text", "markdown", "json", "html"):
            with self.subTest(form=form):
                output = os.path.join(self.folder.name, "report." + form)
                self.assertEqual(in_process("--format", form, "--output", output, *FAST),
                                 (0, "", ""))
                _, expected, _ = in_process("--format", form, *FAST)
                with open(output) as handle:
                    self.assertEqual(handle.read(), expected)

    def test_list_and_check_layer_write_to_the_file_too(self):
        output = os.path.join(self.folder.name, "list.txt")
        self.assertEqual(in_process("--list", "--output", output), (0, "", ""))
        with open(output) as handle:
            self.assertEqual(handle.read(), in_process("--list")[1])
        layer = self.write("fig1.json", FIGURE_1_JSON)
        output = os.path.join(self.folder.name, "layer.txt")
        self.assertEqual(in_process("check-layer", layer, "--output", output), (0, "", ""))
        with open(output) as handle:
            self.assertIn(FIGURE_1_CERTIFICATE, handle.read())

    def test_an_unwritable_output_is_one_line_and_exit_2(self):
        output = os.path.join(self.write("file", "x"), "report.txt")
        status, out, err = in_process("--output", output, *FAST)
        self.assertEqual((status, out), (2, ""))
        self.assertRegex(err, "^counterexamples: error: cannot write the report to"
                              " .*report.txt: .*\n$")

    def test_an_empty_output_name_is_a_usage_error(self):
        self.assertEqual(in_process("--output", "", *FAST),
                         (2, "", "counterexamples: error: argument --output: expected a file"
                          " name, got an empty string\n"))
