#!/bin/bash
# diff_launch.sh — codecache against singlestep on launched deterministic
# programs: `asmspy --launch stream N --backend=B --output=F -- prog` for
# B = singlestep (the exact oracle: one trap per instruction) and B =
# codecache; the two listings, normalized (ccstream.py: symbols, modules,
# mnemonics and operands with absolute addresses masked, rep repeats
# collapsed, threads named by order of appearance), must be equal thread by
# thread. Programs (each traced from ld.so's first instruction):
#   victim_loop 0 3        tests/victims (~115,000 instructions)
#   cc_det_O0, cc_det_O2   loops, calls, recursion, a jump table, qsort's
#                          callback, memcpy/strlen/memcmp/strchr through
#                          glibc's vector paths, snprintf
#   cc_det_cxx             C++ throw/catch across frames (the unwinder
#                          reads return addresses off the stack)
#   cc_dlopen              a dlopen/dlclose loop (translations dropped)
#   cc_smc                 code rewritten while it runs: in place in an rwx
#                          page, W^X with mprotect, its own .text
#   python3 -c SCRIPT      PYTHONHASHSEED=0, the first PY_N instructions
#                          (startup and the script's first work)
# Both sides run with address randomization off (setarch -R, when it works):
# string functions branch on an address's page offset (ld.so's strcmp on
# `addr & 0xfff > 0xfd0`), which ASLR changes from run to run; without it
# the listings of the same program differ under any backend.
# Whole programs run to their exit (N far above their length); python3 is
# cut by the count: its listings are compared on their common prefix.
# Work is bounded by the counts; SESSION_TIMEOUT (s) only turns a hang into
# a failure. Exit 0 all equal, 1 some differ, 77 codecache not usable.
. "$(dirname "$0")/cc_lib.sh"
require_codecache
N_ALL=${N_ALL:-5000000}
if setarch "$(uname -m)" -R true 2>/dev/null; then
  SESSION_PREFIX=(setarch "$(uname -m)" -R)
else
  echo "# setarch -R does not work here: ASLR stays on (string functions may branch on addresses)"
fi
PY_N=${PY_N:-300000}

# one_side BACKEND N TAG CMD...: a launched session, listing in $TMP/TAG.BACKEND
one_side() {
  local b=$1 n=$2 tag=$3; shift 3
  local f="$TMP/$tag.$b"
  start_session "$f.prog" "$f.err" --launch stream "$n" --backend="$b" --output="$f" -- "$@"
  local a=$S_PID
  if ! wait_session "$a" "$SESSION_TIMEOUT"; then
    echo "     $b: asmspy hung (> ${SESSION_TIMEOUT}s; killed: $S_LEFT); $(wc -l <"$f" 2>/dev/null) lines so far"
    return 1
  fi
  [ "$S_RC" = 0 ] || echo "     $b: asmspy exit $S_RC: $(grep -v '^\s*$' "$f.err" | head -3 | tr '\n' ' ')"
  return 0
}

diff_one() { # TAG N CMD...
  local tag=$1 n=$2; shift 2
  local t0; t0=$(now)
  local ok=1
  one_side singlestep "$n" "$tag" "$@" || ok=0
  one_side codecache "$n" "$tag" "$@" || ok=0
  local res
  res=$(python3 "$HERE/ccstream.py" compare "$TMP/$tag.codecache" "$TMP/$tag.singlestep" codecache singlestep 2>&1) || ok=0
  # the program's own output (asmspy's stdout: the listing went to --output);
  # OWN_PID=1: it prints its pid (victim_loop), not compared
  if [ "${OWN_PID:-0}" = 0 ] && ! cmp -s "$TMP/$tag.codecache.prog" "$TMP/$tag.singlestep.prog"; then
    ok=0
    res="$res
FAIL: the program printed differently: codecache: $(head -c 200 "$TMP/$tag.codecache.prog" | tr '\n' ' ') singlestep: $(head -c 200 "$TMP/$tag.singlestep.prog" | tr '\n' ' ')"
  fi
  local dt; dt=$(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.1f", b - a}')
  local notes
  notes=$(grep -hv '^\s*$' "$TMP/$tag.codecache.err" | grep -v '^# target exited' | head -3 | tr '\n' ' ')
  if [ $ok = 1 ]; then
    echo "ok   diff_launch $tag [$dt s]: $res${notes:+ — codecache said: $notes}"
    PASSED=$((PASSED + 1))
  else
    echo "FAIL diff_launch $tag [$dt s]: asmspy --launch stream $n --backend=codecache|singlestep -- $*"
    echo "$res" | sed 's/^/     /'
    [ -z "$notes" ] || echo "     codecache said: $notes"
    echo "     singlestep: $(wc -l <"$TMP/$tag.singlestep") lines, codecache: $(wc -l <"$TMP/$tag.codecache") lines"
    FAILED=$((FAILED + 1))
    if [ -n "${ARTIFACTS:-}" ]; then mkdir -p "$ARTIFACTS" && cp "$TMP/$tag".* "$ARTIFACTS/" && echo "     files: $ARTIFACTS/$tag.*"; fi
  fi
}

t_all=$(now)
OWN_PID=1 diff_one victim_loop "$N_ALL" "$VICTIM_DIR/victim_loop" 0 3
diff_one cc_det_O0 "$N_ALL" "$CCPID_DIR/cc_det_O0"
diff_one cc_det_O2 "$N_ALL" "$CCPID_DIR/cc_det_O2"
if [ -x "$CCPID_DIR/cc_det_cxx" ]; then
  diff_one cc_det_cxx "$N_ALL" "$CCPID_DIR/cc_det_cxx"
else
  echo "SKIP diff_launch cc_det_cxx: not built (no C++ compiler)"
fi
# libraries mapped, run, unmapped in a loop: the translations go at each unmap
diff_one cc_dlopen "$N_ALL" "$CCPID_DIR/cc_dlopen" 4
# code that changes as it runs: a stale copy would show the old immediate
# (and return it: the program checks)
diff_one cc_smc "$N_ALL" "$CCPID_DIR/cc_smc" 40

# --trace: whole invocations cut out of the translated stream, against the
# stepping backend's region capture (its first line names the pid: skipped)
trace_one() { # TAG FUNC N CMD...
  local tag=$1 fn=$2 n=$3; shift 3
  local b ok=1
  for b in singlestep codecache; do
    start_session "$TMP/$tag.$b.prog" "$TMP/$tag.$b.err" --launch trace "$fn" "$n" --backend="$b" \
      --output="$TMP/$tag.$b" -- "$@"
    wait_session "$S_PID" "$SESSION_TIMEOUT" || ok=0
  done
  if [ $ok = 1 ] && diff <(tail -n +2 "$TMP/$tag.singlestep") <(tail -n +2 "$TMP/$tag.codecache") \
    >"$TMP/$tag.diff"; then
    echo "ok   diff_launch $tag: --trace $fn $n equal ($(grep -c '^sample' "$TMP/$tag.codecache") samples)"
    PASSED=$((PASSED + 1))
  else
    echo "FAIL diff_launch $tag: asmspy --launch trace $fn $n --backend=codecache|singlestep -- $*"
    head -20 "$TMP/$tag.diff" | sed 's/^/     /'
    FAILED=$((FAILED + 1))
  fi
}
trace_one trace_work work 4 "$CCPID_DIR/cc_calls"
trace_one trace_fib fib 4 "$CCPID_DIR/cc_calls"

# the interpreter itself, not a wrapper that execs it (a pyenv shim is a
# bash script: the codecache side stops at exec)
PY=$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null)
if [ -n "$PY" ] && [ -x "$PY" ]; then
  PYTHONHASHSEED=0 diff_one python3 "$PY_N" "$PY" -S -c '
d = {}
for i in range(2000):
    d["k%d" % (i % 300)] = (i * 7919) % 1009
s = sorted(d.items())
t = ",".join("%s=%d" % kv for kv in s)
x = sum(len(k) * v for k, v in s) + len(t)
'
else
  echo "SKIP diff_launch python3: no python3"
fi
echo "diff_launch: $PASSED equal, $FAILED differ in $(awk -v a="$t_all" -v b="$(now)" 'BEGIN {printf "%.0f", b - a}') s"
[ $FAILED = 0 ] || exit 1
exit 0
