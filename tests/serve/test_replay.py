#!/usr/bin/env python3
"""Every mode's --record=<f> is a recording the reader loads, and
`asmspy --replay <f>` renders it back to exactly the text the live run
printed (same run: the live stdout and the recording are compared byte for
byte). Also: a recording predating the recorded text replays the core
types; a truncated recording replays what it has and says so; an invalid
one fails; bad arguments are usage errors."""
import json
import os

from serve_lib import (ASMSPY, TMP, check_recording, cleanup, fail, ok, run, start_victim)

_, loop, _ = start_victim("victim_loop")

modes = [
    ["--log", loop, "10"],
    ["--stream", loop, "30"],
    ["--trace", loop, "work", "2"],
    ["--dataflow", loop, "helper"],
    ["--tree", loop, "8"],
    ["--tree", loop, "8", "--dot"],
    ["--graph", loop, "40"],
    ["--graph", loop, "40", "--dot"],
    ["--procs", loop],
    ["--procs", loop, "--dot"],
    ["--info", loop],
    ["--syms", loop, "work"],
    ["--list"],  # its column header travels in the first row's human text
    ["--log", loop, "3", "--backend=singlestep"],  # a '# SKIP' answer is recorded too
]
# views other issues add: replayed when this build has them
views = run([ASMSPY, "--backends"], text=True).stdout
for mode, argv in (("sample", ["--sample", loop, "200"]), ("watch", ["--watch", loop, "sink", "2"])):
    if any(l.split()[:1] == ["view"] and mode in l for l in views.splitlines()):
        modes.append(argv)
    else:
        print(f"note: no {mode} view in this build: not replayed")

for i, argv in enumerate(modes):
    rec = os.path.join(TMP, f"m{i}.asmtrace")
    live = run([ASMSPY] + argv + ["--record=" + rec])
    what = " ".join(str(a) for a in argv)
    if live.returncode != 0:
        fail(f"{what}: rc {live.returncode} {live.stderr!r}")
    report = check_recording(rec, what)
    rep = run([ASMSPY, "--replay", rec])
    if rep.returncode != 0:
        fail(f"--replay of {what}: rc {rep.returncode} {rep.stderr!r}")
    if rep.stdout != live.stdout:
        a, b = live.stdout.decode(errors="replace").splitlines(), rep.stdout.decode(errors="replace").splitlines()
        first = next((k for k in range(max(len(a), len(b))) if k >= len(a) or k >= len(b) or a[k] != b[k]), -1)
        fail(f"{what}: replay differs from the live text at line {first + 1}: "
             f"live {a[first:first + 2]!r} replay {b[first:first + 2]!r}")
    ok(f"{what}: {len(live.stdout.splitlines())} lines replayed identically ({report.split(': ', 2)[-1].strip()})")

# --- a recording from before "human": the core types still replay (stream) -------
rec = os.path.join(TMP, "old.asmtrace")
live = run([ASMSPY, "--stream", loop, "25", "--record=" + rec])
old = os.path.join(TMP, "old-stripped.asmtrace")
with open(rec) as f, open(old, "w") as g:
    for line in f:
        o = json.loads(line)
        o.pop("human", None)
        g.write(json.dumps(o, separators=(",", ":")) + "\n")
rep = run([ASMSPY, "--replay", old])
if rep.returncode != 0 or rep.stdout != live.stdout:
    fail(f"a recording without human text: {rep.stdout[:300]!r} vs {live.stdout[:300]!r}")
ok("a recording without recorded text (older writer): stream re-rendered from its fields, identical")

# --- truncated, invalid, bad arguments ----------------------------------------------
lines = open(rec).read().splitlines(True)
cut = os.path.join(TMP, "cut.asmtrace")
open(cut, "w").writelines(lines[:-1])
rep = run([ASMSPY, "--replay", cut])
if rep.returncode != 0 or b"recording truncated" not in rep.stderr or rep.stdout != live.stdout:
    fail(f"truncated: rc {rep.returncode} {rep.stderr!r}")
bad = os.path.join(TMP, "bad.asmtrace")
open(bad, "w").writelines(lines[:3] + lines[4:])
rep = run([ASMSPY, "--replay", bad])
if rep.returncode != 1 or b"seq gap" not in rep.stderr:
    fail(f"a seq gap: rc {rep.returncode} {rep.stderr!r}")
garbage = os.path.join(TMP, "garbage.asmtrace")
open(garbage, "wb").write(b"\x00\xff{{{\n")
rep = run([ASMSPY, "--replay", garbage])
if rep.returncode != 1:
    fail(f"garbage: rc {rep.returncode}")
ok("truncated -> its events + '# recording truncated' (exit 0); seq gap / garbage -> exit 1")
for argv, code in (([], 2), (["a", "b"], 2), ([rec, "--bogus"], 2), ([rec, "--session=0"], 2),
                   ([rec, "--session=2"], 2), ([os.path.join(TMP, "nope")], 1)):
    r = run([ASMSPY, "--replay"] + argv)
    if r.returncode != code:
        fail(f"--replay {argv}: rc {r.returncode}, want {code}: {r.stderr!r}")
ok("--replay usage errors -> 2, a missing file -> 1")
cleanup()
