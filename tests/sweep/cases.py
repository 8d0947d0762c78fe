#!/usr/bin/env python3
"""Discovers the tool tests for CTest: every test case of every tests/sweep/test_*.py, one line each,
`FILE|NAME|CASE|LABELS` (NAME = the class's CTEST_PREFIX + the method name without test_; LABELS from the
class's CTEST_LABELS). CMake runs it at configure time, so a new file or case runs without being listed by
hand. `cases.py run FILE CASE` runs one case and exits 77 when it was skipped (CTest's SKIP_RETURN_CODE)."""
import importlib.util
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
SKIPPED = 77


def load(path):
    """Import a test file as a module."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(HERE))
    spec.loader.exec_module(module)
    return module


def cases(path):
    """(name, case id, labels) of every test in one file."""
    found = []
    suite = unittest.TestLoader().loadTestsFromModule(load(path))
    stack = [suite]
    while stack:
        item = stack.pop()
        if isinstance(item, unittest.TestSuite):
            stack.extend(reversed(list(item)))
            continue
        cls = type(item)
        method = item.id().split(".")[-1]
        prefix = getattr(cls, "CTEST_PREFIX", "sweep")
        found.append((f"{prefix}.{method.removeprefix('test_')}", f"{cls.__name__}.{method}",
                       getattr(cls, "CTEST_LABELS", "sweep")))
    return found


def main(argv):
    """List every case, or run one."""
    if len(argv) >= 3 and argv[0] == "run":
        module = load(Path(argv[1]))
        suite = unittest.TestLoader().loadTestsFromName(argv[2], module)
        result = unittest.TextTestRunner(verbosity=2).run(suite)
        if not result.wasSuccessful():
            return 1
        return SKIPPED if result.skipped and result.testsRun == len(result.skipped) else 0
    for path in sorted(HERE.glob("test_*.py")):
        for name, case, labels in cases(path):
            print(f"{path.name}|{name}|{case}|{labels.replace(';', ',')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
