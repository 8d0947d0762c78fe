"""The one launcher setting of every tool (brief, "The one launcher contract"): `--mpiexec CMD` (a command
line, split like a shell would), else the environment variable MPIEXEC, else the wrapper the build wrote
next to the driver (`<driver dir>/proxy-mpiexec`, the MPI the project was configured with and the flags it
needs here), else plain `mpiexec` from PATH."""
import os
import shlex
import shutil
from pathlib import Path

from .cli import UsageError

WRAPPER = "proxy-mpiexec"


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
