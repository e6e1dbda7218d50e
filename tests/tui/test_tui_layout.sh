#!/bin/sh
# test_tui_layout: every screen the TUI reaches, at 80x24 and at 200x60.
# On each screen:
#   - the header (title bar) is there;
#   - the footer's key hints are whole: the way out ("ESC clear filter", "b modes
#     q processes", "ESC back", "process list") ends the bar, and on the
#     pickers every hint shown is one of the screen's hints, none cut;
#   - where the code promises a word boundary, a cut is at one: the
#     process picker's COMMAND column (cut with '…') and the message line
#     below it (the selected command line, wrapped, in full); the mode
#     menu's reason column and the reason shown in full for the selected
#     row (when mode 7 is unavailable here; when it works it is run like
#     the other views);
#   - the too-small message names the minimum size and never breaks a size
#     over two lines.
# Screens: process picker (flat, F2 tree), mode menu, symbol picker, and
# the views 1 syscall log, 2 assembly & functions, 3 stream, 4 graph,
# 5 tree, 6 topology, 7 hot edges (when available), 8 details, 9 data flow.
#   TUI_SAVE_SCREENS=<dir>  keeps them as <dir>/80x24/*.txt, <dir>/200x60/*.txt
#                           (how tests/tui/fixtures/80x24 and 200x60 were made)
. "$ASMSPY_SOURCE_ROOT/tests/e2e/lib.sh"
. "$ASMSPY_SOURCE_ROOT/tests/tui/tui_lib.sh"

# a copy of victim_loop under a name of its own: the filtered picker shows
# only this test's processes (and no other process's command line)
NAME=victim_layout
cp "$VICTIM_DIR/victim_loop" "$TMP/$NAME" || fail "cannot copy victim_loop"
VICTIM_DIR=$TMP
# words enough that the command line is wider than an 80-column row
tui_victim "$NAME" 2000 -1 --words enough to make this command line wider than the row of an \
  80 column terminal, so the picker cuts it at a word and shows it in full below
V=$VICTIM_PID
CMDLINE=$(tr '\0' ' ' <"/proc/$V/cmdline" | sed 's/ *$//')
# mode 2 on a slow victim, as tests/tui/test_tui_stepping.sh does (a
# region session left inside a breakpoint trap is a known backend race)
tui_victim "$NAME" 100000
T=$VICTIM_PID

# ---- checks on the last captured screen ($TMP/screen) ------------------------
row() { sed -n "${1}p" "$TMP/screen"; }

check_header() { # check_header REGEX WHAT
  row 1 | grep -Eq -- "^ asmspy — $1" || fail "$SIZE $2: the header is not ' asmspy — $1': '$(row 1)'"
}

check_footer_end() { # check_footer_end REGEX WHAT: the bar ends with the way out, whole
  # the header can be drawn before the footer of the same screen (a loaded
  # machine captures between the two): re-capture a bounded number of times
  local i=0
  until row "$ROWS" | grep -Eq -- "$1 *\$"; do
    i=$((i + 1))
    if [ $i -gt 30 ]; then
      { echo "---- the screen ----"; cat "$TMP/screen"; } >&2
      fail "$SIZE $2: the footer does not end with '$1': '$(row "$ROWS")'"
    fi
    sleep 0.1
    tui_screen >"$TMP/screen" 2>/dev/null || true
  done
}

# check_hints WHAT HINT...: the footer (hints only) is made of these hints, whole
check_hints() {
  what=$1
  shift
  row "$ROWS" | sed 's/^ *//; s/ *$//; s/   */\n/g' >"$TMP/hints"
  while IFS= read -r h; do
    ok=0
    for want in "$@"; do [ "$h" = "$want" ] && ok=1; done
    [ $ok = 1 ] || fail "$SIZE $what: '$h' is not a whole hint of this screen (footer '$(row "$ROWS")')"
  done <"$TMP/hints"
}

# cut_ok FULL SHOWN: SHOWN is FULL, or a start of it ending in '…' at a
# word boundary (before a space or bracket, or after a separator)
cut_ok() {
  [ "$2" = "$1" ] && return 0
  case "$2" in *…) ;; *) return 1 ;; esac
  kept=${2%…}
  case "$1" in "$kept"*) ;; *) return 1 ;; esac
  rest=${1#"$kept"}
  case "$rest" in " "* | "("* | "["*) return 0 ;; esac
  case "$kept" in */ | *, | *\; | *\| | *:) return 0 ;; esac
  return 1
}

# wrapped_ok FULL FILE: the rows in FILE are FULL word-wrapped, all of it,
# every row ending at a word boundary
wrapped_ok() {
  FULL=$1 awk '
    { rows[NR] = $0 }
    END {
      full = ENVIRON["FULL"]; pos = 1
      for (i = 1; i <= NR; i++) {
        r = rows[i]; sub(/^ +/, "", r); sub(/ +$/, "", r)
        while (substr(full, pos, 1) == " ") pos++
        if (substr(full, pos, length(r)) != r) { print "row " i " is not the text at " pos ": " r; exit 1 }
        pos += length(r)
        if (pos <= length(full)) {
          c = substr(full, pos, 1); last = substr(r, length(r), 1)
          if (c != " " && c != "(" && c != "[" && index("/,;|:", last) == 0) {
            print "row " i " ends inside a word: " r; exit 1
          }
        }
      }
      if (pos <= length(full)) { print "shown up to " pos " of " length(full) " characters"; exit 1 }
    }' "$2"
}

# rows_from REGEX: the rows from the first matching one down to the footer
rows_from() { # (the regex through the environment: awk -v would eat its backslashes)
  RE=$1 awk -v last="$ROWS" 'NR < last && !on && $0 ~ ENVIRON["RE"] { on = 1 } on && NR < last' "$TMP/screen"
}

# back_to_modes: b, then the mode menu again
back_to_modes() {
  tui_keys b
  tui_wait '^ 1  syscall log' "b: the modes"
}

# live KEY REGEX FILE WHAT: start mode KEY, wait for its content, check, save
live() {
  tui_keys "$1"
  tui_wait "$2" "$4"
  check_header "pid $V $NAME — $1 " "$4"
  check_footer_end 'b modes  q processes' "$4"
  tui_save "$SIZE/$3"
  back_to_modes
  assert_untraced "$V"
}

# ---- one terminal size ---------------------------------------------------------
run_size() {
  TUI_COLS=$1
  TUI_ROWS=$2
  ROWS=$2
  SIZE=${1}x$2
  tui_start

  # the process picker: our victims only
  tui_wait 'pick a process +sort: PID' "$SIZE: the process picker"
  tui_type "$NAME"
  tui_wait "^ +$T root .*$NAME" "$SIZE: both victims listed"
  tui_wait "^pid $V: " "$SIZE: the first row ($V) selected"
  check_header 'pick a process' "picker"
  # a filter is typed: ESC leaves it (q would be typed into it)
  check_footer_end 'ESC clear filter' "picker"
  check_hints picker "Enter select" "↑↓ PgUp/PgDn" "↑↓" "type to filter" "F2 tree" "F3 rescan" "ESC clear filter"
  shown=$(grep -E "^ +$V root " "$TMP/screen" | cut -c38- | sed 's/ *$//')
  cut_ok "$CMDLINE" "$shown" || fail "$SIZE picker: the COMMAND column '$shown' is not cut at a word of '$CMDLINE'"
  if [ "$1" -lt 120 ]; then
    case "$shown" in *…) ;; *) fail "$SIZE picker: '$shown' should be cut (it is wider than the row)" ;; esac
  fi
  rows_from "^pid $V: " >"$TMP/status"
  why=$(wrapped_ok "pid $V: $CMDLINE" "$TMP/status") ||
    fail "$SIZE picker: the selected command line below the list: $why"
  tui_save "$SIZE/picker"
  tui_keys F2
  tui_wait 'sort: PID +tree' "$SIZE: the tree view"
  tui_wait "^ +$V root +…?[│ ]*(├─|└─) $NAME " "$SIZE: the victim with its connector"
  check_footer_end 'ESC clear filter' "picker tree"
  tui_save "$SIZE/picker_tree"
  tui_keys F2
  tui_wait 'sort: PID +list' "$SIZE: the flat list"
  pass "$SIZE: process picker (flat, tree): hints whole, the command line cut at a word and in full below"

  # the mode menu
  tui_pick "$NAME" "$V"
  check_header "pid $V $NAME " "modes"
  check_footer_end 'process list' "modes"
  tui_save "$SIZE/modes"
  row_7=$(grep -E '^ 7  ' "$TMP/screen") || fail "$SIZE modes: no mode 7 row"
  # the columns: " K  <title:28> <mode:9> <backend:11> <state>"
  title7=$(printf '%s\n' "$row_7" | cut -c5-32 | sed 's/ *$//')
  state=$(printf '%s\n' "$row_7" | cut -c56- | sed 's/ *$//')
  re7=$(printf '%s\n' "$title7" | sed 's/[][\.*^$()+?{}|]/\\&/g')
  case "$state" in
  unavailable:*)
    # unavailable here: the row ends at a word, the reason is shown in full
    # when the row is selected, and again when 7 is pressed
    tui_keys Down Down Down Down Down Down
    tui_wait "^ 7 $re7: unavailable: " "$SIZE: mode 7's reason in full below the menu"
    rows_from "^ 7 $re7: unavailable: " >"$TMP/selected"
    tui_save "$SIZE/modes_reason"
    tui_keys 7
    tui_wait "^ 7 $re7 cannot start here: " "$SIZE: mode 7's message"
    rows_from "^ 7 $re7 cannot start here: " >"$TMP/pressed"
    # the message, joined back: a row ending in a word or in ':' ',' ';' was
    # followed by a space; the other rendering (wrapped elsewhere) must agree
    reason=$(sed 's/^ *//; s/ *$//' "$TMP/pressed" |
      awk '{ s = s (NR > 1 && prev !~ /[\/|]$/ ? " " : "") $0; prev = $0 } END { print s }')
    reason=${reason#"7 $title7 cannot start here: "}
    case "$reason" in *…) fail "$SIZE modes: mode 7's message is cut: $reason" ;; esac
    why=$(wrapped_ok "7 $title7: unavailable: $reason" "$TMP/selected") ||
      fail "$SIZE modes: the selected row's reason: $why"
    cut_ok "unavailable: $reason" "$state" || fail "$SIZE modes: mode 7's row '$state' is not cut at a word"
    [ "$1" -ge 120 ] || case "$state" in *…) ;; *) fail "$SIZE modes: mode 7's row should be cut: '$state'" ;; esac
    tui_keys Up Up Up Up Up Up
    pass "$SIZE: mode menu: mode 7's reason cut at a word in its row, in full when selected"
    ;;
  *)
    tui_keys 7 # it works here: a view like the others
    tui_wait "pid $V $NAME — 7 " "$SIZE: mode 7's view"
    check_footer_end 'b modes  q processes' "7 $title7"
    tui_save "$SIZE/sample"
    back_to_modes
    assert_untraced "$V"
    pass "$SIZE: mode 7 runs here"
    ;;
  esac

  # the live views
  live 1 '^clock_nanosleep\(' syscall_log "1 syscall log"
  live 3 "^(work|helper)\\+0x[0-9a-f]+ +\\[$NAME\\]" stream "3 stream"
  live 4 '^\[int\] helper +inv=[0-9]*[1-9]' graph "4 call graph"
  live 5 "^  -> helper \\[$NAME\\]" tree "5 call tree"
  live 6 "^node $V \\[$NAME\\] +inv=" procs "6 topology"
  live 8 'runtime +native' details "8 details"
  pass "$SIZE: views 1 3 4 5 6 8: header, whole hints"

  # 9: the symbol picker, then the data flow of work
  tui_keys 9
  tui_wait 'pick a function' "$SIZE: the symbol picker"
  tui_wait 'filter: _' "$SIZE: an empty filter"
  check_header "pid $V $NAME — 9 data flow: pick a function" "symbols"
  check_footer_end 'ESC back' "symbols"
  check_hints symbols "Enter trace it" "type to filter" "Tab order (address/hot edges/name)" "Tab order" \
    "F3 reload" "ESC back"
  tui_type work
  tui_wait "^  0x[0-9a-f]+ +[0-9]+ work +\\[$NAME\\]" "$SIZE: work in the symbol list"
  tui_save "$SIZE/symbols"
  tui_keys Enter
  tui_wait '^#[0-9]+ +\+0x[0-9a-f]+ ' "$SIZE: the data flow's steps"
  check_header "pid $V $NAME — 9 data flow: work" "9 data flow"
  check_footer_end 'b modes  q processes' "9 data flow"
  tui_save "$SIZE/dataflow"
  back_to_modes
  assert_untraced "$V"
  pass "$SIZE: symbol picker and 9 data flow"

  # 2 on the slow victim
  tui_keys q
  tui_pick "$NAME" "$T"
  tui_keys 2
  tui_wait 'pick a function' "$SIZE: the symbol picker"
  tui_wait 'filter: _' "$SIZE: an empty filter (a new process)"
  tui_type work
  tui_wait "^  0x[0-9a-f]+ +[0-9]+ work +\\[$NAME\\]" "$SIZE: work in the symbol list"
  tui_keys Enter
  tui_wait '^sample #[0-9]+ ' "$SIZE: a sample of work"
  check_header "pid $T $NAME — 2 assembly & functions: work" "2 assembly & functions"
  check_footer_end 'b modes  q processes' "2 assembly & functions"
  tui_save "$SIZE/trace"
  back_to_modes
  assert_untraced "$T"
  pass "$SIZE: 2 assembly & functions"

  # too small, then back
  tui_resize "$3" "$4"
  tui_wait 'needs|[0-9]+x[0-9]+' "$SIZE: the too-small message at $3x$4"
  tui_wait "(^| )60x12( |$)" "$SIZE: the minimum size, whole, at $3x$4"
  # a size is never broken over two rows: no row ends in a digit or 'x' when the next starts with one
  awk 'prev ~ /[0-9x]$/ && $0 ~ /^[0-9x]/ { bad = 1 } { prev = $0 } END { exit bad }' "$TMP/screen" ||
    fail "$SIZE: the too-small message breaks a number: $(cat "$TMP/screen")"
  tui_save "$SIZE/too_small_$3x$4"
  tui_resize "$1" "$2"
  tui_wait '^ 1  syscall log' "$SIZE: the modes again after the resize"
  pass "$SIZE: too small ($3x$4) names 60x12 whole; the resize back redraws"

  tui_quit
  assert_untraced "$V"
  assert_untraced "$T"
}

run_size 80 24 40 8
run_size 200 60 16 4
echo PASS
