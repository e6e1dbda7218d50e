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

# df_store_line A_HEX: the victim's "store" line for df_store(a, ...) (it
# prints it right after the call returns: polled, bounded).
df_store_line() {
  local i=0 line=""
  while [ $i -lt 200 ]; do
    line=$(awk -v a="$1" '$1 == "store" && $2 == a {print; exit}' "$DF_OUT")
    [ -n "$line" ] && { echo "$line"; return 0; }
    sleep 0.02
    i=$((i + 1))
  done
  fail "the victim never printed df_store($1)'s line"
}

# df_first_arg RECORDING: df_store's a (rdi at step 0), hex without 0x.
df_first_arg() {
  python3 -c '
import json, sys
d = [json.loads(l) for l in open(sys.argv[1]) if "\"type\":\"dataflow\"" in l][0]
rdi = [r for r in d["trace"][0]["reads"] if r["loc"] == "rdi"][0]
print("%x" % int(rdi["value"], 16))' "$1"
}
