#!/bin/bash
# The user documentation agrees with the code: README.md stays a short quick
# start that names ./run.sh, ./test.sh and where the binary is; its
# environment table lists exactly `asmspy --help env` (cli/doc_tables.c),
# which covers every ASMSPY_ variable the sources read; its mode table names
# every mode --help lists; the default counts in cli/doc_tables.c are the
# view plugins' own; the decoded-syscall count the docs quote is --log's;
# and every relative link in README.md and docs/*.md resolves.
. "$(dirname "$0")/lib.sh"
SRC=${SRC:?SRC must name the source tree}
README=$SRC/README.md

lines=$(grep -c '' "$README")
[ "$lines" -le 260 ] || fail "README.md has $lines lines: a quick start, the rest belongs in docs/"
for w in './run.sh' './test.sh' 'build/cli/asmspy' 'meson install' 'asmspy --backends'; do
  grep -qF -- "$w" "$README" || fail "README.md does not mention $w"
done
if grep -nE '\b(seed|used to)\b|[Ii]ssue [0-9]' "$README"; then fail "README.md has project-history wording"; fi
pass "README.md: $lines lines, names ./run.sh, ./test.sh, build/cli/asmspy"

# environment: README's table == --help env == the sources' getenv("ASMSPY_*")
"$ASMSPY" --help env | sed -n 's/^  \(ASMSPY_[A-Z0-9_]*\)=.*/\1/p' | sort -u >"$TMP/env.help"
[ -s "$TMP/env.help" ] || fail "asmspy --help env lists nothing"
sed -n '/^## Environment/,/^## /p' "$README" | sed -n 's/^| `\(ASMSPY_[A-Z0-9_]*\)[=`].*/\1/p' | sort -u >"$TMP/env.readme"
diff "$TMP/env.help" "$TMP/env.readme" >"$TMP/env.diff" ||
  fail "README.md's environment table differs from asmspy --help env (< help, > README): $(cat "$TMP/env.diff")"
grep -rhoE 'getenv\("ASMSPY_[A-Z0-9_]+"\)' "$SRC"/host "$SRC"/cli "$SRC"/plugins "$SRC"/tui "$SRC"/bindings/common |
  sed 's/getenv("\(.*\)")/\1/' | sort -u >"$TMP/env.code"
missing=$(comm -23 "$TMP/env.code" "$TMP/env.help")
[ -z "$missing" ] || fail "read by the sources but not in cli/doc_tables.c: $missing"
pass "environment: $(grep -c '' "$TMP/env.help") variables, README == --help env, every getenv covered"

# every mode --help lists has a row in README's mode table
for m in $(modes); do
  grep -qE "^\| .*\| \`--$m( [^\`]*)?\`" "$README" || fail "mode --$m has no row in README.md's mode table"
done
pass "README.md's mode table names every mode"

# default counts: cli/doc_tables.c == each view's *_DEFAULT_N
n=0
for f in "$SRC"/plugins/views/*/*.c; do
  d=$(sed -n 's/^#define [A-Z]*_DEFAULT_N \([0-9][0-9]*\).*/\1/p' "$f")
  [ -n "$d" ] || continue
  v=$(basename "$(dirname "$f")")
  mode=$v; [ "$v" = syslog ] && mode=log
  grep -qE "\{\"$mode\", \"$d " "$SRC/cli/doc_tables.c" ||
    fail "$f defaults to $d, cli/doc_tables.c says otherwise for --$mode"
  n=$((n + 1))
done
[ "$n" -ge 5 ] || fail "only $n *_DEFAULT_N constants found"
pass "$n default counts agree with the view plugins"

# the decoded-syscall count: --log's description == docs/architecture.md (x86-64)
if [ "$(uname -m)" = x86_64 ]; then
  c=$("$ASMSPY" --help log | sed -n 's/.*named, \([0-9][0-9]*\) decoded.*/\1/p')
  [ -n "$c" ] || fail "--help log gives no decoded-syscall count"
  grep -q "$c syscalls on x86-64" "$SRC/docs/architecture.md" ||
    fail "docs/architecture.md does not say '$c syscalls on x86-64' (the --log description's count)"
  pass "decoded syscalls: $c in --help log and docs/architecture.md"
fi

# relative links resolve
bad=0
for md in "$README" "$SRC"/docs/*.md; do
  dir=$(dirname "$md")
  while IFS= read -r target; do
    t=${target%%#*}
    [ -n "$t" ] || continue
    case "$t" in http://* | https://* | mailto:*) continue ;; esac
    [ -e "$dir/$t" ] || { echo "broken link in ${md#"$SRC"/}: $target" >&2; bad=1; }
  done < <(grep -oE '\]\([^)]+\)' "$md" | sed 's/^](\(.*\))$/\1/')
done
[ "$bad" = 0 ] || fail "broken relative links (above)"
pass "every relative link in README.md and docs/*.md resolves"
