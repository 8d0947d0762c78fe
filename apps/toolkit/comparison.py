"""What the mode-comparison tools share (apps/redblack3d/compare, apps/cg3d/compare): their options (driver,
grid, --nodes/--cores, modes, repetitions, launcher, timeout, progress strategy, --verify, --output), each
mode's geometry and launch command (mpiexec -n RANKS, or srun with the mode's tasks and CPUs), running one
launch in its own process group with a timeout and reading the record the driver wrote with --output, the
rounds that alternate the runs, and the table and record writing. A tool adds its problem's options and
what its table shows; how a run is launched is the same in every tool.

Geometry (thesis IV.D): a node has --cores cores; single-tier modes (sync, async) run one rank per core
(nodes x cores ranks), multi-tier modes (mt, proxy) one rank per node with --cores threads, except a proxy
that keeps a core for itself (--progress dedicated or polling): --cores - 1 compute threads then."""
import argparse
import csv
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from . import cli, launcher, programs, provenance
from .cli import UsageError

MODES = ("sync", "async", "mt", "proxy")
PROGRESS = ("auto", "dedicated", "cooperative", "polling")
KEEPS_A_CORE = ("dedicated", "polling")  # the progress strategies whose proxy takes a core from compute


class RunError(Exception):
    """A run failed: printed as `PROGRAM: error: ...`; exit 1, 3 when the driver's verification failed, 2 when
    the driver refused the arguments it was given (a value beyond its bounds: the user's to change)."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


def add_driver_option(parser, tool_file, build_name, installed_name):
    """--driver: the program a tool (its __file__) compares, found as apps/toolkit/programs.py says."""
    parser.add_argument("--driver", default=programs.default_program(tool_file, build_name, installed_name),
                        help=f"the {build_name} executable (default: $PROXY_BIN_DIR/{build_name}, else the one "
                             f"beside this tool when installed, else build/bin/{build_name} of its source tree: "
                             "%(default)s)")


def add_grid_option(parser, default):
    """--n: the global grid, N or NX,NY,NZ (checked by grid())."""
    parser.add_argument("--n", default=default,
                        help="global grid, N or NX,NY,NZ; K/M/G suffixes (default: %(default)s)")


def add_run_options(parser, cell, output_help):
    """The options of how every run is launched and repeated, and where its records go; `cell` names what is
    run --reps times (a mode, or a mode and variant), output_help says which records --output gets."""
    parser.add_argument("--cores", default=str(os.cpu_count() or 1),
                        help="cores per node p, 1 to 4096 (default: this machine's, %(default)s)")
    parser.add_argument("--nodes", default="1", help="nodes to run, 1 to 16777216 (default: %(default)s)")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated subset (default: %(default)s)")
    parser.add_argument("--reps", default="1",
                        help=f"runs per {cell}, in rounds (1 to 1000000); the median is shown (default: 1)")
    parser.add_argument("--repeat", dest="reps", help=argparse.SUPPRESS)  # the old spelling
    parser.add_argument("--launcher", dest="launcher_kind", choices=("auto", "mpiexec", "srun"), default="auto",
                        help="auto (default): srun inside a Slurm allocation (SLURM_JOB_ID set) unless --mpiexec "
                             "is given, else mpiexec")
    parser.add_argument("--mpiexec", metavar="CMD",
                        help="launcher command line (default: $MPIEXEC, else proxy-mpiexec beside the driver, "
                             "else mpiexec)")
    parser.add_argument("--srun-mpi", metavar="TYPE",
                        help="under srun, the PMI (--mpi=TYPE; default $SLURM_MPI_TYPE, else what the driver's "
                             "MPI needs: MPICH pmi2, Open MPI pmix)")
    parser.add_argument("--timeout", default="600",
                        help="seconds before a run counts as failed, 1 to 1000000 (default: %(default)s)")
    parser.add_argument("--progress", default="auto",
                        help="proxy mode's progress strategy, passed as PROXY_PROGRESS: auto, dedicated, "
                             "cooperative or polling (default: %(default)s)")
    parser.add_argument("--verify", action="store_true", help="pass --verify (serial check; small grids only)")
    parser.add_argument("--output", help=output_help)


def grid(text):
    """--n as the drivers take it: 'N' or 'NX,NY,NZ', each a size with an optional K/M/G suffix."""
    sizes = [str(cli.size(v, "--n", maximum=1 << 20)) for v in cli.split_list(text, "--n")]  # the drivers' bound
    if len(sizes) not in (1, 3):
        raise UsageError(f"--n: expected N or NX,NY,NZ, got '{','.join(sizes)}'")
    return ",".join(sizes)


def subset(text, allowed, option, noun):
    """The comma-separated items of an option, each one of `allowed`, repeats dropped: '--modes: unknown
    mode 'fast' (expected sync, async, mt, proxy)' otherwise."""
    items = cli.unique(cli.split_list(text, option))
    for item in items:
        if item not in allowed:
            raise UsageError(f"{option}: unknown {noun} '{item}' (expected {', '.join(allowed)})")
    return items


def check_run_options(args, driver_target):
    """Validates what add_run_options added and resolves the launcher; last of a tool's checks, so that a bad
    value of any other option is reported as such wherever the driver is. driver_target: the CMake target
    that builds the driver (named when it is missing). It launches nothing (ldd for the driver's MPI under
    srun, sinfo outside an allocation), so --show-config runs it too: a missing driver is refused there, as in
    a run."""
    for name, maximum in (("cores", cli.MAX_THREADS), ("nodes", cli.MAX_RANKS), ("reps", cli.MAX_REPS),
                          ("timeout", cli.MAX_SECONDS)):
        setattr(args, name, cli.positive_int(getattr(args, name), f"--{name}", maximum))
    args.modes = subset(args.modes, MODES, "--modes", "mode")
    if args.progress not in PROGRESS:
        raise UsageError(f"--progress: unknown strategy '{args.progress}' (expected {', '.join(PROGRESS)})")
    args.output_format = cli.record_format(args.output) if args.output else None
    args.launcher_kind = launcher.choose(args.launcher_kind, args.mpiexec)
    if not programs.executable(args.driver):
        raise UsageError(f"--driver '{args.driver}' is not an executable ({programs.missing_program_hint(driver_target)})")
    if args.launcher_kind == "srun":
        args.srun_mpi, _ = launcher.srun_mpi(args.srun_mpi, args.driver)
        capacity = launcher.slurm_capacity()
        for mode in args.modes:
            ranks, _, cpus = geometry(args, mode)
            launcher.check_srun_fits(f"mode {mode}", ranks, cpus, args.nodes, capacity)
        args.launcher = ["srun"]
    else:
        args.launcher, _ = launcher.resolve(args.mpiexec, args.driver)
    return args


def geometry(args, mode):
    """(ranks, compute threads per rank, CPUs per rank) of a mode: single-tier one rank per core, multi-tier
    one rank per node holding the node's cores."""
    if mode in ("sync", "async"):
        return args.nodes * args.cores, 1, 1
    # A dedicated proxy takes a core from compute (with --cores 1 it shares the only one); otherwise the
    # compute threads ask for every core and the runtime decides.
    spare = mode == "proxy" and args.progress in KEEPS_A_CORE
    return args.nodes, max(args.cores - 1, 1) if spare else args.cores, args.cores


def command(args, mode, arguments, record_path):
    """The launch command line of one run: mpiexec -n RANKS, or srun with the mode's geometry, then
    `driver --mode MODE ARGUMENTS --output RECORD`, --threads in mt and proxy, --verify if asked."""
    ranks, threads, cpus = geometry(args, mode)
    if args.launcher_kind == "srun":
        prefix = launcher.srun_prefix(ranks, cpus, args.nodes, args.srun_mpi)
    else:
        prefix = list(args.launcher) + ["-n", str(ranks)]
    words = prefix + [args.driver, "--mode", mode] + list(arguments) + ["--output", str(record_path)]
    if mode in ("mt", "proxy"):
        words += ["--threads", str(threads)]
    if args.verify:
        words.append("--verify")
    return words


def last_error_line(output):
    """The line that says why a run failed: its last `PROGRAM: error: ...` line (a launcher may print its
    own lines after the driver's), else its last non-blank line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if ": error: " in line]
    return (errors or lines or ["(no output)"])[-1]


def run_mode(args, mode, label, arguments, record_path):
    """Run one mode once (command()), its output echoed only when it fails or warns; return the record the
    driver wrote. label names the run in messages ('sync', 'proxy pipelined')."""
    words = command(args, mode, arguments, record_path)
    print("+ " + shlex.join(words), file=sys.stderr, flush=True)
    env = dict(os.environ, PROXY_PROGRESS=args.progress) if mode == "proxy" else None
    try:
        # Own session, marked: on a timeout the launcher and every rank it started are stopped together.
        process = launcher.start_launch(words, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except OSError as error:
        raise RunError(f"cannot run '{words[0]}': {error.strerror}", cli.EXIT_FAILURE) from None
    try:
        output, _ = process.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired as error:
        launcher.stop_group(process)
        partial = error.output.decode(errors="replace") if isinstance(error.output, bytes) else (error.output or "")
        raise RunError(f"{label} run timed out after {args.timeout} s:\n{partial}", cli.EXIT_FAILURE) from None
    except BaseException:
        launcher.stop_group(process)
        raise
    if process.returncode != 0:
        passed_on = (cli.EXIT_VERIFICATION, cli.EXIT_USAGE)
        status = process.returncode if process.returncode in passed_on else cli.EXIT_FAILURE
        raise RunError(f"{label} run failed (exit {process.returncode}): {last_error_line(output)}\n{output}", status)
    for line in output.splitlines():
        if "warning" in line or "notice" in line:
            print(f"  {label}: {line}", file=sys.stderr)
    lines = Path(record_path).read_text().splitlines() if Path(record_path).exists() else []
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        raise RunError(f"{label} run exited 0 but wrote no record to {record_path} (is the launcher "
                       f"'{shlex.join(args.launcher)}' an mpiexec?)", cli.EXIT_FAILURE) from None


def in_rounds(reps, cells, run_cell):
    """Run every cell `reps` times in rounds, each cell once per round in the order given, so that a drift in
    the machine's load falls on every cell alike, not on whichever runs last. run_cell(cell, rep) returns a
    record; the result maps each cell to its records in run order."""
    runs = {cell: [] for cell in cells}
    for rep in range(reps):
        for cell in cells:
            runs[cell].append(run_cell(cell, rep))
    return runs


def median_run(records):
    """The run with the median total time (of an even count, the slower of the middle two): a real run, so
    that its columns belong together."""
    ordered = sorted(records, key=lambda r: r["total_s"])
    return ordered[len(ordered) // 2]


def times_faster(ratio):
    """'1.23 x faster' for a ratio of times (the other's / this one's), '1.23 x slower' below 1."""
    return f"{ratio:.2f} x faster" if ratio >= 1 else f"{1 / ratio:.2f} x slower"


def fmt(value, spec):
    """Format a number, or '-' for a missing one (JSON null)."""
    return "-" if value is None else format(value, spec)


def table_lines(header, widths, rows):
    """A table as the drivers print theirs: the first column left-aligned, the others right-aligned."""
    def line(cells):
        return "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    return [line(header)] + [line(row) for row in rows]


def write_records(path, output_format, records):
    """Write the records as the drivers spell them: JSON Lines, or CSV (true/false, empty for a missing
    number, the provenance as prov_* columns)."""
    if output_format == "json":
        with open(path, "w") as out:
            out.writelines(json.dumps(r) + "\n" for r in records)
        return
    rows = []
    for record in records:
        fields, origin = provenance.split(record)
        row = {k: ("true" if v else "false") if isinstance(v, bool) else ("" if v is None else v)
               for k, v in fields.items()}
        rows.append({**row, **(provenance.flat(origin) if origin is not None else {})})
    with open(path, "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)


def main(program, argv, parse_args, run_all, show):
    """A comparison tool's main: parse_args(argv) (cli.Parser with the tool's check: a bad value is one line,
    exit 2, and --show-config exits 0 once every value has passed), run_all(args, workdir) -> the records to
    write (a RunError: its message and status), show(args, records) prints the table, and --output gets the
    records. Returns the exit status."""
    args = parse_args(argv)
    with cli.scratch_folder(program) as workdir:
        try:
            records = run_all(args, workdir)
        except RunError as error:
            print(f"{program}: error: {error}", file=sys.stderr)
            return error.status
    show(args, records)
    if args.output:
        try:
            write_records(args.output, args.output_format, records)
        except OSError as error:
            print(f"{program}: error: cannot write --output '{args.output}': {error.strerror}", file=sys.stderr)
            return cli.EXIT_FAILURE
    return cli.EXIT_OK
