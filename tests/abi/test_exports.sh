#!/bin/sh
# test_exports: libasmspy's boundary, as the linker sees it.
#   1. libasmspy.so exports only asmspy_* names (hidden visibility by default,
#      ASMSPY_API on the public calls), and exactly the calls the public
#      headers declare ASMSPY_API: no internal leaks out, no public call is
#      missing. The count is printed.
#   2. libasmspy.a exists beside it and carries the internals too (what the
#      internal tests link; the applications link libasmspy_app.a, the same
#      objects: abi_app_api).
#   3. no plugin has an undefined reference to anything libasmspy defines:
#      plugins reach the host through the asmspy_host_api table only (the
#      asmspy command links the static library and exports nothing to them).
#
# usage: test_exports.sh <source-root> <libasmspy.so> <libasmspy.a> <plugin.so>...
# exit: 0 pass, 1 fail, 77 skip (no nm), 99 harness problem
set -eu
fail() { echo "FAIL: $*" >&2; exit 1; }
hard() { echo "ERROR (harness): $*" >&2; exit 99; }

[ $# -ge 3 ] || hard "usage: $0 <source-root> <libasmspy.so> <libasmspy.a> <plugin.so>..."
SRC=$1 SO=$2 AR=$3
shift 3
command -v nm >/dev/null 2>&1 || { echo "SKIP: nm not found"; exit 77; }
[ -f "$SO" ] || hard "no shared library '$SO'"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/asmspy-exports.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# ---- 1. the shared library's exports ----------------------------------------
# Defined dynamic symbols, without the linker's own (_init, _fini, ... if any).
nm -D --defined-only "$SO" | awk 'NF >= 3 {print $3}' | sed 's/@.*//' |
  grep -Ev '^(_init|_fini|_edata|_end|__bss_start)$' | sort -u >"$TMP/exports"
N=$(wc -l <"$TMP/exports")
[ "$N" -gt 0 ] || fail "libasmspy.so exports nothing"
if grep -v '^asmspy_' "$TMP/exports" >"$TMP/bad"; then
  fail "libasmspy.so exports $(wc -l <"$TMP/bad") name(s) without the asmspy_ prefix: $(tr '\n' ' ' <"$TMP/bad")"
fi
echo "ok   libasmspy.so exports $N symbols, every one asmspy_*"

# The calls the installed headers declare ASMSPY_API (a declaration may span
# lines: join them, then take the identifier before each '('; api.h only
# defines the macro).
for h in "$SRC"/include/asmspy/*.h; do
  [ "$(basename "$h")" = api.h ] || cat "$h"
done | tr '\n' ' ' | grep -o 'ASMSPY_API [^;(]*(' |
  sed 's/($//' | awk '{print $NF}' | sed 's/^\**//' | sort -u >"$TMP/declared"
[ -s "$TMP/declared" ] || hard "found no ASMSPY_API declaration in $SRC/include/asmspy"
if ! cmp -s "$TMP/declared" "$TMP/exports"; then
  echo "declared ASMSPY_API but not exported:" >&2
  comm -23 "$TMP/declared" "$TMP/exports" >&2
  echo "exported but not declared ASMSPY_API in include/asmspy:" >&2
  comm -13 "$TMP/declared" "$TMP/exports" >&2
  fail "libasmspy.so's exports differ from the public headers' ASMSPY_API calls"
fi
echo "ok   the exports are exactly the $(wc -l <"$TMP/declared") ASMSPY_API calls of include/asmspy/*.h"

# ---- 2. the static library ---------------------------------------------------
[ -f "$AR" ] || fail "no static library '$AR' beside the shared one"
nm -g --defined-only "$AR" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDBRVWGSu]$/ {print $3}' |
  sort -u >"$TMP/archive"
NA=$(wc -l <"$TMP/archive")
comm -23 "$TMP/exports" "$TMP/archive" >"$TMP/lost"
[ ! -s "$TMP/lost" ] || fail "libasmspy.a lacks public calls: $(tr '\n' ' ' <"$TMP/lost")"
NI=$(grep -cv '^asmspy_' "$TMP/archive" || true)
[ "$NI" -gt 0 ] || fail "libasmspy.a carries no host internals (expected the writer, json, ...)"
echo "ok   libasmspy.a defines $NA global symbols ($NI internal, hidden from the .so)"

# ---- 3. plugins import nothing from libasmspy --------------------------------
for p in "$@"; do
  [ -f "$p" ] || hard "no plugin '$p'"
  nm -D --undefined-only "$p" | awk '{print $NF}' | sed 's/@.*//' | sort -u >"$TMP/undef"
  comm -12 "$TMP/undef" "$TMP/archive" >"$TMP/imports"
  [ ! -s "$TMP/imports" ] ||
    fail "$(basename "$p") references libasmspy symbols (host_api only): $(tr '\n' ' ' <"$TMP/imports")"
done
echo "ok   $# plugins reference no libasmspy symbol"
echo "PASS"
