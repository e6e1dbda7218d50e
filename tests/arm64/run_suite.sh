#!/bin/sh
# The arm64 suite runner, run by the guest's /init from /asmspy (busybox sh).
# Runs every suite/*.sh in name order, each under a per-test time bound
# (ASMSPY_ARM64_TEST_TIMEOUT seconds, default 300) with its output in a file
# (so a victim a test leaves behind cannot hold a pipe open), then echoes
# it. A test prints `ok <name>`, `not ok <name> <reason>` or
# `skip <name> <reason>` lines; a test that exits non-zero without a
# `not ok`, or prints nothing, counts as one failure. The last line is
# "N passed, N failed, N skipped"; the exit status is 1 if anything failed.
cd "$(dirname "$0")" || exit 1
export ASMSPY_PAYLOAD=$(pwd)
# the cross build's tree, when the payload carries one (ci.sh puts it there)
if [ -x "$ASMSPY_PAYLOAD/build/cli/asmspy" ]; then
  export ASMSPY="$ASMSPY_PAYLOAD/build/cli/asmspy"
  export ASMSPY_PLUGIN_PATH="$ASMSPY_PAYLOAD/build/plugins" ASMSPY_PLUGIN_PATH_ONLY=1
  export VICTIMS="$ASMSPY_PAYLOAD/build/tests/victims"
fi
limit=${ASMSPY_ARM64_TEST_TIMEOUT:-300}
pass=0 fail=0 skip=0
echo "arm64 suite on $(uname -m) $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
for t in suite/*.sh; do
  [ -f "$t" ] || continue
  name=$(basename "$t" .sh)
  out=/tmp/suite.$name.out
  start=$(cut -d' ' -f1 /proc/uptime)
  timeout -s KILL "$limit" sh "$t" >"$out" 2>&1 </dev/null
  rc=$?
  end=$(cut -d' ' -f1 /proc/uptime)
  cat "$out"
  p=$(grep -c '^ok ' "$out")
  f=$(grep -c '^not ok ' "$out")
  s=$(grep -c '^skip ' "$out")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    if [ "$rc" -eq 137 ]; then echo "not ok $name killed after ${limit}s"
    else echo "not ok $name exited $rc"; fi
    f=1
  elif [ $((p + f + s)) -eq 0 ]; then
    echo "not ok $name printed no result"
    f=1
  fi
  echo "# $name: $p ok, $f not ok, $s skip in $(echo "$start $end" | awk '{printf "%.1f", $2 - $1}') s"
  pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
