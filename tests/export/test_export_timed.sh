#!/bin/bash
# asmspy --export of a timed call log (the calls view's entry / leaf / exit
# records with ts_ns): perfetto names every process and thread ("M"
# process_name / thread_name / sort-index events, before the B/E events,
# with the recording's pids and tids) and folded weighs each stack by its
# self time in ns, which check_export_timed.py recomputes independently from
# the recording's JSON. 1. a hand-written recording (no backend): exact
# numbers, a thread's comm from a proc record, the process named by the
# launched command; 2. a live --calls recording of victim_loop (entrypatch;
# skipped when that backend is unavailable): the process named after its
# executable, self times equal. Untimed call records still weigh by count
# and say why.
. "$(dirname "$0")/../e2e/lib.sh"
CHECK="$(dirname "$0")/check_export_timed.py"
command -v python3 >/dev/null || skip "python3 missing"

HDR='{"type":"header","format":"asmtrace","format_version":1,"tool":"asmspy","tool_version":"0.1.0","mode":"calls","pid":5,"backend":null,"host":{"kernel":"k","arch":"x86_64"},"start_time":"2026-12-03T00:00:00Z","argv":["asmspy","--launch","calls","--","/opt/bin/my prog","-x"]}'
# cl <seq> <tid> <depth> <what> <name> <ts_ns> [<duration_ns>]
cl() {
  local dur=""
  [ -n "${7:-}" ] && dur=",\"duration_ns\":$7"
  echo "{\"type\":\"call_log\",\"seq\":$1,\"tid\":$2,\"pid\":5,\"depth\":$3,\"what\":\"$4\",\"name\":\"$5\",\"module\":\"libm.so\",\"addr\":\"0x1000\",\"ts_ns\":$6$dur,\"unwound\":false,\"duration\":\"\",\"text\":\"$5\"}"
}
# thread 5: main { a { b(); } }   thread 7 ("worker", from a proc record): c();
{ echo "$HDR"
  echo '{"type":"proc","seq":1,"tid":7,"tgid":5,"ppid":1,"leader":false,"comm":"worker","inv":0}'
  cl 2 5 0 entry main 1000; cl 3 5 1 entry a 1100; cl 4 5 2 leaf b 1300 150
  cl 5 5 1 exit a 1500 400; cl 6 7 0 leaf c 1800 500; cl 7 5 0 exit main 2000 1000
  echo '{"type":"end","events":7,"lost":0,"reason":"n_reached","status":0}'; } >"$TMP/t.asmtrace"

"$ASMSPY" --export=folded "$TMP/t.asmtrace" >"$TMP/t.folded" 2>"$TMP/err" || fail "folded exited $?: $(cat "$TMP/err")"
printf 'c 500\nmain 600\nmain;a 250\nmain;a;b 150\n' >"$TMP/want"
LC_ALL=C sort "$TMP/t.folded" | cmp -s "$TMP/want" - || fail "folded self times: $(cat "$TMP/t.folded")"
grep -q 'weight = self time in ns' "$TMP/err" || fail "folded: no time-weight note: $(cat "$TMP/err")"
grep -q 'no per-event timestamps' "$TMP/err" && fail "folded still says the recording has no timestamps"
r=$(python3 "$CHECK" selftime "$TMP/t.folded" "$TMP/t.asmtrace") || fail "selftime: $r"
"$ASMSPY" --export=perfetto "$TMP/t.asmtrace" >"$TMP/t.json" 2>"$TMP/err" || fail "perfetto exited $?: $(cat "$TMP/err")"
r2=$(python3 "$(dirname "$0")/check_export.py" perfetto "$TMP/t.json") || fail "perfetto: $r2"
m=$(python3 "$CHECK" meta "$TMP/t.json" "$TMP/t.asmtrace" "my prog") || fail "perfetto meta: $m"
python3 - "$TMP/t.json" <<'PY' || fail "thread names"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in ev if e["name"] == "thread_name"}
assert names == {5: "my prog", 7: "worker"}, names
PY
pass "hand-written call log: folded = self times (c 500, main 600, main;a 250, main;a;b 150; $r), perfetto $m, thread 7 'worker'"

# untimed call records: counts, and the note says why
echo "$HDR" >"$TMP/u.asmtrace"
echo '{"type":"call","seq":1,"tid":5,"depth":0,"name":"main","module":"m"}' >>"$TMP/u.asmtrace"
echo '{"type":"end","events":1,"lost":0,"reason":"n_reached","status":0}' >>"$TMP/u.asmtrace"
"$ASMSPY" --export=folded "$TMP/u.asmtrace" >"$TMP/u.folded" 2>"$TMP/err" || fail "untimed folded exited $?"
grep -q 'weight = number of calls (these call records carry no timestamps)' "$TMP/err" || fail "untimed note: $(cat "$TMP/err")"
pass "untimed call records: weight = calls, with the reason"

# live: entrypatch's call log of victim_loop (work -> helper x5, usleep)
if ! "$ASMSPY" --backends 2>/dev/null | grep -Eq '^backend +entrypatch +[0-9.]+ +usable'; then
  echo "note: entrypatch unavailable here: the live part is skipped"
  exit 0
fi
start_victim victim_loop
"$ASMSPY" --calls "$VICTIM_PID" 60 --record="$TMP/live.asmtrace" >/dev/null 2>"$TMP/err" || fail "--calls: $(cat "$TMP/err")"
assert_runs "$VICTIM_PID"
"$ASMSPY" --export=folded "$TMP/live.asmtrace" >"$TMP/live.folded" 2>"$TMP/err" || fail "live folded: $(cat "$TMP/err")"
grep -q 'weight = self time in ns' "$TMP/err" || fail "live folded note: $(cat "$TMP/err")"
grep -qE '(^|;)work;helper [0-9]+$' "$TMP/live.folded" || fail "live folded: no work;helper: $(cat "$TMP/live.folded")"
r=$(python3 "$CHECK" selftime "$TMP/live.folded" "$TMP/live.asmtrace") || fail "live selftime: $r"
"$ASMSPY" --export=perfetto "$TMP/live.asmtrace" >"$TMP/live.json" 2>"$TMP/err" || fail "live perfetto: $(cat "$TMP/err")"
m=$(python3 "$CHECK" meta "$TMP/live.json" "$TMP/live.asmtrace" victim_loop) || fail "live meta: $m"
pass "victim_loop --calls: folded = self times ($r); perfetto $m"
