#!/usr/bin/env python3
"""ccstream.py: read asmspy --stream listings (tests/codecache_pid).

  ccstream.py compare A B [LABEL_A LABEL_B]
      The two listings, normalized, must be equal thread by thread. Exit 0
      when equal, 1 with the first difference (and context) printed.
  ccstream.py stats FILE
      One line per thread: `tid lines top-symbols`, then `symbols:` lines.
  ccstream.py count FILE SYMBOL [TID-COUNT-MIN]
      Prints how many lines run inside SYMBOL (`SYMBOL+0x..`) and over how
      many threads.

A stream line is `[tid] sym+off [module]  mnemonic operands` (the `[tid]`
only while the process has several threads: a line without one belongs to
the process's only thread, the main one unless it has exited). Normalized:
  - a leading bare address (no symbol) becomes `?`
  - absolute addresses among the operands (0x followed by 9 or more hex
    digits: ASLR makes them differ between runs) become `ADDR`
  - consecutive identical lines collapse into one (a `rep` string
    instruction is one line in codecache, one per iteration when stepped)
  - threads are named by order of first appearance (tids differ between
    runs); the main thread (the first `# [pid] clone ->` event's pid, or the
    only thread) is T0.
Lines starting with `#` (notes, task events) are not compared; any other
line that is not a stream line (the program's own output) is counted apart.
A listing cut by its count (it ended with no `# target exited`/`exited
with` of the main thread) is compared on the common prefix of each thread
(the stepping one covers fewer instructions per line: rep iterations)."""
import re
import sys

LINE = re.compile(r"^(?:\[(\d+)\] )?(\S.*?)\s+\[([^\]]+)\]\s{2,}(\S+)(?:\s+(.*))?$")
ABS = re.compile(r"0x[0-9a-f]{9,}")
CLONE = re.compile(r"^# \[(\d+)\] clone -> (\d+)")
EXITED = re.compile(r"^# \[(\d+)\] exited with")


def parse(path):
    threads = {}  # tid-or-None -> list of normalized lines
    order = []
    raw = {}
    pid = None
    other = 0
    ended = False
    with open(path, errors="replace") as f:
        for ln in f:
            ln = ln.rstrip("\n")
            if ln.startswith("#"):
                m = CLONE.match(ln)
                if m and pid is None:
                    pid = m.group(1)
                if "target exited" in ln:
                    ended = True
                m = EXITED.match(ln)
                if m and (pid is None or m.group(1) == pid):
                    ended = True
                continue
            m = LINE.match(ln)
            if not m:
                if ln.strip():
                    other += 1
                continue
            tid, sym, mod, mnem, ops = m.groups()
            if sym.startswith("0x"):
                sym = "?"
            norm = "%s [%s] %s %s" % (sym, mod, mnem, ABS.sub("ADDR", ops or ""))
            if tid not in threads:
                threads[tid] = []
                raw[tid] = []
                order.append(tid)
            lst = threads[tid]
            if not lst or lst[-1] != norm:
                lst.append(norm.rstrip())
                raw[tid].append(ln)
    # the unprefixed lines are the main thread's: merge them with [pid]
    if pid is not None and None in threads and pid in threads:
        # order of appearance matters little here: unprefixed lines come
        # first (before the first clone) and after the others have gone
        threads[None] = threads[None] + threads.pop(pid)
        raw[None] = raw[None] + raw.pop(pid)
        order.remove(pid)
    if None in threads:
        order.remove(None)
        order.insert(0, None)
    named = {}
    for i, tid in enumerate(order):
        named["T%d" % i] = (tid or pid or "main", threads[tid], raw[tid])
    return named, other, ended


def compare(a, b, la="A", lb="B"):
    ta, oa, ea = parse(a)
    tb, ob, eb = parse(b)
    bad = 0
    notes = []
    if set(ta) != set(tb):
        print("FAIL: %s has %d thread(s) (%s), %s has %d (%s)" % (
            la, len(ta), " ".join("%s=%s:%d" % (k, v[0], len(v[1])) for k, v in ta.items()),
            lb, len(tb), " ".join("%s=%s:%d" % (k, v[0], len(v[1])) for k, v in tb.items())))
        bad = 1
    for name in sorted(set(ta) & set(tb)):
        tida, xa, ra = ta[name]
        tidb, xb, rb = tb[name]
        n = min(len(xa), len(xb))
        full = ea and eb
        i = 0
        while i < n and xa[i] == xb[i]:
            i += 1
        if i < n or (full and len(xa) != len(xb)):
            bad = 1
            print("FAIL: thread %s (%s tid %s, %s tid %s): streams differ at normalized line %d "
                  "(%s: %d lines, %s: %d lines%s)" % (name, la, tida, lb, tidb, i + 1, la, len(xa), lb,
                                                      len(xb), "" if full else "; a cut listing"))
            lo = max(0, i - 4)
            for side, x, r in ((la, xa, ra), (lb, xb, rb)):
                print("  --- %s:" % side)
                for k in range(lo, min(len(x), i + 4)):
                    print("  %s %6d  %s" % (">" if k == i else " ", k + 1, r[k]))
        else:
            notes.append("%s: %d lines equal%s" % (name, n, "" if full else " (common prefix)"))
    if not bad:
        print("equal: " + "; ".join(notes) + "; program output lines: %d / %d" % (oa, ob))
    return bad


def stats(path):
    t, other, ended = parse(path)
    for name, (tid, x, _) in t.items():
        syms = {}
        for ln in x:
            s = ln.split("+")[0].split(" ")[0]
            syms[s] = syms.get(s, 0) + 1
        top = sorted(syms.items(), key=lambda kv: -kv[1])[:5]
        print("%s tid=%s lines=%d top=%s" % (name, tid, len(x), ",".join("%s:%d" % kv for kv in top)))
    print("other=%d ended=%d" % (other, int(ended)))


def count(path, sym):
    t, _, _ = parse(path)
    per = {}
    for name, (tid, x, _) in t.items():
        c = sum(1 for ln in x if ln.startswith(sym + "+"))
        if c:
            per[tid] = c
    print("%d %d %s" % (sum(per.values()), len(per), " ".join("%s:%d" % kv for kv in per.items())))


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "compare":
        return compare(*sys.argv[2:6])
    if len(sys.argv) == 3 and sys.argv[1] == "stats":
        return stats(sys.argv[2])
    if len(sys.argv) == 4 and sys.argv[1] == "count":
        return count(sys.argv[2], sys.argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
