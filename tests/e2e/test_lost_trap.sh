#!/bin/bash
# cpuid and the single-step trap this VM loses after it
# (plugins/singlestep/lost_trap.h): the instruction after a cpuid must be
# reported, right after it, by --stream, --trace and --dataflow, and --trace's
# count must equal callgrind's. Passes unchanged on a machine that keeps the
# trap (then no note is printed).
. "$(dirname "$0")/lib.sh"
require_backend singlestep

expect=$(callgrind_per_call victim_cpuid cpu_vendor_word 10 0 10)
if [ -z "$expect" ] && command -v valgrind >/dev/null; then fail "the callgrind oracle gave no count"; fi

start_victim victim_cpuid 1000
pid=$VICTIM_PID

# every cpuid line is followed by the marker (notes aside)
marker_follows_cpuid() { # FILE -> prints the number of cpuid lines, fails otherwise
  awk '/^#/ {next} seen {if ($0 !~ /mov r10d, 0x5eed$/) {print "after cpuid: " $0 > "/dev/stderr"; bad=1} seen=0}
       /[ \t]cpuid$/ {n++; seen=1} END {if (bad || seen) exit 1; print n+0}' "$1"
}

"$ASMSPY" --stream "$pid" 3000 >"$TMP/stream" 2>"$TMP/stream.err" || fail "--stream failed: $(cat "$TMP/stream.err")"
n=$(marker_follows_cpuid "$TMP/stream") || fail "--stream lost the instruction after cpuid"
[ "$n" -ge 2 ] || fail "--stream saw $n cpuid in 3000 instructions"
if grep -q 'no step trap after cpuid' "$TMP/stream.err"; then
  how="this VM drops the trap after cpuid; the note says so"
else
  how="this machine keeps the trap after cpuid"
fi
pass "--stream: $n cpuid, each followed by the marker ($how)"
"$ASMSPY" --stream "$pid" 3000 --json >"$TMP/stream.ndjson" 2>/dev/null || fail "--stream --json failed"
"$ASMTRACE_CHECK" "$TMP/stream.ndjson" >/dev/null || fail "--stream --json invalid"
assert_runs "$pid"

"$ASMSPY" --trace "$pid" cpu_vendor_word 3 >"$TMP/trace" 2>"$TMP/trace.err" || fail "--trace failed: $(cat "$TMP/trace.err")"
n=$(marker_follows_cpuid "$TMP/trace") || fail "--trace lost the instruction after cpuid: $(cat "$TMP/trace")"
[ "$n" = 3 ] || fail "--trace: $n cpuid lines over 3 samples"
"$ASMSPY" --trace "$pid" cpu_vendor_word 3 --json >"$TMP/trace.ndjson" 2>/dev/null || fail "--trace --json failed"
"$ASMTRACE_CHECK" "$TMP/trace.ndjson" >/dev/null || fail "--trace --json invalid"
if [ -n "$expect" ]; then
  assert_executed_per_call "$TMP/trace.ndjson" "$expect"
  pass "--trace: the marker follows cpuid; $expect instructions per call = callgrind"
else
  pass "--trace: the marker follows cpuid"
fi
assert_runs "$pid"

"$ASMSPY" --dataflow "$pid" cpu_vendor_word >"$TMP/df" 2>"$TMP/df.err" || fail "--dataflow failed: $(cat "$TMP/df.err")"
grep -A1 -E '^#[0-9]+ +\+0x[0-9a-f]+ +cpuid ' "$TMP/df" | tail -1 | grep -qE '^#[0-9]+ +\+0x[0-9a-f]+ +mov r10d, 0x5eed +w: r10=0x5eed' \
  || fail "--dataflow: the marker does not follow cpuid: $(cat "$TMP/df")"
pass "--dataflow: the marker follows cpuid and defines r10"
assert_runs "$pid"
