"""Shared helpers of the tool tests (tests/sweep/test_*.py): paths, the launcher every test uses (the
project's one launcher setting, resolved for the build's drivers), and small run/read helpers. Not a test
file itself: cases.py discovers only test_*.py."""
import csv
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "apps"))
from toolkit import launcher  # noqa: E402  (after the path is set)

SWEEP = ROOT / "apps" / "sweep"
PLOT = ROOT / "apps" / "plot"
COMPARE = ROOT / "apps" / "redblack3d" / "compare"
CG3D_COMPARE = ROOT / "apps" / "cg3d" / "compare"
COMPARE_PANELS = ROOT / "apps" / "summa" / "compare-panels.py"
RUN_OVERLAP = ROOT / "bench" / "overlap" / "run-overlap"
CLUSTER_STUDY = ROOT / "bench" / "cluster-study"
EMULATED_CLUSTER = ROOT / "bench" / "emulated-cluster"
SETUP = ROOT / "apps" / "setup"
REPRODUCE = ROOT / "bench" / "reproduce"
FAKE = HERE / "fake_driver.py"
# Set by CTest: the build's program folder (cases that need a built program skip without it).
BIN = Path(os.environ.get("SWEEP_TEST_BIN", ROOT / "build" / "bin"))
REDBLACK3D = BIN / "redblack3d"
CG3D = BIN / "cg3d"
SUMMA = BIN / "summa"
OVERLAP = BIN / "overlap"


def built(program):
    """Whether a program of the build exists (its cases are skipped otherwise)."""
    return program.is_file() and os.access(program, os.X_OK)


def mpiexec():
    """The launcher command line for the build's drivers, as every tool resolves it ($MPIEXEC, else
    proxy-mpiexec beside the drivers, else mpiexec): passed explicitly to runs of the fake driver."""
    words, _ = launcher.resolve(None, str(REDBLACK3D))
    return " ".join(words)


def run(argv, env=None, timeout=300):
    """Run a tool to completion; returns the CompletedProcess (text output)."""
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=env, timeout=timeout)


def read_csv(path):
    """Rows of a CSV file as dicts."""
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def read_jsonl(path):
    """Parsed lines of a JSON Lines file (empty when it does not exist)."""
    path = Path(path)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


PATIENCE = 60  # seconds a condition that must happen may take on a loaded machine (never a pass/fail time)


def wait_for(condition, what):
    """Poll `condition` until it holds; fail naming `what` after PATIENCE seconds."""
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


def processes_mentioning(text):
    """PIDs of live processes whose command line contains `text` (zombies excluded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "stat").read_text().split(") ")[-1].startswith("Z"):
                continue
            if text in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                found.append(int(entry.name))
        except OSError:
            continue  # the process ended while being looked at
    return found


def load_plot():
    """apps/plot as a module (it is a script without the .py suffix), to check what it computes."""
    loader = importlib.machinery.SourceFileLoader("plot_script", str(PLOT))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("plot_script", loader))
    loader.exec_module(module)
    return module
