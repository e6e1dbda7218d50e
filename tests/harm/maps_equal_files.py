#!/usr/bin/env python3
"""maps_equal_files.py <pid>: every private, non-writable mapping of an ELF
file in the process (code, read-only data, and files the program mapped
itself, such as the executable or a `.debug` file a backtrace reads) must
hold the file's bytes. Bytes whose file offset lies in a writable PT_LOAD
segment (RELRO: relocated by the loader, then made read-only) are not
compared. Prints every mapping that differs (the first differing address)
and exits 1; exits 0 otherwise."""
import os
import struct
import sys


def writable_ranges(path):
    """file-offset ranges of the PF_W PT_LOAD segments, or None if not ELF64"""
    try:
        with open(path, "rb") as f:
            h = f.read(64)
            if h[:4] != b"\x7fELF" or h[4] != 2:
                return None
            phoff, = struct.unpack_from("<Q", h, 32)
            phentsize, phnum = struct.unpack_from("<HH", h, 54)
            out = []
            for i in range(phnum):
                f.seek(phoff + i * phentsize)
                p_type, p_flags, p_offset, _, _, p_filesz = struct.unpack("<IIQQQQ", f.read(40))
                if p_type == 1 and p_flags & 2:
                    out.append((p_offset & ~0xfff, p_offset + p_filesz))
            return out
    except OSError:
        return None


def main():
    pid = int(sys.argv[1])
    bad = []
    checked = 0
    with open("/proc/%d/maps" % pid) as m:
        lines = m.read().splitlines()
    mem = open("/proc/%d/mem" % pid, "rb", buffering=0)
    for line in lines:
        parts = line.split(None, 5)
        if len(parts) < 6 or not parts[5].startswith("/") or parts[5].endswith("(deleted)"):
            continue
        perms, path = parts[1], parts[5]
        if "w" in perms or perms[3] != "p" or "r" not in perms:
            continue
        wr = writable_ranges(path)
        if wr is None:
            continue
        lo, hi = (int(x, 16) for x in parts[0].split("-"))
        off = int(parts[2], 16)
        try:
            size = os.path.getsize(path)
            with open(path, "rb") as f:
                f.seek(off)
                want = f.read(max(0, min(hi - lo, size - off)))
            mem.seek(lo)
            got = mem.read(len(want))
        except OSError:
            continue
        checked += len(want)
        if got == want:
            continue
        for i, (a, b) in enumerate(zip(got, want)):
            if a != b and not any(s <= off + i < e for s, e in wr):
                bad.append("DIFF %s at 0x%x (file offset 0x%x, mapping %s %s): memory %02x, file %02x"
                           % (os.path.basename(path), lo + i, off + i, parts[0], perms, a, b))
                break
    if bad:
        print("\n".join(bad))
        sys.exit(1)
    print("ok: %d bytes of read-only ELF mappings equal their files" % checked)


main()
