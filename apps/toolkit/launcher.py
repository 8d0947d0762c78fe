"""The one launcher setting of every tool (brief, "The one launcher contract"): `--mpiexec CMD` (a command
line, split like a shell would), else the environment variable MPIEXEC, else the wrapper the build wrote
next to the driver (`<driver dir>/proxy-mpiexec`, the MPI the project was configured with and the flags it
needs here), else plain `mpiexec` from PATH. Also what a tool knows of a launch that the program it starts
cannot (launch_facts: the launcher's version, the Slurm job and PMI, the load after the run); the program's
own provenance is in its record (toolkit/provenance.py). And how a tool starts one launch and ends it,
leaving nothing behind (start_launch, stop_group)."""
import ctypes
import itertools
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from functools import lru_cache
from pathlib import Path

from .cli import UsageError, counted

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
    library = linked_mpi(str(driver)) if driver else None
    if library in SRUN_MPI_TYPES:
        return SRUN_MPI_TYPES[library], f"the driver's MPI, {library}"
    return None, "srun's default"


def choose(requested, mpiexec_option, environ=None):
    """'mpiexec' or 'srun' for a tool's --launcher: auto is srun inside a Slurm allocation (SLURM_JOB_ID
    set) unless an mpiexec command line was given, else mpiexec."""
    environ = os.environ if environ is None else environ
    try:
        words = shlex.split(mpiexec_option or "")
    except ValueError:
        words = []  # resolve() reports it
    if words and os.path.basename(words[0]) == "srun":
        # srun as an mpiexec gets one -n for every mode: no CPUs per task, so unequal set-ups (issue 26).
        raise UsageError(f"--mpiexec '{mpiexec_option}': use --launcher srun (and --srun-mpi TYPE), which gives "
                         "each mode its own tasks and CPUs")
    if requested == "auto":
        return "srun" if environ.get("SLURM_JOB_ID") and mpiexec_option is None else "mpiexec"
    if requested == "srun" and mpiexec_option is not None:
        raise UsageError("--mpiexec and --launcher srun: give one launcher (srun's PMI is --srun-mpi)")
    return requested


def srun_prefix(tasks, cpus_per_task, nodes, mpi_type, cpu_bind="cores"):
    """The srun part of a step that gives each of `tasks` ranks `cpus_per_task` CPUs on `nodes` nodes,
    bound to cores, started with the PMI `mpi_type` (none given: srun's default)."""
    command = ["srun", "-n", str(tasks), "-N", str(nodes), f"--cpus-per-task={cpus_per_task}",
               f"--cpu-bind={cpu_bind}"]
    return command + ([f"--mpi={mpi_type}"] if mpi_type else [])


def _cpus_per_node(text):
    """SLURM_JOB_CPUS_PER_NODE ('2', '4(x3),2') as one count per node."""
    counts = []
    for item in text.split(","):
        match = re.fullmatch(r"\s*([0-9]+)(?:\(x([0-9]+)\))?\s*", item)
        if match:
            counts += [int(match.group(1))] * int(match.group(2) or 1)
    return counts


def slurm_capacity(environ=None, timeout=10):
    """(where, nodes, CPUs of the smallest node) that srun steps can use: the allocation this runs in
    (SLURM_JOB_ID, SLURM_JOB_NUM_NODES, SLURM_JOB_CPUS_PER_NODE), else the cluster as sinfo shows it (each
    srun then makes its own allocation); None when neither says."""
    environ = os.environ if environ is None else environ
    if environ.get("SLURM_JOB_ID"):
        counts = _cpus_per_node(environ.get("SLURM_JOB_CPUS_PER_NODE", ""))
        nodes = int(environ.get("SLURM_JOB_NUM_NODES") or len(counts) or 0)
        if not counts or not nodes:
            return None
        return f"the allocation (SLURM_JOB_ID={environ['SLURM_JOB_ID']})", nodes, min(counts)
    try:
        import subprocess
        done = subprocess.run(["sinfo", "-h", "-N", "-o", "%c"], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    counts = [int(word) for word in done.stdout.split() if word.isdigit()] if done.returncode == 0 else []
    return ("the cluster (sinfo)", len(counts), max(counts)) if counts else None


def check_srun_fits(what, tasks, cpus_per_task, nodes, capacity, options="--cores/--nodes"):
    """A step that asks for more nodes or CPUs per node than `capacity` (slurm_capacity) would wait in the
    queue for ever: a usage error naming the numbers (and the tool's `options` that set them)."""
    if capacity is None:
        return
    where, have_nodes, have_cpus = capacity
    per_node = -(-tasks // nodes) * cpus_per_task
    if nodes > have_nodes or per_node > have_cpus:
        raise UsageError(f"{what} needs {counted(tasks, 'task')} x {counted(cpus_per_task, 'CPU')} on "
                         f"{counted(nodes, 'node')}, {counted(per_node, 'CPU')} per node, but {where} has "
                         f"{counted(have_nodes, 'node')} of {counted(have_cpus, 'CPU')}: "
                         f"srun would wait for ever (ask for more, or lower {options})")


def _output(argv, timeout=20):
    """stdout of a probe command, or None when it cannot run or fails (probes are best effort)."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


@lru_cache(maxsize=None)
def linked_mpi(driver):
    """'MPICH' or 'Open MPI': the MPI library the driver links (`ldd`), for choosing srun's PMI before
    anything runs; None when it links neither (a script) or ldd is missing."""
    links = _output(["ldd", driver]) or ""
    return "MPICH" if "libmpich" in links else ("Open MPI" if re.search(r"libmpi\.so", links) else None)


@lru_cache(maxsize=None)
def launcher_version(launcher):
    """'srun (slurm) 22.05.8', 'mpiexec (Hydra) 4.0.2', 'mpirun (Open MPI) 4.1.4', else the first line the
    launcher (a tuple of words) prints for --version; None when it prints nothing."""
    if not launcher:
        return None
    text = _output(list(launcher) + ["--version"]) or ""
    name = os.path.basename(launcher[0])
    for pattern, kind in ((r"^\s*slurm(?:-wlm)?\s+([0-9][\w.]*)", "slurm"), (r"\(Open(?:RTE| MPI)\)\s*([0-9][\w.]*)", "Open MPI"),
                          (r"HYDRA[\s\S]*?Version:\s*([0-9][\w.]*)", "Hydra")):
        match = re.search(pattern, text)
        if match:
            return f"{name} ({kind}) {match.group(1)}"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else None


def load():
    """The 1-minute load average (None where the platform has none)."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def launch_facts(launcher, environ, mpi_type=None):
    """What a tool knows of a launch that the program does not (its provenance says the rest): the
    launcher's version, SLURM_JOB_ID, the PMI srun was given (mpi_type, else SLURM_MPI_TYPE); load_1m_after
    is filled by after_launch. Keys: LAUNCH_FIELDS."""
    return {"launcher": launcher_version(tuple(launcher)), "slurm_job_id": environ.get("SLURM_JOB_ID"),
            "slurm_mpi_type": mpi_type or environ.get("SLURM_MPI_TYPE"), "load_1m_after": None}


LAUNCH_FIELDS = ("launcher", "slurm_job_id", "slurm_mpi_type", "load_1m_after")


def after_launch(facts):
    """Completes launch_facts with the load just after the run."""
    facts["load_1m_after"] = load()
    return facts


# Every process a launch starts inherits this variable (launchers pass the environment on to their proxies
# and ranks); its value lists the launches it belongs to, a tool's launch inside another tool's included.
LAUNCH_MARK = "PROXYRT_LAUNCH"
_launches = itertools.count(1)


_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def _die_with_parent():
    """Runs in the launcher's process before exec: the kernel sends it SIGTERM when the tool dies (even by
    kill -9), so a launch never outlives its tool (Linux PR_SET_PDEATHSIG; elsewhere nothing)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def start_launch(command, env=None, **popen):
    """Starts one launch (a launcher and whatever it starts) in a session of its own, marked so that
    stop_group() finds every process of it, and ended by the kernel if the tool dies first (a compare killed
    by SIGKILL left its launcher and ranks running to the end of their run). env: the launch's environment
    (default this process's); popen: subprocess.Popen's other arguments. Raises OSError as Popen does."""
    env = dict(os.environ if env is None else env)
    mark = f"{os.getpid()}.{next(_launches)}"
    env[LAUNCH_MARK] = f"{env[LAUNCH_MARK]},{mark}" if env.get(LAUNCH_MARK) else mark
    # A stop signal (SIGINT, SIGTERM, SIGHUP: the tools' handlers raise) that lands while Popen runs the
    # interpreter's fork hooks is lost: Python reports the handler's exception as unraisable and the tool went
    # on (a study stopped by SIGTERM finished its runs and exited 0). They are held while the launch starts,
    # the child restores the mask before exec, and one that came is raised here once the launch is known: the
    # launch is stopped first, as the callers stop it on any exception.
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)

    def child_setup():
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        _die_with_parent()

    process = None
    try:
        process = subprocess.Popen(command, env=env, start_new_session=True, preexec_fn=child_setup, **popen)
        process.launch_mark = mark
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        if process is not None:
            stop_group(process)
        raise
    return process


def marked_processes(mark):
    """Pids of the live processes that belong to launch `mark` (Linux /proc; elsewhere none)."""
    pids = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return pids
    prefix, wanted = LAUNCH_MARK.encode() + b"=", mark.encode()
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as environ:
                variables = environ.read().split(b"\0")
        except OSError:  # gone, or not ours to read
            continue
        for variable in variables:
            if variable.startswith(prefix) and wanted in variable[len(prefix):].split(b","):
                pids.append(int(name))
                break
    return pids


def _signal_marked(mark, grace):
    """SIGTERM to launch `mark`'s processes, SIGKILL to those left after `grace` s; waits up to `grace` s for
    them to go. A zombie has no environment left: it counts as gone."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = marked_processes(mark)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.monotonic() + grace
        while marked_processes(mark) and time.monotonic() < deadline:
            time.sleep(0.05)


def stop_group(process, grace=5.0):
    """Ends a launch that start_launch() started: SIGTERM to its process group (the launcher forwards it to the
    ranks), SIGKILL after `grace` s; then the same to whatever of the launch is left outside that group:
    MPICH's Hydra runs its proxy and each rank in a session of their own, and a launcher stopped while it
    starts them leaves them waiting for it for ever (a study stopped by SIGTERM left two ranks of its SUMMA run
    under an orphaned hydra_pmi_proxy). Returns the launch's output when it was piped (else "")."""
    output = ""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            output = process.communicate(timeout=grace)[0] or ""
            break
        except subprocess.TimeoutExpired:
            continue
    mark = getattr(process, "launch_mark", None)
    if mark is not None:
        _signal_marked(mark, grace)
    return output
