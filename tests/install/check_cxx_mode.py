#!/usr/bin/env python3
"""check_cxx_mode.py BUILD_DIR WORK_DIR --cxx CXX: the installed C++ headers in an older language mode. pkg-config
proxyrt gives -std=c++20; a user's -std=c++17 after it wins, and the headers must then say so in one line
(proxy/cxx20.hpp) before the errors an older language makes of them. The libraries of BUILD_DIR are installed into
WORK_DIR/prefix; then, compiled as a user would, with `CXX $(pkg-config --cflags proxyrt) ...`:
  - `#include <proxy/proxy.hpp>` with -std=c++17 fails, and the compiler's first error is that line, exactly;
  - so does every other installed C++ header on its own (-Wfatal-errors: stopped at the first error), but
    proxy/version.hpp, macros any C++ (and C) can read, to test PROXY_VERSION before the other headers;
  - <proxy/proxy.h>, the C API, compiles with -std=c++17 (it is for C and any C++);
  - `#include <proxy/proxy.hpp>` compiles with the module's flags alone (C++20).
Prints one line per check; exits 1 naming each that failed."""
import argparse
import concurrent.futures
import re
import subprocess
import sys
from pathlib import Path

from check_doc_examples import pkg_config
from check_readme_api import install_library, with_pkg_config_path

LINE = ("proxy: these headers need C++20 (-std=c++20, which pkg-config proxyrt gives); the compiler is in an older "
        "mode")
FIRST_ERROR = re.compile(r"^.*?\berror: (.*)$", re.M)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("build_dir")
    parser.add_argument("work_dir")
    parser.add_argument("--cxx", required=True, help="the C++ compiler of the build")
    return parser.parse_args()


def first_error(output):
    """The text of the compiler's first error line ("" if none)."""
    found = FIRST_ERROR.search(output)
    return found.group(1) if found else ""


def compile_line(compiler, work, include, flags):
    """Compile a one-line program that includes `include` (syntax only) with `compiler` (the compiler and
    pkg-config proxyrt's flags) and then `flags`; returns (exit status, output)."""
    name = "_".join([re.sub(r"\W", "_", include)] + [re.sub(r"\W", "", flag) for flag in flags])
    source = work / f"{name}.cpp"
    source.write_text(f"#include <{include}>\nint main() {{ return 0; }}\n")
    done = subprocess.run([*compiler, *flags, "-fsyntax-only", str(source)], capture_output=True, text=True, cwd=work)
    return done.returncode, done.stdout + done.stderr


def main():
    args = parse_args()
    work = Path(args.work_dir)
    prefix = install_library(args.build_dir, work)
    compiler = [args.cxx, *pkg_config(["--cflags", "proxyrt"], with_pkg_config_path(prefix))]
    include_dir = prefix / "include"
    headers = sorted(str(h.relative_to(include_dir)) for h in (include_dir / "proxy").rglob("*.hpp"))
    others = [h for h in headers if h not in ("proxy/proxy.hpp", "proxy/version.hpp")]
    failed = []

    def expect(ok, what, output):
        print(f"{'ok    ' if ok else 'FAILED'}  {what}")
        if not ok:
            failed.append(f"{what}:\n{output}")

    status, output = compile_line(compiler, work, "proxy/proxy.hpp", ["-std=c++17"])
    expect(status != 0 and first_error(output) in (f'#error "{LINE}"', f'"{LINE}"'),
           "proxy/proxy.hpp with -std=c++17 fails, first with the line", output)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        answers = pool.map(lambda h: compile_line(compiler, work, h, ["-std=c++17", "-Wfatal-errors"]), others)
        for header, (status, output) in zip(others, answers):
            expect(status != 0 and first_error(output) in (f'#error "{LINE}"', f'"{LINE}"'),
                   f"{header} with -std=c++17 fails, first with the line", output)
    status, output = compile_line(compiler, work, "proxy/proxy.h", ["-std=c++17"])
    expect(status == 0, "proxy/proxy.h (the C API) compiles with -std=c++17", output)
    status, output = compile_line(compiler, work, "proxy/proxy.hpp", [])
    expect(status == 0, "proxy/proxy.hpp compiles with pkg-config proxyrt's flags alone", output)
    print(f"check_cxx_mode: {len(others) + 3 - len(failed)} of {len(others) + 3} checks passed "
          f"({len(others) + 1} C++ headers)")
    if failed:
        sys.exit("\n\n".join(failed))


if __name__ == "__main__":
    main()
