#!/bin/bash
# What may not be patched (issue 24, step 2), on programs that broke it:
#   (a) mempcpy in a loop, --module=libc (and a -static build): glibc's
#       __mempcpy_*_erms jumps to __memmove_*_erms+3, inside the bytes a
#       patched memmove entry would cover: the branch scan refuses memmove;
#   (b) a signal handler running while its thread's interrupted ip (in the
#       signal frame sigreturn resumes) is inside a function's first bytes:
#       the saved-ip scan refuses that function, session after session;
#   (c) -O2 C++ with `.cold` parts (landing pads that rethrow): the parts
#       are not patched, so none shows as called, and the program ends.
# After every session the target must be alive, traced by nobody, and its
# code equal to its ELF file's (every patched byte put back).
. "$(dirname "$0")/lib.sh"
require_entrypatch

# left_intact PID WHAT [MODULE]: alive, untraced, code = file
left_intact() {
  local pid=$1 what=$2 module=${3:-}
  kill -0 "$pid" 2>/dev/null || fail "$what: the target died: $(cat "$VOUT")"
  local i=0
  until grep -q "^TracerPid:[[:space:]]*0$" "/proc/$pid/status"; do
    sleep 0.02; i=$((i + 1))
    [ $i -lt 500 ] || fail "$what: still traced after asmspy ended"
  done
  python3 "$CALLS_SRC/code_equals_elf.py" "$pid" >"$TMP/eq.txt" || fail "$what: $(cat "$TMP/eq.txt")"
  if [ -n "$module" ]; then
    python3 "$CALLS_SRC/code_equals_elf.py" "$pid" "$module" >"$TMP/eq.txt" \
      || fail "$what: $(cat "$TMP/eq.txt")"
  fi
}

# plain NAME: the checksum of a run of NAME without asmspy, stopped by
# SIGTERM after a moment (the victims print a checksum of their data only)
plain() {
  local out="$TMP/$1.plain"
  "$CALLS_DIR/$1" >"$out" 2>&1 &
  local p=$!
  sleep 0.3
  kill -TERM "$p"
  wait "$p" || fail "$1 failed on its own: $(cat "$out")"
  checksum_of "$out"
}

# sessions NAME COUNT MODULE MODE CALLS [OPTIONS...]: start NAME running,
# then COUNT sessions of `asmspy --MODE <pid> CALLS OPTIONS` one after the
# other, each checked by left_intact; then SIGTERM, and the checksum must
# equal a plain run's.
sessions() {
  local name=$1 count=$2 module=$3 mode=$4 calls=$5; shift 5
  local want
  want=$(plain "$name")
  [ -n "$want" ] || fail "$name printed no checksum on its own"
  start_waiting "$name"
  kill -USR1 "$VPID"
  local k
  for k in $(seq 1 "$count"); do
    timeout -s INT 60 "$ASMSPY" --"$mode" "$VPID" "$calls" "$@" \
      >"$TMP/$name.$k.out" 2>"$TMP/$name.$k.err" || true
    grep -q "functions patched" "$TMP/$name.$k.err" \
      || fail "$name session $k patched nothing: $(tail -3 "$TMP/$name.$k.err")"
    left_intact "$VPID" "$name session $k (--$mode $*)" "$module"
  done
  kill -TERM "$VPID"
  wait "$VPID" || fail "$name exited non-zero after $count sessions: $(cat "$VOUT")"
  [ "$(checksum_of "$VOUT")" = "$want" ] \
    || fail "$name: checksum $(checksum_of "$VOUT"), without asmspy $want"
}

# (a) mempcpy -> memmove+3
sessions calls_mempcpy 3 libc.so graph 3000 --module=libc
grep -q "branch .*lands in its first bytes" "$TMP/calls_mempcpy.1.err" \
  || fail "calls_mempcpy: no function refused for a branch into its first bytes: $(cat "$TMP/calls_mempcpy.1.err")"
pass "calls_mempcpy --module=libc: 3 sessions, no trap, checksum right, code put back"
if [ -x "$CALLS_DIR/calls_mempcpy_static" ]; then
  sessions calls_mempcpy_static 3 "" graph 3000 --module=libc
  pass "calls_mempcpy_static --module=libc: 3 sessions, no trap, checksum right, code put back"
else
  echo "# calls_mempcpy_static not built (no static libc)"
fi

# (b) a signal frame's saved ip inside sig_fill's first bytes
sessions calls_sigentry 12 "" graph 100
grep -h "refused.*instruction pointer saved" "$TMP"/calls_sigentry.*.err | grep -q sig_fill \
  || fail "calls_sigentry: sig_fill never refused for a saved ip in 12 sessions"
pass "calls_sigentry: 12 sessions with a signal frame over sig_fill's entry, computing right"

# (c) .cold parts are not functions
if [ -x "$CALLS_DIR/calls_cold" ]; then
  want=$("$CALLS_DIR/calls_cold" 3 | awk '/^checksum/ {print $2}')
  timeout -s KILL 120 "$ASMSPY" --launch calls -1 -- "$CALLS_DIR/calls_cold" 3 \
    >"$TMP/cold.launch.out" 2>"$TMP/cold.launch.err" \
    || fail "calls_cold under --launch calls did not end well: $(tail -3 "$TMP/cold.launch.err")"
  grep -q "checksum $want" "$TMP/cold.launch.out" "$TMP/cold.launch.err" \
    || fail "calls_cold under --launch calls: checksum is not $want"
  grep -q "parse()" "$TMP/cold.launch.out" || fail "--launch calls never saw parse()"
  ! grep -q "cold" "$TMP/cold.launch.out" || fail "--launch calls shows a .cold part as a call:
$(grep cold "$TMP/cold.launch.out" | head -3)"
  sessions calls_cold 3 "" graph 2000
  # a .cold part may still name the caller of the calls made from it (the
  # call site is its code), but nothing calls it: never inv > 0
  ! grep -q "cold.*inv=[1-9]" "$TMP"/calls_cold.*.out \
    || fail "--graph shows calls of a .cold part: $(grep "cold.*inv=[1-9]" "$TMP"/calls_cold.*.out | head -3)"
  pass "calls_cold: no .cold part patched (--launch calls ends, checksum right; 3 --graph sessions)"
fi
exit 0
