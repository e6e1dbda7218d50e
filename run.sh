#!/bin/bash
# The main job: install dependencies, build, and show asmspy tracing a bundled
# demo victim (its plugins, its symbols, its live instruction stream).
#   usage: ./run.sh [n-instructions]
set -eu
cd "$(dirname "$0")"
scripts/install-deps.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
n=${1:-30}

out=$(mktemp)
build/tests/victims/victim_loop >"$out" &
victim=$!
trap 'kill $victim 2>/dev/null; rm -f "$out"' EXIT
while [ ! -s "$out" ]; do sleep 0.01; done

echo "== asmspy --backends   (every plugin, probed on this machine)"
build/cli/asmspy --backends
echo
echo "== asmspy --syms $victim 'work|helper'   (the demo victim's own functions)"
build/cli/asmspy --syms "$victim" work
build/cli/asmspy --syms "$victim" helper
echo
echo "== asmspy --stream $victim $n   (every instruction as it runs)"
build/cli/asmspy --stream "$victim" "$n"
echo
echo "== asmspy --log $victim 6   (its syscalls, decoded like strace)"
build/cli/asmspy --log "$victim" 6
echo
echo "== asmspy --trace $victim work 1   (one invocation of work(): its assembly and callees)"
build/cli/asmspy --trace "$victim" work 1
echo
build/tests/victims/victim_auto >/dev/null &
busy=$!
sleep 0.3
echo "== asmspy --sample $busy 300 --sampler=sw   (a busy victim, sampled out of band; --sample alone needs AMD IBS)"
build/cli/asmspy --sample "$busy" 300 --sampler=sw
kill $busy
echo
state=$(sed 's/^.*) //' /proc/$victim/stat | cut -d' ' -f1)
echo "== victim $victim after detach: state $state, TracerPid $(awk '/TracerPid/ {print $2}' /proc/$victim/status)"
# On a terminal, finish in the interactive TUI (type "victim" to find the
# demo victim, Enter, pick a mode; q quits). ASMSPY_NO_TUI=1 skips it.
if [ -t 0 ] && [ -t 1 ] && [ "${ASMSPY_NO_TUI:-0}" != 1 ]; then
  echo
  echo "== asmspy   (the TUI: type 'victim_loop', Enter, then a mode 1-9; q quits)"
  sleep 1
  build/cli/asmspy
fi
