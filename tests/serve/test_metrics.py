#!/usr/bin/env python3
"""docs/metrics.md catalogues every field asmspy emits. The list of fields is
not written by hand here: it is (1) the host writer's own field table
(tests/serve/metrics_fields prints host/output.c's table) and (2) every key
of every line that running every mode with --json on the victims actually
produces (nested members as `key.sub`, members of array elements as
`key[].sub`). Each must appear in the catalogue's section for its record
type (or in the `*` section, the envelope every event line has).

With --print, the collected fields are listed instead (to write the
catalogue's rows)."""
import json
import os
import re
import subprocess
import sys

from serve_lib import ASMSPY, TMP, cleanup, fail, ok, run, start_victim

CATALOGUE = os.path.join(os.environ["ASMSPY_SOURCE_ROOT"], "docs", "metrics.md")


def key_paths(obj, prefix=""):
    for k, v in obj.items():
        path = prefix + k
        yield path
        if isinstance(v, dict):
            yield from key_paths(v, path + ".")
        elif isinstance(v, list):
            for item in v:
                if isinstance(item, dict):
                    yield from key_paths(item, path + "[].")


def catalogue():
    """{record: {field, ...}} from the catalogue: a heading names records in
    backticks; the first cell of each table row below it names fields."""
    fields, current = {}, []
    for line in open(CATALOGUE, encoding="utf-8"):
        if line.startswith("#"):
            current = re.findall(r"`([a-z_*]+)`", line)
            for r in current:
                fields.setdefault(r, set())
        elif line.startswith("|") and current:
            first = line.split("|")[1]
            for f in re.findall(r"`([^`]+)`", first):
                for r in current:
                    fields[r].add(f)
    return fields


_, loop, _ = start_victim("victim_loop")
_, sig, _ = start_victim("victim_signals")
_, auto, _ = start_victim("victim_auto")
_, threads, _ = start_victim("victim_threads")
forkdir = os.path.join(TMP, "fork")
os.mkdir(forkdir)
_, fork, _ = start_victim("victim_fork", forkdir)
_, jit, extra = start_victim("victim_jit")

runs = [
    ["--log", loop, "10"], ["--log", sig, "30"], ["--log", fork, "40", "--follow"],
    ["--stream", loop, "30"], ["--stream", threads, "60"],
    ["--trace", loop, "work", "2"], ["--trace", jit, extra[0].split()[1] + ":" + extra[0].split()[2], "3"],
    ["--dataflow", loop, "helper"],
    ["--tree", loop, "8"], ["--tree", loop, "8", "--dot"],
    ["--graph", loop, "40"], ["--graph", loop, "40", "--dot"],
    ["--procs", loop], ["--procs", loop, "5", "--count=calls"], ["--procs", fork, "--dot"],
    ["--sample", auto, "300", "--sampler=sw"], ["--sample", auto, "300", "--sampler=ptrace"],
    ["--sample", loop, "200"], ["--watch", loop, "sink", "2"],
    ["--info", loop], ["--syms", loop, "work"], ["--list"], ["--backends"],
]
env = dict(os.environ, ASMTEST_DF_ENTRY_WAIT_MS="300")
# short entry waits: `main` is never entered (not_reached); --auto's residency
# winner never re-enters, so it moves on to the next candidate at once
# (exit 1 when nothing was captured: abort is never entered)
runs_nr = [["--trace", loop, "abort", "1"], ["--dataflow", auto, "--auto", "--sampler=sw"]]

seen = {}  # (record, field) -> the run that produced it
rec = os.path.join(TMP, "m.asmtrace")
for argv in runs + runs_nr:
    # --record=<f> carries the same lines as --json, and combines with --dot
    json_flag = ["--json"] if argv[0] == "--backends" else ["--record=" + rec]
    r = subprocess.run([ASMSPY] + [str(a) for a in argv] + json_flag, capture_output=True,
                       text=True, env=env if argv in runs_nr else None, timeout=180)
    what = " ".join(str(a) for a in argv)
    if r.returncode != 0 and not (argv in runs_nr and r.returncode == 1):
        fail(f"{what} {json_flag[0]}: rc {r.returncode} {r.stderr[:300]}")
    text = r.stdout if argv[0] == "--backends" else open(rec).read()
    for line in text.splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            fail(f"{what} --json printed a line that is not JSON: {line[:200]!r}")
        t = o.get("type", "?")
        for p in key_paths(o):
            seen.setdefault((t, p), what)

fields_out = subprocess.run([os.environ["METRICS_FIELDS"]], capture_output=True, text=True)
if fields_out.returncode != 0 or not fields_out.stdout:
    fail("metrics_fields printed nothing")
writer = set()
for line in fields_out.stdout.split():
    rec, field = line.split(".", 1)
    writer.add((rec, field))
    seen.setdefault((rec, field), "the writer's field table")

if "--print" in sys.argv:
    for (t, p), what in sorted(seen.items()):
        print(f"{t}\t{p}\t{what}")
    cleanup()
    sys.exit(0)

cat = catalogue()
missing = []
for (t, p), what in sorted(seen.items()):
    if p in cat.get(t, set()) or p in cat.get("*", set()):
        continue
    missing.append(f"{t}.{p} (from {what})")
if missing:
    fail(f"{len(missing)} emitted fields are not in docs/metrics.md:\n  " + "\n  ".join(missing))
types = sorted({t for t, _ in seen})
ok(f"docs/metrics.md catalogues all {len(seen)} fields ({len(writer)} from the writer's table, the "
   f"rest from {len(runs) + len(runs_nr)} --json runs) of {len(types)} record types: {', '.join(types)}")
cleanup()
