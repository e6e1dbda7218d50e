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
asmspy="$build/cli/asmspy"
raw="$build/bench/raw_step"
for f in "$victim" "$asmspy" "$raw"; do [ -x "$f" ] || { echo "missing $f (build first)"; exit 2; }; done

out=$(mktemp); "$victim" >"$out" & vpid=$!
trap 'kill -9 $vpid 2>/dev/null; wait $vpid 2>/dev/null; rm -f $out' EXIT
while [ ! -s "$out" ]; do sleep 0.01; done

now() { date +%s.%N; }
elapsed() { # elapsed CMD... -> seconds
  local t0 t1; t0=$(now); "$@" >/dev/null 2>&1; t1=$(now); echo "$t1 - $t0" | bc -l
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

runs=5
raws=(); t1s=(); tns=(); j1s=(); jns=()
for r in $(seq $runs); do   # interleaved, so drift hits both sides alike
  raws+=("$("$raw" "$vpid" "$steps")")
  t1s+=("$(elapsed "$asmspy" --stream "$vpid" 1)")
  tns+=("$(elapsed "$asmspy" --stream "$vpid" "$steps")")
  # --json: every event also carries its human text (for --replay)
  j1s+=("$(elapsed "$asmspy" --stream "$vpid" 1 --json)")
  jns+=("$(elapsed "$asmspy" --stream "$vpid" "$steps" --json)")
done
raw_rate=$(median "${raws[@]}")
t1=$(median "${t1s[@]}")
tn=$(median "${tns[@]}")
spy_rate=$(echo "($steps - 1) / ($tn - $t1)" | bc -l)
ratio=$(echo "$spy_rate / $raw_rate" | bc -l)
printf 'victim: victim_spin, %d steps, median of %d interleaved runs\n' "$steps" "$runs"
printf 'raw ptrace single-step : %8.0f steps/s  (%.1f us/step)\n' "$raw_rate" "$(echo "1000000 / $raw_rate" | bc -l)"
printf 'asmspy --stream        : %8.0f steps/s  (%.1f us/step; symbolize + disassemble + print each; start-up %.3f s)\n' \
  "$spy_rate" "$(echo "1000000 / $spy_rate" | bc -l)" "$t1"
printf 'ratio asmspy/raw       : %.3f\n' "$ratio"
j1=$(median "${j1s[@]}")
jn=$(median "${jns[@]}")
json_rate=$(echo "($steps - 1) / ($jn - $j1)" | bc -l)
printf 'asmspy --stream --json : %8.0f steps/s  (JSON with the human text in every event)\n' "$json_rate"
printf 'ratio json/text        : %.3f   ratio json/raw: %.3f\n' \
  "$(echo "$json_rate / $spy_rate" | bc -l)" "$(echo "$json_rate / $raw_rate" | bc -l)"
