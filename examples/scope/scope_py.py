#!/usr/bin/env python3
"""Python scope example: trace libc's labs() called through ctypes.
Run from the source root after `./run.sh` (or ninja -C build):
    PYTHONPATH=bindings/python ASMSPY_LIB=build/host/libasmspy.so python3 examples/scope/scope_py.py
"""
import ctypes

import asmspy

libc = ctypes.CDLL("libc.so.6")
libc.labs.restype = ctypes.c_long
libc.labs.argtypes = [ctypes.c_long]
with asmspy.HwTrace.scope(libc.labs, flags=asmspy.QUIET) as t:
    libc.labs(-42)
print(t.text)
print("tier %s, %d instructions, written to %s" % (t.tier, t.insn_count, t.path))
if t.tier == "NONE":  # a no-op scope: say why
    print("not captured: %s" % t.reason)
