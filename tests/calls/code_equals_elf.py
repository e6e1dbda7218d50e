#!/usr/bin/env python3
"""code_equals_elf.py <pid> [module-substring]: the executable segments of a
process's main executable (or of the mapped module whose path contains the
substring) must equal the ELF file's bytes. Compares /proc/<pid>/mem with
the file, segment by segment (PT_LOAD with PF_X), relocations aside: text is
never relocated in a PIE or a -z now library. Prints the first difference
and exits 1; exits 0 when every executable byte matches."""
import os
import struct
import sys


def load_segments(path):
    with open(path, "rb") as f:
        ident = f.read(64)
        if ident[:4] != b"\x7fELF" or ident[4] != 2:
            raise SystemExit("not a 64-bit ELF: " + path)
        e_type, = struct.unpack_from("<H", ident, 16)
        e_phoff, = struct.unpack_from("<Q", ident, 32)
        e_phentsize, e_phnum = struct.unpack_from("<HH", ident, 54)
        segs = []
        for i in range(e_phnum):
            f.seek(e_phoff + i * e_phentsize)
            p_type, p_flags, p_offset, p_vaddr, _, p_filesz = struct.unpack("<IIQQQQ", f.read(40))
            if p_type == 1:
                segs.append((p_flags, p_offset, p_vaddr, p_filesz))
        return e_type, segs


def main():
    pid = int(sys.argv[1])
    want = sys.argv[2] if len(sys.argv) > 2 else None
    exe = os.readlink("/proc/%d/exe" % pid)
    maps = []
    with open("/proc/%d/maps" % pid) as m:
        for line in m:
            parts = line.split()
            if len(parts) >= 6:
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                maps.append((lo, hi, int(parts[2], 16), parts[5]))
    path = exe
    if want:
        cands = [p for (_, _, _, p) in maps if want in os.path.basename(p)]
        if not cands:
            raise SystemExit("no mapped module matches " + want)
        path = cands[0]
    e_type, segs = load_segments(path)
    # the load bias: the mapping of file offset 0 (ET_DYN); 0 for ET_EXEC
    base = 0
    if e_type == 3:
        base = min(lo - off for (lo, _, off, p) in maps if p == path)
    checked = 0
    with open(path, "rb") as f, open("/proc/%d/mem" % pid, "rb", buffering=0) as mem:
        for flags, off, vaddr, size in segs:
            if not flags & 1:
                continue
            f.seek(off)
            want_bytes = f.read(size)
            mem.seek(base + vaddr)
            got = mem.read(size)
            if got != want_bytes:
                for i, (a, b) in enumerate(zip(got, want_bytes)):
                    if a != b:
                        print("DIFF %s at 0x%x (+0x%x): memory %02x, file %02x" %
                              (os.path.basename(path), base + vaddr + i, vaddr + i, a, b))
                        sys.exit(1)
            checked += size
    print("ok: %d executable bytes of %s equal the file" % (checked, os.path.basename(path)))


main()
