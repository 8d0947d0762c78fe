#!/usr/bin/env python3
"""The one vocabulary in the smaller tools: --version everywhere, --key=value, comma lists, K/M/G sizes,
`compare --output x.json` writes JSON Lines (and .csv CSV), and usage errors are one line with exit 2."""
import csv
import json
import os
import signal
import subprocess
import tempfile
import unittest
from pathlib import Path

from support import (BIN, CG3D, CG3D_COMPARE, CLUSTER_STUDY, COMPARE, COMPARE_PANELS, EMULATED_CLUSTER, FAKE, OVERLAP,
                     PATIENCE, PLOT, REDBLACK3D, REPRODUCE, ROOT, RUN_OVERLAP, SETUP, SUMMA, SWEEP, built, mpiexec,
                     processes_mentioning, run, wait_for)
from toolkit import cli  # noqa: E402  (support put apps/ on the path)

def cli_name(tool):
    """The name a tool says in its lines: compare-panels for compare-panels.py."""
    return tool.name.removesuffix(".py")


VERSION = next(line for line in (ROOT / "CMakeLists.txt").read_text().splitlines()
               if line.startswith("project(proxy VERSION")).split()[2]


class TestTools(unittest.TestCase):
    """Options, versions and outputs of every Python/shell tool."""
    CTEST_PREFIX = "tools"
    CTEST_LABELS = "sweep"

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="tools-")
        self.dir = Path(self.tmp.name)
        self.pipe = self.dir / "pipe.csv"
        os.mkfifo(self.pipe)

    def tearDown(self):
        self.tmp.cleanup()

    def test_version_and_help(self):
        """Every tool answers --version with the project version and --help with exit 0."""
        for tool, name in ((SWEEP, "sweep"), (PLOT, "plot"), (COMPARE, "compare"),
                           (COMPARE_PANELS, "compare-panels"), (RUN_OVERLAP, "run-overlap")):
            done = run([tool, "--version"])
            self.assertEqual((done.returncode, done.stdout.strip()), (0, f"{name} (proxy) {VERSION}"), done.stderr)
            self.assertEqual(run([tool, "--help"]).returncode, 0, name)

    def test_usage_errors(self):
        """Bad values: one line `PROGRAM: error: ...`, exit 2."""
        cases = [([COMPARE, "--output", self.dir / "x.txt"],
                  f"compare: error: --output '{self.dir / 'x.txt'}': the name must end in .csv or .json (JSON Lines)"),
                 ([COMPARE_PANELS, "--plot", self.dir / "x.jpg"],
                  f"compare-panels: error: --plot '{self.dir / 'x.jpg'}': the name must end in .png, .svg or .pdf"),
                 ([PLOT, "--summary", self.dir, "--format", "png", "jpg"],
                  "plot: error: --format: unknown format 'jpg' (expected png, svg, pdf)"),
                 ([COMPARE, "--reps=0"], "compare: error: --reps: Value 0 not in range 1 to 1000000"),
                 ([COMPARE, "--reps=1000001"], "compare: error: --reps: Value 1000001 not in range 1 to 1000000"),
                 # Beyond ~9.2e9 s, Python's clocks overflow ("unexpected OverflowError", exit 1, before).
                 ([COMPARE, "--timeout", "99999999999999"],
                  "compare: error: --timeout: Value 99999999999999 not in range 1 to 1000000"),
                 ([COMPARE_PANELS, "--timeout", "1000001"],
                  "compare-panels: error: --timeout: Value 1000001 not in range 1 to 1000000"),
                 # A pipe, and a folder where creating is refused although os.access allows it (root in
                 # sysfs): refused before the runs (the pipe held the records' write for ever, after them).
                 ([COMPARE, "--output", self.pipe],
                  f"compare: error: --output '{self.pipe}' is not a regular file (a device, pipe or socket)"),
                 # An empty value is no value (it ran the comparison and wrote no file, before).
                 ([COMPARE, "--output", ""], "compare: error: --output is empty"),
                 ([COMPARE_PANELS, "--output="], "compare-panels: error: --output is empty"),
                 ([PLOT, "--summary", self.dir, "--out", " "], "plot: error: --out is empty"),
                 ([COMPARE, "--modes", "sync,fast"], "compare: error: --modes: unknown mode 'fast' (expected sync, "
                                                     "async, mt, proxy)"),
                 ([COMPARE_PANELS, "--size", "2X"], "compare-panels: error: --size: expected an integer (suffixes K, "
                                                    "M, G allowed), got '2X'"),
                 ([RUN_OVERLAP, "--ranks=x", "/bin/true"], "run-overlap: error: --ranks: expected an integer, got 'x'"),
                 # Rank, node, core and thread counts past their maximum: refused before any launch. MPICH's
                 # mpiexec read -n 99999999999 as its low 32 bits (1215752191) and its process manager filled the
                 # host's memory; a count past 2^63 ran one rank, exit 0.
                 ([RUN_OVERLAP, "--ranks=99999999999999999999", "/bin/true"],
                  "run-overlap: error: --ranks: Value 99999999999999999999 not in range 1 to 16777216"),
                 ([RUN_OVERLAP, "-n", "16777217", "/bin/true"],
                  "run-overlap: error: --ranks: Value 16777217 not in range 1 to 16777216"),
                 ([COMPARE_PANELS, "--single-tier-ranks", "99999999999"],
                  "compare-panels: error: --single-tier-ranks: Value 99999999999 not in range 1 to 16777216"),
                 ([COMPARE_PANELS, "--multi-tier-ranks", "16777217"],
                  "compare-panels: error: --multi-tier-ranks: Value 16777217 not in range 1 to 16777216"),
                 ([COMPARE_PANELS, "--threads", "4097"],
                  "compare-panels: error: --threads: Value 4097 not in range 0 to 4096"),
                 ([COMPARE, "--cores", "4097"], "compare: error: --cores: Value 4097 not in range 1 to 4096"),
                 ([COMPARE, "--nodes", "16777217"],
                  "compare: error: --nodes: Value 16777217 not in range 1 to 16777216"),
                 # cluster-study's counts read as every tool's (argparse's int took "1_0" as 10 and "+3"); a build
                 # folder that is not there stops it if they pass.
                 ([CLUSTER_STUDY, "--reps", "1_0", "--build", self.dir / "none"],
                  "cluster-study: error: --reps: expected an integer, got '1_0'"),
                 ([CLUSTER_STUDY, "--cores", "2K", "--build", self.dir / "none"],
                  "cluster-study: error: --cores: expected an integer, got '2K'"),
                 ([CLUSTER_STUDY, "--cores", "4097", "--build", self.dir / "none"],
                  "cluster-study: error: --cores: Value 4097 not in range 1 to 4096"),
                 ([PLOT, "--summary", self.dir, "--kind", "panel,pie"],
                  "plot: error: --kind: unknown figure 'pie' (expected all, panel, geometry, size, threads, "
                  "breakdown, model)")]
        for argv, line in cases:
            done = run(argv)
            self.assertEqual((done.returncode, done.stderr.strip()), (2, line), argv)
        done = run([COMPARE, "--output", "/sys/proxy-output-check.csv"])  # read-only where a container mounts it so
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertRegex(done.stderr.strip(), r"^compare: error: --output '/sys/proxy-output-check.csv': cannot create "
                                              r"a file in '/sys': (Permission denied|Read-only file system)$")

    def assert_usage_errors(self, cases):
        """Each argv ends with exit 2 and exactly its line on stderr."""
        for argv, line in cases:
            with self.subTest(argv=[str(a) for a in argv]):
                done = run(argv)
                self.assertEqual((done.returncode, done.stderr.strip()), (2, line))

    def test_repeated_options_are_refused(self):
        """An option given twice is a usage error in the drivers' words (`redblack3d: error: option --iters given
        twice`), under its old spelling too; argparse took the last value silently, run-overlap,
        bench/emulated-cluster and apps/setup too. The options declared repeatable stay so (sweep's --param and
        --env)."""
        self.assert_usage_errors([
            ([SWEEP, "--driver", FAKE, "--reps", "2", "--reps", "3", "--dry-run"],
             "sweep: error: option --reps given twice"),
            ([SWEEP, "--driver", FAKE, "--ranks", "1", "--ranks=2", "--dry-run"],
             "sweep: error: option --ranks given twice"),
            ([COMPARE, "--reps", "1", "--repeat", "2"], "compare: error: option --reps given twice"),
            ([COMPARE, "--verify", "--verify"], "compare: error: option --verify given twice"),
            ([COMPARE_PANELS, "--size", "32", "--size=64"], "compare-panels: error: option --size given twice"),
            ([PLOT, "--summary", self.dir, "--kind", "panel", "--kind", "size"],
             "plot: error: option --kind given twice"),
            ([CLUSTER_STUDY, "--reps", "1", "--reps", "2"], "cluster-study: error: option --reps given twice"),
            ([RUN_OVERLAP, "-n", "2", "--ranks=3", "/bin/true"], "run-overlap: error: option --ranks given twice"),
            ([RUN_OVERLAP, "--mpiexec", "a", "--mpiexec=b", "/bin/true"],
             "run-overlap: error: option --mpiexec given twice")])
        # The two bash tools that took the last value, before any value is checked ("a" is no MPI) and with
        # --show-config last, so that a repeat they let through ends there instead of building or launching.
        self.assert_usage_errors([
            ([tool, *words, "--show-config"], f"{name}: error: option {option} given twice")
            for tool, name in ((EMULATED_CLUSTER, "emulated-cluster"), (SETUP, "apps/setup"))
            for words, option in ((["--mpi", "a", "--mpi", "b"], "--mpi"), (["--mpi=a", "--mpi", "b"], "--mpi"),
                                  (["--mpi", "mpich", "--mpi=openmpi"], "--mpi"))])
        self.assert_usage_errors([
            ([EMULATED_CLUSTER, "--launcher", "--nodes", "2", "--launcher", "--show-config"],
             "emulated-cluster: error: option --launcher given twice"),
            ([EMULATED_CLUSTER, "--burst=1K", "--burst", "2K", "--show-config"],
             "emulated-cluster: error: option --burst given twice"),
            ([EMULATED_CLUSTER, "--nodes", "2", "--nodes", "--show-config"],
             "emulated-cluster: error: option --nodes given twice"),
            ([SETUP, "--run", "--run", "--show-config"], "apps/setup: error: option --run given twice"),
            ([SETUP, "--test", "--mpi", "openmpi", "--test", "--show-config"],
             "apps/setup: error: option --test given twice"),
            # Two modes: the last one won silently too.
            ([SETUP, "--test", "--run", "--show-config"],
             "apps/setup: error: --run and --test exclude each other (the main job, or the test suite)")])
        # .ci/run's two command lines stay valid (their configuration, not their run).
        for words, mpi in (([], "mpich"), (["--mpi", "openmpi"], "openmpi")):
            done = run([SETUP, "--test", *words, "--show-config"])
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertRegex(done.stdout, rf"\n  --test +true +option\n  --mpi +{mpi} ")
        done = run([SWEEP, "--driver", FAKE, "--param", "n", "8", "--param", "iters", "1", "--env", "A=1", "--env",
                    "B=2", "--launcher", "none", "--dry-run", "--out", self.dir / "out"])
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(f"{FAKE} --n 8 --iters 1 --output ", done.stdout)

    def test_empty_list_items_are_refused(self):
        """An empty item of a comma list (doubled, first or last comma) is a usage error naming the option and the
        value, in the drivers' words (`--n: empty item in '8,,8'`); the tools dropped it and ran a shorter list."""
        out = ["--out", self.dir / "out", "--dry-run"]
        self.assert_usage_errors([
            ([SWEEP, "--driver", FAKE, "--ranks", "2,,4", *out], "sweep: error: --ranks: empty item in '2,,4'"),
            ([SWEEP, "--driver", FAKE, "--param", "n", "8,", *out], "sweep: error: --param n: empty item in '8,'"),
            ([SWEEP, "--driver", FAKE, "--group", "modes=sync,,async ranks=2", *out],
             "sweep: error: --group 'modes=sync,,async ranks=2': modes: empty item in 'sync,,async'"),
            ([COMPARE, "--modes", "sync,"], "compare: error: --modes: empty item in 'sync,'"),
            ([COMPARE, "--n", "8,,8"], "compare: error: --n: empty item in '8,,8'"),
            ([COMPARE_PANELS, "--panels", ",16"], "compare-panels: error: --panels: empty item in ',16'"),
            ([PLOT, "--summary", self.dir, "--format", "png,"], "plot: error: --format: empty item in 'png,'"),
            ([CLUSTER_STUDY, "--parts", "summa,,overlap"],
             "cluster-study: error: --parts: empty item in 'summa,,overlap'")])

    def test_sizes_read_as_the_drivers_read_them(self):
        """cli.size, the tools' one reading of a size, takes what the drivers' `.suffixes()` options take (b; K, M,
        G, T, P, E alone or with B, i, iB; any case): '8 kib' and '1GB' were refused by the tools and taken by
        summa. Each value is checked against summa's own reading where it is built."""
        taken = {"1K": 1 << 10, "4k": 4 << 10, "8 kib": 8 << 10, "2KB": 2 << 10, "3Ki": 3 << 10, "2MB": 2 << 20,
                 "1Gi": 1 << 30, "1t": 1 << 40, "+3": 3, "16b": 16, " 64 ": 64}
        refused = ("2X", "0x10", "1kk", "-1", "1.5K", "K", "")
        for text, value in taken.items():
            self.assertEqual(cli.size(text, "--size"), value, text)
        for text in refused:
            with self.assertRaises(cli.UsageError) as caught:
                cli.size(text, "--size")
            self.assertEqual(str(caught.exception),
                             "--size: Value -1 not in range 1 to 4611686018427387904" if text == "-1"
                             else f"--size: expected an integer (suffixes K, M, G allowed), got '{text}'")
        # Through the tools: the size passes and the next option's check is what refuses.
        self.assert_usage_errors([
            ([COMPARE_PANELS, "--size", "2kib", "--panels", "1KiB", "--reps", "0"],
             "compare-panels: error: --reps: Value 0 not in range 1 to 1000000"),
            ([COMPARE, "--n", "1kb,8,8", "--reps", "0"], "compare: error: --reps: Value 0 not in range 1 to 1000000"),
            ([COMPARE_PANELS, "--size", "1kk"],
             "compare-panels: error: --size: expected an integer (suffixes K, M, G allowed), got '1kk'")])
        if built(SUMMA):
            # Sizes summa can hold (it refuses a larger matrix as such, not the text).
            for text in [t for t, value in taken.items() if value <= 1 << 16 and t == t.strip()] + list(refused[:5]):
                done = run([SUMMA, "--size", text, "--show-config"])
                shown = [line.split()[1] for line in done.stdout.splitlines() if line.split()[:1] == ["--size"]]
                self.assertEqual(shown if done.returncode == 0 else done.returncode,
                                 [str(taken[text])] if text in taken else 2, text)

    def test_counts_and_sizes_in_the_drivers_words(self):
        """A bad count, range or size is refused by a tool in the very words of the driver that has the option
        (CLI11's check in apps/common/src/options.cpp): "--reps: Value 0 not in range 1 to 1000000", "expected an
        integer, got 'x'", "(given as '0K')". The tools said "'0' is not a positive integer" and "'0' is below the
        minimum 1"."""
        pairs = [(COMPARE_PANELS, SUMMA, ["--reps", "0"]), (COMPARE_PANELS, SUMMA, ["--reps", "x"]),
                 (COMPARE_PANELS, SUMMA, ["--reps", "2K"]), (COMPARE_PANELS, SUMMA, ["--size", "0K"]),
                 (COMPARE_PANELS, SUMMA, ["--size", "2X"]), (COMPARE_PANELS, SUMMA, ["--threads", "4097"]),
                 (COMPARE_PANELS, SUMMA, ["--threads", "-1"]), (COMPARE, REDBLACK3D, ["--iters", "0"]),
                 (COMPARE, REDBLACK3D, ["--iters", "+0"]), (COMPARE, REDBLACK3D, ["--n", "2M"]),
                 (CG3D_COMPARE, CG3D, ["--max-iters", "0"]), (CG3D_COMPARE, CG3D, ["--n", "16,16,0"])]
        compared = 0
        for tool, driver, argv in pairs:
            if not built(driver):
                continue
            with self.subTest(tool=tool.name, argv=argv):
                theirs = run([driver, *argv, "--show-config"])
                ours = run([tool, "--driver", driver, *argv, "--show-config"])
                self.assertEqual(theirs.returncode, 2, theirs.stderr)
                line = theirs.stderr.strip().split(": error: ", 1)[1]
                self.assertEqual((ours.returncode, ours.stderr.strip()), (2, f"{cli_name(tool)}: error: {line}"))
                compared += 1
        if compared == 0:
            self.skipTest("no driver is built")

    def test_emulated_cluster_burst_is_a_size(self):
        """bench/emulated-cluster's --burst reads as the drivers read a size (K, M, G alone or with B, i, iB; any
        case; blanks around), given to tc in bytes, which --show-config shows: it took tc's lower-case forms only
        ("256KiB" and "1M" were refused). It needs no root to check its options."""
        taken = {"256kb": 256 << 10, "256K": 256 << 10, "256KiB": 256 << 10, " 64 kib ": 64 << 10, "+1M": 1 << 20,
                 "3g": 3 << 30, "1514": 1514, "1514b": 1514, "4294967295": (1 << 32) - 1}
        for text, value in taken.items():
            with self.subTest(burst=text):
                done = run([EMULATED_CLUSTER, "--burst", text, "--show-config"])
                shown = [line.split()[1] for line in done.stdout.splitlines() if line.split()[:1] == ["--burst"]]
                self.assertEqual((done.returncode, shown), (0, [str(value)]), done.stderr)
        self.assert_usage_errors([
            ([EMULATED_CLUSTER, "--burst", text, "--show-config"], f"emulated-cluster: error: --burst: {line}")
            for text, line in (("0", "Value 0 not in range 1514 to 4294967295"),
                               ("1500", "Value 1500 not in range 1514 to 4294967295"),  # under one frame
                               ("4G", "Value 4294967296 not in range 1514 to 4294967295 (given as '4G')"),
                               ("-1", "Value -1 not in range 1514 to 4294967295"),
                               *((text, f"expected an integer (suffixes K, M, G allowed), got '{text}'")
                                 for text in ("1.5k", "256kbit", "0x10", "1kk", "K", "")))])

    @unittest.skipUnless(built(OVERLAP), "the overlap benchmark is not built")
    def test_run_overlap_keeps_the_benchmarks_usage_error(self):
        """A bad option run-overlap passes on: the benchmark's line and exit 2, a usage error as in every tool
        (run-overlap exited 1, as for a failed launch)."""
        done = run([RUN_OVERLAP, "--ranks=2", "--mpiexec", mpiexec(), OVERLAP, "--sizes", "1K,0"], timeout=120)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("overlap: error: --sizes: Value 0 not in range 1 to 1073741824", done.stderr.splitlines())

    def test_output_folders_are_checked_as_output_files(self):
        """--out of sweep, plot and cluster-study and plot's figure names, checked before any work by
        check_output_file's rules (cli.check_output_folder): a missing parent folder is refused and not made (sweep
        made the whole path, plot --prefix a/b failed only after drawing); a symbolic link is checked as its target,
        one into a missing folder refused naming both, one to a folder not there yet followed (sweep and plot said
        "cannot create the folder: File exists")."""
        missing, made = self.dir / "missing", self.dir / "made"
        dangling = self.dir / "dangling"
        dangling.symlink_to(missing / "out")
        through = self.dir / "through"
        through.symlink_to("made")  # relative: beside the link
        sweep = [SWEEP, "--driver", FAKE, "--param", "n", "8,16", "--reps", "1", "--launcher", "none"]
        cases = [([*sweep, "--out", missing / "out", "--dry-run"],
                  f"sweep: error: --out '{missing / 'out'}': the directory '{missing}' does not exist"),
                 ([*sweep, "--out", dangling], f"sweep: error: --out '{dangling}': a symbolic link to "
                                               f"'{missing / 'out'}': the directory '{missing}' does not exist")]
        if built(SUMMA):  # cluster-study checks its programs before its --out
            cases.append(([CLUSTER_STUDY, "--parts", "summa", "--build", BIN.parent, "--out", missing / "study"],
                          f"cluster-study: error: --out '{missing / 'study'}': the directory '{missing}' does not "
                          "exist"))
        self.assert_usage_errors(cases)
        done = run([*sweep, "--out", through])
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(through.is_symlink())
        self.assertTrue((made / "summary.csv").is_file())
        self.assert_usage_errors([
            ([PLOT, "--summary", through, "--out", missing / "figures"],
             f"plot: error: --out '{missing / 'figures'}': the directory '{missing}' does not exist"),
            ([PLOT, "--summary", through, "--out", dangling],
             f"plot: error: --out '{dangling}': a symbolic link to '{missing / 'out'}': the directory '{missing}' "
             "does not exist"),
            ([PLOT, "--summary", through, "--prefix", "a/b"],
             f"plot: error: --prefix 'a/b': figure '{through / 'figures' / 'a' / 'bpanel.png'}': the directory "
             f"'{through / 'figures' / 'a'}' does not exist")])
        self.assertFalse(missing.exists())
        self.assertEqual(list((made / "figures").iterdir()), [])  # nothing drawn before the refusal
        figures = self.dir / "figures"
        figures.symlink_to("drawn")
        done = run([PLOT, "--summary", through, "--out", figures, "--kind", "size"])
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.split(), [str(figures / "size.png")])
        self.assertTrue((self.dir / "drawn" / "size.png").is_file())

    def test_default_programs_follow_proxy_bin_dir(self):
        """Without --driver (or OVERLAP_EXE) the tools take their program from $PROXY_BIN_DIR, whatever the
        build's folder, and check it only after every other option: a bad option is reported as such."""
        empty = dict(os.environ, PROXY_BIN_DIR=str(self.dir))  # a bin/ without programs
        hint = "and set PROXY_BIN_DIR=BUILD/bin, or name it with --driver)"
        cases = [([COMPARE, "--reps=0"], "compare: error: --reps: Value 0 not in range 1 to 1000000"),
                 ([COMPARE, "--output", self.dir / "x.txt"],
                  f"compare: error: --output '{self.dir / 'x.txt'}': the name must end in .csv or .json (JSON Lines)"),
                 ([COMPARE], f"compare: error: --driver '{self.dir / 'redblack3d'}' is not an executable "
                             f"(build it with cmake --build BUILD --target redblack3d_driver {hint}"),
                 ([COMPARE_PANELS, "--modes", "sync,fast"],
                  "compare-panels: error: --modes: unknown mode 'fast' (expected sync, async, mt, proxy)"),
                 ([COMPARE_PANELS], f"compare-panels: error: --driver '{self.dir / 'summa'}' is not an executable "
                                    f"(build it with cmake --build BUILD --target summa_driver {hint}"),
                 ([RUN_OVERLAP, "--ranks=x"], "run-overlap: error: --ranks: expected an integer, got 'x'"),
                 ([RUN_OVERLAP], f"run-overlap: error: '{self.dir / 'overlap'}' is not an executable "
                                 "file (give OVERLAP_EXE, or set PROXY_BIN_DIR to a build's bin/)")]
        for argv, line in cases:
            done = run(argv, env=empty)
            self.assertEqual((done.returncode, done.stderr.strip()), (2, line), argv)

    def test_show_config_refuses_what_a_run_refuses(self):
        """--show-config answers only once every option has passed the checks of a run, as the drivers' does
        (`redblack3d --iters 0 --show-config` exits 2): in every tool with --show-config, a bad value with it
        exits 2 with the very line it gives without it (the Python tools printed their table with the bad value
        and exited 0: cli.Parser answered --show-config before the tool's checks)."""
        none = self.dir / "none"
        hint = "and set PROXY_BIN_DIR=BUILD/bin, or name it with --driver)"
        sweep = [SWEEP, "--driver", FAKE, "--out", self.dir / "out"]
        refused = [
            ([*sweep, "--reps", "0"], "sweep: error: --reps: Value 0 not in range 1 to 1000000"),
            ([*sweep, "--timeout", "inf"], "sweep: error: --timeout: expected a finite number, got 'inf'"),
            ([*sweep, "--param", "n", "8,"], "sweep: error: --param n: empty item in '8,'"),
            ([SWEEP, "--driver", none], f"sweep: error: driver '{none}' is not an executable file"),
            ([*sweep, "--launcher", "none", "--ranks", "2"], "sweep: error: launcher 'none' runs one process but "
                                                             "ranks is 2"),
            ([COMPARE, "--reps", "0"], "compare: error: --reps: Value 0 not in range 1 to 1000000"),
            ([COMPARE, "--iters", "0"], "compare: error: --iters: Value 0 not in range 1 to 1073741823"),
            ([COMPARE, "--n", "8,,8"], "compare: error: --n: empty item in '8,,8'"),
            ([COMPARE, "--driver", none], f"compare: error: --driver '{none}' is not an executable (build it with "
                                          f"cmake --build BUILD --target redblack3d_driver {hint}"),
            ([CG3D_COMPARE, "--tol", "1e-20"], "compare: error: --tol 1e-20 is below 2.2e-16 (double precision's "
                                               "epsilon to two digits): no computed residual means it"),
            ([CG3D_COMPARE, "--variants", "classic,fast"],
             "compare: error: --variants: unknown variant 'fast' (expected classic, pipelined)"),
            ([COMPARE_PANELS, "--size", "0"],
             "compare-panels: error: --size: Value 0 not in range 1 to 2147483647"),
            ([COMPARE_PANELS, "--modes", "sync,fast"],
             "compare-panels: error: --modes: unknown mode 'fast' (expected sync, async, mt, proxy)"),
            ([COMPARE_PANELS, "--driver", none], f"compare-panels: error: --driver '{none}' is not an executable "
                                                 f"(build it with cmake --build BUILD --target summa_driver {hint}"),
            ([CLUSTER_STUDY, "--reps", "0"], "cluster-study: error: --reps: Value 0 not in range 1 to 1000000"),
            ([CLUSTER_STUDY, "--parts", "summa,pie"], "cluster-study: error: --parts: unknown part 'pie' (expected "
                                                      "redblack3d, summa, overlap, collectives)"),
            ([CLUSTER_STUDY, "--parts", "summa", "--build", none],
             f"cluster-study: error: '{none / 'bin' / 'summa'}' is not an executable (build the project first: "
             "apps/setup, or --build DIR)"),
            ([REPRODUCE, "--timeout", "-1"], "reproduce: error: --timeout: Value -1 not in range 1 to 1000000"),
            ([REPRODUCE, "--results", none], f"reproduce: error: --results '{none}' does not exist"),
            ([EMULATED_CLUSTER, "--nodes", "0"],
             "emulated-cluster: error: --nodes: Value 0 not in range 1 to 250"),
            ([RUN_OVERLAP, "--ranks", "0"], "run-overlap: error: --ranks: Value 0 not in range 1 to 16777216"),
            ([SETUP, "--mpi", "lam"], "apps/setup: error: --mpi: unknown value 'lam' (expected mpich or openmpi)")]
        if built(REDBLACK3D):  # the layout's checks come after the programs'
            refused += [
                ([CLUSTER_STUDY, "--parts", "redblack3d", "--build", BIN.parent, "--cores", "4096"],
                 f"cluster-study: error: --cores 4096 is more than the "
                 f"{cli.counted(len(os.sched_getaffinity(0)), 'core')} this process may use"),
                ([CLUSTER_STUDY, "--parts", "redblack3d", "--build", BIN.parent, "--mpiexec", none],
                 f"cluster-study: error: launcher '{none}' is not an executable (--mpiexec, MPIEXEC)")]
        # run-overlap's options come before its program (OVERLAP_EXE) and the benchmark's options: its
        # --show-config goes first there (it answered before looking at the program, exit 0 with a missing one).
        program_last = [([RUN_OVERLAP, none], f"run-overlap: error: '{none}' is not an executable file (give "
                                              "OVERLAP_EXE, or set PROXY_BIN_DIR to a build's bin/)"),
                        ([RUN_OVERLAP, "--mpiexec", " ", FAKE], "run-overlap: error: the launcher command is empty")]
        if built(OVERLAP):  # the benchmark's own options, checked by its own --show-config
            program_last.append(([RUN_OVERLAP, OVERLAP, "--sizes", "1K,0"],
                                 "overlap: error: --sizes: Value 0 not in range 1 to 1073741824"))
        self.assert_usage_errors(refused + [([*argv, "--show-config"], line) for argv, line in refused]
                                 + program_last + [([argv[0], "--show-config", *argv[1:]], line)
                                                   for argv, line in program_last])
        self.assertFalse((self.dir / "out").exists())  # checked, not made

    def test_show_config_shows_the_checked_values(self):
        """With good values --show-config prints the table with each value as a run takes it (`--n 1K` as
        1024, a repeated mode once, a sweep's spec file value with that source), exit 0, and makes nothing."""
        sweep = [SWEEP, "--driver", FAKE, "--out", self.dir / "out"]
        spec = self.dir / "spec.toml"
        spec.write_text('reps = 4\ntimeout = 30.0\n[params]\nn = [8, 16]\n')
        shown = [([*sweep, "--spec", spec, "--launcher", "none", "--ranks", "1"],
                  [r"--reps +4 +spec file '.*spec\.toml'", r"--timeout +30 +spec file '.*spec\.toml'",
                   r"--param +n=8,16 +spec file '.*spec\.toml'", r"--launcher +none +option", "--ranks +1 +option",
                   "--record-format +json +default"]),
                 ([REPRODUCE, "--timeout", "60"], ["--timeout +60 +option", r"--results +\S+RESULTS\.md +default"]),
                 ]
        if built(OVERLAP):  # the benchmark's table follows the script's
            shown.append(([RUN_OVERLAP, "--ranks", "3", OVERLAP, "--panel", "1K", "--bcast-n", "2K"],
                          ["--ranks +3 +option", f"OVERLAP_EXE +{OVERLAP} +argument", "--panel +1024 +option"]))
        if built(REDBLACK3D):
            shown += [([COMPARE, "--driver", REDBLACK3D, "--n", "1K", "--modes", "sync,sync,mt", "--reps", "2"],
                       ["--n +1024 +option", "--modes +sync,mt +option", "--reps +2 +option", "--launcher +mpiexec "]),
                      ([CLUSTER_STUDY, "--parts", "redblack3d", "--build", BIN.parent, "--cores", "1", "--out",
                        self.dir / "study"],
                       ["--cores +1 +option", "--reps +3 +default", "--parts +redblack3d +option"])]
        if built(CG3D):
            shown.append(([CG3D_COMPARE, "--driver", CG3D, "--n", "16,16,1K", "--variants", "pipelined,pipelined"],
                          ["--n +16,16,1024 +option", "--variants +pipelined +option"]))
        if built(SUMMA):
            shown.append(([COMPARE_PANELS, "--driver", SUMMA, "--size", "2K", "--panels", "1K,16,1K"],
                          ["--size +2048 +option", "--panels +1024,16 +option"]))
        for argv, rows in shown:
            with self.subTest(argv=[str(a) for a in argv]):
                first = 1 if argv[0] == RUN_OVERLAP else len(argv)  # run-overlap: its options before its program
                done = run([*argv[:first], "--show-config", *argv[first:]])
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertRegex(done.stdout, r"^\S+: effective configuration \(setting, value, source\)\n")
                for row in rows:
                    self.assertRegex(done.stdout, rf"(?m)^  {row}")
        self.assertFalse((self.dir / "out").exists())  # checked, not made
        self.assertFalse((self.dir / "study").exists())

    @unittest.skipUnless(built(SUMMA), "summa is not built")
    def test_a_stopped_tool_leaves_no_run_behind(self):
        """compare-panels stopped mid-run (the tools share cli.run_main and launcher.start_launch): by SIGTERM, exit
        130 with one line and its launcher and ranks stopped (they ran on to the end of their run, without a word);
        by SIGKILL, they end too (PR_SET_PDEATHSIG), and the next start removes the killed one's scratch folder."""
        slow = [COMPARE_PANELS, "--driver", SUMMA, "--size", "2048", "--panels", "8", "--reps", "1000", "--modes", "mt",
                "--timeout", "900"]
        scratch = Path(tempfile.gettempdir())
        for sig in (signal.SIGTERM, signal.SIGKILL):
            process = subprocess.Popen([str(a) for a in slow], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            marker = f"proxy-compare-panels-{process.pid}-"
            wait_for(lambda: processes_mentioning(marker), "the run to start")
            process.send_signal(sig)
            _, stderr = process.communicate(timeout=PATIENCE)
            wait_for(lambda: not processes_mentioning(marker), f"the launch to end after {sig.name}")
            if sig == signal.SIGTERM:
                self.assertEqual((process.returncode, stderr.splitlines()[-1]), (130, "compare-panels: interrupted"))
                self.assertEqual(list(scratch.glob(marker + "*")), [])
            else:
                self.assertEqual(process.returncode, -signal.SIGKILL)
                self.assertEqual(len(list(scratch.glob(marker + "*"))), 1)
                done = run([COMPARE_PANELS, "--driver", SUMMA, "--size", "32", "--panels", "8", "--reps", "1",
                            "--modes", "sync"])
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertEqual(list(scratch.glob(marker + "*")), [])

    @unittest.skipUnless(built(REDBLACK3D), "redblack3d is not built")
    def test_compare_runs_the_driver_of_proxy_bin_dir(self):
        """compare without --driver runs $PROXY_BIN_DIR/redblack3d (CTest sets it to this build's bin/)."""
        done = run([COMPARE, "--n=8", "--iters", "1", "--modes", "sync", "--cores", "2", "--mpiexec", mpiexec()],
                   env=dict(os.environ, PROXY_BIN_DIR=str(REDBLACK3D.parent)))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(f" {REDBLACK3D} --mode sync --n 8 ", done.stderr)
        self.assertRegex(done.stdout, r"(?m)^sync +2 x 1 ")

    @unittest.skipUnless(built(REDBLACK3D), "redblack3d is not built")
    def test_compare_output_formats(self):
        """compare --output x.json writes JSON Lines and x.csv CSV, one record per mode."""
        for name in ("runs.json", "runs.csv"):
            output = self.dir / name
            done = run([COMPARE, "--driver", REDBLACK3D, "--n=8", "--iters", "1", "--modes", "sync,proxy",
                        "--cores", "2", "--mpiexec", mpiexec(), "--output", output])
            self.assertEqual(done.returncode, 0, done.stderr)
            if name.endswith(".json"):
                records = [json.loads(line) for line in output.read_text().splitlines()]
            else:
                records = list(csv.DictReader(output.read_text().splitlines()))
            self.assertEqual([r["mode"] for r in records], ["sync", "proxy"])
            self.assertEqual(str(records[0]["ranks"]), "2")

    @unittest.skipUnless(built(REDBLACK3D), "redblack3d is not built")
    def test_output_links_checked_as_their_target(self):
        """A symbolic link whose target does not exist is checked as that target: one into a missing folder is
        refused before any run (cli.check_output_file probed the link's own folder and passed it; the write
        failed after all the runs), one into a folder that exists is written through, the link kept."""
        missing = self.dir / "missing"
        for tool, option, name in ((COMPARE, "--output", "runs.csv"), (COMPARE_PANELS, "--output", "runs.json"),
                                   (COMPARE_PANELS, "--plot", "panels.png")):
            link = self.dir / f"link-{name}"
            link.unlink(missing_ok=True)
            link.symlink_to(missing / name)
            done = run([tool, "--driver", REDBLACK3D if tool == COMPARE else SUMMA, option, link])
            program = Path(tool).name.removesuffix(".py")
            self.assertEqual((done.returncode, done.stderr.strip()),
                             (2, f"{program}: error: {option} '{link}': a symbolic link to '{missing / name}': "
                                 f"the directory '{missing}' does not exist"), tool)
        self.assertFalse(missing.exists())
        link = self.dir / "through.csv"
        link.symlink_to("target.csv")  # relative: beside the link
        done = run([COMPARE, "--driver", REDBLACK3D, "--n=8", "--iters", "1", "--modes", "sync", "--cores", "2",
                    "--mpiexec", mpiexec(), "--output", link])
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(link.is_symlink())
        self.assertEqual([r["mode"] for r in csv.DictReader((self.dir / "target.csv").read_text().splitlines())],
                         ["sync"])

    @unittest.skipUnless(built(REDBLACK3D), "redblack3d is not built")
    def test_compare_shows_the_drivers_ideal_proxy(self):
        """One ideal-proxy formula: compare passes the s of the strategy its proxy ran (auto on 2 cores asks
        for both: cooperative, s = 0) to the driver, shows the driver's ideal_proxy_s in its table and puts
        the record's numbers into the formula it prints."""
        output = self.dir / "runs.json"
        done = run([COMPARE, "--driver", REDBLACK3D, "--n=8", "--iters", "1", "--modes", "sync,proxy",
                    "--cores", "2", "--mpiexec", mpiexec(), "--output", output])
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertRegex(done.stderr, r" --mode sync .*--proxy-cores 0")
        sync, proxy = [json.loads(line) for line in output.read_text().splitlines()]
        self.assertEqual((proxy["proxy_placement"], sync["proxy_cores"], sync["node_width"]), ("none", 0, 2))
        total, comm = sync["total_s"], sync["comm_s"]
        self.assertAlmostEqual(sync["ideal_proxy_s"], max((total - comm) * 2 / 2, comm), places=12)
        self.assertRegex(done.stdout, rf"(?m)^sync +2 x 1 .* {sync['ideal_proxy_s']:.4f}$")
        self.assertIn(f"ideal proxy (cooperative, s = 0) from sync: T_p = max((T_s - C_t) p/(p - s), C_t) = "
                      f"max(({total:.4f} - {comm:.4f}) x 2/2, {comm:.4f}) = {sync['ideal_proxy_s']:.4f} s; "
                      f"measured proxy {proxy['total_s']:.4f} s", done.stdout)

    @unittest.skipUnless(built(REDBLACK3D), "redblack3d is not built")
    def test_driver_prints_its_ideal_proxy_with_the_formula(self):
        """The driver's line under the table: the formula, its record's numbers put into it, p and s."""
        output = self.dir / "run.json"
        for proxy_cores in ("1", "0"):
            done = run(mpiexec().split() + ["-n", "2", REDBLACK3D, "--n", "8", "--iters", "1", "--node-width", "2",
                                            "--proxy-cores", proxy_cores, "--output", output])
            self.assertEqual(done.returncode, 0, done.stderr)
        for record, kept in zip([json.loads(line) for line in output.read_text().splitlines()], (1, 2)):
            total, comm, s = record["total_s"], record["comm_s"], 2 - kept
            self.assertEqual(record["proxy_cores"], s)
            self.assertAlmostEqual(record["ideal_proxy_s"], max((total - comm) * 2 / kept, comm), places=12)
        self.assertIn(f"ideal proxy T_p = max((T_s - C_t) p/(p - s), C_t) = max(({total:.4f} - {comm:.4f}) x 2/2, "
                      f"{comm:.4f}) = {record['ideal_proxy_s']:.4f} s (p = 2 cores per node, s = 0 cores given to "
                      f"the proxy; thesis IV.B)", done.stdout)


if __name__ == "__main__":
    unittest.main()
