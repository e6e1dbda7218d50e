#!/bin/bash
# The one option parser (getopt_long, the tables) as the CLI uses it: both
# spellings of a value, choices checked, names spelled out, a negative count
# still a count; every refusal exit 2 with one line; --help generated.
. "$(dirname "$0")/lib.sh"

usage() { # usage "what" "message part" ARGS...
  local what=$1 msg=$2; shift 2
  set +e
  "$ASMSPY" "$@" </dev/null >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  set -e
  [ "$rc" = 2 ] || fail "$what: '$*' exited $rc, want 2: $(cat "$TMP/err")"
  [ "$(grep -c . "$TMP/err")" = 1 ] || fail "$what: want one line, got: $(cat "$TMP/err")"
  grep -q -- "$msg" "$TMP/err" || fail "$what: message lacks '$msg': $(cat "$TMP/err")"
  pass "$what -> exit 2: $(cat "$TMP/err")"
}
usage "unknown view option" "unknown option '--bogus'" --graph 1 --bogus
usage "abbreviation" "unknown option '--so'" --graph 1 --so=fanout
usage "abbreviated shared option" "unknown option '--fol'" --stream 1 --fol
usage "bad choice (=)" "invalid --sort 'bogus': one of invocations|fanout|functions-called" --graph 1 --sort=bogus
usage "bad choice (separate)" "invalid --count 'x': one of syscalls|calls" --procs 1 --count x
usage "missing value" "--record needs a value" --stream 1 --record
usage "empty value" "--record= needs a value" --stream 1 --record=
usage "flag with a value" "option '--follow' takes no value" --stream 1 --follow=yes
usage "short option" "unknown option '-x'" --stream 1 -x
usage "unknown mode" "unknown option '--nosuch': no command or mode of that name" --nosuch 1
usage "unknown option alone" "unknown option '--bogus'" --bogus
usage "unknown --launch mode" "--launch: unknown mode 'nosuch'" --launch nosuch -- true
usage "command option" "--list: unknown option '--tid'" --list --tid=3
usage "--info is no mode" "--info: unknown option '--follow'" --info 1 --follow

# "--tid 5" and "--tid=5" are the same request; a negative count is a
# count. Both get past the parser to the view (then fail on the dead pid:
# exit 1, not a usage error).
pid_max=$(cat /proc/sys/kernel/pid_max)
ghost=$((pid_max - 1))
while [ -e "/proc/$ghost" ]; do ghost=$((ghost - 1)); done
for args in "--tid 5" "--tid=5" "-1" "--sort fanout -3" "--sort=fanout --dot"; do
  set +e
  # shellcheck disable=SC2086
  "$ASMSPY" --graph "$ghost" $args </dev/null >"$TMP/out" 2>"$TMP/err"
  rc=$?
  set -e
  [ "$rc" = 1 ] && grep -q "no such process" "$TMP/err" ||
    fail "--graph <dead pid> $args: want exit 1 'no such process', got $rc: $(cat "$TMP/err")"
done
pass "--name value, --name=value and a negative count parse"

# --help is generated from the registry and the tables
"$ASMSPY" --help >"$TMP/help"
for m in $(modes); do
  "$ASMSPY" --help "$m" >"$TMP/one" || fail "--help $m failed"
  grep -q "^usage: asmspy --$m " "$TMP/one" || fail "--help $m: no usage line: $(head -2 "$TMP/one")"
done
grep -q -- "--sort=invocations|fanout|functions-called" "$TMP/help" || fail "--help lacks graph's --sort"
grep -q -- "^  --record=<f> " "$TMP/help" || fail "--help lacks the shared --record"
"$ASMSPY" --help graph | grep -q "^usage: asmspy --graph <pid> \[n\] \[--sort=invocations|fanout|functions-called\] \[--dot\] \[--filter=<globs>\] \[--notrace=<globs>\] \[--exclude=<globs>\] \[--depth=<d>\] \[--patch=<globs>\] \[--module=<globs>\] \[--max-funcs=<n>\] \[--demangle=simple|full\]$" ||
  fail "--help graph: $("$ASMSPY" --help graph | head -1)"
pass "--help and --help <mode> list every mode with its options ($(modes | wc -l) modes)"
"$ASMSPY" --graph 1 --help | head -1 | grep -q "^usage: asmspy --graph " || fail "--graph 1 --help is not --help graph"
pass "--<mode> ... --help prints that mode's usage"
