# Helpers of the cli suite's command-surface tests (sourced after
# tests/e2e/lib.sh, which gives fail/pass/skip and $TMP).
#   run WANT ARGS...  asmspy ARGS, stdout in $TMP/o, stderr in $TMP/e; its
#                     exit status must be WANT
#   has FILE ERE WHAT FILE has a line matching ERE (else fail naming WHAT)

run() {
  local want=$1; shift
  set +e
  "$ASMSPY" "$@" </dev/null >"$TMP/o" 2>"$TMP/e"
  local rc=$?
  set -e
  [ "$rc" = "$want" ] || fail "'asmspy $*' exited $rc, want $want: $(head -c 600 "$TMP/e")"
}
has() { grep -qE -- "$2" "$1" || fail "$3: no line matching '$2' in: $(head -c 800 "$1")"; }
