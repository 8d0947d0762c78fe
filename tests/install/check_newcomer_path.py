#!/usr/bin/env python3
"""check_newcomer_path.py BUILD_DIR WORK_DIR --readme README.md --context FILE: a newcomer's path as one test
(issue 23, "Done means"): install everything into WORK_DIR/prefix; build README's API example from the README's
own text with CMake and with pkg-config and run it (check_readme_api.py's steps); run `--help` of every program
installed in prefix/bin; run a small sweep of the installed redblack3d with the installed proxy-sweep (its
mpiexec found beside the driver) and draw its breakdown and model with the installed proxy-plot.

As a user would run them: without PROXY_BIN_DIR or MPIEXEC. proxy-plot needs matplotlib (the python3 on PATH,
else /usr/bin/python3); when neither has it, the rest is checked, the plot's own message is checked, and the
test exits 77 (CTest: skipped) saying so: it never passes without drawing."""
import argparse
import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import check_readme_api as readme

SKIPPED = 77


def parse_args():
    """BUILD_DIR, WORK_DIR and the README files."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("work_dir")
    parser.add_argument("--readme", required=True)
    parser.add_argument("--context", required=True, help="the header that declares what the snippet uses")
    return parser.parse_args()


def readme_example(prefix, work, args, environment):
    """README's API example, built with CMake (find_package) and with pkg-config from the prefix, run on one
    rank through the installed proxy-mpiexec."""
    blocks = readme.readme_blocks(args.readme)
    source = work / "app"
    source.mkdir(parents=True)
    shutil.copy(args.context, source / Path(args.context).name)
    (source / "app.cpp").write_text(readme.app_source(blocks["cpp"], args.context))
    (source / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.25)\nproject(app LANGUAGES CXX)\n"
                                           + blocks["cmake"])
    mpiexec = str(prefix / "bin" / "proxy-mpiexec")
    readme.run(["cmake", "-S", source, "-B", work / "cmake-build", f"-DCMAKE_PREFIX_PATH={prefix}"], env=environment)
    readme.run(["cmake", "--build", work / "cmake-build"], env=environment)
    readme.check_runs(work / "cmake-build" / "app", mpiexec, "CMake (find_package)", environment)
    with_pkgconfig = readme.with_pkg_config_path(prefix, environment)
    for line in blocks["sh"].splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            readme.run(line, shell=True, cwd=source, env=with_pkgconfig, executable="/bin/bash")
    with_pkgconfig["LD_LIBRARY_PATH"] = readme.library_path(prefix)
    readme.check_runs(source / "app", mpiexec, "pkg-config proxyrt", with_pkgconfig)


def every_help(bindir, environment):
    """`--help` of every installed program exits 0 and prints something; returns how many ran."""
    programs = sorted(p for p in bindir.iterdir() if p.is_file() and os.access(p, os.X_OK))
    if len(programs) < 10:
        sys.exit(f"only {len(programs)} programs in {bindir}: {[p.name for p in programs]}")
    for program in programs:
        done = subprocess.run([str(program), "--help"], capture_output=True, text=True, timeout=120,
                              env=environment, stdin=subprocess.DEVNULL)
        if done.returncode != 0 or not done.stdout.strip():
            sys.exit(f"{program.name} --help: exit {done.returncode}\n{done.stdout}{done.stderr}")
    print(f"--help: {len(programs)} installed programs: {' '.join(p.name for p in programs)}")
    return len(programs)


def sweep(bindir, out, environment):
    """A small sweep of the installed redblack3d by the installed proxy-sweep; returns the summary rows."""
    readme.run([bindir / "proxy-sweep", "--driver", bindir / "redblack3d", "--ranks", "2", "--param", "mode",
                "sync,proxy", "--param", "n", "8", "--param", "iters", "2", "--reps", "2", "--out", out],
               env=environment)
    with open(out / "summary.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    if [(r["mode"], r["status"], r["runs_ok"]) for r in rows] != [("sync", "ok", "2"), ("proxy", "ok", "2")]:
        sys.exit(f"the sweep's summary is not two points of 2 runs each: {rows}")
    if not all(r.get("ideal_proxy_s_median") for r in rows if r["mode"] == "sync"):
        sys.exit("the sync point has no ideal_proxy_s_median: the model figure would be empty")
    print(f"sweep from {bindir}: {len(rows)} points, 2 runs each, in {out}")
    return rows


def has_matplotlib(python):
    """Whether `python` exists and imports matplotlib."""
    if not shutil.which(python):
        return False
    return subprocess.run([python, "-c", "import matplotlib"], capture_output=True).returncode == 0


def plot(bindir, summary, figures, environment):
    """The installed proxy-plot draws the breakdown and the model as PNG files; SKIPPED only when neither
    python3 on PATH nor /usr/bin/python3 has matplotlib and plot says exactly that."""
    done = subprocess.run([str(bindir / "proxy-plot"), "--summary", str(summary), "--out", str(figures),
                           "--kind", "breakdown,model"], capture_output=True, text=True, timeout=300, env=environment)
    if done.returncode == 1 and "plot: error: matplotlib is not installed" in done.stderr:
        pythons = ("python3", "/usr/bin/python3")
        if any(has_matplotlib(python) for python in pythons):
            sys.exit(f"proxy-plot says matplotlib is missing, but one of {pythons} has it:\n{done.stderr}")
        return done.stderr.strip()
    if done.returncode != 0:
        sys.exit(f"proxy-plot: exit {done.returncode}\n{done.stdout}{done.stderr}")
    for kind in ("breakdown", "model"):
        path = figures / f"{kind}.png"
        if not path.is_file() or path.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
            sys.exit(f"proxy-plot exited 0 but {path} is not a PNG file\n{done.stdout}{done.stderr}")
    print(f"plot from {bindir}: {figures}/breakdown.png, {figures}/model.png")
    return None


def main():
    """Install, then walk the newcomer's path; exit 77 only when plotting was impossible."""
    args = parse_args()
    work = Path(args.work_dir)
    shutil.rmtree(work, ignore_errors=True)
    prefix = work / "prefix"
    readme.run(["cmake", "--install", args.build_dir, "--prefix", prefix])
    environment = {k: v for k, v in os.environ.items() if k not in ("PROXY_BIN_DIR", "MPIEXEC")}
    readme_example(prefix, work, args, environment)
    bindir = prefix / "bin"
    every_help(bindir, environment)
    sweep(bindir, work / "sweep", environment)
    skipped = plot(bindir, work / "sweep", work / "figures", environment)
    if skipped:
        print(f"SKIPPED the plot step: neither python3 nor /usr/bin/python3 has matplotlib ({skipped}); "
              f"everything before it passed")
        return SKIPPED
    print("newcomer path: install, README example (CMake, pkg-config), every --help, sweep and plot: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
