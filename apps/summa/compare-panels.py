#!/usr/bin/env python3
"""Panel-size comparison for SUMMA: runs the summa driver for every mode and panel width at one size and
prints one table (total seconds and GFLOP/s per mode and panel, best panel per mode marked with '*').

Single-tier modes (sync, async) run one rank per core; multi-tier modes (mt, proxy) one rank per node,
as in the thesis (IV.D). Records of every run can be kept (--output FILE.csv or FILE.json, JSON Lines) and
plotted (--plot, needs matplotlib, e.g. /usr/bin/python3). The launcher is --mpiexec, else $MPIEXEC, else
proxy-mpiexec beside the driver (written by the build), else mpiexec; or srun (--launcher srun, the default
inside a Slurm allocation), which gets each mode's step from the tool: sync and async single-tier-ranks
tasks of 1 CPU, mt and proxy multi-tier-ranks tasks (one per node) of single-tier/multi-tier CPUs each,
bound to cores, with the PMI of --srun-mpi (else $SLURM_MPI_TYPE, else the one the driver's MPI needs).
Exit status: 0 ok, 1 a run failed, 2 bad usage, 3 a verification failed.

Example:
  apps/summa/compare-panels.py --size 1536 --panels 32,64,128,256,512 --reps 3 --output panels.csv
"""
import csv
import importlib.util
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent  # toolkit/ sits beside apps/sweep, one level up, or in share/proxy
sys.path[:0] = [str(p) for p in (_HERE, _HERE.parent, _HERE.parent / "share" / "proxy") if (p / "toolkit").is_dir()][:1]
from toolkit import cli, figures, launcher, programs  # noqa: E402  (after the path is set)

MODES = ("sync", "async", "mt", "proxy")


def parse_args(argv):
    """Command-line options; every default documented in --help."""
    parser = cli.Parser(prog="compare-panels", environment=cli.LAUNCH_ENVIRONMENT, description=__doc__)
    parser.add_argument("--driver", default=programs.default_program(__file__, "summa", "proxy-summa"),
                        help="the summa executable (default: $PROXY_BIN_DIR/summa, else proxy-summa beside this "
                             "tool when installed, else build/bin/summa of its source tree: %(default)s)")
    parser.add_argument("--launcher", dest="launcher_kind", choices=("auto", "mpiexec", "srun"), default="auto",
                        help="auto (default): srun inside a Slurm allocation (SLURM_JOB_ID set) unless --mpiexec "
                             "is given, else mpiexec")
    parser.add_argument("--mpiexec", metavar="CMD", help="launcher command line (default: $MPIEXEC, else "
                                                          "proxy-mpiexec beside the driver, else mpiexec)")
    parser.add_argument("--srun-mpi", metavar="TYPE",
                        help="under srun, the PMI (--mpi=TYPE; default $SLURM_MPI_TYPE, else what the driver's "
                             "MPI needs: MPICH pmi2, Open MPI pmix)")
    parser.add_argument("--timeout", default="600",
                        help="seconds before a run counts as failed, 1 to 1000000 (default: %(default)s)")
    parser.add_argument("--size", default="1536", help="m = n = k, K/M/G suffixes (default: %(default)s)")
    parser.add_argument("--panels", default="16,32,64,128,256,512",
                        help="comma-separated panel widths (default: %(default)s)")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated modes (default: %(default)s)")
    parser.add_argument("--single-tier-ranks", default=str(os.cpu_count() or 1),
                        help="ranks for sync and async: one per core, 1 to 16777216 (default: %(default)s)")
    parser.add_argument("--multi-tier-ranks", default="1",
                        help="ranks for mt and proxy: one per node, 1 to 16777216 (default: %(default)s)")
    parser.add_argument("--threads", default="0",
                        help="compute threads per rank in mt and proxy, 0 to 4096; 0 = one per compute core "
                             "(default: 0)")
    parser.add_argument("--reps", default="3", help="repetitions per run, 1 to 1000000 (default: %(default)s)")
    parser.add_argument("--verify", action="store_true", help="pass --verify: check every run's C (untimed)")
    parser.add_argument("--output", help="write every run's record to FILE.csv or FILE.json (JSON Lines)")
    parser.add_argument("--plot", help="save total time vs panel width per mode to this image "
                        f"({cli.image_formats_text()})")
    return parser.parse_args(argv, check=check_options)


def check_options(args):
    """Every option checked and normalised, as a run and --show-config take them (a UsageError names the bad
    value); the driver last, so that a bad value of any other option is reported as such wherever it is.
    Launches nothing (ldd for the driver's MPI under srun, sinfo outside an allocation); matplotlib for --plot
    is looked for by main, as it may run the tool again under the system Python."""
    args.size = cli.size(args.size, "--size", maximum=(1 << 31) - 1)  # summa --size's bound
    args.panels = cli.unique(cli.size(p, "--panels", maximum=1 << 30)  # summa --panel's bound
                             for p in cli.split_list(args.panels, "--panels"))
    for name, maximum in (("single_tier_ranks", cli.MAX_RANKS), ("multi_tier_ranks", cli.MAX_RANKS),
                          ("reps", cli.MAX_REPS), ("timeout", cli.MAX_SECONDS)):
        setattr(args, name, cli.positive_int(getattr(args, name), "--" + name.replace("_", "-"), maximum))
    args.threads = cli.integer(args.threads, "--threads", 0, cli.MAX_THREADS)
    args.output_format = cli.record_format(args.output) if args.output else None
    if args.plot:
        cli.check_image_output(args.plot)
    args.launcher_kind = launcher.choose(args.launcher_kind, args.mpiexec)
    if not args.panels:
        raise cli.UsageError("--panels: no panel width given")
    args.modes = cli.unique(cli.split_list(args.modes, "--modes"))
    for mode in args.modes:
        if mode not in MODES:
            raise cli.UsageError(f"--modes: unknown mode '{mode}' (expected {', '.join(MODES)})")
    if args.launcher_kind == "srun":
        if args.single_tier_ranks % args.multi_tier_ranks:
            raise cli.UsageError(f"--single-tier-ranks {args.single_tier_ranks} is not a multiple of "
                                 f"--multi-tier-ranks {args.multi_tier_ranks} (one multi-tier rank per node "
                                 f"holds the node's cores)")
        args.srun_mpi, _ = launcher.srun_mpi(args.srun_mpi, args.driver)
        capacity = launcher.slurm_capacity()
        for mode in args.modes:
            ranks, cpus = geometry(args, mode)
            launcher.check_srun_fits(f"mode {mode}", ranks, cpus, args.multi_tier_ranks, capacity,
                                     "--single-tier-ranks/--multi-tier-ranks")
        args.launcher = ["srun"]
    else:
        args.launcher, _ = launcher.resolve(args.mpiexec, args.driver)
    if not programs.executable(args.driver):
        raise cli.UsageError(f"--driver '{args.driver}' is not an executable "
                             f"({programs.missing_program_hint('summa_driver')})")
    return args


SYSTEM_PYTHON = "/usr/bin/python3"


def require_matplotlib():
    """--plot needs matplotlib: checked before any run (as apps/plot does, the system python that has it
    takes over, with a note); without it anywhere, one line and exit 1."""
    if importlib.util.find_spec("matplotlib") is not None:
        return
    if os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON) and os.access(SYSTEM_PYTHON, os.X_OK):
        if subprocess.run([SYSTEM_PYTHON, "-c", "import matplotlib"], capture_output=True).returncode == 0:
            print(f"compare-panels: note: matplotlib is missing for {sys.executable}; using {SYSTEM_PYTHON}",
                  file=sys.stderr)
            os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])
    fail(f"--plot needs matplotlib, installed neither for {sys.executable} nor for {SYSTEM_PYTHON} "
         f"(install it with '{sys.executable} -m pip install matplotlib')")


def geometry(args, mode):
    """(ranks, CPUs per rank) of a mode: single-tier one rank per core, multi-tier one rank per node holding
    the node's cores (single-tier ranks / multi-tier ranks)."""
    if mode in ("mt", "proxy"):
        return args.multi_tier_ranks, args.single_tier_ranks // args.multi_tier_ranks
    return args.single_tier_ranks, 1


def run_command(args, command):
    """Run one launch in its own session, bounded by --timeout (the whole group is stopped then)."""
    try:
        process = launcher.start_launch(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as error:
        fail(f"cannot run '{command[0]}': {error.strerror}")
    try:
        stdout, stderr = process.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        launcher.stop_group(process)
        fail(f"'{shlex.join(command)}' timed out after {args.timeout} s")
    except BaseException:
        launcher.stop_group(process)
        raise
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def run_one(args, mode, panel, record_path):
    """Runs the driver once; its --output appends one JSON line to record_path. Returns that record."""
    multi_tier = mode in ("mt", "proxy")
    ranks, cpus = geometry(args, mode)
    if args.launcher_kind == "srun":
        prefix = launcher.srun_prefix(ranks, cpus, args.multi_tier_ranks, args.srun_mpi)
    else:
        prefix = list(args.launcher) + ["-n", str(ranks)]
    command = prefix + [args.driver, "--size", str(args.size), "--panel", str(panel),
                        "--mode", mode, "--reps", str(args.reps), "--output", record_path]
    if multi_tier:
        command += ["--threads", str(args.threads)]
    if args.verify:
        command += ["--verify"]
    print("+ " + shlex.join(str(word) for word in command), file=sys.stderr, flush=True)  # as compare does
    result = run_command(args, command)
    if result.returncode != 0:
        fail(f"'{shlex.join(command)}' failed ({result.returncode}):\n{result.stdout}{result.stderr}",
             result.returncode if result.returncode in (cli.EXIT_VERIFICATION, cli.EXIT_USAGE) else cli.EXIT_FAILURE)
    try:
        with open(record_path) as records:
            return json.loads(records.readlines()[-1])
    except (OSError, IndexError, ValueError):
        fail(f"'{shlex.join(command)}' exited 0 but wrote no record (is '{args.launcher[0]}' an mpiexec?)")


def fail(message, status=cli.EXIT_FAILURE):
    """A failed run: one message, exit 1 (3 when the driver's verification failed)."""
    print(f"compare-panels: error: {message}", file=sys.stderr)
    sys.exit(status)


def print_table(args, records):
    """One line per panel width, one column per mode: total seconds (GFLOP/s); '*' marks each mode's best."""
    best = {}
    for mode in args.modes:
        runs = [r for r in records if r["mode"] == mode]
        best[mode] = min(runs, key=lambda r: r["total_s"])["panel"]
    print(f"SUMMA panel comparison, m = n = k = {args.size}, {cli.counted(args.reps, 'rep')}; total s (GFLOP/s), "
          "* = best")
    print(f"{'panel':>6} | " + " | ".join(f"{m:>18}" for m in args.modes))
    for panel in args.panels:
        cells = []
        for mode in args.modes:
            r = next(r for r in records if r["mode"] == mode and r["panel"] == panel)
            mark = "*" if best[mode] == panel else " "
            cells.append(f"{r['total_s']:8.4f} ({r['gflops']:6.1f}){mark}")
        print(f"{panel:>6} | " + " | ".join(cells))
    layout = {m: next(r for r in records if r["mode"] == m) for m in args.modes}
    print("ranks x threads: " + ", ".join(f"{m} {r['ranks']}x{r['threads_per_rank']} (grid {r['grid']})"
                                          for m, r in layout.items()))


def write_records(path, output_format, records):
    """All records, in the driver's field order: CSV, or JSON Lines."""
    if output_format == "json":
        with open(path, "w") as out:
            out.writelines(json.dumps(r) + "\n" for r in records)
        return
    with open(path, "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(records[0].keys()))
        writer.writeheader()
        writer.writerows({k: ("true" if v else "false") if isinstance(v, bool) else ("" if v is None else v)
                          for k, v in r.items()} for r in records)


def plot(path, args, records):
    """Total time against panel width, one line per mode (log-2 x axis)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        sys.exit(f"compare-panels: --plot needs matplotlib ({error}); run it with /usr/bin/python3")
    figure, axes = plt.subplots(figsize=(7.5, 5))
    for index, mode in enumerate(args.modes):
        runs = sorted((r for r in records if r["mode"] == mode), key=lambda r: r["panel"])
        axes.plot([r["panel"] for r in runs], [r["total_s"] for r in runs], label=mode, **figures.style(index))
    axes.set_xscale("log", base=2)
    axes.set_xlabel("panel width (log 2 scale)")
    axes.set_ylabel(f"total time (s), mean of {cli.counted(args.reps, 'repetition')}")
    axes.legend(fontsize="small", title="mode", title_fontsize="x-small")
    axes.grid(alpha=0.3)
    provs = [r.get("provenance") or {} for r in records]
    # One run per point, its time the driver's mean over --reps: no spread is recorded, so no error bars
    # (apps/sweep runs repetitions as separate runs and apps/plot draws their min..max).
    figures.finish(figure, axes, f"SUMMA, m = n = k = {args.size}", f"points: one run each, the mean of its "
                   f"{cli.counted(args.reps, 'repetition')} (summa --reps): no error bars",
                   cli.unique(p["host"] for p in provs if p.get("host")),
                   cli.unique(p["time_utc"][:10] for p in provs if p.get("time_utc")))
    figure.savefig(path, dpi=120)


def main(argv):
    """Run every mode and panel width, print the table, write and plot what was asked for."""
    args = parse_args(argv)
    if args.plot:
        require_matplotlib()
    records = []
    with cli.scratch_folder("compare-panels") as scratch:
        record_path = os.path.join(scratch, "runs.jsonl")
        total = len(args.modes) * len(args.panels)
        for mode in args.modes:
            for panel in args.panels:
                print(f"[{len(records) + 1}/{total}] {mode} panel {panel}", file=sys.stderr, flush=True)
                records.append(run_one(args, mode, panel, record_path))
    print_table(args, records)
    if args.output:
        try:
            write_records(args.output, args.output_format, records)
        except OSError as error:
            fail(f"cannot write --output '{args.output}': {error.strerror}")
    if args.plot:
        try:
            plot(args.plot, args, records)
        except OSError as error:  # checked before the runs; the disk may have filled since
            fail(f"cannot write --plot '{args.plot}': {error.strerror}")
    return 0


if __name__ == "__main__":
    sys.exit(cli.run_main("compare-panels", main, sys.argv[1:]))
