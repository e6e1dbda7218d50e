#!/usr/bin/env python3
"""ipa_live.py <binary> <caller> <callee>: prove that the -O2 build of
harm_ipara keeps a value in a call-clobbered register across a call to
<callee> (gcc's -fipa-ra): in <caller>'s disassembly (a symbol starting with
<caller>, e.g. round_work.constprop.0) some register among r8-r11, rcx,
rsi, rdi, rdx is read after a `call <callee>` before being written. Prints
the evidence; exits 1 when there is none (the test would prove nothing)."""
import re
import subprocess
import sys

binary, caller, callee = sys.argv[1:4]
dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], capture_output=True,
                     text=True, check=True).stdout
body, inside = [], False
for line in dis.splitlines():
    m = re.match(r"^[0-9a-f]+ <([^>]+)>:", line)
    if m:
        inside = m.group(1).startswith(caller)
        continue
    if inside and "\t" in line:
        parts = line.split("\t")
        if len(parts) >= 2:
            body.append((parts[0].strip().rstrip(":"), parts[-1].strip()))
REGS = {"r8": r"%r8[dwb]?\b", "r9": r"%r9[dwb]?\b", "r10": r"%r10[dwb]?\b", "r11": r"%r11[dwb]?\b",
        "rcx": r"%(rcx|ecx|cx|cl)\b", "rsi": r"%(rsi|esi|si|sil)\b", "rdx": r"%(rdx|edx|dx|dl)\b"}
found = []
for i, (addr, ins) in enumerate(body):
    if not re.match(r"call\s+[0-9a-f]+ <%s>" % re.escape(callee), ins):
        continue
    for reg, pat in REGS.items():
        for a2, ins2 in body[i + 1:]:
            if re.match(r"(j|ret|call)", ins2):
                break
            if not re.search(pat, ins2):
                continue
            op, _, args = ins2.partition(" ")
            ops = [o.strip() for o in re.split(r",(?![^(]*\))", args.strip())]
            pure_write = (op.startswith(("mov", "lea")) and re.search(pat, ops[-1])
                          and not any(re.search(pat, o) for o in ops[:-1])
                          and "(" not in ops[-1])
            if not pure_write:
                found.append("%s live across `call %s` at %s: read by `%s` at %s" % (reg, callee, addr, ins2, a2))
            break
if not found:
    print("no call-clobbered register is live across a call to %s in %s: -fipa-ra did not "
          "apply, the test proves nothing" % (callee, caller))
    sys.exit(1)
print("\n".join(found))
