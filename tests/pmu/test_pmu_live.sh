#!/bin/bash
# libpfm4, live on this machine:
#   1. the hardware backends' unavailable reasons (intel_pt, amd_ibs,
#      amd_lbr) name this CPU as /proc/cpuinfo does (brand, family, model)
#      and libpfm4's PMU finding; on a guest whose kernel registered no core
#      PMU they say the hypervisor exposes none;
#   2. --sampler=event:<name> (plugins/pmu_event): a software event libpfm4
#      encodes samples a busy victim into its hot function; a name libpfm4
#      cannot encode is a usage error (exit 2) with one clear line; a
#      hardware event on a host without a core PMU is the kernel's refusal
#      (exit 1, errno and the PMU finding), no crash. The target survives.
. "$(dirname "$0")/../e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 missing (used to read the JSON)"
"$ASMSPY" --backends >"$TMP/backends"
verdict() { awk -v n="$1" '$2 == n' "$TMP/backends"; }

# 1. reasons: what the silicon has versus what the kernel exposes
case "$(uname -m)" in
  x86_64|i?86)
    brand=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo |
      sed -e 's/(R)//g; s/(TM)//g; s/(tm)//g; s/(r)//g' | tr -s ' ' | sed 's/^ //; s/ $//')
    fam=$(awk -F': ' '/^cpu family/ {print $2; exit}' /proc/cpuinfo)
    model=$(printf '%#x' "$(awk -F': ' '/^model\t/ {print $2; exit}' /proc/cpuinfo)")
    [ "$model" = 0 ] && model=0   # printf %#x prints 0 without the prefix
    checked=0
    for b in intel_pt amd_ibs amd_lbr; do
      line=$(verdict "$b")
      [ -n "$line" ] || fail "backend $b not listed by --backends"
      case "$line" in *" usable "*) continue;; esac
      # only the no-PMU refusal carries the model (a PMU that opens but
      # delivers nothing has its own reason)
      case "$line" in *"missing; "*) ;; *) continue;; esac
      echo "$line" | grep -qF -- "$brand (fam $fam model $model, libpfm4: " ||
        fail "$b reason does not name this CPU ('$brand', family $fam model $model) and libpfm4: $line"
      echo "$line" | grep -qE -- "libpfm4: [^)]+\)" || fail "$b reason: no libpfm4 finding: $line"
      if grep -qw hypervisor /proc/cpuinfo && [ ! -e /sys/bus/event_source/devices/cpu ]; then
        echo "$line" | grep -qF "exposes no PMU" ||
          fail "$b reason: a guest without a cpu PMU but no 'exposes no PMU': $line"
      fi
      checked=$((checked + 1))
    done
    pass "$checked unavailable hardware backend(s) name '$brand' family $fam model $model and libpfm4's PMU"
    ;;
  *) echo "note: not x86: the CPUID part of the reasons is not checked" ;;
esac

# 2. --sampler=event:<name>
case "$(verdict pmu_event)" in *" usable "*) ;; *) skip "pmu_event unavailable: $(verdict pmu_event)";; esac
start_victim victim_spin
pid=$VICTIM_PID
window=200
for try in 1 2 3; do
  "$ASMSPY" --sample "$pid" "$window" --sampler=event:cpu-clock --json >"$TMP/ev.ndjson" 2>"$TMP/err" ||
    fail "--sampler=event:cpu-clock exited $?: $(cat "$TMP/err")"
  n=$(grep '"type":"provenance"' "$TMP/ev.ndjson" | grep -oE '"samples":[0-9]+' | cut -d: -f2)
  [ "${n:-0}" -ge 50 ] && break
  echo "note: $n samples in $window ms (a loaded host); widening the window" >&2
  window=$((window * 2))
done
"$ASMTRACE_CHECK" "$TMP/ev.ndjson" >/dev/null || fail "recording invalid: $("$ASMTRACE_CHECK" "$TMP/ev.ndjson")"
python3 - "$TMP/ev.ndjson" "$pid" >"$TMP/facts" <<'PY' || fail "JSON facts: $(cat "$TMP/facts")"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
prov = [e for e in evs if e["type"] == "provenance"]
assert len(prov) == 1, prov
p = prov[0]
assert p["sampler"] == "event:cpu-clock" and p["pid"] == int(sys.argv[2]), p
assert p["samples"] >= 50, p
fns = [e for e in evs if e["type"] == "hot_function"]
assert fns and fns[0]["name"] == "spin_body", [(f["name"], f["count"]) for f in fns]
assert fns[0]["count"] * 10 >= p["samples"] * 9, "spin_body holds < 90%%: %s" % fns
print(p["samples"], fns[0]["count"])
PY
read -r total hot <"$TMP/facts"
grep '"type":"note"' "$TMP/ev.ndjson" | grep -q "pmu_event: cpu-clock = perf::PERF_COUNT_SW_CPU_CLOCK" ||
  fail "no libpfm4 encoding note: $(grep '"type":"note"' "$TMP/ev.ndjson")"
pass "event:cpu-clock: $total samples, $hot in spin_body (libpfm4: perf::PERF_COUNT_SW_CPU_CLOCK)"
assert_runs "$pid"

# libpfm4's fully qualified name, and a period modifier
"$ASMSPY" --sample "$pid" 100 --sampler=event:perf::TASK-CLOCK:period=1000000 >"$TMP/tc" 2>"$TMP/err" ||
  fail "event:perf::TASK-CLOCK:period= exited $?: $(cat "$TMP/err")"
grep -q "period 1000000" "$TMP/err" || fail "period modifier not taken: $(cat "$TMP/err")"
grep -qE '^ +[0-9]+  spin_body \[victim_spin\]' "$TMP/tc" || fail "task-clock: no spin_body row: $(cat "$TMP/tc")"
pass "event:perf::TASK-CLOCK:period=1000000 samples spin_body"
assert_runs "$pid"

# a name libpfm4 cannot encode: usage error, one clear line, nothing opened
expect_exit 2 "$ASMSPY" --sample "$pid" 100 --sampler=event:nonsense
grep -qx "# pmu_event: libpfm4 cannot encode 'nonsense': event not found" "$TMP/err" ||
  fail "no clear line for event:nonsense: $(cat "$TMP/err")"
expect_exit 2 "$ASMSPY" --sample "$pid" 100 --sampler=event
grep -q "no event named: --sampler=event:<name>" "$TMP/err" ||
  fail "--sampler=event without a name: $(cat "$TMP/err")"
pass "event:nonsense and a bare 'event' are usage errors"
assert_runs "$pid"

# a hardware event: the kernel's answer on this host
if [ -e /sys/bus/event_source/devices/cpu ]; then
  set +e
  "$ASMSPY" --sample "$pid" 100 --sampler=event:cycles >"$TMP/out" 2>"$TMP/err"
  rc=$?
  set -e
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "event:cycles with a core PMU exited $rc: $(cat "$TMP/err")"
  pass "event:cycles with a core PMU: exit $rc"
else
  expect_exit 1 "$ASMSPY" --sample "$pid" 100 --sampler=event:cycles
  grep -q "^# pmu_event: pid $pid: perf_event_open(cycles, tid [0-9]*): ENOENT" "$TMP/err" ||
    fail "event:cycles: no kernel refusal line: $(cat "$TMP/err")"
  grep -q "registered no core PMU for this hardware event" "$TMP/err" ||
    fail "event:cycles: no PMU finding: $(cat "$TMP/err")"
  pass "event:cycles on a host without a core PMU: $(grep -o 'perf_event_open(cycles[^;]*' "$TMP/err")"
fi
assert_runs "$pid"
