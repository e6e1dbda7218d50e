#!/bin/bash
# Malformed arguments exit 2 with one line; a missing or untraceable pid exits
# non-zero with the reason; nothing crashes.
. "$(dirname "$0")/lib.sh"

usage_case() { # usage_case DESCRIPTION ARGS...
  local what=$1; shift
  expect_exit 2 "$ASMSPY" "$@"
  [ "$(wc -l <"$TMP/err")" -ge 1 ] || fail "$what: no message on stderr"
  grep -q '^asmspy: ' "$TMP/err" || fail "$what: message does not start with 'asmspy: ': $(cat "$TMP/err")"
  pass "$what -> exit 2: $(head -1 "$TMP/err")"
}
usage_case "missing pid" --stream
usage_case "non-numeric pid" --stream abc
usage_case "pid with trailing junk" --stream 12abc
usage_case "zero pid" --stream 0
usage_case "negative pid" --stream -5
usage_case "zero count" --stream 1 0
usage_case "unknown flag" --bogus 1
usage_case "unknown mode option" --stream 1 --frobnicate
usage_case "bad --tid" --stream 1 --tid=x
usage_case "--follow with --tid" --stream 1 --tid=2 --follow
usage_case "not a --option" stream 1
usage_case "--launch without command" --launch stream
usage_case "--backends junk" --backends --nope
usage_case "--syms without pid" --syms
usage_case "unknown backend" --stream 1 --backend=nosuch

# a pid that does not exist: exit 1 with the reason
pid_max=$(cat /proc/sys/kernel/pid_max)
ghost=$((pid_max - 1))
while [ -e "/proc/$ghost" ]; do ghost=$((ghost - 1)); done
expect_exit 1 "$ASMSPY" --stream "$ghost" 5
grep -q "no such process" "$TMP/err" || fail "nonexistent pid: $(cat "$TMP/err")"
pass "nonexistent pid -> exit 1: $(cat "$TMP/err")"
expect_exit 1 "$ASMSPY" --syms "$ghost"
pass "--syms nonexistent pid -> exit 1"
for mode in log graph tree procs info; do
  expect_exit 1 "$ASMSPY" --"$mode" "$ghost"
  grep -q "no such process" "$TMP/err" || fail "--$mode on a dead pid: $(cat "$TMP/err")"
done
for mode in trace dataflow; do
  expect_exit 1 "$ASMSPY" --"$mode" "$ghost" work
  grep -q "no such process" "$TMP/err" || fail "--$mode on a dead pid: $(cat "$TMP/err")"
done
pass "every mode on a dead pid -> exit 1 'no such process'"

# a pid asmspy may not trace: drop privileges and aim at a root-owned process
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  start_victim victim_loop
  set +e
  setpriv --reuid=65534 --regid=65534 --clear-groups "$ASMSPY" --stream "$VICTIM_PID" 5 >"$TMP/out" 2>"$TMP/err"
  rc=$?
  set -e
  [ "$rc" = 1 ] || fail "unprivileged attach to root's process exited $rc: $(cat "$TMP/err")"
  grep -qi "permission" "$TMP/err" || fail "no permission reason: $(cat "$TMP/err")"
  grep -q "target uid 0, asmspy uid 65534 without CAP_SYS_PTRACE" "$TMP/err" || fail "reason does not name the uids: $(cat "$TMP/err")"
  grep -qE "Yama|no Yama" "$TMP/err" || fail "reason does not say what Yama allows: $(cat "$TMP/err")"
  pass "untraceable pid (as nobody) -> exit 1: $(head -1 "$TMP/err")"
  assert_runs "$VICTIM_PID"
fi

# --launch of a command that does not exist
expect_exit 1 "$ASMSPY" --launch stream -- /nonexistent/cmd
grep -q "cannot launch" "$TMP/err" || fail "launch of missing command: $(cat "$TMP/err")"
pass "--launch of a missing command -> exit 1"
