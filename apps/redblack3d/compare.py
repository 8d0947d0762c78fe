#!/usr/bin/env python3
"""compare.py: run RedBlack3D in sync, async, mt and proxy modes on the same problem and print one table
side by side with the thesis's ideal-proxy prediction (Lau 2003, IV.B and Tables IV.4/IV.8).

A "node" has --cores cores. Single-tier modes (sync, async) run one rank per core (nodes x cores ranks);
multi-tier modes run one rank per node: mt with --cores OpenMP threads, proxy with --cores - 1 compute
threads plus the proxy thread on the last core. The ideal-proxy column is
T_p = max((T_s - C_t) * p / (p - 1), C_t) from each single-tier run, with p = --cores; the last lines put
the measured proxy time next to it. With --nodes > 1 on one machine the "nodes" share it (oversubscribed).

Each mode runs --repeat times; the run with the median total time is shown. Standard library only.
"""
import argparse
import csv
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

MODES = ("sync", "async", "mt", "proxy")
HEADER = ("Mode", "Ranks x thr", "Total(s)", "Compute(s)", "Comm(s)", "Wait(s)", "Comm %",
          "Iter(ms)", "Comp(ms)", "Comm(ms)", "Ideal proxy(s)")


class UsageError(Exception):
    """Bad command line: printed as `compare.py: error: ...`, exit 1."""


def default_driver():
    """The driver next to a conventional build directory, relative to the repository root."""
    root = Path(__file__).resolve().parents[2]
    return str(root / "build" / "bin" / "redblack3d")


def parse_args(argv):
    """Parse and validate the command line."""
    parser = argparse.ArgumentParser(
        prog="compare.py", description=__doc__.split("\n\n")[0],
        epilog="example: apps/redblack3d/compare.py --driver build/bin/redblack3d --n 256 --iters 20")
    parser.add_argument("--driver", default=default_driver(), help="the redblack3d executable (default: %(default)s)")
    parser.add_argument("--n", default="256", help="global grid, N or NX,NY,NZ (default: %(default)s)")
    parser.add_argument("--iters", type=int, default=20, help="iterations per run (default: %(default)s)")
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1,
                        help="cores per node p (default: this machine's, %(default)s)")
    parser.add_argument("--nodes", type=int, default=1, help="nodes to run (default: %(default)s)")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated subset (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per mode; the median is shown (default: 1)")
    parser.add_argument("--mpiexec", default="mpiexec", help="launcher command (default: %(default)s)")
    parser.add_argument("--verify", action="store_true", help="pass --verify (serial check; small grids only)")
    parser.add_argument("--output", help="also write the shown records to this CSV file")
    args = parser.parse_args(argv)
    for name in ("iters", "cores", "nodes", "repeat"):
        if getattr(args, name) < 1:
            raise UsageError(f"--{name} must be at least 1, got {getattr(args, name)}")
    modes = args.modes.split(",")
    for mode in modes:
        if mode not in MODES:
            raise UsageError(f"--modes: unknown mode '{mode}' (expected {', '.join(MODES)})")
    args.modes = modes
    if "proxy" in modes and args.cores < 2:
        raise UsageError(f"--cores {args.cores}: proxy mode needs at least 2 cores per node (one for the proxy)")
    if not os.access(args.driver, os.X_OK):
        raise UsageError(f"--driver '{args.driver}' is not an executable (build it first: ninja -C build redblack3d)")
    return args


def command_for(args, mode, record_path):
    """The mpiexec command line that runs one mode."""
    if mode in ("sync", "async"):
        ranks, threads = args.nodes * args.cores, 1
    else:
        ranks, threads = args.nodes, args.cores if mode == "mt" else args.cores - 1
    command = shlex.split(args.mpiexec) + ["-n", str(ranks), args.driver, "--mode", mode, "--n", args.n,
                                           "--iters", str(args.iters), "--node-width", str(args.cores),
                                           "--output", str(record_path)]
    if mode in ("mt", "proxy"):
        command += ["--threads", str(threads)]
    if args.verify:
        command.append("--verify")
    return command


def run_mode(args, mode, workdir):
    """Run one mode --repeat times; return the record with the median total time."""
    records = []
    for rep in range(args.repeat):
        record_path = Path(workdir) / f"{mode}-{rep}.jsonl"
        command = command_for(args, mode, record_path)
        print("+ " + shlex.join(command), file=sys.stderr, flush=True)
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{mode} run failed (exit {result.returncode}):\n{result.stdout}")
        for line in result.stdout.splitlines():
            if "warning" in line:
                print(f"  {mode}: {line}", file=sys.stderr)
        records.append(json.loads(record_path.read_text().splitlines()[-1]))
    records.sort(key=lambda r: r["total_s"])
    return records[len(records) // 2]


def fmt(value, spec):
    """Format a number, or '-' for a missing one (JSON null)."""
    return "-" if value is None else format(value, spec)


def table_lines(records):
    """The side-by-side table, one line per mode, like the driver's own table."""
    widths = (6, 12, 9, 10, 9, 9, 7, 9, 9, 9, 14)
    lines = ["  ".join(h.rjust(w) if i else h.ljust(w) for i, (h, w) in enumerate(zip(HEADER, widths)))]
    for r in records:
        per_iter = 1000.0 / r["iters"]
        cells = (r["mode"], f'{r["ranks"]} x {r["threads_per_rank"]}', fmt(r["total_s"], ".4f"),
                 fmt(r["compute_s"], ".4f"), fmt(r["comm_s"], ".4f"), fmt(r["wait_s"], ".4f"),
                 fmt(r["comm_percent"], ".1f") + "%", fmt(r["total_s"] * per_iter, ".2f"),
                 fmt(r["compute_s"] * per_iter, ".2f"), fmt(r["comm_s"] * per_iter, ".2f"),
                 fmt(r["ideal_proxy_s"], ".4f"))
        lines.append("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))))
    return lines


def model_lines(records):
    """Measured proxy time next to the ideal-proxy prediction of each single-tier run."""
    by_mode = {r["mode"]: r for r in records}
    lines = []
    proxy = by_mode.get("proxy")
    for mode in ("sync", "async"):
        r = by_mode.get(mode)
        if r is None or r["ideal_proxy_s"] is None:
            continue
        line = f"ideal proxy from {mode}: {r['ideal_proxy_s']:.4f} s (T_s {r['total_s']:.4f} s, C_t {r['comm_s']:.4f} s, p {r['node_width']})"
        if proxy is not None:
            line += f"; measured proxy {proxy['total_s']:.4f} s = {proxy['total_s'] / r['ideal_proxy_s']:.2f} x ideal"
            line += f", {r['total_s'] / proxy['total_s']:.2f} x faster than {mode}"
        lines.append(line)
    return lines


def write_csv(path, records):
    """Write the shown records (one per mode) to a CSV file."""
    fields = list(records[0].keys())
    with open(path, "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=fields)
        writer.writeheader()
        for r in records:
            writer.writerow(r)


def main(argv):
    """Run every mode, print the table and the model comparison."""
    try:
        args = parse_args(argv)
    except UsageError as error:
        print(f"compare.py: error: {error}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="redblack3d-compare-") as workdir:
        try:
            records = [run_mode(args, mode, workdir) for mode in args.modes]
        except RuntimeError as error:
            print(f"compare.py: error: {error}", file=sys.stderr)
            return 1
    first = records[0]
    print(f"RedBlack3D {first['nx']}x{first['ny']}x{first['nz']}, {args.iters} iterations, "
          f"{args.nodes} node(s) x {args.cores} cores; omega {first['omega']}")
    for line in table_lines(records) + model_lines(records):
        print(line)
    placements = {r["mode"]: r["proxy_placement"] for r in records if r["mode"] == "proxy"}
    if placements.get("proxy") == "shared":
        print("note: the proxy shared a core with compute work (too few cores per rank)")
    if args.verify:
        print("verify: " + ", ".join(f"{r['mode']} {'identical' if r['verified'] else 'DIFFERS'}" for r in records))
    if args.output:
        write_csv(args.output, records)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
