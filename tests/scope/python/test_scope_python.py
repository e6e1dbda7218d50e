#!/usr/bin/env python3
"""The Python binding beyond test_scope_py.py: HwBackend (and the old flag
names), the thread-hop backstop (a scope begun on the main thread and ended
on a threading.Thread = another OS thread), the no-plugin case, and the
per-scope overhead line (printed only).
usage: python3 test_scope_python.py              (through test_scope_counts.sh)
       python3 test_scope_python.py --no-plugin  (ASMSPY_PLUGIN_PATH_ONLY=1 ...)"""
import ctypes
import os
import sys
import threading
import time

import asmspy

lib = ctypes.CDLL(os.environ["SCOPE_VICTIM_LIB"])
lib.work.restype = ctypes.c_long
lib.work.argtypes = [ctypes.c_long]
failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += 0 if ok else 1


def expect_work(n):
    return sum((n + i) * 3 + 1 for i in range(5))


Q = asmspy.QUIET
if sys.argv[1:] == ["--no-plugin"]:
    # nothing can trace: a recorded no-op with the reason, no exception
    with asmspy.HwTrace.scope(lib.work, flags=Q) as t:
        r = lib.work(7)
    print("# python no-plugin: tier %s: %s" % (t.tier, t.reason))
    check(t.tier == "NONE", "no plugin: tier NONE")
    check(t.reason != "", "no plugin: the reason is recorded")
    check(r == expect_work(7), "no plugin: work(7) still returns %d (%d)" % (expect_work(7), r))
    check(t.insn_count == 0 and not t.truncated, "no plugin: 0 instructions, not truncated")
    sys.exit(1 if failures else 0)

exp_work = os.environ.get("SCOPE_EXP_WORK_SELF")
if not exp_work:
    print("SKIP: run through test_scope_counts.sh (the callgrind oracle)")
    sys.exit(77)
exp_work = int(exp_work)

# HwBackend: the seed's names, mapping to the scope.h flags (old names kept)
check(asmspy.HwBackend.Auto == 0 and asmspy.HwBackend.IntelPt == asmspy.STRONG == asmspy.INTEL_PT
      and asmspy.HwBackend.AmdLbr == asmspy.CEILING == asmspy.AMD_LBR,
      "HwBackend.Auto/IntelPt/AmdLbr == 0/STRONG/CEILING (INTEL_PT/AMD_LBR kept)")
line = sys._getframe().f_lineno + 1
with asmspy.HwTrace.scope(lib.work, flags=Q, backend=asmspy.HwBackend.Auto) as t:
    r = lib.work(7)
print("# python region work: %d insns (callgrind %d), tier %s" % (t.insn_count, exp_work, t.tier))
check(t.tier == "WEAK" and t.insn_count == exp_work and not t.truncated and r == expect_work(7),
      "HwBackend.Auto: tier WEAK, region work %d == callgrind %d" % (t.insn_count, exp_work))
check(t.name.endswith("test_scope_python.py:%d" % line), "auto-named from the caller: " + t.name)
with asmspy.HwTrace.scope(lib.work, flags=Q, backend=asmspy.HwBackend.IntelPt) as p:
    r = lib.work(9)
check(r == expect_work(9) and (p.tier == "STRONG" or (p.tier == "NONE" and "intel_pt" in p.reason)),
      "HwBackend.IntelPt: STRONG, or a recorded no-op naming the PT gate (%s: %s)"
      % (p.tier, p.reason[:80]))
with asmspy.HwTrace.scope(lib.work, flags=Q | asmspy.INTEL_PT) as p2:
    lib.work(9)
check(p2.tier == p.tier, "the old INTEL_PT flag selects the same as HwBackend.IntelPt")

# whole window: the interpreter's own instructions are in it too
with asmspy.HwTrace.scope(None, flags=Q) as w:
    lib.work(5)
exp_helper = int(os.environ.get("SCOPE_EXP_HELPER_X5", "0"))
check(w.tier == "WEAK" and not w.truncated and w.insn_count >= exp_work + exp_helper
      and "work+0x" in w.text and "helper+0x" in w.text,
      "whole window: %d >= work + helper (%d), names both" % (w.insn_count, exp_work + exp_helper))

# thread hop: begun on the main thread, ended on another threading.Thread
# (an OS thread): truncated with the core's reason, no partial listing. The
# ending thread exists before the scope begins and waits for the go.
go = threading.Event()
hop = asmspy.HwTrace.scope(lib.work, flags=Q)
ender = threading.Thread(target=lambda: (go.wait(), hop.__exit__(None, None, None)))
ender.start()
hop.__enter__()
r = lib.work(2)
go.set()
ender.join()
print("# python thread hop: %s" % hop.reason)
check(hop.truncated and "thread hop" in hop.reason,
      "a scope ended on another threading.Thread: truncated (%s)" % hop.reason)
check(hop.insn_count == 0 and r == expect_work(2), "thread hop: no partial listing, work(2) right")
with asmspy.HwTrace.scope(lib.work, flags=Q) as after:
    lib.work(2)
check(after.insn_count == exp_work and not after.truncated,
      "the main thread traces normally after the hop")

# per-scope overhead: printed only, never asserted. 20 iterations, not 200:
# under the WEAK tier every instruction between begin and end is
# single-stepped, and the interpreter's own path from asmspy_scope_begin's
# return to asmspy_scope_end's call (ctypes, __enter__/__exit__) is ~6k
# instructions, ~0.1 s per scope here. That cost is the line's point.
n = 20
t0 = time.monotonic()
for _ in range(n):
    with asmspy.HwTrace.scope(lib.work, flags=Q):
        pass
us = (time.monotonic() - t0) * 1e6 / n
print("# overhead python: %.1f us per scope (begin+end, empty region)" % us)
sys.exit(1 if failures else 0)
