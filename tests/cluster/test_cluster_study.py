#!/usr/bin/env python3
"""bench/cluster-study --smoke end to end: on this machine as one node, and (root with `ip netns`) over 2
emulated nodes of 1 core. Checks the report directory record by record: four modes per application,
each verified against the serial computation, the thesis's pairing in ranks x threads, the overlap and
collectives tables. Each CTest test runs one case: `test_cluster_study.py TestClusterStudy.test_one_node`.
Environment (set by CTest): CLUSTER_TEST_BUILD (the build folder), MPIEXEC (optional launcher)."""
import contextlib
import csv
import importlib.machinery
import importlib.util
import io
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
STUDY = HERE.parent.parent / "bench" / "cluster-study"
BUILD = os.environ.get("CLUSTER_TEST_BUILD", str(HERE.parent.parent / "build"))
SKIP = 77


def rows(path):
    """CSV rows as dicts."""
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


class TestClusterStudy(unittest.TestCase):
    """The smoke profile, checked from its report directory."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="cluster-study-test-")
        self.out = Path(self.tmp.name) / "report"

    def tearDown(self):
        self.tmp.cleanup()

    def study(self, *args, expect=0):
        """Run the study; assert its exit status; return its stderr."""
        mpi = os.environ.get("CLUSTER_TEST_MPI", "")
        if mpi in ("mpich", "openmpi") and "--mpi" not in args:  # the MPI the programs were built with
            args = ("--mpi", mpi, *args)
        if "--out" not in args:
            args = ("--out", str(self.out), *args)
        done = subprocess.run([str(STUDY), "--build", BUILD, *args],
                              capture_output=True, text=True, timeout=600)
        self.assertEqual(done.returncode, expect, done.stderr)
        return done.stderr

    def check_report(self, nodes, cores):
        """Every table present and consistent with NODES x CORES."""
        report = (self.out / "report.md").read_text()
        self.assertIn(f"# Cluster study: {nodes} node{'' if nodes == 1 else 's'} x {cores} core"
                      f"{'' if cores == 1 else 's'}", report)
        for app in ("redblack3d", "summa"):
            table = {r["mode"]: r for r in rows(self.out / f"{app}.csv")}
            self.assertEqual(sorted(table), ["async", "mt", "proxy", "sync"], app)
            for mode, row in table.items():
                self.assertEqual(row["verified"], "True", f"{app} {mode} not verified")
                self.assertGreater(float(row["total_s"]), 0)
            # The thesis's pairing: single-tier one rank per core, multi-tier one rank per node.
            self.assertEqual(int(table["sync"]["ranks"]), nodes * cores)
            self.assertEqual(int(table["mt"]["ranks"]), nodes)
            self.assertEqual(int(table["mt"]["threads_per_rank"]), cores)
            self.assertEqual(int(table["proxy"]["threads_per_rank"]), max(cores - 1, 1))
        overlap = rows(self.out / "overlap.csv")
        self.assertTrue({"async", "proxy"} <= {r["mode"] for r in overlap}, overlap)
        for r in overlap:
            self.assertTrue(0 <= float(r["overlap_osu_pct"]) <= 100, r)
        collectives = rows(self.out / "collectives.csv")
        names = {r["what"] for r in collectives}
        self.assertTrue(any(n.startswith("team allreduce") for n in names), names)
        self.assertTrue(any(n.startswith("MPI_Allreduce") for n in names), names)
        if nodes > 1:
            self.assertTrue(any("all nodes" in n for n in names), names)
        self.assertIn("## Commands", report)
        self.assertNotIn("partial report", report)

    def test_one_node(self):
        """This machine as one node of 2 cores."""
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("needs 2 cores")
        err = self.study("--smoke", "--cores", "2")
        self.assertIn("[1/", err)  # progress
        self.check_report(1, 2)

    def test_emulated_two_nodes(self):
        """2 emulated nodes x 1 core (root and ip netns)."""
        if os.geteuid() != 0 or subprocess.run(["ip", "netns", "list"], capture_output=True).returncode != 0:
            self.skipTest("needs root and 'ip netns' for the emulated cluster")
        self.study("--smoke", "--emulate", "2x1")
        self.check_report(2, 1)

    def test_terminated(self):
        """SIGTERM (a job's time limit) mid-study: exit 143, one line naming the kept report, which holds the
        parts finished before it and says it is partial; nothing the run in flight started is left."""
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("needs 2 cores")
        study = subprocess.Popen([str(STUDY), "--build", BUILD, "--out", str(self.out), "--smoke", "--cores", "2"],
                                 stderr=subprocess.PIPE, text=True)
        report = self.out / "report.md"
        deadline = time.monotonic() + 500
        while not report.exists() and study.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertIsNone(study.poll(), "the study ended before its first part's report")
        study.send_signal(signal.SIGTERM)
        _, err = study.communicate(timeout=60)
        self.assertEqual(study.returncode, 143, err)
        self.assertEqual(err.strip().splitlines()[-1],
                         f"cluster-study: terminated; report of the finished parts: {report}", err)
        text = report.read_text()
        self.assertIn("## RedBlack3D", text)
        self.assertIn("Note: partial report: summa, overlap, collectives not finished yet", text)
        self.assertEqual(len(rows(self.out / "redblack3d.csv")), 4)
        time.sleep(3)
        left = subprocess.run(["pgrep", "-f", str(self.out)], capture_output=True, text=True).stdout.split()
        self.assertEqual(left, [], "processes of the stopped run are left")

    def test_bad_input(self):
        """One line naming the bad value, exit 2."""
        for args, message in ((["--emulate", "2x"], "cluster-study: error: --emulate '2x' is not NODESxCORES"),
                              (["--cores", "0"], "cluster-study: error: --cores: Value 0 not in range 1 to 4096"),
                              (["--reps", "1000001"],
                               "cluster-study: error: --reps: Value 1000001 not in range 1 to 1000000"),
                              # A folder it cannot create (sysfs; a traceback, before).
                              (["--out", "/sys/proxy-study"], "cluster-study: error: --out '/sys/proxy-study': cannot "
                                                              "create a file in '/sys': "),
                              (["--parts", "fft"], "cluster-study: error: --parts: unknown part 'fft'")):
            err = self.study(*args, expect=2)
            self.assertTrue(err.startswith(message), err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)

    @staticmethod
    def study_module():
        """bench/cluster-study imported as a module (its functions, without running it)."""
        loader = importlib.machinery.SourceFileLoader("cluster_study", str(STUDY))
        study = importlib.util.module_from_spec(importlib.util.spec_from_file_location(loader.name, STUDY, loader=loader))
        loader.exec_module(study)
        return study

    def test_parts_need_their_programs(self):
        """A study of some parts needs only their programs; a missing one is named."""
        study = self.study_module()
        build = Path(self.tmp.name) / "build"
        (build / "bin").mkdir(parents=True)
        program = build / "bin" / "redblack3d"
        program.write_text("#!/bin/sh\n")
        program.chmod(0o755)
        args = study.parse_args(["--parts", "redblack3d", "--build", str(build)])
        self.assertEqual(args.parts, ["redblack3d"])
        said = io.StringIO()
        with self.assertRaises(SystemExit) as refused, contextlib.redirect_stderr(said):
            study.parse_args(["--parts", "redblack3d,collectives", "--build", str(build)])  # its check: one line
        self.assertEqual((refused.exception.code, said.getvalue()),
                         (2, f"cluster-study: error: '{build}/bin/bench_team' is not an executable (build the project "
                             "first: apps/setup, or --build DIR)\n"))

    def test_benchmark_sizes(self):
        """Sizes in the report come from the benchmark's name: its CSV counter has 6 digits (2.09715e+06)."""
        study = self.study_module()
        header = "name,iterations,real_time,cpu_time,time_unit,label,error_occurred,avg_us,bytes,max_us,min_us,threads"
        text = "\n".join(["Running bench_team", header,
                          '"TeamAllreduce/model_choice/2097152/iterations:1/manual_time",1,147.2,2.2,us,,,147.2,'
                          '2.09715e+06,147.3,147.1,16',
                          '"OpenMPArrayReduction/1048576/iterations:1/manual_time",1,50,2,us,"on 16 CPUs",,50,'
                          '1.04858e+06,50,50,16'])
        self.assertEqual([(r["what"], r["bytes"]) for r in study.parse_benchmark_csv(text)],
                         [("team allreduce (model_choice) (16 threads)", 2097152),
                          ("OpenMP reduction(+:a[:n]) (16 threads)", 1048576)])


if __name__ == "__main__":
    outcome = unittest.main(exit=False).result
    if not outcome.wasSuccessful():
        sys.exit(1)
    sys.exit(SKIP if outcome.skipped else 0)
