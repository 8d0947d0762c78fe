"""The one launcher setting of every tool (brief, "The one launcher contract"): `--mpiexec CMD` (a command
line, split like a shell would), else the environment variable MPIEXEC, else the wrapper the build wrote
next to the driver (`<driver dir>/proxy-mpiexec`, the MPI the project was configured with and the flags it
needs here), else plain `mpiexec` from PATH."""
import os
import re
import shlex
import shutil
from pathlib import Path

from . import provenance
from .cli import UsageError

WRAPPER = "proxy-mpiexec"
# The PMI srun must speak to each MPI (srun --mpi=TYPE; `srun --mpi=list` shows what a Slurm offers): Debian's
# MPICH 4.0.2 has PMI-1/PMI-2 only (no PMIx; Slurm has no "pmi1" type); Debian's Open MPI 4.1.4 needs PMIx
# (under pmi2 or none its MPI_Init aborts: "OMPI was not built with SLURM's PMI support").
SRUN_MPI_TYPES = {"MPICH": "pmi2", "Open MPI": "pmix"}


def driver_directory(driver):
    """The directory of a driver given as a path or as a name found on PATH (None when unknown)."""
    if driver is None:
        return None
    path = Path(driver) if os.sep in str(driver) else (Path(shutil.which(driver)) if shutil.which(driver) else None)
    return path.resolve().parent if path is not None else None


def resolve(option, driver, environ=None):
    """(argv prefix, source) of the launcher for `driver`; source is 'option', 'MPIEXEC', 'build' or
    'default'. An empty or unparsable command line is a usage error naming where it came from."""
    environ = os.environ if environ is None else environ
    for text, source in ((option, "option"), (environ.get("MPIEXEC"), "MPIEXEC")):
        if text is None:
            continue
        try:
            words = shlex.split(text)
        except ValueError as error:
            raise UsageError(f"{'--mpiexec' if source == 'option' else 'MPIEXEC'} '{text}': {error}") from error
        if not words:
            raise UsageError(f"{'--mpiexec' if source == 'option' else 'MPIEXEC'} is empty")
        return words, source
    directory = driver_directory(driver)
    if directory is not None:
        wrapper = directory / WRAPPER
        if wrapper.is_file() and os.access(wrapper, os.X_OK):
            return [str(wrapper)], "build"
    return ["mpiexec"], "default"


def srun_mpi(setting, driver, environ=None, setting_name="--srun-mpi"):
    """(type, source) of the PMI srun is told to use (`srun --mpi=TYPE`): the setting (option or spec),
    else SLURM_MPI_TYPE, else the one the driver's MPI needs (SRUN_MPI_TYPES, from the library it links);
    (None, "srun's default") when none of them says (a script driver, an unknown MPI)."""
    environ = os.environ if environ is None else environ
    for value, source in ((setting, setting_name), (environ.get("SLURM_MPI_TYPE"), "SLURM_MPI_TYPE")):
        if value is None or value == "":
            continue
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", str(value)):
            raise UsageError(f"{source} '{value}' is not an srun MPI type (see srun --mpi=list: pmi2, pmix, none, ...)")
        return str(value), source
    library = provenance.mpi_library(str(driver)) if driver else None
    if library in SRUN_MPI_TYPES:
        return SRUN_MPI_TYPES[library], f"the driver's MPI, {library}"
    return None, "srun's default"
