#!/bin/bash
# Benchmark: the syscall log against strace, on the same syscall-heavy
# workload in one run: bare, `strace -f -o /dev/null`, and
# `asmspy --launch log -1 >/dev/null` (which also decodes every call and
# resolves every fd). Prints the slowdown ratios; the goal is asmspy no
# slower than strace.
#   usage: bench/run_log_bench.sh [build-dir] [syscalls/2]
set -eu
build=${1:-build}
count=${2:-100000}
asmspy="$build/cli/asmspy"
[ -x "$asmspy" ] || { echo "missing $asmspy (build first)"; exit 2; }
command -v strace >/dev/null || { echo "strace not installed"; exit 2; }
# dd with bs=1: one read() and one write() per byte
work=(dd if=/dev/zero of=/dev/null bs=1 count="$count" status=none)

now() { date +%s.%N; }
elapsed() { local t0 t1; t0=$(now); "$@" >/dev/null 2>&1; t1=$(now); echo "$t1 - $t0" | bc -l; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

runs=3
bare=(); st=(); spy=()
for r in $(seq $runs); do   # interleaved, so drift hits all three alike
  bare+=("$(elapsed "${work[@]}")")
  st+=("$(elapsed strace -f -o /dev/null "${work[@]}")")
  spy+=("$(elapsed "$asmspy" --launch log -1 -- "${work[@]}")")
done
b=$(median "${bare[@]}"); s=$(median "${st[@]}"); a=$(median "${spy[@]}")
calls=$((count * 2))
printf 'workload: %s  (~%d syscalls), median of %d interleaved runs\n' "${work[*]}" "$calls" "$runs"
printf 'bare                     : %7.3f s\n' "$b"
printf 'strace -f -o /dev/null   : %7.3f s  (%5.1fx bare, %.1f us/syscall)\n' "$s" "$(echo "$s / $b" | bc -l)" "$(echo "($s - $b) * 1000000 / $calls" | bc -l)"
printf 'asmspy --log -1          : %7.3f s  (%5.1fx bare, %.1f us/syscall)\n' "$a" "$(echo "$a / $b" | bc -l)" "$(echo "($a - $b) * 1000000 / $calls" | bc -l)"
printf 'ratio asmspy/strace      : %.3f  (below 1 = faster than strace)\n' "$(echo "$a / $s" | bc -l)"
