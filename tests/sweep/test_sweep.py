#!/usr/bin/env python3
"""apps/sweep and apps/plot end to end against tests/sweep/fake_driver.py (and the real redblack3d driver
when it is built): grids, CSV records, failures, resume, figures, spec files, provenance. Runs go through
the project's launcher (support.mpiexec()); nothing depends on timing. One case per CTest test:
`cases.py run test_sweep.py TestSweep.test_two_points`."""
import json
import os
import re
import signal
import socket
import tempfile
import time
import unittest
from pathlib import Path

from support import (FAKE, PLOT, REDBLACK3D, SWEEP, built, mpiexec, read_csv, read_jsonl, run)

PROVENANCE = ["time_utc", "host", "argv", "commit", "build_type", "build_flags", "compiler", "mpi", "hwloc", "blas",
              "os", "cpu_model", "cores", "cpus_bound", "env", "load_1m", "placement"]  # docs/provenance.md
LAUNCH = ["launcher", "slurm_job_id", "slurm_mpi_type", "load_1m_after"]


def fake_total(mode, n, panel, ranks):
    """The total_s the fake driver reports (same formula as fake_driver.py)."""
    factor = {"sync": 1.0, "async": 0.8, "mt": 0.9, "proxy": 0.6}[mode]
    return n * 1e-3 * factor * (1 + 8 / (panel + 8)) / ranks


class TestSweep(unittest.TestCase):
    """apps/sweep and apps/plot, end to end."""
    CTEST_PREFIX = "sweep"
    CTEST_LABELS = "sweep;mpi"

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="sweep-test-")
        self.out = Path(self.tmp.name) / "out"
        self.log = Path(self.tmp.name) / "invocations.log"
        self.env = dict(os.environ, FAKE_DRIVER_LOG=str(self.log))

    def tearDown(self):
        self.tmp.cleanup()

    def sweep(self, *args, expect=0, env=None):
        """Run apps/sweep (through the project's launcher) to completion; assert its exit status; return
        its stderr."""
        done = run([SWEEP, *args, "--mpiexec", mpiexec(), "--out", self.out], env=env or self.env)
        self.assertEqual(done.returncode, expect, f"sweep exit status\n{done.stdout}\n{done.stderr}")
        return done.stderr

    def invocations(self):
        """Lines the fake driver logged, one per run that reached it."""
        return self.log.read_text().splitlines() if self.log.exists() else []

    def test_two_points(self):
        """2 points x 2 repetitions on 2 ranks: every raw record kept under a readable name, the summary
        holds the medians, constant fields get one column, booleans are true/false."""
        self.sweep("--driver", FAKE, "--ranks", "2", "--param", "mode", "sync,proxy",
                   "--param", "n=40", "--param", "panel", "8", "--reps", "2")
        rows = read_csv(self.out / "summary.csv")
        self.assertEqual([(r["mode"], r["n"], r["ranks"], r["status"], r["runs_ok"]) for r in rows],
                         [("sync", "40", "2", "ok", "2"), ("proxy", "40", "2", "ok", "2")])
        for row in rows:
            expected = fake_total(row["mode"], 40, 8, 2)
            self.assertAlmostEqual(float(row["total_s_median"]), expected, places=12)
            self.assertAlmostEqual(float(row["comm_s_max"]), 0.3 * expected, places=12)
            self.assertEqual(row["geometry"], "1x1x1")  # a text field the driver wrote, passed through
            self.assertEqual(row["iters"], "1")         # constant: one column, no _median/_min/_max
            self.assertEqual(row["verified"], "false")  # as the records spell it
            self.assertEqual(row["failure"], "")
        self.assertNotIn("iters_median", rows[0])
        self.assertNotIn("error", rows[0])
        self.assertEqual(rows[1]["ideal_proxy_s_median"], "")  # not measured: empty in CSV ...
        summary = read_jsonl(self.out / "summary.json")
        self.assertIsNone(summary[1]["ideal_proxy_s_median"])  # ... and null in JSON
        self.assertIs(summary[0]["verified"], False)
        self.assertEqual(summary[0]["n"], 40)
        raw = sorted(p.name for p in (self.out / "raw").iterdir() if p.is_file())
        self.assertEqual(raw, ["mode=proxy,n=40,panel=8,ranks=2-rep1.json", "mode=proxy,n=40,panel=8,ranks=2-rep2.json",
                               "mode=sync,n=40,panel=8,ranks=2-rep1.json", "mode=sync,n=40,panel=8,ranks=2-rep2.json"])
        for name in raw:
            records = read_jsonl(self.out / "raw" / name)
            self.assertEqual(len(records), 1)  # one record per run: only rank 0 of 2 wrote
            self.assertEqual(records[0]["ranks"], 2)
        self.assertEqual(len(self.invocations()), 4)

    def test_repeated_value_runs_once(self):
        """`--param mode sync,sync` and `--ranks 2 2` are one point, run once per repetition."""
        self.sweep("--driver", FAKE, "--ranks", "2", "2", "--param", "mode", "sync,sync", "--reps", "1")
        self.assertEqual(len(read_csv(self.out / "summary.csv")), 1)
        self.assertEqual(len(self.invocations()), 1)

    def test_csv_records(self):
        """A driver writing CSV records (--record-format csv) is read the same way."""
        self.sweep("--driver", FAKE, "--launcher", "none", "--param", "mode", "async",
                   "--param", "n", "20", "--reps", "1", "--record-format", "csv")
        rows = read_csv(self.out / "summary.csv")
        self.assertEqual(len(rows), 1)
        self.assertAlmostEqual(float(rows[0]["total_s_median"]), fake_total("async", 20, 0, 1), places=12)

    def test_failed_point_is_recorded_and_sweep_goes_on(self):
        """A failing point gets its failure text in the summary; the points after it still run; exit 1."""
        self.sweep("--driver", FAKE, "--ranks", "2", "--param", "mode", "bogus,sync",
                   "--param", "n", "16", "--reps", "1", expect=1)
        rows = {r["mode"]: r for r in read_csv(self.out / "summary.csv")}
        self.assertEqual(rows["bogus"]["status"], "failed")
        self.assertIn("fake_driver: error: unknown mode 'bogus'", rows["bogus"]["failure"])
        self.assertEqual(rows["sync"]["status"], "ok")

    def test_resume(self):
        """Interrupt a sweep after its first finished run; the same command resumes and never reruns it."""
        import subprocess
        args = [str(SWEEP), "--driver", str(FAKE), "--ranks", "2", "--param", "mode", "sync,async,proxy",
                "--param", "n", "24", "--reps", "1", "--mpiexec", mpiexec(), "--out", str(self.out)]
        env = dict(self.env, FAKE_DRIVER_SLEEP="0.5")
        process = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        state = self.out / "state.jsonl"
        while not read_jsonl(state) and process.poll() is None:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=120)
        finished = read_jsonl(state)
        self.assertGreaterEqual(len(finished), 1)
        if process.returncode == 130:
            self.assertIn("run the same command again to resume", stderr)
        first = finished[0]["params"]["mode"]
        done = run(args, env=env)
        self.assertEqual(done.returncode, 0, done.stderr)
        if len(finished) < 3:
            self.assertIn(f"{len(finished)} of 3 runs already finished", done.stderr)
        final = read_jsonl(state)
        self.assertEqual(sorted(e["params"]["mode"] for e in final), ["async", "proxy", "sync"])
        self.assertTrue(all(e["status"] == "ok" for e in final))
        self.assertEqual(sum(1 for line in self.invocations() if f"mode={first} " in line), 1)
        self.assertEqual(len(read_csv(self.out / "summary.csv")), 3)

    def test_plots_produced(self):
        """apps/plot draws every kind the summary supports, as non-empty PNG and SVG files."""
        self.sweep("--driver", FAKE, "--ranks", "2", "--param", "mode", "sync,proxy",
                   "--param", "panel", "8,32", "--param", "geometry", "1x1x2", "2x1x1", "--reps", "1")
        figures = Path(self.tmp.name) / "figures"
        done = run([PLOT, "--summary", self.out, "--out", figures, "--format", "png,svg", "--prefix", "x-"])
        self.assertEqual(done.returncode, 0, done.stderr)
        for kind in ("panel", "geometry", "breakdown", "model"):
            png, svg = figures / f"x-{kind}.png", figures / f"x-{kind}.svg"
            self.assertGreater(png.stat().st_size, 1000, kind)
            self.assertEqual(png.read_bytes()[:8], b"\x89PNG\r\n\x1a\n")
            text = svg.read_text()
            self.assertIn("<svg", text[:2000])
        panel = (figures / "x-panel.svg").read_text()
        self.assertIn("log 2 scale", panel)                                   # panel widths on log 2
        self.assertIn("error bars: min..max", (figures / "x-panel.svg").read_text())
        self.assertIn(socket.gethostname(), panel)                            # the machine in the title

    def test_sweep_plot_option(self):
        """sweep --plot writes OUT/figures."""
        self.sweep("--driver", FAKE, "--ranks", "2", "--param", "mode", "sync,proxy",
                   "--param", "n", "16,32", "--reps", "1", "--plot")
        self.assertGreater((self.out / "figures" / "size.png").stat().st_size, 1000)
        self.assertGreater((self.out / "figures" / "breakdown.png").stat().st_size, 1000)

    def test_spec_file(self):
        """A TOML spec gives the same grid as the command line; the command line overrides reps; the
        spec's relative driver and out paths are relative to the spec file."""
        folder = Path(self.tmp.name) / "specs"
        folder.mkdir()
        (folder / "driver.py").symlink_to(FAKE)
        spec = folder / "spec.toml"
        spec.write_text('driver = "./driver.py"\nout = "results"\nranks = [2]\nreps = 5\n'
                        '[params]\nmode = ["sync", "mt"]\nn = [12]\n')
        done = run([SWEEP, "--spec", spec, "--reps", "1", "--mpiexec", mpiexec()], env=self.env)
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = read_csv(folder / "results" / "summary.csv")
        self.assertEqual([(r["mode"], r["runs_ok"]) for r in rows], [("sync", "1"), ("mt", "1")])

    def test_provenance(self):
        """Every state entry keeps the provenance the driver wrote into its record, read and not rebuilt,
        with the sweep's launch facts beside it; the summary carries the same object in JSON and the same
        strings as the driver's CSV record in its prov_* columns; fields the reps disagree on are named."""
        env = dict(self.env, PROXY_WAIT_POLICY="block", OMP_NUM_THREADS="1", PROXY_TEST_MARK="x1")
        self.sweep("--driver", FAKE, "--ranks", "2", "--param", "mode", "sync", "--reps", "2", env=env)
        entries = read_jsonl(self.out / "state.jsonl")
        prov = entries[0]["provenance"]
        self.assertEqual(list(prov), PROVENANCE)
        self.assertEqual(prov, read_jsonl(self.out / "raw" / "mode=sync,ranks=2-rep1.json")[0]["provenance"])
        self.assertNotIn("provenance", entries[0]["records"][0])  # kept once, beside the records
        self.assertRegex(prov["time_utc"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertEqual(prov["host"], socket.gethostname())
        self.assertEqual((prov["argv"][0], prov["argv"][-2]), (str(FAKE), "--output"))  # its own command line
        self.assertEqual(prov["env"]["PROXY_TEST_MARK"], "x1")
        self.assertEqual(prov["env"]["OMP_NUM_THREADS"], "1")
        self.assertNotIn("FAKE_DRIVER_LOG", prov["env"])
        self.assertEqual(list(entries[0]["launch"]), LAUNCH)
        self.assertIsInstance(entries[0]["launch"]["load_1m_after"], float)
        row = read_jsonl(self.out / "summary.json")[0]
        self.assertEqual(row["provenance"], prov)  # the first rep's, as its driver wrote it
        self.assertEqual(row["launch"], entries[0]["launch"])
        self.assertEqual(row["provenance_differs"], [])
        self.assertFalse([c for c in row if c.startswith("prov_")])  # no flattened copies in JSON
        csv_row = read_csv(self.out / "summary.csv")[0]
        self.assertEqual([c for c in csv_row if c.startswith("prov_")], [f"prov_{f}" for f in PROVENANCE])
        self.assertEqual([c for c in csv_row if c.startswith("launch_")], [f"launch_{f}" for f in LAUNCH])
        self.assertEqual(json.loads(csv_row["prov_env"])["PROXY_TEST_MARK"], "x1")
        self.assertEqual(json.loads(csv_row["prov_argv"]), prov["argv"])
        self.assertEqual(csv_row["provenance_differs"], "[]")
        self.assertNotIn("provenance", csv_row)
        # The driver's CSV records: the summary's prov_* cells are its cells, and the JSON object reads them back.
        self.sweep("--driver", FAKE, "--ranks", "2", "--param", "mode", "sync", "--reps", "1",
                   "--record-format", "csv", "--fresh", env=dict(env, FAKE_DRIVER_PROVENANCE='{"load_1m": 2.0}'))
        record = read_csv(self.out / "raw" / "mode=sync,ranks=2-rep1.csv")[0]
        csv_row = read_csv(self.out / "summary.csv")[0]
        self.assertEqual({c: csv_row[c] for c in csv_row if c.startswith("prov_")},
                         {c: record[c] for c in record if c.startswith("prov_")})
        self.assertEqual(csv_row["prov_load_1m"], "2")
        self.assertEqual(read_jsonl(self.out / "summary.json")[0]["provenance"]["load_1m"], 2)

    def test_provenance_differs(self):
        """Reps whose drivers say different hosts or commits (a rebuild between them, another node) are
        not hidden: the summary keeps the first rep's provenance and names the fields that differ."""
        self.sweep("--driver", FAKE, "--ranks", "1", "--param", "mode", "sync", "--reps", "1",
                   env=dict(self.env, FAKE_DRIVER_PROVENANCE='{"host": "node1", "commit": "v1"}'))
        self.sweep("--driver", FAKE, "--ranks", "1", "--param", "mode", "sync", "--reps", "2",
                   env=dict(self.env, FAKE_DRIVER_PROVENANCE='{"host": "node2", "commit": "v1"}'))
        row = read_jsonl(self.out / "summary.json")[0]
        self.assertEqual((row["provenance"]["host"], row["provenance_differs"]), ("node1", ["host"]))
        self.assertEqual(read_csv(self.out / "summary.csv")[0]["provenance_differs"], '["host"]')

    def test_unreadable_provenance_fails_the_run(self):
        """A CSV record whose prov_* cell is not what the schema says fails its run, naming the file, the
        line and the column (never a traceback)."""
        stderr = self.sweep("--driver", FAKE, "--ranks", "1", "--param", "mode", "sync", "--reps", "1",
                            "--record-format", "csv", expect=1,
                            env=dict(self.env, FAKE_DRIVER_PROVENANCE='{"cores": "x"}'))
        self.assertNotIn("Traceback", stderr)
        row = read_csv(self.out / "summary.csv")[0]
        self.assertEqual(row["status"], "failed")
        self.assertRegex(row["failure"], r"/mode=sync,ranks=1-rep1\.[0-9]+\.csv:2: column prov_cores \"'x'\" is "
                                         r"not JSON: Expecting value")

    @unittest.skipUnless(built(REDBLACK3D), "redblack3d is not built")
    def test_redblack3d(self):
        """The real driver: 2 modes, tiny grid, 2 ranks, verified; the summary carries its fields and the
        provenance names the compiler and the MPI it was built with."""
        self.sweep("--driver", REDBLACK3D, "--ranks", "2", "--param", "mode", "sync,proxy",
                   "--param", "n", "16", "--param", "iters", "2", "--param", "geometry", "2x1x1",
                   "--param", "threads", "1", "--driver-arg=--verify", "--reps", "1")
        rows = read_csv(self.out / "summary.csv")
        self.assertEqual([(r["mode"], r["status"]) for r in rows], [("sync", "ok"), ("proxy", "ok")],
                         [r.get("failure") for r in rows])
        for row in rows:
            self.assertGreater(float(row["total_s_median"]), 0.0)
            self.assertEqual(row["verified"], "true")
            self.assertTrue(re.match(r"(GCC|clang|Clang)", row["prov_compiler"]), row["prov_compiler"])
            self.assertTrue(re.match(r"(MPICH|Open MPI) [0-9]", row["prov_mpi"]), row["prov_mpi"])  # the driver's own


if __name__ == "__main__":
    unittest.main()
