#!/usr/bin/env python3
"""The one command-line vocabulary, every program and every script (README "Command-line conventions"):
`--help` and `--version` exit 0, the version line is "NAME (proxy) X.Y.Z", `--bogus-flag` exits 2 with one
line "NAME: error: unknown option '--bogus-flag' ...", a grouped or unknown short flag (`-hv`, `-x`) with one line
"NAME: error: unexpected argument '-hv' (options start with --; see --help)", and `--show-config` (where a program
honours settings) exits 0 with "NAME: effective configuration (setting, value, source)" and the PROXY_* rows. --help on
a standard output that cannot be written (/dev/full) exits 1 with one line "NAME: error: cannot write to
standard output[: REASON]". A C++
program refuses PROXY_VERBOSE=yes (0 or 1, --verbose's environment name) with exit 2 and one line naming it.

The table below is the list; it must be complete: every executable the build makes under apps/ or bench/
(CMake writes them to executables.txt) and every executable file under apps/ and bench/ in the source tree
needs an entry, and every entry must exist, so a new program without one fails this test.
Prints one line per check and "N passed, N failed"; exit 1 when any check failed."""
import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

# Built programs (build/bin/FILE): FILE -> (the name they answer with, has --show-config). A C++ program's
# --show-config lists every PROXY_* variable of proxy/core/src/environment_variables.cpp.
BUILT = {
    "redblack3d": ("redblack3d", True),
    "summa": ("summa", True),
    "cg3d": ("cg3d", True),
    "heat2d": ("heat2d", True),
    "heat2d-tasks": ("heat2d-tasks", True),
    "heat2d-plain": ("heat2d-plain", True),
    "proxy-info": ("proxy-info", True),
    "calibrate": ("calibrate", True),
    "overlap": ("overlap", True),
    "redblack3d_bandwidth": ("redblack3d_bandwidth", True),
    "bench_summa_local_multiply": ("bench_summa_local_multiply", True),
    "bench_handoff": ("bench_handoff", True),
    "bench_plan_roundtrip": ("bench_plan_roundtrip", True),
    "bench_plan_features": ("bench_plan_features", True),
    "bench_team": ("bench_team", True),
    "bench_mpi_collectives": ("bench_mpi_collectives", True),
    "bench_node_allreduce": ("bench_node_allreduce", True),
    "proxy-mpiexec": ("proxy-mpiexec", False),  # written by cmake/ProxyLauncher.cmake, not a target
    "heat2d-c": ("heat2d-c", True),  # the C API's example (proxy_settings_show for its PROXY_* rows)
    "heat2d-fortran": ("heat2d-fortran", True),  # the Fortran module's example, likewise
}
# Entries of BUILT that a build may lack, and why.
BUILT_WHEN_FOUND = {"heat2d-fortran": "built only when CMake finds a Fortran compiler"}
# Scripts (source tree path) -> (the name they answer with, the variable its --show-config must show as
# set in the environment (the test sets PROXY_WAIT_POLICY=block and PROXY_SETUP_JOBS=1), or None).
SCRIPTS = {
    "apps/setup": ("apps/setup", "PROXY_SETUP_JOBS"),
    "apps/sweep": ("sweep", "PROXY_WAIT_POLICY"),
    "apps/plot": ("plot", None),  # reads a summary and draws: honours no setting
    "apps/redblack3d/compare": ("compare", "PROXY_WAIT_POLICY"),
    "apps/cg3d/compare": ("compare", "PROXY_WAIT_POLICY"),
    "apps/summa/compare-panels.py": ("compare-panels", "PROXY_WAIT_POLICY"),
    "bench/cluster-study": ("cluster-study", "PROXY_WAIT_POLICY"),
    "bench/emulated-cluster": ("emulated-cluster", "PROXY_WAIT_POLICY"),
    "bench/overlap/run-overlap": ("run-overlap", "PROXY_WAIT_POLICY"),
    "bench/reproduce": ("reproduce", "PROXY_WAIT_POLICY"),
}
# What a script's --show-config needs to pass the checks of a run (it answers only then; --help, --version and
# an unknown option are answered before): the programs of this build (its bin/ folder, BIN) and a driver.
SCRIPT_ARGUMENTS = {
    "apps/sweep": ["--driver", "BIN/redblack3d"],
    "apps/redblack3d/compare": ["--driver", "BIN/redblack3d"],
    "apps/cg3d/compare": ["--driver", "BIN/cg3d"],
    "apps/summa/compare-panels.py": ["--driver", "BIN/summa"],
    "bench/cluster-study": ["--build", "BIN/..", "--parts", "redblack3d,summa"],  # the parts every build has
}
# Scripts whose --show-config runs a program of the build (from PROXY_BIN_DIR, set to BIN) to check its options.
NEEDS_PROGRAM = {"bench/overlap/run-overlap": "overlap"}
# Executable files that are no command of their own, and why.
NOT_COMMANDS = {
    "apps/sweeps/thesis-pairing.sbatch": "a Slurm batch job (sbatch apps/sweeps/thesis-pairing.sbatch); its "
                                         "arguments go to apps/sweep, which is checked",
}
# Options every command line goes to someone else with: proxy-mpiexec passes whatever is not --help or
# --version to the MPI launcher, whose own errors apply.
UNKNOWN_OPTION_IS_ANOTHERS = {"proxy-mpiexec": "every other argument is the MPI launcher's"}

TIMEOUT = 120


def run(command, env=None, stdout=subprocess.PIPE):
    """(exit status, stdout, stderr) of a command; a hang is a failure, not a wait. stdout: where its
    standard output goes (captured by default; "" comes back when it goes elsewhere)."""
    try:
        done = subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=TIMEOUT,
                              stdin=subprocess.DEVNULL, env=env)
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {TIMEOUT} s"
    return done.returncode, done.stdout or "", done.stderr


class Checks:
    """Counts and prints each check's outcome."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def expect(self, ok, what, detail=""):
        """One check: 'ok WHAT' or 'FAILED WHAT: DETAIL'."""
        if ok:
            self.passed += 1
            print(f"ok      {what}")
        else:
            self.failed += 1
            print(f"FAILED  {what}: {detail}")


def describe(status, out, err):
    """The facts of a run for a failure message."""
    return f"exit {status}; stdout {out[-400:]!r}; stderr {err[-400:]!r}"


def check_benchmark_bounds(checks, label, command, name):
    """A Google Benchmark program's numeric flags at and beyond their documented bounds (its --help), and its
    output file. Google Benchmark itself loops for ever on --benchmark_min_time=inf and dies of
    std::length_error on --benchmark_repetitions=-1."""
    refusals = {
        "--benchmark_repetitions=0": "--benchmark_repetitions: expected an integer from 1 to 1000000, got '0'",
        "--benchmark_repetitions=1000001":
            "--benchmark_repetitions: expected an integer from 1 to 1000000, got '1000001'",
        "--benchmark_repetitions=0x2": "--benchmark_repetitions: expected an integer from 1 to 1000000, got '0x2'",
        "--benchmark_min_time=inf": "--benchmark_min_time: expected a finite number of seconds >= 0, got 'inf'",
        "--benchmark_min_time=-0.5": "--benchmark_min_time: expected a finite number of seconds >= 0, got '-0.5'",
        "--benchmark_min_warmup_time=nan":
            "--benchmark_min_warmup_time: expected a finite number of seconds >= 0, got 'nan'",
        # Google Benchmark waited for ever on a pipe and lost its output on /dev/full: files as the drivers'.
        "--benchmark_out=/dev/full": "--benchmark_out /dev/full: is not a regular file (a device, pipe or socket)",
        "--benchmark_out=/nonexistent-folder/x.json":
            "--benchmark_out /nonexistent-folder/x.json: directory '/nonexistent-folder': No such file or directory",
    }
    for flag, line in refusals.items():
        status, out, err = run(command + [flag])
        lines = [text for text in err.splitlines() if text.strip()]
        checks.expect(status == 2 and lines == [f"{name}: error: {line}"] and out == "",
                      f"{label} {flag} exits 2 with one line naming it", describe(status, out, err))
    accepted = ["--benchmark_repetitions=1", "--benchmark_repetitions=1000000", "--benchmark_min_time=0",
                "--benchmark_list_tests=true"]
    status, out, err = run(command + accepted)
    # A two-rank benchmark run as one process stops after the flags were checked, at its rank count.
    two_ranks = [text for text in err.splitlines() if text.strip()] == [f"{name}: error: run on 2 ranks (got 1)"]
    checks.expect((status == 0 and out.strip() != "") or (status == 1 and two_ranks),
                  f"{label} {' '.join(accepted)} is accepted", describe(status, out, err))


def check_command(checks, label, command, name, version, show_config):
    """--help, --version, --bogus-flag and --show-config of one command. show_config: None (it has none),
    or the variables its --show-config must list, the first of them as set in the environment."""
    status, help_text, err = run(command + ["--help"])
    checks.expect(status == 0 and help_text.strip() != "", f"{label} --help exits 0 with text",
                  describe(status, help_text, err))

    status, out, err = run(command + ["--version"])
    first = out.splitlines()[0] if out else ""
    checks.expect(status == 0 and first == f"{name} (proxy) {version}",
                  f"{label} --version says '{name} (proxy) {version}'", describe(status, out, err))

    if label in UNKNOWN_OPTION_IS_ANOTHERS:
        print(f"skip    {label} --bogus-flag: {UNKNOWN_OPTION_IS_ANOTHERS[label]}")
    else:
        status, out, err = run(command + ["--bogus-flag"])
        lines = [line for line in err.splitlines() if line.strip()]
        pattern = rf"{re.escape(name)}: error: unknown option '--bogus-flag'( \(.*\))?"
        checks.expect(status == 2 and len(lines) == 1 and re.fullmatch(pattern, lines[0]) and out == "",
                      f"{label} --bogus-flag exits 2 with one line naming it", describe(status, out, err))
        # Grouped short flags, and a short flag other than -h: refused alike in every program and tool (CLI11 took
        # "-hv" as -h -v and printed the help; argparse said "ignored explicit argument 'v'").
        for word in ("-hv", "-vh", "-x"):
            status, out, err = run(command + [word])
            lines = [line for line in err.splitlines() if line.strip()]
            expected = f"{name}: error: unexpected argument '{word}' (options start with --; see --help)"
            checks.expect(status == 2 and lines == [expected] and out == "",
                          f"{label} {word} exits 2 with '{expected}'", describe(status, out, err))

    # Text that cannot be written (here /dev/full) is a failure with one line, never exit 0 with it lost. (--help:
    # every program's texts go through the same exit check; tests/app_faults runs each driver on /dev/full.)
    lost = rf"{re.escape(name)}: error: cannot write to standard output(: .+)?"
    with open("/dev/full", "w") as full:
        status, out, err = run(command + ["--help"], stdout=full)
    lines = [line for line in err.splitlines() if line.strip()]
    checks.expect(status == 1 and len(lines) == 1 and re.fullmatch(lost, lines[0]),
                  f"{label} --help on /dev/full exits 1 with one line saying so", describe(status, out, err))

    if "Google Benchmark flags pass through" in help_text:
        check_benchmark_bounds(checks, label, command, name)

    if show_config is not None:
        status, out, err = run(command + ["--show-config"])
        lines = out.splitlines()
        listed = {line.split()[0] for line in lines[1:] if line.startswith("  ") and line.split()}
        ok = (status == 0 and lines[:1] == [f"{name}: effective configuration (setting, value, source)"]
              and any(re.fullmatch(rf"  {show_config[0]} +{os.environ[show_config[0]]} +environment.*", line)
                      for line in lines))
        missing = sorted(set(show_config) - listed)
        checks.expect(ok and not missing, f"{label} --show-config lists {', '.join(show_config)} with sources",
                      (f"missing {missing}; " if missing else "") + describe(status, out, err))
    if show_config is not None and "PROXY_VERBOSE" in show_config:
        status, out, err = run(command + ["--show-config"], env=dict(os.environ, PROXY_VERBOSE="yes"))
        lines = [line for line in err.splitlines() if line.strip()]
        expected = f"{name}: error: PROXY_VERBOSE='yes' is not an integer from 0 to 1"
        checks.expect(status == 2 and lines == [expected] and out == "",
                      f"{label} refuses PROXY_VERBOSE=yes with one line naming it", describe(status, out, err))


def executables_of_build(listing):
    """{'program': {file names}, 'test': {file names}} from the CMake-written executables.txt."""
    kinds = {"program": set(), "test": set()}
    for line in Path(listing).read_text().splitlines():
        if line.strip():
            kind, name = line.split(maxsplit=1)
            kinds[kind].add(name)
    return kinds


def executable_files(source):
    """Executable files under apps/ and bench/ of the source tree (relative paths)."""
    found = set()
    for top in ("apps", "bench"):
        for path in (source / top).rglob("*"):
            if path.is_file() and os.access(path, os.X_OK) and "__pycache__" not in path.parts:
                found.add(path.relative_to(source).as_posix())
    return found


def main():
    """Completeness first, then every command."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", required=True, type=Path, help="the source tree")
    parser.add_argument("--bin", required=True, type=Path, help="the build's bin/ folder")
    parser.add_argument("--executables", required=True, help="executables.txt written by tests/cli/CMakeLists.txt")
    parser.add_argument("--version", required=True, help="the project version")
    args = parser.parse_args()
    os.environ.update(PROXY_WAIT_POLICY="block", OMP_WAIT_POLICY="passive", OMP_NUM_THREADS="1", PROXY_SETUP_JOBS="1")
    os.environ["PROXY_BIN_DIR"] = str(args.bin)  # the tools' default programs: this build's (run-overlap's overlap)
    proxy_variables = ["PROXY_WAIT_POLICY"] + sorted(set(re.findall(
        r'\{"(PROXY_[A-Z_]+)"', (args.source / "proxy/core/src/environment_variables.cpp").read_text())))
    checks = Checks()

    built = executables_of_build(args.executables)["program"] | {"proxy-mpiexec"}
    for name in sorted(built - set(BUILT)):
        checks.expect(False, f"build program {name} has an entry in tests/cli/vocabulary.py", "add it to BUILT")
    for name in sorted(set(BUILT) - built - set(BUILT_WHEN_FOUND)):
        checks.expect(False, f"BUILT entry {name} is a program of this build", "no such executable target")
    scripts = executable_files(args.source)
    for path in sorted(scripts - set(SCRIPTS) - set(NOT_COMMANDS)):
        checks.expect(False, f"script {path} has an entry in tests/cli/vocabulary.py", "add it to SCRIPTS")
    for path in sorted((set(SCRIPTS) | set(NOT_COMMANDS)) - scripts):
        checks.expect(False, f"SCRIPTS entry {path} is an executable file", "not found or not executable")

    for file in sorted(built & set(BUILT)):
        name, show_config = BUILT[file]
        path = args.bin / file
        checks.expect(os.access(path, os.X_OK), f"{file} is built in {args.bin}", "missing")
        if os.access(path, os.X_OK):
            check_command(checks, file, [str(path)], name, args.version, proxy_variables if show_config else None)
    for script in sorted(scripts & set(SCRIPTS)):
        name, variable = SCRIPTS[script]
        if script in NEEDS_PROGRAM and not os.access(args.bin / NEEDS_PROGRAM[script], os.X_OK):
            print(f"skip    {script} --show-config: {NEEDS_PROGRAM[script]} is not built (it checks its options)")
            variable = None
        arguments = [word.replace("BIN", str(args.bin)) for word in SCRIPT_ARGUMENTS.get(script, [])]
        check_command(checks, script, [str(args.source / script), *arguments], name, args.version,
                      None if variable is None else [variable])
        text = (args.source / script).read_text()
        if "python" in text.splitlines()[0]:  # no input may end a Python tool in a traceback
            checks.expect("cli.run_main(" in text, f"{script} runs its main under cli.run_main",
                          "an exception it did not foresee would print a traceback")

    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
