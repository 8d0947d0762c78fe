#!/usr/bin/env python3
"""check_installed_programs.py BUILD_DIR PREFIX NAME...: install everything into a scratch PREFIX, then check
that each NAME is an executable in PREFIX/bin and that the tools start there under their installed names
(`--help` exits 0)."""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys

# Installed tools that must answer --help without MPI (the drivers are run through the tests elsewhere).
HELP_CHECKED = ("proxy-sweep", "proxy-plot", "proxy-redblack3d-compare", "proxy-summa-compare-panels",
                "proxy-run-overlap")


def parse_args():
    """BUILD_DIR, PREFIX and the expected program names."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("prefix")
    parser.add_argument("names", nargs="+")
    return parser.parse_args()


def main():
    """Install, then check each expected program."""
    args = parse_args()
    shutil.rmtree(args.prefix, ignore_errors=True)
    subprocess.run(["cmake", "--install", args.build_dir, "--prefix", args.prefix], check=True,
                   stdout=subprocess.DEVNULL)
    bindir = pathlib.Path(args.prefix) / "bin"
    problems = []
    for name in args.names:
        program = bindir / name
        if not (program.is_file() and os.access(program, os.X_OK)):
            problems.append(f"{name}: not installed as an executable in {bindir}")
        elif name in HELP_CHECKED:
            done = subprocess.run([str(program), "--help"], capture_output=True, text=True, timeout=60)
            if done.returncode != 0:
                problems.append(f"{name} --help: exit {done.returncode}: {done.stderr.strip()[:200]}")
    unexpected = sorted(p.name for p in bindir.iterdir() if p.name not in args.names)
    if unexpected:
        problems.append(f"installed but not expected (add them here or give them a unique name): {unexpected}")
    for problem in problems:
        print(problem)
    if not problems:
        print(f"{len(args.names)} programs installed in {bindir}: {' '.join(args.names)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
