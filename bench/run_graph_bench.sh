#!/bin/bash
# Benchmark: call-graph capture rates, in one run on the same call-heavy
# program (tests/victims/victim_loop.c: work() calls helper() 5 times):
#   uftrace record   the program rebuilt with -pg (compiler instrumentation)
#   asmspy --graph   whole-process single-stepping of the running victim
#   gdb              the same single-stepping driven by gdb (stepi), converted
#                    to calls/s with the victim's measured instructions per call
# Prints calls traced per second for each. Single-stepping is far slower than
# instrumentation: that is the honest result, not a bug.
#   usage: bench/run_graph_bench.sh [build-dir] [asmspy-calls]
set -eu
build=${1:-build}
ncalls=${2:-600}
asmspy="$build/cli/asmspy"
victim="$build/tests/victims/victim_loop"
[ -x "$asmspy" ] && [ -x "$victim" ] || { echo "build first"; exit 2; }
src=$(dirname "$0")/../tests/victims/victim_loop.c
tmp=$(mktemp -d); trap 'kill -9 ${vpid:-0} 2>/dev/null; rm -rf "$tmp"' EXIT
now() { date +%s.%N; }

# 1. uftrace: 20000 iterations = 20000 work + 100000 helper calls (+ main)
if command -v uftrace >/dev/null; then
  gcc -pg -O1 -fno-omit-frame-pointer -fno-inline -o "$tmp/victim_pg" "$src"
  t0=$(now); uftrace record -d "$tmp/ut" "$tmp/victim_pg" 0 20000 >/dev/null 2>&1; t1=$(now)
  ucalls=$(uftrace report -d "$tmp/ut" 2>/dev/null | awk '$NF == "helper" || $NF == "work" {gsub(",", "", $(NF-1)); s += $(NF-1)} END {print s + 0}')
  [ "$ucalls" -gt 0 ] || ucalls=120000
  urate=$(echo "$ucalls / ($t1 - $t0)" | bc -l)
else
  urate=0; echo "uftrace not installed"
fi

# 2. asmspy --graph on the running victim (no sleeps: all calls)
"$victim" 0 >"$tmp/pid" & vpid=$!
while [ ! -s "$tmp/pid" ]; do sleep 0.01; done
t0=$(now); "$asmspy" --graph "$vpid" 1 >/dev/null 2>&1; t1=$(now)
startup=$(echo "$t1 - $t0" | bc -l)
t0=$(now); "$asmspy" --graph "$vpid" "$ncalls" >/dev/null 2>&1; t1=$(now)
arate=$(echo "($ncalls - 1) / ($t1 - $t0 - $startup)" | bc -l)
# instructions per call in this workload, from a counted stream
steps=20000
t0=$(now); "$asmspy" --stream "$vpid" $steps >"$tmp/stream" 2>/dev/null; t1=$(now)
calls_in_stream=$(grep -cE '\bcall ' "$tmp/stream" || true)
[ "$calls_in_stream" -gt 0 ] || calls_in_stream=1
insn_per_call=$(echo "$steps / $calls_in_stream" | bc -l)

# 3. gdb single-stepping the same victim
if command -v gdb >/dev/null; then
  gsteps=20000
  t0=$(now); gdb -p "$vpid" -batch -ex "stepi $gsteps" >/dev/null 2>&1; t1=$(now)
  t0b=$(now); gdb -p "$vpid" -batch -ex "stepi 1" >/dev/null 2>&1; t1b=$(now)
  gstep_rate=$(echo "($gsteps - 1) / (($t1 - $t0) - ($t1b - $t0b))" | bc -l)
  grate=$(echo "$gstep_rate / $insn_per_call" | bc -l)
else
  grate=0; gstep_rate=0; echo "gdb not installed"
fi

printf 'workload: victim_loop (work() calls helper() 5x), %.1f instructions per call\n' "$insn_per_call"
printf 'uftrace record (-pg)  : %10.0f calls/s\n' "$urate"
printf 'asmspy --graph        : %10.0f calls/s   (%d calls; start-up %.3f s excluded)\n' "$arate" "$ncalls" "$startup"
printf 'gdb stepi             : %10.0f calls/s   (%.0f steps/s)\n' "$grate" "$gstep_rate"
[ "$(echo "$urate > 0" | bc)" = 1 ] && printf 'ratio asmspy/uftrace  : %.5f\n' "$(echo "$arate / $urate" | bc -l)"
[ "$(echo "$grate > 0" | bc)" = 1 ] && printf 'ratio asmspy/gdb      : %.2f\n' "$(echo "$arate / $grate" | bc -l)"
