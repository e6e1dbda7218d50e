#!/bin/bash
# Calls through the GOT (-fno-plt, plugins/entrypatch/got.c): got_prog calls
# strlen, malloc, free, puts... as `call *f@GOTPCREL(%rip)`, with no PLT stub.
#   1. launched: strlen@got, malloc@got, free@got nested in work, puts@got in
#      main; the checksum of an untraced run;
#   2. got_addr keeps &puts (loaded from the GOT): puts@got is refused ("its
#      address is taken"), and after asmspy left the kept pointer still equals
#      dlsym's and calls puts;
#   3. three --calls sessions on a running got_prog, then one killed with
#      SIGKILL (tracer and supervisor at once: nothing undoes it) and one
#      more that removes what it left: after each, every GOT slot and the executable's
#      code read through /proc/PID/mem are what they were before, and the
#      program ends with the checksum of an untraced run of as many rounds.
# Environment: ASMSPY, GOT_DIR (the built programs).
CALLS_DIR=${GOT_DIR:?}
. "$(dirname "$0")/../calls/lib.sh"
require_entrypatch

# 1. launched
plain=$("$GOT_DIR/got_prog" once | awk '/^checksum/ {print $2}')
ASMSPY_ENTRYPATCH_DEBUG=1 timeout 120 "$ASMSPY" --launch calls -- "$GOT_DIR/got_prog" once \
  >"$TMP/l.out" 2>"$TMP/l.err" || fail "launch: asmspy failed: $(tail -5 "$TMP/l.err")"
[ "$(checksum_of "$TMP/l.out")" = "$plain" ] || fail "launch: checksum $(checksum_of "$TMP/l.out"), untraced $plain"
sed -n 's/^.*| //p' "$TMP/l.out" >"$TMP/l.tree"
for want in 'main() {' '  work() {' '    strlen@got();' '    malloc@got();' '    free@got();' \
            '  } /* work */' '  puts@got();' '} /* main */'; do
  grep -qxF "$want" "$TMP/l.tree" || fail "launch: no line '$want' in: $(cat "$TMP/l.tree")"
done
grep -q "refused __cxa_finalize@got: its address is taken" "$TMP/l.err" \
  || fail "launch: __cxa_finalize@got (cmp against 0 in the glue) not refused"
pass "launched: strlen@got, malloc@got, free@got nested in work, puts@got in main, checksum $plain"

# 2. a function's address taken through the GOT
"$GOT_DIR/got_addr" once >"$TMP/a.plain" || fail "got_addr failed untraced"
ASMSPY_ENTRYPATCH_DEBUG=1 timeout 120 "$ASMSPY" --launch calls -- "$GOT_DIR/got_addr" once \
  >"$TMP/a.out" 2>"$TMP/a.err" || fail "got_addr: asmspy failed: $(tail -5 "$TMP/a.err")"
grep -q "refused puts@got: its address is taken" "$TMP/a.err" \
  || fail "got_addr: puts@got not refused: $(grep puts "$TMP/a.err")"
grep -qxF '    strlen@got();' <(sed -n 's/^.*| //p' "$TMP/a.out") || fail "got_addr: strlen@got not traced"
for want in "kept puts == dlsym's" "kept puts called"; do
  grep -qxF "$want" "$TMP/a.out" || fail "got_addr: no '$want': $(cat "$TMP/a.out")"
done
[ "$(checksum_of "$TMP/a.out")" = "$(checksum_of "$TMP/a.plain")" ] || fail "got_addr: checksum differs"
pass "got_addr: puts@got refused (address taken), the kept &puts equals dlsym's and calls puts"

# 3. sessions on a running program
"$GOT_DIR/got_prog" loop 240 >"$TMP/run.out" 2>&1 &
VPID=$!
PIDS="$PIDS $VPID"
sleep 0.3
# the executable's GOT slots (from --syms) and its code mapping
"$ASMSPY" --syms "$VPID" @got | awk '$3 ~ /@got$/ && $4 == "[got_prog]" {print $1, $3}' >"$TMP/slots"
[ "$(wc -l <"$TMP/slots")" -ge 5 ] || fail "--syms lists no @got slots: $(cat "$TMP/slots")"
snapshot() { # slot values and a hash of got_prog's executable mappings
  python3 - "$VPID" "$TMP/slots" <<'PY'
import hashlib, sys
pid = int(sys.argv[1])
with open("/proc/%d/mem" % pid, "rb", 0) as mem:
    for line in open(sys.argv[2]):
        addr, name = line.split()
        mem.seek(int(addr, 16))
        print(name, mem.read(8).hex())
    for m in open("/proc/%d/maps" % pid).read().splitlines():
        f = m.split()
        if len(f) >= 6 and f[1][2] == "x" and f[5].endswith("/got_prog"):
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            mem.seek(lo)
            print("code", f[0], hashlib.sha256(mem.read(hi - lo)).hexdigest())
PY
}
snapshot >"$TMP/before"
anon_before=$(grep -c "asmspy-agent" "/proc/$VPID/maps" || true)
strlen_slot=$(awk '$2 == "strlen@got" {print $1}' "$TMP/slots")
slot_value() { python3 -c "
import sys
with open('/proc/$VPID/mem','rb',0) as m: m.seek($strlen_slot); print(m.read(8).hex())"; }
for k in 1 2 3; do
  ASMSPY_ENTRYPATCH_DEBUG=1 timeout -s INT 60 "$ASMSPY" --calls "$VPID" 2000 \
    >"$TMP/att.$k.out" 2>"$TMP/att.$k.err" || true
  kill -0 "$VPID" 2>/dev/null || fail "session $k: the target died: $(cat "$TMP/run.out")"
  grep -qxF '  strlen@got();' <(sed -n 's/^.*| //p' "$TMP/att.$k.out") \
    || grep -qE '^ *strlen@got\(\);$' <(sed -n 's/^.*| //p' "$TMP/att.$k.out") \
    || fail "session $k: no strlen@got call: $(head -20 "$TMP/att.$k.out")"
  i=0
  until grep -q "^TracerPid:[[:space:]]*0$" "/proc/$VPID/status"; do
    sleep 0.02; i=$((i + 1)); [ $i -lt 500 ] || fail "session $k: still traced"
  done
  snapshot >"$TMP/after.$k"
  cmp -s "$TMP/before" "$TMP/after.$k" || fail "session $k: GOT or code changed: $(diff "$TMP/before" "$TMP/after.$k" | head -6)"
done
pass "3 --calls sessions: strlen@got traced, every GOT slot and the code restored after each"
# a session killed with its supervisor (SIGKILL to both at once: nothing
# undoes it): the slots keep the stubs' addresses, the agent stays, and the
# program runs on until the next session removes it (agents.c, undo.c)
setsid "$ASMSPY" --calls "$VPID" 2000000000 >"$TMP/k.out" 2>"$TMP/k.err" &
KPID=$!
orig=$(awk '$1 == "strlen@got" {print $2}' "$TMP/before")
i=0
until [ "$(slot_value)" != "$orig" ]; do
  sleep 0.02; i=$((i + 1)); [ $i -lt 1500 ] || fail "the killed session never hooked strlen@got"
done
sleep 0.3
kill -KILL $(pgrep -P "$KPID") "$KPID" 2>/dev/null || true
wait "$KPID" 2>/dev/null || true
sleep 0.3
kill -0 "$VPID" 2>/dev/null || fail "the target died after its tracer was killed"
[ "$(slot_value)" != "$orig" ] || echo "# the killed session's GOT hook was undone anyway"
ASMSPY_ENTRYPATCH_DEBUG=1 timeout -s INT 60 "$ASMSPY" --calls "$VPID" 500 \
  >"$TMP/att.5.out" 2>"$TMP/att.5.err" || true
kill -0 "$VPID" 2>/dev/null || fail "session 5: the target died"
i=0
until grep -q "^TracerPid:[[:space:]]*0$" "/proc/$VPID/status"; do
  sleep 0.02; i=$((i + 1)); [ $i -lt 500 ] || fail "session 5: still traced"
done
snapshot >"$TMP/after.5"
cmp -s "$TMP/before" "$TMP/after.5" || fail "after the leftover undo: GOT or code changed: $(diff "$TMP/before" "$TMP/after.5" | head -6)"
[ "$(grep -c "asmspy-agent" "/proc/$VPID/maps" || true)" = "$anon_before" ] \
  || fail "agent memory left: $(grep asmspy "/proc/$VPID/maps")"
pass "a SIGKILLed session's GOT hooks removed by the next one ($(grep -o 'removed what an earlier asmspy left[^)]*)' "$TMP/att.5.err" || echo 'nothing was left'))"
kill -TERM "$VPID"
wait "$VPID" || fail "the target exited non-zero: $(tail -3 "$TMP/run.out")"
rounds=$(awk '/^rounds/ {print $2}' "$TMP/run.out")
[ -n "$rounds" ] || fail "no rounds printed: $(tail -3 "$TMP/run.out")"
want=$("$GOT_DIR/got_prog" rounds "$rounds" | awk '/^checksum/ {print $2}')
[ "$(checksum_of "$TMP/run.out")" = "$want" ] \
  || fail "after the sessions: checksum $(checksum_of "$TMP/run.out"), untraced $want ($rounds rounds)"
pass "5 sessions on a running -fno-plt program: checksum right after $rounds rounds"
