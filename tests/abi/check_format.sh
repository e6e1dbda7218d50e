#!/bin/sh
# Every C/C++ source of the tree follows .clang-format to the letter (K&R
# attached braces, 2-space indent, 100 columns): the tree was reformatted
# as one mechanical commit (issue 28), and a file that drifts fails here.
# Tables laid out by hand sit between `/* clang-format off */` and `on`.
# Skips (77) where clang-format is not installed.
root=${1:-$(dirname "$0")/../..}
command -v clang-format >/dev/null 2>&1 || { echo "skip: no clang-format"; exit 77; }
cd "$root" || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files=$(git ls-files '*.c' '*.h' '*.cpp' '*.hpp' '*.cc' | grep -v '^subprojects/')
else # an unpacked tarball: the same sources by name
  files=$(find . -path ./subprojects -prune -o -path './build*' -prune -o \
    \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.hpp' -o -name '*.cc' \) -print)
fi
fail=0 n=0
for f in $files; do
  n=$((n + 1))
  clang-format --style=file --dry-run -Werror "$f" >/dev/null 2>&1 ||
    { echo "FAIL: $f does not follow .clang-format (clang-format -i --style=file $f)"; fail=1; }
done
[ "$fail" = 0 ] && echo "ok: $n files follow .clang-format"
exit $fail
