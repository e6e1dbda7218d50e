#!/bin/sh
# test_tui_roles: a view the TUI has never heard of gets a rich screen from
# the roles in its record schema alone (ABI 1.12, issue 28). The
# out-of-tree example view (examples/view_plugin/hello_view.c, loaded from
# $HELLO_DIR) writes one `hello_function` row per function with `insns`
# flagged SORT_KEY and `addr` flagged DRILL_FUNC. Driven in tmux:
#   - its menu entry (a host-assigned letter) starts a table: its rows;
#   - Tab sorts them by insns (largest first; the status line says so),
#     Tab again is the view's own order;
#   - Enter on a row opens the function-picking mode (data flow) on that
#     row's function, the TUI having no code for this view.
. "$ASMSPY_SOURCE_ROOT/tests/e2e/lib.sh"
. "$ASMSPY_SOURCE_ROOT/tests/tui/tui_lib.sh"

[ -f "$HELLO_DIR/asmspy_hello.so" ] || fail "no asmspy_hello.so in '$HELLO_DIR'"
tui_victim victim_loop
V=$VICTIM_PID
tui_start "ASMSPY_PLUGIN_PATH='$HELLO_DIR'"
tui_pick victim_loop "$V"
key=$(sed -nE 's/^ ([a-z])  hello .* hello .*/\1/p' "$TMP/screen")
[ -n "$key" ] || { cat "$TMP/screen" >&2; fail "no hello mode in the menu"; }
grep -Eq "^ $key  hello .*(ready|maybe)" "$TMP/screen" ||
  { echo "SKIP-PART: hello cannot start here: $(grep -E "^ $key  hello" "$TMP/screen")" >&2; tui_quit; echo PASS; exit 0; }
tui_keys "$key"
tui_wait "— $key hello" "the hello mode started"
tui_wait '^hello: saw [0-9]+ instructions in [1-9][0-9]* functions' "its summary"
tui_wait '^  [^ ].* +[0-9]+ insns *$' "its function rows"
tui_wait 'Tab sort  Enter open row' "the table's keys (from the roles)"
tui_save roles/hello_table
pass "hello: a table screen from its schema's roles"

tui_keys Tab
tui_wait 'sorted by insns \(Tab\)' "Tab: sorted by insns"
awk '/^  [^ ].* +[0-9]+ insns *$/ { n = $(NF - 1) + 0; if (seen && n > last) { bad = 1 } ; last = n; seen = 1 }
     END { exit bad || !seen }' "$TMP/screen" ||
  { cat "$TMP/screen" >&2; fail "the rows are not in descending insns order"; }
tui_save roles/hello_sorted
tui_keys Tab
tui_wait_not 'sorted by insns'
tui_keys Tab
tui_wait 'sorted by insns \(Tab\)' "Tab: sorted by insns again"
pass "hello: Tab sorts the rows by its SORT_KEY field, then back to the view's order"

# Enter on a row: the cursor starts at the bottom (the newest line); walk up
# until a row opens something (a line that is no row says so and stays).
tui_keys Home
i=0
while [ $i -lt 12 ]; do
  tui_keys Enter
  sleep 0.3
  tui_screen >"$TMP/screen"
  grep -q ' 9 data flow: ' "$TMP/screen" && break
  tui_keys Down
  i=$((i + 1))
done
tui_wait '— 9 data flow: [^ ]+' "Enter: data flow of the row's function"
tui_save roles/hello_drill
pass "hello: Enter on a row opened data flow on its function (DRILL_FUNC)"
tui_keys q
tui_wait 'pick a process' "q: the process list"
tui_quit
assert_untraced "$V"
echo PASS
