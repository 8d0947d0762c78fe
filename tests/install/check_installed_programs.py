#!/usr/bin/env python3
"""check_installed_programs.py BUILD_DIR PREFIX VERSION NAME...: install the programs component (the drivers,
the tools and proxy-mpiexec) and the libraries into a scratch PREFIX, then
check that each NAME is an executable in PREFIX/bin and works there under its installed name: `--help` exits 0,
`--version` exits 0 and its first line is `<program> (proxy) VERSION`; then runs proxy-redblack3d-compare,
proxy-cg3d-compare and proxy-summa-compare-panels from PREFIX/bin on a tiny problem with no --driver and no
--mpiexec, so that they must find the installed driver and proxy-mpiexec beside them (docs/install.md lists
the programs)."""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys

# Tiny runs of the comparison tools from the prefix: (tool, options, driver it must find beside it, a line
# of its table that must be printed).
TOOL_RUNS = (("proxy-redblack3d-compare", ["--n", "8", "--iters", "1", "--modes", "sync,proxy", "--cores", "2"],
              "redblack3d", r"(?m)^proxy +1 x 2 "),
             ("proxy-cg3d-compare", ["--n", "8", "--modes", "sync,proxy", "--variants", "classic", "--cores", "2"],
              "proxy-cg3d", r"(?m)^proxy +classic +1 x 2 "),
             ("proxy-summa-compare-panels", ["--size", "32", "--panels", "8", "--modes", "sync", "--reps", "1",
                                             "--single-tier-ranks", "2"], "proxy-summa", r"(?m)^ +8 \| +[0-9.]+ \( *[0-9.]+\)\*$"))


def parse_args():
    """BUILD_DIR, PREFIX and the expected program names."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("prefix")
    parser.add_argument("version")
    parser.add_argument("names", nargs="+")
    return parser.parse_args()


def check_help_and_version(program, version, environment):
    """--help exits 0; --version exits 0 with first line `<name> (proxy) VERSION`. The problems found."""
    problems = []
    for option in ("--help", "--version"):
        done = subprocess.run([str(program), option], capture_output=True, text=True, timeout=120,
                              env=environment, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            problems.append(f"{program.name} {option}: exit {done.returncode}: {done.stderr.strip()[:300]}")
        elif option == "--version":
            first = (done.stdout.splitlines() or [""])[0]
            if not re.fullmatch(rf"\S+ \(proxy\) {re.escape(version)}", first):
                problems.append(f"{program.name} --version: first line '{first}', expected '<program> (proxy) {version}'")
    return problems


def check_tool_run(bindir, tool, options, driver, table_line, environment):
    """Run an installed comparison tool with no --driver: it must run bindir/driver through bindir's
    proxy-mpiexec, exit 0 and print its table. The problems found."""
    done = subprocess.run([str(bindir / tool)] + options, capture_output=True, text=True, timeout=600,
                          env=environment, stdin=subprocess.DEVNULL)
    expected_command = f"+ {bindir / 'proxy-mpiexec'} -n "
    if done.returncode != 0:
        return [f"{tool} {' '.join(options)}: exit {done.returncode}:\n{done.stdout}{done.stderr}"]
    if expected_command not in done.stderr or f" {bindir / driver} " not in done.stderr:
        return [f"{tool}: did not run {bindir / driver} through {bindir / 'proxy-mpiexec'}:\n{done.stderr}"]
    if not re.search(table_line, done.stdout):
        return [f"{tool}: no line matching '{table_line}' in its output:\n{done.stdout}"]
    print(f"{tool} from {bindir}: ran {driver} beside it")
    return []


def check_launcher_guard(bindir):
    """The guard an Open MPI build's proxy-mpiexec preloads, where the installed wrapper looks for it."""
    wrapper = (bindir / "proxy-mpiexec").read_text() if (bindir / "proxy-mpiexec").is_file() else ""
    found = re.search(r'/([^"/]*(?:/[^"/]+)*/proxy-mpiexec-guard\.so)"', wrapper)
    if not found:
        return []  # not an Open MPI build: no guard
    guard = (bindir / found.group(1)).resolve()
    return [] if guard.is_file() else [f"proxy-mpiexec: its guard {guard} was not installed"]


def main():
    """Install, then check each expected program."""
    args = parse_args()
    shutil.rmtree(args.prefix, ignore_errors=True)
    # The programs component, then the libraries a shared build's programs load (a static build's need none).
    for component in ("programs", "Unspecified"):
        subprocess.run(["cmake", "--install", args.build_dir, "--prefix", args.prefix, "--component", component],
                       check=True, stdout=subprocess.DEVNULL)
    bindir = pathlib.Path(args.prefix) / "bin"
    # As a user would run them: no build's folder in the environment (apps/toolkit/programs.py).
    environment = {k: v for k, v in os.environ.items() if k not in ("PROXY_BIN_DIR", "MPIEXEC")}
    problems = []
    for name in args.names:
        program = bindir / name
        if not (program.is_file() and os.access(program, os.X_OK)):
            problems.append(f"{name}: not installed as an executable in {bindir}")
            continue
        problems += check_help_and_version(program, args.version, environment)
    for tool, options, driver, table_line in TOOL_RUNS:
        if tool in args.names:
            problems += check_tool_run(bindir, tool, options, driver, table_line, environment)
    problems += check_launcher_guard(bindir)
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
