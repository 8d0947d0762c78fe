#!/usr/bin/env bash
# expect_exit.sh CODE REGEX COMMAND...: passes when COMMAND exits with exactly CODE AND its combined output
# matches the extended regular expression REGEX (the exit-code convention: 1 run-time failure, 2 usage
# error, 3 failed verification).
set -u
code=$1 regex=$2; shift 2
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne "$code" ]; then echo "expect_exit: command exited $rc, expected $code"; exit 1; fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then echo "expect_exit: output does not match: $regex"; exit 1; fi
echo "expect_exit: exit code $code and output matches as expected"
