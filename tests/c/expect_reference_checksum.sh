#!/usr/bin/env bash
# expect_reference_checksum.sh REFERENCE ARGS... -- COMMAND...: runs REFERENCE ARGS (the C++ heat2d's rows,
# heat2d_reference.cpp), takes its "checksum <16 hex digits>", and passes when COMMAND exits 0 and prints the
# same checksum and a zero difference from its own serial solver (expect_output.sh).
set -u
reference=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do reference+=("$1"); shift; done
shift
ref_out=$("${reference[@]}" 2>&1) || { printf '%s\n' "$ref_out"; echo "expect_reference_checksum: the reference failed"; exit 1; }
checksum=$(printf '%s\n' "$ref_out" | sed -n 's/^.*: checksum \([0-9a-f]\{16\}\)$/\1/p')
if [ -z "$checksum" ]; then printf '%s\n' "$ref_out"; echo "expect_reference_checksum: no checksum from the reference"; exit 1; fi
echo "expect_reference_checksum: the C++ heat2d's rows give checksum $checksum"
exec "$(dirname "$0")/../expect_output.sh" "^[a-z0-9-]+: checksum $checksum\$" \
     "^[a-z0-9-]+: verify: max difference from the serial solver 0\$" -- "$@"
