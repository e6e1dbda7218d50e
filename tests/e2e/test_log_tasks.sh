#!/bin/bash
# --log follows every thread ([tid] prefixes), --tid exactly one, and
# --follow the children a target forks, each decoded against its own fds.
. "$(dirname "$0")/lib.sh"
require_backend ptrace

start_victim victim_threads
pid=$VICTIM_PID
i=0; while [ "$(ls /proc/$pid/task | wc -l)" -lt 4 ] && [ $i -lt 300 ]; do sleep 0.01; i=$((i+1)); done
"$ASMSPY" --log "$pid" 60 >"$TMP/all" 2>"$TMP/err" || fail "--log failed: $(cat "$TMP/err")"
tids=$(grep -oE '^\[[0-9]+\]' "$TMP/all" | sort -u | wc -l)
[ "$tids" -ge 2 ] || fail "expected syscalls from >= 2 threads, saw $tids: $(head -5 "$TMP/all")"
[ "$(grep -vcE '^\[[0-9]+\] ' "$TMP/all")" = 0 ] || fail "a line lacks the [tid] prefix"
pass "60 syscalls from $tids threads, each prefixed"
worker=$(ls "/proc/$pid/task" | grep -v "^$pid\$" | head -1)
"$ASMSPY" --log "$pid" 10 --tid="$worker" --json >"$TMP/one.ndjson" || fail "--tid log failed"
"$ASMTRACE_CHECK" "$TMP/one.ndjson" >/dev/null || fail "--tid recording invalid"
[ "$(grep '"type":"syscall"' "$TMP/one.ndjson" | grep -vc "\"tid\":$worker,")" = 0 ] || fail "--tid leaked other threads"
"$ASMSPY" --log "$pid" 5 --tid="$worker" >"$TMP/one.txt"
grep -qE '^\[' "$TMP/one.txt" && fail "--tid output has a [tid] prefix"
pass "--tid=$worker: only that thread, no prefix"
assert_runs "$pid"

mkdir -p "$TMP/forks"
start_victim victim_fork "$TMP/forks"
fpid=$VICTIM_PID
"$ASMSPY" --log "$fpid" 80 --follow >"$TMP/follow" 2>"$TMP/err" || fail "--follow failed: $(cat "$TMP/err")"
child=$(grep -oE "child-[0-9]+\.txt" "$TMP/follow" | head -1 | grep -oE '[0-9]+' || true)
[ -n "$child" ] || fail "no child's openat in the followed log: $(head -20 "$TMP/follow")"
grep -qE "^\[$child\] open(at)?\(.*child-$child\.txt\", O_WRONLY\|O_CREAT\|O_TRUNC, 0600\) = 3" "$TMP/follow" \
  || fail "child's open not attributed to [$child]: $(grep "child-$child" "$TMP/follow")"
grep -qE "^\[$child\] write\(fd=3<$TMP/forks/child-$child\.txt>, \"child\\\\n\", 6\) = 6" "$TMP/follow" \
  || fail "child's write not resolved against the child's fd table: $(grep "^\[$child\]" "$TMP/follow" | head)"
pass "--follow: child $child's syscalls with its own fd paths"
assert_runs "$fpid"

# --stream --follow single-steps the forked children too, against their own symbols
require_backend singlestep
"$ASMSPY" --stream "$fpid" 30000 --follow >"$TMP/sfollow" 2>"$TMP/err" || fail "--stream --follow failed: $(cat "$TMP/err")"
others=$(grep -oE '^\[[0-9]+\]' "$TMP/sfollow" | sort -u | grep -vc "^\[$fpid\]$" || true)
[ "$others" -ge 1 ] || fail "--stream --follow never stepped a child: $(grep -oE '^\[[0-9]+\]' "$TMP/sfollow" | sort | uniq -c)"
grep -E '^\[[0-9]+\] ' "$TMP/sfollow" | grep -v "^\[$fpid\]" | grep -q '\[libc.so.6\]' || fail "child's steps not symbolized"
pass "--stream --follow steps $others forked child(ren) with their own symbols"
assert_runs "$fpid"
