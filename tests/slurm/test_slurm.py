#!/usr/bin/env python3
"""The tools and the runtime under a real single-node Slurm (tests/slurm/with-slurm starts it; CTest label
`slurm`): no MPI is mocked. The build's MPI decides srun's PMI (MPICH pmi2, Open MPI pmix), as the tools'
default does. Run one case: tests/slurm/with-slurm python3 tests/sweep/cases.py run tests/slurm/test_slurm.py
TestSlurm.test_pairing_sweep_under_salloc (SWEEP_TEST_BIN=build/bin by default)."""
import json
import os
import re
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "sweep"))
from support import COMPARE, COMPARE_PANELS, REDBLACK3D, ROOT, SUMMA, SWEEP, BIN, built, read_csv, read_jsonl, run  # noqa: E402
from toolkit import launcher  # noqa: E402  (support put apps/ on the path)

SPEC = ROOT / "apps" / "sweeps" / "thesis-pairing.toml"
REDBLACK3D = REDBLACK3D.resolve()  # batch scripts and srun run in other folders
PROXY_INFO = (BIN / "proxy-info").resolve()
MPI = launcher.linked_mpi(str(REDBLACK3D)) if built(REDBLACK3D) else None
PMI = {"MPICH": "pmi2", "Open MPI": "pmix"}.get(MPI)
TIMEOUT = 150  # seconds for any one command (each waits at most this long)


@unittest.skipUnless(os.environ.get("SLURM_CONF"), "needs the Slurm of tests/slurm/with-slurm (SLURM_CONF unset)")
@unittest.skipUnless(built(REDBLACK3D) and built(PROXY_INFO) and PMI, "redblack3d or proxy-info is not built")
class TestSlurm(unittest.TestCase):
    """Sweep, compare, sbatch and the runtime's launch check on a real Slurm."""
    CTEST_PREFIX = "slurm"
    CTEST_LABELS = "slurm"

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="slurm-test-")
        self.dir = Path(self.tmp.name)
        self.env = {k: v for k, v in os.environ.items() if k not in ("MPIEXEC", "SLURM_MPI_TYPE")}
        self.env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

    def tearDown(self):
        self.tmp.cleanup()

    def assert_allocation_refused(self, tool, command, needs, lower):
        """`command` (inside salloc) asks for `needs` tasks x 1 CPU on one node, more than the allocation holds:
        exit 2 before any srun, with the line naming the job, the numbers and the options to lower."""
        done = run(command, env=self.env, timeout=TIMEOUT)
        self.assertEqual(done.returncode, 2, done.stderr)
        job = re.search(r"Granted job allocation (\d+)", done.stderr).group(1)
        self.assertRegex(done.stderr, re.escape(
            f"{tool}: error: mode sync needs {needs} tasks x 1 CPU on 1 node, {needs} CPUs per node, but "
            f"the allocation (SLURM_JOB_ID={job}) has 1 node of ") + r"[0-9]+ CPUs?" + re.escape(
            f": srun would wait for ever (ask for more, or lower {lower})"))
        self.assertNotIn("+ srun", done.stderr)

    def test_pairing_sweep_under_salloc(self):
        """The shipped thesis-pairing spec, tiny, inside `salloc -n 2` (the default launcher is then srun,
        with the PMI the build's MPI needs): every point verified, every sync/async record from one 2-rank
        world, mt and proxy on 1 rank x 2 CPUs; srun, the job and the PMI recorded."""
        out = self.dir / "pairing"
        done = run(["salloc", "-n", "2", "--time=5", SWEEP, "--spec", SPEC, "--driver", REDBLACK3D,
                    "--param", "n", "16", "--param", "iters", "2", "--reps", "1", "--driver-arg=--verify",
                    "--timeout", "60", "--out", out], env=self.env, timeout=TIMEOUT)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(f"sweep: launcher srun, --mpi={PMI} (from the driver's MPI, {MPI})", done.stderr)
        entries = read_jsonl(out / "state.jsonl")
        self.assertEqual([(e["params"]["mode"], len(e["records"])) for e in entries],
                         [("sync", 1), ("async", 1), ("mt", 1), ("proxy", 1)])
        records = {e["params"]["mode"]: e["records"][0] for e in entries}
        self.assertEqual([(m, records[m]["ranks"], records[m]["threads_per_rank"], records[m]["verified"])
                          for m in records],
                         [("sync", 2, 1, True), ("async", 2, 1, True), ("mt", 1, 2, True), ("proxy", 1, 1, True)])
        self.assertTrue(all(e["command"].startswith("srun -n ") and f"--mpi={PMI}" in e["command"] for e in entries))
        rows = read_csv(out / "summary.csv")
        self.assertEqual({r["launch_slurm_mpi_type"] for r in rows}, {PMI})
        self.assertEqual(len({r["launch_slurm_job_id"] for r in rows}), 1)
        self.assertRegex(rows[0]["launch_launcher"], r"^srun \(slurm\) 2[0-9]\.")
        self.assertTrue(rows[0]["prov_mpi"].startswith(MPI + " "), rows[0]["prov_mpi"])

    def test_docs_spec_runs_under_both_launchers(self):
        """The spec example of docs/sweep.md, as printed (tiny problem, this build's driver), runs under srun
        inside an allocation and under mpiexec: every point ok with its own ranks."""
        text = (ROOT / "docs" / "sweep.md").read_text()
        spec = self.dir / "docs-example.toml"
        spec.write_text(re.search(r"```toml\n(.*?)```", text, re.DOTALL).group(1))
        for said, prefix in ((f"sweep: launcher srun, --mpi={PMI}", ["salloc", "-n", "2", "--time=5"]),
                             ("sweep: notice: cpu_bind, cpus_per_task, nodes go to srun only", [])):
            out = self.dir / ("srun" if prefix else "mpiexec")
            done = run(prefix + [SWEEP, "--spec", spec, "--driver", REDBLACK3D, "--param", "n", "16", "--param",
                                 "iters", "2", "--reps", "1", "--timeout", "60", "--out", out],
                       env=self.env, timeout=TIMEOUT)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertIn(said, done.stderr)
            entries = read_jsonl(out / "state.jsonl")
            self.assertEqual([(e["params"]["group"], e["records"][0]["ranks"], e["records"][0]["verified"])
                              for e in entries], [("single-tier", 2, True)] * 2 + [("proxy", 1, True)])

    def test_launch_without_pmi_is_refused(self):
        """srun without the MPI's PMI (Slurm's default MpiDefault=none) starts two one-rank worlds: MPICH's
        program is refused by the runtime's line (exit 2, once, from task 0); Open MPI's own MPI_Init aborts
        first, naming srun's PMI. With --mpi=TYPE the same launch is one 2-rank world."""
        done = run(["srun", "-n", "2", PROXY_INFO], env=self.env, timeout=TIMEOUT)
        lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
        if MPI == "MPICH":
            self.assertEqual(done.returncode, 2, lines)
            self.assertEqual([line for line in lines if "but MPI sees" in line],
                             ["proxy-info: error: srun started 2 tasks (SLURM_STEP_NUM_TASKS=2) but MPI sees 1: this "
                              "MPICH needs srun --mpi=pmi2 (or SLURM_MPI_TYPE=pmi2)"])
        else:
            self.assertNotEqual(done.returncode, 0, lines)
            self.assertIn("OMPI was not built with SLURM's PMI support", done.stdout + done.stderr)
        done = run(["srun", "-n", "2", f"--mpi={PMI}", PROXY_INFO], env=self.env, timeout=TIMEOUT)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertNotIn("but MPI sees", done.stdout + done.stderr)
        self.assertTrue(done.stdout.startswith("proxy-info: 2 ranks, "), done.stdout)

    def test_sbatch_wait_exit_codes(self):
        """The shipped batch script (apps/sweeps/thesis-pairing.sbatch, as docs/slurm.md submits it, tiny):
        sbatch --wait exits with the job's status, the sweep's: 0 with every record from its point's ranks, 1
        when the runs fail, 2 for bad usage."""
        script = ROOT / "apps" / "sweeps" / "thesis-pairing.sbatch"
        cases = (("good", ["--reps", "1"], 0), ("failing", ["--reps", "1", "--driver-arg=--no-such-option"], 1),
                 ("usage", ["--reps", "0"], 2))
        for name, extra, expected in cases:
            log = self.dir / f"{name}.out"
            done = run(["sbatch", "--wait", f"--output={log}", f"--chdir={ROOT}", script, "--driver", REDBLACK3D,
                        "--param", "n", "16", "--param", "iters", "2", "--driver-arg=--verify",
                        "--out", self.dir / name, *extra], env=self.env, timeout=TIMEOUT)
            output = log.read_text() if log.exists() else ""
            self.assertEqual(done.returncode, expected, done.stderr + output)
            entries = read_jsonl(self.dir / name / "state.jsonl")
            if name == "good":
                self.assertEqual([(e["params"]["mode"], [(r["ranks"], r["verified"]) for r in e["records"]])
                                  for e in entries], [("sync", [(2, True)]), ("async", [(2, True)]),
                                                      ("mt", [(1, True)]), ("proxy", [(1, True)])])
            elif name == "failing":
                self.assertEqual([e["status"] for e in entries], ["failed"] * 4)
                self.assertIn("redblack3d: error:", entries[0]["failure"])
            else:
                self.assertIn("sweep: error: --reps: Value 0 not in range 1 to 1000000", output)

    def test_compare_builds_each_modes_geometry(self):
        """compare inside `salloc -n 2`: sync/async on 2 tasks x 1 CPU, mt/proxy on 1 task x 2 CPUs, each
        verified (the proxy runs first: its progress strategy gives the others' ideal-proxy s); asking for more
        CPUs than the allocation holds is refused before any run, with the numbers."""
        output = self.dir / "compare.json"
        done = run(["salloc", "-n", "2", "--time=5", COMPARE, "--driver", REDBLACK3D, "--n", "16", "--iters", "2",
                    "--cores", "2", "--verify", "--output", output], env=self.env, timeout=TIMEOUT)
        self.assertEqual(done.returncode, 0, done.stderr)
        launches = [line[2:] for line in done.stderr.splitlines() if line.startswith("+ srun ")]
        self.assertEqual([re.search(r"^srun (-n \d+ -N 1 --cpus-per-task=\d+ --cpu-bind=cores --mpi=\w+) ", c).group(1)
                          for c in launches],
                         [f"-n 1 -N 1 --cpus-per-task=2 --cpu-bind=cores --mpi={PMI}"] +
                         [f"-n 2 -N 1 --cpus-per-task=1 --cpu-bind=cores --mpi={PMI}"] * 2 +
                         [f"-n 1 -N 1 --cpus-per-task=2 --cpu-bind=cores --mpi={PMI}"])
        self.assertEqual([(r["mode"], r["ranks"], r["threads_per_rank"], r["verified"]) for r in read_jsonl(output)],
                         [("sync", 2, 1, True), ("async", 2, 1, True), ("mt", 1, 2, True), ("proxy", 1, 2, True)])
        self.assertIn("verify: sync identical, async identical, mt identical, proxy identical", done.stdout)
        cores = os.cpu_count() + 1  # more than any allocation here holds (CR_Core may round a task up to a core)
        self.assert_allocation_refused(
            "compare", ["salloc", "-n", "1", "--time=5", COMPARE, "--driver", REDBLACK3D, "--n", "16", "--iters", "2",
                        "--cores", str(cores)], cores, "--cores/--nodes")

    @unittest.skipUnless(built(SUMMA), "summa is not built")
    def test_compare_panels_builds_each_modes_geometry(self):
        """compare-panels inside `salloc -n 2`: sync/async on 2 tasks x 1 CPU, mt/proxy on 1 task x 2 CPUs,
        verified (proxy with 2 compute threads: a world of one rank keeps no proxy core under auto); more
        single-tier ranks than the allocation's CPUs is refused before any run."""
        output = self.dir / "panels.json"
        done = run(["salloc", "-n", "2", "--time=5", COMPARE_PANELS, "--driver", SUMMA.resolve(), "--size", "128",
                    "--panels", "32", "--single-tier-ranks", "2", "--reps", "1", "--verify", "--output", output],
                   env=self.env, timeout=TIMEOUT)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual([(r["mode"], r["ranks"], r["threads_per_rank"], r["verified"]) for r in read_jsonl(output)],
                         [("sync", 2, 1, True), ("async", 2, 1, True), ("mt", 1, 2, True), ("proxy", 1, 2, True)])
        ranks = os.cpu_count() + 1
        self.assert_allocation_refused(
            "compare-panels", ["salloc", "-n", "2", "--time=5", COMPARE_PANELS, "--driver", SUMMA.resolve(), "--size",
                               "128", "--panels", "32", "--single-tier-ranks", str(ranks)],
            ranks, "--single-tier-ranks/--multi-tier-ranks")

    def test_sweep_timeout_names_the_pending_reason(self):
        """Outside an allocation a point larger than the node (3 ranks, 2 CPUs) waits in the queue: at the
        sweep's timeout the failure names the job's pending reason and what srun said. The timeout leaves a
        loaded machine time to submit the job, schedule it once (which sets the reason) and print srun's line."""
        out = self.dir / "too-large"
        done = run([SWEEP, "--launcher", "srun", "--driver", REDBLACK3D, "--param", "n", "16", "--param", "iters", "2",
                    "--ranks", str(os.cpu_count() + 1), "--reps", "1", "--timeout", "20", "--out", out],
                   env=self.env, timeout=TIMEOUT)
        self.assertEqual(done.returncode, 1, done.stderr)
        failure = read_csv(out / "summary.csv")[0]["failure"]
        self.assertRegex(failure, r"^timed out after 20 s: srun's job \d+ was still PENDING \(reason PartitionConfig\); "
                                  r"srun: Requested partition configuration not available now")
        self.assertEqual(run(["squeue", "-h"], env=self.env, timeout=30).stdout.strip(), "")  # nothing left queued


if __name__ == "__main__":
    unittest.main()
