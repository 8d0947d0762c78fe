#!/usr/bin/env bash
# expect_output.sh PATTERN... -- COMMAND...: passes when COMMAND exits 0 AND its combined output matches
# every PATTERN (extended regular expressions); a pattern written "once:REGEX" must match exactly one line.
# (CTest's PASS_REGULAR_EXPRESSION would ignore the exit code and accept any one of the patterns.)
set -u
patterns=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do patterns+=("$1"); shift; done
shift
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 0 ]; then echo "expect_output: command exited $rc, expected 0"; exit 1; fi
for pattern in "${patterns[@]}"; do
  if [ "${pattern#once:}" != "$pattern" ]; then
    count=$(printf '%s\n' "$out" | grep -Ec -- "${pattern#once:}")
    if [ "$count" -ne 1 ]; then echo "expect_output: $count lines match, expected exactly 1: ${pattern#once:}"; exit 1; fi
  elif ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
    echo "expect_output: output does not match: $pattern"; exit 1
  fi
done
echo "expect_output: exit code 0 and all ${#patterns[@]} patterns match"
