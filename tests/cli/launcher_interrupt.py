#!/usr/bin/env python3
"""proxy-mpiexec interrupted: a launch of a long-running program, once its ranks run, is sent SIGINT (to its
process group, as Ctrl-C does, and to the wrapper alone), SIGTERM or SIGHUP; the wrapper exits 128 + the signal (130 for SIGINT) under both MPIs, and no rank is
left. The launchers' own statuses came back before: Open MPI's 1, MPICH's Hydra (exec'd) 0, 2 or 255.
usage: launcher_interrupt.py --mpiexec PROXY_MPIEXEC --program PATH [PROGRAM OPTIONS (--key value)...]
Prints one line per signal; exit 1 when any failed."""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PATIENCE = 120  # seconds for the ranks to start and for the launch to end: generous, never a measured time


def ranks_of(program, marker):
    """PIDs of the processes running `program` whose command line holds `marker`: the ranks alone (the wrapper's
    own forks, its command substitutions and its watcher, hold the marker too, as does the launcher)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
            if argv[0] == program and marker in argv:
                found.append(int(entry.name))
        except OSError:
            continue  # ended meanwhile
    return found


def wait_for(condition, what):
    """Polls `condition` until it holds; False after PATIENCE seconds."""
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    print(f"FAILED  {what}: not within {PATIENCE} s")
    return False


def interrupted_launch(mpiexec, program, options, sig, group, folder):
    """One launch of 2 ranks stopped by `sig` once both run, sent to the wrapper alone or (group) to its process
    group, as a terminal's Ctrl-C: None when it behaved, else what went wrong."""
    marker = str(Path(folder) / f"interrupted-{sig.name}-{group}.csv")  # in the ranks' command lines only
    launch = subprocess.Popen([mpiexec, "-n", "2", program, *options, "--output", marker], start_new_session=True,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ranks = lambda: ranks_of(program, marker)  # noqa: E731
    try:
        if not wait_for(lambda: len(ranks()) >= 2 or launch.poll() is not None, f"{sig.name}: the ranks to start"):
            return "the ranks did not start"
        if launch.poll() is not None:
            return f"the launch ended by itself with {launch.returncode}: {launch.stderr.read()[-400:]!r}"
        if group:
            os.killpg(launch.pid, sig)
        else:
            launch.send_signal(sig)
        try:
            _, err = launch.communicate(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            return f"the launch did not end within {PATIENCE} s of {sig.name}"
        if launch.returncode != 128 + sig:
            return f"exit {launch.returncode}, expected {128 + sig}; stderr {err[-400:]!r}"
        if not wait_for(lambda: not ranks(), f"{sig.name}: the ranks to end"):
            return f"ranks left running: {ranks()}"
        return None
    finally:
        if launch.poll() is None:
            launch.kill()
            launch.wait()
        for pid in ranks():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def main():
    """Each signal in turn."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mpiexec", required=True)
    parser.add_argument("--program", required=True)
    args, options = parser.parse_known_args()  # the rest: the program's options
    args.options = options
    failed = 0
    with tempfile.TemporaryDirectory(prefix="launcher-interrupt-") as folder:
        for sig, group in ((signal.SIGINT, True), (signal.SIGINT, False), (signal.SIGTERM, False),
                           (signal.SIGHUP, False)):
            what = f"{sig.name} to the {'process group' if group else 'wrapper'}"
            problem = interrupted_launch(args.mpiexec, args.program, args.options, sig, group, folder)
            print(f"ok      {what}: exit {128 + sig}, no rank left" if problem is None else f"FAILED  {what}: {problem}")
            failed += problem is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
