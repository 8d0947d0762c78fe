#!/usr/bin/env bash
# expect_failure.sh REGEX COMMAND...: passes when COMMAND exits non-zero AND its combined output matches
# the extended regular expression REGEX. Used for error-path tests (bad input, timeouts, peer failure);
# CTest's TIMEOUT catches a command that hangs instead of failing.
set -u
regex=$1; shift
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 0 ]; then echo "expect_failure: command exited 0, expected a failure"; exit 1; fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
  echo "expect_failure: exit code $rc but output does not match: $regex"; exit 1
fi
echo "expect_failure: exit code $rc and output matches as expected"
