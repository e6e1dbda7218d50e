#!/bin/bash
# Benchmark (issue 14): call tracing of a call-heavy program, ns per call,
# in one interleaved run (each round runs every tracer once, rounds repeat).
#   bare                         calls_workload, untraced
#   uftrace -pg                  uftrace record of the -pg build (launched)
#   uftrace -P .                 uftrace record -P . of the plain build (launched)
#   asmspy attached              entrypatch patching the already-running plain
#                                build (--graph: every call consumed live)
#   asmspy --launch              the same, launched by asmspy
#   asmspy --calls               entrypatch attached, --calls (every call
#                                printed, into a file: counted after the run)
#   asmspy attached, no wait     ASMSPY_CALLS_LOSSY=1: a full ring drops
#                                instead of waiting for the reader — what the
#                                agent in the target costs by itself (counts
#                                are then partial: the reader is the limit)
#   ltrace -x                    ltrace -x on the 5 functions (fewer iterations)
#   bpftrace uprobe              a uprobe counter on the 5 functions (fewer)
#   asmspy singlestep            today's --graph --backend=singlestep (fewer)
# The workload times its own run() (elapsed_ns on stderr): startup and
# attach are not counted, only what the tracer costs each call. The program
# makes 11 calls per iteration; ns/call = elapsed / (11 * iterations + 1).
# Ratios are to uftrace -pg and to uftrace -P. On a loaded machine the
# elapsed time is mostly the scheduler's: "cpu ns/call" is the CPU the
# target and the tracer used together (user + sys of both, start-up and
# attach included, minus the bare program's), which load barely moves.
# CPU placement: the tracer's and the target's
# CPU are sampled (field 39 of /proc/<pid>/stat) while asmspy reads.
# Then a loaded run (LOADED=0 skips it): two CPU hogs beside the target,
# asmspy --graph, asmspy --calls and uftrace -pg once more, each with its
# lost records: asmspy's from its footer (the agent waits for the reader,
# so it must be 0), and for every tracer the calls it counted against the
# 11 * iterations + 1 the program made.
#   usage: [ROUNDS=n] [LOADED=0] [CONFIGS="bare uftrace_pg ..."] bench/run_calls_bench.sh [build-dir] [iterations]
set -u
build=${1:-build}
iters=${2:-2000000}
rounds=${ROUNDS:-3}
wl=$(realpath "$build/tests/calls/calls_workload")
wlpg=$(realpath "$build/tests/calls/calls_workload_pg")
asmspy=$(realpath "$build/cli/asmspy")
for f in "$wl" "$wlpg" "$asmspy"; do [ -x "$f" ] || { echo "missing $f (build first)"; exit 2; }; done
tmp=$(mktemp -d)
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)"; exit 2; }
# user + sys of a /usr/bin/time -f "%U %S" file, in ns
cpu_of() { awk '{printf "%.0f", ($1 + $2) * 1e9}' "$1" 2>/dev/null; }
T() { /usr/bin/time -f "%U %S" -o "$@"; }
trap 'pkill -9 -f "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
cp "$wl" "$tmp/calls_workload"
wl="$tmp/calls_workload"
funcs="run outer mid leaf rec"

elapsed() { awk '/^elapsed_ns/ {print $2}' "$1"; }
calls_of() { echo $((11 * $1 + 1)); }

# each run_* prints "<elapsed ns> <cpu ns>" (cpu: - when not measured)
run_bare() { T "$tmp/t" "$wl" "$1" >/dev/null 2>"$tmp/e"; echo "$(elapsed "$tmp/e") $(cpu_of "$tmp/t")"; }
run_uftrace_pg() { (cd "$tmp" && T "$tmp/t" uftrace record -d "$tmp/u" "$wlpg" "$1" >/dev/null 2>"$tmp/e"); echo "$(elapsed "$tmp/e") $(cpu_of "$tmp/t")"; }
run_uftrace_P() { (cd "$tmp" && T "$tmp/t" uftrace record -P . -d "$tmp/u" "$wl" "$1" >/dev/null 2>"$tmp/e"); echo "$(elapsed "$tmp/e") $(cpu_of "$tmp/t")"; }
run_ltrace() { ltrace -x 'run+outer+mid+leaf+rec' -o /dev/null "$wl" "$1" >/dev/null 2>"$tmp/e"; echo "$(elapsed "$tmp/e") -"; }
run_bpftrace() {
  "$wl" "$1" --wait >"$tmp/o" 2>"$tmp/e" &
  local p=$!
  while [ ! -s "$tmp/o" ]; do sleep 0.01; done
  local probes=""
  for f in $funcs; do probes="$probes${probes:+,}uprobe:$wl:$f"; done
  bpftrace -e "$probes { @c = count(); }" >/dev/null 2>&1 &
  local b=$!
  sleep 3 # bpftrace attaches its probes
  kill -USR1 "$p"; wait "$p"; kill -INT "$b" 2>/dev/null; wait "$b" 2>/dev/null
  elapsed "$tmp/e"
}
# asmspy attached to the running program (entrypatch is chosen for --graph)
run_asmspy_attached() {
  local backend=${2:-} mode=${MODE:-graph}
  rm -f "$tmp/o" # the last run's pid must not be read for this one's
  T "$tmp/tw" "$wl" "$1" --wait >"$tmp/o" 2>"$tmp/e" &
  local w=$! p=""
  while [ ! -s "$tmp/o" ]; do sleep 0.01; done
  p=$(head -1 "$tmp/o")
  if [ "$mode" = calls ]; then # every call printed into a file, counted after (asmspy_counted)
    T "$tmp/ta" "$asmspy" --calls "$p" -1 $backend >"$tmp/out.txt" 2>"$tmp/a" &
  else
    T "$tmp/ta" "$asmspy" --$mode "$p" -1 $backend --json >"$tmp/out.json" 2>"$tmp/a" &
  fi
  local a=$!
  if [ -z "$backend" ]; then
    until grep -q asmspy-calls "/proc/$p/maps" 2>/dev/null && grep -q "TracerPid:.0" "/proc/$p/status"; do sleep 0.01; done
  else
    sleep 1
  fi
  kill -USR1 "$p"
  # the tracer: time's child is asmspy's supervisor, its child the tracer
  sample_cpus "$p" "$(pgrep -P "$(pgrep -P "$a" | head -1)" | head -1)" &
  local s=$!
  wait "$w"; wait "$a"; wait "$s" 2>/dev/null
  grep -q "lost" "$tmp/a" && echo "# $(grep lost "$tmp/a" | head -1)" >&2
  local c1 c2
  c1=$(cpu_of "$tmp/tw") c2=$(cpu_of "$tmp/ta")
  echo "$(elapsed "$tmp/e") $((c1 + c2))"
}
run_asmspy_nowait() { ASMSPY_CALLS_LOSSY=1 run_asmspy_attached "$1"; }
run_asmspy_calls() { MODE=calls run_asmspy_attached "$1"; }
run_asmspy_launch() {
  T "$tmp/t" "$asmspy" --launch graph -1 -- "$wl" "$1" >/dev/null 2>"$tmp/e"
  echo "$(elapsed "$tmp/e") $(cpu_of "$tmp/t")"
}
# the CPU of target and tracer every 10 ms while the target lives (bash
# builtins only: a sampler that forks would steal the CPU it measures)
sample_cpus() {
  local t=$1 r=$2 st sr
  [ -n "$r" ] || return 0
  while read -r -a st 2>/dev/null <"/proc/$t/stat" && read -r -a sr 2>/dev/null <"/proc/$r/stat"; do
    [ "${st[38]}" = "${sr[38]}" ] && echo same >>"$tmp/cpus" || echo apart >>"$tmp/cpus"
    sleep 0.01
  done
}

configs=(bare uftrace_pg uftrace_P asmspy_attached asmspy_calls asmspy_launch asmspy_nowait ltrace bpftrace singlestep)
# CONFIGS="bare uftrace_pg uftrace_P asmspy_calls": only these
[ -n "${CONFIGS:-}" ] && read -r -a configs <<<"$CONFIGS"
declare -A n_of=([bare]=$iters [uftrace_pg]=$iters [uftrace_P]=$iters [asmspy_attached]=$iters [asmspy_calls]=$iters [asmspy_nowait]=$iters
                 [asmspy_launch]=$iters [ltrace]=$((iters / 2000 + 1)) [bpftrace]=$((iters / 100 + 1))
                 [singlestep]=$((iters / 10000 + 1)))
declare -A ok
ok[bare]=1; ok[asmspy_attached]=1; ok[asmspy_calls]=1; ok[asmspy_nowait]=1; ok[asmspy_launch]=1; ok[singlestep]=1
command -v uftrace >/dev/null && ok[uftrace_pg]=1
command -v uftrace >/dev/null && (cd "$tmp" && uftrace record -P . -d "$tmp/u" "$wl" 1 >/dev/null 2>&1) && ok[uftrace_P]=1
command -v ltrace >/dev/null && ok[ltrace]=1
command -v bpftrace >/dev/null && bpftrace -e 'BEGIN { exit(); }' >/dev/null 2>&1 && ok[bpftrace]=1
declare -A results cpus
for r in $(seq 1 "$rounds"); do
  for c in "${configs[@]}"; do
    [ -n "${ok[$c]:-}" ] || continue
    case $c in
      singlestep) out=$(run_asmspy_attached "${n_of[$c]}" --backend=singlestep) ;;
      *) out=$("run_$c" "${n_of[$c]}") ;;
    esac
    read -r ns cpu <<<"$out"
    [ -n "$ns" ] && results[$c]="${results[$c]:-} $ns"
    [ -n "$cpu" ] && [ "$cpu" != - ] && cpus[$c]="${cpus[$c]:-} $cpu"
  done
done

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
per_call() { echo "$1 / $(calls_of "$2")" | bc -l; }
echo "calls_workload: $iters iterations x 11 calls (ltrace, bpftrace and singlestep run fewer: see n)"
echo "machine: $(nproc) CPUs, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg); median of $rounds interleaved rounds"
printf '%-18s %10s %10s %8s %8s %12s %8s %8s\n' tracer n ns/call "x -pg" "x -P" "cpu ns/call" "x -pg" "x -P"
ref_of() { # a reference's per-call median: wall (results) or cpu (cpus, minus bare's)
  local -n arr=$1
  [ -n "${arr[$2]:-}" ] || return 0
  local m; m=$(echo "${arr[$2]}" | median)
  if [ "$1" = cpus ] && [ -n "${cpus[bare]:-}" ]; then m=$(echo "$m - $(echo "${cpus[bare]}" | median)" | bc -l); fi
  per_call "$m" "${n_of[$2]}"
}
ratio() { [ -n "$2" ] && printf '%.2f' "$(echo "$1 / $2" | bc -l)" || echo -; }
ref_pg=$(ref_of results uftrace_pg) ref_P=$(ref_of results uftrace_P)
cref_pg=$(ref_of cpus uftrace_pg) cref_P=$(ref_of cpus uftrace_P)
for c in "${configs[@]}"; do
  if [ -z "${results[$c]:-}" ]; then printf '%-18s %10s %10s\n' "$c" - "not available"; continue; fi
  per=$(ref_of results "$c")
  cper=- r1=- r2=-
  if [ -n "${cpus[$c]:-}" ] && [ "$c" != bare ]; then
    cper=$(printf '%.1f' "$(ref_of cpus "$c")")
    r1=$(ratio "$cper" "$cref_pg") r2=$(ratio "$cper" "$cref_P")
  fi
  printf '%-18s %10s %10.1f %8s %8s %12s %8s %8s\n' "$c" "${n_of[$c]}" "$per" "$(ratio "$per" "$ref_pg")" \
    "$(ratio "$per" "$ref_P")" "$cper" "$r1" "$r2"
done
if [ -s "$tmp/cpus" ]; then
  echo "asmspy's reader and the target on the same CPU in $(grep -c same "$tmp/cpus") of $(wc -l <"$tmp/cpus") samples"
fi

[ "${LOADED:-1}" = 0 ] && exit 0
# ------------------------------------------------------------- loaded --
# The footer's "lost" of asmspy's JSON output; the calls it counted.
asmspy_lost() {
  if [ -s "$tmp/out.json" ]; then python3 -c '
import json, sys
for l in open(sys.argv[1]):
    if l.startswith("{") and "\"type\":\"end\"" in l: print(json.loads(l).get("lost", 0))' "$tmp/out.json"
  else # text: the session's note, none when nothing was lost
    sed -n 's/.*entrypatch: \([0-9]*\) call records lost.*/\1/p' "$tmp/out.txt" "$tmp/a" 2>/dev/null | head -1 | grep . || echo 0
  fi; }
asmspy_counted() { [ -s "$tmp/out.json" ] || { grep -cE ' (run|outer|mid|leaf|rec)\(\)( \{|;)$' "$tmp/out.txt"; return; }; python3 -c '
import json, sys
n = 0
for l in open(sys.argv[1]):
    if not l.startswith("{"): continue
    r = json.loads(l)
    if r.get("type") == "graph":
        n += sum(x["inv"] for x in r["nodes"] if x.get("name") in ("run", "outer", "mid", "leaf", "rec"))
    elif r.get("type") == "call_log" and r.get("name") in ("run", "outer", "mid", "leaf", "rec") \
         and r.get("what") in ("entry", "leaf"):
        n += 1
print(n)' "$tmp/out.json"; }
uftrace_counted() { uftrace report -d "$tmp/u" -f call 2>/dev/null |
  awk '$2 ~ /^(run|outer|mid|leaf|rec)$/ {n += $1} END {print n + 0}'; }
hog() { while :; do :; done; }
hog & h1=$!
hog & h2=$!
echo
echo "loaded: 2 CPU hogs beside the target, $iters iterations ($(calls_of "$iters") calls), load average $(cut -d' ' -f1 /proc/loadavg)"
printf '%-18s %12s %12s %12s\n' tracer ns/call counted lost
want=$(calls_of "$iters")
for c in asmspy_attached asmspy_calls uftrace_pg; do
  [ -n "${ok[$c]:-}" ] || continue
  rm -f "$tmp/out.json" "$tmp/out.txt"
  read -r ns _ <<<"$("run_$c" "$iters")"
  case $c in
    asmspy_*) counted=$(asmspy_counted); lost="$(asmspy_lost) (footer), $((want - counted)) (counts)" ;;
    uftrace_pg) counted=$(uftrace_counted); lost=$((want - counted)) ;;
  esac
  printf '%-18s %12.1f %12s %s\n' "$c" "$(echo "${ns:-0} / $want" | bc -l)" "$counted" "$lost"
  rm -f "$tmp/out.txt"
done
kill "$h1" "$h2" 2>/dev/null
