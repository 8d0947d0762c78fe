#!/usr/bin/env python3
"""docs/options.md from each program's --help: --write regenerates the table of every program's options,
--check verifies that the page has a section per program naming each of its options (so a hand edit is
fine, a missing option is not). The programs are every entry of tests/cli/vocabulary.py's table (built programs
and scripts), the list the cli.vocabulary test keeps complete: a new program or tool needs a section here too.
usage: options_doc.py (--write | --check) DOC --source SRC --bin BIN --executables executables.txt"""
import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import vocabulary

# An option line of a --help's Options section: CLI11's ("  --n N|NX,NY,NZ  grid points ...") and argparse's
# ("  --modes MODES [MODES ...]", "  -h, --help  show ...").
OPTION = re.compile(r"^  (?:-\w, )?(--[\w-]+)((?: (?!-)\S+)*)(?:\s{2,}(.*))?$")
# An option named in free text (a shell script's or a C example's usage lines).
NAMED = re.compile(r"(?<![\w-])(--[a-z][\w-]*)")
HEADER = """# Options of every program

Generated from each program's `--help` by `tests/cli/options_doc.py --write docs/options.md --source . --bin
build/bin --executables build/tests/cli/executables.txt` (the `cli.options_doc` test checks that every program and
tool of tests/cli/vocabulary.py has a section here and that every option of its `--help` is still there). The
conventions (README, "Command-line conventions"): `--key value` or `--key=value`; lists are comma-separated; sizes
(grid points, matrix orders and panel widths, bytes) take K, M, G (powers of 1024), counts (iterations,
repetitions, ranks, threads) are plain decimal integers; every program has `--help`, `--version` and
`--show-config`, honours `PROXY_VERBOSE=1` like `--verbose`, and exits 0 (success), 1 (run-time failure), 2
(usage error, one line `PROGRAM: error: ...` on every rank) or 3 (failed verification). Every program reads the
same PROXY_* variables (see any `--help`, or the README's Environment table).
"""


def help_text(command):
    """The --help output of one program (a command list), unwrapped (argparse wraps at $COLUMNS)."""
    done = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, env=dict(os.environ, COLUMNS="1000"))
    if done.returncode != 0:
        raise RuntimeError(f"{command[-1]} --help exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def options_of(text, program=""):
    """[(option, value name, description)] from a --help text's Options section (CLI11's "Options:", argparse's
    "options:"), or, for a help without one (a shell script's usage lines), the options it names as its own."""
    options, inside, continued = [], False, False
    for line in text.splitlines():
        if line.strip().lower() in ("options:", "optional arguments:"):
            inside = True  # (argparse's argument groups follow it, each under its own title)
            continue
        if not inside:
            continue
        match = OPTION.match(line)
        if match and match.group(1) not in [option[0] for option in options]:
            options.append([match.group(1), match.group(2).strip(), match.group(3) or ""])
            continued = True
        elif continued and line.startswith("    ") and line.strip():  # a description's next line
            options[-1][2] = (options[-1][2] + " " + line.strip()).strip()
        else:
            continued = False
    if not options:
        options = [[option, "", ""] for option in named_options(text, program)]
    return options


def named_options(text, program):
    """The options a help without an Options section names as its own: those that start a line ("  --version
    print ...") and those of its usage lines (a line that starts with the program's name: "  run-overlap [--ranks
    N]"), not those it names in passing (the launcher's flags proxy-mpiexec adds, an example's program's)."""
    found = []
    for line in text.splitlines():
        first = re.match(r"^\s*(?:-\w, )?(--[\w-]+)", line)
        usage = program and re.match(rf"^\s*(?:usage:\s*)?\S*{re.escape(program)}(\s|$)", line)
        for option in NAMED.findall(line) if usage else [first.group(1)] if first else []:
            if option not in found:
                found.append(option)
    return found


def programs(args):
    """(section name, command) of every entry of vocabulary.py that this build and tree have."""
    built = vocabulary.executables_of_build(args.executables)["program"] | {"proxy-mpiexec"}
    found = []
    for file in sorted(built & set(vocabulary.BUILT)):
        found.append((file, [str(args.bin / file)]))
    for script in sorted(vocabulary.executable_files(args.source) & set(vocabulary.SCRIPTS)):
        found.append((script, [str(args.source / script)]))
    return found


def section(name, text):
    """One program's section: the table of its options, or its usage lines where its help has no table."""
    program = Path(name).name
    options = options_of(text, program)
    parts = [f"\n## {name}\n\n"]
    if all(not value and not description for _, value, description in options):
        mine = [option for option, _, _ in options]
        lines = [line for line in text.splitlines() if any(option in NAMED.findall(line) for option in mine)]
        return "".join(parts) + "```\n" + "\n".join(lines) + "\n```\n"
    parts.append("| Option | Value | Meaning |\n|---|---|---|\n")
    for option, value, description in options:
        cells = [f"`{option}`", f"`{value}`" if value else "", description]
        parts.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |\n")
    return "".join(parts)


def write(doc, found, source):
    """Writes the whole page; the source tree's path in a help (a default program) reads as SOURCE."""
    text = HEADER + "".join(section(name, help_text(command)) for name, command in found)
    Path(doc).write_text(text.replace(str(source.resolve()), "SOURCE"))


def check(doc, found):
    """Problems: a program without a section, or an option its section does not name."""
    text = Path(doc).read_text()
    problems = []
    for name, command in found:
        match = re.search(rf"^## {re.escape(name)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
        if not match:
            problems.append(f"{doc}: no section '## {name}'")
            continue
        for option, _, _ in options_of(help_text(command), Path(name).name):
            if f"`{option}`" not in match.group(1) and not re.search(rf"(?<![\w-]){option}(?![\w-])",
                                                                     match.group(1)):
                problems.append(f"{doc}: section {name} does not mention `{option}`")
    return problems


def main():
    """Writes or checks the page."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="regenerate DOC")
    mode.add_argument("--check", action="store_true", help="check DOC names every option")
    parser.add_argument("doc", help="docs/options.md")
    parser.add_argument("--source", required=True, type=Path, help="the source tree")
    parser.add_argument("--bin", required=True, type=Path, help="the build's bin/ folder")
    parser.add_argument("--executables", required=True, help="executables.txt written by tests/cli/CMakeLists.txt")
    args = parser.parse_args()
    found = programs(args)
    if args.write:
        write(args.doc, found, args.source)
        return 0
    problems = check(args.doc, found)
    for problem in problems:
        print(problem)
    print(f"options doc: {len(found)} programs, ok" if not problems else f"options doc: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
