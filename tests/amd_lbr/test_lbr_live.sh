#!/bin/bash
# amd_lbr through the CLI on a live victim: `asmspy --sample <pid> 100
# --backend=amd_lbr` and the ladder rung `--sampler=lbr`. Where the probe
# says there are no branch stacks the CLI prints "# SKIP amd_lbr: <reason>"
# and exits 0: this test checks exactly that, prints the reason and exits
# 77. On a host with LbrExtV2/BRS it checks the run: exit 0, the victim
# untouched, --json valid.
. "$(dirname "$0")/../e2e/lib.sh"
start_victim victim_spin
pid=$VICTIM_PID

skipped=0
for how in --backend=amd_lbr --sampler=lbr; do
  set +e
  "$ASMSPY" --sample "$pid" 100 "$how" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  set -e
  cat "$TMP/out" "$TMP/err" >&2
  [ "$rc" = 0 ] || fail "--sample $how exited $rc"
  assert_runs "$pid"
  if grep -q "^# SKIP amd_lbr: " "$TMP/out"; then
    reason=$(sed -n 's/^# SKIP amd_lbr: //p' "$TMP/out" | head -1)
    [ -n "$reason" ] || fail "SKIP line without a reason"
    "$ASMSPY" --backends | grep -F -- "$reason" >/dev/null \
      || fail "SKIP reason differs from the probe's: $reason"
    skipped=$((skipped + 1))
  fi
done
[ "$skipped" = 0 ] || { [ "$skipped" = 2 ] || fail "only one of the two ways skipped"; skip "amd_lbr: $reason"; }

"$ASMSPY" --sample "$pid" 100 --backend=amd_lbr --json >"$TMP/json" 2>"$TMP/err" \
  || fail "--sample --backend=amd_lbr --json exited $?"
"$ASMTRACE_CHECK" "$TMP/json" || fail "not a valid recording"
assert_runs "$pid"
pass "amd_lbr sampled pid $pid out of band"
