"""Where a tool finds the project's programs when no option names one (compare's --driver, compare-panels'
--driver): `$PROXY_BIN_DIR/<build name>` when that variable is set (a build's bin/: the test suite sets it,
so that a build in any folder runs its own programs); else the program beside the tool under its installed
name, when the tool runs from an installed prefix's bin/ (cmake/ProxyInstallPrograms.cmake: redblack3d,
proxy-summa, ...); else build/bin/<build name> of the source tree the tool belongs to (the release preset's
folder). A tool that runs another tool (sweep --plot runs plot) finds it beside itself, under either name
(companion_tool). Nothing is checked here: the tool says after parsing its other options whether the program
exists."""
import os
from pathlib import Path

BIN_DIR_VARIABLE = "PROXY_BIN_DIR"
# toolkit/ lies in apps/ of the source tree, or in <prefix>/share/proxy when installed.
_SOURCE_ROOT = Path(__file__).resolve().parents[2]


def executable(path):
    """Whether path is an executable file."""
    return os.path.isfile(path) and os.access(path, os.X_OK)  # (Path.is_file raised on a name too long)


def default_program(tool_file, build_name, installed_name, environ=None):
    """The path a tool (its __file__) runs a program by when no option names one (see the module's doc)."""
    environ = os.environ if environ is None else environ
    if environ.get(BIN_DIR_VARIABLE):
        return str(Path(environ[BIN_DIR_VARIABLE]) / build_name)
    installed = Path(tool_file).resolve().parent / installed_name
    if executable(installed):
        return str(installed)
    return str(_SOURCE_ROOT / "build" / "bin" / build_name)


def companion_tool(tool_file, source_name, installed_name):
    """Another tool beside a tool (its __file__), as the tools are laid out: under its installed name when the
    tool runs from an installed prefix's bin/ (proxy-plot beside proxy-sweep), else under its name in the
    source tree (apps/plot beside apps/sweep). Not checked: the tool says whether it exists."""
    here = Path(tool_file).resolve().parent
    installed = here / installed_name
    return str(installed if executable(installed) else here / source_name)


def missing_program_hint(target):
    """How to get a program (its CMake target) that is not where the default points."""
    return (f"build it with cmake --build BUILD --target {target} and set {BIN_DIR_VARIABLE}=BUILD/bin, "
            f"or name it with --driver")
