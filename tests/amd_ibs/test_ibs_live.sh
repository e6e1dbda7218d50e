#!/bin/bash
# amd_ibs through the CLI on a live victim: `asmspy --sample <pid> 100 --sampler=ibs`
# (--sampler=ibs: the ibs rung by name; unnamed, --sample walks the ladder). Where the probe says IBS is
# unusable the CLI prints "# SKIP amd_ibs: <reason>" and exits 0: this test
# checks exactly that, prints the reason and exits 77. On an IBS host it
# checks the run: exit 0, the victim untouched, --json valid.
. "$(dirname "$0")/../e2e/lib.sh"
start_victim victim_spin
pid=$VICTIM_PID

set +e
"$ASMSPY" --sample "$pid" 100 --sampler=ibs >"$TMP/out" 2>"$TMP/err"
rc=$?
set -e
cat "$TMP/out" "$TMP/err" >&2
[ "$rc" = 0 ] || fail "--sample exited $rc"
assert_runs "$pid"
if grep -q "^# SKIP amd_ibs: " "$TMP/out"; then
  reason=$(sed -n 's/^# SKIP amd_ibs: //p' "$TMP/out" | head -1)
  [ -n "$reason" ] || fail "SKIP line without a reason"
  # the reason is the probe's, as --backends reports it
  "$ASMSPY" --backends | grep -F -- "$reason" >/dev/null \
    || fail "SKIP reason differs from the probe's: $reason"
  skip "amd_ibs: $reason"
fi

# IBS is usable here: a real window
"$ASMSPY" --sample "$pid" 100 --sampler=ibs --json >"$TMP/json" 2>"$TMP/err" || fail "--sample --json exited $?"
"$ASMTRACE_CHECK" "$TMP/json" || fail "--sample --json is not a valid recording"
assert_runs "$pid"
pass "amd_ibs sampled pid $pid out of band"
