#!/bin/bash
# The call views on real programs (calls_views.c), launched under entrypatch:
#   - uftrace's filters: --filter / --notrace / --depth print the function
#     column `uftrace replay -F/-N/-D` prints for `uftrace record -P .` of
#     the same binary (skipped when uftrace is not installed);
#   - longjmp through a function that is not traced: after_jump nests
#     under jumper, deep is closed as unwound;
#   - calls that never return (exit, _exit, pthread_exit, execl) are closed,
#     never left hanging; a call still running at detach says so;
#   - refused functions are listed as not traced, in text and JSON, by
#     --calls, --tree and --graph (once the backend reports them: ABI 1.12
#     ASMSPY_CALL_REFUSED; until then that part is skipped with its reason);
#   - C++ names without parameter lists (calls_cxx: thrower, not thrower(int)).
# The synthesized-event half of the story is test_call_views.c.
. "$(dirname "$0")/lib.sh"
require_entrypatch
V="$CALLS_DIR/calls_views"
col() { sed -n 's/^[^|]*| //p' "$1" | grep -v '@plt\|^ *} /\* .*@plt' ; }

# longjmp through mid_refused (not traced)
"$ASMSPY" --launch calls -1 -- "$V" longjmp >"$TMP/lj.txt" 2>"$TMP/lj.err" || true
col "$TMP/lj.txt" | grep -B1 -A2 "after_jump" >"$TMP/lj.col" || true
grep -q "^    after_jump();" "$TMP/lj.col" || { cat "$TMP/lj.txt"; fail "after_jump is not nested under jumper"; }
grep -q "deep: unwound\|deep(); /\* unwound" "$TMP/lj.txt" || fail "deep was not closed as unwound"
pass "--calls: longjmp through an untraced function nests the next callee under the live frame"

# calls that never return
for how in exit _exit pthread_exit execl; do
  "$ASMSPY" --launch calls -1 -- "$V" "$how" >"$TMP/nr.txt" 2>"$TMP/nr.err" || true
  grep -q "goes_away" "$TMP/nr.txt" || { cat "$TMP/nr.err"; fail "$how: goes_away never seen"; }
  grep -q "goes_away: no return\|goes_away: still running" "$TMP/nr.txt" \
    || { cat "$TMP/nr.txt"; fail "$how: goes_away left open"; }
  pass "--calls: $how closes the calls that never return ($(grep -o 'goes_away: [a-z ()]*' "$TMP/nr.txt" | head -1))"
done

# still running at detach: Ctrl-C while hangs() sleeps
start_waiting calls_views hang
before=$(rings "$VPID")
"$ASMSPY" --calls "$VPID" -1 >"$TMP/hang.txt" 2>"$TMP/hang.err" &
a=$!
wait_patched "$VPID" "$before"
kill -USR1 "$VPID"
i=0
until grep -q hanging "$VOUT"; do sleep 0.02; i=$((i + 1)); [ $i -lt 1500 ] || fail "hang never started"; done
kill -INT "$a"
wait "$a" || true
grep -q "hangs: still running at detach" "$TMP/hang.txt" || { cat "$TMP/hang.txt"; fail "no 'still running at detach'"; }
kill -9 "$VPID" 2>/dev/null || true
pass "--calls: calls open at detach are printed as still running"

# C++ names
if [ -x "$CALLS_DIR/calls_cxx" ]; then
  "$ASMSPY" --launch calls 400 -- "$CALLS_DIR/calls_cxx" 3 >"$TMP/cxx.txt" 2>/dev/null || true
  grep -q "| *thrower();\|| *thrower() {" "$TMP/cxx.txt" || { head -30 "$TMP/cxx.txt"; fail "no thrower() in --calls"; }
  ! grep -q "thrower(int)" "$TMP/cxx.txt" || fail "--calls printed a parameter list"
  "$ASMSPY" --launch calls 400 --demangle=full -- "$CALLS_DIR/calls_cxx" 3 >"$TMP/cxxf.txt" 2>/dev/null || true
  grep -q "thrower(int)" "$TMP/cxxf.txt" || fail "--demangle=full lost the parameter list"
  pass "--calls: C++ names without parameter lists (thrower), --demangle=full keeps them"
fi

# refused functions: spin_refused loops back to its entry
for mode in calls tree graph; do
  "$ASMSPY" --launch "$mode" -1 -- "$V" refused >"$TMP/r.$mode.txt" 2>"$TMP/r.$mode.err" || true
  "$ASMSPY" --launch "$mode" -1 --json -- "$V" refused >"$TMP/r.$mode.json" 2>/dev/null || true
  if ! grep -q "not traced: spin_refused" "$TMP/r.$mode.txt"; then
    grep -q "refused.*spin_refused" "$TMP/r.$mode.err" || fail "--$mode: the backend did not refuse spin_refused"
    REFUSED_SKIP="the backend does not send ASMSPY_CALL_REFUSED yet (its note names spin_refused)"
    continue
  fi
  grep -q '"traced":false' "$TMP/r.$mode.json" || fail "--$mode --json: no traced:false"
  ! grep -q "spin_refused *inv=0" "$TMP/r.$mode.txt" || fail "--$mode shows spin_refused inv=0"
  pass "--$mode lists spin_refused as not traced, text and JSON"
done

# uftrace's filters, against uftrace itself
command -v uftrace >/dev/null || skip "uftrace not installed (the rest passed)"
( cd "$TMP" && uftrace record -P . -d uft "$V" filter >/dev/null 2>&1 ) || skip "uftrace record -P . failed here"
for f in "-F alloc_x" "-N c" "-F a -F b -D 2" "-D 2"; do
  opts=$(echo "$f" | sed 's/-F \([^ ]*\)/--filter=\1/g; s/-N \([^ ]*\)/--notrace=\1/g; s/-D \([^ ]*\)/--depth=\1/')
  opts=$(echo "$opts" | sed 's/--filter=a --filter=b/--filter=a,b/')
  uftrace replay -d "$TMP/uft" $f 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' | col /dev/stdin \
    | grep -v '^ */\* linux:\|^ *\(strcmp\|malloc\|free\|printf\|__cxa_finalize\)' >"$TMP/u.col"
  # shellcheck disable=SC2086
  "$ASMSPY" --launch calls -1 $opts -- "$V" filter >"$TMP/a.txt" 2>"$TMP/a.err" || true
  col "$TMP/a.txt" >"$TMP/a.col"
  if ! diff -u "$TMP/u.col" "$TMP/a.col" >"$TMP/diff"; then
    # a backend from before ABI 1.12 patches only the -F / -N matches'
    # side (fewer functions than its default selection): not the view's doing
    npatched() { grep -o "[0-9]* functions patched" "$1" | head -1 | cut -d' ' -f1; }
    "$ASMSPY" --launch calls -1 -- "$V" filter >/dev/null 2>"$TMP/all.err" || true
    nf=$(npatched "$TMP/a.err"); nall=$(npatched "$TMP/all.err")
    if [ "${nf:-0}" -ne "${nall:-0}" ]; then
      echo "# $f: differs: the backend patched $nf functions, not its default $nall (-F/-N before ABI 1.12)"
      OLD_SELECT=1; continue
    fi
    cat "$TMP/diff"; fail "--calls $opts differs from uftrace replay $f"
  fi
  pass "--calls $opts prints what uftrace replay $f prints ($(wc -l <"$TMP/a.col") lines)"
done
[ -z "${OLD_SELECT:-}" ] || REFUSED_SKIP="${REFUSED_SKIP:+$REFUSED_SKIP; }the backend's -F/-N selection is from before ABI 1.12"
[ -z "${REFUSED_SKIP:-}" ] || skip "$REFUSED_SKIP"
