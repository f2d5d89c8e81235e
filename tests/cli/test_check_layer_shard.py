"""check-layer --shard: part I of N of the classes, as given or as a
scheduler gives it (Slurm job arrays, Kubernetes Indexed Jobs); each part's
report is --classes's for its range, the parts merge into one run's report,
and every mistake is one line."""

import json
import os
import shutil
import subprocess
import sys
import unittest
from unittest import mock

from reviews.cli.shard import parse_shard
from reviews.errors import InputError
from reviews.run.layer import example_path
from tests.support import TERMINAL_SIGNALS, FileTestCase
from tests.support.commands import SCRIPT, in_process

ERROR = "counterexamples: error: "
# A twin pair, a mean, a masked class: every kind of result a shard holds.
LAYER_CSV = "0,0\n4,0\n0,4\n1,1\n4,0\n2,2\n3,-1\n"
BIAS_CSV = "0\n0\n0\n0\n0\n0\n-inf\n"
SCHEDULERS = ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX",
              "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_TASK_COUNT", "JOB_COMPLETION_INDEX")


def scheduled(**variables):
    """os.environ with these scheduler variables only (the tests may run in a job)."""
    environ = {k: v for k, v in os.environ.items() if k not in SCHEDULERS}
    environ.update(variables)
    return mock.patch.dict(os.environ, environ, clear=True)


def slurm(task, first, count, last=None, step=None):
    """The variables of a task of a Slurm job array."""
    given = {"SLURM_ARRAY_TASK_ID": task, "SLURM_ARRAY_TASK_MIN": first,
             "SLURM_ARRAY_TASK_COUNT": count, "SLURM_ARRAY_TASK_MAX": last,
             "SLURM_ARRAY_TASK_STEP": step}
    return {k: str(v) for k, v in given.items() if v is not None}


class ShardTestCase(FileTestCase):

    def setUp(self):
        super().setUp()
        self.layer = [self.write("w.csv", LAYER_CSV), "--bias", self.write("b.csv", BIAS_CSV)]

    def check(self, *options):
        with scheduled():
            return in_process("check-layer", *self.layer, *options)


class TestAPartIsItsRangeOfClasses(ShardTestCase):

    def test_the_parts_of_7_classes_in_3(self):
        asked = [json.loads(self.check("--shard", "%d/3" % i, "--format", "json")[1])["asked"]
                 for i in range(3)]
        self.assertEqual(asked, ["0:2", "2:4", "4:7"])

    def test_each_report_is_the_classes_range_s_byte_for_byte(self):
        for shard, classes in (("0/3", "0:2"), ("1/3", "2:4"), ("2/3", "4:7"), ("0/1", "0:7"),
                               ("6/7", "6:7")):
            for report in (["--format", "json"], ["--format", "text"],
                           ["--format", "json", "--certificates", "unargmaxable"]):
                with self.subTest(shard=shard, report=report):
                    ranged = self.check("--classes", classes, *report)
                    self.assertEqual(ranged[0], 0)
                    self.assertEqual(self.check("--shard", shard, *report), ranged)

    def test_the_bounds_are_integer_arithmetic_of_a_large_layer(self):
        # Llama-3's head in 16 parts, as docs/sharding.md cuts it.
        self.assertEqual([parse_shard("%d/16" % i, {}).bounds(128256)[0] for i in (1, 3, 15)],
                         [8016, 24048, 120240])
        self.assertEqual(parse_shard("2/3", {}).bounds(10), (6, 10))
        self.assertEqual(len(parse_shard("15/16", {}).resolve(128256)), 8016)

    def test_the_option_s_value_may_start_with_a_dash_and_still_be_read(self):
        self.assertEqual(self.check("--shard", "-1/3"),
                         (2, "", ERROR + "--shard -1/3: the part is '-1', below 0\n"))


class TestFourShardsThroughXargs(FileTestCase):

    @unittest.skipIf(shutil.which("xargs") is None, "no xargs here")
    def test_merged_they_are_the_one_run_report_byte_for_byte(self):
        layer = example_path("figure1")
        shard = os.path.join(self.folder.name, "shard-{}.json")
        environ = {k: v for k, v in os.environ.items() if k not in SCHEDULERS}
        done = subprocess.run(
            ["xargs", "-P", "2", "-I{}", sys.executable, SCRIPT, "check-layer", layer,
             "--shard", "{}/4", "--format", "json", "--output", shard],
            input="0\n1\n2\n3\n", stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            universal_newlines=True, timeout=120, env=environ, **TERMINAL_SIGNALS)
        self.assertEqual((done.returncode, done.stdout, done.stderr), (0, "", ""))
        shards = [shard.replace("{}", str(i)) for i in (3, 1, 0, 2)]
        asked = []
        for path in sorted(shards):
            with open(path, encoding="utf-8") as handle:
                asked.append(json.load(handle)["asked"])
        self.assertEqual(asked, ["0", "1", "2", "3"])
        for report in (["--format", "json"], ["--format", "text"]):
            with self.subTest(report=report):
                whole = in_process("check-layer", layer, *report)
                self.assertEqual(in_process("merge", *shards, *report), whole)
                self.assertEqual(whole[0], 0)


class TestSchedulers(ShardTestCase):

    def test_a_slurm_array_gives_the_part_and_the_number_of_parts(self):
        self.assertEqual(parse_shard("auto", slurm(5, 0, 16, 15, 1))[:2], (5, 16))
        # --array=1-16: the first task is part 0.
        self.assertEqual(parse_shard("auto", slurm(1, 1, 16, 16, 1))[:2], (0, 16))
        # Without MAX and STEP (an older Slurm): ID - MIN of COUNT.
        self.assertEqual(parse_shard("auto", slurm(7, 2, 8))[:2], (5, 8))

    def test_a_slurm_array_with_a_step_numbers_its_tasks_by_position(self):
        # --array=0-15:2 is the 8 tasks 0, 2, ..., 14.
        parts = [parse_shard("auto", slurm(task, 0, 8, 14, 2))[:2] for task in range(0, 16, 2)]
        self.assertEqual(parts, [(i, 8) for i in range(8)])
        self.assertEqual(parse_shard("auto", slurm(7, 1, 4, 10, 3))[:2], (2, 4))

    def test_a_kubernetes_index_or_a_slurm_task_id_of_n_parts(self):
        self.assertEqual(parse_shard("auto/16", {"JOB_COMPLETION_INDEX": "3"})[:2], (3, 16))
        # The task id itself: a rerun of tasks 9 and 12 (--array=9,12) redoes parts 9 and 12.
        self.assertEqual(parse_shard("auto/16", slurm(9, 9, 2, 12, 3))[:2], (9, 16))
        self.assertEqual(parse_shard("auto/16", {"SLURM_ARRAY_TASK_ID": "0"})[:2], (0, 16))

    def test_the_command_reads_the_environment_and_says_which_part(self):
        with scheduled(**slurm(6, 0, 3, 6, 3)):
            status, out, err = in_process("check-layer", *self.layer, "--shard", "auto",
                                          "--format", "json")
        self.assertEqual((status, json.loads(out)["asked"]), (0, "4:7"))
        self.assertEqual(err, "counterexamples: note: --shard auto (SLURM_ARRAY_TASK_ID=6,"
                              " SLURM_ARRAY_TASK_MIN=0, SLURM_ARRAY_TASK_MAX=6,"
                              " SLURM_ARRAY_TASK_STEP=3, SLURM_ARRAY_TASK_COUNT=3): part 2 of 3:"
                              " classes 4:7 (3 of 7)\n")
        with scheduled(JOB_COMPLETION_INDEX="1"):
            status, out, err = in_process("check-layer", *self.layer, "--shard", "auto/3",
                                          "--format", "json")
        self.assertEqual((status, json.loads(out)["asked"]), (0, "2:4"))
        self.assertEqual(err, "counterexamples: note: --shard auto/3 (JOB_COMPLETION_INDEX=1):"
                              " part 1 of 3: classes 2:4 (2 of 7)\n")

    def test_a_part_given_is_the_same_report_as_one_read(self):
        with scheduled(JOB_COMPLETION_INDEX="2"):
            read = in_process("check-layer", *self.layer, "--shard", "auto/3")
        self.assertEqual(read[:2], self.check("--shard", "2/3")[:2])
        self.assertIn("\nAsked: classes 4:7 (3 classes), each decided against all 7.\n", read[1])


class TestRefusals(ShardTestCase):

    def assertRefused(self, shard, message, **variables):
        with scheduled(**variables):
            refused = in_process("check-layer", *self.layer, "--shard", shard)
        self.assertEqual(refused, (2, "", ERROR + message + "\n"))
        with self.assertRaises(InputError) as raised:
            parse_shard(shard, variables).resolve(7)
        self.assertEqual(ERROR + str(raised.exception), ERROR + message)

    def test_no_such_part(self):
        self.assertRefused("4/4", "--shard 4/4: part 4 of 4 is no part: they are numbered 0"
                                  " to 3")
        self.assertRefused("3/0", "--shard 3/0: 0 parts: a layer is cut into at least 1")
        self.assertRefused("-1/4", "--shard -1/4: the part is '-1', below 0")
        self.assertRefused("1/-4", "--shard 1/-4: the number of parts is '-4', below 0")

    def test_malformed_text(self):
        expected = ("expected I/N (part I of N, numbered from 0), auto (a Slurm job array) or"
                    " auto/N (an index from a Kubernetes Indexed Job or a Slurm job array)")
        self.assertRefused("a/b", "--shard a/b: the part is 'a', not a whole number: "
                                  + expected)
        self.assertRefused("1/2/3", "--shard 1/2/3: " + expected)
        self.assertRefused("3", "--shard 3: " + expected)
        self.assertRefused("", "--shard: " + expected)
        self.assertRefused("1/\u0664", "--shard 1/\u0664: the number of parts is '\u0664',"
                                       " not a whole number: " + expected)
        self.assertRefused("auto/", "--shard auto/: the number of parts is '', not a whole"
                                    " number: " + expected)

    def test_a_number_of_thousands_of_digits_is_refused_by_its_length(self):
        digits = "9" * 5000
        self.assertRefused(digits + "/4", "--shard %s...: the part has 5000 digits, more than"
                                          " 12: no layer has that many classes" % digits[:57])
        self.assertRefused("auto/4", "--shard auto/4: JOB_COMPLETION_INDEX has 5000 digits,"
                                     " more than 12: no layer has that many classes",
                           JOB_COMPLETION_INDEX=digits)

    def test_more_parts_than_classes_is_refused_once_the_layer_is_read(self):
        self.assertRefused("0/8", "--shard 0/8: 8 parts of 7 classes leave a part empty: give"
                                  " at most 7 parts")
        self.assertRefused("auto", "--shard auto (SLURM_ARRAY_TASK_ID=9, SLURM_ARRAY_TASK_MIN=0,"
                                   " SLURM_ARRAY_TASK_COUNT=10): 10 parts of 7 classes leave a"
                                   " part empty: give at most 7 parts", **slurm(9, 0, 10))

    def test_with_classes(self):
        self.assertEqual(self.check("--shard", "0/2", "--classes", "0:9x"),
                         (2, "", ERROR + "--shard and --classes both choose the classes: give"
                                         " one of them\n"))

    def test_no_scheduler_variable(self):
        self.assertRefused("auto", "--shard auto: SLURM_ARRAY_TASK_ID is not set: run it as a"
                                   " task of a Slurm job array (sbatch --array), or give --shard"
                                   " auto/N for a Kubernetes Indexed Job (JOB_COMPLETION_INDEX),"
                                   " or --shard I/N")
        self.assertRefused("auto/4", "--shard auto/4: neither JOB_COMPLETION_INDEX (a Kubernetes"
                                     " Indexed Job) nor SLURM_ARRAY_TASK_ID (a Slurm job array)"
                                     " is set: give --shard I/N")
        self.assertRefused("auto", "--shard auto: JOB_COMPLETION_INDEX (a Kubernetes Indexed"
                                   " Job) gives an index but not the number of parts: give"
                                   " --shard auto/N, N the Job's completions",
                           JOB_COMPLETION_INDEX="2")
        self.assertRefused("auto", "--shard auto: SLURM_ARRAY_TASK_ID is set but not"
                                   " SLURM_ARRAY_TASK_COUNT: give --shard auto/N or --shard I/N",
                           SLURM_ARRAY_TASK_ID="2", SLURM_ARRAY_TASK_MIN="0")

    def test_both_schedulers(self):
        self.assertRefused("auto/4", "--shard auto/4: both JOB_COMPLETION_INDEX and"
                                     " SLURM_ARRAY_TASK_ID are set, which may be different"
                                     " parts: give --shard I/N",
                           JOB_COMPLETION_INDEX="1", SLURM_ARRAY_TASK_ID="1")

    def test_values_that_are_no_index(self):
        self.assertRefused("auto/4", "--shard auto/4: JOB_COMPLETION_INDEX is 'x', not a whole"
                                     " number", JOB_COMPLETION_INDEX="x")
        self.assertRefused("auto/4", "--shard auto/4: JOB_COMPLETION_INDEX is ' 1', not a whole"
                                     " number", JOB_COMPLETION_INDEX=" 1")
        self.assertRefused("auto/4", "--shard auto/4: JOB_COMPLETION_INDEX is '', not a whole"
                                     " number", JOB_COMPLETION_INDEX="")
        self.assertRefused("auto/4", "--shard auto/4: JOB_COMPLETION_INDEX is '-1', below 0",
                           JOB_COMPLETION_INDEX="-1")
        self.assertRefused("auto/4", "--shard auto/4: JOB_COMPLETION_INDEX is 4: the parts of 4"
                                     " are numbered 0 to 3", JOB_COMPLETION_INDEX="4")
        self.assertRefused("auto/4", "--shard auto/4: SLURM_ARRAY_TASK_ID is 'a\\nb', not a"
                                     " whole number", SLURM_ARRAY_TASK_ID="a\nb")
        self.assertRefused("auto", "--shard auto: SLURM_ARRAY_TASK_COUNT is '1e3', not a whole"
                                   " number", **slurm(0, 0, "1e3"))

    def test_a_task_past_its_array(self):
        self.assertRefused("auto", "--shard auto: task 5 is position 4 of an array of 4 tasks"
                                   " (SLURM_ARRAY_TASK_ID=5, SLURM_ARRAY_TASK_MIN=1,"
                                   " SLURM_ARRAY_TASK_COUNT=4)", **slurm(5, 1, 4))

    def test_an_array_that_is_no_range_of_its_count(self):
        refused = ("--shard auto: the job array is not MIN-MAX:STEP, SLURM_ARRAY_TASK_COUNT tasks"
                   " with this one among them (%s): give --shard auto/N to take"
                   " SLURM_ARRAY_TASK_ID as the part of N")
        # --array=1,3,8: 3 tasks, not the 8 of 1-8.
        self.assertRefused("auto", refused % "SLURM_ARRAY_TASK_ID=3, SLURM_ARRAY_TASK_MIN=1,"
                                             " SLURM_ARRAY_TASK_MAX=8, SLURM_ARRAY_TASK_STEP=1,"
                                             " SLURM_ARRAY_TASK_COUNT=3", **slurm(3, 1, 3, 8, 1))
        # --array=0-15:2 without its step: 8 tasks are not 0-14 one by one.
        self.assertRefused("auto", refused % "SLURM_ARRAY_TASK_ID=4, SLURM_ARRAY_TASK_MIN=0,"
                                             " SLURM_ARRAY_TASK_MAX=14,"
                                             " SLURM_ARRAY_TASK_COUNT=8", **slurm(4, 0, 8, 14))
        # A task off the step, below the first, or a step of 0.
        for task, first, count, last, step in ((3, 0, 8, 14, 2), (0, 1, 4, 4, 1),
                                               (0, 0, 1, 0, 0), (0, 0, 0, None, None)):
            with scheduled(**slurm(task, first, count, last, step)):
                status, out, err = in_process("check-layer", *self.layer, "--shard", "auto")
            self.assertEqual((status, out), (2, ""))
            self.assertTrue(err.startswith(ERROR + "--shard auto: the job array is not"), err)


class TestCheckpoints(ShardTestCase):

    def setUp(self):
        super().setUp()
        self.checkpoint = os.path.join(self.folder.name, "part.checkpoint")

    def test_a_shard_cut_short_resumes_to_the_uninterrupted_report(self):
        whole = self.check("--shard", "2/3", "--format", "json")
        self.assertEqual(self.check("--shard", "2/3", "--format", "json", "--checkpoint",
                                    self.checkpoint), whole)
        with open(self.checkpoint, "rb") as handle:
            lines = handle.read().split(b"\n")
        self.assertEqual(len(lines), 5)   # the header, classes 4, 5 and 6, and the end
        with open(self.checkpoint, "wb") as handle:
            handle.write(b"\n".join(lines[:2]) + b"\n")
        status, out, err = self.check("--shard", "2/3", "--format", "json", "--checkpoint",
                                      self.checkpoint)
        self.assertEqual((status, out), whole[:2])
        self.assertEqual(err, "counterexamples: note: %s: 1 classes kept from an earlier run,"
                              " their certificates checked again\n" % self.checkpoint)

    def test_a_checkpoint_of_the_same_range_is_the_same_run(self):
        self.check("--classes", "2:4", "--checkpoint", self.checkpoint)
        status, _, err = self.check("--shard", "1/3", "--checkpoint", self.checkpoint)
        self.assertEqual(status, 0)
        self.assertIn("2 classes kept from an earlier run", err)

    def test_a_checkpoint_of_another_part_is_refused(self):
        self.check("--shard", "0/3", "--checkpoint", self.checkpoint)
        self.assertEqual(self.check("--shard", "1/3", "--checkpoint", self.checkpoint),
                         (2, "", ERROR + "%s: is a checkpoint of another layer or options (its"
                                         ' "asked" differs): remove it to start again, or name'
                                         " another file\n" % self.checkpoint))


if __name__ == "__main__":
    unittest.main()
