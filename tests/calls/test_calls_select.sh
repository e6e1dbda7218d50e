#!/bin/bash
# What the call backend patches by default, on the programs distributions
# ship (select.c, choose.c; docs/entrypatch.md "What is patched by default"):
#   - a stripped executable (no .symtab) still has its functions, from
#     .dynsym (calls_stripped: -rdynamic -s);
#   - a launcher (main only, stripped) gets the library it needs, where its
#     code is (calls_launcher + libcalls_lib.so);
#   - Debian's python3 with no option shows the interpreter's own functions
#     and computes the same checksum;
#   - --module takes comma-separated globs;
#   - --patch (uftrace -P), when the CLI has it, narrows.
# Every capture: the program's checksum equals the one without asmspy.
. "$(dirname "$0")/lib.sh"
require_entrypatch

plain_checksum() { "$CALLS_DIR/$1" "${@:2}" | awk '/^checksum/ {print $2}'; }

# graph NAME ROUNDS N [OPTIONS...]: `asmspy --graph <pid> N OPTIONS` on the
# waiting victim, then it runs to its end; the graph in $TMP/NAME.txt, the
# notes in $TMP/NAME.err; prints the victim's checksum
graph() {
  local name=$1 rounds=$2 n=$3; shift 3
  start_waiting "$name" "$rounds"
  local before
  before=$(rings "$VPID")
  "$ASMSPY" --graph "$VPID" "$n" "$@" >"$TMP/$name.txt" 2>"$TMP/$name.err" &
  local a=$!
  wait_patched "$VPID" "$before"
  kill -USR1 "$VPID"
  wait_gone "$VPID" 3000 || { kill -9 "$a" 2>/dev/null; fail "$name did not finish: $(tail -3 "$TMP/$name.err")"; }
  wait "$VPID" || fail "$name exited non-zero under --graph: $(cat "$VOUT")"
  wait "$a" || true
  checksum_of "$VOUT"
}

# 1. stripped: no .symtab, its functions from .dynsym
if command -v readelf >/dev/null; then
  readelf -S -W "$CALLS_DIR/calls_stripped" | grep -q "\.symtab" && fail "calls_stripped has a .symtab"
fi
want=$(plain_checksum calls_stripped 200000)
got=$(graph calls_stripped 200000 2000)
[ "$got" = "$want" ] || fail "calls_stripped: checksum $got, without asmspy $want"
for f in leaf mid outer; do
  grep -q "\] $f \|^\[int\] $f " "$TMP/calls_stripped.txt" ||
    { cat "$TMP/calls_stripped.err"; head "$TMP/calls_stripped.txt"; fail "stripped: no $f in the graph"; }
done
pass "a stripped executable: leaf/mid/outer from .dynsym, checksum $want"

# 2. a launcher: its library chosen (the largest it needs), and said so
want=$(plain_checksum calls_launcher 200000)
got=$(graph calls_launcher 200000 2000)
[ "$got" = "$want" ] || fail "calls_launcher: checksum $got, without asmspy $want"
grep -q "patching calls_launcher.*libcalls_lib.so.*largest library it needs" "$TMP/calls_launcher.err" ||
  { cat "$TMP/calls_launcher.err"; fail "launcher: the note does not name libcalls_lib.so"; }
grep -q "lib_leaf" "$TMP/calls_launcher.txt" && grep -q "lib_outer" "$TMP/calls_launcher.txt" ||
  { head "$TMP/calls_launcher.txt"; fail "launcher: lib_leaf/lib_outer not in the graph"; }
pass "a launcher: libcalls_lib.so chosen, lib_* in the graph, checksum $want"

# 3. --module as comma globs (a pattern that matches nothing, then libc)
got=$(graph calls_workload 2000 -1 "--module=nomatch*,libc.so*")
[ "$got" = "$(plain_checksum calls_workload 2000)" ] || fail "--module globs: checksum $got"
grep -q "libc.so.6 ([0-9]*, --module)" "$TMP/calls_workload.err" ||
  { cat "$TMP/calls_workload.err"; fail "--module=nomatch*,libc.so*: libc not chosen"; }
grep -q "\[libc.so.6\]" "$TMP/calls_workload.txt" ||
  { head "$TMP/calls_workload.txt"; fail "--module=nomatch*,libc.so*: no libc function in the graph"; }
pass "--module=nomatch*,libc.so*: libc's functions in the graph"

# 4. --patch narrows (uftrace -P), once the CLI has the option
if "$ASMSPY" --help graph 2>&1 | grep -q -- "--patch="; then
  graph calls_workload 2000 500 "--patch=leaf" >/dev/null
  grep -q "leaf" "$TMP/calls_workload.txt" || fail "--patch=leaf: no leaf"
  grep -q "outer" "$TMP/calls_workload.txt" && fail "--patch=leaf: outer patched too"
  pass "--patch=leaf: only leaf"
else
  echo "# the CLI has no --patch yet: -P is covered by test_ep_select"
fi

# 5. python3 as Debian ships it, no option: the interpreter's functions
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no /usr/bin/python3 (the C parts passed)"
run_py() { # LABEL [ASMSPY]: the checksum of interp_loop.py, traced or not
  local out="$TMP/py.$1.out"
  PYTHONHASHSEED=0 "$PY" "$CALLS_SRC/interp_loop.py" 100 0 >"$out" 2>&1 &
  local p=$!
  PIDS="$PIDS $p"
  local i=0
  while [ ! -s "$out" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
  if [ -n "${2:-}" ]; then
    local before
    before=$(rings "$p")
    "$ASMSPY" --graph "$p" 200000 >"$TMP/py.txt" 2>"$TMP/py.err" &
    local a=$!
    wait_patched "$p" "$before"
    kill -USR1 "$p"
    wait "$a" || true
  else
    kill -USR1 "$p"
  fi
  wait "$p" || fail "python3 failed: $(cat "$out")"
  checksum_of "$out"
}
want=$(run_py plain)
got=$(run_py traced asmspy)
[ "$got" = "$want" ] || fail "python3 --graph: checksum $got, without asmspy $want"
grep -q "^# entrypatch: patching " "$TMP/py.err" || { cat "$TMP/py.err"; fail "python3: no selection note"; }
grep -Eq "PyObject_Malloc|_PyEval_EvalFrameDefault|PyLong_FromLong|PyTuple_New" "$TMP/py.txt" ||
  { cat "$TMP/py.err"; head "$TMP/py.txt"; fail "python3 --graph with no option: no interpreter function"; }
pass "python3 --graph with no option: interpreter functions ($(grep -c '^\[' "$TMP/py.txt") in the graph), checksum $want"
