#!/usr/bin/env python3
"""check_no_avx512.py BUILD_DIR PREFIX: install the library into PREFIX and disassemble it; fail if any
function uses AVX-512 (zmm) or AVX (ymm) registers unless it is one of the run-time-dispatched variants,
which carry their ISA in their name (proxy/src/copy.cpp: stream_avx512, stream_avx2). The installed library
must run on every x86-64 node, whatever CPU built it. Exit 77 (skipped) without objdump."""
import argparse
import pathlib
import re
import shutil
import subprocess
import sys

SKIPPED = 77
FUNCTION = re.compile(r"^[0-9a-f]+ <(.+)>:$")
WIDE_REGISTER = re.compile(r"%([yz]mm)\d+")


def parse_args():
    """BUILD_DIR and PREFIX from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("prefix")
    return parser.parse_args()


def install_library(build_dir, prefix):
    """The library component (library, headers, package config) into a scratch prefix."""
    shutil.rmtree(prefix, ignore_errors=True)
    subprocess.run(["cmake", "--install", build_dir, "--prefix", prefix, "--component", "Unspecified"],
                   check=True, stdout=subprocess.DEVNULL)


def installed_libraries(prefix):
    """Every static or shared library file under the prefix."""
    found = [p for p in pathlib.Path(prefix).rglob("lib*") if p.is_file() and not p.is_symlink()
             and (p.suffix == ".a" or ".so" in p.name)]
    if not found:
        sys.exit(f"check_no_avx512: error: no library installed under {prefix}")
    return found


def offending_functions(library):
    """(function, register kind) for each function of `library` using ymm/zmm outside dispatched variants."""
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", str(library)], check=True,
                             capture_output=True, text=True).stdout
    offenders, function = {}, None
    for line in listing.splitlines():
        header = FUNCTION.match(line)
        if header:
            function = header.group(1)
            continue
        register = WIDE_REGISTER.search(line)
        if register and function and "avx" not in function:
            offenders.setdefault(function, register.group(1))
    return offenders


def main():
    """Install, disassemble, report."""
    args = parse_args()
    if shutil.which("objdump") is None:
        print("check_no_avx512: objdump not found; skipped")
        return SKIPPED
    install_library(args.build_dir, args.prefix)
    failed = False
    for library in installed_libraries(args.prefix):
        offenders = offending_functions(library)
        for function, register in sorted(offenders.items()):
            print(f"{library.name}: {function} uses {register} registers outside run-time dispatch")
        failed = failed or bool(offenders)
        if not offenders:
            print(f"{library.name}: no AVX/AVX-512 outside run-time-dispatched functions")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
