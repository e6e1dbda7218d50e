#!/bin/bash
# Benchmark: tracing a RUNNING program instruction by instruction, codecache
# (dynamic binary translation, plugins/codecache/remote*.c) against
# singlestep (one ptrace trap per instruction) and valgrind, in interleaved
# rounds (each round runs every configuration once; medians of ROUNDS).
#   victim_spin   tests/victims/victim_spin (spins in its own code forever)
#   cc_loop       bench/cc_loop.c, -O2: step() ~500 instructions per
#                 iteration, a `progress` counter read from /proc/<pid>/mem
# Configurations, each on one already-running copy of the program:
#   codecache     asmspy --backend=codecache --stream <pid> NCC >/dev/null
#   singlestep    asmspy --backend=singlestep --stream <pid> NSS >/dev/null
#                 (instructions per second = count / whole session's wall
#                 time: attach, symbol loading, detach included; `fixed s`
#                 is a 1-instruction session's time, that part alone)
#   lackey        valgrind --tool=lackey cc_loop NVG (its "guest instrs"
#   callgrind     / "Collected" count over the run's wall time; valgrind's
#                 start-up included). cc_loop only: victim_spin never ends.
#   native        cc_loop untraced: its progress over PROGRESS_S seconds
#                 x the instructions of one iteration (counted by callgrind)
# "target x" is the traced program's own slowdown: its progress per second
# while traced (sampled every 50 ms between the attach and the detach)
# against untraced; for valgrind, the run's iterations per second against
# untraced.
# "rate x" is the instruction rate against native (cc_loop) — how many
# times slower than the program runs by itself the listing is produced.
#   usage: [ROUNDS=3] [NCC=10000000] [NSS=100000] [NVG=1000000]
#          bench/run_codecache_bench.sh [build-dir]
set -u
build=${1:-build}
rounds=${ROUNDS:-3}
ncc=${NCC:-10000000}
nss=${NSS:-100000}
nvg=${NVG:-1000000}
progress_s=${PROGRESS_S:-2}
asmspy=$(realpath "$build/cli/asmspy")
spin=$(realpath "$build/tests/victims/victim_spin")
loop=$(realpath "$build/bench/cc_loop")
for f in "$asmspy" "$spin" "$loop"; do [ -x "$f" ] || { echo "missing $f (build first)"; exit 2; }; done
tmp=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill -9 $p 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"' EXIT
have_vg=0
command -v valgrind >/dev/null && have_vg=1

now() { date +%s.%N; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}'; }
start() { # NAME PROG ARGS: a running copy, its pid in the file's first line
  local name=$1; shift
  "$@" >"$tmp/$name.out" 2>&1 &
  local p=$!
  while [ ! -s "$tmp/$name.out" ]; do sleep 0.01; done
  echo "$p"
}
prog_off=$(nm "$loop" | awk '$3 == "progress" {print $1}')

# progress_at PID ADDR: the counter's value now (dd: no interpreter per sample)
progress_at() { dd if="/proc/$1/mem" bs=8 count=1 skip="$2" iflag=skip_bytes status=none 2>/dev/null | od -An -tu8 | tr -d ' '; }
progress_addr() {
  python3 - "$1" "$prog_off" "$loop" <<'PY'
import sys
pid, off, exe = sys.argv[1], int(sys.argv[2], 16), sys.argv[3]
for l in open("/proc/%s/maps" % pid):
    f = l.split()
    if len(f) >= 6 and f[5] == exe and int(f[2], 16) == 0:
        print(int(f[0].split("-")[0], 16) + off); break
PY
}

# session BACKEND PID N KIND: "<instr/s> <seconds> <iterations/s or ->".
# instr/s: N over the whole session. For cc_loop (KIND loop) the program's
# progress is sampled every 50 ms while it is traced (TracerPid set: from
# the attach to the detach), so what it ran natively before the attach and
# after the detach is not counted.
session() {
  local b=$1 p=$2 n=$3 kind=$4 t0 t1 s0="" s1="" v
  t0=$(now)
  "$asmspy" --backend="$b" --stream "$p" "$n" >/dev/null 2>"$tmp/err" &
  local a=$!
  if [ "$kind" = loop ]; then
    while kill -0 "$a" 2>/dev/null; do
      if [ "$(awk '/^TracerPid:/ {print $2}' "/proc/$p/status")" != 0 ]; then
        v=$(progress_at "$p" "$loop_addr")
        [ -n "$v" ] && { s1="$(now) $v"; [ -n "$s0" ] || s0=$s1; }
      fi
      sleep 0.05
    done
  fi
  wait "$a"
  local rc=$?
  t1=$(now)
  if [ $rc != 0 ] || grep -q 'refus\|not traced\|cannot\|error' "$tmp/err"; then
    echo "# $b on pid $p failed (exit $rc): $(head -2 "$tmp/err" | tr '\n' ' ')" >&2
    echo "- - -"; return
  fi
  local dt; dt=$(echo "$t1 - $t0" | bc -l)
  local ips="-"
  if [ -n "$s0" ]; then
    read -r ta va <<<"$s0"; read -r tb vb <<<"$s1"
    [ "$(echo "$tb - $ta > 0.2" | bc -l)" = 1 ] && ips=$(echo "($vb - $va) / ($tb - $ta)" | bc -l)
  fi
  echo "$(echo "$n / $dt" | bc -l) $dt $ips"
}
native_ips() { # PID: iterations/s untraced over PROGRESS_S
  local p=$1 a b t0 t1
  a=$(progress_at "$p" "$loop_addr"); t0=$(now); sleep "$progress_s"; b=$(progress_at "$p" "$loop_addr"); t1=$(now)
  echo "($b - $a) / ($t1 - $t0)" | bc -l
}
valgrind_run() { # TOOL: "<instr/s> <seconds> <iterations/s>"
  local tool=$1 t0 t1 n
  t0=$(now)
  case $tool in
    lackey) valgrind --tool=lackey "$loop" "$nvg" >/dev/null 2>"$tmp/vg"; n=$(sed -n 's/.*guest instrs: *\([0-9,]*\)$/\1/p' "$tmp/vg" | tr -d ,);;
    callgrind) valgrind --tool=callgrind --callgrind-out-file=/dev/null "$loop" "$nvg" >/dev/null 2>"$tmp/vg"; n=$(sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$tmp/vg");;
  esac
  t1=$(now)
  local dt; dt=$(echo "$t1 - $t0" | bc -l)
  [ -n "$n" ] && echo "$n" >"$tmp/vg_instrs"
  echo "$(echo "${n:-0} / $dt" | bc -l) $dt $(echo "$nvg / $dt" | bc -l)"
}

spin_pid=$(start spin "$spin")
loop_pid=$(start loop "$loop" 0)
pids="$spin_pid $loop_pid" # (start ran in a subshell)
loop_addr=$(progress_addr "$loop_pid")
declare -A rate secs tgt
add() {
  [ "$2" != - ] && rate[$1]="${rate[$1]:-} $2"
  [ "$3" != - ] && secs[$1]="${secs[$1]:-} $3"
  [ "$4" != - ] && tgt[$1]="${tgt[$1]:-} $4"
  return 0
}
for r in $(seq 1 "$rounds"); do
  add native/loop - - "$(native_ips "$loop_pid")"
  for prog in spin loop; do
    pid=$spin_pid; [ $prog = loop ] && pid=$loop_pid
    read -r a b c <<<"$(session codecache "$pid" "$ncc" $prog)"; add "codecache/$prog" "$a" "$b" "$c"
    read -r a b c <<<"$(session singlestep "$pid" "$nss" $prog)"; add "singlestep/$prog" "$a" "$b" "$c"
    read -r a b c <<<"$(session codecache "$pid" 1 $prog)"; add "codecache1/$prog" "$a" "$b" -
    read -r a b c <<<"$(session singlestep "$pid" 1 $prog)"; add "singlestep1/$prog" "$a" "$b" -
  done
  if [ $have_vg = 1 ]; then
    read -r a b c <<<"$(valgrind_run lackey)"; add lackey/loop "$a" "$b" "$c"
    read -r a b c <<<"$(valgrind_run callgrind)"; add callgrind/loop "$a" "$b" "$c"
  fi
done

# cc_loop's native instruction rate: its iterations/s x instructions per
# iteration (callgrind's count / NVG; else from the step() listing: 500)
per_iter=500
[ -s "$tmp/vg_instrs" ] && per_iter=$(echo "$(cat "$tmp/vg_instrs") / $nvg" | bc -l)
nat_ips=$(echo "${tgt[native/loop]}" | median)
nat_rate=$(echo "$nat_ips * $per_iter" | bc -l)
echo "machine: $(nproc) CPUs, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg); median of $rounds interleaved rounds"
printf 'cc_loop untraced: %.3g iterations/s x %.1f instructions = %.3g instructions/s\n' "$nat_ips" "$per_iter" "$nat_rate"
printf '%-11s %-12s %10s %12s %9s %10s %10s %10s\n' program tracer count "instr/s" "fixed s" "rate x" "target x" "vs cc"
fmt() { [ "$1" = - ] && echo - || printf "$2" "$1"; }
for prog in spin loop; do
  cc=$(echo "${rate[codecache/$prog]}" | median)
  for tr in codecache singlestep lackey callgrind; do
    [ -n "${rate[$tr/$prog]:-}" ] || continue
    n=$ncc; [ $tr = singlestep ] && n=$nss; case $tr in lackey|callgrind) n="$nvg it";; esac
    rt=$(echo "${rate[$tr/$prog]}" | median)
    fixed=-; [ -n "${secs[${tr}1/$prog]:-}" ] && fixed=$(echo "${secs[${tr}1/$prog]}" | median)
    rx=-; tx=-
    if [ $prog = loop ]; then
      rx=$(echo "$nat_rate / $rt" | bc -l)
      t=$(echo "${tgt[$tr/$prog]:-}" | median)
      [ "$t" != - ] && tx=$(echo "$nat_ips / $t" | bc -l)
    fi
    printf '%-11s %-12s %10s %12s %9s %10s %10s %10s\n' "$( [ $prog = spin ] && echo victim_spin || echo cc_loop)" "$tr" "$n" \
      "$(fmt "$rt" '%.3g')" "$(fmt "$fixed" '%.3f')" "$(fmt "$rx" '%.1f')" "$(fmt "$tx" '%.1f')" "$(printf '%.3g' "$(echo "$cc / $rt" | bc -l)")"
  done
done
echo "rate x: native instructions/s over the tracer's; target x: the program's untraced speed over its speed while traced"
echo "vs cc: codecache's instructions/s over this tracer's (the whole session's, start-up and detach included)"
