#!/usr/bin/env python3
"""doc_quotes.py --source DIR --bin DIR --mpiexec CMD: the lines the docs quote from the programs are the
programs' lines. Every `PROGRAM: error|warning|notice: ...` quoted in backticks in README.md, docs/*.md and
bench/RESULTS.md (line breaks inside the quote read as spaces) must be one of:
- RUN: reproduced here by running the program as given; its output must hold the quote as a whole line and
  the exit status must be the one given;
- ELSEWHERE: a line that needs a fault, Slurm or a race to appear; the file named (the test that asserts it,
  or the source that composes it) must contain the fragment given, and the quote must contain it too;
- elided: the quote says `...` itself (a form, not a line).
A new quote that is none of these fails the test, naming it: add it to RUN (or ELSEWHERE with its test)."""
import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

QUOTE = re.compile(r"`([^`]*)`", re.S)
PROGRAM_LINE = re.compile(r"^[\w.-]+: (error|warning|notice): ")

# quote -> (launch: "mpi N" or "serial", argv with {bin}/{source}, extra environment, exit status)
RUN = {
    "redblack3d: error: PROXY_WAIT_TIMEOUT='1e20' is not a number of seconds from 0.01 to 1e6":
        ("mpi 2", ["{bin}/redblack3d", "--n", "8", "--iters", "1"], {"PROXY_WAIT_TIMEOUT": "1e20"}, 2),
    "redblack3d: error: --geometry 2x2x2 needs 8 ranks, but 4 are running":
        ("mpi 4", ["{bin}/redblack3d", "--geometry", "2x2x2", "--n", "8"], {}, 2),
    "sweep: error: unknown option '--bogus' (see --help)":
        ("serial", ["{source}/apps/sweep", "--bogus"], {}, 2),
    "redblack3d: error: option --iters given twice":
        ("mpi 2", ["{bin}/redblack3d", "--iters", "1", "--iters", "2"], {}, 2),
    # Two cores for the rank, whatever the machine (taskset: the binding it inherits).
    "redblack3d: warning: OMP_NUM_THREADS=4 is overridden: 2 compute threads per rank (--threads 0: one per compute core)":
        ("mpi-taskset 1", ["{bin}/redblack3d", "--mode", "mt", "--n", "8", "--iters", "1"], {"OMP_NUM_THREADS": "4"}, 0),
    "cg3d: error: --tol must be greater than 0, got '0'":
        ("mpi 2", ["{bin}/cg3d", "--tol", "0"], {}, 2),
    "compare: error: --modes: unknown mode 'bogus' (expected sync, async, mt, proxy)":
        ("serial", ["{source}/apps/cg3d/compare", "--modes", "bogus"], {}, 2),
    "redblack3d: error: unexpected argument '-hv' (options start with --; see --help)":
        ("mpi 2", ["{bin}/redblack3d", "-hv"], {}, 2),
    "compare: error: --reps: Value 0 not in range 1 to 1000000":
        ("serial", ["{source}/apps/redblack3d/compare", "--reps", "0", "--show-config"], {}, 2),
    "heat2d-c: error: option --nx given twice":
        ("mpi 1", ["{bin}/heat2d-c", "--nx", "8", "--nx", "9"], {}, 2),
    "heat2d-c: error: --nx: Value 2 not in range 3 to 16777216 (given as '+2')":
        ("mpi 1", ["{bin}/heat2d-c", "--nx", "+2"], {}, 2),
    "calibrate: error: --csv check.csv is written only by a calibration (--predict-only measures and writes nothing)":
        ("serial", ["{bin}/calibrate", "--predict-only", "--csv", "check.csv"], {}, 2),
}

# quote -> (file under the source tree, fragment both contain)
ELSEWHERE = {
    "sweep: error: the sweep has 1000000000000 points, more than 100000: split it into smaller sweeps":
        ("tests/sweep/test_robustness.py", "the sweep has 1000000000000 points, more than 100000"),
    "proxy: error: rank 0: commit of plan 'sum' did not finish within 2.0 s (PROXY_WAIT_TIMEOUT): it waits in "
    "MPI_Allreduce, comparing its collective elements with the other ranks of the communicator of its allreduce "
    "element 0 (2 ranks), and one of them has not committed a plan with collective elements there (every rank commits "
    "the same such plans in the same order): ending the job":
        ("tests/core/CMakeLists.txt", "it waits in MPI_Allreduce, comparing its collective elements with the other "
                                      "ranks of the communicator of its allreduce element 0 (2 ranks)"),
    "proxy-mpiexec: error: /usr/bin/mpiexec.openmpi did not exit within 15 s of its 2 processes' end (Open MPI's "
    "launcher can deadlock in its finalize): ended it; exit 3, the ranks' status":
        ("tests/core/CMakeLists.txt", "did not exit within 15 s of its 2 processes' end"),
    "proxy-mpiexec: error: /usr/bin/mpiexec.openmpi died of signal 11 in its finalize, after the job had ended "
    "(Open MPI's launcher can crash there); exit 1, the job's status":
        ("tests/core/CMakeLists.txt", "died of signal 11 in its finalize, after the job had ended"),
    "proxy-mpiexec: error: /usr/bin/mpiexec.openmpi did not exit within 15 s of its finalize's start, after the job "
    "had ended (Open MPI's launcher can deadlock in its finalize): ended it; exit 3, the job's status":
        ("tests/core/CMakeLists.txt", "did not exit within 15 s of its finalize's start, after the job had ended"),
    "summa: warning: the process had not ended 10 s after its exit (a library's exit handler did not return): "
    "ending it with its status 0": ("apps/common/src/program_exit.cpp", "s after its exit (a library's exit handler "),
    "redblack3d: error: rank 1: the set-up (MPI_Init, host and node discovery) did not complete within 15 s "
    "(PROXY_WAIT_TIMEOUT, at least 15 s): a rank has stopped, left or hangs":
        ("tests/app_faults/CMakeLists.txt", "did not complete within 15 s"),
    "heat2d-c: error: --nx 65536 --ny 65537 needs 32.0 GiB per rank (2 ranks on this node), 3.8 GiB available per "
    "rank (RLIMIT_AS)": ("tests/app_faults/CMakeLists.txt", "--nx 65536 --ny 65537 needs 32.0 GiB per rank"),
    "redblack3d: error: cannot write to standard output":
        ("tests/app_faults/CMakeLists.txt", "error: cannot write to standard output"),
    "redblack3d: error: mode sync, iteration 3, rank 1: no message from rank 0 after 3.0 s (PROXY_WAIT_TIMEOUT)":
        ("tests/app_faults/CMakeLists.txt", "iteration 3, rank 1: no message from rank 0"),
    "cg3d: error: mode async, iteration 7, step 1, rank 1: no message from rank 0 (cg3d halo of p) after 120.0 s "
    "(PROXY_WAIT_TIMEOUT)": ("apps/cg3d/src/phases.cpp", "no message from rank "),
    "proxy-info: error: srun started 2 tasks (SLURM_STEP_NUM_TASKS=2) but MPI sees 1: this MPICH needs srun "
    "--mpi=pmi2 (or SLURM_MPI_TYPE=pmi2)":
        ("tests/slurm/test_slurm.py", "proxy-info: error: srun started 2 tasks (SLURM_STEP_NUM_TASKS=2) but MPI sees 1"),
    "compare: error: mode sync needs 2 tasks x 1 CPU on 1 node, 2 CPUs per node, but the allocation "
    "(SLURM_JOB_ID=7) has 1 node of 1 CPU: srun would wait for ever (ask for more, or lower --cores/--nodes)":
        ("tests/sweep/test_launch.py", "srun would wait for ever (ask for more, or lower --cores/--nodes)"),
    "summa: error: mode sync, the barrier before repetition 3, rank 1: not every rank joined it after 3.0 s "
    "(PROXY_WAIT_TIMEOUT)":
        ("tests/app_faults/CMakeLists.txt", "the barrier before repetition 3, rank 1: not every rank joined it"),
    "sweep: error: 'OUT' is in use by another sweep (PID 1234); wait for it to end or choose another --out":
        ("tests/sweep/test_robustness.py", "is in use by another sweep (PID "),
    "cg3d: error: mode sync, iteration 3, step 2, rank 1: the collective failed: MPI_ERR_TRUNCATE: message truncated":
        ("tests/app_faults/CMakeLists.txt", "the collective failed: MPI_ERR_TRUNCATE: message truncated"),
}


def quoted_lines(source):
    """{quote: [files quoting it]} of every program line quoted in the docs."""
    files = [source / "README.md", *sorted((source / "docs").glob("*.md")), source / "bench" / "RESULTS.md"]
    quotes = {}
    for path in files:
        if not path.is_file():
            continue
        for match in QUOTE.finditer(path.read_text()):
            text = " ".join(match.group(1).split())
            if PROGRAM_LINE.match(text):
                quotes.setdefault(text, []).append(str(path.relative_to(source)))
    return quotes


def launch_command(launch, argv, args):
    """The command line of a RUN case: through the build's launcher for an MPI program."""
    words = [a.format(bin=args.bin, source=args.source) for a in argv]
    kind, _, count = launch.partition(" ")
    if kind == "serial":
        return words
    prefix = shlex.split(args.mpiexec) + ["-n", count]
    if kind == "mpi-taskset":
        return ["taskset", "-c", ",".join(str(c) for c in sorted(os.sched_getaffinity(0))[:2])] + prefix + words
    return prefix + words


def check_run(quote, case, args):
    """Run the case; the problems found (an empty list when the quote is a whole line of its output)."""
    launch, argv, environment, status = case
    if launch.startswith("mpi-taskset") and len(os.sched_getaffinity(0)) < 2:
        return [f"'{quote}': needs 2 cores to reproduce, this process has {len(os.sched_getaffinity(0))}"]
    command = launch_command(launch, argv, args)
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          env=dict(os.environ, **environment))
    lines = (done.stdout + done.stderr).splitlines()
    problems = []
    if quote not in lines:
        problems.append(f"the docs quote\n    {quote}\n  but {shlex.join(command)} printed:\n    "
                        + "\n    ".join(lines[-8:]))
    if done.returncode != status:
        problems.append(f"'{quote}': {shlex.join(command)} exited {done.returncode}, expected {status}")
    return problems


def main():
    """Collect the quotes, classify each, run or check each one; exit 1 naming every problem."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, required=True)
    parser.add_argument("--bin", type=Path, required=True)
    parser.add_argument("--mpiexec", required=True, help="the launcher command line")
    args = parser.parse_args()
    problems = []
    quotes = quoted_lines(args.source)
    for quote, where in quotes.items():
        if quote in RUN:
            found = check_run(quote, RUN[quote], args)
            problems += found
            print(f"{'FAIL' if found else 'ok  '} ran:       {quote}")
        elif quote in ELSEWHERE:
            path, fragment = ELSEWHERE[quote]
            text = (args.source / path).read_text()
            if fragment not in quote or fragment not in text:
                problems.append(f"'{quote}': '{fragment}' should be in the quote and in {path}")
            print(f"ok   {path}: {quote}")
        elif "..." in quote or "…" in quote:
            print(f"     elided:    {quote}")
        else:
            problems.append(f"{', '.join(where)} quote a program line no test checks:\n    {quote}\n  add it to "
                            f"RUN (or ELSEWHERE) in tests/cli/doc_quotes.py")
    for quote in [*RUN, *ELSEWHERE]:
        if quote not in quotes:
            problems.append(f"no doc quotes '{quote}' any more: remove it from tests/cli/doc_quotes.py")
    for problem in problems:
        print(problem)
    print(f"doc quotes: {len(quotes)} program lines quoted, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
