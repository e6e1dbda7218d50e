#!/bin/bash
# Relocated calls in live prologues (plan.c): reloc_prog's main, step and
# pid_touch start `push rbp; mov rbp,rsp; call ...` (-O0; pid_touch calls
# getpid through the GOT), and at -O2 step and main start with their call.
# Under `asmspy --launch calls` each is patched (none refused), its own
# entry and exit are recorded and its callee's nest inside it, and the
# program prints the checksum it prints untraced. Then three `--calls PID`
# sessions on a running -O0 build (threads inside callees whose return
# address is right after a patched entry), which must end with the
# checksum of an untraced run of as many rounds.
# Environment: ASMSPY, RELOC_DIR (the built programs).
CALLS_DIR=${RELOC_DIR:?}
. "$(dirname "$0")/../calls/lib.sh"
require_entrypatch

checksum() { awk '/^checksum/ {print $2}' "$1"; }

# launched OPT: traced once, compared with an untraced run
launched() {
  local prog="$RELOC_DIR/reloc_prog_$1" out="$TMP/$1.out" err="$TMP/$1.err"
  RELOC_ROUNDS=20 "$prog" >"$TMP/$1.plain" || fail "$1: untraced run failed"
  RELOC_ROUNDS=20 ASMSPY_ENTRYPATCH_DEBUG=1 timeout 120 "$ASMSPY" --launch calls -- "$prog" \
    >"$out" 2>"$err" || fail "$1: asmspy failed: $(tail -5 "$err")"
  local want got
  want=$(checksum "$TMP/$1.plain")
  got=$(checksum "$out")
  [ -n "$want" ] && [ "$got" = "$want" ] || fail "$1: checksum traced '$got', untraced '$want'"
  for f in main step pid_touch; do
    if grep -q "refused $f:" "$err"; then fail "$1: $f refused: $(grep "refused $f:" "$err")"; fi
  done
  # the refused one (tiny: 1 byte) is sent as an ASMSPY_CALL_REFUSED event
  local tiny_addr
  tiny_addr=$(grep -o "REFUSED event 0x[0-9a-f]*: too short" "$err" | head -1)
  [ -n "$tiny_addr" ] || fail "$1: no REFUSED event for tiny: $(grep -i refused "$err" | head -5)"
  # the tree: main { init; run { step { bump { leaf } } x20, pid_touch { getpid@got } x2 }; report }
  # (20 rounds: a launched program this short has its first ~400 events
  # shown, the rest of its ring is not drained after it exits)
  # the program's own lines (one write at its exit) share asmspy's stdout
  # and may land inside one of asmspy's lines: taken out first
  local tree="$TMP/$1.tree"
  python3 -c 'import sys; o = open(sys.argv[1]).read(); p = open(sys.argv[2]).read(); sys.stdout.write(o.replace(p, "", 1))' \
    "$out" "$TMP/$1.plain" | sed -n 's/^.*| //p' >"$tree"
  grep -qx 'main() {' "$tree" || fail "$1: main's entry not recorded: $(head -5 "$tree")"
  grep -qx '} /\* main \*/' "$tree" || fail "$1: main's exit not recorded"
  grep -qxE '  init\(\)(;| \{)' "$tree" || fail "$1: init not nested in main"
  grep -qx '  run() {' "$tree" || fail "$1: run not nested in main"
  [ "$(grep -cx '    step() {' "$tree")" = 20 ] \
    || fail "$1: $(grep -cx '    step() {' "$tree") step() calls under run, want 20"
  [ "$(grep -cx '      bump() {' "$tree")" = 20 ] \
    || fail "$1: $(grep -cx '      bump() {' "$tree") bump() calls under step, want 20"
  [ "$(grep -cx '    } /\* step \*/' "$tree")" = 20 ] || fail "$1: step's exits not recorded"
  [ "$(grep -cx '        leaf();' "$tree")" = 20 ] || fail "$1: leaf not nested in bump"
  [ "$(grep -cxE '    pid_touch\(\)(;| \{)' "$tree")" = 2 ] \
    || fail "$1: $(grep -cxE '    pid_touch\(\)(;| \{)' "$tree") pid_touch() calls under run, want 2"
  # its relocated `call *getpid@GOTPCREL(%rip)` reads the hooked GOT slot (got.c)
  [ "$(grep -cx '      getpid@got();' "$tree")" = 2 ] \
    || fail "$1: getpid@got not nested in pid_touch: $(grep -A2 pid_touch "$tree" | head -6)"
  pass "$1: main, step, pid_touch patched (call relocated), nested, checksum $got as untraced"
}
launched O0
launched O2

# attached: sessions on a running program
prog="$RELOC_DIR/reloc_prog_O0"
RELOC_ROUNDS=-1 "$prog" >"$TMP/run.out" 2>&1 &
VPID=$!
PIDS="$PIDS $VPID"
sleep 0.2
nested=0
for k in 1 2 3; do
  ASMSPY_ENTRYPATCH_DEBUG=1 timeout -s INT 60 "$ASMSPY" --calls "$VPID" 3000 \
    >"$TMP/att.$k.out" 2>"$TMP/att.$k.err" || true
  kill -0 "$VPID" 2>/dev/null || fail "session $k: the target died: $(cat "$TMP/run.out")"
  grep -q "functions patched" "$TMP/att.$k.err" || fail "session $k patched nothing: $(tail -3 "$TMP/att.$k.err")"
  i=0
  until grep -q "^TracerPid:[[:space:]]*0$" "/proc/$VPID/status"; do
    sleep 0.02; i=$((i + 1)); [ $i -lt 500 ] || fail "session $k: still traced"
  done
  # a thread stopped inside step's or bump's first bytes refuses that one
  # for the session ("a thread's instruction pointer is inside ...")
  if grep -qE "refused (step|bump): " "$TMP/att.$k.err"; then
    echo "# session $k: $(grep -E "refused (step|bump): " "$TMP/att.$k.err" | head -1)"
    continue
  fi
  sed -n 's/^.*| //p' "$TMP/att.$k.out" >"$TMP/att.$k.tree"
  # whatever depth the session started at, bump nests one level under step
  awk '/step\(\) \{$/ {d = index($0, "s"); next}
       /bump\(\) \{$/ && d {if (index($0, "b") == d + 2) ok++; else bad++}
       END {exit !(ok > 100 && !bad)}' "$TMP/att.$k.tree" \
    || fail "session $k: bump not nested under step: $(head -12 "$TMP/att.$k.tree")"
  nested=$((nested + 1))
done
[ "$nested" -gt 0 ] || fail "no session patched both step and bump"
kill -TERM "$VPID"
wait "$VPID" || fail "the target exited non-zero: $(cat "$TMP/run.out")"
rounds=$(awk '/^rounds/ {print $2}' "$TMP/run.out")
[ -n "$rounds" ] || fail "no rounds printed: $(cat "$TMP/run.out")"
RELOC_ROUNDS=$rounds "$prog" >"$TMP/run.plain"
[ "$(checksum "$TMP/run.out")" = "$(checksum "$TMP/run.plain")" ] \
  || fail "after 3 sessions: checksum $(checksum "$TMP/run.out"), untraced $(checksum "$TMP/run.plain") ($rounds rounds)"
pass "3 --calls sessions on a running -O0 program: nested ($nested checked), checksum right after $rounds rounds"
