#!/usr/bin/env python3
"""Oracle: the sequence of (syscall name, result) asmspy --log reports for a
deterministic victim equals strace's for the same victim. Addresses, pids
and other large numbers differ run to run, so results above 65535 compare
as BIG; the execve that starts the program is dropped on both sides.

usage: log_vs_strace.py <strace-output> <asmspy-ndjson>
"""
import json
import re
import sys

def norm(ret):
    if ret is None or ret == "?":
        return "?"
    v = int(ret, 16) if isinstance(ret, str) and ret.startswith("0x") else int(ret)
    return "BIG" if abs(v) > 65535 else v

strace = []
line_re = re.compile(r"^(\w+)\(.*\)\s+= (0x[0-9a-f]+|-?\d+|\?)(?: (E[A-Z0-9]+))?")
with open(sys.argv[1]) as f:
    for line in f:
        m = line_re.match(line)
        if m:
            # an error compares by its errno name: strace prints -1 ENOENT
            strace.append((m.group(1), m.group(3) if m.group(3) else norm(m.group(2))))
ours = []
with open(sys.argv[2]) as f:
    for line in f:
        ev = json.loads(line)
        if ev.get("type") == "syscall":
            ours.append((ev["name"], ev.get("error") or norm(ev["ret"])))
# these return pids/tids, which differ run to run
PID_RETURNING = {"set_tid_address", "getpid", "gettid", "getppid", "clone", "clone3", "fork",
                 "vfork", "wait4"}
def pidnorm(calls):
    return [(n, "PID" if n in PID_RETURNING and isinstance(r, int) and r > 0 else r)
            for n, r in calls if n != "execve"]
strace = pidnorm(strace)
ours = pidnorm(ours)
for i, (a, b) in enumerate(zip(strace, ours)):
    if a != b:
        print(f"first difference at call {i}: strace {a} vs asmspy {b}")
        print("strace:", strace[max(0, i - 3):i + 3])
        print("asmspy:", ours[max(0, i - 3):i + 3])
        sys.exit(1)
if len(strace) != len(ours):
    print(f"lengths differ: strace {len(strace)} asmspy {len(ours)}")
    sys.exit(1)
print(f"{len(ours)} syscalls agree with strace")
