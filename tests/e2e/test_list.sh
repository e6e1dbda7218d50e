#!/bin/bash
# --list: every process, `!` on the untraceable; active = recent CPU first,
# scan = string-rich memory first (STR column); bad sort -> exit 2.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 missing (used to read the JSON)"
# jtrue JSON PYEXPR: the Python expression over the parsed object `e` is true.
jtrue() { python3 -c 'import json, sys; e = json.loads(sys.argv[1]); sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$1" "$2"; }
start_victim victim_loop 500000
sleeper=$VICTIM_PID
start_victim victim_spin
spinner=$VICTIM_PID

"$ASMSPY" --list >"$TMP/list" || fail "--list failed"
head -1 "$TMP/list" | grep -qE "^ +PID +USER +THR +S +COMM" || fail "header: $(head -1 "$TMP/list")"
grep -qE "^. +$sleeper +[^ ]+ +1 [RS]  victim_loop" "$TMP/list" || fail "victim_loop $sleeper not listed"
grep -qE "^. +$spinner +[^ ]+ +1 [RS]  victim_spin" "$TMP/list" || fail "victim_spin $spinner not listed"
# default order: ascending pid
awk 'NR > 1 {print $1 == "!" || $1 == "?" ? $2 : $1}' "$TMP/list" >"$TMP/pids"
sort -n -c "$TMP/pids" || fail "--list is not in pid order"
# kernel threads are marked
if [ -r /proc/2/stat ] && grep -q kthreadd /proc/2/comm 2>/dev/null; then
  grep -qE "^! +2 .*kernel thread$" "$TMP/list" || fail "kthreadd not marked: $(grep -E '^. +2 ' "$TMP/list")"
fi
pass "--list lists the victims in pid order, kernel threads marked"

"$ASMSPY" --list active >"$TMP/active" || fail "--list active failed"
head -1 "$TMP/active" | grep -q "CPU%" || fail "active header: $(head -1 "$TMP/active")"
spin_at=$(grep -nE "^. +$spinner " "$TMP/active" | cut -d: -f1)
sleep_at=$(grep -nE "^. +$sleeper " "$TMP/active" | cut -d: -f1)
[ -n "$spin_at" ] && [ -n "$sleep_at" ] || fail "victims missing from --list active"
[ "$spin_at" -lt "$sleep_at" ] || fail "spinner (line $spin_at) not above sleeper (line $sleep_at)"
pass "--list active: victim_spin (line $spin_at) above victim_loop (line $sleep_at)"

"$ASMSPY" --list scan >"$TMP/scan" || fail "--list scan failed"
head -1 "$TMP/scan" | grep -qE " STR " || fail "scan header: $(head -1 "$TMP/scan")"
grep -qE "^. +$sleeper .* [0-9]+\.[0-9] *" "$TMP/scan" || fail "victim_loop has no STR value: $(grep -E "^. +$sleeper " "$TMP/scan")"
pass "--list scan: STR column"

expect_exit 2 "$ASMSPY" --list bogus
grep -q "^asmspy: " "$TMP/err" || fail "--list bogus: no message"
expect_exit 2 "$ASMSPY" --list active scan
expect_exit 2 "$ASMSPY" --list 5
pass "--list bogus / two sorts / a number -> exit 2"

for sort in "" active scan; do
  # shellcheck disable=SC2086
  "$ASMSPY" --list $sort --json >"$TMP/l.asmtrace" || fail "--list $sort --json failed"
  "$ASMTRACE_CHECK" "$TMP/l.asmtrace" >"$TMP/check" || fail "--list $sort --json invalid: $(cat "$TMP/check")"
  grep -q "(process=" "$TMP/check" || fail "no process events: $(cat "$TMP/check")"
  jtrue "$(grep "\"pid\":$sleeper," "$TMP/l.asmtrace")" "e['type'] == 'process' and e['comm'] == 'victim_loop' and
    isinstance(e['traceable'], bool) and all(k in e for k in ('user', 'threads', 'state', 'reason'))" \
    || fail "--list $sort --json: victim row wrong"
done
jtrue "$(grep "\"pid\":$sleeper," "$TMP/l.asmtrace")" "'str_permille' in e" || fail "scan json has no str_permille"
pass "--list [active|scan] --json: valid recordings with process events"

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  setpriv --reuid=65534 --regid=65534 --clear-groups "$ASMSPY" --list >"$TMP/nobody" || fail "unprivileged --list failed"
  line=$(grep -E "^. +$sleeper " "$TMP/nobody")
  echo "$line" | grep -qE "^! .*uid 0 \(root\)" || fail "root's victim not marked for nobody: $line"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$ASMSPY" --list scan >"$TMP/nobody_scan" || fail "unprivileged --list scan failed"
  grep -qE "^! +$sleeper .* - " "$TMP/nobody_scan" || fail "unreadable memory should show '-': $(grep -E "^. +$sleeper " "$TMP/nobody_scan")"
  pass "as nobody: $line"
fi
assert_runs "$sleeper"
assert_runs "$spinner"
