#!/usr/bin/env python3
"""Panel-size comparison for SUMMA: runs build/bin/summa for every mode and panel width at one size and
prints one table (total seconds and GFLOP/s per mode and panel, best panel per mode marked with '*').

Single-tier modes (sync, async) run one rank per core; multi-tier modes (mt, proxy) one rank per node,
as in the thesis (IV.D). Records of every run can be kept as CSV (--output) and plotted (--plot, needs
matplotlib, e.g. /usr/bin/python3).

Example:
  apps/summa/compare-panels.py --size 1536 --panels 32,64,128,256,512 --reps 3 --output panels.csv
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

MODES = ("sync", "async", "mt", "proxy")


def parse_args(argv):
    """Command-line options; every default documented in --help."""
    here = os.path.dirname(os.path.abspath(__file__))
    default_driver = os.path.normpath(os.path.join(here, "..", "..", "build", "bin", "summa"))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--driver", default=default_driver, help="the summa executable (default: %(default)s)")
    parser.add_argument("--mpiexec", default="mpiexec", help="MPI launcher (default: %(default)s)")
    parser.add_argument("--size", type=int, default=1536, help="m = n = k (default: %(default)s)")
    parser.add_argument("--panels", default="16,32,64,128,256,512",
                        help="comma-separated panel widths (default: %(default)s)")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated modes (default: %(default)s)")
    parser.add_argument("--single-tier-ranks", type=int, default=os.cpu_count() or 1,
                        help="ranks for sync and async: one per core (default: %(default)s)")
    parser.add_argument("--multi-tier-ranks", type=int, default=1,
                        help="ranks for mt and proxy: one per node (default: %(default)s)")
    parser.add_argument("--threads", type=int, default=0,
                        help="compute threads per rank in mt and proxy; 0 = one per compute core (default: 0)")
    parser.add_argument("--reps", type=int, default=3, help="repetitions per run (default: %(default)s)")
    parser.add_argument("--verify", action="store_true", help="pass --verify: check every run's C (untimed)")
    parser.add_argument("--output", help="write every run's record to this CSV file")
    parser.add_argument("--plot", help="save total time vs panel width per mode to this image")
    args = parser.parse_args(argv)
    try:
        args.panels = [int(p) for p in args.panels.split(",")]
    except ValueError:
        parser.error(f"--panels: expected comma-separated integers, got '{args.panels}'")
    if any(p < 1 for p in args.panels):
        parser.error(f"--panels: widths must be at least 1, got '{args.panels}'")
    args.modes = args.modes.split(",")
    for mode in args.modes:
        if mode not in MODES:
            parser.error(f"--modes: unknown mode '{mode}' (expected {', '.join(MODES)})")
    if not os.access(args.driver, os.X_OK):
        parser.error(f"--driver: '{args.driver}' is not an executable (build it with ninja summa_driver)")
    return args


def run_one(args, mode, panel, record_path):
    """Runs the driver once; its --output appends one JSON line to record_path. Returns that record."""
    multi_tier = mode in ("mt", "proxy")
    ranks = args.multi_tier_ranks if multi_tier else args.single_tier_ranks
    command = [args.mpiexec, "-n", str(ranks), args.driver, "--size", str(args.size), "--panel", str(panel),
               "--mode", mode, "--reps", str(args.reps), "--output", record_path]
    if multi_tier:
        command += ["--threads", str(args.threads)]
    if args.verify:
        command += ["--verify"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"compare-panels: '{' '.join(command)}' failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    with open(record_path) as records:
        return json.loads(records.readlines()[-1])


def print_table(args, records):
    """One line per panel width, one column per mode: total seconds (GFLOP/s); '*' marks each mode's best."""
    best = {}
    for mode in args.modes:
        runs = [r for r in records if r["mode"] == mode]
        best[mode] = min(runs, key=lambda r: r["total_s"])["panel"]
    print(f"SUMMA panel comparison, m = n = k = {args.size}, {args.reps} reps; total s (GFLOP/s), * = best")
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


def write_csv(path, records):
    """All records, in the driver's field order."""
    with open(path, "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(records[0].keys()))
        writer.writeheader()
        writer.writerows(records)


def plot(path, args, records):
    """Total time against panel width, one line per mode (log-2 x axis)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        sys.exit(f"compare-panels: --plot needs matplotlib ({error}); run it with /usr/bin/python3")
    figure, axes = plt.subplots(figsize=(6, 4))
    for mode in args.modes:
        runs = sorted((r for r in records if r["mode"] == mode), key=lambda r: r["panel"])
        axes.plot([r["panel"] for r in runs], [r["total_s"] for r in runs], marker="o", label=mode)
    axes.set_xscale("log", base=2)
    axes.set_xlabel("panel width")
    axes.set_ylabel("total time (s)")
    axes.set_title(f"SUMMA, m = n = k = {args.size}")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)


def main(argv):
    args = parse_args(argv)
    records = []
    with tempfile.TemporaryDirectory() as scratch:
        record_path = os.path.join(scratch, "runs.jsonl")
        total = len(args.modes) * len(args.panels)
        for mode in args.modes:
            for panel in args.panels:
                print(f"[{len(records) + 1}/{total}] {mode} panel {panel}", file=sys.stderr, flush=True)
                records.append(run_one(args, mode, panel, record_path))
    print_table(args, records)
    if args.output:
        write_csv(args.output, records)
    if args.plot:
        plot(args.plot, args, records)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
