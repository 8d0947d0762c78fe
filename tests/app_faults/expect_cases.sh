# Sourced by the case scripts of tests/app_faults (output_checks.sh, full_disk.sh); $script names the script.
# fail MESSAGE: the first failure ends the script with 1.
# expect CODE REGEX CMD...: CMD exits with exactly CODE and a line of its combined output matches REGEX;
# nothing else is checked here.
fail() { echo "$script: FAILED: $*"; exit 1; }
expect() {
  local code=$1 regex=$2; shift 2
  local out rc
  out=$("$@" 2>&1); rc=$?
  [ "$rc" -eq "$code" ] || fail "exit $rc (expected $code) from: $* -- $out"
  printf '%s\n' "$out" | grep -Eq -- "$regex" || fail "no line matches '$regex' from: $* -- $out"
}
