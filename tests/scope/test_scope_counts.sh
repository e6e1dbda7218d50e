#!/bin/sh
# test_scope_counts: the oracle for the scope counts. Runs the driver (which
# calls work() N times from libscope_victim.so) under callgrind, derives the
# per-call counts of work (exclusive), helper (exclusive, x5 per work call)
# and work (inclusive), and hands them to test_scope_c through the
# environment. Usage: test_scope_counts.sh <scope_driver> <test> [<test>...]
# (each test — C, C++, the Python script — reads SCOPE_EXP_* itself).
set -eu
driver=$1
shift
command -v valgrind >/dev/null 2>&1 || { echo "SKIP: valgrind not installed"; exit 77; }
command -v callgrind_annotate >/dev/null 2>&1 || { echo "SKIP: callgrind_annotate missing"; exit 77; }
N=50
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$driver" $N >/dev/null 2>"$tmp/vg.err" || {
  cat "$tmp/vg.err"; echo "SKIP: valgrind could not run the driver"; exit 77; }
self=$(callgrind_annotate --inclusive=no "$tmp/cg.out" 2>/dev/null)
incl=$(callgrind_annotate --inclusive=yes "$tmp/cg.out" 2>/dev/null)
# Lines look like: "  1,250 (12.3%)  ???:work [/path/libscope_victim.so]" (format varies
# by version: take the first number of the line whose function is exactly work/helper).
pick() { # $1 = annotate output, $2 = function
  printf '%s\n' "$1" | awk -v fn="$2" '
    { for (i = 1; i <= NF; i++) if ($i ~ ("(^|:)" fn "$") || $i ~ ("(^|:)" fn "\\(")) {
        v = $1; gsub(",", "", v); print v; exit } }'
}
ws=$(pick "$self" work); hs=$(pick "$self" helper); wi=$(pick "$incl" work)
if [ -z "$ws" ] || [ -z "$hs" ] || [ -z "$wi" ]; then
  echo "could not parse callgrind_annotate output:"; printf '%s\n' "$self" | head -40; exit 1
fi
if [ $((ws % N)) -ne 0 ] || [ $((hs % N)) -ne 0 ] || [ $((wi % N)) -ne 0 ]; then
  echo "callgrind counts not a multiple of N=$N: work=$ws helper=$hs work_incl=$wi"; exit 1
fi
export SCOPE_EXP_WORK_SELF=$((ws / N)) SCOPE_EXP_HELPER_X5=$((hs / N)) SCOPE_EXP_WORK_INCL=$((wi / N))
echo "# callgrind oracle: work self=$SCOPE_EXP_WORK_SELF helper x5=$SCOPE_EXP_HELPER_X5 work inclusive=$SCOPE_EXP_WORK_INCL"
# In a sanitizer build libasmspy needs the ASan runtime first in the process:
# python3 itself is not built with it, so preload it for the Python test.
asan_rt=""
if [ -n "${ASMSPY_LIB:-}" ]; then
  asan_rt=$(ldd "$ASMSPY_LIB" 2>/dev/null | awk '/libasan/ {print $3; exit}')
fi
for t in "$@"; do
  echo "# running $t"
  case "$t" in
    *.py) if [ -n "$asan_rt" ]; then
            LD_PRELOAD="$asan_rt" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" python3 "$t" || { echo "FAIL: $t"; exit 1; }
          else
            python3 "$t" || { echo "FAIL: $t"; exit 1; }
          fi ;;
    *) "$t" || { echo "FAIL: $t"; exit 1; } ;;
  esac
done
