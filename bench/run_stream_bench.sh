#!/bin/bash
# Benchmark: asmspy --stream against the raw ptrace single-step floor, on the
# same victim, in one run. Prints both rates and their ratio.
#   usage: bench/run_stream_bench.sh [build-dir] [steps]
# The asmspy rate is computed from the difference between an N-step and a
# 1-step run, so start-up (plugin probes, symbol loading) is not counted as
# stepping cost; start-up is reported separately.
set -eu
build=${1:-build}
steps=${2:-40000}
victim="$build/tests/victims/victim_spin"
asmspy="$build/host/asmspy"
raw="$build/bench/raw_step"
for f in "$victim" "$asmspy" "$raw"; do [ -x "$f" ] || { echo "missing $f (build first)"; exit 2; }; done

out=$(mktemp); "$victim" >"$out" & vpid=$!
trap 'kill -9 $vpid 2>/dev/null; rm -f $out' EXIT
while [ ! -s "$out" ]; do sleep 0.01; done

now() { date +%s.%N; }
rate_of() { # rate_of CMD... -> seconds elapsed
  local t0 t1; t0=$(now); "$@" >/dev/null 2>&1; t1=$(now); echo "$t1 - $t0" | bc -l
}
runs=3
best_raw=0; best_spy=0; startup=0
for r in $(seq $runs); do
  raw_rate=$("$raw" "$vpid" "$steps")
  (( raw_rate > best_raw )) && best_raw=$raw_rate
  t1=$(rate_of "$asmspy" --stream "$vpid" 1)
  tn=$(rate_of "$asmspy" --stream "$vpid" "$steps")
  spy_rate=$(echo "($steps - 1) / ($tn - $t1)" | bc -l | cut -d. -f1)
  (( spy_rate > best_spy )) && best_spy=$spy_rate
  startup=$t1
done
ratio=$(echo "$best_spy / $best_raw" | bc -l)
printf 'victim: victim_spin, %d steps, best of %d runs\n' "$steps" "$runs"
printf 'raw ptrace single-step : %8d steps/s\n' "$best_raw"
printf 'asmspy --stream        : %8d steps/s  (symbolize + disassemble + print every step; start-up %.3f s)\n' "$best_spy" "$startup"
printf 'ratio asmspy/raw       : %.3f\n' "$ratio"
