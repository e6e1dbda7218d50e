#!/bin/bash
# Benchmark: what a ptrace stop costs with tracer and tracee on one CPU vs
# two, and where asmspy lands (issue 14 part 0). In one interleaved run:
#   raw single-step loop (bench/raw_step)   victim and tracer on one CPU / on
#                                           two CPUs (taskset) / left alone
#   asmspy --stream  ASMSPY_NO_PIN=1 vs default (the seam's measured
#                    choice) vs ASMSPY_PIN=1 (follows the CPU throughout)
#   dd bs=1 under strace -f, perf trace, asmspy --log (NO_PIN vs default)
# Prints us per stop (step or syscall), ratios, and how often tracer and
# target were seen on the same CPU (sampled from /proc/<pid>/stat field 39
# every 5 ms while the run lasts).
#   usage: [RUNS=n] [HOGS=n] bench/run_pin_bench.sh [build-dir] [steps] [dd-bytes]
# HOGS=n runs n unpinned busy loops beside everything (a loaded machine: the
# case where the scheduler splits tracer and tracee unless asmspy pins).
set -eu
build=${1:-build}
steps=${2:-20000}
count=${3:-20000}
victim="$build/tests/victims/victim_spin"
asmspy="$build/cli/asmspy"
raw="$build/bench/raw_step"
mt="$build/bench/mt_syscalls"
for f in "$victim" "$asmspy" "$raw" "$mt"; do [ -x "$f" ] || { echo "missing $f (build first)"; exit 2; }; done
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || { echo "needs 2 CPUs (have $ncpu)"; exit 2; }
cpus=($(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | while IFS=- read -r a b; do seq "$a" "${b:-$a}"; done))
c0=${cpus[0]}; c1=${cpus[1]}
command -v strace >/dev/null && have_strace=1 || have_strace=0
have_perf=0
if command -v perf >/dev/null && timeout 20 perf trace -o /dev/null true >/dev/null 2>&1; then have_perf=1; fi

tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
start_victim() { # start_victim [taskset-cpu] -> pid in $vp
  local out="$tmp/v$RANDOM"
  if [ -n "${1:-}" ]; then taskset -c "$1" "$victim" >"$out" & else "$victim" >"$out" & fi
  vp=$!; pids+=("$vp")
  while [ ! -s "$out" ]; do sleep 0.01; done
}
for h in $(seq "${HOGS:-0}"); do sh -c 'while :; do :; done' & pids+=("$!"); done
start_victim "$c0"; vpinned=$vp     # raw: victim fixed on c0
start_victim;       vfree=$vp       # asmspy: the victim goes where it likes

now() { date +%s.%N; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
cpu_of() { awk '{sub(/.*\) /,""); print $37}' "/proc/$1/stat" 2>/dev/null; }
# named_descendant PID NAME: a descendant of PID whose comm is NAME (other
# work on the machine may run its own dd)
named_descendant() {
  local p
  for p in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
    [ "$(cat /proc/"$p"/comm 2>/dev/null)" = "$2" ] && { echo "$p"; return 0; }
    named_descendant "$p" "$2" && return 0
  done
  return 1
}
# colo PID-RUN TARGET : sample while PID-RUN lives; prints "same total".
# TARGET is a pid or a command name (dd, mt_syscalls) under PID-RUN. The tracer is the target's
# TracerPid (asmspy may trace from a thread or process of its own); for an
# untraced target (perf trace) it is PID-RUN itself.
colo() {
  local run=$1 tg=$2 same=0 tot=0 a b t tr
  while kill -0 "$run" 2>/dev/null; do
    t=$tg
    case $tg in dd|mt_syscalls) t=$(named_descendant "$run" "$tg" || true);; esac
    if [ -n "$t" ]; then
      tr=$(awk '/^TracerPid:/ {print $2}' "/proc/$t/status" 2>/dev/null || true)
      if [ -z "$tr" ] || [ "$tr" = 0 ]; then tr=$(pgrep -n -P "$run" || echo "$run"); [ "$tr" = "$t" ] && tr=$run; fi
      a=$(cpu_of "$tr"); b=$(cpu_of "$t")
      if [ -n "$a" ] && [ -n "$b" ]; then tot=$((tot + 1)); [ "$a" = "$b" ] && same=$((same + 1)); fi
    fi
    sleep 0.005
  done
  echo "$same $tot"
}
# timed NAME TARGET CMD... : run CMD, record seconds in $tmp/NAME.t and the
# co-location samples in $tmp/NAME.c
timed() {
  local name=$1 tg=$2; shift 2
  local t0 t1 p
  t0=$(now)
  "$@" >/dev/null 2>&1 & p=$!
  colo "$p" "$tg" >>"$tmp/$name.c" &
  local cp=$!
  wait "$p" || true
  t1=$(now); wait "$cp" || true
  echo "$t1 - $t0" | bc -l >>"$tmp/$name.t"
}
med() { median $(cat "$tmp/$1.t"); }
shared() { awk '{s+=$1; t+=$2} END {if (t) printf "%3.0f%%", 100*s/t; else printf "  ?"}' "$tmp/$1.c"; }

dd_work=(dd if=/dev/zero of=/dev/null bs=1 count="$count" status=none)
calls=$((count * 2))
mt_threads=4
mt_work=("$mt" "$mt_threads" $((count / mt_threads)))
runs=${RUNS:-3}
for r in $(seq "$runs"); do   # interleaved, so drift hits every row alike
  # raw_step prints steps/s; keep us/step
  echo "1000000 / $(taskset -c "$c0" "$raw" "$vpinned" "$steps")" | bc -l >>"$tmp/raw_same.t"
  echo "1000000 / $(taskset -c "$c1" "$raw" "$vpinned" "$steps")" | bc -l >>"$tmp/raw_cross.t"
  echo "1000000 / $("$raw" "$vfree" "$steps")" | bc -l >>"$tmp/raw_free.t"
  timed s1_nopin "$vfree" env ASMSPY_NO_PIN=1 "$asmspy" --stream "$vfree" 1
  timed sN_nopin "$vfree" env ASMSPY_NO_PIN=1 "$asmspy" --stream "$vfree" "$steps"
  timed s1_pin "$vfree" "$asmspy" --stream "$vfree" 1
  timed sN_pin "$vfree" "$asmspy" --stream "$vfree" "$steps"
  timed sN_always "$vfree" env ASMSPY_PIN=1 "$asmspy" --stream "$vfree" "$steps"
  timed bare dd "${dd_work[@]}"
  [ $have_strace = 1 ] && timed strace dd strace -f -o /dev/null "${dd_work[@]}"
  [ $have_perf = 1 ] && timed perf dd perf trace -o /dev/null "${dd_work[@]}"
  timed log_nopin dd env ASMSPY_NO_PIN=1 "$asmspy" --launch log -1 -- "${dd_work[@]}"
  timed log_pin dd "$asmspy" --launch log -1 -- "${dd_work[@]}"
  timed log_always dd env ASMSPY_PIN=1 "$asmspy" --launch log -1 -- "${dd_work[@]}"
  timed mt_bare mt_syscalls "${mt_work[@]}"
  timed mt_strace mt strace -f -o /dev/null "${mt_work[@]}"
  timed mt_nopin mt env ASMSPY_NO_PIN=1 "$asmspy" --launch log -1 -- "${mt_work[@]}"
  timed mt_pin mt_syscalls "$asmspy" --launch log -1 -- "${mt_work[@]}"
  timed mt_always mt_syscalls env ASMSPY_PIN=1 "$asmspy" --launch log -1 -- "${mt_work[@]}"
done

us_step() { echo "($(med "$2") - $(med "$1")) * 1000000 / ($steps - 1)" | bc -l; }
us_call() { echo "($(med "$1") - $(med bare)) * 1000000 / $calls" | bc -l; }
rs=$(med raw_same); rc=$(med raw_cross); rf=$(med raw_free)
snp=$(us_step s1_nopin sN_nopin); sp=$(us_step s1_pin sN_pin); sa=$(us_step s1_pin sN_always)
printf 'CPUs: %d (same = taskset %s for both; cross = victim %s, tracer %s); median of %d interleaved runs; %d busy-loop hogs\n' "$ncpu" "$c0" "$c0" "$c1" "$runs" "${HOGS:-0}"
printf '\nsingle-step (victim_spin, %d steps)            us/stop   x same-CPU raw\n' "$steps"
printf '  raw_step, same CPU (taskset)              %8.1f   %6.2f\n' "$rs" 1
printf '  raw_step, cross CPU (taskset)             %8.1f   %6.2f\n' "$rc" "$(echo "$rc / $rs" | bc -l)"
printf '  raw_step, neither pinned                  %8.1f   %6.2f\n' "$rf" "$(echo "$rf / $rs" | bc -l)"
printf '  asmspy --stream, ASMSPY_NO_PIN=1          %8.1f   %6.2f   shared CPU %s of samples\n' "$snp" "$(echo "$snp / $rs" | bc -l)" "$(shared sN_nopin)"
printf '  asmspy --stream (default: measured)       %8.1f   %6.2f   shared CPU %s of samples\n' "$sp" "$(echo "$sp / $rs" | bc -l)" "$(shared sN_pin)"
printf '  asmspy --stream, ASMSPY_PIN=1 (follows)   %8.1f   %6.2f   shared CPU %s of samples\n' "$sa" "$(echo "$sa / $rs" | bc -l)" "$(shared sN_always)"
printf '\nsyscalls (%s, %d syscalls)   us/syscall over bare (bare %.3f s)\n' "dd bs=1" "$calls" "$(med bare)"
ref=""
if [ $have_strace = 1 ]; then x=$(us_call strace); printf '  strace -f                                 %8.2f   shared CPU %s\n' "$x" "$(shared strace)"; fi
if [ $have_perf = 1 ]; then ref=$(us_call perf); printf '  perf trace                                %8.2f   shared CPU %s\n' "$ref" "$(shared perf)"
else printf '  perf trace                                (not run: perf missing or perf trace fails here)\n'; fi
lnp=$(us_call log_nopin); lp=$(us_call log_pin); la=$(us_call log_always)
printf '  asmspy --log, ASMSPY_NO_PIN=1             %8.2f   shared CPU %s\n' "$lnp" "$(shared log_nopin)"
printf '  asmspy --log (default: measured)          %8.2f   shared CPU %s\n' "$lp" "$(shared log_pin)"
printf '  asmspy --log, ASMSPY_PIN=1 (follows)      %8.2f   shared CPU %s\n' "$la" "$(shared log_always)"
[ -n "$ref" ] && printf '  ratio asmspy --log / perf trace           %8.2f   (at or below 1 = goal)\n' "$(echo "$lp / $ref" | bc -l)"
printf '  ratio --log default / NO_PIN              %8.2f\n' "$(echo "$lp / $lnp" | bc -l)"
us_mt() { echo "($(med "$1") - $(med mt_bare)) * 1000000 / $calls" | bc -l; }
printf '\nsyscalls, %d threads at once (bench/mt_syscalls, %d syscalls)   us/syscall over bare\n' "$mt_threads" "$calls"
[ $have_strace = 1 ] && printf '  strace -f                                 %8.2f\n' "$(us_mt mt_strace)"
mnp=$(us_mt mt_nopin); mp=$(us_mt mt_pin); ma=$(us_mt mt_always)
printf '  asmspy --log, ASMSPY_NO_PIN=1             %8.2f   shared CPU %s (main thread)\n' "$mnp" "$(shared mt_nopin)"
printf '  asmspy --log (default: measured)          %8.2f   shared CPU %s\n' "$mp" "$(shared mt_pin)"
printf '  asmspy --log, ASMSPY_PIN=1 (follows)      %8.2f   shared CPU %s\n' "$ma" "$(shared mt_always)"
printf '  ratio default / NO_PIN                    %8.2f\n' "$(echo "$mp / $mnp" | bc -l)"
exit 0
