#!/bin/bash
# --sample: statistical residency through the portable rungs this machine has
# (sw-clock: perf task-clock; ptrace: attach-and-sample probes), against
# victim_auto, whose skew is fixed by instruction counts (grind_forever holds
# ~90% of its user time, entered_often the rest, nothing else runs):
#   - text: the header names the rung honestly (call edges from sampled
#     call stacks, not branches), the honesty line, the call edge
#     main -> grind_forever, then residency with grind_forever ranked above
#     entered_often (the residency part never speaks of edges);
#   - --json: a valid recording; samples == the rows' sum; the ranking; no
#     hot_edge (branch) rows, call_edge rows whose callees are the victim's;
#   - ptrace: exactly window/10 probes, the decoded call target
#     grind_forever -> entered_often (objdump is the oracle for the call);
#     over the stop budget, probes are skipped and counted;
#   - an idle victim: zero samples, said so; default --sample walks the
#     ladder: the first usable rung of ibs, lbr, sw, ptrace (test_sample_ladder.sh
#     checks what it delivers);
#   - bad arguments: exit 2; a dead pid: exit 1; a target dying mid-window:
#     no crash. The target always survives.
. "$(dirname "$0")/lib.sh"
# probe counts are asserted exactly: no stop budget (one case below sets it)
export ASMSPY_PTRACE_SAMPLER_BUDGET=100
command -v python3 >/dev/null || skip "python3 missing (used to read the JSON)"
# one --backends for every verdict this test needs (each run costs a probe)
"$ASMSPY" --backends >"$TMP/backends"
verdict() { awk -v n="$1" '$2 == n' "$TMP/backends"; }
case "$(verdict swclock)" in *" usable "*) ;; *) skip "backend swclock unavailable: $(verdict swclock)";; esac

start_victim victim_auto
pid=$VICTIM_PID

# The victim's share of a CPU decides how many samples a window holds (the
# task clock counts its CPU time). Ranking assertions need enough of them:
# widen the window until the run holds >= 150 samples (at most 4 runs).
window=300
for try in 1 2 3 4; do
  # text on stdout, the same events as a recording (--record): one run, both channels
  "$ASMSPY" --sample "$pid" "$window" --sampler=sw --record="$TMP/sw.ndjson" >"$TMP/sw.txt" 2>"$TMP/err" \
    || fail "--sample --sampler=sw failed: $(cat "$TMP/err")"
  n=$(grep '"type":"provenance"' "$TMP/sw.ndjson" | grep -oE '"samples":[0-9]+' | cut -d: -f2)
  [ "${n:-0}" -ge 150 ] && break
  echo "note: $n samples in $window ms (a loaded host); widening the window" >&2
  window=$((window * 2))
done
[ "${n:-0}" -ge 150 ] || fail "sw-clock delivered only $n samples in $window ms"
"$ASMTRACE_CHECK" "$TMP/sw.ndjson" >/dev/null || fail "--json invalid: $("$ASMTRACE_CHECK" "$TMP/sw.ndjson")"
python3 - "$TMP/sw.ndjson" "$pid" >"$TMP/facts" <<'EOF' || fail "JSON facts: $(cat "$TMP/facts")"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
pid = int(sys.argv[2])
prov = [e for e in evs if e["type"] == "provenance"]
assert len(prov) == 1, prov
p = prov[0]
assert p["sampler"] == "sw-clock" and p["kind"] == "residency" and p["final"] is True, p
assert p["branch_samples"] == 0 and p["pid"] == pid and p["window_ns"] > 0, p
fns = [e for e in evs if e["type"] == "hot_function"]
sites = [e for e in evs if e["type"] == "residency"]
assert [e for e in evs if e["type"] == "hot_edge"] == [], "a residency rung reported branch edges"
calls = [e for e in evs if e["type"] == "call_edge"]
assert p["call_edges"] == len(calls) > 0, (p, calls)
assert any(c["from_sym"].startswith("main+") and c["to_sym"] == "grind_forever [victim_auto]"
           for c in calls), calls
for c in calls:  # every callee is a function's first byte
    assert "+" not in c["to_sym"], c
assert sum(s["count"] for s in sites) == p["samples"], "rows do not add up to the samples"
assert sum(f["count"] for f in fns) == p["samples"], "every sample lies in a named function"
names = [f["name"] for f in fns]
assert names == ["grind_forever", "entered_often"], names
assert fns[0]["count"] > 3 * fns[1]["count"] > 0, [(f["name"], f["count"]) for f in fns]
for s in sites:
    assert s["ip_sym"].split("+")[0].split(" ")[0] in names, s
    assert s["ip_sym"].endswith("[victim_auto]"), s
counts = [s["count"] for s in sites]
assert counts == sorted(counts, reverse=True), "sites not sorted by count"
print(p["samples"], fns[0]["count"], fns[1]["count"])
EOF
read -r total g e <"$TMP/facts"
pass "sw-clock recording: $total samples in $window ms: grind_forever $g, entered_often $e; valid"

# text: the human table of the same run
grep -qE "^statistical call edges \(software task-clock call stacks, out of band\) — [0-9]+ caller -> callee edges? from [0-9]+ stack frames, $total samples \(pid $pid\)$" "$TMP/sw.txt" \
  || fail "no call-edge header: $(head -2 "$TMP/sw.txt")"
grep -qx "sampled call stacks, not branches: caller -> callee means the callee was running inside a call made at that site; absence proves nothing." "$TMP/sw.txt" \
  || fail "no honesty line: $(sed -n 2p "$TMP/sw.txt")"
grep -qE '^ +[0-9]+  main\+0x[0-9a-f]+ \[victim_auto\] +-> grind_forever \[victim_auto\]$' "$TMP/sw.txt" \
  || fail "no call edge main -> grind_forever: $(cat "$TMP/sw.txt")"
sed -n '/^  residency (where the samples ran; not entry evidence):$/,$p' "$TMP/sw.txt" >"$TMP/sw.res"
[ -s "$TMP/sw.res" ] || fail "no residency section: $(cat "$TMP/sw.txt")"
grep -q "edge" "$TMP/sw.res" && fail "the residency section speaks of edges: $(grep edge "$TMP/sw.res")"
awk '/^  by function:/ {f = 1; next} /^  by site:/ {f = 0} f {print $2}' "$TMP/sw.txt" >"$TMP/fns"
[ "$(tr '\n' ' ' <"$TMP/fns")" = "grind_forever entered_often " ] || fail "by function: $(cat "$TMP/fns")"
grep -qE '^ +[0-9]+  grind_forever\+0x[0-9a-f]+ \[victim_auto\]$' "$TMP/sw.txt" || fail "no site rows: $(cat "$TMP/sw.txt")"
pass "text: '$(head -1 "$TMP/sw.txt")'"
assert_runs "$pid"

# ptrace rung: perf-free; probes are counted (window/10), not timed
case "$(verdict ptsampler)" in *" usable "*) ;; *) skip "backend ptsampler unavailable: $(verdict ptsampler)";; esac
"$ASMSPY" --sample "$pid" 300 --sampler=ptrace --record="$TMP/pt.ndjson" >"$TMP/pt.txt" 2>"$TMP/pt.err" \
  || fail "--sampler=ptrace failed: $(cat "$TMP/pt.err")"
grep -qE "^statistical residency \(ptrace attach-and-sample probes\) — [0-9]+ sites? in [12] functions?, [0-9]+ samples \(pid $pid\)$" "$TMP/pt.txt" \
  || fail "no ptrace header: $(head -1 "$TMP/pt.txt")"
grep -qE "^# ptrace sampler: 30 probes over [0-9]+ ms: [0-9]+ on-CPU samples" "$TMP/pt.err" || fail "probe count: $(cat "$TMP/pt.err")"
# oracle for the decoded call: objdump's own reading of grind_forever
site=$(objdump -d --no-show-raw-insn "$VICTIM_DIR/victim_auto" | awk '/<grind_forever>:/ {f = 1} f && /call.*<entered_often>/ {print $1; exit}' | tr -d ':')
start=$(objdump -d "$VICTIM_DIR/victim_auto" | awk '/<grind_forever>:/ {print $1; exit}')
if [ -n "$site" ] && [ -n "$start" ]; then
  off=$(printf '0x%x' $((0x$site - 0x$start)))
  grep -qE "^ +grind_forever\+$off \[victim_auto\] -> entered_often \[victim_auto\]$" "$TMP/pt.txt" \
    || fail "call target grind_forever+$off -> entered_often missing: $(cat "$TMP/pt.txt")"
  pass "ptrace: 30 probes; call target grind_forever+$off -> entered_often (= objdump)"
else
  grep -qE "^ +grind_forever\+0x[0-9a-f]+ \[victim_auto\] -> entered_often \[victim_auto\]$" "$TMP/pt.txt" \
    || fail "no call target: $(cat "$TMP/pt.txt")"
  pass "ptrace: 30 probes; call target grind_forever -> entered_often (objdump missing)"
fi
"$ASMTRACE_CHECK" "$TMP/pt.ndjson" >/dev/null || fail "ptrace --json invalid: $("$ASMTRACE_CHECK" "$TMP/pt.ndjson")"
grep -q '"type":"call_target"' "$TMP/pt.ndjson" || fail "ptrace --json has no call_target"
grep '"type":"provenance"' "$TMP/pt.ndjson" | grep -q '"sampler":"ptrace"' || fail "ptrace provenance"
pass "ptrace recording valid, with call_target rows"
# the stop budget: a budget no probe fits in leaves exactly the first probe
ASMSPY_PTRACE_SAMPLER_BUDGET=0.001 "$ASMSPY" --sample "$pid" 200 --sampler=ptrace >/dev/null 2>"$TMP/budget.err" \
  || fail "--sampler=ptrace with a tiny budget failed: $(cat "$TMP/budget.err")"
grep -qE "^# ptrace sampler: 1 probes over " "$TMP/budget.err" && grep -q "^# ptrace sampler: 19 of 20 probes skipped" "$TMP/budget.err" \
  || fail "stop budget: $(cat "$TMP/budget.err")"
pass "ptrace stop budget: over it, slots are skipped and counted (19 of 20)"
assert_runs "$pid"

# an idle target: nothing ran, and the table says so
# start_victim names its pid file after the victim: drop the previous one so
# its old pid line cannot be read as the new victim's
rm -f "$TMP"/victim_auto.*.out
start_victim victim_auto idle
idle=$VICTIM_PID
"$ASMSPY" --sample "$idle" 100 --sampler=sw >"$TMP/idle.txt" 2>"$TMP/err" || fail "idle: $(cat "$TMP/err")"
grep -qE "— 0 sites in 0 functions, 0 samples \(pid $idle\)$" "$TMP/idle.txt" || fail "idle header: $(cat "$TMP/idle.txt")"
grep -q "^no samples: no thread of pid $idle ran user code in the window (idle?)$" "$TMP/idle.txt" || fail "idle text: $(cat "$TMP/idle.txt")"
pass "idle victim: 0 samples, said so"
# (assert_runs waits for CPU progress a sleeper never makes: check the state)
[ "$(proc_state "$idle")" = S ] && grep -q "^TracerPid:[[:space:]]*0$" "/proc/$idle/status" \
  || fail "idle victim after the run: state $(proc_state "$idle"), $(grep TracerPid "/proc/$idle/status")"

# a named rung that is unusable here is that rung's SKIP (no walk down the
# ladder when the user chose): AMD IBS-Op where the host has none
case "$(verdict amd_ibs)" in
  *" usable "*)
    "$ASMSPY" --sample "$pid" 100 --sampler=ibs >"$TMP/ibs.txt" 2>"$TMP/err" || fail "IBS --sample failed: $(cat "$TMP/err")"
    grep -q "^statistical hot edges (AMD IBS-Op, out of band)" "$TMP/ibs.txt" || fail "IBS header: $(head -1 "$TMP/ibs.txt")"
    pass "--sampler=ibs: AMD IBS-Op usable here, hot edges";;
  *)
    expect_exit 0 "$ASMSPY" --sample "$pid" --sampler=ibs --record="$TMP/skip.ndjson"
    grep -q "^# SKIP amd_ibs: " "$TMP/out" || fail "no '# SKIP amd_ibs': $(cat "$TMP/out")"
    "$ASMTRACE_CHECK" "$TMP/skip.ndjson" >/dev/null || fail "SKIP --json invalid: $("$ASMTRACE_CHECK" "$TMP/skip.ndjson")"
    pass "--sampler=ibs: '$(cut -c1-60 "$TMP/out")...', exit 0, a valid recording";;
esac

# bad arguments: exit 2 with one line, before anything is touched (the
# view's whole parser is covered offline by the sample_view unit test)
for bad in "12abc" "-5" "--frobnicate"; do
  # shellcheck disable=SC2086
  expect_exit 2 "$ASMSPY" --sample "$pid" $bad --sampler=sw
  [ "$(wc -l <"$TMP/err")" = 1 ] || fail "'$bad': not one line: $(cat "$TMP/err")"
done
expect_exit 2 "$ASMSPY" --sample "$pid" --sampler=bogus
grep -q "unknown sampler" "$TMP/err" || fail "unknown sampler message: $(cat "$TMP/err")"
pass "bad window / rung / option -> exit 2, one line"
assert_runs "$pid"

# a dead pid: exit 1 with the reason
"$VICTIM_DIR/victim_exit" 1 >/dev/null &
dead=$!
wait "$dead" || true
expect_exit 1 "$ASMSPY" --sample "$dead" 100 --sampler=sw
grep -q "no such process" "$TMP/err" || fail "dead pid message: $(cat "$TMP/err")"
pass "dead pid -> exit 1"

# a target that dies inside the window: whatever was sampled, no crash
# start_victim names its pid file after the victim: drop the previous one so
# its old pid line cannot be read as the new victim's
rm -f "$TMP"/victim_auto.*.out
start_victim victim_auto
doomed=$VICTIM_PID
"$ASMSPY" --sample "$doomed" 2000 --sampler=sw >"$TMP/doomed.txt" 2>"$TMP/err" &
spy=$!
# kill it once the sampler's events are open (the session runs in asmspy's
# supervised child): a kill before that would be a dead-pid test instead
command -v pgrep >/dev/null || skip "pgrep missing"
i=0
while [ $i -lt 500 ]; do
  for c in $spy $(pgrep -P "$spy" 2>/dev/null); do
    ls -l "/proc/$c/fd" 2>/dev/null | grep -q perf_event && break 2
  done
  sleep 0.01; i=$((i + 1))
done
[ $i -lt 500 ] || fail "the sampler never opened its perf events"
kill -9 "$doomed"
set +e; wait "$spy"; rc=$?; set -e
[ "$rc" = 0 ] || fail "a target dying mid-window: exit $rc: $(cat "$TMP/err")"
grep -qE "^statistical (residency|call edges) \(software task-clock" "$TMP/doomed.txt" || fail "no table after the target died: $(cat "$TMP/doomed.txt")"
pass "target killed mid-window: exit 0, the samples taken are shown"
assert_runs "$pid"

# --launch: like `perf record -- cmd`. The command runs through its exec
# under ptrace and is let go; the window samples its own image (symbols of
# the exec'd program, not asmspy's), then asmspy waits for it to finish.
"$ASMSPY" --launch sample 300 --sampler=sw --record="$TMP/launch.ndjson" -- "$VICTIM_DIR/victim_auto" 600 \
  >"$TMP/launch.txt" 2>"$TMP/err" || fail "--launch sample failed: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/launch.ndjson" >/dev/null || fail "--launch sample recording invalid"
python3 - "$TMP/launch.ndjson" <<'EOF2' || fail "--launch sample: grind_forever not the top function"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
fns = [e for e in evs if e["type"] == "hot_function"]
prov = [e for e in evs if e["type"] == "provenance"][0]
assert prov["samples"] > 0 and fns and fns[0]["name"] == "grind_forever", (prov, fns[:3])
assert fns[0]["module"] == "victim_auto", fns[0]
EOF2
grep -q "^statistical call edges (software task-clock call stacks" "$TMP/launch.txt" || fail "--launch sample text: $(head -3 "$TMP/launch.txt")"
pass "--launch sample: the exec'd program's own functions (grind_forever on top), command ran to its end"
# a command that ends inside the window: its samples are still named (the
# symbols were read while it ran)
"$ASMSPY" --launch sample 400 --sampler=sw -- "$VICTIM_DIR/victim_auto" 100 >"$TMP/short.txt" 2>"$TMP/err" \
  || fail "--launch sample of a short command failed: $(cat "$TMP/err")"
grep -qE '^ +[0-9]+  grind_forever \[victim_auto\]' "$TMP/short.txt" || fail "short command: $(cat "$TMP/short.txt")"
grep -q "exited .* into the window" "$TMP/err" || fail "the early exit is not said: $(cat "$TMP/err")"
pass "--launch sample of a command that exits mid-window: named, and the exit said"
