#!/bin/bash
# run_scope_bench.sh — the cost of one empty scope (begin, nothing, end with
# its listing rendered) per language, for each in-process tier: codecache
# (binary translation, the default where it is usable) and singlestep (one
# trap per instruction), interleaved in one run. Prints the median and the
# minimum over N scopes (after one warm-up scope) and the ratio.
#
#   bench/run_scope_bench.sh [N]        (from the source root, after ./run.sh)
#
# Languages whose toolchain or binding is missing here are left out (said).
# JIT runtimes (node, java, mono) decline codecache (their code changes under
# a copy, docs/codecache.md): they run on singlestep whichever tier is asked.
set -u
cd "$(dirname "$0")/.."
N=${1:-50}
B=${BUILD:-build}
LIB=$PWD/$B/host/libasmspy.so
[ -f "$LIB" ] || { echo "no $LIB: run ./run.sh first"; exit 1; }
export ASMSPY_SCOPE_EMIT=0 ASMSPY_LIB=$LIB
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Each runner prints one line of microseconds per scope (N+1 lines).
run_c() { "$B/bench/scope_bench" times "$N"; }
run_python() {
  PYTHONPATH=bindings/python python3 - "$N" <<'PY'
import sys, time, asmspy
for i in range(int(sys.argv[1]) + 1):
    t0 = time.perf_counter()
    with asmspy.HwTrace.scope(None, flags=asmspy.QUIET):
        pass
    print("%.1f" % ((time.perf_counter() - t0) * 1e6))
PY
}
run_ruby() {
  ruby -I bindings/ruby/lib -e '
require "asmspy"
tr = Asmspy::HwTrace.new(quiet: true)
(ARGV[0].to_i + 1).times do
  t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  tr.scope { nil }
  puts format("%.1f", (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0) * 1e6)
end' "$N"
}
run_lua() {
  LUA_CPATH="$B/tests/scope/lua/?.so" lua5.4 - "$N" <<'LUA'
local asmspy = require "asmspy_lua"
local tr = asmspy.HwTrace{ quiet = true }
for i = 0, tonumber(arg[1]) do
  local t0 = os.clock()
  tr:scope(nil, function() end)
  print(string.format("%.1f", (os.clock() - t0) * 1e6))
end
LUA
}

have() {
  case $1 in
  c) [ -x "$B/bench/scope_bench" ] ;;
  python) command -v python3 >/dev/null ;;
  ruby) command -v ruby >/dev/null ;;
  lua) command -v lua5.4 >/dev/null && ls "$B"/tests/scope/lua/*.so >/dev/null 2>&1 ;;
  esac
}

stats() { # file -> "median min" of all lines but the first (the warm-up)
  tail -n +2 "$1" | sort -n | awk '{v[NR]=$1} END {if (NR) printf "%.1f %.1f", v[int((NR+1)/2)], v[1]; else printf "- -"}'
}

printf '%-8s %14s %14s %14s %14s %8s\n' language "codecache med" "codecache min" "singlestep med" "singlestep min" ratio
for lang in c python ruby lua; do
  if ! have "$lang"; then
    printf '%-8s (not here: its toolchain or binding is missing)\n' "$lang"
    continue
  fi
  for tier in codecache singlestep; do
    ASMSPY_SCOPE_BACKEND=$tier "run_$lang" >"$TMP/$lang.$tier" 2>"$TMP/$lang.$tier.err" ||
      echo "# $lang/$tier failed: $(head -2 "$TMP/$lang.$tier.err")"
  done
  read -r cm cn <<<"$(stats "$TMP/$lang.codecache")"
  read -r sm sn <<<"$(stats "$TMP/$lang.singlestep")"
  ratio=$(awk -v a="$sm" -v b="$cm" 'BEGIN { if (b > 0 && a > 0) printf "%.0fx", a / b; else print "-" }')
  printf '%-8s %11s us %11s us %11s us %11s us %8s\n' "$lang" "$cm" "$cn" "$sm" "$sn" "$ratio"
done
