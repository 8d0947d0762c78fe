#!/usr/bin/env python3
"""A stand-in for the proxy drivers in the sweep tests: takes driver-style options, appends one JSON
Lines (or CSV) record to --output with deterministic times computed from the options, and fails like a
driver does on bad input (`fake_driver: error: ...`, exit 1). Launched through mpiexec, every rank runs
it; only rank 0 (PMI_RANK or OMPI_COMM_WORLD_RANK) writes, as the real drivers do. FAKE_DRIVER_LOG names a file to which rank 0
appends one line per invocation (so tests can count reruns); FAKE_DRIVER_SLEEP delays each run;
FAKE_DRIVER_STARTED names a file to which rank 0 appends a line when a run starts (before the delay);
Every record carries a provenance in the drivers' schema (docs/provenance.md: every field, in order; flat
prov_* columns in CSV); FAKE_DRIVER_PROVENANCE (a JSON object) replaces some of its fields."""
import argparse
import csv
import datetime
import json
import os
import platform
import socket
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "apps"))  # a copy elsewhere: PYTHONPATH
from toolkit import provenance  # noqa: E402  (the schema's field names and CSV spelling)

MODE_FACTOR = {"sync": 1.0, "async": 0.8, "mt": 0.9, "proxy": 0.6}


def own_provenance():
    """What a real driver records of itself, every field of the schema; FAKE_DRIVER_PROVENANCE's fields
    over it (a field the schema lacks is refused: the fake must follow the schema)."""
    prov = {"time_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "host": socket.gethostname(), "argv": sys.argv, "commit": "fake", "build_type": "",
            "build_flags": "", "compiler": f"Python {platform.python_version()}", "mpi": "none", "hwloc": "none",
            "blas": "none", "os": f"{platform.system()} {platform.release()} {platform.machine()}",
            "cpu_model": "unknown", "cores": os.cpu_count() or 0, "cpus_bound": len(os.sched_getaffinity(0)),
            "env": {k: os.environ[k] for k in sorted(os.environ) if k.startswith(("PROXY_", "OMP_"))},
            "load_1m": round(os.getloadavg()[0], 2), "placement": "unknown"}
    overrides = json.loads(os.environ.get("FAKE_DRIVER_PROVENANCE") or "{}")
    unknown = sorted(set(overrides) - set(provenance.FIELDS))
    if unknown:
        raise SystemExit(f"fake_driver: error: FAKE_DRIVER_PROVENANCE: no provenance field {', '.join(unknown)}")
    assert list(prov) == list(provenance.FIELDS), "the fake's provenance follows the schema's order"
    return dict(prov, **overrides)


def main():
    """Parse driver-style options and write one record."""
    parser = argparse.ArgumentParser(prog="fake_driver")
    parser.add_argument("--mode", default="sync")
    parser.add_argument("--n", type=int, default=32)
    parser.add_argument("--panel", type=int, default=0)
    parser.add_argument("--geometry", default="1x1x1")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--iters", type=int, default=1)
    parser.add_argument("--verify", action="store_true")
    parser.add_argument("--output")
    parser.add_argument("--show-config", action="store_true")  # run-overlap checks a benchmark's options with it
    args = parser.parse_args()
    if args.show_config:
        print("fake_driver: effective configuration (setting, value, source)")
        return 0
    if args.output is None:
        parser.error("the following arguments are required: --output")
    # MPICH's Hydra (and Slurm's PMI) set PMI_*, Open MPI sets OMPI_COMM_WORLD_*.
    rank = int(os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK", "0")))
    ranks = int(os.environ.get("PMI_SIZE", os.environ.get("OMPI_COMM_WORLD_SIZE", "1")))
    if args.mode not in MODE_FACTOR:
        if rank == 0:
            print(f"fake_driver: error: unknown mode '{args.mode}'", file=sys.stderr)
        return 1
    if rank == 0 and os.environ.get("FAKE_DRIVER_STARTED"):
        with open(os.environ["FAKE_DRIVER_STARTED"], "a") as started:
            started.write(f"{os.getpid()}\n")
    time.sleep(float(os.environ.get("FAKE_DRIVER_SLEEP", "0")))
    if rank != 0:
        return 0
    if os.environ.get("FAKE_DRIVER_LOG"):
        with open(os.environ["FAKE_DRIVER_LOG"], "a") as log:
            log.write(f"mode={args.mode} n={args.n} panel={args.panel} ranks={ranks}\n")
    total = args.n * 1e-3 * MODE_FACTOR[args.mode] * (1 + 8 / (args.panel + 8)) / ranks
    record = {"mode": args.mode, "n": args.n, "panel": args.panel, "geometry": args.geometry,
              "ranks": ranks, "threads_per_rank": args.threads, "iters": args.iters,
              "total_s": total, "compute_s": 0.6 * total, "comm_s": 0.3 * total, "wait_s": 0.1 * total,
              "verified": args.verify}
    if args.mode in ("sync", "async"):
        record["ideal_proxy_s"] = max((total - 0.3 * total) * 2 / 1, 0.3 * total) / 2
    record["provenance"] = own_provenance()
    if args.output.endswith(".csv"):
        record = dict({k: v for k, v in record.items() if k != "provenance"}, **provenance.flat(record["provenance"]))
        new = not os.path.exists(args.output)
        with open(args.output, "a", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(record))
            if new:
                writer.writeheader()
            writer.writerow(record)
    else:
        with open(args.output, "a") as handle:
            handle.write(json.dumps(record) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
