#!/bin/bash
# asmspy(1), generated at build time from the option tables: groff renders
# it without a single warning, `man -l` shows it, and it documents every
# mode --help lists with each of its options (the same tables).
. "$(dirname "$0")/lib.sh"
PAGE=$1
[ -s "$PAGE" ] || fail "no generated man page at $PAGE"
command -v groff >/dev/null || skip "groff is not installed"

LC_ALL=C.UTF-8 groff -man -ww -z -Tutf8 "$PAGE" 2>"$TMP/groff.err" || fail "groff failed: $(cat "$TMP/groff.err")"
[ ! -s "$TMP/groff.err" ] || fail "groff warns: $(cat "$TMP/groff.err")"
pass "groff -man -ww: no warnings"

if command -v man >/dev/null; then
  MANWIDTH=100 man -l "$PAGE" >"$TMP/page.txt" 2>"$TMP/man.err" || fail "man -l failed: $(cat "$TMP/man.err")"
  [ ! -s "$TMP/man.err" ] || fail "man -l warns: $(cat "$TMP/man.err")"
  grep -q "^ASMSPY(1)" "$TMP/page.txt" || fail "man -l output has no ASMSPY(1) header"
  pass "man -l renders it"
else
  LC_ALL=C.UTF-8 groff -man -Tutf8 -P-cbou "$PAGE" >"$TMP/page.txt"
fi

# the page and --help come from the same tables: every mode, every option
n=0
for m in $(modes); do
  grep -qE "^ +--$m( |$)" "$TMP/page.txt" || fail "mode --$m is in --help but not in the man page"
  "$ASMSPY" --help "$m" | sed -n '/^options:/,/^$/p' | sed -n 's/^  \(--[a-z0-9_-]*\).*/\1/p' >"$TMP/opts"
  while read -r o; do
    grep -qE -- "^ +$o([= ]|$)" "$TMP/page.txt" || fail "--$m's option $o is not in the man page"
  done <"$TMP/opts"
  n=$((n + 1))
done
[ "$n" -ge 5 ] || fail "only $n modes in --help"
for o in json record backend tid follow; do
  grep -qE -- "^ +--$o([= ]|$)" "$TMP/page.txt" || fail "shared option --$o missing from the man page"
done
pass "$n modes with their options, and the shared options, as --help lists them"

# the sections beyond the option tables (cli/doc_tables.c): every
# environment variable --help env lists, examples, the TUI's keys, and a
# default count under each mode that has one
for sec in ENVIRONMENT EXAMPLES "TUI KEYS" "EXIT STATUS"; do
  grep -q "^$sec\$" "$TMP/page.txt" || fail "the man page has no $sec section"
done
for v in $("$ASMSPY" --help env | sed -n 's/^  \(ASMSPY_[A-Z0-9_]*\)=.*/\1/p'); do
  grep -qE "^ +$v=" "$TMP/page.txt" || fail "$v (asmspy --help env) is not in ENVIRONMENT"
done
sed -n '/^EXAMPLES$/,/^TUI KEYS$/p' "$TMP/page.txt" | grep -qE '^ +asmspy --' || fail "EXAMPLES holds no command"
sed -n '/^TUI KEYS$/,/^SEE ALSO$/p' "$TMP/page.txt" | grep -qE '^ +space ' || fail "TUI KEYS lacks the pause key"
for m in log stream trace graph tree; do
  sed -n "/^ *--$m /,/^ *--[a-z]* <pid>/p" "$TMP/page.txt" | grep -q 'Default count:' ||
    fail "--$m has no default count in the man page"
done
pass "ENVIRONMENT (as --help env), EXAMPLES, TUI KEYS, default counts"
