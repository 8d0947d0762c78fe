#!/usr/bin/env python3
"""The one launcher setting and Slurm launches, with fake launchers that record their arguments:
--mpiexec > $MPIEXEC > proxy-mpiexec beside the driver > mpiexec, in apps/sweep, compare, compare-panels and
run-overlap; srun gets -n, -N, --cpus-per-task and --cpu-bind per point of a mode-group sweep."""
import json
import os
import shutil
import tempfile
import unittest
from pathlib import Path

from support import COMPARE, COMPARE_PANELS, FAKE, ROOT, RUN_OVERLAP, SWEEP, read_csv, read_jsonl, run

# A launcher stand-in: appends its name and arguments (one JSON line) to $FAKE_LAUNCH_LOG, then runs the
# program after its own options once, as rank 0 of the -n it was given.
FAKE_LAUNCHER = r'''#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
with open(os.environ["FAKE_LAUNCH_LOG"], "a") as log:
    log.write(json.dumps([os.path.basename(sys.argv[0])] + args) + "\n")
ranks, i = "1", 0
while i < len(args) and args[i].startswith("-"):
    if args[i] in ("-n", "-N"):
        ranks = args[i + 1] if args[i] == "-n" else ranks
        i += 2
    else:
        i += 1
if "--version" in args[:1]:
    print("fake launcher Version: 9.9"); sys.exit(0)
os.execvpe(args[i], args[i:], dict(os.environ, PMI_RANK="0", PMI_SIZE=ranks))
'''


# srun without the PMI the MPI needs: every task starts as its own one-rank world (and writes a record).
SINGLETON_SRUN = r'''#!/usr/bin/env python3
import os, subprocess, sys
args = sys.argv[1:]
if "--version" in args[:1]:
    print("slurm 22.05.8"); sys.exit(0)
ranks, i = 1, 0
while i < len(args) and args[i].startswith("-"):
    if args[i] == "-n":
        ranks = int(args[i + 1])
    i += 2 if args[i] in ("-n", "-N") else 1
env = {k: v for k, v in os.environ.items() if not k.startswith("PMI_")}
sys.exit(max(subprocess.call(args[i:], env=env) for _ in range(ranks)))
'''


class TestLaunch(unittest.TestCase):
    """Which launcher every tool runs, and what srun is given."""
    CTEST_PREFIX = "sweep"
    CTEST_LABELS = "sweep"

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="sweep-launch-")
        self.dir = Path(self.tmp.name)
        self.bin = self.dir / "bin"        # a fake build: the driver and its proxy-mpiexec
        self.path = self.dir / "path"      # fake launchers on PATH
        self.bin.mkdir()
        self.path.mkdir()
        self.driver = self.bin / "fake_driver.py"
        shutil.copy(FAKE, self.driver)
        for folder, name in ((self.bin, "proxy-mpiexec"), (self.path, "srun"), (self.path, "other-mpiexec"),
                             (self.path, "mpiexec")):
            (folder / name).write_text(FAKE_LAUNCHER)
            (folder / name).chmod(0o755)
        self.log = self.dir / "launch.log"
        self.env = {k: v for k, v in os.environ.items() if k not in ("MPIEXEC", "SLURM_JOB_ID", "SLURM_MPI_TYPE")}
        # PYTHONPATH: the copied fake driver finds the schema (apps/toolkit) as the one in tests/sweep does.
        self.env.update(FAKE_LAUNCH_LOG=str(self.log), PATH=f"{self.path}:{os.environ['PATH']}",
                        PYTHONPATH=str(ROOT / "apps"))

    def tearDown(self):
        self.tmp.cleanup()

    def launches(self):
        """The recorded launches (run-time ones; version probes left out), [name, args...] each."""
        return [e for e in read_jsonl(self.log) if e[-1] != "--version"]

    def sweep(self, *args, env=None, out=None):
        """One sweep of the fake driver into `out`, else a fresh folder; returns the recorded launches."""
        self.log.unlink(missing_ok=True)
        out = out or self.dir / f"out{len(list(self.dir.glob('out*')))}"
        done = run([SWEEP, "--driver", self.driver, "--param", "mode", "sync", "--reps", "1", "--out", out, *args],
                   env=env or self.env)
        self.assertEqual(done.returncode, 0, done.stderr)
        return self.launches()

    def test_launcher_order(self):
        """The build's proxy-mpiexec beside the driver beats mpiexec on PATH; $MPIEXEC beats it; --mpiexec
        beats them all."""
        self.assertEqual([e[0] for e in self.sweep()], ["proxy-mpiexec"])
        env = dict(self.env, MPIEXEC="other-mpiexec --flag")
        self.assertEqual(self.sweep(env=env)[0][:4], ["other-mpiexec", "--flag", "-n", "1"])
        self.assertEqual([e[0] for e in self.sweep("--mpiexec", "mpiexec", env=env)], ["mpiexec"])
        (self.bin / "proxy-mpiexec").unlink()
        self.assertEqual([e[0] for e in self.sweep()], ["mpiexec"])

    def test_srun_per_point_placement(self):
        """Mode groups under srun: each point's ranks, nodes, CPUs per task and binding reach srun."""
        self.log.unlink(missing_ok=True)
        out = self.dir / "groups"
        done = run([SWEEP, "--driver", self.driver, "--launcher", "srun", "--param", "n", "8", "--reps", "1",
                    "--group", "modes=sync,async ranks=2 nodes=1 cpus-per-task=1 cpu-bind=cores",
                    "--group", "modes=mt ranks=1 nodes=1 cpus-per-task=2 cpu-bind=cores threads=2",
                    "--group", "modes=proxy ranks=1 nodes=1 cpus-per-task=2 cpu-bind=cores threads=1",
                    "--out", out], env=self.env)
        self.assertEqual(done.returncode, 0, done.stderr)
        launches = self.launches()
        self.assertEqual([e[:6] for e in launches], [
            ["srun", "-n", "2", "-N", "1", "--cpus-per-task=1"]] * 2 + [
            ["srun", "-n", "1", "-N", "1", "--cpus-per-task=2"]] * 2)
        self.assertTrue(all(e[6] == "--cpu-bind=cores" and e[7] == str(self.driver) for e in launches))
        self.assertEqual([e[e.index("--mode") + 1] for e in launches], ["sync", "async", "mt", "proxy"])
        self.assertEqual([e[e.index("--threads") + 1] if "--threads" in e else None for e in launches],
                         [None, None, "2", "1"])
        rows = read_csv(out / "summary.csv")
        self.assertEqual([(r["group"], r["mode"], r["ranks"], r["threads"]) for r in rows],
                         [("sync+async", "sync", "2", ""), ("sync+async", "async", "2", ""),
                          ("mt", "mt", "1", "2"), ("proxy", "proxy", "1", "1")])
        self.assertEqual([r["threads_per_rank"] for r in rows], ["1", "1", "2", "1"])  # the driver got them
        self.assertEqual({r["launch_launcher"] for r in rows}, {"fake launcher Version: 9.9"})  # srun --version

    def test_ranks_started_as_separate_jobs_fail_the_point(self):
        """srun without the MPI's PMI runs a 2-rank point as two 1-rank jobs, each writing a record: the
        point fails naming the fix, and no figure of it reaches the summary (the 1-rank point passes)."""
        (self.path / "srun").write_text(SINGLETON_SRUN)
        out = self.dir / "singletons"
        env = dict(self.env, SLURM_JOB_ID="4242", SLURM_MPI_TYPE="none",
                   FAKE_DRIVER_PROVENANCE='{"host": "node7", "mpi": "MPICH 4.0.2"}')
        done = run([SWEEP, "--driver", self.driver, "--launcher", "srun", "--param", "mode", "sync", "--reps", "1",
                    "--ranks", "1", "2", "--out", out], env=env)
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertIn("the run wrote 2 records, expected 1: were its ranks started as separate jobs? (under srun, "
                      "the MPI needs its PMI: srun_mpi or --srun-mpi, e.g. pmi2 for MPICH, pmix for Open MPI)",
                      done.stderr)
        self.assertTrue(all("--mpi=none" in e for e in read_jsonl(self.log) if e[-1] != "--version"))
        rows = {r["ranks"]: r for r in read_csv(out / "summary.csv")}
        self.assertEqual((rows["1"]["status"], rows["2"]["status"]), ("ok", "failed"))
        self.assertEqual(rows["2"]["runs_ok"], "0")  # no median over the two 1-rank records
        self.assertTrue(rows["2"]["failure"].startswith("the run wrote 2 records, expected 1"))
        # Provenance: where the driver ran and its MPI as its own record says (not the launching host, not
        # srun's version); srun's version and the Slurm job and MPI type beside it, as launch facts.
        self.assertEqual([rows["1"][f"prov_{f}"] for f in ("host", "mpi")], ["node7", "MPICH 4.0.2"])
        self.assertEqual([rows["1"][f"launch_{f}"] for f in ("launcher", "slurm_job_id", "slurm_mpi_type")],
                         ["srun (slurm) 22.05.8", "4242", "none"])
        # Each run's logged command reruns it into the record file it ended in (not the attempt file).
        commands = [e["command"] for e in read_jsonl(out / "state.jsonl")]
        self.assertEqual([c.split("--output ")[1] for c in commands],
                         [str(out / "raw" / f"mode=sync,ranks={r}-rep1.json") for r in (1, 2)])
        self.assertTrue(all((out / "raw" / f"mode=sync,ranks={r}-rep1.json").exists() for r in (1, 2)))

    def test_mpiexec_flags_are_refused_under_srun(self):
        """srun reads '-bind-to' as '-b ind-to' (--begin): refused before anything runs, naming the flag;
        srun's own flags pass."""
        done = run([SWEEP, "--driver", self.driver, "--launcher", "srun", "--param", "mode", "sync",
                    "--launcher-arg=-bind-to", "--launcher-arg=core", "--out", self.dir / "refused"], env=self.env)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertEqual(done.stderr.strip(), "sweep: error: launcher argument '-bind-to' is an mpiexec flag that "
                         "srun would misread (its one-dash options take one letter): under srun give the binding "
                         "as cpu_bind (--cpu-bind) and srun's own flags")
        self.assertFalse(self.log.exists())
        self.assertEqual(self.sweep("--launcher", "srun", "--launcher-arg=--exclusive")[0][:3], ["srun", "-n", "1"])
        done = run([SWEEP, "--driver", self.driver, "--launcher", "srun", "--param", "mode", "sync",
                    "--launcher-arg=--mpi=pmi2", "--out", self.dir / "refused"], env=self.env)
        self.assertEqual((done.returncode, done.stderr.strip()), (2, "sweep: error: launcher argument '--mpi=pmi2': "
                         "give srun's PMI as srun_mpi (--srun-mpi TYPE), which the sweep passes to srun and records"))

    def test_srun_mpi_setting(self):
        """srun's PMI: --srun-mpi over the spec's srun_mpi over SLURM_MPI_TYPE; passed as --mpi=TYPE after the
        point's placement and recorded as slurm_mpi_type; a script driver with none of them gets no --mpi."""
        spec = self.dir / "spec.toml"
        spec.write_text('srun_mpi = "pmix"\n')
        env = dict(self.env, SLURM_MPI_TYPE="pmi2")
        cases = [((), self.env, None), ((), env, "pmi2"), (("--spec", spec), env, "pmix"),
                 (("--spec", spec, "--srun-mpi", "none"), env, "none")]
        for args, environ, expected in cases:
            out = self.dir / f"mpi{len(list(self.dir.glob('mpi*')))}"
            launches = self.sweep("--launcher", "srun", "--ranks", "2", *args, env=environ, out=out)
            self.assertEqual(launches[0][:4], ["srun", "-n", "2", f"--mpi={expected}"] if expected
                             else ["srun", "-n", "2", str(self.driver)])
            self.assertEqual(read_csv(out / "summary.csv")[0]["launch_slurm_mpi_type"], expected or "")
        done = run([SWEEP, "--driver", self.driver, "--launcher", "srun", "--srun-mpi", "pmi 2", "--out",
                    self.dir / "bad"], env=self.env)
        self.assertEqual((done.returncode, done.stderr.strip()), (2, "sweep: error: --srun-mpi 'pmi 2' is not an srun "
                         "MPI type (see srun --mpi=list: pmi2, pmix, none, ...)"))

    def test_srun_timeout_names_the_pending_reason(self):
        """A point srun cannot place waits in the queue until the sweep's timeout: the failure names the job's
        pending reason (squeue) and what srun said, not only the timeout."""
        (self.path / "srun").write_text("#!/bin/sh\n[ \"$1\" = --version ] && { echo 'slurm 22.05.8'; exit 0; }\n"
                                        "echo 'srun: Requested partition configuration not available now' >&2\n"
                                        "echo 'srun: job 17 queued and waiting for resources' >&2\nexec sleep 60\n")
        (self.path / "squeue").write_text("#!/bin/sh\n[ \"$*\" = '-h -j 17 -o %T %r' ] && echo 'PENDING PartitionConfig'\n")
        (self.path / "squeue").chmod(0o755)
        done = run([SWEEP, "--driver", self.driver, "--launcher", "srun", "--param", "mode", "sync", "--ranks", "3",
                    "--reps", "1", "--timeout", "2", "--out", self.dir / "pending"], env=self.env)
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertEqual(read_csv(self.dir / "pending" / "summary.csv")[0]["failure"],
                         "timed out after 2 s: srun's job 17 was still PENDING (reason PartitionConfig); srun: "
                         "Requested partition configuration not available now | srun: job 17 queued and waiting "
                         "for resources")

    def test_compare_gives_srun_each_modes_geometry(self):
        """compare --launcher srun (and auto inside an allocation): sync gets nodes x cores tasks of 1 CPU,
        proxy one task per node of --cores CPUs, both bound to cores, with --srun-mpi's PMI; asking for more
        CPUs per node than the allocation has is refused before any run, naming the numbers."""
        env = dict(self.env, SLURM_JOB_ID="77", SLURM_JOB_NUM_NODES="2", SLURM_JOB_CPUS_PER_NODE="4(x2)")
        for mode, geometry in (("sync", ["-n", "8", "-N", "2", "--cpus-per-task=1"]),
                               ("proxy", ["-n", "2", "-N", "2", "--cpus-per-task=4"])):
            self.log.unlink(missing_ok=True)
            done = run([COMPARE, "--driver", self.driver, "--modes", mode, "--cores", "4", "--nodes", "2",
                        "--srun-mpi", "pmix", "--timeout", "60"], env=env)
            self.assertEqual(done.returncode, 2, done.stderr)  # the fake driver refuses --node-width: passed on
            self.assertEqual(self.launches()[0][:9], ["srun"] + geometry + ["--cpu-bind=cores", "--mpi=pmix",
                                                                            str(self.driver)])
        self.log.unlink(missing_ok=True)
        done = run([COMPARE, "--driver", self.driver, "--modes", "mt", "--cores", "8", "--launcher", "srun"], env=env)
        self.assertEqual((done.returncode, done.stderr.strip()), (2, "compare: error: mode mt needs 1 task x 8 "
                         "CPUs on 1 node, 8 CPUs per node, but the allocation (SLURM_JOB_ID=77) has 2 nodes of "
                         "4 CPUs: srun would wait for ever (ask for more, or lower --cores/--nodes)"))
        self.assertFalse(self.log.exists())
        done = run([COMPARE, "--driver", self.driver, "--launcher", "srun", "--mpiexec", "mpiexec"], env=env)
        self.assertEqual((done.returncode, done.stderr.strip()), (2, "compare: error: --mpiexec and --launcher srun: "
                         "give one launcher (srun's PMI is --srun-mpi)"))
        done = run([COMPARE, "--driver", self.driver, "--mpiexec", "srun --mpi=pmi2"], env=env)
        self.assertEqual((done.returncode, done.stderr.strip()), (2, "compare: error: --mpiexec 'srun --mpi=pmi2': use "
                         "--launcher srun (and --srun-mpi TYPE), which gives each mode its own tasks and CPUs"))

    def test_other_tools_use_the_launcher(self):
        """compare, compare-panels and run-overlap launch with the same setting (--mpiexec here, then
        proxy-mpiexec beside the driver). The fake driver refuses the options of compare (--node-width) and
        compare-panels (--size), which pass its exit 2 on; run-overlap's run fails (exit 1)."""
        self.log.unlink(missing_ok=True)
        done = run([COMPARE, "--driver", self.driver, "--modes", "sync", "--mpiexec", "other-mpiexec"], env=self.env)
        self.assertEqual(done.returncode, 2, done.stderr)  # the fake driver refuses --node-width: passed on
        self.assertEqual(self.launches()[0][0], "other-mpiexec")
        self.log.unlink()
        done = run([COMPARE_PANELS, "--driver", self.driver, "--modes", "sync", "--panels", "8", "--size", "1K",
                    "--single-tier-ranks", "2"], env=self.env)
        self.assertEqual(done.returncode, 2, done.stderr)  # the fake driver refuses --size: passed on
        self.assertEqual(self.launches()[0][:3], ["proxy-mpiexec", "-n", "2"])
        self.assertIn("--size 1024", " ".join(self.launches()[0]))
        self.log.unlink()
        done = run([RUN_OVERLAP, "-n", "2", self.driver, "--output", self.dir / "o.json"], env=self.env)
        self.assertEqual(done.returncode, 1, done.stderr)  # the fake driver knows no mode 'async,async-test,proxy'
        self.assertEqual([e[:3] for e in self.launches()], [["proxy-mpiexec", "-n", "2"]])


if __name__ == "__main__":
    unittest.main()
