#!/bin/bash
# Install what building and running asmspy needs, build it, and show it on a
# bundled demo victim: its plugins, the victim's symbols, its live
# instruction stream, its syscalls, one function's assembly, its calls, and a
# sample of where it spends its time. On a terminal it ends in the TUI.
#   usage: ./run.sh [n-instructions]      (ASMSPY_NO_TUI=1: no TUI at the end)
# The test-time toolchains are ./test.sh's (scripts/install-deps.sh --dev).
set -eu
cd "$(dirname "$0")"
scripts/install-deps.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
n=${1:-30}
asmspy=build/cli/asmspy

out=$(mktemp)
build/tests/victims/victim_loop >"$out" &
victim=$!
busy=
trap 'kill $victim $busy 2>/dev/null; rm -f "$out"' EXIT
while [ ! -s "$out" ]; do sleep 0.01; done

echo "== asmspy --backends   (every plugin, probed on this machine: usable, or why not)"
$asmspy --backends
echo
echo "== asmspy --syms $victim work   (symbols whose name contains 'work')"
$asmspy --syms "$victim" work
echo
echo "== asmspy --stream $victim $n   (every instruction as it runs)"
$asmspy --stream "$victim" "$n"
echo
echo "== asmspy --log $victim 6   (its syscalls, decoded like strace)"
$asmspy --log "$victim" 6
echo
echo "== asmspy --trace $victim work 1   (one invocation of work(): its assembly and callees)"
$asmspy --trace "$victim" work 1
echo
echo "== asmspy --calls $victim 14   (calls with durations; native speed where entrypatch is usable)"
$asmspy --calls "$victim" 14
echo
build/tests/victims/victim_auto >/dev/null &
busy=$!
sleep 0.3
echo "== asmspy --sample $busy 300   (a busy victim, sampled out of band: the first usable rung"
echo "   of ibs > lbr > sw > ptrace; the '#' lines say why a rung was skipped)"
$asmspy --sample "$busy" 300
kill $busy
busy=
echo
state=$(sed 's/^.*) //' /proc/$victim/stat | cut -d' ' -f1)
echo "== victim $victim after detach: state $state, TracerPid $(awk '/TracerPid/ {print $2}' /proc/$victim/status)"
echo
echo "asmspy is $PWD/$asmspy  (meson install -C build puts it on PATH; README.md: which mode for which question)"
# On a terminal, finish in the interactive TUI (type "victim" to find the
# demo victim, Enter, pick a mode; q quits). ASMSPY_NO_TUI=1 skips it.
if [ -t 0 ] && [ -t 1 ] && [ "${ASMSPY_NO_TUI:-0}" != 1 ]; then
  echo
  echo "== asmspy   (the TUI: type 'victim_loop', Enter, then a mode 1-9; q quits)"
  sleep 1
  $asmspy
fi
