#!/usr/bin/env python3
"""What apps/plot draws, from hand-made summaries: breakdown stacks that add up (other = total - compute -
comm) and a flag where a driver's parts exceed its total; series told apart without colour; titles with
problem, ranks x threads and host."""
import tempfile
import unittest
from pathlib import Path

from support import PLOT, load_plot, run

HEADER = ("mode,ranks,runs_ok,runs_failed,status,failure,nx,ny,nz,threads_per_rank,total_s_median,total_s_mean,"
          "compute_s_median,compute_s_mean,comm_s_median,comm_s_mean,wait_s_median,wait_s_mean,prov_host\n")


class TestFigures(unittest.TestCase):
    """apps/plot's figures from summaries whose numbers are known."""
    CTEST_PREFIX = "plot"
    CTEST_LABELS = "sweep"

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="plot-figures-")
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_breakdown_adds_up_and_flags_parts_above_total(self):
        """other = total - compute - comm from the means; a row whose parts exceed its total is flagged
        with one warning naming it; the title names grid, ranks x threads and host."""
        summary = self.dir / "summary.csv"
        summary.write_text(HEADER + "sync,2,3,0,ok,,8,8,8,1,1.0,1.0,0.5,0.5,0.3,0.3,0.1,0.1,nodeA\n"
                                    "proxy,1,3,0,ok,,8,8,8,1,1.0,1.0,0.6,0.6,0.5,0.5,0.1,0.1,nodeA\n")
        plot = load_plot()
        rows, _ = plot.read_summary(summary)
        stacks, flagged = plot.breakdown_parts(rows, ["compute_s", "comm_s", "wait_s"])
        self.assertEqual([name for name, _ in stacks],
                         ["compute", "communication calls", "wait", "other (total - compute - comm)"])
        self.assertAlmostEqual(sum(values[0] for _, values in stacks), 1.0, places=12)  # sync adds up
        self.assertAlmostEqual(stacks[3][1][0], 0.2, places=12)
        self.assertEqual(flagged, [1])
        done = run([PLOT, "--summary", summary, "--out", self.dir / "f", "--kind", "breakdown", "--format", "svg"])
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("plot: warning: 'mode=proxy\\nranks=1': compute + comm exceed the total by 0.1 s (means of "
                      "the runs); its 'other' is drawn as 0", done.stderr)
        svg = (self.dir / "f" / "breakdown.svg").read_text()
        self.assertIn("grid 8x8x8, ranks x threads: sync 2x1; proxy 1x1+proxy, on nodeA", svg)
        self.assertIn("parts &gt; total", svg)

    def test_series_styles_are_distinct(self):
        """The first eight series differ in marker, and neighbours in line style too (toolkit/figures.py, the
        one style of apps/plot, bench/cluster-study and compare-panels)."""
        plot = load_plot()
        styles = [plot.figures.style(i) for i in range(8)]
        self.assertEqual(len({s["marker"] for s in styles}), 8)
        self.assertTrue(all(styles[i]["linestyle"] != styles[i + 1]["linestyle"] for i in range(7)))


if __name__ == "__main__":
    unittest.main()
