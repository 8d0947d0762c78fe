#!/usr/bin/env python3
"""One provenance (docs/provenance.md): the same run's provenance is identical wherever it appears.
Sweeps redblack3d once with JSON Lines and once with CSV records and checks that the driver's record, the
sweep's state log and both summaries carry the very same object (JSON) and the very same strings (CSV, the
driver's own cells); runs a Google Benchmark program and checks its context carries the same strings for
everything that does not change between runs of one build on one machine, and its own command line. The
new fields are checked against the build and the machine. Exit 0 when all hold, 1 with the reasons."""
import argparse
import csv
import json
import platform
import shlex
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "apps"))
from toolkit import provenance  # noqa: E402  (the schema's field names and flat spelling)

# docs/provenance.md, written out here so that a change to the schema has to change this test too.
FIELDS = ["time_utc", "host", "argv", "commit", "build_type", "build_flags", "compiler", "mpi", "hwloc", "blas",
          "os", "cpu_model", "cores", "cpus_bound", "env", "load_1m", "placement"]
# The same for every program of one build run on one machine.
BUILD_AND_MACHINE = ["host", "commit", "build_type", "build_flags", "compiler", "mpi", "hwloc", "os", "cpu_model",
                     "cores"]


def read_jsonl(path):
    """The objects of a JSON Lines file."""
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def read_csv(path):
    """The rows of a CSV file as dicts."""
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def prov_cells(row):
    """The prov_* columns of a CSV row or a benchmark context, in their order."""
    return {key: value for key, value in row.items() if key.startswith("prov_")}


def sweep(args, out, record_format, problems):
    """Runs one 2-rank redblack3d point through apps/sweep; True when it ran."""
    command = [args.sweep, "--driver", args.redblack3d, "--mpiexec", args.mpiexec, "--ranks", "2", "--param",
               "mode", "sync", "--param", "n", "8", "--param", "iters", "2", "--reps", "1", "--record-format",
               record_format, "--fresh", "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240)
    if done.returncode != 0:
        problems.append(f"sweep ({record_format}) exited {done.returncode}: {done.stderr.strip()[-600:]}")
    return done.returncode == 0


def check_values(own, args, problems):
    """The fields against what the build and the machine say."""
    if list(own) != FIELDS:
        problems.append(f"record provenance fields {list(own)}, expected {FIELDS}")
    if own.get("argv", [None])[0] != args.redblack3d or own["argv"][own["argv"].index("--n") + 1] != "8":
        problems.append(f"argv {own.get('argv')} is not the driver's command line")
    if own.get("build_type") != args.build_type:
        problems.append(f"build_type {own.get('build_type')!r}, CMake says {args.build_type!r}")
    if not str(own.get("hwloc")).startswith(f"{args.hwloc_version} (API "):
        problems.append(f"hwloc {own.get('hwloc')!r}, pkg-config says {args.hwloc_version}")
    uname = platform.uname()
    if not str(own.get("os")).startswith(f"{uname.system} {uname.release} {uname.machine}"):
        problems.append(f"os {own.get('os')!r} does not start with uname's {uname.system} {uname.release} {uname.machine}")
    if not str(own.get("mpi")).startswith(("MPICH ", "Open MPI ")):
        problems.append(f"mpi {own.get('mpi')!r} names neither MPICH nor Open MPI")
    models = [line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
              if line.startswith("model name")] if Path("/proc/cpuinfo").exists() else []
    if models and own.get("cpu_model") != models[0]:
        problems.append(f"cpu_model {own.get('cpu_model')!r}, /proc/cpuinfo says {models[0]!r}")
    if not (isinstance(own.get("cores"), int) and own["cores"] >= 1 and isinstance(own.get("cpus_bound"), int)
            and own["cpus_bound"] >= 1):
        problems.append(f"cores {own.get('cores')!r}, cpus_bound {own.get('cpus_bound')!r}: expected counts >= 1")
    if own.get("blas") != "none":
        problems.append(f"redblack3d links no BLAS, provenance says {own.get('blas')!r}")


def check_json_sweep(out, args, problems):
    """Record, state entry and summary.json hold one object; summary.csv its flat strings. Returns it."""
    own = read_jsonl(next((out / "raw").glob("*.json")))[0]["provenance"]
    check_values(own, args, problems)
    state = read_jsonl(out / "state.jsonl")[0]["provenance"]
    summary = read_jsonl(out / "summary.json")[0]["provenance"]
    for name, other in (("state.jsonl", state), ("summary.json", summary)):
        if other != own:
            problems.append(f"{name} provenance differs from the record's:\n  {other}\n  {own}")
    cells = prov_cells(read_csv(out / "summary.csv")[0])
    if cells != provenance.flat(own):
        problems.append(f"summary.csv prov_* {cells} are not the record's fields flattened {provenance.flat(own)}")
    return own


def check_csv_sweep(out, problems):
    """The driver's CSV cells reach summary.csv unchanged and read back into summary.json's object; the
    Python flattening of that object gives the driver's strings. Returns the driver's cells."""
    record = prov_cells(read_csv(next((out / "raw").glob("*.csv")))[0])
    if list(record) != [f"prov_{field}" for field in FIELDS]:
        problems.append(f"CSV record columns {list(record)}, expected prov_ + {FIELDS}")
    summary_cells = prov_cells(read_csv(out / "summary.csv")[0])
    if summary_cells != record:
        problems.append(f"summary.csv prov_* {summary_cells} differ from the record's {record}")
    summary = read_jsonl(out / "summary.json")[0]["provenance"]
    if provenance.flat(summary) != record:
        problems.append(f"summary.json provenance flattened {provenance.flat(summary)} differs from the CSV record {record}")
    if json.loads(record["prov_argv"])[0] != summary["argv"][0]:
        problems.append("argv of the CSV record does not read back")
    return record


def check_benchmark(args, folder, record, problems):
    """The benchmark's context: every field as prov_<field>, its own command line, the build's and the
    machine's strings identical to the driver's."""
    out = folder / "benchmark.json"
    command = [args.benchmark, "--n", "16", "--benchmark_min_time=0.01", "--benchmark_format=json",
               f"--benchmark_out={out}"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240)
    if done.returncode != 0:
        problems.append(f"{shlex.join(command)} exited {done.returncode}: {done.stderr.strip()[-600:]}")
        return
    context = json.loads(out.read_text())["context"]
    cells = prov_cells(context)
    if sorted(cells) != sorted(f"prov_{field}" for field in FIELDS):  # the context is a sorted map
        problems.append(f"benchmark context keys {list(cells)}, expected prov_ + {FIELDS}")
        return
    if json.loads(cells["prov_argv"]) != command:
        problems.append(f"benchmark prov_argv {cells['prov_argv']} is not its command line {command}")
    for field in BUILD_AND_MACHINE:
        if cells[f"prov_{field}"] != record[f"prov_{field}"]:
            problems.append(f"benchmark prov_{field} {cells[f'prov_{field}']!r} differs from the driver's "
                            f"{record[f'prov_{field}']!r}")
    if provenance.flat(provenance.from_flat(cells)) != cells:
        problems.append(f"benchmark context does not read back into the object: {cells}")


def main():
    """Runs the sweeps and the benchmark and compares."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--folder", required=True, type=Path, help="where the runs write")
    parser.add_argument("--mpiexec", required=True, help="the launcher for apps/sweep (its --mpiexec)")
    parser.add_argument("--sweep", required=True, help="apps/sweep")
    parser.add_argument("--redblack3d", required=True)
    parser.add_argument("--benchmark", required=True, help="redblack3d_bandwidth (Google Benchmark)")
    parser.add_argument("--build-type", required=True, help="CMAKE_BUILD_TYPE")
    parser.add_argument("--hwloc-version", required=True, help="the hwloc version pkg-config found")
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    problems = []
    if sweep(args, args.folder / "json", "json", problems):
        own = check_json_sweep(args.folder / "json", args, problems)
        print(f"record, state and summaries of one run agree: {json.dumps(own)}")
    if sweep(args, args.folder / "csv", "csv", problems):
        record = check_csv_sweep(args.folder / "csv", problems)
        check_benchmark(args, args.folder, record, problems)
    for problem in problems:
        print(problem)
    print("provenance identity: ok" if not problems else f"provenance identity: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
