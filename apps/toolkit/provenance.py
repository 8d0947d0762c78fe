"""Provenance of a measurement: when, where, with which commit, MPI, compiler and BLAS, under which
PROXY_*/OMP_* settings and machine load. The field names are the ones the C++ drivers use in their records
(`provenance.<field>`); flat tables (CSV) spell them `prov_<field>`:

  time_utc  UTC time the run started, ISO 8601 (2026-11-23T12:30:05Z)
  host      host name of the machine the driver ran on (its record's), else of the one that launched it
  commit    `git describe --always --dirty --tags` of the source tree, null outside a git checkout
  mpi       MPI library and version: the driver's own (its record's, from MPI_Get_library_version), else
            the library from its dynamic links and the version its launcher reports
  launcher  the launcher and its version ('srun (slurm) 22.05.8', 'mpiexec (Hydra) 4.0.2')
  slurm_job_id, slurm_mpi_type  SLURM_JOB_ID of the run's environment; the PMI srun was given (--mpi=TYPE),
            else SLURM_MPI_TYPE; null outside Slurm
  compiler  the compiler that built the driver (its ELF .comment, e.g. 'GCC: (Debian 12.2.0-14) 12.2.0')
  blas      the BLAS library the driver links (file name), null when it links none
  env       every PROXY_* and OMP_* variable of the run's environment (a dict; JSON text in CSV)
  load_1m   the 1-minute load average just before the run; load_1m_after just after it

Every probe is best effort: a missing tool (git, ldd, readelf) gives null, never an error."""
import datetime
import json
import os
import re
import socket
import subprocess
from functools import lru_cache
from pathlib import Path

FIELDS = ("time_utc", "host", "commit", "mpi", "launcher", "slurm_job_id", "slurm_mpi_type", "compiler", "blas",
          "env", "load_1m", "load_1m_after")
_ROOT = Path(__file__).resolve().parents[2]
_BLAS_NAMES = ("openblas", "blis", "mkl_rt", "mkl_core", "flexiblas", "sci_cray", "libblas", "atlas")


def _output(argv, timeout=20):
    """stdout of a probe command, or None when it cannot run or fails (probes are best effort)."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


@lru_cache(maxsize=None)
def commit(root=str(_ROOT)):
    """git describe of the source tree the tools belong to (None outside a git checkout)."""
    text = _output(["git", "-C", root, "describe", "--always", "--dirty", "--tags"])
    return text.strip() if text else None


@lru_cache(maxsize=None)
def _version_text(launcher):
    """What the launcher prints for --version, probed once per launcher (mpi() and launcher_version() read
    it for every run)."""
    return _output(list(launcher) + ["--version"]) or ""


@lru_cache(maxsize=None)
def _links(driver):
    """`ldd` of the driver: the shared libraries it loads (empty for scripts or without ldd)."""
    return _output(["ldd", driver]) or ""


@lru_cache(maxsize=None)
def compiler(driver):
    """The compiler recorded in the driver's ELF .comment section (None for scripts)."""
    text = _output(["readelf", "-p", ".comment", driver])
    if not text:
        return None
    found = re.findall(r"\]\s+(.+)", text)
    return found[0].strip() if found else None


@lru_cache(maxsize=None)
def blas(driver):
    """File name of the BLAS library the driver links, e.g. 'libopenblas.so.0' (None when none)."""
    for line in _links(driver).splitlines():
        name = line.strip().split(" ")[0]
        if name.startswith("lib") and any(key in name for key in _BLAS_NAMES):
            return name
    return None


def mpi_library(driver):
    """'MPICH' or 'Open MPI': the MPI library the driver links (ldd); None when it links neither."""
    links = _links(driver)
    return "MPICH" if "libmpich" in links else ("Open MPI" if re.search(r"libmpi\.so", links) else None)


@lru_cache(maxsize=None)
def mpi(driver, launcher):
    """'MPICH 4.0.2', 'Open MPI 4.1.4', ...: the library the driver links (ldd) and the version its
    launcher reports (`LAUNCHER --version`); whatever part is known, None when nothing is."""
    library = mpi_library(driver)
    text = _version_text(tuple(launcher))
    version = None
    if re.match(r"\s*slurm", text):
        text = ""  # srun's version is Slurm's, not the MPI's (the driver's record says the MPI's)
    for pattern, name in ((r"\(Open(?:RTE| MPI)\)\s*([0-9][\w.]*)", "Open MPI"), (r"HYDRA", "MPICH")):
        match = re.search(pattern, text)
        if match:
            library = library or name
            version = match.group(1) if match.groups() else None
            break
    if version is None:
        match = re.search(r"Version:\s*([0-9][\w.]*)", text)
        version = match.group(1) if match else None
    parts = [part for part in (library, version) if part]
    return " ".join(parts) if parts else None


def launcher_version(launcher):
    """'srun (slurm) 22.05.8', 'mpiexec (Hydra) 4.0.2', 'mpirun (Open MPI) 4.1.4', else the first line the
    launcher prints for --version; None when it prints nothing."""
    if not launcher:
        return None
    text = _version_text(tuple(launcher))
    name = os.path.basename(launcher[0])
    for pattern, kind in ((r"^\s*slurm(?:-wlm)?\s+([0-9][\w.]*)", "slurm"), (r"\(Open(?:RTE| MPI)\)\s*([0-9][\w.]*)", "Open MPI"),
                          (r"HYDRA[\s\S]*?Version:\s*([0-9][\w.]*)", "Hydra")):
        match = re.search(pattern, text)
        if match:
            return f"{name} ({kind}) {match.group(1)}"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else None


def mpi_from_driver(text):
    """The MPI a driver's record names, in the sweep's spelling: 'MPICH Version: 4.0.2' -> 'MPICH 4.0.2',
    'Open MPI v4.1.4, package: ...' -> 'Open MPI 4.1.4'; other text unchanged."""
    match = re.match(r"\s*(MPICH|Open MPI)\s*(?:Version:\s*|v)?([0-9][\w.]*)", text or "")
    return f"{match.group(1)} {match.group(2)}" if match else text


def from_records(provenance, records):
    """The run's provenance with what its driver recorded of itself (host, MPI) where it did: the driver ran
    on the compute node and knows its MPI, which the launching host and the launcher do not."""
    own = next((r["provenance"] for r in records if isinstance(r.get("provenance"), dict)), {})
    if own.get("host"):
        provenance["host"] = own["host"]
    if own.get("mpi"):
        provenance["mpi"] = mpi_from_driver(own["mpi"])
    return provenance


def settings(environ):
    """The PROXY_* and OMP_* variables of an environment, sorted by name."""
    return {k: environ[k] for k in sorted(environ) if k.startswith(("PROXY_", "OMP_"))}


def load():
    """The 1-minute load average (None where the platform has none)."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def before_run(driver, launcher, environ, mpi_type=None):
    """The provenance of a run about to start (load_1m_after is filled by after_run); mpi_type is the PMI
    the launch gives srun (--mpi=TYPE), recorded as slurm_mpi_type over SLURM_MPI_TYPE."""
    return {"time_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "host": socket.gethostname(), "commit": commit(), "mpi": mpi(str(driver), tuple(launcher)),
            "launcher": launcher_version(tuple(launcher)), "slurm_job_id": environ.get("SLURM_JOB_ID"),
            "slurm_mpi_type": mpi_type or environ.get("SLURM_MPI_TYPE"),
            "compiler": compiler(str(driver)), "blas": blas(str(driver)), "env": settings(environ),
            "load_1m": load(), "load_1m_after": None}


def after_run(provenance):
    """Completes a run's provenance with the load just after it."""
    provenance["load_1m_after"] = load()
    return provenance


def flat(provenance):
    """The provenance as flat `prov_<field>` columns (env as JSON text) for CSV tables."""
    row = {}
    for field in FIELDS:
        value = provenance.get(field)
        row[f"prov_{field}"] = json.dumps(value, sort_keys=True) if isinstance(value, dict) else value
    return row
