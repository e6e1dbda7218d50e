#!/usr/bin/env python3
"""The Python `with` scope (bindings/python/asmspy) on the same known function:
region-scoped counts equal callgrind's (SCOPE_EXP_* from test_scope_counts.sh);
the auto-name carries this file and line; (address, length) works too."""
import ctypes
import os
import sys

import asmspy

exp_work = os.environ.get("SCOPE_EXP_WORK_SELF")
exp_helper = os.environ.get("SCOPE_EXP_HELPER_X5")
if not exp_work or not exp_helper:
    print("SKIP: run through test_scope_counts.sh (the callgrind oracle)")
    sys.exit(77)
lib = ctypes.CDLL(os.environ["SCOPE_VICTIM_LIB"])
lib.work.restype = ctypes.c_long
lib.work.argtypes = [ctypes.c_long]
failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += 0 if ok else 1


with asmspy.HwTrace.scope(lib.work, flags=asmspy.QUIET) as t:
    lib.work(7)
print("# python region work: %d insns, tier %s %s" % (t.insn_count, t.tier, t.reason))
check(t.tier == "WEAK", "tier WEAK")
check(t.insn_count == int(exp_work), "region work == callgrind work (self)")
check(not t.truncated, "not truncated")
check("test_scope_py" in t.name and ":" in t.name, "auto-named from the caller: " + t.name)

with asmspy.HwTrace.scope(lib.helper, flags=asmspy.QUIET) as h:
    lib.work(3)
check(h.insn_count == int(exp_helper), "region helper == callgrind helper x5")

addr = ctypes.cast(lib.work, ctypes.c_void_p).value
with asmspy.HwTrace.scope((addr, 1), flags=asmspy.QUIET) as p:
    lib.work(1)
check(p.insn_count == 1, "an (address, 1) range sees exactly work's first instruction once")
sys.exit(1 if failures else 0)
