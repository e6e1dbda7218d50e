#!/usr/bin/python3
"""Read a live process's data symbols through /proc/PID/mem (read-only: never
attaches, never stops the process). MODULE is a mapped file whose path ends
with MODULE (e.g. /node, /libjvm.so, /victim_loop).

procmem.py read PID MODULE SYMBOL: print the symbol's value (its first 8
bytes, or fewer for a smaller symbol, little-endian unsigned); exit 1 when
it cannot be read.

procmem.py addr PID MODULE SYMBOL: print the symbol's address in PID and
the number of bytes `read` would read (for a reader without Python).

procmem.py hot PID MODULE [SAMPLES] [INTERVAL_MS]: find a data word of
MODULE that the running process PID writes often, for --watch. Reads the
module's data symbols (nm: .symtab and .dynsym), snapshots their bytes
SAMPLES times INTERVAL_MS apart and prints the best word as `SYMBOL+OFF LEN`
(LEN 8 or 4, aligned, inside the symbol): one that changed between every
pair of snapshots and only ever grew (a counter or a clock, written by user
code rather than by a syscall into a buffer), a whole small symbol first,
then the smallest steps. Prints nothing (exit 1) when no word qualifies."""
import os
import subprocess
import sys
import time


def module_map(pid, module):
    """(path, load bias) of MODULE in PID's maps."""
    first = {}
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 6 or not parts[5].endswith(module):
                continue
            start = int(parts[0].split("-")[0], 16)
            off = int(parts[2], 16)
            path = parts[5]
            if path not in first or start - off < first[path]:
                first[path] = start - off
    if not first:
        return None, None
    path = sorted(first)[0]
    return path, first[path]


def elf_type(path):
    with open(path, "rb") as f:
        hdr = f.read(18)
    return int.from_bytes(hdr[16:18], "little")  # 2 EXEC, 3 DYN


def data_symbols(path):
    out = subprocess.run(["nm", "-S", "--defined-only", path], capture_output=True, text=True).stdout
    out += subprocess.run(["nm", "-D", "-S", "--defined-only", path], capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) != 4 or p[2] not in "bBdD":
            continue
        name = p[3].split("@")[0]
        addr, size = int(p[0], 16), int(p[1], 16)
        if 4 <= size <= 65536 and name not in syms:
            syms[name] = (addr, size)
    return syms


def read_symbol(pid, module, symbol):
    path, bias = module_map(pid, module)
    if path is None:
        sys.exit(1)
    if elf_type(path) == 2:
        bias = 0
    sym = data_symbols(path).get(symbol)
    if sym is None:
        sys.exit(1)
    addr, size = sym
    try:
        with open(f"/proc/{pid}/mem", "rb", buffering=0) as f:
            f.seek(bias + addr)
            raw = f.read(min(size, 8))
    except OSError:
        sys.exit(1)
    print(int.from_bytes(raw, "little"))


def symbol_address(pid, module, symbol):
    path, bias = module_map(pid, module)
    if path is None:
        sys.exit(1)
    if elf_type(path) == 2:
        bias = 0
    sym = data_symbols(path).get(symbol)
    if sym is None:
        sys.exit(1)
    print(bias + sym[0], min(sym[1], 8))


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "read":
        read_symbol(int(sys.argv[2]), sys.argv[3], sys.argv[4])
        return
    if len(sys.argv) >= 5 and sys.argv[1] == "addr":
        symbol_address(int(sys.argv[2]), sys.argv[3], sys.argv[4])
        return
    if len(sys.argv) < 4 or sys.argv[1] != "hot":
        sys.exit(__doc__)
    pid, module = int(sys.argv[2]), sys.argv[3]
    samples = int(sys.argv[4]) if len(sys.argv) > 4 else 6
    interval = (int(sys.argv[5]) if len(sys.argv) > 5 else 100) / 1000.0
    path, bias = module_map(pid, module)
    if path is None:
        sys.exit(1)
    if elf_type(path) == 2:
        bias = 0
    syms = data_symbols(path)
    if not syms:
        sys.exit(1)
    snaps = []
    fd = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
    try:
        for _ in range(samples):
            snap = {}
            for name, (addr, size) in syms.items():
                try:
                    snap[name] = os.pread(fd, size, bias + addr)
                except OSError:
                    pass
            snaps.append(snap)
            time.sleep(interval)
    finally:
        os.close(fd)
    best = None
    for name, (addr, size) in syms.items():
        vals = [s.get(name) for s in snaps]
        if any(v is None or len(v) != size for v in vals) or vals[0] == vals[-1]:
            continue
        for width in (8, 4):
            start = (-(bias + addr)) % width
            for off in range(start, size - width + 1, width):
                words = [int.from_bytes(v[off:off + width], "little") for v in vals]
                deltas = sorted(b - a for a, b in zip(words, words[1:]))
                if deltas[0] > 0:
                    # a whole small symbol first, then the smallest steps
                    # (a counter: about one write per step)
                    score = (size == width, -deltas[len(deltas) // 2], width)
                    if best is None or score > best[0]:
                        best = (score, f"{name}+{off}" if off else name, width)
    if best is None:
        sys.exit(1)
    print(best[1], best[2])


if __name__ == "__main__":
    main()
