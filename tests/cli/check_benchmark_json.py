#!/usr/bin/env python3
"""Runs a Google Benchmark program with --benchmark_format=json and --benchmark_out=OUT and checks that
its stdout and OUT both parse as JSON with at least one benchmark (no console text, no colour codes), and
that the context carries the run's provenance (docs/provenance.md: every prov_<field>, argv its command).
--expect NAME FIELD VALUE: the benchmark whose name starts with NAME has the text field FIELD (its label,
say) equal to VALUE, in which {usable_cpus} stands for the number of CPUs this process may run on.
usage: check_benchmark_json.py --out OUT [--expect NAME FIELD VALUE]... -- PROGRAM ARGS..."""
import os
import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "apps"))
from toolkit import provenance  # noqa: E402  (the schema's field names)


def main():
    """Runs the program and checks both outputs."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="file for --benchmark_out")
    parser.add_argument("--expect", nargs=3, action="append", default=[], metavar=("NAME", "FIELD", "VALUE"),
                        help="expect this field of the benchmark whose name starts with NAME")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- PROGRAM ARGS...")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    command += ["--benchmark_format=json", f"--benchmark_out={args.out}"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=280)
    print(done.stderr, file=sys.stderr)
    if done.returncode != 0:
        print(f"{command[0]} exited {done.returncode}")
        return 1
    for name, text in (("stdout", done.stdout), (args.out, None)):
        try:
            document = json.loads(text) if text is not None else json.load(open(args.out))
        except (OSError, ValueError) as error:
            print(f"{name} is not JSON: {error}\n{(text or '')[:400]}")
            return 1
        if not document.get("benchmarks"):
            print(f"{name}: no benchmarks in the JSON")
            return 1
        context = document.get("context", {})
        missing = [field for field in provenance.FIELDS if f"prov_{field}" not in context]
        if missing or json.loads(context["prov_argv"]) != command:
            print(f"{name}: context lacks provenance {missing} or its prov_argv {context.get('prov_argv')} is not "
                  f"the command line {command}")
            return 1
        print(f"{name}: JSON with {len(document['benchmarks'])} benchmark(s)")
    for prefix, field, value in args.expect:
        expected = value.format(usable_cpus=len(os.sched_getaffinity(0)))
        found = [b for b in document["benchmarks"] if b["name"].startswith(prefix)]
        got = found[0].get(field) if found else "no such benchmark"
        if got != expected:
            print(f"{prefix}: expected {field} '{expected}', got '{got}'")
            return 1
        print(f"{prefix}: {field} '{expected}'")
    return 0


if __name__ == "__main__":
    sys.exit(main())
