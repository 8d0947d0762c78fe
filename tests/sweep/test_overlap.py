#!/usr/bin/env python3
"""bench/overlap on 2 ranks with tiny sizes, directly and through bench/overlap/run-overlap: every record
present and its figures in range. Skipped when the benchmark is not part of the build."""
import subprocess
import tempfile
import unittest
from pathlib import Path

from support import OVERLAP, RUN_OVERLAP, built, mpiexec, read_jsonl, run


@unittest.skipUnless(built(OVERLAP), "the overlap benchmark is not built")
class TestOverlap(unittest.TestCase):
    """bench/overlap on 2 ranks with tiny sizes: every record present and its figures in range."""
    CTEST_PREFIX = "overlap"
    CTEST_LABELS = "sweep;mpi;overlap"
    TINY = ["--patterns", "p2p,halo,bcast", "--sizes", "1K,64K", "--halo-edge", "8", "--bcast-n", "32",
            "--panel", "4", "--iters", "3", "--iters-large", "2", "--warmup", "1"]

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="overlap-test-")
        self.output = Path(self.tmp.name) / "overlap.json"

    def tearDown(self):
        self.tmp.cleanup()

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
            self.assertAlmostEqual(r["hidden_us"], r["pure_us"] + r["compute_us"] - r["overall_us"], delta=1e-6)
        # Like with like: the modes of one launch compute the same units in each cell.
        for launch in (["async", "async-test", "proxy"], ["async-progress"]):
            for case in {(r["pattern"], r["size"]) for r in records}:
                units = {r["compute_units"] for r in records if (r["pattern"], r["size"]) == case and r["mode"] in launch}
                self.assertLessEqual(len(units), 1, (case, launch, units))
        halo = next(r for r in records if r["pattern"] == "halo")
        self.assertEqual(halo["bytes"], 2 * 2 * 8 * 8 * 8)  # 2 ranks: 2 faces of 8x8 doubles, each way

    def test_async_and_proxy(self):
        """One launch, the default modes (async, async-test, proxy), through the project's launcher."""
        done = run([*mpiexec().split(), "-n", "2", OVERLAP, *self.TINY, "--output", self.output], timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("hidden(us)", done.stdout)
        self.check(read_jsonl(self.output), ["async", "async-test", "proxy"])

    def test_run_overlap_all_modes(self):
        """bench/overlap/run-overlap: all four modes, async-progress in its own launch."""
        done = run([RUN_OVERLAP, "--ranks=2", "--mpiexec", mpiexec(), OVERLAP, *self.TINY,
                    "--output", self.output], timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        library = subprocess.run([OVERLAP, "--mpi-library"], capture_output=True, text=True, check=True).stdout
        with_thread = "progress thread: yes" in library  # MPICH; Open MPI has none (run-overlap says so)
        self.check(read_jsonl(self.output),
                   ["async", "async-test", "proxy"] + (["async-progress"] if with_thread else []))


if __name__ == "__main__":
    unittest.main()
