# Shared helpers for the call-capture tests (sourced). Environment:
#   $ASMSPY     the built CLI
#   $CALLS_DIR  the built call victims (calls_workload, calls_stress, ...)
#   $CALLS_SRC  this directory (code_equals_elf.py)
# Exit codes follow meson: 0 pass, 1 fail, 77 skip.
set -eu
TMP=$(mktemp -d /tmp/asmspy-calls.XXXXXX)
PIDS=""
cleanup() {
  for p in $PIDS; do kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }
skip() { echo "SKIP: $*"; exit 77; }

# entrypatch must be usable here (its probe installs the agent in itself)
require_entrypatch() {
  local line
  line=$("$ASMSPY" --backends 2>&1 | awk '$2 == "entrypatch"') || true
  [ -n "$line" ] || skip "the entrypatch backend is not built (x86-64 only)"
  case "$line" in *usable*) ;; *) skip "entrypatch: ${line#*entrypatch}" ;; esac
}

# start_waiting NAME ARGS...: start a victim that prints its pid and waits
# for SIGUSR1; sets VPID and VOUT (its stdout file).
start_waiting() {
  local name=$1; shift
  VOUT="$TMP/$name.$RANDOM.out"
  "$CALLS_DIR/$name" "$@" --wait >"$VOUT" 2>&1 &
  VPID=$!
  PIDS="$PIDS $VPID"
  local i=0
  while [ ! -s "$VOUT" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
  [ "$(head -n1 "$VOUT")" = "$VPID" ] || fail "$name did not report its pid"
}

# rings PID: how many call rings are mapped in PID now (a session that left
# while a thread stood inside agent code leaves its ring mapped)
rings() { grep -c "asmspy-calls" "/proc/$1/maps" 2>/dev/null || true; }

# wait_patched PID BEFORE: until a new ring is mapped in PID (more than
# BEFORE, counted before asmspy started) and nobody traces it any more:
# asmspy has patched it and let it go. Fails after 30 s.
wait_patched() {
  local i=0
  until [ "$(rings "$1")" -gt "${2:-0}" ] &&
        grep -q "^TracerPid:[[:space:]]*0$" "/proc/$1/status" 2>/dev/null; do
    sleep 0.02; i=$((i + 1))
    [ $i -lt 1500 ] || fail "asmspy never finished patching pid $1"
  done
}

# wait_gone PID [TICKS]: until the process is gone (reaped by us or not).
wait_gone() {
  local i=0
  while kill -0 "$1" 2>/dev/null; do
    sleep 0.02; i=$((i + 1))
    [ $i -lt "${2:-3000}" ] || return 1
  done
}

# checksum_of FILE: the victim's "checksum N" line.
checksum_of() { awk '/^checksum/ {print $2}' "$1"; }
