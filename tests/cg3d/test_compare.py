#!/usr/bin/env python3
"""apps/cg3d/compare end to end: test_compare.py --driver CG3D --mpiexec CMD [--folder DIR] [CASE...].
A real small run (1 node of 2 cores: its table, ratio lines and iteration check against the records it
wrote), --output CSV with one row per run, and the usage and failure paths with their exact lines and exit
codes. Each CASE (CompareTest.test_...) is one CTest test (tests/cg3d/CMakeLists.txt)."""
import argparse
import csv
import json
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

COMPARE = Path(__file__).resolve().parents[2] / "apps" / "cg3d" / "compare"
MODES = ("sync", "async", "mt", "proxy")
VARIANTS = ("classic", "pipelined")
OPTIONS = argparse.Namespace()  # --driver, --mpiexec, --folder: set by main()


def compare(*arguments):
    """Run the tool on this build's driver and launcher; the CompletedProcess (text)."""
    argv = [sys.executable, str(COMPARE), "--driver", OPTIONS.driver, "--mpiexec", OPTIONS.mpiexec, "--cores", "2",
            "--nodes", "1", *map(str, arguments)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)


def errors(done):
    """The tool's own error lines (not the '+ command' echo or the run's output)."""
    return [line for line in done.stderr.splitlines() if line.startswith("compare: error: ")]


def median(records):
    """The record with the median total time, as the tool picks it."""
    return sorted(records, key=lambda r: r["total_s"])[len(records) // 2]


class CompareTest(unittest.TestCase):
    """The comparison's table and ratios, its records and its refusals."""

    def setUp(self):
        self.folder = Path(tempfile.mkdtemp(prefix="cg3d-compare-test-", dir=OPTIONS.folder))
        self.addCleanup(shutil.rmtree, self.folder, ignore_errors=True)

    def test_table_ratios_and_iterations(self):
        """--n 16 --reps 1 on 1 node x 2 cores: a row per mode and variant (2 x 1 ranks for sync and async,
        1 x 2 for mt and proxy) whose total and iterations are the records', the three kinds of ratio with
        the medians' numbers, and the iteration check saying what the records say."""
        output = self.folder / "runs.json"
        done = compare("--n", 16, "--reps", 1, "--output", output)
        self.assertEqual(done.returncode, 0, done.stderr)
        records = [json.loads(line) for line in output.read_text().splitlines()]
        self.assertEqual([(r["mode"], r["variant"]) for r in records], [(m, v) for m in MODES for v in VARIANTS])
        lines = done.stdout.splitlines()
        self.assertEqual(lines[0], "cg3d 16x16x16, tol 1e-8, at most 500 iterations, 1 node x 2 cores, "
                                   "1 run per cell")
        self.assertRegex(lines[1], r"^Mode +Variant +Ranks x thr +Total\(s\) +Compute\(s\) +Comm\(s\) +Wait\(s\) "
                                   r"+Iterations +Iter\(ms\)$")
        by_cell = {(r["mode"], r["variant"]): r for r in records}
        for line, (mode, variant) in zip(lines[2:10], by_cell):
            r = by_cell[(mode, variant)]
            ranks = "2 x 1" if mode in ("sync", "async") else "1 x 2"
            self.assertRegex(line, rf"^{mode} +{variant} +{ranks} +{r['total_s']:.4f} +{r['compute_s']:.4f} +"
                                   rf"{r['comm_s']:.4f} +{r['wait_s']:.4f} +{r['iterations']} +{r['iter_ms']:.3f}$")
        self.assertTrue(lines[10].startswith("Each row is the median of 1 run of one mode and variant"), lines[10])
        proxy = by_cell[("proxy", "pipelined")]
        sync = by_cell[("sync", "classic")]
        speedup = sync["total_s"] / proxy["total_s"]
        verdict = f"{speedup:.2f} x faster" if speedup >= 1 else f"{1 / speedup:.2f} x slower"
        self.assertEqual(lines[11], f"proxy pipelined / sync classic: {verdict} (proxy pipelined "
                                    f"{proxy['total_s']:.4f} s, sync classic {sync['total_s']:.4f} s)")
        for line, name in zip(lines[12:15], ("proxy classic vs best other mode", "proxy pipelined vs best other mode",
                                             "proxy pipelined vs the best other mode in either variant")):
            self.assertRegex(line, rf"^{re.escape(name)}: [0-9.]+ x (faster|slower) \(proxy \w+ [0-9.]+ s, "
                                   r"(sync|async|mt) (classic|pipelined) [0-9.]+ s\)$")
        best = min((r for r in records if r["mode"] != "proxy"), key=lambda r: r["total_s"])
        self.assertIn(f", {best['mode']} {best['variant']} {best['total_s']:.4f} s)", lines[14])
        iterations = {v: sorted({r["iterations"] for r in records if r["variant"] == v}) for v in VARIANTS}
        if all(len(counts) == 1 for counts in iterations.values()):
            expected = (f"same iterations: classic {iterations['classic'][0]} in all 4 runs; "
                        f"pipelined {iterations['pipelined'][0]} in all 4 runs")
            self.assertEqual(lines[15], expected)
        else:
            self.assertTrue(lines[15].startswith("iterations DIFFER between runs: "), lines[15])

    def test_output_csv_has_a_row_per_run(self):
        """--output x.csv --reps 2: every run's record in the order they ran (rounds), with mode and variant
        columns and the driver's provenance columns."""
        output = self.folder / "x.csv"
        done = compare("--n", 8, "--reps", 2, "--modes", "sync,proxy", "--output", output)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(output, newline="") as handle:
            rows = list(csv.DictReader(handle))
        cells = [(m, v) for m in ("sync", "proxy") for v in VARIANTS]
        self.assertEqual([(r["mode"], r["variant"]) for r in rows], cells * 2)
        self.assertEqual({r["ranks"] for r in rows if r["mode"] == "sync"}, {"2"})
        self.assertTrue(all(r["prov_commit"] and r["converged"] == "true" for r in rows), rows[0])
        self.assertIn("same iterations: " if len({r["iterations"] for r in rows}) == 1
                      else "iterations DIFFER between runs: ", done.stdout)

    def test_unknown_mode_is_a_usage_error(self):
        """--modes bogus: exit 2 with one line, before anything runs."""
        done = compare("--modes", "bogus")
        self.assertEqual((done.returncode, errors(done)),
                         (2, ["compare: error: --modes: unknown mode 'bogus' (expected sync, async, mt, proxy)"]))
        self.assertNotIn("+ ", done.stderr)

    def test_missing_driver_is_named(self):
        """A driver that is not there: exit 2 naming it and how to build it."""
        missing = self.folder / "cg3d"
        done = subprocess.run([sys.executable, str(COMPARE), "--driver", str(missing)], capture_output=True,
                              text=True, timeout=120)
        self.assertEqual((done.returncode, done.stderr.splitlines()),
                         (2, [f"compare: error: --driver '{missing}' is not an executable (build it with cmake "
                              "--build BUILD --target cg3d_driver and set PROXY_BIN_DIR=BUILD/bin, or name it with "
                              "--driver)"]))

    def test_failed_run_names_mode_and_variant(self):
        """A driver that fails: exit 1 naming the mode, the variant and the run's error line."""
        driver = self.folder / "failing-cg3d"
        driver.write_text("#!/bin/sh\necho 'failing-cg3d: error: refused on purpose' >&2\nexit 1\n")
        driver.chmod(0o755)
        OPTIONS.driver, real = str(driver), OPTIONS.driver
        try:
            done = compare("--n", 8, "--modes", "proxy", "--variants", "pipelined")
        finally:
            OPTIONS.driver = real
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertEqual(errors(done), ["compare: error: proxy pipelined run failed (exit 1): failing-cg3d: error: "
                                        "refused on purpose"])
        self.assertEqual(done.stdout, "")

    def test_tolerance_at_the_stated_bound_runs(self):
        """--tol 2.2e-16, the bound --help states (cg3d's): passed on as written, the run converges."""
        done = compare("--n", 8, "--tol", "2.2e-16", "--reps", 1, "--modes", "sync", "--variants", "classic")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(done.stdout.startswith("cg3d 8x8x8, tol 2.2e-16, "), done.stdout)
        self.assertIn("--tol 2.2e-16", done.stderr)

    def test_tolerance_below_the_stated_bound_is_a_usage_error(self):
        """--tol 2.1999999999999998e-16, the next double below 2.2e-16: exit 2 with cg3d's line, nothing run."""
        done = compare("--n", 8, "--tol", "2.1999999999999998e-16")
        self.assertEqual((done.returncode, errors(done)),
                         (2, ["compare: error: --tol 2.1999999999999998e-16 is below 2.2e-16 (double precision's "
                              "epsilon to two digits): no computed residual means it"]), done.stderr)
        self.assertNotIn("+ ", done.stderr)

    def test_a_value_the_driver_refuses_is_a_usage_error(self):
        """--max-iters beyond cg3d's bound: refused before any run in cg3d's own words, exit 2 (it was the first
        run's refusal, "sync classic run failed (exit 2): cg3d: error: ..."; the tool checks cg3d's bound now)."""
        done = compare("--n", 8, "--max-iters", "100000001", "--modes", "sync,proxy")
        self.assertEqual((done.returncode, errors(done)),
                         (2, ["compare: error: --max-iters: Value 100000001 not in range 1 to 100000000"]), done.stderr)
        self.assertEqual(done.stderr.count("+ "), 0, done.stderr)


def main():
    """Read the build's driver and launcher, then run the cases named (all without names)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--driver", required=True)
    parser.add_argument("--mpiexec", required=True)
    parser.add_argument("--folder", help="where the cases write (default: the system's temporary folder)")
    parser.add_argument("cases", nargs="*")
    parser.parse_args(namespace=OPTIONS)
    if OPTIONS.folder:
        Path(OPTIONS.folder).mkdir(parents=True, exist_ok=True)
    unittest.main(argv=[sys.argv[0], "-v", *OPTIONS.cases])


if __name__ == "__main__":
    main()
