# Helpers for the arm64 suite's tests (sourced; busybox sh).
# Result lines: run_suite.sh counts them.
ok() { echo "ok $1"; }
notok() { n=$1; shift; echo "not ok $n $*"; }
skip() { n=$1; shift; echo "skip $n $*"; }
# need_asmspy <name>: skip (and exit the test) when the payload carries no
# cross-built asmspy
need_asmspy() {
  [ -n "${ASMSPY:-}" ] && return 0
  skip "$1" "no cross-built asmspy in the payload"
  exit 0
}
