#!/usr/bin/env python3
"""docs/options.md from each program's --help: --write regenerates the table of every program's options,
--check verifies that the page has a section per program naming each of its options (so a hand edit is
fine, a missing option is not). Programs are given as NAME=PATH.
usage: options_doc.py (--write | --check) DOC NAME=PATH..."""
import argparse
import re
import subprocess
import sys

OPTION = re.compile(r"^  (?:-h, )?(--[\w-]+)(?: (\S+))?(?:\s{2,}(.*))?$")
HEADER = """# Options of every program

Generated from each program's `--help` by `tests/cli/options_doc.py --write docs/options.md NAME=PATH...`
(the `cli.options_doc` test checks that every option below is still there). The conventions (README,
"Command-line conventions"): `--key value` or `--key=value`; lists are comma-separated; sizes (grid points,
matrix orders and panel widths, bytes) take K, M, G (powers of 1024), counts (iterations, repetitions, ranks,
threads) are plain decimal integers; every program has `--help`, `--version` and `--show-config`, honours
`PROXY_VERBOSE=1` like `--verbose`, and exits 0 (success), 1 (run-time failure), 2 (usage error, one line
`PROGRAM: error: ...` on every rank) or 3 (failed verification). Every program reads the same PROXY_*
variables (see any `--help`, or the README's Environment table).
"""


def help_text(path):
    """The --help output of one program."""
    done = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"{path} --help exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def options_of(text):
    """[(option, value name, description)] from a --help text's Options section."""
    options, inside = [], False
    for line in text.splitlines():
        if line.strip() == "Options:":
            inside = True
            continue
        if inside and not line.strip():
            break
        if not inside:
            continue
        match = OPTION.match(line)
        if match:
            options.append([match.group(1), match.group(2) or "", match.group(3) or ""])
        elif options:
            options[-1][2] = (options[-1][2] + " " + line.strip()).strip()
    return options


def write(doc, programs):
    """Writes the whole page."""
    parts = [HEADER]
    for name, path in programs:
        parts.append(f"\n## {name}\n\n| Option | Value | Meaning |\n|---|---|---|\n")
        for option, value, description in options_of(help_text(path)):
            cells = [f"`{option}`", f"`{value}`" if value else "", description]
            parts.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |\n")
    with open(doc, "w") as handle:
        handle.write("".join(parts))


def check(doc, programs):
    """Problems: a program without a section, or an option its section does not name."""
    text = open(doc).read()
    problems = []
    for name, path in programs:
        match = re.search(rf"^## {re.escape(name)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
        if not match:
            problems.append(f"{doc}: no section '## {name}'")
            continue
        for option, _, _ in options_of(help_text(path)):
            if f"`{option}`" not in match.group(1):
                problems.append(f"{doc}: section {name} does not mention `{option}`")
    return problems


def main():
    """Writes or checks the page."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="regenerate DOC")
    mode.add_argument("--check", action="store_true", help="check DOC names every option")
    parser.add_argument("doc", help="docs/options.md")
    parser.add_argument("programs", nargs="+", help="NAME=PATH of each program")
    args = parser.parse_args()
    programs = []
    for item in args.programs:
        name, sep, path = item.partition("=")
        if not sep:
            parser.error(f"expected NAME=PATH, got '{item}'")
        programs.append((name, path))
    if args.write:
        write(args.doc, programs)
        return 0
    problems = check(args.doc, programs)
    for problem in problems:
        print(problem)
    print("options doc: ok" if not problems else f"options doc: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
