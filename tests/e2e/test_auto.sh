#!/bin/bash
# --dataflow --auto: sample first, then capture the best candidate, walking
# the residency candidates while one is not seen entering. victim_auto is
# built so the residency winner, grind_forever, is entered once and never
# again (its entry breakpoint cannot fire) and its hot callee entered_often
# is entered millions of times a second; the skew is fixed by instruction
# counts, so the ranking is the same on any machine. Checked:
#   - sw-clock and ptrace rungs: the pick line, the region line, the refusal
#     of grind_forever at the bounded entry wait, the retry line, and the
#     data flow of entered_often — its step count against objdump, its
#     return value recomputed from its live-in argument (the function's own
#     arithmetic), a valid --json recording;
#   - the ladder on a host without IBS/LBR names each refused rung; with
#     perf_event_open denied (seccomp, like Docker's default profile) it
#     falls to the ptrace rung, and a forced --sampler=sw is a # SKIP;
#   - an idle victim is refused (no guess), --module scopes the pick;
#   - usage errors (exit 2): --tid, a region, options without --auto, bad
#     --window, an unknown rung. The target always survives.
. "$(dirname "$0")/lib.sh"
# probe counts are asserted exactly: no stop budget (one case below sets it)
export ASMSPY_PTRACE_SAMPLER_BUDGET=100
# one --backends for every verdict this test needs (each run costs a probe)
"$ASMSPY" --backends >"$TMP/backends"
verdict() { awk -v n="$1" '$2 == n' "$TMP/backends"; }
need() { case "$(verdict "$1")" in *" usable "*) ;; *) skip "backend $1 unavailable: $(verdict "$1")";; esac; }
need singlestep
need swclock
command -v python3 >/dev/null || skip "python3 missing (used to read the JSON)"
command -v objdump >/dev/null || skip "objdump missing (the step-count oracle)"

# The residency winner never re-enters: its wait is the only time this test
# spends waiting, so keep it short (it is a parameter, not an assertion).
export ASMTEST_DF_ENTRY_WAIT_MS=300

# oracle: entered_often's instruction count (it has no branch: one
# invocation executes each instruction once)
steps=$(objdump -d --no-show-raw-insn "$VICTIM_DIR/victim_auto" \
  | awk '/<entered_often>:/ {f = 1; next} f && /^$/ {exit} f && /^ +[0-9a-f]+:/ {n++} END {print n + 0}')
[ "$steps" -gt 3 ] || fail "objdump found $steps instructions in entered_often"

start_victim victim_auto
pid=$VICTIM_PID

# check_walk RUNG LABEL EXTRA_PICK EXTRA_RETRY: the four lines of a walk
check_walk() {
  local out=$1 label=$2 pick_extra=$3 retry_extra=$4
  sed -n 1p "$out" | grep -qE "^--auto\[$label\]: grind_forever \[victim_auto\] — [0-9]+ residency samples at [0-9]+ offsets? \(of ([23]) candidates in 400 ms$pick_extra\)\. Residency is NOT entry evidence; up to [23] candidates will be tried$" \
    || fail "[$label] pick line: $(sed -n 1p "$out")"
  sed -n 2p "$out" | grep -qE "^data-flow capture of grind_forever @ 0x[0-9a-f]+ \([0-9]+ bytes\) in pid $pid$" \
    || fail "[$label] region line: $(sed -n 2p "$out")"
  sed -n 3p "$out" | grep -qE "^--auto\[$label\]: grind_forever was not seen ENTERING — a residency winner that never re-enters is the rule's known failure shape; trying candidate 2/[23]: entered_often \([0-9]+ samples$retry_extra\)$" \
    || fail "[$label] retry line: $(sed -n 3p "$out")"
  sed -n 4p "$out" | grep -qE "^data flow — entered_often @ 0x[0-9a-f]+ of pid $pid   ret=-?[0-9]+   $steps steps, [0-9]+ records$" \
    || fail "[$label] data flow line (want $steps steps): $(sed -n 4p "$out")"
}

# check_json FILE LABEL: the recording and the data flow's arithmetic
check_json() {
  "$ASMTRACE_CHECK" "$1" >/dev/null || fail "[$2] --json invalid: $("$ASMTRACE_CHECK" "$1")"
  python3 - "$1" "$steps" >"$TMP/facts" <<'EOF' || fail "[$2] JSON facts: $(cat "$TMP/facts")"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
want_steps = int(sys.argv[2])
auto = [e for e in evs if e["type"] == "auto"]
assert [a["event"] for a in auto] == ["pick", "retry"], [a["event"] for a in auto]
assert auto[0]["name"] == "grind_forever" and auto[0]["candidate"] == 1, auto[0]
assert auto[1]["name"] == "entered_often" and auto[1]["candidate"] == 2, auto[1]
assert auto[0]["rank"] == "residency" and auto[0]["evidence"] == "residency", auto[0]
df = [e for e in evs if e["type"] == "dataflow"]
assert len(df) == 1, "one dataflow event, got %d" % len(df)
d = df[0]
assert d["name"] == "entered_often" and d["truncated"] is False, d["name"]
assert d["start"] == auto[1]["start"], (d["start"], auto[1]["start"])
assert d["steps"] == want_steps, "steps %d, objdump %d" % (d["steps"], want_steps)
# entered_often(x) = ((x*K) ^ ((x*K) >> 29)) + 7, mod 2^64: recompute it from
# the live-in argument the capture read, and compare with the return value
M = (1 << 64) - 1
x = next(int(r["value"], 16) for t in d["trace"] for r in t["reads"] if r["loc"] == "rdi")
y = (x * 0x9e3779b97f4a7c15) & M
assert (d["ret"] & M) == (((y ^ (y >> 29)) + 7) & M), (hex(x), d["ret"])
print(auto[0]["samples"], auto[1]["samples"], hex(x))
EOF
}

# --- sw-clock ---------------------------------------------------------------
# text on stdout and the recording of the same run (--record)
"$ASMSPY" --dataflow "$pid" --auto --sampler=sw --record="$TMP/sw.ndjson" >"$TMP/sw.txt" 2>"$TMP/err" \
  || fail "--auto --sampler=sw: $(cat "$TMP/err")"
check_walk "$TMP/sw.txt" sw-clock "" ""
pass "sw-clock: $(sed -n 3p "$TMP/sw.txt" | cut -c1-70)..., then $steps steps of entered_often"
check_json "$TMP/sw.ndjson" sw-clock
read -r g e x <"$TMP/facts"
pass "sw-clock recording: grind_forever $g samples, entered_often $e; ret recomputed from rdi=$x"
assert_runs "$pid"

# --- ptrace (perf-free) -------------------------------------------------------
need ptsampler
"$ASMSPY" --dataflow "$pid" --auto --sampler=ptrace --json >"$TMP/pt.ndjson" 2>"$TMP/err" \
  || fail "--auto --sampler=ptrace --json: $(cat "$TMP/err")"
# the text lines ride in the JSON as "human"; the walk must read the same
python3 -c '
import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["type"] in ("auto", "region", "dataflow") and "human" in e:
        print(e["human"].split("\n")[0])
' "$TMP/pt.ndjson" >"$TMP/pt.txt"
check_walk "$TMP/pt.txt" ptrace "; call targets of the hottest functions included" "; called from grind_forever"
check_json "$TMP/pt.ndjson" ptrace
pass "ptrace --json: $(sed -n 3p "$TMP/pt.txt" | cut -c1-70)..."
assert_runs "$pid"

# --- the ladder ----------------------------------------------------------------
if verdict amd_ibs | grep -q " usable " || verdict amd_lbr | grep -q " usable "; then
  echo "note: IBS or LBR is usable here; the ladder would not reach sw-clock" >&2
else
  "$ASMSPY" --dataflow "$pid" --auto --max=3 >"$TMP/ladder.txt" 2>"$TMP/ladder.err" || fail "ladder: $(cat "$TMP/ladder.err")"
  grep -q "^# sampler ibs refused: " "$TMP/ladder.err" || fail "no ibs refusal: $(cat "$TMP/ladder.err")"
  grep -q "^# sampler lbr refused: " "$TMP/ladder.err" || fail "no lbr refusal: $(cat "$TMP/ladder.err")"
  sed -n 1p "$TMP/ladder.txt" | grep -q "^--auto\[sw-clock\]: grind_forever " || fail "ladder pick: $(head -1 "$TMP/ladder.txt")"
  grep -qE "^data flow — entered_often @ 0x[0-9a-f]+ of pid $pid   ret=\?   3 steps, [0-9]+ records   \(truncated\)$" "$TMP/ladder.txt" \
    || fail "ladder --max=3: $(cat "$TMP/ladder.txt")"
  pass "ladder: ibs and lbr refused with their reasons, sw-clock used; --max=3 truncates"
fi
assert_runs "$pid"

# perf_event_open denied (a seccomp filter, like Docker's default profile):
# the ladder falls to the ptrace rung; a forced sw rung is a # SKIP
run_denying() {
  local deny=$1
  shift
  python3 -c '
import ctypes, os, struct, sys
NR = {"perf_event_open": 298, "ptrace": 101}  # x86-64
ins = lambda code, jt, jf, k: struct.pack("=HBBI", code, jt, jf, k)
LD_ABS, JEQ, RET = 0x20, 0x15, 0x06
ALLOW, EPERM = 0x7fff0000, 0x00050000 | 1
prog = [ins(LD_ABS, 0, 0, 4), ins(JEQ, 1, 0, 0xc000003e), ins(RET, 0, 0, ALLOW), ins(LD_ABS, 0, 0, 0)]
for n in sys.argv[1].split(","):
    prog += [ins(JEQ, 0, 1, NR[n]), ins(RET, 0, 0, EPERM)]
prog.append(ins(RET, 0, 0, ALLOW))
code = ctypes.create_string_buffer(b"".join(prog))
class FProg(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
fp = FProg(len(prog), ctypes.cast(code, ctypes.c_void_p))
libc = ctypes.CDLL(None, use_errno=True)
ul = ctypes.c_ulong
if libc.prctl(38, ul(1), ul(0), ul(0), ul(0)) or libc.prctl(22, ul(2), ctypes.byref(fp), ul(0), ul(0)):
    sys.exit("seccomp: " + os.strerror(ctypes.get_errno()))
os.execvp(sys.argv[2], sys.argv[2:])
' "$deny" "$@"
}
if [ "$(uname -m)" = x86_64 ]; then
  run_denying perf_event_open "$ASMSPY" --dataflow "$pid" --auto >"$TMP/nop.txt" 2>"$TMP/nop.err" \
    || fail "perf denied, ladder: $(cat "$TMP/nop.err")"
  grep -q "^# sampler sw refused: .*EPERM" "$TMP/nop.err" || fail "no sw refusal: $(cat "$TMP/nop.err")"
  check_walk "$TMP/nop.txt" ptrace "; call targets of the hottest functions included" "; called from grind_forever"
  pass "perf_event_open denied: sw refused ($(grep -o 'EPERM ([^)]*)' "$TMP/nop.err" | head -1)), the ptrace rung walked"
  set +e
  run_denying perf_event_open "$ASMSPY" --dataflow "$pid" --auto --sampler=sw >"$TMP/skip.txt" 2>"$TMP/skip.err"
  rc=$?
  set -e
  grep -q "^# SKIP --auto: the requested sampler refused on this host" "$TMP/skip.txt" || fail "no # SKIP: $(cat "$TMP/skip.txt" "$TMP/skip.err")"
  [ "$rc" = 0 ] || fail "every requested rung refused: exit $rc, want 0 (a # SKIP is an answer; the engine must pass a view's 3xx configure status as a skip)"
  run_denying perf_event_open "$ASMSPY" --sample "$pid" --sampler=sw >"$TMP/skip2.txt" 2>&1 || fail "--sample under perf denial: exit $?"
  grep -q "^# SKIP swclock: perf_event_open(PERF_TYPE_SOFTWARE, TASK_CLOCK, sample IP) on a forked child: EPERM" "$TMP/skip2.txt" \
    || fail "--sample SKIP: $(cat "$TMP/skip2.txt")"
  pass "perf denied + --sampler=sw: '# SKIP', exit 0 (--dataflow --auto and --sample)"
fi
assert_runs "$pid"

# --- refusals: an idle target, a module with nothing in it -------------------
# start_victim names its pid file after the victim: drop the previous one so
# its old pid line cannot be read as the new victim's
rm -f "$TMP"/victim_auto.*.out
start_victim victim_auto idle
idle=$VICTIM_PID
for r in sw:sw-clock ptrace:ptrace; do
  set +e
  "$ASMSPY" --dataflow "$idle" --auto --sampler="${r%%:*}" >"$TMP/idle.txt" 2>"$TMP/err"
  rc=$?
  set -e
  grep -qx -- "--auto\[${r#*:}\]: no function was observed running in pid $idle (0 samples in 400 ms): an idle target gets a refusal, not a guess" "$TMP/idle.txt" \
    || fail "idle ($r): $(cat "$TMP/idle.txt" "$TMP/err")"
  [ "$(wc -l <"$TMP/idle.txt")" = 1 ] || fail "idle ($r): more than the refusal: $(cat "$TMP/idle.txt")"
  [ "$rc" = 0 ] || fail "idle ($r): exit $rc, want 0 (a refusal is a fact about the target; the engine must pass a view's positive configure status through)"
done
pass "idle victim: refused on both rungs, nothing captured, exit 0"
# (assert_runs waits for CPU progress a sleeper never makes: check the state)
[ "$(proc_state "$idle")" = S ] && grep -q "^TracerPid:[[:space:]]*0$" "/proc/$idle/status" \
  || fail "idle victim after the run: state $(proc_state "$idle"), $(grep TracerPid "/proc/$idle/status")"

set +e
"$ASMSPY" --dataflow "$pid" --auto --sampler=sw --module=libc >"$TMP/mod.txt" 2>"$TMP/err"
rc=$?
set -e
grep -qE "^--auto\[sw-clock\]: no function in a module matching 'libc' was observed running in pid $pid \([0-9]+ samples in 400 ms, none in a function with a known extent there\): nothing to trace, and no guess is made$" "$TMP/mod.txt" \
  || fail "--module=libc: $(cat "$TMP/mod.txt" "$TMP/err")"
[ "$rc" = 0 ] || fail "--module=libc refusal: exit $rc, want 0"
pass "--module=libc: refused (the samples lie elsewhere)"
assert_runs "$pid"

# --- usage errors: exit 2, one line, nothing attached -------------------------
expect_exit 2 "$ASMSPY" --dataflow "$pid" --auto --tid="$pid"
grep -q "cannot combine with --tid" "$TMP/err" || fail "--tid message: $(cat "$TMP/err")"
expect_exit 2 "$ASMSPY" --dataflow "$pid" --auto entered_often
grep -q "replaces the region argument" "$TMP/err" || fail "region message: $(cat "$TMP/err")"
expect_exit 2 "$ASMSPY" --dataflow "$pid" --auto --window=0
expect_exit 2 "$ASMSPY" --dataflow "$pid" --auto --sampler=bogus
grep -q "unknown sampler 'bogus'" "$TMP/err" || fail "unknown sampler message: $(cat "$TMP/err")"
pass "--tid / region / bad --window / unknown rung -> exit 2 (the rest: the auto_pick unit test)"
assert_runs "$pid"

# --- --launch: the command runs to its entry point and is let go, sampled,
# then the picked function's data flow is captured on it as a running pid
"$ASMSPY" --launch dataflow --auto --sampler=sw -- "$VICTIM_DIR/victim_auto" 4000 >"$TMP/launch.txt" 2>"$TMP/err" \
  || fail "--launch dataflow --auto failed: $(cat "$TMP/err")"
grep -q "^--auto\[sw-clock\]: grind_forever \[victim_auto\] " "$TMP/launch.txt" || fail "launch pick: $(head -3 "$TMP/launch.txt")"
grep -qE "^data flow — entered_often @ 0x[0-9a-f]+ of pid [0-9]+   ret=" "$TMP/launch.txt" \
  || fail "launch capture: $(cat "$TMP/launch.txt")"
pass "--launch dataflow --auto: sampled the launched program, captured entered_often"
