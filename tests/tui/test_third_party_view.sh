#!/bin/bash
# test_third_party_view: a view plugin the host has never heard of
# (examples/view_plugin, loaded from ASMSPY_PLUGIN_PATH) is a mode
# everywhere the host lists modes, from its descriptor alone:
#   - `asmspy --help` lists --hello among the modes;
#   - `asmspy --info <pid> --json` judges it (a verdict with its backend);
#   - the TUI's mode menu has it, with the tui entry's title, a letter the
#     host assigned (the entry asks for key 0) and the FEED layout.
# Env: ASMSPY, VICTIM_DIR, HELLO_DIR (the built asmspy_hello.so's folder),
# TUI_MENU_DUMP (tests/tui/tui_menu_dump).
. "$(dirname "$0")/../e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 missing (used to read the JSON)"
[ -f "$HELLO_DIR/asmspy_hello.so" ] || fail "no asmspy_hello.so in $HELLO_DIR"
export ASMSPY_PLUGIN_PATH=$HELLO_DIR

"$ASMSPY" --help >"$TMP/help" 2>&1 || fail "--help exited $?"
grep -qE '^  --hello ' "$TMP/help" || { cat "$TMP/help" >&2; fail "--help does not list --hello"; }
pass "--help lists the third-party mode --hello"

start_victim victim_loop
"$ASMSPY" --info "$VICTIM_PID" --json >"$TMP/info.json" || fail "--info --json exited $?"
sed -n 2p "$TMP/info.json" | python3 -c '
import json, sys
e = json.load(sys.stdin)
modes = {m["mode"]: m for m in e["modes"]}
h = modes.get("hello")
if not h:
    sys.exit("no verdict for hello: %s" % sorted(modes))
stream = modes["stream"]
# hello needs what stream needs (an instruction stream): the same backend and verdict
if h["backend"] != stream["backend"] or h["status"] != stream["status"]:
    sys.exit("hello %s via %s, stream %s via %s" % (h["status"], h["backend"], stream["status"], stream["backend"]))
print("# hello: %s via %s" % (h["status"], h["backend"]))
' || fail "--info --json: the hello mode is not judged like stream"
pass "--info --json judges the hello mode (its backend, its verdict)"

"$TUI_MENU_DUMP" "$VICTIM_PID" >"$TMP/menu" || fail "tui_menu_dump exited $?"
cat "$TMP/menu"
# key layout mode availability title; FEED = 1
line=$(awk '$3 == "hello"' "$TMP/menu")
[ -n "$line" ] || fail "the TUI menu has no hello entry"
echo "$line" | grep -qE '^[a-z] 1 hello (available|unavailable) hello \(instructions, functions\)$' \
  || fail "hello's menu entry: '$line' (want a host-assigned letter, FEED, its tui title)"
key=${line%% *}
[ "$(awk -v k="$key" '$1 == k' "$TMP/menu" | wc -l)" = 1 ] || fail "key $key is used twice"
# the built-in views keep their own numbers, '8' is the TUI's details screen
awk '$3 == "log" && $1 == "1"' "$TMP/menu" | grep -q . || fail "log is not '1'"
awk '$1 == "8" && $3 == "info"' "$TMP/menu" | grep -q . || fail "'8' is not the details screen"
# watch asks for its address in the TUI (PICK_DATA): a mode of its own, a
# host-assigned letter, drawn as a feed
awk '$3 == "watch" && $1 ~ /^[a-z]$/ && $2 == 1' "$TMP/menu" | grep -q . ||
  fail "watch is not a lettered FEED mode: $(awk '$3 == "watch"' "$TMP/menu")"
pass "the TUI menu lists hello under the host-assigned key '$key', FEED, its own title"
