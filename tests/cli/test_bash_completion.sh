#!/bin/bash
# The generated bash completion, sourced and driven as bash drives it
# (COMP_WORDS / COMP_CWORD, '=' a word break): modes and commands after
# asmspy, a mode's options from its view's table, an option's choices.
. "$(dirname "$0")/lib.sh"
SCRIPT=$1
[ -s "$SCRIPT" ] || fail "no generated completion script at $SCRIPT"
# shellcheck disable=SC1090
. "$SCRIPT"
complete -p asmspy >/dev/null || fail "the script registers no completion for asmspy"

run() { # run WORD... : complete the last word; COMPREPLY as one line
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMP_WORDBREAKS=${COMP_WORDBREAKS:-$' \t\n"'"'"'><=;|&(:'}
  COMPREPLY=()
  _asmspy
  echo "${COMPREPLY[*]}"
}
has() { # has "WHAT" "GOT" WORD
  case " $2 " in *" $3 "*) ;; *) fail "$1: '$3' not offered (got: $2)";; esac
}

got=$(run "$ASMSPY" --gr)
[ "$got" = "--graph" ] || fail "asmspy --gr: want --graph, got '$got'"
pass "asmspy --gr -> $got"

got=$(run "$ASMSPY" --graph 1 --so)
[ "$got" = "--sort=" ] || fail "asmspy --graph 1 --so: want --sort=, got '$got'"
pass "asmspy --graph 1 --so -> $got"

# bash splits "--sort=f" into --sort = f: the value part is completed
got=$(run "$ASMSPY" --graph 1 --sort = f)
[ "$got" = "fanout functions-called" ] || fail "--sort=f: want 'fanout functions-called', got '$got'"
pass "asmspy --graph 1 --sort=f -> $got"

got=$(run "$ASMSPY" --procs 1 --count syscalls --)
has "--procs options" "$got" "--count="
has "--procs options" "$got" "--dot"
has "shared options" "$got" "--json"
has "shared options" "$got" "--tid="
pass "asmspy --procs 1 ... -- -> the view's and the shared options"

got=$(run "$ASMSPY" --procs 1 --count "")
[ "$got" = "calls syscalls" ] || [ "$got" = "syscalls calls" ] || fail "--count <TAB>: got '$got'"
pass "asmspy --procs 1 --count <TAB> -> $got"

got=$(run "$ASMSPY" --launch tr)
[ "$got" = "trace tree" ] || fail "--launch tr: want 'trace tree', got '$got'"
pass "asmspy --launch tr -> $got"

got=$(run "$ASMSPY" --stream 1 --backend = "")
has "--backend=" "$got" "ptrace"
pass "asmspy --stream 1 --backend=<TAB> -> the registry's backends"
