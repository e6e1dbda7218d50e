#!/bin/bash
# Benchmark: the syscall log against strace, perf trace and the ptrace floor,
# on the same syscall-heavy workload, interleaved (each round runs every
# contender once, so drift and other load hit all alike):
#   bare                      dd alone
#   raw PTRACE_SYSCALL loop   bench/raw_syscall: wait, GET_SYSCALL_INFO,
#                             resume, nothing else (the floor of any
#                             ptrace tracer)
#   strace -f -o /dev/null
#   perf trace -o /dev/null   (tracepoints, no stops; skipped when perf
#                             trace does not work here)
#   asmspy --launch log -1    unpinned (no taskset: the seam's own CPU
#                             placement), decodes every call, resolves fds
#   asmspy (BASE)             the same with BASE=<other build dir>, for
#                             before/after in one run
#   asmspy ASMSPY_PIN=idle    with IDLE=1: the opt-in pinned + SCHED_IDLE
#                             tracer (host/seam_cpu.h)
# Prints the median seconds, us per syscall above bare, the ratio to
# perf trace / strace / the raw loop, then one more pass under
# `perf stat -e cpu-migrations` (tracer + target, whole tree).
#   usage: [RUNS=n] [BASE=dir] [IDLE=1] [MIGR=0] bench/run_log_bench.sh [build-dir] [syscalls/2]
set -eu
build=${1:-build}
count=${2:-100000}
runs=${RUNS:-5}
asmspy="$build/cli/asmspy"
raw="$build/bench/raw_syscall"
[ -x "$asmspy" ] || { echo "missing $asmspy (build first)"; exit 2; }
[ -x "$raw" ] || { echo "missing $raw (build first)"; exit 2; }
command -v strace >/dev/null || { echo "strace not installed"; exit 2; }
have_perf=0
if command -v perf >/dev/null && timeout 20 perf trace -o /dev/null true >/dev/null 2>&1; then
  have_perf=1
else
  echo "note: perf trace unavailable here (no perf, or no tracepoint access): skipped"
fi
base=${BASE:-}
[ -z "$base" ] || [ -x "$base/cli/asmspy" ] || { echo "missing $base/cli/asmspy"; exit 2; }
# dd with bs=1: one read() and one write() per byte
work=(dd if=/dev/zero of=/dev/null bs=1 count="$count" status=none)
calls=$((count * 2))

now() { date +%s.%N; }
elapsed() { local t0 t1; t0=$(now); "$@" >/dev/null 2>&1; t1=$(now); echo "$t1 - $t0" | bc -l; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

names=(bare raw strace)
declare -A cmd
cmd[bare]="${work[*]}"
cmd[raw]="$raw ${work[*]}"
cmd[strace]="strace -f -o /dev/null ${work[*]}"
if [ $have_perf = 1 ]; then names+=(perf); cmd[perf]="perf trace -o /dev/null ${work[*]}"; fi
names+=(asmspy); cmd[asmspy]="$asmspy --launch log -1 -- ${work[*]}"
if [ "${IDLE:-0}" != 0 ]; then names+=(idle); cmd[idle]="env ASMSPY_PIN=idle $asmspy --launch log -1 -- ${work[*]}"; fi
if [ -n "$base" ]; then names+=(base); cmd[base]="$base/cli/asmspy --launch log -1 -- ${work[*]}"; fi
declare -A label=([bare]="bare" [raw]="raw PTRACE_SYSCALL loop" [strace]="strace -f -o /dev/null"
  [perf]="perf trace -o /dev/null" [asmspy]="asmspy --log -1 (unpinned)"
  [idle]="asmspy --log PIN=idle" [base]="asmspy --log -1 BASE")
declare -A times
for r in $(seq "$runs"); do
  for n in "${names[@]}"; do
    # shellcheck disable=SC2086
    times[$n]="${times[$n]:-} $(elapsed ${cmd[$n]})"
  done
done
declare -A med us
for n in "${names[@]}"; do
  # shellcheck disable=SC2086
  med[$n]=$(median ${times[$n]})
done
b=${med[bare]}
for n in "${names[@]}"; do us[$n]=$(echo "(${med[$n]} - $b) * 1000000 / $calls" | bc -l); done
printf 'workload: %s  (~%d syscalls), median of %d interleaved runs, %s\n' "${work[*]}" "$calls" \
  "$runs" "load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in "${names[@]}"; do
  if [ "$n" = bare ]; then printf '%-28s: %7.3f s\n' "${label[$n]}" "$b"; continue; fi
  printf '%-28s: %7.3f s  %6.1f us/syscall\n' "${label[$n]}" "${med[$n]}" "${us[$n]}"
done
ratio() { echo "${us[$1]} / ${us[$2]}" | bc -l; }
printf 'ratio asmspy/raw loop      : %.2f\n' "$(ratio asmspy raw)"
printf 'ratio asmspy/strace        : %.2f  (below 1 = faster than strace)\n' "$(ratio asmspy strace)"
[ $have_perf = 1 ] && printf 'ratio asmspy/perf trace    : %.2f  (below 1 = faster than perf trace)\n' "$(ratio asmspy perf)"
[ -n "$base" ] && printf 'ratio asmspy/BASE          : %.2f\n' "$(ratio asmspy base)"
if [ "${MIGR:-1}" != 0 ] && command -v perf >/dev/null; then
  for n in "${names[@]}"; do
    [ "$n" = bare ] && continue
    # shellcheck disable=SC2086
    m=$(perf stat -x, -e cpu-migrations ${cmd[$n]} 2>&1 >/dev/null | awk -F, '/cpu-migrations/ {print $1}' | tail -1)
    printf 'cpu-migrations %-13s: %s\n' "$n" "${m:-?}"
  done
fi
