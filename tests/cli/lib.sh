# Shared helpers for the cli suite's option-table tests (sourced):
#   $ASMSPY the built CLI; the generated files' paths come as arguments.
# Exit codes follow meson: 0 pass, 1 fail, 77 skip.
set -eu
TMP=$(mktemp -d /tmp/asmspy-cli-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }
skip() { echo "SKIP: $*"; exit 77; }

# The modes the registry finds, from the generated --help (one per line).
modes() {
  "$ASMSPY" --help | sed -n '/^modes/,/^$/p' | sed -n 's/^  --\([a-z0-9_]*\) .*/\1/p'
}
