#!/usr/bin/env python3
"""Oracle: every instruction asmspy --stream --json reports inside the victim
binary must agree with `objdump -d` of that binary: the symbol + offset must
land on an instruction boundary objdump lists, with the same bytes and the
same mnemonic (and the same operands where they are position-independent).

usage: stream_objdump.py <victim-binary> <stream.ndjson>
"""
import json
import os
import re
import subprocess
import sys

binary, stream_path = sys.argv[1], sys.argv[2]
module = os.path.basename(binary)

dump = subprocess.run(["objdump", "-d", "-w", "-M", "intel", binary],
                      capture_output=True, text=True, check=True).stdout
func_start = {}
insns = {}  # addr -> (bytes hex, mnemonic, operands)
func_re = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
insn_re = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(\S+)\s*(.*)$")
for line in dump.splitlines():
    m = func_re.match(line)
    if m:
        func_start[m.group(2)] = int(m.group(1), 16)
        continue
    m = insn_re.match(line)
    if m:
        ops = m.group(4).split("#")[0].strip()
        insns[int(m.group(1), 16)] = (m.group(2).replace(" ", ""), m.group(3), ops)

def norm(ops):
    """Spacing, case and number base differ between objdump and Capstone."""
    ops = re.sub(r"\s+", "", ops.lower())
    return re.sub(r"0x[0-9a-f]+|\b\d+\b", lambda m: str(int(m.group(0), 0)), ops)

checked = 0
problems = []
with open(stream_path) as f:
    for line in f:
        ev = json.loads(line)
        if ev.get("type") != "insn" or ev.get("module") != module or ev.get("sym") is None:
            continue
        sym, off = ev["sym"], ev["off"]
        if sym not in func_start:
            problems.append(f"seq {ev['seq']}: symbol {sym} unknown to objdump")
            continue
        addr = func_start[sym] + off
        if addr not in insns:
            problems.append(f"seq {ev['seq']}: {sym}+{off:#x} is not an instruction boundary per objdump")
            continue
        obytes, omnem, oops = insns[addr]
        if not obytes.startswith(ev["bytes"]) and ev["bytes"] != obytes:
            problems.append(f"seq {ev['seq']}: {sym}+{off:#x} bytes {ev['bytes']} vs objdump {obytes}")
        amnem, _, aops = ev["disasm"].partition(" ")
        if amnem != omnem:
            problems.append(f"seq {ev['seq']}: {sym}+{off:#x} '{ev['disasm']}' vs objdump '{omnem} {oops}'")
        elif "rip" not in oops and "<" not in oops and not omnem.startswith(("j", "call")) and norm(aops) != norm(oops):
            problems.append(f"seq {ev['seq']}: {sym}+{off:#x} operands '{aops}' vs objdump '{oops}'")
        checked += 1

for p in problems[:20]:
    print("MISMATCH", p)
print(f"checked {checked} instructions in {module} against objdump; {len(problems)} mismatches")
sys.exit(1 if problems or checked == 0 else 0)
