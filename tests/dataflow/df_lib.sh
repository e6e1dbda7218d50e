# Shared by the tests of tests/dataflow (sourced after tests/e2e/lib.sh).

# start_df_victim ROUNDS SLEEP_US THREADS: df_streams running; sets
# VICTIM_PID and DF_OUT (its stdout: the pid, "tp 0x..", the store/vec lines).
start_df_victim() {
  start_victim df_streams "$@"
  DF_OUT="$TMP/df_streams.$$.$VICTIM_SEQ.out"
}

# df_module_base PID: the load address of df_streams in PID (its mapping
# at file offset 0).
df_module_base() {
  awk '$6 ~ /\/df_streams$/ && $3 == "00000000" {split($1, a, "-"); print "0x" a[1]; exit}' "/proc/$1/maps"
}

# df_sym_off FUNC: FUNC's address in the df_streams ELF file (nm).
df_sym_off() {
  nm "$VICTIM_DIR/df_streams" | awk -v f="$1" '$3 == f {print "0x" $1; exit}'
}

# df_capture OUT ARGS...: asmspy --dataflow ARGS --json into OUT, validated.
df_capture() {
  local out=$1; shift
  "$ASMSPY" --dataflow "$@" --json >"$out" 2>"$TMP/err" || fail "--dataflow $* failed: $(cat "$TMP/err")"
  "$ASMTRACE_CHECK" "$out" >/dev/null || fail "--dataflow $* --json invalid: $("$ASMTRACE_CHECK" "$out")"
}
