#!/bin/bash
# soak.sh — issue 12's survival matrix, N runs per cell.
#
#   scripts/soak.sh [N] [--hogs[=K]] [--build=DIR] [--kinds="c hammer ..."] [--modes="stream log ..."]
#                   [--artifacts=DIR] [--timeout=S]
#
# Runs tests/survival/survive.sh once per kind of target with REPS=N (each
# target started once and restarted only when a session killed, froze or
# left it traced; the modes interleaved run by run), then prints one row per
# cell: runs, passes, target deaths, frozen targets (stopped/traced/not
# progressing after the session when it should not be), hangs (asmspy still
# running after its timeout or 10 s after our signal), invalid outputs
# (asmtrace-check on the recording and on --json stdout), wrong end reasons,
# stopped targets run or resumed (unstopped), asmspy errors, other failures
# (a forked child killed, a hot function "not seen entering"), skips.
#
#   N          runs per cell (default 200)
#   --hogs[=K] K busy-looping processes beside the matrix (default: nproc),
#              ended by pid when the soak ends
#   --build    the meson build directory (default: build)
#   --kinds / --modes  a subset (survive.sh's names; default all)
#   --artifacts  keep the files of failing sessions there
#
#   scripts/soak.sh --harm [N] [--groups="c threads ..."] [--hogs[=K]] [--build=DIR]
#
# --harm soaks the harm suite instead (tests/harm/harm.sh, docs/harm.md):
# each group (default: all of c cxx rust go coroutines signals threads
# concurrent interp) runs its whole matrix — every mode x every ending,
# HARM_FULL=1 — N times (REPS=N, default 200), and one row per program and
# cell is printed: runs, passes, failures (each failure is printed as it
# happens, with the program, mode, ending and evidence).
#
# Failures are printed as they happen (cell, run, command, evidence); the
# raw RESULT lines are kept in $SOAK_RESULTS (default: a file in /tmp whose
# name is printed). Exit 0 when every run of every cell passed or skipped.
set -u
cd "$(dirname "$0")/.." || exit 99
N=200
HOGS=0
BUILD=build
KINDS="c hammer python node jvm forkloop selftrap stopped"
MODES_ARG=""
HARM=0
GROUPS_ARG="c cxx rust go coroutines signals threads concurrent interp"
ARTIFACTS_ARG=""
TIMEOUT_ARG=""
for a in "$@"; do
  case "$a" in
    --hogs) HOGS=$(nproc);;
    --hogs=*) HOGS=${a#--hogs=};;
    --build=*) BUILD=${a#--build=};;
    --kinds=*) KINDS=${a#--kinds=};;
    --harm) HARM=1;;
    --groups=*) GROUPS_ARG=${a#--groups=};;
    --modes=*) MODES_ARG=${a#--modes=};;
    --artifacts=*) ARTIFACTS_ARG=${a#--artifacts=};;
    --timeout=*) TIMEOUT_ARG=${a#--timeout=};;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0;;
    [0-9]*) N=$a;;
    *) echo "soak.sh: unknown argument '$a' (see --help)" >&2; exit 2;;
  esac
done
B=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "soak.sh: no build directory '$BUILD' (meson setup $BUILD && ninja -C $BUILD)" >&2; exit 2; }
if [ "$HARM" = 1 ]; then
  [ -x "$B/cli/asmspy" ] && [ -d "$B/tests/harm" ] ||
    { echo "soak.sh: $B/cli/asmspy or $B/tests/harm is not built (ninja -C $BUILD)" >&2; exit 2; }
  export ASMSPY=$B/cli/asmspy HARM_DIR=$B/tests/harm HARM_SRC=$PWD/tests/harm CALLS_SRC=$PWD/tests/calls
  export HARM_FULL=1 REPS=$N
  [ -n "$ARTIFACTS_ARG" ] && export ARTIFACTS=$ARTIFACTS_ARG
  [ -n "$TIMEOUT_ARG" ] && export SESSION_TIMEOUT=$TIMEOUT_ARG
  RESULTS=${SOAK_RESULTS:-$(mktemp /tmp/asmspy-soak-harm.XXXXXX)}
  : >"$RESULTS"
  export RESULTS
  HOG_PIDS=""
  end_hogs() { local p; for p in $HOG_PIDS; do kill "$p" 2>/dev/null; done; HOG_PIDS=""; }
  trap end_hogs EXIT
  trap 'exit 130' INT TERM
  for _ in $(seq 1 "$HOGS"); do sh -c 'while :; do :; done' & HOG_PIDS="$HOG_PIDS $!"; done
  echo "soak --harm: $N run(s) of every mode x ending per program; groups: $GROUPS_ARG; hogs: $HOGS; RESULT lines in $RESULTS"
  start=$(date +%s)
  for g in $GROUPS_ARG; do
    echo "soak: harm group $g ..."
    tests/harm/harm.sh "$g" | grep -E '^(FAIL|     |SKIP|harm:)'
  done
  end_hogs
  echo
  echo "soak --harm: $(( ($(date +%s) - start) / 60 )) min; per program and cell:"
  awk '$1 == "RESULT" { c = $2 " " $3 " " $4; if (!(c in runs)) order[++n] = c; runs[c]++; v[c, $5]++ }
    END {
      printf "%-12s %-22s %-36s %5s %5s %5s %5s\n", "group", "program", "cell", "runs", "pass", "fail", "skip"
      for (j = 1; j <= n; j++) { c = order[j]; split(c, p, " "); bad += v[c, "fail"]
        printf "%-12s %-22s %-36s %5d %5d %5d %5d\n", p[1], p[2], p[3], runs[c], v[c, "pass"], v[c, "fail"], v[c, "skip"] }
      exit bad > 0
    }' "$RESULTS"
  exit $?
fi
export HAMMER=${HAMMER:-$B/tests/survival/victim_hammer}
for f in "$B/cli/asmspy" "$B/tools/asmtrace-check" "$B/tests/victims/victim_loop" "$HAMMER"; do
  [ -x "$f" ] || { echo "soak.sh: $f is not built (ninja -C $BUILD)" >&2; exit 2; }
done
export ASMSPY=$B/cli/asmspy ASMTRACE_CHECK=$B/tools/asmtrace-check VICTIM_DIR=$B/tests/victims
export REPS=$N QUIET=1
[ -n "$MODES_ARG" ] && export MODES=$MODES_ARG
[ -n "$ARTIFACTS_ARG" ] && export ARTIFACTS=$ARTIFACTS_ARG
[ -n "$TIMEOUT_ARG" ] && export SESSION_TIMEOUT=$TIMEOUT_ARG
RESULTS=${SOAK_RESULTS:-$(mktemp /tmp/asmspy-soak.XXXXXX)}
: >"$RESULTS"
export RESULTS

HOG_PIDS=""
end_hogs() { local p; for p in $HOG_PIDS; do kill "$p" 2>/dev/null; done; HOG_PIDS=""; }
trap end_hogs EXIT
trap 'exit 130' INT TERM
for _ in $(seq 1 "$HOGS"); do
  sh -c 'while :; do :; done' &
  HOG_PIDS="$HOG_PIDS $!"
done

echo "soak: $N run(s) per cell; kinds: $KINDS; modes: ${MODES_ARG:-all}; hogs: $HOGS; build: $B"
echo "soak: asmspy $(git log -1 --format='%h %s' 2>/dev/null | cut -c1-100)"
echo "soak: RESULT lines in $RESULTS"
start=$(date +%s)
for k in $KINDS; do
  echo "soak: kind $k ..."
  tests/survival/survive.sh "$k"
done
end_hogs

echo
echo "soak: $(( ($(date +%s) - start) / 60 )) min; per cell ($N run(s) each; a late death counts in deaths and makes its run fail):"
awk '
  function key(k, m) { return k " " m }
  $1 == "RESULT" {
    c = key($2, $3); if (!(c in runs)) order[++n] = c
    runs[c]++; id = c " " $4
    if ($5 == "fail") failed[id] = 1
    for (i = 6; i <= NF; i++) { split($i, kv, "="); cnt[c, kv[1]] += kv[2] }
  }
  $1 == "LATE" { c = key($2, $3); failed[c " " $4] = 1; cnt[c, "death"]++ }
  END {
    cats = "death frozen hang invalid wrong_end unstopped error other skip"
    nc = split(cats, cat, " ")
    printf "%-9s %-14s %5s %5s %6s %6s %5s %7s %9s %9s %5s %5s %5s\n", "kind", "mode", "runs", "pass", "deaths", "frozen", "hangs", "invalid", "wrong_end", "unstopped", "error", "other", "skip"
    for (id in failed) { split(id, p, " "); nfail[p[1] " " p[2]]++ }
    for (j = 1; j <= n; j++) {
      c = order[j]; split(c, p, " ")
      pass = runs[c] - nfail[c] - cnt[c, "skip"]
      tot["runs"] += runs[c]; tot["pass"] += pass
      printf "%-9s %-14s %5d %5d", p[1], p[2], runs[c], pass
      for (i = 1; i <= nc; i++) {
        w = (cat[i] == "death" || cat[i] == "frozen") ? 6 : (cat[i] == "invalid") ? 7 : (cat[i] ~ /wrong_end|unstopped/) ? 9 : 5
        printf " %*d", w, cnt[c, cat[i]]; tot[cat[i]] += cnt[c, cat[i]]
      }
      printf "\n"
    }
    printf "%-9s %-14s %5d %5d", "TOTAL", "", tot["runs"], tot["pass"]
    for (i = 1; i <= nc; i++) {
      w = (cat[i] == "death" || cat[i] == "frozen") ? 6 : (cat[i] == "invalid") ? 7 : (cat[i] ~ /wrong_end|unstopped/) ? 9 : 5
      printf " %*d", w, tot[cat[i]]
    }
    printf "\n"
    bad = 0; for (id in failed) bad++
    exit bad > 0
  }' "$RESULTS"
