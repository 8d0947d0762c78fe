"""The one command-line vocabulary of the project's tools (README, "Command-line conventions"):
`--key value` and `--key=value`, each option at most once, comma-separated lists without empty items, sizes
with K/M/G suffixes (powers of 1024), `--help`, `--version`, and the exit codes below. Usage errors are one line
`PROGRAM: error: ...`, in the C++ drivers' words where they have the same check (apps/common/src/options.cpp)."""
import argparse
import contextlib
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
from pathlib import Path

EXIT_OK = 0
EXIT_FAILURE = 1        # run-time failure: a failed run, a timeout, an I/O error, a busy folder
EXIT_USAGE = 2          # bad option, value or environment variable
EXIT_VERIFICATION = 3   # a result failed its verification
EXIT_INTERRUPTED = 130  # Ctrl-C / SIGTERM (finished work is kept)

_ROOT = Path(__file__).resolve().parents[2]
# An integer as the drivers read one (read_integer in apps/common/src/options.cpp): a sign, digits and, in a size,
# a unit b, or k, m, g, t, p, e alone or followed by b, i or ib ("4K", "8 kib", "1GB"), any case; powers of 1024.
_INTEGER = re.compile(r"[ \t]*([+-]?[0-9]+)[ \t]*((b)|([kmgtpe])(?:i?b|i)?)?[ \t]*", re.IGNORECASE)
_POWERS = "kmgtpe"


# What the tools that launch drivers read themselves (apps/toolkit/launcher.py), for their --show-config.
LAUNCH_ENVIRONMENT = {"MPIEXEC": "(unset: proxy-mpiexec beside the driver)",
                      "SLURM_JOB_ID": "(unset: not in an allocation, mpiexec)",
                      "SLURM_MPI_TYPE": "(unset: srun's default)"}


class UsageError(Exception):
    """A bad option, value or environment variable: printed as one line, exit 2."""


def project_version():
    """The project version from the top-level CMakeLists.txt (`project(proxy VERSION x.y.z ...)`), or
    from a VERSION file installed beside this package; 'unknown' when neither can be read."""
    candidates = [(_ROOT / "CMakeLists.txt", r"project\s*\(\s*proxy\s+VERSION\s+([0-9][0-9.]*)"),
                  (Path(__file__).resolve().parent / "VERSION", r"([0-9][0-9.]*)")]
    for path, pattern in candidates:
        try:
            match = re.search(pattern, path.read_text(errors="replace"))
        except OSError:
            continue  # not there (an installed copy without the source tree): try the next place
        if match:
            return match.group(1)
    return "unknown"


# Options that may be given again (each adds to a list or a count), and those answered at once (as the drivers'
# --help, --version and --show-config, which no "given twice" refuses).
_REPEATABLE = (argparse._AppendAction, argparse._AppendConstAction, argparse._CountAction, argparse._ExtendAction)
_ANSWERED = ("help", "version", "show_config")


class Parser(argparse.ArgumentParser):
    """argparse with the project's conventions: --version, and a usage error is one line
    `PROGRAM: error: ...` with exit status 2 (argparse would print the usage first). An unknown option is
    refused first, before any missing required option: `PROGRAM: error: unknown option '--x' (see --help)`.

    environment: the variables the tool reads itself, {NAME: what applies when unset}; given (a tool that
    honours settings), the parser has --show-config: every option and those variables with their value and
    source, and every PROXY_* and OMP_* variable set (passed on to the programs the tool runs). A tool passes
    its validation as parse_args(argv, check=...): --show-config answers only after it has passed.

    An option given an empty value (`--output ''`) is a usage error, `PROGRAM: error: --output is empty`:
    argparse takes '' as a value, and the tools read it as "not given" (the default file, folder or
    driver) or as a name; may_be_empty lists the options whose empty value means something (plot's
    --prefix).

    An option given twice (`--reps 2 --reps 3`, or under its old spelling) is a usage error in the drivers'
    words, `PROGRAM: error: option --reps given twice` (argparse kept the last silently); the options declared
    repeatable (action="append": sweep's --param, --env, ...) may be given again."""

    def __init__(self, *args, environment=None, may_be_empty=(), **kwargs):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self.add_argument("--version", action="version", version=f"%(prog)s (proxy) {project_version()}",
                          help="print the project version and exit")
        self._environment = environment
        self._may_be_empty = set(may_be_empty)
        if environment is not None:
            self.add_argument("--show-config", action="store_true",
                              help="print every effective setting (options, PROXY_*, OMP_*) with its source and exit")

    def error(self, message):
        """One line, exit 2."""
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(EXIT_USAGE)

    def parse_args(self, args=None, namespace=None, check=None):
        """argparse's parse_args after refusing unknown and repeated options, then check(namespace): the tool's
        own validation, which returns the namespace with its values checked and normalised (--n 1K as 1024) and
        raises UsageError for a bad value (said here as one line, exit 2). Only then is --show-config answered
        (the checked values, exit 0), so that a value a run refuses is refused with it too, in the same words,
        as the drivers check every option before answering it. --help and --version are answered first."""
        argv = sys.argv[1:] if args is None else list(args)
        names = [word.split("=", 1)[0] for word in argv[:argv.index("--") if "--" in argv else len(argv)]]
        seen = set()
        for name in names:
            # A short flag other than -h, grouped ones too ("-hv"): a typo of a long option, refused as the drivers
            # refuse it (argparse said "argument -h/--help: ignored explicit argument 'v'", "unrecognized
            # arguments: -x"). A negative number, or a word with a space (argparse takes it as a value), is left
            # to the checks.
            if (len(name) > 1 and name[0] == "-" and name[1] != "-" and not name[1].isdigit() and " " not in name
                    and name not in self._option_string_actions):
                self.error(f"unexpected argument '{name}' (options start with --; see --help)")
            if name.startswith("--") and len(name) > 2 and name not in self._option_string_actions:
                self.error(f"unknown option '{name}' (see --help)")
            # A word that starts with -- is an option here: argparse takes no such word as a value after a space.
            action = self._option_string_actions.get(name) if name.startswith("--") else None
            if action is None or isinstance(action, _REPEATABLE) or action.dest in _ANSWERED:
                continue
            if action.dest in seen:
                self.error(f"option {self._canonical_name(action.dest)} given twice")
            seen.add(action.dest)
        result, extras = super().parse_known_args(argv, namespace)
        if extras:  # in the drivers' words (argparse: "unrecognized arguments: a b")
            self.error(f"unexpected argument '{extras[0]}' (options start with --; see --help)")
        given = set(names)
        for action in self._actions:
            value = getattr(result, action.dest, None)
            name = action.option_strings[-1] if action.option_strings else None
            if (name and name not in self._may_be_empty and given & set(action.option_strings)
                    and isinstance(value, str) and not value.strip()):
                self.error(f"{name} is empty")
        if check is not None:
            try:
                result = check(result)
            except UsageError as error:
                self.error(str(error))
        if self._environment is not None and result.show_config:
            print(self.show_config(given, result), end="")
            sys.exit(EXIT_OK)
        return result

    def _canonical_name(self, dest):
        """The name an option is declared under first (--reps, not its old spelling --repeat)."""
        return next(action.option_strings[-1] for action in self._actions if action.dest == dest)

    def show_config(self, given, args):
        """'PROGRAM: effective configuration (setting, value, source)' and one line per setting; `given`: the
        option names on the command line (before any '--'); an option's source is the one set_source gave it (a
        sweep's spec file), else "option" or "default"."""
        sources = vars(args).get(_SOURCES, {})
        rows = []
        for action in self._actions:
            if (not action.option_strings or action.dest in ("help", "version", "show_config")
                    or action.help == argparse.SUPPRESS):  # an old spelling: shown under its name
                continue
            value = getattr(args, action.dest, None)
            if isinstance(value, (list, tuple)):
                value = ",".join(map(str, value)) or None
            source = sources.get(action.dest) or ("option" if given & set(action.option_strings) else "default")
            rows.append((action.option_strings[-1], "(none)" if value is None else str(value), source))
        for name, default in self._environment.items():
            rows.append((name, os.environ.get(name, default), "environment" if name in os.environ else "default"))
        for name in sorted(os.environ):
            if name.startswith(("PROXY_", "OMP_")) and name not in self._environment:
                rows.append((name, os.environ[name], "environment (passed on to the runs)"))
        width = [max([len(row[c]) for row in rows] + [0]) for c in (0, 1)]
        lines = [f"{self.prog}: effective configuration (setting, value, source)"]
        lines += [f"  {a.ljust(width[0])}  {b.ljust(width[1])}  {c}" for a, b, c in rows]
        lines.append("  (PROXY_* and OMP_* left unset take the programs' defaults: PROGRAM --show-config)")
        return "\n".join(lines) + "\n"


_SOURCES = "_config_sources"  # the attribute of a namespace where set_source keeps what it was told


def set_source(args, dest, source):
    """Says where the checked value of an option came from ("spec file 'x.toml'") where it is not simply the
    command line's or the default, for --show-config's source column; a tool's check calls it."""
    vars(args).setdefault(_SOURCES, {})[dest] = source


def split_list(text, name, escape=False):
    """'a,b,c' -> ['a', 'b', 'c'], items stripped. With escape, '\\,' is a literal comma inside one item (e.g. a
    driver value 64\\,64\\,128). An empty item ('2,,4', a comma first or last) is a usage error naming `name`
    and the text, in the drivers' words (`--ranks: empty item in '2,,4'`): a typo, not a shorter list."""
    items = re.split(r"(?<!\\),", text) if escape else text.split(",")
    items = [item.replace("\\,", ",").strip() if escape else item.strip() for item in items]
    if not text.strip():
        raise UsageError(f"{name} is empty")
    if not all(items):
        raise UsageError(f"{name}: empty item in '{text}'")
    return items


def lists(values, name, escape=False):
    """Comma lists given as nargs='+' values (`--x a,b c`): one flat list, each list checked by split_list."""
    result = []
    for value in values or []:
        result += split_list(value, name, escape)
    return result


def counted(count, singular, plural=None):
    """A count and its noun for messages: "1 rank", "2 ranks", "1 process" ("processes" given as plural)."""
    return f"{count} {singular if count in (1, -1) else plural or singular + 's'}"


def unique(values):
    """The values in their first order with repeats removed (a repeated value runs once)."""
    seen, result = set(), []
    for value in values:
        if value not in seen:
            seen.add(value)
            result.append(value)
    return result


# Bounds of the tools' counts where the drivers' and the runtime's have one: a timeout as PROXY_WAIT_TIMEOUT's
# (beyond ~9.2e9 s Python's clocks overflow: "timestamp too large"), repetitions as summa's --reps.
MAX_SECONDS = 1_000_000
MAX_REPS = 1_000_000
# Ranks, nodes and CPUs a tool asks a launcher for: far beyond any one launch, and far below where a launcher
# misreads a count (MPICH's mpiexec took -n 99999999999 as 1215752191, its low 32 bits, and its process manager
# filled the host's memory; a count past 2^63 ran one rank, exit 0).
MAX_RANKS = 1 << 24
# Compute threads per rank, as the drivers' --threads (0 to 4096).
MAX_THREADS = 4096
# A size where no driver's bound applies: summa's matrix orders (--size, --m, --n, --k).
MAX_SIZE = 1 << 62
_LONG_LONG = (1 << 63) - 1


def integer(text, name, minimum, maximum, suffixes=False):
    """An integer option read and checked as the drivers read and check theirs (integer_in_range in
    apps/common/src/options.cpp) and refused in their words, one wording across the project: decimal with an
    optional sign and blanks ("010" is 10, "0x10" is no integer) and, where `suffixes` (a size), a unit b, K,
    M, G, T, P or E (powers of 1024; also KB, KiB, any case): '1K' -> 1024. "--reps: expected an integer, got
    'x'" ("expected an integer (suffixes K, M, G allowed), got 'x'" for a size), "--reps: Value 0 not in range 1
    to 1000000", "--size: Value 0 not in range 1 to 4611686018427387904 (given as '0K')"."""
    match = _INTEGER.fullmatch(str(text))
    if not match or (match.group(2) and not suffixes):
        allowed = " (suffixes K, M, G allowed)" if suffixes else ""
        raise UsageError(f"{name}: expected an integer{allowed}, got '{text}'")
    power = match.group(4)
    value = int(match.group(1)) * (1024 ** (_POWERS.index(power.lower()) + 1) if power else 1)
    if not minimum <= value <= maximum:
        decimal = str(text) if abs(value) > _LONG_LONG else str(value)  # as the drivers: a long long, else the text
        given = "" if decimal == str(text) else f" (given as '{text}')"
        raise UsageError(f"{name}: Value {decimal} not in range {minimum} to {maximum}{given}")
    return value


def size(text, name, minimum=1, maximum=MAX_SIZE):
    """A size as the drivers read one (their `.suffixes()` options, `summa --size 4G`): integer() with units,
    the one reading of a size in the tools, so that every tool takes what the drivers take."""
    return integer(text, name, minimum, maximum, suffixes=True)


def positive_int(text, name, maximum):
    """A count (no unit) from 1 to `maximum`: iterations, repetitions, ranks, threads, seconds."""
    return integer(text, name, 1, maximum)


def path_kind(path, what):
    """What `path` is: "missing", "directory", "file" (a regular one) or "other" (a pipe, device or socket).
    A path the system will not look up (a name too long, a folder without search permission, a loop of
    links) is a usage error, `what` (the text naming it: "--out 'x'") and the reason, where Path.exists()
    raised OSError out of the tool."""
    return _stat_kind(path, what)[0]


def _stat_kind(path, what):
    """path_kind's answer and the os.stat result it came from (None where the path is missing)."""
    try:
        status = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return "missing", None
    except OSError as error:
        raise UsageError(f"{what}: {error.strerror}") from None
    mode = status.st_mode
    return ("directory" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"), status


@contextlib.contextmanager
def scratch_folder(program):
    """A temporary folder for a tool's run records, removed when the tool ends. Its name holds the tool and its
    PID (proxy-compare-1234-x8f2): a tool killed by SIGKILL cannot remove its own, so each start first removes
    the folders of this tool whose process has ended."""
    top = Path(tempfile.gettempdir())
    for stale in top.glob(f"proxy-{program}-*-*"):
        pid = stale.name[len(f"proxy-{program}-"):].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(stale, ignore_errors=True)
    folder = tempfile.mkdtemp(prefix=f"proxy-{program}-{os.getpid()}-")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _alive(pid):
    """Whether process `pid` exists (one of another user counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


# Free space below this on an output's file system is refused before any work, as the drivers refuse it
# (apps::unwritable_reason): every tool's output is far smaller, and a full disk would fail only at the end.
LEAST_FREE_BYTES = 64 * 1024


def check_room(path, name):
    """A usage error when the file system that would hold `path` (it, or its nearest existing parent) has
    less than LEAST_FREE_BYTES free; nothing when it has room or statvfs cannot tell."""
    where = next((p for p in (Path(path), *Path(path).absolute().parents) if os.path.exists(p)), Path("/"))
    try:
        fs = os.statvfs(where)
    except OSError:
        return
    free = fs.f_bavail * fs.f_frsize
    if free < LEAST_FREE_BYTES:
        raise UsageError(f"{name} '{path}': its file system has {counted(free, 'byte')} free "
                         f"(at least {LEAST_FREE_BYTES} needed)")


def read_input(path, what, limit):
    """The text of an input file a user names (`what` names it in messages: "spec file 'x.toml'"). A
    directory, a pipe or device (reading it would wait for a writer), a missing file, one larger than `limit`
    bytes (a wrong file, read whole, would fill memory) or one that is not UTF-8 text are usage errors."""
    path = Path(path)
    kind, status = _stat_kind(path, what)
    if kind != "file":
        raise UsageError(f"{what} " + {"directory": "is a directory", "missing": "does not exist"}.get(
            kind, "is not a regular file"))
    if status.st_size > limit:
        raise UsageError(f"{what} is {status.st_size} bytes, more than such a file can be ({limit} bytes at most)")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{what} is a binary file, not text") from None
    except OSError as error:
        raise UsageError(f"{what} cannot be read: {error.strerror}") from None
    if "\0" in text:
        raise UsageError(f"{what} is a binary file, not text")
    return text


def _output_target(path, name, kind):
    """What an output `path` (of path_kind `kind`) will be written as, and the text naming it in messages: a
    symbolic link to something not there yet is its target (writing creates it, as the drivers'
    proxy::detail::link_target), else `path` itself. The target's folder must exist: a missing one is refused
    (as the drivers refuse it), never created."""
    target, what = path, f"{name} '{path}'"
    if kind == "missing" and os.path.islink(path):
        target = Path(os.path.realpath(path))  # follows the links as far as they go (no loop: path_kind said)
        what = f"{name} '{path}': a symbolic link to '{target}'"
    parent = target.parent  # (a Path's parent is "." for a bare name, never "")
    if path_kind(parent, what) != "directory":
        raise UsageError(f"{what}: the directory '{parent}' does not exist")
    return target, what


def _check_can_create(parent, what):
    """A usage error unless a file can be created in the folder `parent`: only creating tells (root passes
    os.access in sysfs, where creating is refused)."""
    probe = parent / f".proxy-output-probe-{os.getpid()}"
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        probe.unlink()
    except OSError as error:
        raise UsageError(f"{what}: cannot create a file in '{parent}': {error.strerror}") from None


def check_output_file(path, name):
    """A usage error unless `path` can be written: a directory, a pipe or device, a missing parent directory
    or one where no file can be created, a file system with under 64 KiB free are refused (checked before any
    work is done, as the drivers' apps::unwritable_reason does: a pipe would hold the write for ever, after
    the runs). A symbolic link to a file that does not exist yet is checked as that file (writing creates
    it): a link into a missing directory is refused too."""
    path = Path(path)
    kind = path_kind(path, f"{name} '{path}'")
    if kind == "directory":
        raise UsageError(f"{name} '{path}' is a directory, not a file")
    target, what = _output_target(path, name, kind)
    if kind != "missing":
        if kind != "file":
            raise UsageError(f"{name} '{path}' is not a regular file (a device, pipe or socket)")
        if not os.access(path, os.W_OK):
            raise UsageError(f"{name} '{path}' cannot be written")
    else:
        _check_can_create(target.parent, what)
    check_room(target, name)


def check_output_folder(path, name):
    """A usage error unless `path` can be a tool's output folder, checked before any work by check_output_file's
    rules: an existing folder, or a new one in a folder that exists and where one can be created. Its parent
    folder is never created (a typo in it would grow a tree of folders, as the drivers refuse a missing folder
    for a file); a symbolic link is checked as its target, and one to a folder not there yet is followed (the
    folder is made at the target, as a file is written through a link; making the link's own path failed
    with "File exists"). Returns the folder that is or will be there: the link's target, or `path`."""
    path = Path(path)
    kind = path_kind(path, f"{name} '{path}'")
    if kind == "directory":
        if not os.access(path, os.W_OK | os.X_OK):
            raise UsageError(f"{name} '{path}' is a folder that cannot be written")
        check_room(path, name)
        return path
    if kind != "missing":
        raise UsageError(f"{name} '{path}' is a file, not a folder" if kind == "file"
                         else f"{name} '{path}' is not a folder (a device, pipe or socket)")
    target, what = _output_target(path, name, kind)
    _check_can_create(target.parent, what)
    check_room(target, name)
    return target


def make_output_folder(path, name):
    """check_output_folder, then the folder made where it is missing (at a link's target): returns `path`."""
    target = check_output_folder(path, name)
    try:
        Path(target).mkdir(exist_ok=True)
    except OSError as error:
        raise UsageError(f"{name} '{path}': cannot create the folder: {error.strerror}") from None
    return Path(path)


def record_format(path, name="--output"):
    """'csv' or 'json' from an output file name (.csv; .json or .jsonl = JSON Lines; anything else is a usage
    error), once check_output_file has passed it."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".csv", ".json", ".jsonl"):
        raise UsageError(f"{name} '{path}': the name must end in .csv or .json (JSON Lines)")
    check_output_file(path, name)
    return "csv" if suffix == ".csv" else "json"


IMAGE_FORMATS = ("png", "svg", "pdf")  # the figures' file types (matplotlib writes them all)


def image_formats_text():
    """IMAGE_FORMATS as a message says them: ".png, .svg or .pdf"."""
    names = [f".{extension}" for extension in IMAGE_FORMATS]
    return f"{', '.join(names[:-1])} or {names[-1]}"


def check_image_output(path, name="--plot"):
    """A figure's file: its name ends in .png, .svg or .pdf, and check_output_file passes it."""
    if Path(path).suffix.lower().lstrip(".") not in IMAGE_FORMATS:
        raise UsageError(f"{name} '{path}': the name must end in {image_formats_text()}")
    check_output_file(path, name)


class LostOutput(Exception):
    """Standard output could not be written (a full disk, /dev/full, a pipe whose reader is gone)."""


class _CheckedOutput:
    """sys.stdout as run_main sees it: a failed write or flush raises LostOutput with the reason."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        try:
            return self._stream.write(text)
        except OSError as error:
            raise LostOutput(error.strerror or str(error)) from None

    def flush(self):
        try:
            self._stream.flush()
        except OSError as error:
            raise LostOutput(error.strerror or str(error)) from None

    def __getattr__(self, name):
        return getattr(self._stream, name)


def run_main(program, main, argv):
    """Runs main(argv) and returns its exit status, so that no input ends a tool in a Python traceback: an
    unexpected exception (a bug this tool did not foresee) is one line naming its type, exit 1. Output that
    cannot be written is one line too, `PROGRAM: error: cannot write to standard output: REASON`, exit 1,
    never exit 0 with the output lost (as every C++ program, apps/common/include/apps/program_exit.hpp)."""
    # SIGTERM (a batch system's time limit, kill) and SIGHUP (a closed terminal) end a tool as Ctrl-C does: its
    # launches are stopped with their ranks (a compare stopped by SIGTERM left them running, without a word).
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.default_int_handler)
    real_stdout = sys.stdout
    sys.stdout = _CheckedOutput(real_stdout)
    try:
        try:
            status = main(argv)
        except SystemExit as done:  # argparse's --help, --version and usage errors, a tool's sys.exit
            status = done.code
        sys.stdout.flush()
        return status
    except LostOutput as error:
        print(f"{program}: error: cannot write to standard output: {error}", file=sys.stderr)
        # What is still buffered cannot be written either: the interpreter's last flush must not try again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), real_stdout.fileno())
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print(f"{program}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:  # noqa: BLE001 (the last resort: one line instead of a traceback)
        print(f"{program}: error: unexpected {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_FAILURE
    finally:
        sys.stdout = real_stdout
