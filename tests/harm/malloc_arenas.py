#!/usr/bin/env python3
"""malloc_arenas.py MAPSFILE: "ARENAS VM_KB MAPPINGS" of one snapshot of a
/proc/PID/maps: how many glibc malloc arena heaps it holds, the size of all
its mappings (VmSize) and their number, all from the same instant (the
program keeps mapping while it is measured: reading VmSize, then the maps,
races with its next arena).

glibc gives a thread that finds the main arena locked a new arena: one
anonymous reservation of HEAP_MAX_SIZE (64 MiB on 64-bit), aligned to its
own size, of which only the used head is read-write (the rest ---p).
That growth is the program's own, and more likely when a tracer slows a
thread down, so the harm suite's growth check discounts exactly these
and nothing else: a run of contiguous unnamed mappings that starts on a
64 MiB boundary and spans exactly 64 MiB.
"""
import sys

HEAP_MAX = 64 << 20


def arenas(maps_lines):
    runs = []  # [start, end] of contiguous unnamed mappings
    for line in maps_lines:
        f = line.split()
        if len(f) < 5:
            continue
        lo, hi = (int(x, 16) for x in f[0].split('-'))
        named = len(f) >= 6
        if named:
            continue
        if runs and runs[-1][1] == lo:
            runs[-1][1] = hi
        else:
            runs.append([lo, hi])
    n = 0
    for lo, hi in runs:
        # an arena heap may sit right after another anonymous mapping: look
        # for 64 MiB aligned, 64 MiB long stretches inside the run
        a = (lo + HEAP_MAX - 1) // HEAP_MAX * HEAP_MAX
        while a + HEAP_MAX <= hi:
            n += 1
            a += HEAP_MAX
    return n


def main():
    try:
        with open(sys.argv[1]) as fh:
            lines = fh.readlines()
    except OSError:
        lines = []
    kb = 0
    for line in lines:
        lo, hi = (int(x, 16) for x in line.split()[0].split('-'))
        kb += (hi - lo) // 1024
    print(arenas(lines), kb, len(lines))


if __name__ == "__main__":
    main()
