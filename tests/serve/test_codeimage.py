#!/usr/bin/env python3
"""codeimage events on a JIT-like target (victim_jit patches the immediate
of `mov eax, imm32; ret` every 4 calls, W^X): exactly one new version per
real change and none for asmspy's own entry breakpoints; each sample
resolves (greatest `when` <= its seq) to the bytes it really ran; --replay
--disasm disassembles from those bytes; the kernel's inability to report
page changes is a note with the measured reason; the same on --dataflow and
through --serve; text-only runs record nothing."""
import json
import os
import re
import struct

from serve_lib import (ASMSPY, TMP, Server, check_recording, cleanup, fail, ok, run, slice_session,
                       start_victim, write_lines)

_, pid, extra = start_victim("victim_jit", 1000, 4)
m = re.match(r"jit (0x[0-9a-f]+) (\d+)", extra[0])
if not m:
    fail(f"victim_jit printed {extra}")
base, length = int(m.group(1), 16), int(m.group(2))
region = f"{m.group(1)}:{length}"


def load(text):
    return [json.loads(l) for l in text.splitlines()]


def mov_eax(imm):
    return bytes([0xb8]) + struct.pack("<I", imm) + bytes([0xc3])


def versions_at(events, seq):
    best = None
    for e in events:
        if e["type"] == "codeimage" and e["when"] <= seq and int(e["base"], 16) <= base < int(e["base"], 16) + e["len"]:
            if best is None or e["when"] > best["when"]:
                best = e
    return best


def check_versions(events, what, nsamples):
    images = [e for e in events if e["type"] == "codeimage"]
    samples = [e for e in events if e["type"] == "sample"]
    if len(samples) != nsamples:
        fail(f"{what}: {len(samples)} samples")
    rets = [s["ret"] for s in samples]
    distinct = sorted(set(rets))
    if [e["version"] for e in images] != list(range(1, len(images) + 1)):
        fail(f"{what}: versions {[e['version'] for e in images]}")
    if len(images) != len(distinct):
        fail(f"{what}: {len(images)} codeimage versions for {len(distinct)} distinct code states "
             f"(sample returns {rets}): one version per real change, none for breakpoints")
    for e in images:
        if e["when"] != e["seq"] or int(e["base"], 16) != base or e["len"] != length:
            fail(f"{what}: codeimage fields {e}")
    for s in samples:
        v = versions_at(events, s["seq"])
        if v is None or bytes.fromhex(v["bytes"]) != mov_eax(s["ret"]):
            fail(f"{what}: sample #{s['sample']} returned {s['ret']} but resolves to {v}")
    if len(distinct) < 2:
        fail(f"{what}: the code never changed across {nsamples} samples ({rets}): the victim patches every 4 calls")
    if len(samples) <= len(images):
        fail(f"{what}: every sample saw a new version ({rets}); cannot tell breakpoints from changes")
    return rets, images


# --- --trace on the JIT region, --json ---------------------------------------------
r = run([ASMSPY, "--trace", pid, region, "12", "--json"], text=True)
if r.returncode != 0:
    fail(f"--trace {region} --json: rc {r.returncode} {r.stderr}")
rec = os.path.join(TMP, "jit.asmtrace")
open(rec, "w").write(r.stdout)
check_recording(rec, "--trace of the JIT region")
events = load(r.stdout)
rets, images = check_versions(events, "--trace", 12)
detect = images[0]["detect"]
notes = [e["text"] for e in events if e["type"] == "note" and e["text"].startswith("codeimage:")]
if detect == "compare" and not any("does not report page changes" in n and "pagemap bit 55" in n for n in notes):
    fail(f"compare mode without the measured reason: {notes}")
ok(f"12 samples returning {rets}: {len(images)} versions, one per real change "
   f"(detector {detect}{': ' + notes[0][:90] + '...' if notes else ''})")

# --- replay --disasm: each sample disassembled from the bytes it ran ---------------
r = run([ASMSPY, "--replay", rec, "--disasm"], text=True)
if r.returncode != 0:
    fail(f"--replay --disasm: {r.stderr}")
blocks = re.findall(r"sample #(\d+) \(seq \d+\) ret=(\d+)\n\s+0x[0-9a-f]+\s+(mov eax, 0x[0-9a-f]+)\s+\[codeimage v(\d+)",
                    r.stdout)
if len(blocks) != 12:
    fail(f"--replay --disasm: {len(blocks)} sample blocks resolved to codeimages:\n{r.stdout[:1500]}")
for num, ret, text, ver in blocks:
    if text != f"mov eax, {hex(int(ret))}":
        fail(f"--replay --disasm: sample #{num} ret={ret} disassembles as {text}")
ok("--replay --disasm: every sample's first instruction disassembled from its own version "
   f"({', '.join(sorted(set(t for _, _, t, _ in blocks)))})")

# --- a function that never changes: one version however many breakpoints ----------
r = run([ASMSPY, "--trace", pid, "steady", "5", "--json"], text=True)
ev = load(r.stdout)
imgs = [e for e in ev if e["type"] == "codeimage"]
if r.returncode != 0 or len(imgs) != 1 or sum(e["type"] == "sample" for e in ev) != 5:
    fail(f"--trace steady 5: {len(imgs)} codeimages (want exactly 1 for 5 breakpointed entries)")
ok("steady(): 5 samples, 5 entry breakpoints planted and removed, exactly 1 codeimage")

# --- dataflow records the bytes too -----------------------------------------------
r = run([ASMSPY, "--dataflow", pid, region, "--json"], text=True)
ev = load(r.stdout)
df = [e for e in ev if e["type"] == "dataflow"]
imgs = [e for e in ev if e["type"] == "codeimage"]
if r.returncode != 0 or len(df) != 1 or len(imgs) != 1 or bytes.fromhex(imgs[0]["bytes"]) != mov_eax(df[0]["ret"]):
    fail(f"--dataflow of the JIT region: {len(df)} dataflow, codeimages {imgs}")
ok(f"--dataflow: one codeimage, the bytes of the invocation that returned {df[0]['ret']}")

# --- through --serve ----------------------------------------------------------------
srv = Server()
srv.send({"cmd": "start", "mode": "trace", "pid": pid, "region": region, "max": 12})
sid = srv.expect_ack("start")["session"]
srv.wait_ended(sid)
srv.send({"cmd": "quit"})
srv.expect_ack("quit")
srv.wait_exit()
sl = slice_session(srv.raw, sid)
path = os.path.join(TMP, "served.asmtrace")
write_lines(path, sl)
check_recording(path, "served JIT trace")
rets, images = check_versions([json.loads(l) for l in sl], "--serve trace", 12)
ok(f"--serve: {len(images)} versions for returns {rets}")

# --- text only: nothing recorded, nothing to say ------------------------------------
r = run([ASMSPY, "--trace", pid, region, "2"], text=True)
if r.returncode != 0 or "codeimage" in r.stderr or "codeimage" in r.stdout:
    fail(f"a text-only run did codeimage work: {r.stderr}")
ok("text-only --trace: no codeimage note, no snapshots")
cleanup()
