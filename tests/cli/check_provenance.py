#!/usr/bin/env python3
"""Runs redblack3d and summa once with a CSV and once with a JSON Lines --output and checks that every
record carries every provenance field of docs/provenance.md: nested under "provenance" in JSON, flat prov_*
columns in CSV (argv and env as JSON text there). Exit 0 when all hold, 1 with the reasons."""
import argparse
import csv
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

FIELDS = ("time_utc", "host", "argv", "commit", "build_type", "build_flags", "compiler", "mpi", "hwloc", "blas",
          "os", "cpu_model", "cores", "cpus_bound", "env", "load_1m", "placement")
RUNS = {"redblack3d": ["--n", "8", "--iters", "2"],
        "summa": ["--size", "32", "--panel", "8", "--reps", "1"]}


def check_provenance(program, provenance, command, problems):
    """Appends to problems what is missing or wrong in one record's provenance (a dict of fields);
    `command` is the program's command line (after the launcher)."""
    if list(provenance) != list(FIELDS):
        problems.append(f"{program}: provenance fields {list(provenance)}, expected {list(FIELDS)}")
    if provenance.get("argv") != command:
        problems.append(f"{program}: argv {provenance.get('argv')!r}, the command line was {command!r}")
    for field in ("time_utc", "host", "commit", "build_type", "compiler", "mpi", "hwloc", "blas", "os", "cpu_model",
                  "cores", "cpus_bound", "placement"):
        if not provenance.get(field):
            problems.append(f"{program}: provenance {field} is empty")
    if not str(provenance.get("time_utc", "")).endswith("Z"):
        problems.append(f"{program}: time_utc {provenance.get('time_utc')!r} is not ISO 8601 UTC")
    env = provenance.get("env")
    if not isinstance(env, dict) or env.get("PROXY_WAIT_POLICY") != os.environ.get("PROXY_WAIT_POLICY"):
        problems.append(f"{program}: env {env!r} lacks PROXY_WAIT_POLICY={os.environ.get('PROXY_WAIT_POLICY')}")
    blas = str(provenance.get("blas"))
    if program == "redblack3d" and blas != "none":
        problems.append(f"redblack3d links no BLAS, provenance says {blas!r}")
    if program == "summa" and ("blas" not in blas.lower() or blas == "none"):
        problems.append(f"summa: blas {blas!r} does not name a BLAS library")


def csv_record(path):
    """The provenance of the one CSV record in path, rebuilt from its prov_* columns."""
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    if len(rows) != 1:
        raise ValueError(f"{path}: {len(rows)} records, expected 1")
    provenance = {key[len("prov_"):]: value for key, value in rows[0].items() if key.startswith("prov_")}
    for field in ("argv", "env", "cores", "cpus_bound"):
        provenance[field] = json.loads(provenance.get(field) or "null")
    return provenance


def json_record(path):
    """The provenance object of the one JSON Lines record in path."""
    lines = Path(path).read_text().splitlines()
    if len(lines) != 1:
        raise ValueError(f"{path}: {len(lines)} records, expected 1")
    return json.loads(lines[0]).get("provenance", {})


def main():
    """Runs the drivers and checks their records."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--folder", required=True, type=Path, help="where the records are written")
    parser.add_argument("--mpiexec", required=True, help="launcher command line (split with shlex)")
    parser.add_argument("--redblack3d", required=True)
    parser.add_argument("--summa", required=True)
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    problems = []
    for program, options in RUNS.items():
        for extension, read in ((".csv", csv_record), (".json", json_record)):
            output = args.folder / f"{program}{extension}"
            output.unlink(missing_ok=True)
            own = [getattr(args, program)] + options + ["--output", str(output)]
            done = subprocess.run(shlex.split(args.mpiexec) + own, capture_output=True, text=True, timeout=240)
            if done.returncode != 0:
                problems.append(f"{program}: exit {done.returncode}: {done.stderr.strip()}")
                continue
            check_provenance(f"{program}{extension}", read(output), own, problems)
    for problem in problems:
        print(problem)
    print("provenance: ok" if not problems else f"provenance: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
