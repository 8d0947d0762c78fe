#!/usr/bin/env python3
"""End-to-end tests of apps/sweep and apps/plot against tests/sweep/fake_driver.py (and, when built,
the real redblack3d driver). Each CTest test runs one case: `test_sweep.py TestSweep.test_two_points`.
Runs go through the real launcher (mpiexec -n 2); nothing depends on timing."""
import csv
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SWEEP = ROOT / "apps" / "sweep"
PLOT = ROOT / "apps" / "plot"
FAKE = HERE / "fake_driver.py"
# Set by CTest: the built redblack3d driver and overlap benchmark (their cases are skipped without them).
REDBLACK3D = os.environ.get("SWEEP_TEST_REDBLACK3D", "")
OVERLAP = os.environ.get("SWEEP_TEST_OVERLAP", "")
RUN_OVERLAP = ROOT / "bench" / "overlap" / "run-overlap"


def fake_total(mode, n, panel, ranks):
    """The total_s the fake driver reports (same formula as fake_driver.py)."""
    factor = {"sync": 1.0, "async": 0.8, "mt": 0.9, "proxy": 0.6}[mode]
    return n * 1e-3 * factor * (1 + 8 / (panel + 8)) / ranks


def read_csv(path):
    """Rows of a CSV file as dicts."""
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def state_lines(path):
    """Parsed lines of a sweep's state.jsonl (empty when it does not exist yet)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class TestSweep(unittest.TestCase):
    """apps/sweep and apps/plot, end to end."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="sweep-test-")
        self.out = Path(self.tmp.name) / "out"
        self.log = Path(self.tmp.name) / "invocations.log"
        self.env = dict(os.environ, FAKE_DRIVER_LOG=str(self.log))

    def tearDown(self):
        self.tmp.cleanup()

    def sweep(self, *args, expect=0, env=None):
        """Run apps/sweep to completion; assert its exit status; return its stderr."""
        done = subprocess.run([str(SWEEP), *args, "--out", str(self.out)], capture_output=True, text=True,
                              env=env or self.env, timeout=300)
        self.assertEqual(done.returncode, expect, f"sweep exit status\n{done.stdout}\n{done.stderr}")
        return done.stderr

    def invocations(self):
        """Lines the fake driver logged, one per run that reached it."""
        return self.log.read_text().splitlines() if self.log.exists() else []

    def test_two_points(self):
        """2 points x 2 repetitions on 2 ranks: every raw record kept, the summary holds the medians."""
        self.sweep("--driver", str(FAKE), "--ranks", "2", "--param", "mode", "sync", "proxy",
                   "--param", "n", "40", "--param", "panel", "8", "--reps", "2")
        rows = read_csv(self.out / "summary.csv")
        self.assertEqual([(r["mode"], r["n"], r["ranks"], r["status"], r["runs_ok"]) for r in rows],
                         [("sync", "40", "2", "ok", "2"), ("proxy", "40", "2", "ok", "2")])
        for row in rows:
            expected = fake_total(row["mode"], 40, 8, 2)
            self.assertAlmostEqual(float(row["total_s_median"]), expected, places=12)
            self.assertAlmostEqual(float(row["comm_s_max"]), 0.3 * expected, places=12)
            self.assertEqual(row["geometry"], "1x1x1")  # a text field the driver wrote, passed through
        raw = sorted((self.out / "raw").iterdir())
        self.assertEqual(len(raw), 4)
        for path in raw:
            records = [json.loads(line) for line in path.read_text().splitlines()]
            self.assertEqual(len(records), 1)  # one record per run: only rank 0 of 2 wrote
            self.assertEqual(records[0]["ranks"], 2)
        self.assertEqual(len(self.invocations()), 4)

    def test_csv_records(self):
        """A driver writing CSV records (--record-format csv) is read the same way."""
        self.sweep("--driver", str(FAKE), "--launcher", "none", "--param", "mode", "async",
                   "--param", "n", "20", "--reps", "1", "--record-format", "csv")
        rows = read_csv(self.out / "summary.csv")
        self.assertEqual(len(rows), 1)
        self.assertAlmostEqual(float(rows[0]["total_s_median"]), fake_total("async", 20, 0, 1), places=12)

    def test_failed_point_is_recorded_and_sweep_goes_on(self):
        """A failing point gets its error in the summary; the points after it still run; exit 3."""
        self.sweep("--driver", str(FAKE), "--ranks", "2", "--param", "mode", "bogus", "sync",
                   "--param", "n", "16", "--reps", "1", expect=3)
        rows = {r["mode"]: r for r in read_csv(self.out / "summary.csv")}
        self.assertEqual(rows["bogus"]["status"], "failed")
        self.assertIn("fake_driver: error: unknown mode 'bogus'", rows["bogus"]["error"])
        self.assertEqual(rows["sync"]["status"], "ok")

    def test_resume(self):
        """Interrupt a sweep after its first finished run; the same command resumes and never reruns it."""
        args = [str(SWEEP), "--driver", str(FAKE), "--ranks", "2", "--param", "mode", "sync", "async", "proxy",
                "--param", "n", "24", "--reps", "1", "--out", str(self.out)]
        env = dict(self.env, FAKE_DRIVER_SLEEP="0.5")
        process = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        state = self.out / "state.jsonl"
        while not state_lines(state) and process.poll() is None:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=120)
        finished = state_lines(state)
        self.assertGreaterEqual(len(finished), 1)
        if process.returncode == 130:
            self.assertIn("run the same command again to resume", stderr)
        first = finished[0]["params"]["mode"]
        done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(done.returncode, 0, done.stderr)
        if len(finished) < 3:
            self.assertIn(f"{len(finished)} of 3 runs already finished", done.stderr)
        final = state_lines(state)
        self.assertEqual(sorted(e["params"]["mode"] for e in final), ["async", "proxy", "sync"])
        self.assertTrue(all(e["status"] == "ok" for e in final))
        self.assertEqual(sum(1 for line in self.invocations() if f"mode={first} " in line), 1)
        self.assertEqual(len(read_csv(self.out / "summary.csv")), 3)

    def test_plots_produced(self):
        """--plot draws every kind the summary supports, as non-empty PNG and SVG files."""
        self.sweep("--driver", str(FAKE), "--ranks", "2", "--param", "mode", "sync", "proxy",
                   "--param", "panel", "8", "32", "--param", "geometry", "1x1x2", "2x1x1", "--reps", "1")
        figures = Path(self.tmp.name) / "figures"
        done = subprocess.run([str(PLOT), "--summary", str(self.out), "--out", str(figures),
                               "--format", "png", "svg"], capture_output=True, text=True, timeout=300)
        self.assertEqual(done.returncode, 0, done.stderr)
        for kind in ("panel", "geometry", "breakdown", "model"):
            png, svg = figures / f"{kind}.png", figures / f"{kind}.svg"
            self.assertGreater(png.stat().st_size, 1000, kind)
            self.assertEqual(png.read_bytes()[:8], b"\x89PNG\r\n\x1a\n")
            self.assertIn(b"<svg", svg.read_bytes()[:2000])

    def test_sweep_plot_option(self):
        """sweep --plot writes OUT/figures."""
        self.sweep("--driver", str(FAKE), "--ranks", "2", "--param", "mode", "sync", "proxy",
                   "--param", "n", "16", "32", "--reps", "1", "--plot")
        self.assertGreater((self.out / "figures" / "size.png").stat().st_size, 1000)
        self.assertGreater((self.out / "figures" / "breakdown.png").stat().st_size, 1000)

    def test_spec_file(self):
        """A TOML spec gives the same grid as the command line; the command line overrides reps."""
        spec = Path(self.tmp.name) / "spec.toml"
        spec.write_text(f'driver = "{FAKE}"\nranks = [2]\nreps = 5\n[params]\nmode = ["sync", "mt"]\nn = [12]\n')
        self.sweep("--spec", str(spec), "--reps", "1")
        rows = read_csv(self.out / "summary.csv")
        self.assertEqual([(r["mode"], r["runs_ok"]) for r in rows], [("sync", "1"), ("mt", "1")])

    @unittest.skipUnless(REDBLACK3D, "SWEEP_TEST_REDBLACK3D not set")
    def test_redblack3d(self):
        """The real driver: 2 modes, tiny grid, 2 ranks, verified; the summary carries its fields."""
        env = dict(os.environ, PROXY_WAIT_POLICY="block", OMP_WAIT_POLICY="passive", OMP_NUM_THREADS="1")
        self.sweep("--driver", REDBLACK3D, "--ranks", "2", "--param", "mode", "sync", "proxy",
                   "--param", "n", "16", "--param", "iters", "2", "--param", "geometry", "2x1x1",
                   "--param", "threads", "1", "--driver-arg=--verify", "--reps", "1", env=env)
        rows = read_csv(self.out / "summary.csv")
        self.assertEqual([(r["mode"], r["status"]) for r in rows], [("sync", "ok"), ("proxy", "ok")],
                         [r.get("error") for r in rows])
        for row in rows:
            self.assertGreater(float(row["total_s_median"]), 0.0)
            self.assertIn(row.get("verified", "").lower(), ("true", "1", "yes"))


@unittest.skipUnless(OVERLAP, "SWEEP_TEST_OVERLAP not set")
class TestOverlap(unittest.TestCase):
    """bench/overlap on 2 ranks with tiny sizes: every record present and its figures in range."""

    TINY = ["--patterns", "p2p,halo,bcast", "--sizes", "1K,64K", "--halo-edge", "8", "--bcast-n", "32",
            "--panel", "4", "--iters", "3", "--iters-large", "2", "--warmup", "1"]

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="overlap-test-")
        self.output = Path(self.tmp.name) / "overlap.json"

    def tearDown(self):
        self.tmp.cleanup()

    def records(self):
        """The JSON Lines records the benchmark appended."""
        return [json.loads(line) for line in self.output.read_text().splitlines()]

    def check(self, records, modes):
        """4 cases per mode (2 p2p sizes, 1 halo, 1 bcast), with sane figures."""
        self.assertEqual(sorted({r["mode"] for r in records}), sorted(modes))
        for mode in modes:
            cases = [(r["pattern"], r["size"]) for r in records if r["mode"] == mode]
            self.assertEqual(cases, [("p2p", 1024), ("p2p", 65536), ("halo", 8), ("bcast", 32)])
        for r in records:
            self.assertEqual(r["ranks"], 2)
            self.assertGreater(r["pure_us"], 0.0)
            self.assertGreater(r["compute_us"], 0.0)
            self.assertGreater(r["overall_us"], 0.0)
            self.assertTrue(0.0 <= r["overlap_osu_pct"] <= 100.0, r)
            self.assertTrue(0.0 <= r["overlap_imb_pct"] <= 100.0, r)
            self.assertGreater(r["compute_slowdown"], 0.0)
        halo = next(r for r in records if r["pattern"] == "halo")
        self.assertEqual(halo["bytes"], 2 * 2 * 8 * 8 * 8)  # 2 ranks: 2 faces of 8x8 doubles, each way

    def test_async_and_proxy(self):
        """One launch, async and proxy modes."""
        done = subprocess.run([*shlex.split(os.environ.get("MPIEXEC", "mpiexec")), "-n", "2", OVERLAP, "--mode", "async,proxy", *self.TINY,
                               "--output", str(self.output)], capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("OSU %", done.stdout)
        self.check(self.records(), ["async", "proxy"])

    def test_run_overlap_all_modes(self):
        """bench/overlap/run-overlap: all three modes, async-progress in its own launch."""
        done = subprocess.run([str(RUN_OVERLAP), "-n", "2", OVERLAP, *self.TINY, "--output", str(self.output)],
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        library = subprocess.run([OVERLAP, "--mpi-library"], capture_output=True, text=True, check=True).stdout
        with_thread = "progress thread: yes" in library  # MPICH; Open MPI has none (run-overlap says so)
        self.check(self.records(), ["async", "proxy"] + (["async-progress"] if with_thread else []))


if __name__ == "__main__":
    unittest.main()
