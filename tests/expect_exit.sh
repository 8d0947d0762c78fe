#!/usr/bin/env bash
# expect_exit.sh CODE REGEX COMMAND...: passes when COMMAND exits with exactly CODE AND its combined output
# matches the extended regular expression REGEX (the exit-code convention: 1 run-time failure, 2 usage
# error, 3 failed verification); a REGEX written "once:REGEX" must match exactly one line (a line every
# rank would print, which rank 0 alone should).
set -u
code=$1 regex=$2; shift 2
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne "$code" ]; then echo "expect_exit: command exited $rc, expected $code"; exit 1; fi
if [ "${regex#once:}" != "$regex" ]; then
  count=$(printf '%s\n' "$out" | grep -Ec -- "${regex#once:}")
  if [ "$count" -ne 1 ]; then echo "expect_exit: $count lines match, expected exactly 1: ${regex#once:}"; exit 1; fi
elif ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
  echo "expect_exit: output does not match: $regex"; exit 1
fi
echo "expect_exit: exit code $code and output matches as expected"
