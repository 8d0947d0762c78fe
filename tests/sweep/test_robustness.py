#!/usr/bin/env python3
"""Results are never lost and every bad input ends in one line (issue 15): kill -9 of a sweep leaves no
launcher or rank behind and the resumed sweep counts each run once; a torn state line; two sweeps into one
folder; bad --timeout and --out; apps/plot on a damaged summary or a file as --out; the old bad-input
lines. Exact messages and exit codes."""
import os
import shutil
import signal
import subprocess
import tempfile
import unittest
from pathlib import Path

from support import (COMPARE, COMPARE_PANELS, FAKE, HERE, PATIENCE, PLOT, SWEEP, mpiexec, processes_mentioning, read_csv,
                     read_jsonl, run, wait_for)


class TestRobustness(unittest.TestCase):
    """Interrupted, concurrent and damaged sweeps; bad input to sweep and plot."""
    CTEST_PREFIX = "sweep"
    CTEST_LABELS = "sweep;mpi;faults"

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="sweep-fault-")
        self.out = Path(self.tmp.name) / "out"
        self.log = Path(self.tmp.name) / "invocations.log"
        self.started = Path(self.tmp.name) / "started.log"
        self.env = dict(os.environ, FAKE_DRIVER_LOG=str(self.log), FAKE_DRIVER_STARTED=str(self.started))
        self.args = [str(SWEEP), "--driver", str(FAKE), "--ranks", "2", "--param", "mode", "sync,proxy",
                     "--reps", "1", "--mpiexec", mpiexec(), "--out", str(self.out)]

    def tearDown(self):
        self.tmp.cleanup()

    def start_slow_sweep(self, seconds):
        """A sweep in the background whose runs each take `seconds`, once its first run has started."""
        process = subprocess.Popen(self.args, env=dict(self.env, FAKE_DRIVER_SLEEP=str(seconds)),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: self.started.exists() and self.started.read_text().strip(), "the first run to start")
        return process

    def test_kill_9_leaves_no_run_behind(self):
        """kill -9 of apps/sweep mid-run: its launcher and ranks end too (nothing mentioning the output
        folder lives on), and the resumed sweep has exactly one record per run."""
        process = self.start_slow_sweep(30)
        self.assertTrue(processes_mentioning(str(self.out)))
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=PATIENCE)
        wait_for(lambda: not processes_mentioning(str(self.out)), "the killed sweep's launcher and ranks to end")
        done = run(self.args, env=self.env)
        self.assertEqual(done.returncode, 0, done.stderr)
        entries = read_jsonl(self.out / "state.jsonl")
        self.assertEqual(sorted(e["params"]["mode"] for e in entries), ["proxy", "sync"])
        self.assertEqual([len(e["records"]) for e in entries], [1, 1])
        self.assertEqual(len(self.log.read_text().splitlines()), 2)  # the killed run never finished
        self.assertEqual(list((self.out / "raw" / ".unfinished").iterdir()), [])

    def test_sigterm_ends_ranks_left_in_sessions_of_their_own(self):
        """SIGTERM to apps/sweep mid-run, its launcher having started the rank in a session of its own and
        dying without passing the signal on (MPICH's Hydra stopped as it starts its proxy and ranks, which
        run in sessions of their own): the rank ends too, long before its 300 s run would, and the sweep
        says it was interrupted."""
        launcher = Path(self.tmp.name) / "session-launcher"
        launcher.write_text("#!/bin/sh\n# Skips the launcher's options, starts the program in a new session, waits.\n"
                            "while :; do case \"$1\" in -n|-N) shift 2 ;; -*) shift ;; *) break ;; esac; done\n"
                            "setsid \"$@\" &\nwait\n")
        launcher.chmod(0o755)
        args = [a if a != mpiexec() else str(launcher) for a in self.args]
        process = subprocess.Popen(args, env=dict(self.env, FAKE_DRIVER_SLEEP="300"), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        try:
            wait_for(lambda: self.started.exists() and self.started.read_text().strip(), "the first run to start")
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=PATIENCE)
            self.assertEqual(process.returncode, 130, err)
            self.assertIn("sweep: interrupted; finished runs are kept", err)
            wait_for(lambda: not processes_mentioning(str(self.out)), "the rank in its own session to end")
        finally:
            for pid in processes_mentioning(str(self.out)):
                os.kill(pid, signal.SIGKILL)

    def test_stray_record_file_is_discarded(self):
        """A record file a killed sweep left for an unfinished run is discarded, with a notice."""
        (self.out / "raw" / ".unfinished").mkdir(parents=True)
        (self.out / "raw" / ".unfinished" / "mode=sync,ranks=2-rep1.999.json").write_text('{"total_s": 9}\n')
        done = run(self.args, env=self.env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(f"sweep: notice: discarded 1 record file(s) of unfinished runs in "
                      f"{self.out / 'raw' / '.unfinished'}", done.stderr)
        self.assertNotEqual(read_csv(self.out / "summary.csv")[0]["total_s_median"], "9")

    def test_torn_state_line(self):
        """A torn last line in state.jsonl is dropped with a notice; that resume and the next succeed."""
        self.assertEqual(run(self.args, env=self.env).returncode, 0)
        state = self.out / "state.jsonl"
        with state.open("a") as handle:
            handle.write('{"point": "mode=proxy,ranks=2", "re')
        done = run(self.args, env=self.env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(f"sweep: notice: ignoring the torn last line of {state} (a run interrupted while it was "
                      f"logged; it runs again)", done.stderr)
        done = run(self.args, env=self.env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertNotIn("torn", done.stderr)
        self.assertEqual(len(read_jsonl(state)), 2)

    def test_second_sweep_into_one_folder_is_refused(self):
        """While one sweep runs in OUT, a second one into OUT ends with one line naming the holder; the
        first finishes with one entry per run."""
        first = self.start_slow_sweep(2)
        second = run(self.args, env=self.env)
        self.assertEqual(second.returncode, 1, second.stderr)
        self.assertEqual(second.stderr.strip(), f"sweep: error: '{self.out}' is in use by another sweep (PID "
                                                f"{first.pid}); wait for it to end or choose another --out")
        first.communicate(timeout=PATIENCE * 2)
        self.assertEqual(first.returncode, 0)
        self.assertEqual(len(read_jsonl(self.out / "state.jsonl")), 2)

    def args_with(self, option, value):
        """self.args with `option` given `value` (in place of its own: an option given twice is refused)."""
        args = list(self.args)
        if option in args:
            del args[args.index(option):args.index(option) + 2]
        return [*args, option, value]

    def usage_error(self, argv, line):
        """argv ends with exit 2 and exactly `line` on stderr (no traceback)."""
        done = run(argv, env=self.env)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertEqual(done.stderr.strip(), line)

    def test_timeout_refusals(self):
        """--timeout, a real option, refused as the C++ drivers refuse theirs (cg3d --tol, redblack3d --omega),
        the text as given: one line each, exit 2 (it said "--timeout 'inf' is not a finite positive number of
        seconds")."""
        for value, line in (("inf", "--timeout: expected a finite number, got 'inf'"),
                            ("nan", "--timeout: expected a finite number, got 'nan'"),
                            ("1e400", "--timeout: expected a finite number, got '1e400'"),
                            ("ten", "--timeout: expected a finite number, got 'ten'"),
                            ("0", "--timeout must be greater than 0, got '0'"),
                            ("-1", "--timeout must be greater than 0, got '-1'"),
                            ("1e-400", "--timeout must be greater than 0, got '1e-400'"),
                            ("1000000.5", "--timeout: Value 1000000.5 not in range 0 to 1000000")):
            with self.subTest(value=value):
                self.usage_error([*self.args, "--timeout", value], f"sweep: error: {line}")

    def test_empty_paths(self):
        """--out '', --driver ' ' and --spec '': one line, exit 2 (toolkit.cli.Parser; before: the spec's folder
        and driver, or no spec, as if they had not been given)."""
        self.usage_error(self.args_with("--out", ""), "sweep: error: --out is empty")
        self.usage_error(self.args_with("--driver", " "), "sweep: error: --driver is empty")
        self.usage_error([*self.args, "--spec", ""], "sweep: error: --spec is empty")

    def test_timeout_and_reps_above_their_maximum(self):
        """--timeout 1e14 (Python's clocks overflow beyond ~9.2e9 s: a traceback's OverflowError, before) and
        --reps above 1000000: one line each, exit 2."""
        self.usage_error([*self.args, "--timeout", "1e14"],
                         "sweep: error: --timeout: Value 1e14 not in range 0 to 1000000")
        self.usage_error(self.args_with("--reps", "1000001"),
                         "sweep: error: --reps: Value 1000001 not in range 1 to 1000000")

    def test_out_is_a_file(self):
        """--out naming a file: one line, exit 2."""
        path = Path(self.tmp.name) / "a-file"
        path.write_text("x")
        self.usage_error([SWEEP, "--driver", FAKE, "--out", path], f"sweep: error: --out '{path}' is a file, not a folder")

    def test_bad_input_lines(self):
        """The sweep's usage errors: one line naming the value, exit 2."""
        self.usage_error([SWEEP, "--driver", FAKE, "--ranks", "0", "--out", self.out],
                         "sweep: error: ranks value: Value 0 not in range 1 to 16777216")
        # Past the maximum, refused before any launch (MPICH's mpiexec misread such counts: see test_tools); at it,
        # the launch is built (--dry-run prints it).
        self.usage_error([SWEEP, "--driver", FAKE, "--ranks", "16777217", "--out", self.out],
                         "sweep: error: ranks value: Value 16777217 not in range 1 to 16777216")
        self.usage_error([SWEEP, "--driver", FAKE, "--group", "modes=mt nodes=99999999999", "--launcher", "srun",
                          "--out", self.out], "sweep: error: nodes value: Value 99999999999 not in range 1 to 16777216")
        done = run([SWEEP, "--driver", FAKE, "--ranks", "16777216", "--launcher", "mpiexec", "--mpiexec", "mpiexec",
                    "--dry-run", "--out", self.out], env=self.env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("mpiexec -n 16777216 ", done.stdout)
        self.usage_error([SWEEP, "--spec", HERE / "bad_spec.toml", "--out", self.out],
                         f"sweep: error: spec file '{HERE / 'bad_spec.toml'}': unknown key 'repz' (known: cpu_bind, "
                         "cpus_per_task, driver, driver_args, env, groups, launcher, launcher_args, mpiexec, nodes, "
                         "out, params, ranks, record_format, reps, srun_mpi, timeout)")
        self.usage_error([SWEEP, "--driver", "/nonexistent/driver", "--out", self.out],
                         "sweep: error: driver '/nonexistent/driver' is not an executable file")
        self.usage_error([SWEEP, "--driver", FAKE, "--param", "panel", "--out", self.out],
                         "sweep: error: --param panel has no values (use --param NAME VALUE[,VALUE...])")
        self.usage_error([SWEEP, "--driver", FAKE, "--bogus"], "sweep: error: unknown option '--bogus' (see --help)")
        self.usage_error([SWEEP, "--driver", FAKE, "--group", "modes=mt ranks", "--out", self.out],
                         "sweep: error: --group 'modes=mt ranks': 'ranks' is not KEY=VALUE")
        # The sweep's own --output, given again: every run failed with "option --output given twice".
        self.usage_error([SWEEP, "--driver", FAKE, "--param", "output", "x.csv", "--out", self.out],
                         "sweep: error: parameter 'output': the sweep gives every run its own --output (its record "
                         "under --out)")
        self.usage_error([SWEEP, "--driver", FAKE, "--driver-arg=--output=x.csv", "--out", self.out],
                         "sweep: error: driver argument '--output=x.csv': the sweep gives every run its own --output "
                         "(its record under --out)")
        self.usage_error([SWEEP, "--driver", FAKE, "--param", "n", "8", "--param", "n", "16", "--out", self.out],
                         "sweep: error: --param n given twice (give its values in one: --param n 8,16)")
        # Counted before any point is made: 12 parameters of 10 values filled memory before the first line.
        ten = ",".join(str(v) for v in range(1, 11))
        many = [word for k in range(12) for word in ("--param", f"p{k}", ten)]
        self.usage_error([SWEEP, "--driver", FAKE, *many, "--dry-run", "--out", self.out],
                         "sweep: error: the sweep has 1000000000000 points, more than 100000: split it into smaller "
                         "sweeps")
        self.usage_error([SWEEP, "--driver", FAKE, *many[:15], "--group", "modes=a,b ranks=1,2", "--dry-run",
                          "--out", self.out],
                         "sweep: error: the sweep has 400000 points, more than 100000: split it into smaller sweeps")

    def test_paths_the_system_will_not_look_up(self):
        """A name too long for the file system, a loop of symbolic links: one line naming the path and the
        reason, exit 2, from every tool's file options (Path.exists() raised OSError out of the tools: "unexpected
        OSError", or a bare "[Errno 36]" and exit 1)."""
        long = Path(self.tmp.name) / ("a" * 300)
        loop = Path(self.tmp.name) / "loop"
        loop.symlink_to(loop)
        summary = Path(self.tmp.name) / "summary.csv"
        summary.write_text("mode,runs_ok,runs_failed,status,failure,total_s_median,total_s_min,total_s_max\n"
                           "sync,1,0,ok,,0.5,0.4,0.6\n")
        too_long, looping = "File name too long", "Too many levels of symbolic links"
        cases = [([SWEEP, "--driver", FAKE, "--out", long], f"sweep: error: --out '{long}': {too_long}"),
                 ([SWEEP, "--driver", FAKE, "--out", loop], f"sweep: error: --out '{loop}': {looping}"),
                 ([SWEEP, "--spec", f"{long}.json", "--driver", FAKE],
                  f"sweep: error: spec file '{long}.json': {too_long}"),
                 ([COMPARE, "--driver", FAKE, "--output", f"{long}.csv"],
                  f"compare: error: --output '{long}.csv': {too_long}"),
                 ([COMPARE_PANELS, "--driver", FAKE, "--plot", f"{long}.png"],
                  f"compare-panels: error: --plot '{long}.png': {too_long}"),
                 ([PLOT, "--summary", f"{long}.csv"], f"plot: error: summary '{long}.csv': {too_long}"),
                 ([PLOT, "--summary", summary, "--out", long], f"plot: error: --out '{long}': {too_long}")]
        for argv, line in cases:
            with self.subTest(tool=Path(argv[0]).name):
                self.usage_error(argv, line)

    def test_spec_of_the_wrong_shape(self):
        """Valid JSON or TOML of the wrong shape: one line naming the key and what it holds, exit 2, no
        traceback; a directory as --spec is named as one."""
        cases = [("[]", "must hold a table of settings (a JSON object or a TOML document), not an array"),
                 ('{"driver": 3}', ": 'driver' must be a string (the driver's path), not an integer"),
                 ('{"reps": "x"}', ": 'reps' must be an integer, not a string"),
                 ('{"params": {"n": {"a": 1}}}',
                  ": 'params.n' must be a string, number or boolean (or an array of them), not a table"),
                 ('{"ranks": [[2]]}', ": 'ranks' must be an integer or an array of integers, not an array holding "
                                      "an array"),
                 ('{"groups": [3]}', ": group 1 must be a table of settings")]
        for text, tail in cases:
            spec = Path(self.tmp.name) / "spec.json"
            spec.write_text(text)
            self.usage_error([SWEEP, "--spec", spec, "--driver", FAKE, "--out", self.out],
                             f"sweep: error: spec file '{spec}'{tail if tail.startswith(':') else ' ' + tail}")
        self.usage_error([SWEEP, "--spec", self.tmp.name, "--driver", FAKE, "--out", self.out],
                         f"sweep: error: spec file '{self.tmp.name}' is a directory")
        # A file far larger than any spec (it was read whole: "unexpected MemoryError" under a memory limit, or the
        # machine's memory filled), refused by its size before reading; a binary one named as such.
        spec = Path(self.tmp.name) / "huge.json"
        with open(spec, "wb") as handle:
            handle.truncate(2 << 20)
        self.usage_error([SWEEP, "--spec", spec, "--driver", FAKE, "--out", self.out],
                         f"sweep: error: spec file '{spec}' is {2 << 20} bytes, more than such a file can be "
                         f"({1 << 20} bytes at most)")
        spec.write_bytes(b"{\"driver\": \"\x00\"}")
        self.usage_error([SWEEP, "--spec", spec, "--driver", FAKE, "--out", self.out],
                         f"sweep: error: spec file '{spec}' is a binary file, not text")

    def group_args(self):
        """self.args without its --param mode: a sweep of groups gives the modes in them."""
        at = self.args.index("--param")
        return self.args[:at] + self.args[at + 3:]

    def refused_before_any_run(self, argv, line):
        """argv, with and without --dry-run, ends with exit 2 and exactly `line`, and no run started."""
        self.usage_error([*argv, "--dry-run"], line)
        self.usage_error(argv, line)
        self.assertFalse(self.log.exists(), "a run started before the refusal")

    def test_folder_contents_checked_before_any_run(self):
        """What the sweep will write in OUT, checked before the first run: a state.jsonl linked to /dev/zero or
        /dev/full (read until the memory ran out: no output, SIGKILL), a folder named state.jsonl, summary.csv,
        .lock or a record file of the sweep, a file named raw or figures (with --plot), a folder left in
        raw/.unfinished/ (the sweep ran, then "[Errno 21] Is a directory", exit 1)."""
        state = self.out / "state.jsonl"
        for device in ("/dev/zero", "/dev/full"):
            with self.subTest(device=device):
                self.out.mkdir(exist_ok=True)
                state.unlink(missing_ok=True)
                state.symlink_to(device)
                self.refused_before_any_run(
                    self.args, f"sweep: error: state file '{state}' is not a regular file (a device, pipe or socket)")
        state.unlink()
        record = "mode=sync,ranks=2-rep1.json"
        for name, what in (("state.jsonl", "state file"), ("summary.csv", "summary file"),
                           ("summary.json.tmp", "summary file"), (".lock", "lock file"),
                           (f"raw/{record}", "record file")):
            with self.subTest(folder=name):
                (self.out / name).mkdir(parents=True)
                self.refused_before_any_run(self.args,
                                            f"sweep: error: {what} '{self.out / name}' is a directory, not a file")
                (self.out / name).rmdir()
        leftover = self.out / "raw" / ".unfinished" / "x"
        leftover.mkdir(parents=True)
        self.refused_before_any_run(self.args, f"sweep: error: '{leftover}' is a folder: the sweep removes the record "
                                               "files unfinished runs left in raw/.unfinished/, not folders")
        leftover.rmdir()
        (self.out / "figures").write_text("x")
        self.refused_before_any_run([*self.args, "--plot"],
                                    f"sweep: error: figures folder '{self.out / 'figures'}' is a file, not a folder")
        for folder in (self.out / "raw" / ".unfinished", self.out / "raw"):
            folder.rmdir()
        (self.out / "raw").write_text("x")
        self.refused_before_any_run(self.args,
                                    f"sweep: error: record folder '{self.out / 'raw'}' is a file, not a folder")

    def test_plot_program_of_the_installed_layout(self):
        """--plot runs proxy-plot beside an installed proxy-sweep (it looked for 'plot' there, after the sweep:
        "unexpected FileNotFoundError", exit 1); with no plot program beside it, --plot is refused before any
        run. The install: bin/proxy-sweep, share/proxy/toolkit (cmake/ProxyInstallPrograms.cmake)."""
        prefix = Path(self.tmp.name) / "prefix"
        (prefix / "bin").mkdir(parents=True)
        (prefix / "share" / "proxy").mkdir(parents=True)
        shutil.copy(SWEEP, prefix / "bin" / "proxy-sweep")
        shutil.copytree(SWEEP.parent / "toolkit", prefix / "share" / "proxy" / "toolkit",
                        ignore=shutil.ignore_patterns("__pycache__"))
        plotted = Path(self.tmp.name) / "plotted"
        plot = prefix / "bin" / "proxy-plot"
        plot.write_text(f"#!/bin/sh\necho \"$@\" > '{plotted}'\n")
        plot.chmod(0o755)
        sweep = [prefix / "bin" / "proxy-sweep", *self.args[1:], "--plot"]
        done = run(sweep, env=self.env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(plotted.read_text().split(), ["--summary", str(self.out / "summary.csv"),
                                                       "--out", str(self.out / "figures")])
        plot.unlink()
        self.log.unlink()
        self.refused_before_any_run([*sweep, "--fresh"], "sweep: error: --plot: no plot program beside the sweep "
                                                         f"(proxy-plot or plot in '{prefix / 'bin'}')")

    def test_environment_names_and_values(self):
        """A run's environment: names of letters, digits and _ (not a digit first), values strings or numbers,
        refused when the spec and options are read ('A=B' failed every run with "illegal environment variable
        name", exit 1; '', 'A B', a list were passed on)."""
        spec = Path(self.tmp.name) / "spec.json"
        name_rule = "is not an environment variable name (letters, digits and _, not starting with a digit)"
        for text, tail in (('{"env": {"A=B": "x"}}', f"'A=B' {name_rule}"),
                           ('{"env": {"": "x"}}', f"'' {name_rule}"),
                           ('{"env": {"1A": "x"}}', f"'1A' {name_rule}"),
                           ('{"env": {"A": [1]}}', "'env.A' must be a string or a number, not an array"),
                           ('{"env": {"A": true}}', "'env.A' must be a string or a number, not a boolean"),
                           ('{"env": {"A": NaN}}', "'env.A' holds nan, not a finite number"),
                           ('{"groups": [{"env": {"A B": "x"}}]}', f"group 1: 'A B' {name_rule}")):
            with self.subTest(spec=text):
                spec.write_text(text)
                self.refused_before_any_run([*self.group_args(), "--spec", spec],
                                            f"sweep: error: spec file '{spec}': {tail}")
        self.refused_before_any_run([*self.group_args(), "--group", "env.=1"],
                                    f"sweep: error: --group 'env.=1': '' {name_rule}")
        self.refused_before_any_run([*self.args, "--env", "A B=1"],
                                    f"sweep: error: environment setting 'A B=1': 'A B' {name_rule}")
        spec.write_text('{"env": {"OMP_NUM_THREADS": 1, "PROXY_TEST_MARK": "x"}}')  # a number is its text
        done = run([*self.args, "--spec", spec, "--dry-run"], env=self.env)
        self.assertEqual(done.returncode, 0, done.stderr)

    def test_driver_found_before_any_run(self):
        """A driver given as a bare name is a command on PATH, refused when none is found (each run failed with
        execvp's "No such file or directory"); a spec's driver is relative to the spec's folder, a bare name too
        (docs/sweep.md; it was looked up on PATH)."""
        args = [a for a in self.args if a != str(FAKE)]
        args.remove("--driver")
        self.refused_before_any_run([*args, "--driver", "nonexistent"], "sweep: error: driver 'nonexistent' is not an "
                                                                        "executable file or a command found on PATH")
        folder = Path(self.tmp.name) / "specs"
        folder.mkdir()
        spec = folder / "spec.json"
        spec.write_text('{"driver": "nonexistent"}')
        self.refused_before_any_run([*args, "--spec", spec],
                                    f"sweep: error: driver '{folder / 'nonexistent'}' is not an executable file")
        (folder / "driver.py").symlink_to(FAKE)
        spec.write_text('{"driver": "driver.py"}')
        done = run([*args, "--spec", spec], env=self.env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(len(self.log.read_text().splitlines()), 2)

    def test_spec_values_passed_to_the_driver(self):
        """Spec values of the wrong type or not finite, refused naming the key and value where they were passed on
        (a group's modes 5 as --mode 5, driver_args [1] as an argument 1, NaN and 1e400 as --n nan and --n inf);
        a spec nested too deeply cannot be parsed ("unexpected RecursionError", exit 1)."""
        spec = Path(self.tmp.name) / "spec.json"
        for text, tail in (('{"groups": [{"modes": 5}]}',
                            ": group 1: 'modes' must be a string or an array of strings, not an integer"),
                           ('{"groups": [{"name": ["a"]}]}', ": group 1: 'name' must be a string, not an array"),
                           ('{"groups": [{"ranks": ["2"]}]}',
                            ": group 1: 'ranks' must be an integer or an array of integers, not an array holding a "
                            "string"),
                           ('{"groups": [{"params": {"n": [[1]]}}]}', ": group 1: 'params.n' must be a string, number "
                            "or boolean (or an array of them), not an array holding an array"),
                           ('{"driver_args": [1]}',
                            ": 'driver_args' must be a string or an array of strings, not an array holding an integer"),
                           ('{"launcher_args": [null]}',
                            ": 'launcher_args' must be a string or an array of strings, not an array holding null"),
                           ('{"params": {"n": [NaN, 1]}}', ": 'params.n' holds nan, not a finite number"),
                           ('{"params": {"n": [1, 1e400]}}', ": 'params.n' holds inf, not a finite number"),
                           ('{"params": {"n": -Infinity}}', ": 'params.n' holds -inf, not a finite number"),
                           ("[" * 100000, " cannot be parsed: it is nested too deeply")):
            with self.subTest(spec=text[:40]):
                spec.write_text(text)
                self.refused_before_any_run([*self.group_args(), "--spec", spec],
                                            f"sweep: error: spec file '{spec}'{tail}")
        spec = spec.with_suffix(".toml")
        spec.write_text("params = { n = " + "[" * 100000)
        self.refused_before_any_run([*self.args, "--spec", spec],
                                    f"sweep: error: spec file '{spec}' cannot be parsed: it is nested too deeply")

    def test_group_words(self):
        """--group: a key given twice (the last replaced the first) and a group without words (a group of no
        modes), refused; launcher-arg is the one key that repeats."""
        for text, line in (("modes=sync modes=async", "--group 'modes=sync modes=async': 'modes' given twice"),
                           ("modes=sync n=1 n=2", "--group 'modes=sync n=1 n=2': 'n' given twice"),
                           ("cpus-per-task=1 cpus_per_task=2",
                            "--group 'cpus-per-task=1 cpus_per_task=2': 'cpus_per_task' given twice"),
                           ("", "--group '' is empty (a group is KEY=VALUE words: modes=mt ranks=1 ...)"),
                           (" ", "--group ' ' is empty (a group is KEY=VALUE words: modes=mt ranks=1 ...)")):
            with self.subTest(group=text):
                self.refused_before_any_run([*self.group_args(), "--group", text], f"sweep: error: {line}")
        done = run([*self.group_args(), "--group", "modes=sync launcher-arg=-x launcher-arg=-y", "--dry-run"],
                   env=self.env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(" -n 2 -x -y ", done.stdout)


class TestPlotInput(unittest.TestCase):
    """apps/plot on damaged input: one line naming the problem, exit 2, no traceback."""
    CTEST_PREFIX = "plot"
    CTEST_LABELS = "sweep;faults"
    HEADER = "mode,runs_ok,runs_failed,status,failure,total_s_median,total_s_min,total_s_max\n"

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="plot-fault-")
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def usage_error(self, argv, line):
        """argv ends with exit 2 and exactly `line` on stderr."""
        done = run(argv)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertEqual(done.stderr.strip(), line)

    def test_non_numeric_cell(self):
        """A text cell in a numeric column names the file, line and column."""
        summary = self.dir / "summary.csv"
        summary.write_text(self.HEADER + "sync,1,0,ok,,0.5,0.4,0.6\nproxy,1,0,ok,,abc,0.3,0.3\n")
        self.usage_error([PLOT, "--summary", summary],
                         f"plot: error: '{summary}' line 3: column total_s_median holds 'abc', not a number")

    def test_binary_file(self):
        """A binary file is named as such."""
        summary = self.dir / "summary.csv"
        summary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
        self.usage_error([PLOT, "--summary", summary], f"plot: error: summary '{summary}' is a binary file, not text")

    def test_summary_too_large(self):
        """A file far larger than any summary (the wrong file, read whole, would fill memory): refused by its size
        before reading (a sparse file here)."""
        summary = self.dir / "summary.csv"
        with open(summary, "wb") as handle:
            handle.truncate(300 << 20)
        self.usage_error([PLOT, "--summary", summary], f"plot: error: summary '{summary}' is {300 << 20} bytes, more "
                                                       f"than such a file can be ({256 << 20} bytes at most)")

    def test_output_is_a_file(self):
        """--out naming a file."""
        summary = self.dir / "summary.csv"
        summary.write_text(self.HEADER + "sync,1,0,ok,,0.5,0.4,0.6\n")
        target = self.dir / "taken"
        target.write_text("x")
        self.usage_error([PLOT, "--summary", summary, "--out", target],
                         f"plot: error: --out '{target}' is a file, not a folder")

    def test_missing_summary(self):
        """A summary that does not exist."""
        self.usage_error([PLOT, "--summary", "/nonexistent/summary.csv"],
                         "plot: error: summary '/nonexistent/summary.csv' does not exist")


if __name__ == "__main__":
    unittest.main()
