#!/bin/bash
# Terminal escape injection: names a target chose (its /tmp/perf-<pid>.map)
# and a recording's text reach the human channel with their control bytes
# rendered visibly (\x1b, \x07, ...), never raw; the recording keeps the same
# rendering, replays to the live text, and asmtrace-check flags a recording
# whose human text carries a raw control byte.
. "$(dirname "$0")/lib.sh"

MAPS=""
trap 'cleanup; for m in $MAPS; do rm -f "$m"; done' EXIT

# clean FILE WHAT: no byte a terminal would act on: nothing below 0x20 but
# '\n', no DEL, no C1 control (U+0080..U+009F), no byte that is not UTF-8
# (a raw 0x9b is CSI to an 8-bit terminal). The views' own UTF-8 (the
# graph's em dash) is text.
clean() {
  python3 - "$1" <<'PY' || fail "$2: raw control bytes reached the terminal"
import sys
data = open(sys.argv[1], "rb").read()
try:
    text = data.decode("utf-8")
except UnicodeDecodeError as e:
    sys.exit("not UTF-8 at byte %d: %r" % (e.start, data[max(0, e.start - 20):e.start + 20]))
for i, ch in enumerate(text):
    o = ord(ch)
    if (o < 0x20 and ch != "\n") or 0x7f <= o <= 0x9f:
        sys.exit("control U+%04X at char %d: %r" % (o, i, text[max(0, i - 20):i + 20]))
PY
}

start_victim victim_hostile_names
MAPS="/tmp/perf-$VICTIM_PID.map"
grep -q "$(printf '\033')" "$MAPS" || fail "the victim's perf map holds no ESC"

# the rendering of the hostile name the victim writes (HOSTILE_NAME)
VISIBLE='evil\x1b[31mRED\x1b[0m\x07bell\rCR\x7fdel\xc2\x9b2J\x9braw\x1b]0;pwned\x07end'

"$ASMSPY" --syms "$VICTIM_PID" evil >"$TMP/syms" 2>"$TMP/err" || fail "--syms: $(cat "$TMP/err")"
clean "$TMP/syms" "--syms"
grep -qF "$VISIBLE" "$TMP/syms" || fail "--syms does not show the name escaped: $(cat -v "$TMP/syms")"
pass "--syms: $(head -1 "$TMP/syms")"

# nearly every instruction the victim runs is in the hostile-named function
"$ASMSPY" --stream "$VICTIM_PID" 200 --record="$TMP/stream.asmtrace" >"$TMP/stream" 2>"$TMP/err" ||
  fail "--stream: $(cat "$TMP/err")"
clean "$TMP/stream" "--stream"
clean "$TMP/err" "--stream's stderr"
grep -qF "$VISIBLE+0x" "$TMP/stream" || fail "--stream never names the hostile function: $(head -5 "$TMP/stream")"
pass "--stream: $(grep -F "$VISIBLE" "$TMP/stream" | head -1)"

# the hostile name is a JIT function's: only stepping sees calls into JIT
# code (a call backend patches ELF functions)
"$ASMSPY" --graph "$VICTIM_PID" 5 --backend=singlestep >"$TMP/graph" 2>"$TMP/err" || fail "--graph: $(cat "$TMP/err")"
clean "$TMP/graph" "--graph"
grep -qF "$VISIBLE" "$TMP/graph" || fail "--graph does not name the hostile function: $(cat "$TMP/graph")"
pass "--graph names it escaped"

"$ASMSPY" --tree "$VICTIM_PID" 5 --backend=singlestep >"$TMP/tree" 2>"$TMP/err" || fail "--tree: $(cat "$TMP/err")"
clean "$TMP/tree" "--tree"
pass "--tree clean"

# the recording keeps the rendering the terminal got: it replays to the
# very same bytes, and the validator finds nothing raw in it
"$ASMTRACE_CHECK" "$TMP/stream.asmtrace" >"$TMP/check" || fail "live recording: $(cat "$TMP/check")"
if grep -q "raw control" "$TMP/check"; then fail "the live recording carries raw controls: $(cat "$TMP/check")"; fi
"$ASMSPY" --replay "$TMP/stream.asmtrace" >"$TMP/replay" 2>"$TMP/err" || fail "--replay: $(cat "$TMP/err")"
cmp -s "$TMP/stream" "$TMP/replay" || fail "--replay differs from the live text: $(diff "$TMP/stream" "$TMP/replay" | head -5)"
pass "the recording replays to the live text"

# a recording from elsewhere: raw ESC/BEL/C1 in an event's human text and in
# a note's text (the JSON is valid; json.dumps writes \u001b)
python3 - "$TMP/stream.asmtrace" "$TMP/tampered.asmtrace" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
events = [l for l in lines if l.get("type") not in ("header", "end")]
target = next(l for l in events if "human" in l)
target["human"] = "x\x1b[2J\x1b]0;owned\x07\u009b31m\x7fy\nsecond line\x1b[0m"
# a note carries its text as "text" (printed on stderr by --replay)
note = {"type": "note", "seq": 0, "level": "warn", "text": "note\x1b[31m\x07bell"}
i = lines.index(target)
lines.insert(i + 1, note)
seq = 0
for l in lines:
    if l.get("type") not in ("header", "end"):
        seq += 1
        l["seq"] = seq
    elif l.get("type") == "end":
        l["events"] = seq
with open(sys.argv[2], "w") as f:
    for l in lines:
        f.write(json.dumps(l) + "\n")
EOF
tampered_seq=$(python3 -c '
import json,sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    h = d.get("human")
    if isinstance(h, str) and "\x1b" in h: print(d["seq"]); break' "$TMP/tampered.asmtrace")
"$ASMSPY" --replay "$TMP/tampered.asmtrace" >"$TMP/replay" 2>"$TMP/err" || fail "--replay tampered: $(cat "$TMP/err")"
clean "$TMP/replay" "--replay of a recording with raw controls"
clean "$TMP/err" "--replay's notes"
grep -qF 'x\x1b[2J\x1b]0;owned\x07\xc2\x9b31m\x7fy' "$TMP/replay" || fail "--replay does not show the text escaped: $(cat -v "$TMP/replay" | head -3)"
grep -qx 'second line\\x1b\[0m' "$TMP/replay" || fail "--replay lost the text's own newline"
grep -qF '# note\x1b[31m\x07bell' "$TMP/err" || fail "--replay's note is not escaped: $(cat -v "$TMP/err")"
pass "--replay renders a recording's raw controls visibly"

set +e
"$ASMTRACE_CHECK" "$TMP/tampered.asmtrace" >"$TMP/check"
rc=$?
set -e
clean "$TMP/check" "asmtrace-check's report"
grep -qF "warning: seq $tampered_seq: raw control byte 0x1b in its human text" "$TMP/check" ||
  fail "asmtrace-check does not flag seq $tampered_seq (rc $rc): $(cat "$TMP/check")"
grep -qF ", 2 events in all" "$TMP/check" || fail "asmtrace-check does not count the note: $(cat "$TMP/check")"
pass "asmtrace-check flags it: $(cat "$TMP/check")"
"$ASMTRACE_CHECK" --quiet "$TMP/stream.asmtrace" "$TMP/tampered.asmtrace" >"$TMP/check" || true
[ "$(wc -l <"$TMP/check")" = 1 ] && grep -q tampered "$TMP/check" ||
  fail "--quiet should list only the tampered recording: $(cat "$TMP/check")"
"$ASMTRACE_CHECK" --json "$TMP/tampered.asmtrace" >"$TMP/check.json" || true
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["raw_control_text"]
assert r["first_seq"] == int(sys.argv[2]) and r["byte"] == 27 and r["events"] == 2, r' \
  "$TMP/check.json" "$tampered_seq" || fail "asmtrace-check --json: $(cat "$TMP/check.json")"
pass "asmtrace-check --quiet and --json report it too"
