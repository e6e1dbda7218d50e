#!/bin/bash
# `meson install` puts the man page and both completion scripts where man,
# bash-completion and zsh look for them (only the 'doc' install tag: the
# three generated files, not the whole tree).
. "$(dirname "$0")/lib.sh"
BUILD=$1
command -v meson >/dev/null || skip "meson is not on PATH"
prefix=$(meson introspect "$BUILD" --buildoptions | python3 -c '
import json, sys
print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
meson install -C "$BUILD" --no-rebuild --tags doc --destdir "$TMP/dest" >"$TMP/install.log" 2>&1 ||
  fail "meson install failed: $(tail -5 "$TMP/install.log")"
root=$TMP/dest$prefix
for f in share/man/man1/asmspy.1 share/bash-completion/completions/asmspy share/zsh/site-functions/_asmspy; do
  [ -s "$root/$f" ] || fail "$f not installed (have: $(cd "$TMP/dest" && find . -type f | head -20))"
done
head -1 "$root/share/zsh/site-functions/_asmspy" | grep -q '^#compdef asmspy' || fail "_asmspy lacks #compdef"
grep -q '^\.TH ASMSPY 1' "$root/share/man/man1/asmspy.1" || fail "asmspy.1 has no .TH line"
grep -q 'complete -F _asmspy asmspy' "$root/share/bash-completion/completions/asmspy" || fail "the bash script registers nothing"
pass "installed: share/man/man1/asmspy.1, share/bash-completion/completions/asmspy, share/zsh/site-functions/_asmspy"
