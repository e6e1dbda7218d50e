#!/bin/bash
# --backends lists every plugin with a measured status; an unavailable
# backend selected for a mode prints '# SKIP <name>: <reason>' and exits 0.
. "$(dirname "$0")/lib.sh"
"$ASMSPY" --backends >"$TMP/b" || fail "--backends failed"
for b in singlestep intel_pt amd_ibs amd_lbr hwwatch pmu_event stream; do
  grep -qE "^(backend|view) +$b " "$TMP/b" || fail "--backends lacks $b"
done
pass "--backends lists all six backends and the stream view"
"$ASMSPY" --backends --json >"$TMP/b.ndjson"
"$ASMTRACE_CHECK" "$TMP/b.ndjson" >/dev/null || fail "--backends --json is not a valid recording"
[ "$(grep -c '"type":"plugin"' "$TMP/b.ndjson")" -ge 6 ] || fail "--backends --json lacks rows"
pass "--backends --json validates"
# every unavailable row carries a reason
awk '$4 == "unavailable" || $4 == "error" { if (NF < 5) exit 1 }' "$TMP/b" || fail "a row without reason"
start_victim victim_loop
for b in intel_pt amd_ibs amd_lbr hwwatch singlestep; do
  line=$(awk -v n="$b" '$2 == n' "$TMP/b")
  case "$line" in *" usable "*) continue;; esac
  expect_exit 0 "$ASMSPY" --stream "$VICTIM_PID" 5 --backend="$b"
  grep -q "^# SKIP $b: ." "$TMP/out" || fail "--backend=$b did not print '# SKIP $b: <reason>': $(cat "$TMP/out")"
  pass "--backend=$b -> $(cat "$TMP/out")"
done
assert_runs "$VICTIM_PID"
