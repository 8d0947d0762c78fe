#!/usr/bin/env bash
# in_memory_cgroup.sh BYTES COMMAND...: runs COMMAND in a new memory cgroup limited to BYTES (cgroup v2 where
# the memory controller is there, else v1's memory hierarchy), removes the cgroup after, and passes COMMAND's
# exit status and output through. Exits 77 (skipped) where no cgroup can be made (not root, read-only cgroupfs).
set -u
bytes=$1; shift
if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
  group=/sys/fs/cgroup/proxy-test-$$; limit_file=memory.max
else
  group=/sys/fs/cgroup/memory/proxy-test-$$; limit_file=memory.limit_in_bytes
fi
if ! mkdir "$group" 2>/dev/null || ! echo "$bytes" > "$group/$limit_file" 2>/dev/null; then
  rmdir "$group" 2>/dev/null
  echo "in_memory_cgroup: cannot make a memory cgroup here (needs root and a writable cgroupfs): skipped"
  exit 77
fi
# The command runs in a child that moved itself into the group; this shell stays outside, so it can remove it.
bash -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$group" "$@"
rc=$?
for _ in $(seq 50); do rmdir "$group" 2>/dev/null && break; sleep 0.1; done
exit $rc
