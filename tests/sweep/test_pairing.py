#!/usr/bin/env python3
"""The thesis's pairing as one sweep (apps/sweeps/thesis-pairing.toml) with the real redblack3d driver at a
tiny size: sync and async on 2 ranks, mt on 1 rank x 2 threads, proxy on 1 rank x 1 thread + the proxy; the
records confirm each mode ran as its group says, and apps/plot draws the breakdown and the model from it."""
import tempfile
import unittest
from pathlib import Path

from support import PLOT, REDBLACK3D, ROOT, SWEEP, built, load_plot, mpiexec, read_csv, read_jsonl, run

SPEC = ROOT / "apps" / "sweeps" / "thesis-pairing.toml"


@unittest.skipUnless(built(REDBLACK3D), "redblack3d is not built")
class TestPairing(unittest.TestCase):
    """The shipped thesis-pairing spec, tiny, end to end with its figures."""
    CTEST_PREFIX = "sweep"
    CTEST_LABELS = "sweep;mpi;pairing"

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="sweep-pairing-")
        self.out = Path(self.tmp.name) / "pairing"

    def tearDown(self):
        self.tmp.cleanup()

    def test_thesis_pairing(self):
        """One sweep, four modes on their own launches; verified; breakdown and model figures drawn."""
        done = run([SWEEP, "--spec", SPEC, "--driver", REDBLACK3D, "--param", "n", "16", "--param", "iters", "2",
                    "--reps", "1", "--driver-arg=--verify", "--mpiexec", mpiexec(), "--out", self.out])
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = read_csv(self.out / "summary.csv")
        self.assertEqual([(r["group"], r["mode"], r["ranks"], r["threads_per_rank"], r["verified"]) for r in rows],
                         [("single-tier", "sync", "2", "1", "true"), ("single-tier", "async", "2", "1", "true"),
                          ("mt", "mt", "1", "2", "true"), ("proxy", "proxy", "1", "1", "true")])
        self.assertTrue(all(r["node_width"] == "2" for r in rows))
        records = [r for e in read_jsonl(self.out / "state.jsonl") for r in e["records"]]
        self.assertEqual([r["ranks"] for r in records], [2, 2, 1, 1])  # each mode on its own ranks
        figures = self.out / "figures"
        done = run([PLOT, "--summary", self.out, "--out", figures, "--kind", "breakdown,model", "--format", "png,svg"])
        self.assertEqual(done.returncode, 0, done.stderr)
        for kind in ("breakdown", "model"):
            self.assertEqual((figures / f"{kind}.png").read_bytes()[:8], b"\x89PNG\r\n\x1a\n")
        plot = load_plot()  # the title's facts, as the figures show them
        rows, _ = plot.read_summary(self.out)
        self.assertEqual(plot.problem_text(rows), "grid 16x16x16")
        self.assertEqual(plot.layout_text(rows), "ranks x threads: sync, async 2x1; mt 1x2; proxy 1x1+proxy")


if __name__ == "__main__":
    unittest.main()
