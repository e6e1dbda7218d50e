#!/bin/bash
# --watch argument handling (runs on every host, watchpoints firing or not):
# every malformed request exits 2 with a one-line reason; data symbols,
# sym+off and 0xADDR resolve to the addresses nm and /proc/<pid>/maps give;
# a valid request then either reports hits (debug registers work) or prints
# the probe's "# SKIP hwwatch: <reason>" and exits 0 (they do not, as here).
# The victim survives every case.
. "$(dirname "$0")/lib.sh"

start_victim victim_watch
pid=$VICTIM_PID

bad() { # bad "what" "expected message part" ARGS...
  local what=$1 msg=$2; shift 2
  set +e
  "$ASMSPY" "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  set -e
  if [ "$got" = 0 ] && grep -q '^# SKIP ' "$TMP/out"; then
    fail "$what: answered '$(head -1 "$TMP/out")' instead of a usage error: the engine must let the view check its arguments (open + configure) before it SKIPs an unusable backend"
  fi
  [ "$got" = 2 ] || { cat "$TMP/err" >&2; fail "$what: '$*' exited $got, expected 2"; }
  grep -q -- "$msg" "$TMP/err" || fail "$what: message lacks '$msg': $(cat "$TMP/err")"
  [ "$(grep -c . "$TMP/err")" = 1 ] || fail "$what: want one line, got: $(cat "$TMP/err")"
  pass "$what -> exit 2: $(cat "$TMP/err")"
}
bad "missing pid" "needs a <pid>" --watch
bad "missing address" "needs an address" --watch "$pid"
bad "--len=3" "the width must be 1, 2, 4 or 8" --watch "$pid" counter --len=3
bad "--len=x" "the width must be 1, 2, 4 or 8" --watch "$pid" counter --len=x
bad "unknown option" "unknown option '--bogus'" --watch "$pid" counter --bogus
bad "two addresses" "unexpected argument 'watched'" --watch "$pid" counter watched
bad "bad address" "bad address '0xzz'" --watch "$pid" 0xzz
bad "unmapped address" "0x10 is not mapped in pid $pid" --watch "$pid" 0x10
bad "a function" "main is a function, not data" --watch "$pid" main
bad "another function" "bump_counter is a function, not data" --watch "$pid" bump_counter
bad "no such symbol" "no data symbol named 'no_such_var'" --watch "$pid" no_such_var
bad "thread-local" "tls_counter is thread-local" --watch "$pid" tls_counter
bad "offset past the end" "pair+8 is past the end of pair (8 bytes" --watch "$pid" pair+8
bad "bad offset" "bad offset in 'pair+zz'" --watch "$pid" pair+zz
bad "unaligned" "is not 4-byte aligned" --watch "$pid" counter+1 --len=4
bad "unaligned 8" "is not 8-byte aligned" --watch "$pid" pair+4 --len=8
bad "zero count" "count must be non-zero" --watch "$pid" counter 0
assert_runs "$pid"

# the oracle for addresses: nm's symbol value + the executable's load base
exe=$(readlink "/proc/$pid/exe")
base=$(awk -v exe="$exe" '$6 == exe && $3 == "00000000" {print $1; exit}' "/proc/$pid/maps" | cut -d- -f1)
[ -n "$base" ] || fail "no base mapping of $exe in /proc/$pid/maps"
nm_addr() { printf '0x%x' $((0x$base + 0x$(nm "$exe" | awk -v s="$1" '$3 == s {print $1}'))); }
counter=$(nm_addr counter); watched=$(nm_addr watched); pair=$(nm_addr pair)

run_ok() { # run_ok ARGS... -> $TMP/out, exit 0 required
  "$ASMSPY" "$@" >"$TMP/out" 2>"$TMP/err" || fail "'$*' exited $?: $(cat "$TMP/err")"
}
check_header() { # check_header NAME ADDR LEN ACCESS
  local unit=bytes
  [ "$3" = 1 ] && unit=byte
  grep -q "^watching $1 @ $2 ($3 $unit, $4) in pid $pid$" "$TMP/out" ||
    fail "header for $1: want 'watching $1 @ $2 ($3 $unit, $4)', got: $(head -3 "$TMP/out")"
}
outcome() { # SKIP with the probe's reason, or hits in the documented format
  if grep -q '^# SKIP hwwatch: ' "$TMP/out"; then
    grep -q 'never fired\|no hardware watchpoint slots\|0 watchpoint slots\|refused\|not built' "$TMP/out" ||
      fail "SKIP without a measured reason: $(cat "$TMP/out")"
    echo skip
  else
    grep -qE '^\[[0-9]+\] [a-z_]+\+0x[0-9a-f]+ \[victim_watch\] +.+ -?[0-9]+ -> -?[0-9]+' "$TMP/out" ||
      fail "no hit line: $(cat "$TMP/out")"
    echo hits
  fi
}
run_ok --watch "$pid" counter 2
check_header counter "$counter" 4 writes
o=$(outcome)
pass "counter resolves to nm's $counter (4 bytes); live outcome: $o"
run_ok --watch "$pid" watched 2 --rw
check_header watched "$watched" 8 "reads and writes"
outcome >/dev/null
run_ok --watch "$pid" pair+4 1
check_header pair+4 "$(printf '0x%x' $((pair + 4)))" 4 writes
run_ok --watch "$pid" "$counter" 1
check_header "$counter" "$counter" 4 writes
run_ok --watch "$pid" "$pair+0x4" 1 --len=2
check_header "$pair+0x4" "$(printf '0x%x' $((pair + 4)))" 2 writes
run_ok --watch "$pid" counter+1 1
check_header counter+1 "$(printf '0x%x' $((counter + 1)))" 1 writes
pass "watched (8, --rw), pair+4, 0xADDR, 0xADDR+off --len=2, counter+1 (1 byte) resolve"

"$ASMSPY" --watch "$pid" counter 2 --json >"$TMP/w.ndjson" 2>"$TMP/err" || fail "--json: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/w.ndjson" >/dev/null || fail "--json invalid: $("$ASMTRACE_CHECK" "$TMP/w.ndjson")"
grep -q "\"type\":\"watchpoint\",\"seq\":1,\"name\":\"counter\",\"addr\":\"$counter\",\"len\":4" "$TMP/w.ndjson" ||
  fail "no watchpoint record: $(head -3 "$TMP/w.ndjson")"
pass "--json is a valid recording with the watchpoint record"
assert_runs "$pid"
