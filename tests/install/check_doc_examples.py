#!/usr/bin/env python3
"""check_doc_examples.py BUILD_DIR WORK_DIR --source DIR --contexts DIR --cxx CXX --mpiexec CMD: every C++, C,
Fortran and CMake example in README.md and docs/*.md works against the installed package: the code compiles, the
whole programs among it run on 2 ranks, the CMake projects configure. The libraries of BUILD_DIR are installed
into WORK_DIR/prefix and each example is compiled as a user would, with the flags of its pkg-config module
(proxyrt, proxyrt-c, proxyrt-fortran) and the compiler the module names (the C++ compiler of the build, the
module's mpicc or mpifort); a CMake project finds the package through CMAKE_PREFIX_PATH.

Every ```cpp (```c++), ```c, ```fortran and ```cmake block says on the line just above its fence what it is:
  <!-- example: compile CONTEXT -->    compiled (not linked) inside CONTEXT; a CMake project configured
  <!-- example: run CONTEXT -->        compiled inside CONTEXT, linked, run on 2 ranks; must exit 0
  <!-- example: not compiled: WHY -->  shown but not compiled (misuse, pseudo-code): counted and named
A block without one fails the test, named by file and line, and so does a fence without a language whose
lines read as C or C++ (an #include, a call ending in `);`). A context is a file in --contexts (CONTEXT.cpp, .c,
.f90 or .cmake): the example's surroundings, what it leaves to the application, with one line holding
`@example@` (in a comment) that the block replaces. In C and C++ the block's #include lines go to the top of
the file, and a line whose code is `...` (an elision) is left out. `#line` directives make the compiler name
the doc's file and line. The C++ fragments of one context are compiled as one file, each in a namespace of its
own with its own copy of the context (so a context holds declarations and the function around the block), and
an error is put down to the block whose lines the compiler names."""
import argparse
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import check_readme_api as readme

LANGUAGES = {"cpp": "cpp", "c++": "cpp", "c": "c", "fortran": "fortran", "cmake": "cmake"}
CONTEXT_SUFFIX = {"cpp": ".cpp", "c": ".c", "fortran": ".f90", "cmake": ".cmake"}
SOURCE_SUFFIX = {"cpp": ".cpp", "c": ".c", "fortran": ".F90"}  # .F90: preprocessed, for #line
FENCE = re.compile(r"^(\s*)```\s*([^\s`]*)\s*$")  # indented too: a block in a list item
MARKER = re.compile(r"^<!--\s*example:\s*(.*?)\s*-->\s*$")
MARKER_KIND = re.compile(r"^(compile|run) ([\w-]+)$|^not compiled: (\S.*)$")
INCLUDE = re.compile(r"^\s*#\s*include\s*[<\"]")
CALL_STATEMENT = re.compile(r"\w\(.*\);\s*$")
ELISION = re.compile(r"^\s*\.\.\.\s*(//.*)?$")
SLOT = "@example@"
ERROR_AT = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+):(\d+:)? (fatal )?error", re.M)
RUN_TIMEOUT_S = 120


@dataclass
class Block:
    """One fenced code block of a doc: where it is, its language and what its marker says."""
    doc: str                 # the doc's path relative to the source tree
    line: int                # the line of its opening fence
    language: str            # cpp, c or fortran
    kind: str                # compile, run or skip
    context: str = ""
    reason: str = ""
    text: list = field(default_factory=list)

    def where(self):
        """doc:line, as the failures name it."""
        return f"{self.doc}:{self.line}"


def parse_args():
    """BUILD_DIR, WORK_DIR and where the docs, contexts, compiler and launcher are."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("work_dir")
    parser.add_argument("--source", required=True, help="the source tree: README.md and docs/*.md")
    parser.add_argument("--contexts", required=True, help="the folder of the contexts")
    parser.add_argument("--cxx", required=True, help="the C++ compiler the build used")
    parser.add_argument("--mpiexec", required=True, help="launcher command line (its -n follows)")
    parser.add_argument("--fortran", action="store_true", help="the build has the Fortran module")
    parser.add_argument("--jobs", type=int, default=2, help="compilers run at once (2)")
    parser.add_argument("--docs", nargs="*", help="only these docs (paths relative to --source)")
    args = parser.parse_args()
    args.contexts = str(Path(args.contexts).resolve())  # the compilers run in WORK_DIR
    return args


def looks_like_code(lines):
    """A fence without a language whose lines read as C or C++: an #include, or a call ending a statement."""
    return any(INCLUDE.match(line) or CALL_STATEMENT.search(re.sub(r"//.*", "", line)) for line in lines)


def read_blocks(source, doc):
    """(the code blocks of one doc, the problems found in its fences and markers)."""
    lines = (source / doc).read_text().splitlines()
    blocks, problems = [], []
    index = 0
    while index < len(lines):
        marker = MARKER.match(lines[index].strip())
        opening = FENCE.match(lines[index])
        if marker and not (index + 1 < len(lines) and FENCE.match(lines[index + 1])):
            problems.append(f"{doc}:{index + 1}: an example marker not directly above a fence")
        if not opening:
            index += 1
            continue
        indent = len(opening.group(1))
        end = next((i for i in range(index + 1, len(lines)) if lines[i].strip() == "```"), None)
        if end is None:
            problems.append(f"{doc}:{index + 1}: a fence that is never closed")
            break
        language = opening.group(2).lower()
        body = [line[indent:] if not line[:indent].strip() else line.lstrip() for line in lines[index + 1:end]]
        above = MARKER.match(lines[index - 1].strip()) if index > 0 else None
        where = f"{doc}:{index + 1}"
        if language not in LANGUAGES:
            if above:
                problems.append(f"{where}: an example marker above a ```{language} block (only "
                                f"{', '.join('```' + name for name in LANGUAGES)} are compiled)")
            elif not language and looks_like_code(body):
                problems.append(f"{where}: a fence without a language holds what reads as code: "
                                "write ```cpp (or ```c) and mark it")
        elif not above:
            problems.append(f"{where}: ```{language} block without an example marker: put "
                            "`<!-- example: compile CONTEXT -->` (or `run CONTEXT`, or `not compiled: WHY`) "
                            "on the line above its fence")
        else:
            kind = MARKER_KIND.match(above.group(1))
            if not kind:
                problems.append(f"{where}: unreadable example marker '{above.group(1)}' (compile CONTEXT, "
                                "run CONTEXT or not compiled: WHY)")
            elif kind.group(1) == "run" and LANGUAGES[language] == "cmake":
                problems.append(f"{where}: a ```cmake block is configured (compile CONTEXT), not run")
            elif kind.group(3):
                blocks.append(Block(doc, index + 1, LANGUAGES[language], "skip", reason=kind.group(3)))
            else:
                blocks.append(Block(doc, index + 1, LANGUAGES[language], kind.group(1), kind.group(2), text=body))
        index = end + 1
    return blocks, problems


def source_text(block, context, context_name):
    """The file to compile: the block put into its context, with #line directives back to the doc."""
    template = context.read_text().splitlines()
    slots = [i for i, line in enumerate(template) if SLOT in line]
    if len(slots) != 1:
        raise ValueError(f"{context_name} has {len(slots)} lines with {SLOT} (one is the block's place)")
    slot = slots[0]
    top, body = [], []
    for number, line in enumerate(block.text, start=block.line + 1):
        if block.language in ("cpp", "c") and INCLUDE.match(line):
            top += [f'#line {number} "{block.doc}"', line]
            body.append("")
        elif block.language in ("cpp", "c") and ELISION.match(line):
            body.append("")
        else:
            body.append(line)
    if block.language == "cmake":  # no #line: check_cmake_block says where the block is
        return "\n".join([*template[:slot], *body, *template[slot + 1:], ""])
    return "\n".join([*top, f'#line 1 "{context_name}"', *template[:slot], f'#line {block.line + 1} "{block.doc}"',
                      *body, f'#line {slot + 2} "{context_name}"', *template[slot + 1:], ""])


def shared_source_text(group, context, context_name):
    """One file for the C++ fragments that share a context (the headers are parsed once): every block's
    #include lines and the context's first, then each block in its own copy of the rest of the context, in a
    namespace of its own."""
    hoisted, copies = [], []
    for number, block in enumerate(group):
        lines = source_text(block, context, context_name).splitlines()
        start = lines.index(f'#line 1 "{context_name}"')
        hoisted += lines[:start]
        copies += [f"namespace doc_example_{number} {{",
                   *("" if INCLUDE.match(line) else line for line in lines[start:]),
                   f"}}  // namespace doc_example_{number}"]
    includes = [f'#line {number} "{context_name}"\n{line}'
                for number, line in enumerate(context.read_text().splitlines(), start=1) if INCLUDE.match(line)]
    return "\n".join([*hoisted, *includes, *copies, ""])


def blocks_with_errors(output, group):
    """The blocks of a group that the compiler's errors name (by doc and line); all of them if it names none."""
    named = [block for block in group
             if any(error["file"] == block.doc and block.line < int(error["line"]) <= block.line + len(block.text)
                    for error in ERROR_AT.finditer(output))]
    return named or group


def pkg_config(arguments, environment):
    """pkg-config's answer, split into words."""
    done = subprocess.run(["pkg-config", *arguments], capture_output=True, text=True, env=environment)
    if done.returncode != 0:
        sys.exit(f"pkg-config {' '.join(arguments)} failed: {done.stderr}")
    return shlex.split(done.stdout)


class Toolchain:
    """How each language is compiled against the installed package: compiler and flags from pkg-config."""

    def __init__(self, prefix, args):
        self.prefix = prefix
        self.environment = dict(readme.with_pkg_config_path(prefix), LD_LIBRARY_PATH=readme.library_path(prefix))
        self.compiler = {"cpp": [args.cxx]}
        self.cflags = {"cpp": pkg_config(["--cflags", "proxyrt"], self.environment) + ["-I", args.contexts]}
        self.libs = {"cpp": pkg_config(["--libs", "proxyrt"], self.environment)}
        # What C23 compilers refuse (GCC 14 too), GCC 12 only warns about: a misspelt function would pass.
        self.compiler["c"] = pkg_config(["--variable=mpicc", "proxyrt-c"], self.environment) + [
            "-std=c11", "-Werror=implicit-function-declaration", "-Werror=incompatible-pointer-types",
            "-Werror=int-conversion"]
        self.cflags["c"] = pkg_config(["--cflags", "proxyrt-c"], self.environment)
        self.libs["c"] = pkg_config(["--libs", "proxyrt-c"], self.environment)
        if args.fortran:
            self.compiler["fortran"] = pkg_config(["--variable=mpifort", "proxyrt-fortran"], self.environment)
            self.cflags["fortran"] = ["-cpp"] + pkg_config(["--cflags", "proxyrt-fortran"], self.environment)
            self.libs["fortran"] = pkg_config(["--libs", "proxyrt-fortran"], self.environment)

    def compile_command(self, block, source, program):
        """The compiler's command line: syntax only, or a program to run."""
        output = ["-o", str(program)] if block.kind == "run" else ["-fsyntax-only"]
        libs = self.libs[block.language] if block.kind == "run" else []
        return [*self.compiler[block.language], *self.cflags[block.language], str(source), *output, *libs]


def check_group(group, number, args, tools, work):
    """Compile the C++ fragments of one context together; returns [(block, problem or None, what was done)]."""
    if len(group) == 1:
        return check_block(group[0], number, args, tools, work)
    context_name = f"{group[0].context}{CONTEXT_SUFFIX['cpp']}"
    context = Path(args.contexts) / context_name
    if not context.is_file():
        return [(block, f"{block.where()}: no context {context_name} in {args.contexts}", "") for block in group]
    source = work / f"{number:02d}-{group[0].context}.cpp"
    try:
        source.write_text(shared_source_text(group, context, context_name))
    except ValueError as bad_context:
        return [(block, f"{block.where()}: {bad_context}", "") for block in group]
    command = tools.compile_command(group[0], source, None)
    done = subprocess.run(command, capture_output=True, text=True, cwd=work, env=tools.environment)
    if done.returncode == 0:
        return [(block, None, f"compiled (with {len(group) - 1} other block(s) of {context_name})") for block in group]
    failed = blocks_with_errors(done.stdout + done.stderr, group)
    return [(block, (f"{block.where()}: ```cpp block (compile {block.context}) does not compile:\n"
                     f"+ {shlex.join(command)}\n{done.stdout}{done.stderr}") if block in failed else None,
             "compiled" if block not in failed else "") for block in group]


def check_block(block, number, args, tools, work):
    """Compile (and for `run`, link and run) one block; returns [(block, problem or None, what was done)]."""
    return [check_one_block(block, number, args, tools, work)]


def check_one_block(block, number, args, tools, work):
    """check_block's work: (block, problem or None, what was done)."""
    context_name = f"{block.context}{CONTEXT_SUFFIX[block.language]}"
    context = Path(args.contexts) / context_name
    if not context.is_file():
        return block, f"{block.where()}: no context {context_name} in {args.contexts}", ""
    if block.language == "cmake":
        return check_cmake_block(block, number, context, context_name, tools, work)
    if block.language not in tools.compiler:
        return block, None, "not compiled: this build has no Fortran module"
    source = work / f"{number:02d}-{Path(block.doc).stem}-{block.line}{SOURCE_SUFFIX[block.language]}"
    try:
        source.write_text(source_text(block, context, context_name))
    except ValueError as bad_context:
        return block, f"{block.where()}: {bad_context}", ""
    program = source.with_suffix("")
    command = tools.compile_command(block, source, program)
    done = subprocess.run(command, capture_output=True, text=True, cwd=work, env=tools.environment)
    if done.returncode != 0:
        return block, (f"{block.where()}: ```{block.language} block ({block.kind} {block.context}) does not "
                       f"compile:\n+ {shlex.join(command)}\n{done.stdout}{done.stderr}"), ""
    if block.kind == "compile":
        return block, None, "compiled"
    launch = [*shlex.split(args.mpiexec), "-n", "2", str(program)]
    try:
        ran = subprocess.run(launch, capture_output=True, text=True, cwd=work, env=tools.environment,
                             timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return block, f"{block.where()}: the program did not end within {RUN_TIMEOUT_S} s: {shlex.join(launch)}", ""
    if ran.returncode != 0:
        return block, (f"{block.where()}: the program exited {ran.returncode} on 2 ranks:\n+ {shlex.join(launch)}\n"
                       f"{ran.stdout}{ran.stderr}"), ""
    return block, None, "compiled, linked, ran on 2 ranks"


def check_cmake_block(block, number, context, context_name, tools, work):
    """Configure the CMake project the block makes in its context against the installed package."""
    project = work / f"{number:02d}-{Path(block.doc).stem}-{block.line}"
    project.mkdir()
    try:
        text = source_text(block, context, context_name)
    except ValueError as bad_context:
        return block, f"{block.where()}: {bad_context}", ""
    (project / "CMakeLists.txt").write_text(text)
    first = next(i for i, line in enumerate(context.read_text().splitlines()) if SLOT in line) + 1
    command = ["cmake", "-S", str(project), "-B", str(project / "build"), f"-DCMAKE_PREFIX_PATH={tools.prefix}"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=work, env=tools.environment)
    if done.returncode != 0:
        return block, (f"{block.where()}: ```cmake block ({block.kind} {block.context}) does not configure (it is "
                       f"lines {first}-{first + len(block.text) - 1} of {project / 'CMakeLists.txt'}):\n"
                       f"+ {shlex.join(command)}\n{done.stdout}{done.stderr}"), ""
    return block, None, "configured"


def main():
    """Read every doc's blocks, refuse unmarked ones, install, then compile (and run) the marked ones."""
    args = parse_args()
    started = time.monotonic()
    source = Path(args.source)
    docs = args.docs or ["README.md"] + sorted(str(p.relative_to(source)) for p in (source / "docs").glob("*.md"))
    blocks, problems = [], []
    for doc in docs:
        found, wrong = read_blocks(source, doc)
        blocks += found
        problems += wrong

    if not args.docs:  # a context no block names is left over from an example that went
        used = {block.context for block in blocks}
        problems += [f"{args.contexts}/{context.name}: a context no example names"
                     for context in sorted(Path(args.contexts).iterdir()) if context.stem not in used]

    work = Path(args.work_dir)
    prefix = readme.install_library(args.build_dir, work)
    tools = Toolchain(prefix, args)
    examples = work / "examples"
    examples.mkdir()
    # C++ fragments of one context share a file; the larger files start first.
    groups = {}
    for block in blocks:
        if block.kind != "skip":
            shared = block.kind == "compile" and block.language == "cpp"
            groups.setdefault(block.context if shared else block.where(), []).append(block)
    tasks = sorted(groups.values(), key=len, reverse=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = [result for done in pool.map(lambda numbered: check_group(*numbered, args, tools, examples),
                                                [(group, number) for number, group in enumerate(tasks)])
                   for result in done]
    results.sort(key=lambda result: (docs.index(result[0].doc), result[0].line))
    for block, problem, done in results:
        if problem:
            problems.append(problem)
        else:
            print(f"{block.where()}: ```{block.language} ({block.kind} {block.context}): {done}")
    for block in blocks:
        if block.kind == "skip":
            print(f"{block.where()}: ```{block.language}: not compiled: {block.reason}")

    per_doc = {doc: sum(block.doc == doc for block in blocks) for doc in docs}
    print("blocks: " + ", ".join(f"{doc} {count}" for doc, count in per_doc.items() if count)
          + f"; {len(blocks)} in all: {sum(b.kind == 'compile' and b.language != 'cmake' for b in blocks)} compiled, "
          f"{sum(b.language == 'cmake' and b.kind == 'compile' for b in blocks)} configured, "
          f"{sum(b.kind == 'run' for b in blocks)} run, {sum(b.kind == 'skip' for b in blocks)} not compiled "
          f"({time.monotonic() - started:.1f} s)")
    if problems:
        print(f"\n{len(problems)} doc example(s) wrong:\n\n" + "\n\n".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
