#!/bin/bash
# --sample without --sampler walks the sampler ladder (IBS -> LBR -> software
# clock -> ptrace probes, as --dataflow --auto does) and runs the first rung
# whose probe says usable here; the output names the rung it got, and its
# rows are what that rung can prove. Against victim_auto (main calls
# grind_forever once, grind_forever holds ~90% of the user time):
#   - the rung: the first usable one in ladder order per --backends, named by
#     the recording's header (backend) and provenance (sampler);
#   - ibs/lbr: hot_edge rows (sampled branches) inside the victim's code;
#   - sw-clock: no hot_edge (it never saw a branch); call_edge rows from the
#     sampled stacks, each caller -> a function's first byte, with
#     main -> grind_forever among them; grind_forever the hottest function;
#   - ptrace: residency only (hot_function: grind_forever first);
#   - stderr notes every rung above the one used as refused, with the
#     probe's reason (--backends's).
# The victim runs on untouched.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 missing (used to read the JSON)"
"$ASMSPY" --backends >"$TMP/backends"
rung=""
for pair in ibs:amd_ibs lbr:amd_lbr sw-clock:swclock ptrace:ptsampler; do
  if awk -v n="${pair#*:}" '$2 == n && $4 == "usable"' "$TMP/backends" | grep -q .; then
    rung=$pair
    break
  fi
done
[ -n "$rung" ] || skip "no sampler rung is usable here: $(cat "$TMP/backends")"

start_victim victim_auto
pid=$VICTIM_PID
"$ASMSPY" --sample "$pid" 200 --json >"$TMP/out.ndjson" 2>"$TMP/err" || fail "--sample --json: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/out.ndjson" >/dev/null || fail "invalid recording: $("$ASMTRACE_CHECK" "$TMP/out.ndjson")"
python3 - "$TMP/out.ndjson" "${rung%%:*}" "${rung#*:}" >"$TMP/facts" <<'PY' || fail "recording: $(cat "$TMP/facts")"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
want_rung, want_backend = sys.argv[2], sys.argv[3]
head = evs[0]
assert head["type"] == "header" and head["backend"] == want_backend, (head, want_backend)
prov = [e for e in evs if e["type"] == "provenance"]
assert len(prov) == 1 and prov[0]["sampler"] == want_rung, (prov, want_rung)
p = prov[0]
assert p["samples"] > 0, p
victim = "[victim_auto]"
edges = [e for e in evs if e["type"] == "hot_edge"]
calls = [e for e in evs if e["type"] == "call_edge"]
fns = [e for e in evs if e["type"] == "hot_function"]
if want_rung in ("ibs", "lbr"):
    assert edges and p["kind"] == "edges", p
    assert any(e["from_sym"].endswith(victim) and e["to_sym"].endswith(victim) for e in edges), edges
    print("%s: %d branch edges, top %s -> %s" % (want_rung, len(edges), edges[0]["from_sym"], edges[0]["to_sym"]))
elif want_rung == "sw-clock":
    assert not edges and p["kind"] == "residency", "a residency rung claimed branches: %s" % edges[:3]
    assert calls and p["call_edges"] == len(calls), (p, calls)
    for c in calls:
        assert "+" not in c["to_sym"], "a callee is not a function's first byte: %s" % c
    hot = {f["name"] for f in fns if f["module"] == "victim_auto"}
    assert fns[0]["name"] == "grind_forever", fns[:3]
    main_grind = [c for c in calls if c["from_sym"].startswith("main+") and
                  c["to_sym"] == "grind_forever " + victim]
    assert main_grind, "no main -> grind_forever call edge: %s" % calls
    ours = [c for c in calls if c["to_sym"].endswith(victim)]
    assert all(c["to_sym"].split(" ")[0] in hot | {"main"} for c in ours), (ours, hot)
    print("sw-clock: %d call edges (main -> grind_forever: %d frames), %d samples" %
          (len(calls), main_grind[0]["count"], p["samples"]))
else:
    assert not edges and not calls and fns and fns[0]["name"] == "grind_forever", (edges, calls, fns[:3])
    print("ptrace: residency, grind_forever first")
PY
pass "default --sample ran the ladder's first usable rung here, ${rung%%:*}: $(cat "$TMP/facts")"

# the text header names the same rung
"$ASMSPY" --sample "$pid" 200 >"$TMP/out.txt" 2>"$TMP/err" || fail "--sample: $(cat "$TMP/err")"
case "${rung%%:*}" in
  ibs) want="^statistical hot edges \(AMD IBS-Op, out of band\)";;
  lbr) want="^statistical hot edges \(AMD LBR branch stacks, out of band\)";;
  sw-clock) want="^statistical call edges \(software task-clock call stacks, out of band\) — [0-9]+ caller -> callee edges? ";;
  *) want="^statistical residency \(ptrace attach-and-sample probes\)";;
esac
grep -qE "$want" "$TMP/out.txt" || fail "text header: $(head -2 "$TMP/out.txt")"
pass "text: $(head -1 "$TMP/out.txt")"
# every rung above the one that ran was refused, and the notes say why
for above in ibs:amd_ibs lbr:amd_lbr sw:swclock; do
  [ "${above#*:}" = "${rung#*:}" ] && break
  reason=$(awk -v n="${above#*:}" '$2 == n {for (i = 5; i <= NF; i++) printf "%s%s", $i, i < NF ? " " : ""; exit}' "$TMP/backends")
  grep -qF "# sampler ${above%%:*} refused: $reason" "$TMP/err" ||
    fail "no refusal note for ${above%%:*} (want '$reason'): $(cat "$TMP/err")"
done
pass "the rungs above ${rung%%:*} are noted as refused, with their probes' reasons"
assert_runs "$pid"
