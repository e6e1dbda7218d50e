#!/bin/bash
# Libraries mapped after the symbol table was read are named (issue 12):
#   - under --launch the table is read at exec, when only the executable and
#     ld.so are mapped: libc (and anything else ld.so maps) must still be
#     named, in --stream and --graph;
#   - a library dlopen()ed after asmspy attached (victim_dlopen signal: the
#     test attaches, then lets it dlopen libm) is named;
#   - and one dlopen()ed before attaching, as before.
. "$(dirname "$0")/lib.sh"
require_backend singlestep

# bare_or_unknown FILE: lines whose module column is [?] (no mapping known)
unknown_lines() { grep -cE '\[\?\][[:space:]]' "$1" || true; }

# 1. --launch stream of a whole run: exec, ld.so mapping libc, main calling
#    malloc/snprintf/printf, dlopen(libm), 20 cbrt calls, exit.
"$ASMSPY" --launch stream -1 -- "$VICTIM_DIR/victim_dlopen" now 0 20 >"$TMP/ls" 2>"$TMP/ls.err" \
  || fail "--launch stream exited $?: $(tail -3 "$TMP/ls.err")"
total=$(wc -l <"$TMP/ls")
[ "$total" -gt 10000 ] || fail "--launch stream printed only $total lines"
unknown=$(unknown_lines "$TMP/ls")
libc=$(grep -cE '^[^ ]+\+0x[0-9a-f]+ +\[libc\.so\.6\]' "$TMP/ls" || true)
[ "$unknown" = 0 ] || fail "--launch stream: $unknown of $total lines in no known module ([?]), e.g. $(grep -m1 -E '\[\?\]' "$TMP/ls")"
[ "$libc" -gt 1000 ] || fail "--launch stream: only $libc lines name a libc.so.6 function"
for fn in malloc snprintf printf; do
  grep -qE "^$fn\+0x[0-9a-f]+ +\[libc\.so\.6\]" "$TMP/ls" || fail "--launch stream never names $fn [libc.so.6]"
done
cbrt=$(grep -cE '^cbrt\+0x[0-9a-f]+ +\[libm\.so\.6\]' "$TMP/ls" || true)
[ "$cbrt" -ge 20 ] || fail "--launch stream: cbrt [libm.so.6] (dlopen'ed) named on $cbrt lines, expected >= 20"
pass "--launch stream: $libc libc lines, $cbrt cbrt [libm.so.6] lines, 0 of $total in [?]"

# 2. the same with a system binary, when it is dynamically linked
if [ -x /bin/true ] && grep -q 'libc.so' <(ldd /bin/true 2>/dev/null); then
  "$ASMSPY" --launch stream -1 -- /bin/true >"$TMP/true" 2>"$TMP/true.err" \
    || fail "--launch stream /bin/true exited $?: $(tail -3 "$TMP/true.err")"
  unknown=$(unknown_lines "$TMP/true")
  libc=$(grep -cE '\[libc\.so\.6\]' "$TMP/true" || true)
  [ "$unknown" = 0 ] || fail "/bin/true: $unknown lines in [?]"
  [ "$libc" -gt 0 ] || fail "/bin/true: no line names libc.so.6"
  pass "--launch stream /bin/true: $libc libc lines, none in [?]"
else
  echo "note: /bin/true missing or not dynamically linked against libc; skipped that run"
fi

# 3. --launch graph: malloc, printf (libc) and cbrt (libm) are named nodes
"$ASMSPY" --launch graph -1 --backend=singlestep -- "$VICTIM_DIR/victim_dlopen" now 0 20 >"$TMP/lg" 2>"$TMP/lg.err" \
  || fail "--launch graph exited $?: $(tail -3 "$TMP/lg.err")"
for want in 'malloc libc.so.6' 'printf libc.so.6' 'cbrt libm.so.6'; do
  set -- $want
  grep -qE "^\[EXT\] $1 +inv=.*\[$2\]\$" "$TMP/lg" || fail "--launch graph has no node '$1 [$2]': $(grep -E " $1 " "$TMP/lg")"
done
if grep -qE '\[\?\]$' "$TMP/lg"; then fail "--launch graph has nodes in no known module: $(grep -E '\[\?\]$' "$TMP/lg" | head -3)"; fi
pass "--launch graph names malloc, printf [libc.so.6] and cbrt [libm.so.6]"

# 4. attached before the dlopen: the table is loaded while the victim waits
#    in usleep; SIGUSR1 (sent once asmspy is the tracer) makes it dlopen libm
#    and call cbrt in a tight loop. The graph's 3000 calls cover the dlopen
#    (~700 calls) and then cbrt.
start_victim victim_dlopen signal 0
pid=$VICTIM_PID
"$ASMSPY" --graph "$pid" 3000 --backend=singlestep >"$TMP/ag" 2>"$TMP/ag.err" &
gpid=$!
i=0
while [ "$(awk '/^TracerPid:/ {print $2}' "/proc/$pid/status")" = 0 ] && [ $i -lt 1000 ]; do
  sleep 0.01; i=$((i + 1))
done
[ $i -lt 1000 ] || fail "asmspy never became the tracer of $pid"
kill -USR1 "$pid"
wait "$gpid" || fail "--graph exited $?: $(tail -3 "$TMP/ag.err")"
grep -qE '^\[EXT\] cbrt +inv=[1-9].*\[libm\.so\.6\]$' "$TMP/ag" \
  || fail "attached before dlopen: cbrt not named: $(head -6 "$TMP/ag")"
if grep -qE '\[\?\]$' "$TMP/ag"; then fail "attached before dlopen: unnamed nodes: $(grep -E '\[\?\]$' "$TMP/ag" | head -3)"; fi
assert_runs "$pid"
pass "attached before dlopen: cbrt [libm.so.6] named, no node in [?]"

# 5. attached after the dlopen
start_victim victim_dlopen now 0
pid=$VICTIM_PID
i=0
while ! grep -q '^loaded' "$TMP"/victim_dlopen.$$.$VICTIM_SEQ.out && [ $i -lt 1000 ]; do
  sleep 0.01; i=$((i + 1))
done
[ $i -lt 1000 ] || fail "victim_dlopen never loaded libm"
"$ASMSPY" --stream "$pid" 2000 >"$TMP/as" 2>"$TMP/as.err" || fail "--stream exited $?: $(tail -3 "$TMP/as.err")"
grep -qE '^cbrt\+0x[0-9a-f]+ +\[libm\.so\.6\]' "$TMP/as" || fail "attached after dlopen: cbrt not named"
unknown=$(unknown_lines "$TMP/as")
[ "$unknown" = 0 ] || fail "attached after dlopen: $unknown lines in [?]"
assert_runs "$pid"
pass "attached after dlopen: cbrt [libm.so.6] named"
