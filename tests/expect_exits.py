#!/usr/bin/env python3
"""expect_exits.py [--jobs N] --case NAME CODE REGEX COMMAND... [--case ...]: expect_exit.sh for many cases at
once, run side by side. Each case passes when its COMMAND exits with exactly CODE and a line of its combined
output matches the extended regular expression REGEX ("once:REGEX": exactly one line matches). Every case is
reported by NAME; the exit status is 1 when any case failed.

Why side by side: a job that fails spends most of its time in the launcher (Open MPI's waits 1-2 s after a rank
exits non-zero before it ends the others), so the refusal classes of a program, one launch each, took a CTest
slot for minutes when run as one test each, with the cores idle.
"""
import concurrent.futures
import os
import re
import signal
import subprocess
import sys

TIMEOUT = 120  # seconds for one case: a hang ends that case, named, not the whole test at CTest's limit


def parse_cases(words):
    """[(name, code, regex, command)] from the words after the options: each case starts at '--case'."""
    cases = []
    while words:
        if words[0] != "--case" or len(words) < 5:
            raise SystemExit(f"expect_exits: error: expected '--case NAME CODE REGEX COMMAND...', got {words[:5]}")
        end = words.index("--case", 1) if "--case" in words[1:] else len(words)
        name, code, regex, *command = words[1:end]
        if not command:
            raise SystemExit(f"expect_exits: error: case {name} has no command")
        cases.append((name, int(code), regex, command))
        words = words[end:]
    return cases


def run_case(case):
    """(passed, report) of one case."""
    name, code, regex, command = case
    env = dict(os.environ)
    if "OMPI_MCA_orte_tmpdir_base" in env:  # Open MPI's session tree, one per job as one per test (ProxyMpiTest.cmake)
        env["OMPI_MCA_orte_tmpdir_base"] = os.path.join(env["OMPI_MCA_orte_tmpdir_base"], name)
        os.makedirs(env["OMPI_MCA_orte_tmpdir_base"], exist_ok=True)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               start_new_session=True, env=env)
    try:
        out, _ = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, _ = process.communicate()
        return False, f"FAIL {name}: no exit after {TIMEOUT} s\n{out.decode(errors='replace')}"
    text = out.decode(errors="replace")
    once = regex.startswith("once:")
    pattern = re.compile(regex[5:] if once else regex)
    matches = sum(1 for line in text.splitlines() if pattern.search(line))
    if process.returncode != code:
        return False, f"FAIL {name}: exited {process.returncode}, expected {code}\n{text}"
    if (once and matches != 1) or matches == 0:
        expected = "exactly 1 line" if once else "a line"
        return False, f"FAIL {name}: {matches} lines match, expected {expected}: {regex}\n{text}"
    return True, f"ok   {name}"


def main():
    words = sys.argv[1:]
    jobs = 6  # cases run at once
    if words[:1] == ["--jobs"] and len(words) > 1 and words[1].isdigit() and int(words[1]) > 0:
        jobs, words = int(words[1]), words[2:]
    cases = parse_cases(words)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(run_case, cases))
    for _, report in results:
        print(report)
    failed = sum(1 for passed, _ in results if not passed)
    print(f"expect_exits: {len(cases) - failed} of {len(cases)} cases passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
