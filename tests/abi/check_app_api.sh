#!/bin/sh
# check_app_api: the applications are consumers of the library
# (docs/architecture.md, "The application library").
#   1. includes: no file of cli/, tui/ or tools/ includes a host/ header;
#      tui/ includes nothing of cli/; cli/ includes nothing of tui/ but
#      tui/tui.h (cli/main.c starts the TUI: one direction only).
#   2. symbols (nm): every symbol the applications' own objects take from
#      libasmspy_app.a is exported by libasmspy.so (the public asmspy_* API)
#      or declared in include/asmspy-internal/ (the application API). The
#      objects are the command's (cli/ + the TUI's archives), metrics_md's
#      and asmtrace-check's, found in meson's build tree.
#
# usage: check_app_api.sh <source-root> <build-root> <libasmspy.so> <libasmspy_app.a>
# exit: 0 pass, 1 fail, 77 skip (no nm), 99 harness problem
set -eu
fail() { echo "FAIL: $*" >&2; FAILED=1; }
hard() { echo "ERROR (harness): $*" >&2; exit 99; }

[ $# -eq 4 ] || hard "usage: $0 <source-root> <build-root> <libasmspy.so> <libasmspy_app.a>"
SRC=$1 BUILD=$2 SO=$3 APP=$4
FAILED=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/asmspy-appapi.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# ---- 1. includes ----------------------------------------------------------------
inc() { # inc <dir> <ERE of the included path>: the #include lines matching
  grep -rnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]($2)" "$SRC/$1" \
    --include='*.c' --include='*.h' | sed "s|^$SRC/||" || true
}
for d in cli tui tools; do
  [ -d "$SRC/$d" ] || hard "no $SRC/$d"
  bad=$(inc "$d" 'host/')
  [ -z "$bad" ] || fail "$d/ includes host/ headers (use asmspy-internal/app_api.h):
$bad"
done
bad=$(inc tui 'cli/')
[ -z "$bad" ] || fail "tui/ includes cli/ headers (the cli -> tui edge is the only one):
$bad"
bad=$(inc cli 'tui/' | grep -v ':#include "tui/tui.h"' || true)
[ -z "$bad" ] || fail "cli/ includes TUI headers other than tui/tui.h:
$bad"
[ "$FAILED" = 0 ] && echo "ok   cli/, tui/, tools/ include no host/ header; tui/ no cli/ header; cli/ only tui/tui.h"

# ---- 2. symbols -------------------------------------------------------------------
command -v nm >/dev/null 2>&1 || { echo "SKIP: nm not found"; exit 77; }
[ -f "$SO" ] || hard "no shared library '$SO'"
[ -f "$APP" ] || hard "no application library '$APP'"

nm -D --defined-only "$SO" | awk 'NF >= 3 {print $3}' | sed 's/@.*//' | sort -u >"$TMP/exported"
nm -g --defined-only "$APP" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u >"$TMP/lib"
[ -s "$TMP/exported" ] || hard "libasmspy.so exports nothing"
[ -s "$TMP/lib" ] || hard "libasmspy_app.a defines nothing"

# The application API: every identifier written before a '(' in the
# internal headers, comments removed (a few words such as `int` or
# `format` come along; none of them is a libasmspy symbol).
cat "$SRC"/include/asmspy-internal/*.h |
  python3 -c 'import re,sys; t=re.sub(r"/\*.*?\*/", " ", sys.stdin.read(), flags=re.S); print("\n".join(sorted(set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", t)))))' \
  >"$TMP/declared"
[ -s "$TMP/declared" ] || hard "no declarations found in include/asmspy-internal/"
sort -u "$TMP/exported" "$TMP/declared" >"$TMP/allowed"

# check <name> <object or archive>...: what those objects take from the library
check() {
  name=$1
  shift
  for o in "$@"; do [ -f "$o" ] || hard "$name: no object $o (build first)"; done
  nm -u "$@" 2>/dev/null | awk 'NF >= 2 && $1 == "U" {print $2}' | sort -u >"$TMP/undef"
  nm -g --defined-only "$@" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u >"$TMP/own"
  comm -23 "$TMP/undef" "$TMP/own" | comm -12 - "$TMP/lib" >"$TMP/used"
  comm -23 "$TMP/used" "$TMP/allowed" >"$TMP/bad"
  n_pub=$(comm -12 "$TMP/used" "$TMP/exported" | wc -l)
  n_app=$(comm -23 "$TMP/used" "$TMP/exported" | comm -12 - "$TMP/allowed" | wc -l)
  if [ -s "$TMP/bad" ]; then
    fail "$name uses $(wc -l <"$TMP/bad") libasmspy symbol(s) neither exported nor in include/asmspy-internal/: $(tr '\n' ' ' <"$TMP/bad")"
  else
    echo "ok   $name: $n_pub public asmspy_* + $n_app application-API symbols, nothing else of libasmspy"
  fi
}
objs() { # objs <dir>: the objects meson compiled there (none: a harness problem)
  set -- "$1"/*.o
  [ -f "$1" ] || hard "no objects in ${1%/*}"
  echo "$@"
}
# shellcheck disable=SC2046
check asmspy $(objs "$BUILD/cli/asmspy.p") "$BUILD"/tui/libasmspy_tui*.a
# shellcheck disable=SC2046
check metrics_md $(objs "$BUILD/tools/metrics_md.p")
# shellcheck disable=SC2046
check asmtrace-check $(objs "$BUILD/tools/asmtrace-check.p")
# asmtrace-check validates recordings through the public API alone: it links
# the shared library, so it may take nothing from the application API.
if comm -23 "$TMP/used" "$TMP/exported" | grep -q .; then
  fail "asmtrace-check uses application-API symbols: $(comm -23 "$TMP/used" "$TMP/exported" | tr '\n' ' ')"
fi

exit "$FAILED"
