# cc_check.sh — sourced by threads_signals.sh and fork_exec.sh (after
# cc_lib.sh): one counted codecache session against a running harm-protocol
# program, the program's checks after it, and the verdict line.

# counted_session N: `asmspy --backend=codecache --stream P_PID N`
# (ASMSPY_CODECACHE_DEBUG=1: its summary line on stderr); sets S_OUT S_ERR;
# evidence into EV
counted_session() {
  local n=$1
  SDIR="$TMP/s.$P_NAME.$RANDOM"; mkdir -p "$SDIR"
  S_OUT="$SDIR/out"; S_ERR="$SDIR/err"
  SCMD="asmspy --backend=codecache --stream $P_PID $n"
  ASMSPY_CODECACHE_DEBUG=1 start_session /dev/null "$S_ERR" --backend=codecache --stream "$P_PID" "$n" --output="$S_OUT"
  if wait_session "$S_PID" "$SESSION_TIMEOUT"; then
    [ "$S_RC" = 0 ] || EV+=("asmspy exit $S_RC: $(grep -v '^\s*$' "$S_ERR" | head -3 | tr '\n' ' ')")
    local got; got=$(grep -vc '^#' "$S_OUT")
    [ "$got" = "$n" ] || EV+=("asmspy printed $got instruction lines, asked for $n")
  else
    EV+=("hang: no end of the $n-instruction session in ${SESSION_TIMEOUT}s ($(grep -vc '^#' "$S_OUT") lines; killed: $S_LEFT; program threads: $(threads_view "$P_PID"))")
  fi
}

# after_checks: the program alive and right, nothing of asmspy left in it
after_checks() {
  P_DEAD=0
  check_prog EV 2
  [ "$P_DEAD" = 1 ] && return
  local left; left=$(cache_maps "$P_PID")
  [ -z "$left" ] || EV+=("asmspy-codecache mapping(s) left: $(tr -s ' ' <<<"$left" | tr '\n' ';' | cut -c1-300)")
  local eq
  eq=$(python3 "$CALLS_SRC/code_equals_elf.py" "$P_PID" 2>&1) || EV+=("code differs from the ELF: $eq")
}

# sym_count SYMBOL: "total threads tid:count..." of the session's listing
sym_count() { python3 "$HERE/ccstream.py" count "$S_OUT" "$1"; }

# verdict DESC: the line (EV: evidence, NOTES)
verdict() {
  local summary; summary=$(grep -h '^codecache: [0-9]* instructions' "$S_ERR" 2>/dev/null | head -1)
  local said; said=$(grep -hv '^\s*$\|^codecache: [0-9]* instructions' "$S_ERR" 2>/dev/null | head -3 | cut -c1-200 | tr '\n' ' ')
  if [ ${#EV[@]} -gt 0 ]; then
    echo "FAIL $1: $SCMD"
    local e; for e in "${EV[@]}"; do echo "     evidence: $e"; done
    [ ${#NOTES[@]} = 0 ] || echo "     notes: ${NOTES[*]}"
    [ -z "$said$summary" ] || echo "     asmspy said: $said $summary"
    FAILED=$((FAILED + 1))
    if [ -n "${ARTIFACTS:-}" ]; then
      local keep="$ARTIFACTS/${1//[\/ ]/_}.$$"
      mkdir -p "$keep" && cp -r "$SDIR"/. "$keep"/ && cp "$P_OUT" "$keep/program.out" && echo "     files: $keep"
    fi
  else
    echo "ok   $1${NOTES[*]:+ — ${NOTES[*]}}${summary:+ — $summary}${said:+ — asmspy said: $said}"
    PASSED=$((PASSED + 1))
  fi
}
