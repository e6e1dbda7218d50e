#!/bin/bash
# Real interpreters, not victims: Debian's python3 and node, each captured
# on a handful of their own C functions (--filter) while running, then
# left. Each must finish with the same checksum as without the capture,
# still run after asmspy left, and keep every executable byte of its binary
# equal to the file.
. "$(dirname "$0")/lib.sh"
require_entrypatch

# run_plain CMD...: the checksum without asmspy
run_plain() {
  local out="$TMP/plain.$RANDOM.out"
  "$@" >"$out" 2>&1 &
  local p=$!
  local i=0
  while [ ! -s "$out" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
  kill -"$SIG" "$p"
  wait "$p" || fail "$* failed on its own: $(cat "$out")"
  checksum_of "$out"
}

# run_traced FILTER MODE CMD...: the checksum under asmspy --MODE
run_traced() {
  local filter=$1 mode=$2; shift 2
  local out="$TMP/traced.$RANDOM.out"
  "$@" >"$out" 2>&1 &
  local p=$!
  PIDS="$PIDS $p"
  local i=0
  while [ ! -s "$out" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
  before=$(rings "$p")
  "$ASMSPY" --"$mode" "$p" 200 --filter="$filter" >"$TMP/cap.txt" 2>"$TMP/cap.err" &
  local a=$!
  wait_patched "$p" "$before"
  kill -"$SIG" "$p"
  i=0
  while ! grep -q "^checksum" "$out" && [ $i -lt 3000 ]; do sleep 0.02; i=$((i + 1)); done
  grep -q "^checksum" "$out" || fail "$1 never finished its work under asmspy: $(tail -3 "$TMP/cap.err")"
  wait "$a" || true
  # asmspy has left; the interpreter lingers: it must still run, code intact
  kill -0 "$p" 2>/dev/null || fail "$* died after the capture: $(cat "$out")"
  python3 "$CALLS_SRC/code_equals_elf.py" "$p" >"$TMP/eq.txt" || fail "$(cat "$TMP/eq.txt")"
  kill -"$SIG" "$p" # the second signal: it runs its work once more, then ends
  wait "$p" || fail "$* exited non-zero after the capture: $(cat "$out")"
  grep -q "^done" "$out" || fail "$* did not reach its end after the capture"
  checksum_of "$out"
}

PY=/usr/bin/python3
if [ -x "$PY" ]; then
  SIG=USR1
  want=$(run_plain "$PY" "$CALLS_SRC/interp_loop.py" 200 0)
  for mode in calls graph; do
    got=$(run_traced "PyLong_FromLong,PyObject_Hash,PyTuple_New,PyUnicode_FromFormat*,list_append*" \
          "$mode" "$PY" "$CALLS_SRC/interp_loop.py" 200 sig)
    [ "$got" = "$want" ] || fail "python3 --$mode: checksum $got, without asmspy $want"
  done
  grep -q "PyObject_Hash\|PyLong_FromLong\|PyTuple_New" "$TMP/cap.txt" \
    || { head "$TMP/cap.txt"; fail "the capture of python3 named none of the chosen functions"; }
  pass "python3: checksum $want with and without --calls/--graph on 5 of its functions; ran on, code intact"
else
  echo "# /usr/bin/python3 missing: python part not run"
fi

NODE=$(command -v node || true)
[ -n "$NODE" ] || skip "node not installed (python3 part passed)"
SIG=USR2
want=$(run_plain "$NODE" "$CALLS_SRC/interp_loop.js" 300 0)
for mode in calls graph; do
  got=$(run_traced "uv_hrtime,uv_now,uv_update_time,uv_os_getpid,uv__hrtime" "$mode" \
        "$NODE" "$CALLS_SRC/interp_loop.js" 300 sig)
  [ "$got" = "$want" ] || fail "node --$mode: checksum $got, without asmspy $want"
done
grep -q "uv_" "$TMP/cap.txt" || { head "$TMP/cap.txt"; fail "the capture of node named none of the chosen functions"; }
pass "node: checksum $want with and without --calls/--graph on its libuv functions; ran on, code intact"
